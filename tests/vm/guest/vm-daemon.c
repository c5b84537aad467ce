// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The real pageoutd under churn and with reduced privileges, on the real kernel.
 *
 * Churn: processes start and exit all the time in the matched cgroup (hundreds in a minute,
 * some living less than a cycle, so that they exit between snapshot and apply; some remapping
 * their memory while they live) while pageoutd runs tens of cycles. It must not crash, must
 * advise no process outside the cgroup, keep its descriptors and RSS flat and its log
 * rate-limited, and give DAMON back when it exits.
 *
 * SIGTERM while pageoutd is inside process_madvise: the call completes, pageoutd exits 0 and
 * gives DAMON back.
 *
 * Capabilities: pageoutd as root with only some capabilities (the bounding set cut before
 * exec), over a process of another user: with the set the unit grants it reclaims; without
 * CAP_SYS_NICE or CAP_SYS_PTRACE it cannot, and says so in one clear line.
 */
#include <config.h>

#include <dirent.h>
#include <linux/capability.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "pageoutd/util.h"
#include "vmtest.h"
#include "../../lib/tap.h"

#define COLD_A 0x7e0000000000ULL
#define CTL_MB 16
#define LOG "/tmp/pageoutd-daemon.log"

static const char *conf_dir = "/tmp/pageoutd-vm-daemon";

/* The daemon's config; damon: extra lines of its [damon] section (NULL: none). */
static void write_config_damon(const char *cgroup, const char *damon)
{
	char p[256], buf[1024];

	mkdir(conf_dir, 0755);
	snprintf(p, sizeof(p), "%s/conf.d", conf_dir);
	mkdir(p, 0755);
	snprintf(buf, sizeof(buf),
		 "[daemon]\ninterval = 1s\nstate_dir = /run/pageoutd-vmd\n"
		 "socket = /run/pageoutd-vmd/sock\nlog_level = info\n[damon]\n%s",
		 damon ? damon : "");
	vm_put("/tmp/pageoutd-vm-daemon/pageoutd.conf", buf);
	snprintf(buf, sizeof(buf),
		 "[policy]\ncgroup = %s\nengine = vaddr\nmin_age = 2s\nmax_access_rate = 0%%\n"
		 "memory = anon\nquota = 1G/1s\nmax_refault_rate = 100%%\n",
		 cgroup);
	snprintf(p, sizeof(p), "%s/conf.d/p.conf", conf_dir);
	vm_put(p, buf);
}

static void write_config(const char *cgroup)
{
	write_config_damon(cgroup, NULL);
}

/*
 * pageoutd's descriptors: those it holds for a process (a pidfd, anything under /proc/PID) and
 * the rest. The first follow the processes alive in the matched cgroup; a leak shows in the
 * rest, or in process descriptors left once every process is gone. Files pageoutd has open
 * only for a moment (a DAMON file, a cgroup file) would make one look a leak: the count is the
 * least of five looks 50 ms apart, and `what` keeps the other descriptors of that look.
 */
struct fds {
	unsigned proc, other;
	char what[512];
};

static bool per_process(const char *t)
{
	return strstr(t, "pidfd") || (strncmp(t, "/proc/", 6) == 0 && t[6] >= '0' && t[6] <= '9');
}

static struct fds count_fds_once(pid_t pid)
{
	char p[64], l[384], t[PATH_MAX];
	struct fds n = { 0, 0, "" };
	DIR *d;
	struct dirent *e;

	snprintf(p, sizeof(p), "/proc/%d/fd", pid);
	d = opendir(p);
	while (d && (e = readdir(d))) {
		ssize_t k;

		if (e->d_name[0] == '.')
			continue;
		snprintf(l, sizeof(l), "%s/%s", p, e->d_name);
		k = readlink(l, t, sizeof(t) - 1);
		t[k > 0 ? k : 0] = '\0';
		if (per_process(t)) {
			n.proc++;
		} else {
			size_t w = strlen(n.what);

			n.other++;
			if (w + 1 + strlen(t) < sizeof(n.what)) {
				if (w)
					n.what[w++] = ' ';
				memcpy(n.what + w, t, strlen(t) + 1);
			}
		}
	}
	if (d)
		closedir(d);
	return n;
}

