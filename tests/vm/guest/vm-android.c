// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * An Android-like app lifecycle (lifecycle.h) under the real pageoutd, as a device runs it:
 * pageoutd built --without-systemd (pageoutd-android), started by android-init from the shipped
 * conf/android/pageoutd.rc (its command line, and the socket init would create) with the
 * shipped pageoutd.conf and conf/android/cached-apps.conf, over apps in AOSP's /uid_U/pid_P
 * cgroups without the memory controller. The checks: every frozen app's cold memory is swapped
 * out within a bound after its freeze, nothing is taken from an app while it runs, every app
 * makes progress in the foreground, the socket init created answers pageoutctl. Guest only.
 */
#include <config.h>

#include <sys/socket.h>
#include <sys/un.h>

#include "lifecycle.h"
#include "../../lib/tap.h"

#define NSTEP 17 /* lifecycle steps after the launches: about 70 s */
#define LOG "/tmp/pageoutd-android.log"

static pid_t daemon_pid;

static pid_t start_daemon(void)
{
	pid_t p = fork();

	if (p == 0) {
		int fd = open(LOG, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

		dup2(fd, 2);
		execl("./android-init", "android-init", "pageoutd.rc", (char *)NULL);
		_exit(127);
	}
	return p;
}

/* the device's files: /system/bin/pageoutd and /system/etc/pageoutd as pageoutd.rc names them */
static int install(void)
{
	return system("mkdir -p /system/bin /system/etc/pageoutd/conf.d /run/pageoutd && "
		      "cp pageoutd-android /system/bin/pageoutd && "
		      "cp android-pageoutd.conf /system/etc/pageoutd/pageoutd.conf && "
		      "cp cached-apps.conf /system/etc/pageoutd/conf.d/cached-apps.conf");
}

/* whether a file (NUL-separated like /proc/PID/environ or not) holds needle */
static bool file_has(const char *path, const char *needle)
{
	char *buf = NULL;
	ssize_t n = read_file_alloc_at(AT_FDCWD, path, &buf);
	bool r = n > 0 && memmem(buf, (size_t)n, needle, strlen(needle));

	free(buf);
	return r;
}

static void check_setup(struct lc_app *a)
{
	pid_t d = daemon_pid;
	char p[256];
	struct stat st;

	snprintf(p, sizeof(p), "/proc/%d/maps", d);
	ok(file_has(p, "libcgroup") && !file_has(p, "libsystemd"),
	   "pageoutd runs the --without-systemd build (no libsystemd mapped)");
	snprintf(p, sizeof(p), "/proc/%d/environ", d);
	ok(file_has(p, "ANDROID_SOCKET_pageoutd="),
	   "and was started by android-init with ANDROID_SOCKET_pageoutd");
	ok(stat("/dev/socket/pageoutd", &st) == 0 && S_ISSOCK(st.st_mode) &&
		   (st.st_mode & 0777) == 0660 && st.st_uid == 0 && st.st_gid == 1000,
	   "/dev/socket/pageoutd is a socket, mode 0660, root:system");
	lc_cg_path(p, sizeof(p), a, "cgroup.controllers");
	ok(a && a->pid > 0 && !file_has(p, "memory") &&
		   (lc_cg_path(p, sizeof(p), a, "memory.stat"), access(p, F_OK) < 0),
	   "the apps' /uid_U/pid_P cgroups have no memory controller");
}

static void check_socket(void)
{
	char line[512];
	FILE *f = popen("./pageoutctl -s /dev/socket/pageoutd status 2>&1", "r");
	bool policy = false, unknown = false;
	unsigned n = 0;

	while (f && fgets(line, sizeof(line), f)) {
		char name[64], reclaimed[32], drop[32];

		if (n++ < 12)
			printf("#   %s", line);
		/* POLICY ENGINE CGROUPS PROCS COLD RECLAIMED MEMCG-DROP ... */
		if (sscanf(line, "%63s %*s %*s %*s %*s %31s %31s", name, reclaimed, drop) == 3 &&
		    !strcmp(name, "cached-apps")) {
			policy = strcmp(reclaimed, "0") != 0;
			unknown = !strcmp(drop, "-");
		}
	}
	ok(f && pclose(f) == 0 && policy,
	   "pageoutctl -s /dev/socket/pageoutd status answers: cached-apps reclaimed something");
	ok(unknown, "and its MEMCG-DROP is unknown (-): the apps' cgroups have no memory.stat");
}

/* the checks of a run, on every kernel */
#define VM_ANDROID_CHECKS 13

int main(void)
{
	int rc;
	char nr[16] = "";

	vm_require_guest();
	setvbuf(stdout, NULL, _IOLBF, 0);
	vm_release_damon_stat();
	if (lc_init() < 0 || install() != 0) {
		printf("1..0 # SKIP cannot set up /system\n");
		return 77;
	}
	tap_plan(VM_ANDROID_CHECKS);
	daemon_pid = start_daemon();
	vm_sleep_ms(2000);
	lc_run(NSTEP, check_setup);
	printf("# %u apps launched, %u thaws; %u freezes judged, %u with 90%% of cold out within "
	       "%d s: mean %.1f s, worst %.1f s after the freeze\n",
	       lc_napps, lc.thaws, lc.judged, lc.reclaimed_ok, LC_BOUND_S,
	       lc.reclaimed_ok ? (double)lc.reclaim_ms_sum / lc.reclaimed_ok / 1000 : 0.0,
	       (double)lc.worst_reclaim_ms / 1000);
	printf("# while running: %ld kB of hot+warm and %ld kB of cold swapped out (%u foreground "
	       "periods watched); %.1f major faults in the first 2 s after a thaw (mean of %ld)\n",
	       lc.taken_hw_kb, lc.taken_cold_kb, lc.settled,
	       lc.thaw_faults_n ? (double)lc.thaw_faults_sum / (double)lc.thaw_faults_n : 0.0,
	       lc.thaw_faults_n);
	ok(lc_napps >= LC_ALIVE + 3 && lc.thaws >= NSTEP / 2, "%u apps launched, %u thawed again",
	   lc_napps, lc.thaws);
	ok(lc.judged >= LC_ALIVE && lc.reclaimed_ok == lc.judged,
	   "every frozen app's cold memory was >= 90%% out within %d s of its freeze (%u of %u)",
	   LC_BOUND_S, lc.reclaimed_ok, lc.judged);
	ok(lc.settled >= NSTEP / 2 && lc.taken_hw_kb == 0 && lc.taken_cold_kb == 0,
	   "nothing was swapped out of an app while it ran");
	ok(lc.fg_periods > 0 && lc.fg_progress == lc.fg_periods,
	   "every app made progress in the foreground (%u of %u times)", lc.fg_progress,
	   lc.fg_periods);
	check_socket();
	rc = vm_daemon_stop(daemon_pid);
	is_int(rc, 0, "pageoutd exits 0 on SIGTERM");
	read_file_at(AT_FDCWD, VM_ADMIN "/kdamonds/nr_kdamonds", nr, sizeof(nr));
	is_str(str_strip(nr), "0", "and gives its kdamonds back");
	fflush(stdout);
	/* cgroups without memory.* files, apps killed and their cgroups removed: all expected */
	ok(system("! grep -E '^pageoutd: (emerg|alert|crit|err|warning):' " LOG
		  " | sed 's/^/#   /' | grep .") == 0,
	   "pageoutd logged no warning or error");
	if (system("n=$(wc -l <" LOG "); echo \"# pageoutd log: $n lines\"; "
		   "grep -v -e 'froze or thawed' " LOG " | tail -n 8 | sed 's/^/#   /'") != 0)
		vm_show_log(LOG, 8);
	lc_end();
	tap_done();
	return tap_failed ? 1 : 0;
}