static struct fds count_fds(pid_t pid)
{
	struct fds best = count_fds_once(pid);

	for (unsigned i = 1; i < 5; i++) {
		struct fds n;

		vm_sleep_ms(50);
		n = count_fds_once(pid);
		if (n.other < best.other)
			best = n;
	}
	return best;
}

static unsigned count_lines(const char *file, const char *needle)
{
	char line[1024];
	unsigned n = 0;
	FILE *f = fopen(file, "r");

	while (f && fgets(line, sizeof(line), f))
		n += !needle || strstr(line, needle) != NULL;
	if (f)
		fclose(f);
	return n;
}

/* --- churn --- */

struct churner {
	const char *cg;
	unsigned life_ms;
	bool remap;
	uid_t uid; /* 0: stay root */
	uint64_t mb;
};

static int churn_setup(void *arg)
{
	const struct churner *c = arg;
	char p[256], s[32];
	void *m;

	snprintf(p, sizeof(p), VM_CGROOT "%s/cgroup.procs", c->cg);
	snprintf(s, sizeof(s), "%d", getpid());
	if (write_file_at(AT_FDCWD, p, s) < 0)
		return 2;
	m = mmap((void *)(uintptr_t)COLD_A, c->mb * MIB, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (m == MAP_FAILED)
		return 3;
	madvise(m, c->mb * MIB, MADV_NOHUGEPAGE);
	vm_touch(m, c->mb * MIB, true);
	if (c->uid && (setgid(c->uid) < 0 || setuid(c->uid) < 0))
		return 4;
	return 0;
}

/* live life_ms (remapping half of the area every 200 ms if asked), then exit */
static void churn_run(void *arg)
{
	const struct churner *c = arg;
	uint64_t end = now_usec() + c->life_ms * 1000ULL;

	if (!c->life_ms)
		return; /* for ever: child_fork pauses */
	while (now_usec() < end) {
		vm_sleep_ms(200);
		if (c->remap) {
			void *h = (void *)(uintptr_t)(COLD_A + c->mb * MIB / 2);

			munmap(h, c->mb * MIB / 2);
			h = mmap(h, c->mb * MIB / 2, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
			if (h != MAP_FAILED)
				vm_touch(h, c->mb * MIB / 2, true);
		}
	}
	_exit(0);
}

static void churn(void)
{
	struct churner ctl = { "/vmd-ctl", 0, false, 0, CTL_MB };
	pid_t live[32] = { 0 }, hctl, d;
	unsigned spawned = 0, short_lived = 0, remapping = 0, lines0, lines;
	struct fds fd20 = { 0, 0, "" }, fd_end, fd_gone;
	long rss20 = 0, rss_end;
	uint64_t t0, seed = 12345;
	char nr[16] = "";
	bool alive = true;

	vm_cg_make("/vmd-churn");
	vm_cg_make("/vmd-ctl");
	hctl = child_fork(churn_setup, churn_run, &ctl);
	write_config("/vmd-churn");
	d = vm_daemon_start(conf_dir, LOG, ~0ULL);
	vm_sleep_ms(2000);
	lines0 = count_lines(LOG, NULL);
	t0 = now_usec();
	while (now_usec() - t0 < 60 * 1000000ULL) {
		unsigned slot = 32;

		for (unsigned i = 0; i < 32; i++) {
			if (live[i] > 0 && waitpid(live[i], NULL, WNOHANG) == live[i])
				live[i] = 0;
			if (!live[i] && slot == 32)
				slot = i;
		}
		if (slot < 32) {
			struct churner c = { "/vmd-churn", 0, false, 0, 2 };

			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			/* a third live less than one cycle, the others up to 6 s; a quarter remap */
			c.life_ms = (seed >> 33) % 3 == 0 ? 100 + (unsigned)(seed >> 40) % 700
							  : 1000 + (unsigned)(seed >> 40) % 5000;
			c.remap = (seed >> 20) % 4 == 0;
			short_lived += c.life_ms < 1000;
			remapping += c.remap;
			live[slot] = child_fork(churn_setup, churn_run, &c);
			spawned += live[slot] > 0;
		}
		if (!rss20 && now_usec() - t0 >= 20 * 1000000ULL) {
			fd20 = count_fds(d);
			rss20 = vm_status_kb(d, "VmRSS");
		}
		alive = alive && kill(d, 0) == 0 && waitpid(d, NULL, WNOHANG) == 0;
		vm_sleep_ms(100);
	}
	fd_end = count_fds(d);
	rss_end = vm_status_kb(d, "VmRSS");
	lines = count_lines(LOG, NULL) - lines0;
	/* then every churner goes; a few cycles later pageoutd must hold nothing for them */
	for (unsigned i = 0; i < 32; i++)
		vm_reap(live[i]);
	vm_sleep_ms(4000);
	fd_gone = count_fds(d);
	printf("# churn: %u processes in 60 s (%u shorter than a cycle, %u remapping), pageoutd "
	       "fds %u+%u -> %u+%u (process + other, 20 s -> 60 s), %u+%u 4 s after the last "
	       "exited, RSS %ld -> %ld kB, %u log lines, %u advice lines\n",
	       spawned, short_lived, remapping, fd20.proc, fd20.other, fd_end.proc, fd_end.other,
	       fd_gone.proc, fd_gone.other, rss20, rss_end, lines, count_lines(LOG, "advised"));
	ok(spawned >= 200, "hundreds of processes came and went in the matched cgroup (%u)",
	   spawned);
	ok(alive, "pageoutd ran through it");
	ok(fd_end.other <= fd20.other + 1 && fd_gone.other <= fd20.other + 1,
	   "its other descriptors stayed flat (%u -> %u -> %u)", fd20.other, fd_end.other,
	   fd_gone.other);
	if (fd_end.other > fd20.other + 1 || fd_gone.other > fd20.other + 1)
		printf("# at 20 s: %s\n# at 60 s: %s\n# after: %s\n", fd20.what, fd_end.what,
		       fd_gone.what);
	is_int(fd_gone.proc, 0, "it let go of every process once they had exited");
	ok(rss_end > 0 && rss_end <= rss20 + 512, "its RSS stayed flat (%ld -> %ld kB)", rss20,
	   rss_end);
	ok(lines <= 60 * 6, "its log stayed rate-limited (%u lines in 60 s)", lines);
	ok(count_lines(LOG, "advised") > 0, "and it reclaimed churning processes meanwhile");
	is_int(vm_area_swap_kb(hctl, COLD_A), 0, "a process outside the cgroup was never advised");
	is_int(vm_daemon_stop(d), 0, "SIGTERM: exit 0");
	read_file_at(AT_FDCWD, VM_ADMIN "/kdamonds/nr_kdamonds", nr, sizeof(nr));
	is_str(str_strip(nr), "0", "nothing of pageoutd's is left in DAMON");
	vm_reap(hctl);
	vm_sleep_ms(300);
	vm_cg_remove("/vmd-churn");
	vm_cg_remove("/vmd-ctl");
}

/* --- capabilities --- */

#define CAP(c) (1ULL << (c))
#define UNIT_CAPS                                                                                  \
	(CAP(CAP_SYS_ADMIN) | CAP(CAP_SYS_NICE) | CAP(CAP_SYS_PTRACE) | CAP(CAP_CHOWN) |           \
	 CAP(CAP_IPC_LOCK))

/* the kernel's answer to madvise_probe in the last with_caps: 0, or -errno */
static int ptrace_probe;

/*
 * madvise_probe: what the kernel answers a caller with only the capabilities in caps (bit n =
 * capability n, effective and permitted) that asks process_madvise(MADV_COLD) on one page of
 * target's cold area: 0 or -errno. The reference pageoutd's outcome is checked against.
 */
static int madvise_probe(pid_t target, uint64_t caps)
{
	pid_t c = fork();
	int st;

	if (c == 0) {
		struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
		struct __user_cap_data_struct data[2] = {
			{ (uint32_t)caps, (uint32_t)caps, 0 },
			{ (uint32_t)(caps >> 32), (uint32_t)(caps >> 32), 0 },
		};
		struct iovec iov = { (void *)(uintptr_t)COLD_A, 4096 };
		int fd;

		if (syscall(SYS_capset, &hdr, data) < 0)
			_exit(200);
		fd = (int)syscall(SYS_pidfd_open, target, 0);
		if (fd < 0)
			_exit(201);
		_exit(syscall(SYS_process_madvise, fd, &iov, 1, MADV_COLD, 0) < 0 ? errno : 0);
	}
	if (c < 0 || waitpid(c, &st, 0) != c || !WIFEXITED(st) || WEXITSTATUS(st) >= 200)
		return -ECHILD;
	return -WEXITSTATUS(st);
}

/* seconds the unit's capabilities took to reclaim 90% (with_caps); 25 until known */
static unsigned caps_reclaim_secs = 25;

/*
 * pageoutd with caps over one process of uid 65534: swapped kB after up to 25 s. A process
 * pageoutd may not advise is logged as skipped and never becomes a target while it lives: the
 * wait then ends once it has also lasted as long as the unit's capabilities took to reclaim.
 */
static long with_caps(uint64_t caps, const char *what, const char *expect_log)
{
	struct churner c = { "/vmd-cap", 0, false, 65534, CTL_MB };
	pid_t h, d;
	long sw = 0;
	unsigned i;

	vm_cg_make("/vmd-cap");
	h = child_fork(churn_setup, churn_run, &c);
	write_config("/vmd-cap");
	ptrace_probe = madvise_probe(h, caps);
	d = vm_daemon_start(conf_dir, LOG, caps);
	for (i = 0; i < 25 && sw < CTL_MB * 1024 * 9 / 10; i++) {
		if (i >= caps_reclaim_secs + 2 && count_lines(LOG, "skipped while it lives") > 0)
			break;
		vm_sleep_ms(1000);
		sw = vm_area_swap_kb(h, COLD_A);
	}
	if (caps == UNIT_CAPS && sw >= CTL_MB * 1024 * 9 / 10)
		caps_reclaim_secs = i;
	printf("# %s: %ld of %d kB of another user's cold memory swapped in %u s\n", what, sw,
	       CTL_MB * 1024, i);
	vm_show_log(LOG, 6);
	if (expect_log) {
		char cmd[256];

		snprintf(cmd, sizeof(cmd), "grep -m1 '%s' " LOG " | sed 's/^/#   /'", expect_log);
		fflush(stdout);
		ok(system(cmd) == 0 && count_lines(LOG, expect_log) > 0,
		   "%s: one clear line says why (%s)", what, expect_log);
	}
	is_int(vm_daemon_stop(d), 0, "%s: pageoutd exits 0", what);
	vm_reap(h);
	vm_sleep_ms(300);
	vm_cg_remove("/vmd-cap");
	return sw;
}

static void caps(void)
{
	long sw;

	sw = with_caps(UNIT_CAPS, "the unit's capabilities", NULL);
	ok(sw >= CTL_MB * 1024 * 9 / 10, "with the unit's capabilities it reclaims");
	sw = with_caps(CAP(CAP_SYS_NICE) | CAP(CAP_SYS_PTRACE), "only SYS_NICE + SYS_PTRACE", NULL);
	ok(sw >= CTL_MB * 1024 * 9 / 10, "SYS_NICE and SYS_PTRACE are all the vaddr engine needs");
	sw = with_caps(UNIT_CAPS & ~CAP(CAP_SYS_NICE), "without CAP_SYS_NICE", "EPERM");
	ok(sw == 0, "without CAP_SYS_NICE nothing is reclaimed");
	/*
	 * The kernel's ptrace-read check (process_madvise, /proc/PID/smaps) of another user's
	 * process: the unit keeps CAP_SYS_PTRACE for it. Debian's 7.2 let a root pageoutd
	 * without it advise a uid-65534 process all the same; the figure is reported, and
	 * where the kernel refuses, pageoutd must say why.
	 */
	sw = with_caps(UNIT_CAPS & ~CAP(CAP_SYS_PTRACE), "without CAP_SYS_PTRACE", NULL);
	if (ptrace_probe < 0) {
		printf("# without CAP_SYS_PTRACE the kernel refused process_madvise on another "
		       "user's process (%s); pageoutd swapped %ld kB\n",
		       strerror(-ptrace_probe), sw);
		ok(sw == 0 && count_lines(LOG, "EACCES") > 0,
		   "without CAP_SYS_PTRACE: refused as the kernel refuses, with one clear line "
		   "(EACCES)");
	} else {
		printf("# without CAP_SYS_PTRACE the kernel let process_madvise advise another "
		       "user's process; pageoutd swapped %ld kB\n",
		       sw);
		ok(sw >= CTL_MB * 1024 * 9 / 10,
		   "without CAP_SYS_PTRACE: reclaimed, as the kernel allows it");
	}
}

/* --- SIGTERM while pageoutd is inside process_madvise --- */

static void sigterm_in_apply(void)
{
	struct churner c = { "/vmd-term", 0, false, 0, 128 };
	char nr[16] = "";
	pid_t h, d;
	bool caught = false;
	int rc;

	vm_cg_make("/vmd-term");
	h = child_fork(churn_setup, churn_run, &c);
	write_config("/vmd-term");
	d = vm_daemon_start(conf_dir, LOG, ~0ULL);
	/* the holder's swap growing and not yet complete: pageoutd is inside the call */
	for (unsigned i = 0; i < 60000 && !caught; i++) {
		long sw = vm_status_kb(h, "VmSwap");

		if (sw > 0 && sw < 128 * 1024 * 9 / 10) {
			kill(d, SIGTERM);
			caught = true;
			printf("# SIGTERM sent with %ld of %d kB swapped\n", sw, 128 * 1024);
		} else {
			usleep(500);
		}
	}
	ok(caught, "SIGTERM reached pageoutd while it was paging out 128 MiB");
	if (!caught)
		kill(d, SIGTERM);
	rc = vm_daemon_stop(d);
	printf("# after SIGTERM during apply: %ld of %d kB swapped\n", vm_area_swap_kb(h, COLD_A),
	       128 * 1024);
	is_int(rc, 0, "SIGTERM during an apply: the call completes, then exit 0");
	ok(count_lines(LOG, "received Terminated") > 0, "the exit is logged");
	read_file_at(AT_FDCWD, VM_ADMIN "/kdamonds/nr_kdamonds", nr, sizeof(nr));
	is_str(str_strip(nr), "0", "and nothing of pageoutd's is left in DAMON");
	vm_reap(h);
	vm_sleep_ms(300);
	vm_cg_remove("/vmd-term");
}

/* --- a kernel module that holds DAMON: left alone, or released with release_modules --- */

static bool module_on(const char *en)
{
	char v[8] = "";

	return read_file_at(AT_FDCWD, en, v, sizeof(v)) > 0 && v[0] == 'Y';
}

/* the output of pageoutctl status, into buf */
static void status_text(char *buf, size_t len)
{
	FILE *f = popen("./pageoutctl -s /run/pageoutd-vmd/sock status 2>&1", "r");
	size_t n = f ? fread(buf, 1, len - 1, f) : 0;

	buf[n] = '\0';
	if (f)
		pclose(f);
}

static void modules(void)
{
	/* damon_stat where the kernel has it (6.17+), else damon_reclaim (every kernel here) */
	const char *m = access("/sys/module/damon_stat/parameters/enabled", F_OK) == 0
				? "damon_stat"
				: "damon_reclaim";
	struct churner c = { "/vmd-mod", 0, false, 0, CTL_MB };
	char en[128], st[4096], needle[128];
	long sw = 0;
	pid_t h, d;

	snprintf(en, sizeof(en), "/sys/module/%s/parameters/enabled", m);
	ok(write_file_at(AT_FDCWD, en, "Y") == 0 && module_on(en), "%s turned on: it holds DAMON",
	   m);
	vm_cg_make("/vmd-mod");
	h = child_fork(churn_setup, churn_run, &c);

	write_config("/vmd-mod");
	d = vm_daemon_start(conf_dir, LOG, ~0ULL);
	vm_sleep_ms(4000);
	status_text(st, sizeof(st));
	printf("# status: %.*s\n", (int)strcspn(st, "\n"), st);
	ok(strstr(st, "error") && strstr(st, m),
	   "release_modules = no: pageoutctl status says error and names %s", m);
	snprintf(needle, sizeof(needle), "held exclusively by the kernel module %s", m);
	is_int((int)count_lines(LOG, needle), 1, "one log line names %s", m);
	ok(count_lines(LOG, "release_modules = yes") > 0, "and the setting that releases it");
	ok(module_on(en), "%s is left on", m);
	is_int(vm_daemon_stop(d), 0, "pageoutd exits 0");
	ok(module_on(en), "%s is still on after pageoutd exits", m);

	write_config_damon("/vmd-mod", "release_modules = yes\n");
	d = vm_daemon_start(conf_dir, LOG, ~0ULL);
	for (unsigned i = 0; i < 25 && sw < CTL_MB * 1024 * 9 / 10; i++) {
		vm_sleep_ms(1000);
		sw = vm_area_swap_kb(h, COLD_A);
	}
	printf("# release_modules = yes: %ld of %d kB cold swapped\n", sw, CTL_MB * 1024);
	vm_show_log(LOG, 4);
	ok(sw >= CTL_MB * 1024 * 9 / 10, "release_modules = yes: pageoutd reclaims");
	ok(!module_on(en), "%s is off while pageoutd runs", m);
	snprintf(needle, sizeof(needle), "turned off the kernel module %s", m);
	is_int((int)count_lines(LOG, needle), 1, "one log line says so");
	is_int(vm_daemon_stop(d), 0, "pageoutd exits 0");
	ok(module_on(en), "%s is on again after pageoutd exits", m);
	snprintf(needle, sizeof(needle), "turned the kernel module %s back on", m);
	is_int((int)count_lines(LOG, needle), 1, "one log line says so");

	write_file_at(AT_FDCWD, en, "N"); /* the other tests run without it */
	vm_reap(h);
	vm_sleep_ms(300);
	vm_cg_remove("/vmd-mod");
}

/* the checks of a whole run, on every kernel */
#define VM_DAEMON_CHECKS 36

int main(int argc, char **argv)
{
	vm_require_guest();
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2)
		tap_plan(VM_DAEMON_CHECKS);
	mkdir("/run/pageoutd-vmd", 0700);
	vm_release_damon_stat();
	if (argc < 2 || !strcmp(argv[1], "churn"))
		churn();
	if (argc < 2 || !strcmp(argv[1], "caps"))
		caps();
	if (argc < 2 || !strcmp(argv[1], "sigterm"))
		sigterm_in_apply();
	if (argc < 2 || !strcmp(argv[1], "modules"))
		modules();
	return tap_exit();
}
