// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The real pageoutd with a vaddr policy on the guest's real DAMON, cgroups and zram swap:
 * three processes in a matched cgroup and one in an unmatched one, each with cold and hot
 * anonymous memory. Within a bounded number of cycles at least 90% of the matched cold memory
 * is swapped out, at most 5% of the matched hot memory is, and the unmatched process loses
 * nothing. Then the two pageout semantics side by side, driven cycle by cycle with the engine
 * on the real DAMON: an area that was cold and old in one snapshot and is written right after
 * is skipped by pageoutd's two-snapshot rule, while a raw process_madvise(MADV_PAGEOUT) of that
 * one snapshot's decision is carried out by the kernel regardless and the pages fault back.
 * Then frozen_only per cgroup with a frozen and a running app (frozen()), and swap_reserve on
 * zram: anonymous pageout stops with free swap at the reserve (swap_reserve()), and a cgroup
 * with memory.swap.max = 0 gets no anonymous pageout (swap_limit()). Then three processes under
 * one policy whose middle one exits (middle_exit()): with obsolete_target (6.19+) its target is
 * dropped in place and the last process keeps the regions DAMON learned of it; before 6.19 the
 * last one takes its index and starts again from seed regions. Then the DAMON intervals derived
 * from min_age, as the kernel holds them and the log and stats say them (intervals()). Guest
 * only; a subtest name as argument runs that one alone.
 */
#include <config.h>

#include <dirent.h>
#include <sys/wait.h>

#include "pageoutd/cgroup.h"
#include "pageoutd/config.h"
#include "pageoutd/damon.h"
#include "pageoutd/log.h"
#include "pageoutd/vaddr.h"
#include "vmtest.h"
#include "warm.h"
#include "../../lib/tap.h"

#define B0 0x7e0000000000ULL
#define COLD(k) (B0 + (uint64_t)(k)*128 * MIB)
#define HOT(k) (COLD(k) + 64 * MIB) /* a hole between the two */
#define NAPP 3
#define SOCK "/run/pageoutd/pageoutd.sock"

static const char *conf_dir = "/tmp/pageoutd-vm";

static void write_config(const char *refsem, const char *interval)
{
	char p[256], buf[2048];

	mkdir(conf_dir, 0755);
	snprintf(p, sizeof(p), "%s/conf.d", conf_dir);
	mkdir(p, 0755);
	snprintf(buf, sizeof(buf),
		 "[daemon]\ninterval = %s\nstate_dir = /run/pageoutd\nsocket = "
		 "/run/pageoutd/pageoutd.sock\nlog_level = info\nreference_semantics = %s\n"
		 "[damon]\nsample_interval = 5ms\naggr_interval = 100ms\nupdate_interval = 1s\n"
		 "min_regions = 10\nmax_regions = 1000\n",
		 interval, refsem);
	snprintf(p, sizeof(p), "%s/pageoutd.conf", conf_dir);
	vm_put(p, buf);
	/* the shipped example policy (conf/demo/app.conf), copied into the guest */
	snprintf(buf, sizeof(buf), "cp app.conf %s/conf.d/app.conf", conf_dir);
	if (system(buf) != 0)
		printf("# app.conf missing from the guest payload\n");
}

static long sum_swap(const pid_t *p, unsigned n, uint64_t (*addr)(unsigned))
{
	long s = 0;

	for (unsigned k = 0; k < n; k++) {
		long v = vm_area_swap_kb(p[k], addr(k));

		s += v > 0 ? v : 0;
	}
	return s;
}

static uint64_t cold_addr(unsigned k)
{
	return COLD(k);
}

static uint64_t hot_addr(unsigned k)
{
	return HOT(k);
}

static void reclaim(void)
{
	struct vm_area lay[NAPP][2];
	const struct vm_area other[1] = { { COLD(0), 32 * MIB, false } };
	pid_t app[NAPP], po, d;
	long cold = 0, hot = 0, oth = 0, hot_flt0 = 0, hot_flt1 = 0;
	const long cold_kb = NAPP * 32 * 1024, hot_kb = NAPP * 8 * 1024;
	unsigned secs = 0;
	uint64_t cg0, cg1;
	int rc;
	char nr[16] = "";

	vm_cg_make("/vmt-app");
	vm_cg_make("/vmt-other");
	for (unsigned k = 0; k < NAPP; k++) {
		lay[k][0] = (struct vm_area){ COLD(k), 32 * MIB, false };
		lay[k][1] = (struct vm_area){ HOT(k), 8 * MIB, true };
		app[k] = vm_spawn(lay[k], 2, "/vmt-app");
	}
	po = vm_spawn(other, 1, "/vmt-other");
	ok(app[0] > 0 && app[1] > 0 && app[2] > 0 && po > 0,
	   "3 processes with 32 MiB cold + 8 MiB hot in /vmt-app, one with 32 MiB cold in "
	   "/vmt-other");
	write_config("auto", "1s");
	for (unsigned k = 0; k < NAPP; k++)
		hot_flt0 += vm_majflt(app[k]);
	cg0 = vm_cg_u64("/vmt-app", "memory.current");
	d = vm_daemon_start(conf_dir, "/tmp/pageoutd.log", ~0ULL);
	/* min_age 3 s, a second snapshot, 1 s cycles: bounded by 180 cycles on a slow host */
	for (secs = 0; secs < 180; secs++) {
		vm_sleep_ms(1000);
		cold = sum_swap(app, NAPP, cold_addr);
		if (cold >= cold_kb * 95 / 100 && secs >= 8)
			break;
	}
	vm_sleep_ms(2000); /* a couple more cycles: a hot range taken late would show now */
	cold = sum_swap(app, NAPP, cold_addr);
	hot = sum_swap(app, NAPP, hot_addr);
	oth = vm_area_swap_kb(po, COLD(0));
	for (unsigned k = 0; k < NAPP; k++)
		hot_flt1 += vm_majflt(app[k]);
	cg1 = vm_cg_u64("/vmt-app", "memory.current");
	printf("# /vmt-app memory.current: %" PRIu64 " MiB before pageoutd, %" PRIu64
	       " MiB after\n",
	       (uint64_t)(cg0 / MIB), (uint64_t)(cg1 / MIB));
	printf("# vaddr pageout by pageoutd after %u s (1 s cycles): cold %ld of %ld kB (%.1f%%), "
	       "hot %ld of %ld kB (%.2f%%, %ld major faults), unmatched %ld kB\n",
	       secs + 2, cold, cold_kb, 100.0 * (double)cold / (double)cold_kb, hot, hot_kb,
	       100.0 * (double)hot / (double)hot_kb, hot_flt1 - hot_flt0, oth);
	ok(cold >= cold_kb * 90 / 100, "at least 90%% of the matched cold memory is swapped out");
	ok(hot <= hot_kb * 5 / 100 && hot_flt1 - hot_flt0 <= (long)(hot_kb / 4) * 5 / 100,
	   "at most 5%% of the matched hot memory was taken");
	is_int(oth, 0, "the unmatched process lost nothing");
	{
		/* online: one process exits, a new one joins; monitoring goes on for the others */
		const struct vm_area late[1] = { { COLD(NAPP), 32 * MIB, false } };
		pid_t pl;
		long ls = 0;
		unsigned waited;
		char cmd[160];

		vm_reap(app[0]);
		app[0] = -1;
		pl = vm_spawn(late, 1, "/vmt-app");
		for (waited = 0; waited < 120; waited++) {
			vm_sleep_ms(1000);
			ls = vm_area_swap_kb(pl, COLD(NAPP));
			if (ls >= 32 * 1024 * 9 / 10)
				break;
		}
		printf("# a process that joined /vmt-app later: %ld of 32768 kB cold swapped after "
		       "%u s\n",
		       ls, waited + 1);
		ok(ls >= 32 * 1024 * 9 / 10, "a process that joins later is reclaimed too");
		snprintf(cmd, sizeof(cmd), "test \"$(grep -c 'kdamond 0 started' %s)\" = 1",
			 "/tmp/pageoutd.log");
		ok(system(cmd) == 0, "targets were added and removed online: the kdamond started "
				     "once");
		vm_reap(pl);
	}
	rc = vm_daemon_stop(d);
	is_int(rc, 0, "pageoutd exits 0 on SIGTERM");
	read_file_at(AT_FDCWD, VM_ADMIN "/kdamonds/nr_kdamonds", nr, sizeof(nr));
	is_str(str_strip(nr), "0", "and gives its kdamonds back");
	vm_show_log("/tmp/pageoutd.log", 6);
	for (unsigned k = 0; k < NAPP; k++)
		vm_reap(app[k]);
	vm_reap(po);
}

/* seconds (up to max) until at least 90% of pid's area at addr (kb) is swapped; max+1 if never */
static unsigned wait_swapped(pid_t pid, uint64_t addr, long kb, unsigned max, long *ret)
{
	unsigned t;

	for (t = 0; t <= max; t++) {
		*ret = vm_area_swap_kb(pid, addr);
		if (*ret >= kb * 9 / 10)
			return t;
		vm_sleep_ms(1000);
	}
	return t;
}

/* The sample of metric pageoutd_<name> for cgroup cg of policy apps, -1 when there is none. */
static double cg_metric(const char *name, const char *cg)
{
	char key[256];

	snprintf(key, sizeof(key), "pageoutd_%s{policy=\"apps\",cgroup=\"%s\"} ", name, cg);
	return vm_metric(SOCK, key);
}

/*
 * frozen_only with two apps under one policy (a glob over /vmt-apps/a and /vmt-apps/b), as a
 * phone has one app in the foreground and the cached ones frozen: each has 32 MiB of cold and 8 MiB of hot anonymous
 * memory. The frozen one's cold memory goes, the running one keeps everything; then the first
 * is thawed (and reads its swapped cold area back, so that it is cold and resident again) and
 * the second frozen: the thawed one is advised nothing more, the newly frozen one's cold memory
 * goes within a few cycles of its freeze (the daemon watches cgroup.events). Per cgroup, the
 * frozen app's reclaimed bytes are counted to it and none to the running one.
 */
static void frozen(void)
{
	const long kb = 32 * 1024;
	struct vm_area lay[2][2];
	pid_t app[2], d;
	long a = 0, b = 0, bh = 0, a_back, a_after;
	unsigned ta, tb;
	char buf[512];
	int rc;

	vm_cg_make("/vmt-apps");
	vm_cg_put("/vmt-apps", "cgroup.subtree_control", "+memory");
	vm_cg_make("/vmt-apps/a");
	vm_cg_make("/vmt-apps/b");
	for (unsigned k = 0; k < 2; k++) {
		lay[k][0] = (struct vm_area){ COLD(k), 32 * MIB, false };
		lay[k][1] = (struct vm_area){ HOT(k), 8 * MIB, true };
	}
	app[0] = vm_spawn(lay[0], 2, "/vmt-apps/a");
	app[1] = vm_spawn(lay[1], 2, "/vmt-apps/b");
	rc = vm_cg_put("/vmt-apps/a", "cgroup.freeze", "1");
	ok(app[0] > 0 && app[1] > 0 && rc == 0,
	   "two apps with 32 MiB cold + 8 MiB hot in /vmt-apps/a (frozen) and /vmt-apps/b");
	/* 5 s cycles: a freeze reclaimed well within one shows the cgroup.events watch at work */
	write_config("auto", "5s");
	snprintf(buf, sizeof(buf), "rm -f %s/conf.d/*.conf", conf_dir);
	if (system(buf) != 0)
		printf("# cannot clear %s/conf.d\n", conf_dir);
	snprintf(buf, sizeof(buf), "%s/conf.d/apps.conf", conf_dir);
	vm_put(buf, "[policy]\ncgroup = /vmt-apps/*\nengine = vaddr\nmin_age = 3s\n"
		    "memory = anon\nquota = none\npressure_limit = 100%\nswap_reserve = 0%\n"
		    "frozen_only = yes\n");
	d = vm_daemon_start(conf_dir, "/tmp/pageoutd-frozen.log", ~0ULL);
	ta = wait_swapped(app[0], COLD(0), kb, 90, &a);
	vm_sleep_ms(6000); /* one more cycle for the running app */
	b = vm_area_swap_kb(app[1], COLD(1));
	bh = vm_area_swap_kb(app[1], HOT(1));
	printf("# frozen app: %ld of %ld kB cold swapped after %u s (5 s cycles, min_age 3 s); "
	       "running app: %ld kB cold, %ld kB hot swapped\n",
	       a, kb, ta + 1, b, bh);
	ok(a >= kb * 9 / 10, "at least 90%% of the frozen app's cold memory is swapped out");
	ok(b == 0 && bh == 0, "the running app under the same policy lost nothing");
	{
		double ra = cg_metric("cgroup_reclaimed_bytes_total", "/vmt-apps/a"),
		       rb = cg_metric("cgroup_reclaimed_bytes_total", "/vmt-apps/b");

		printf("# per cgroup reclaimed: frozen app %.0f bytes, running app %.0f\n", ra, rb);
		ok(ra > 0 && rb == 0 && cg_metric("cgroup_frozen", "/vmt-apps/a") == 1 &&
			   cg_metric("cgroup_frozen_seconds_total", "/vmt-apps/a") > 0,
		   "per cgroup: the frozen app's reclaimed bytes are > 0, the running app's 0");
	}
	/* the first app thaws and reads its cold area back; the second is frozen */
	vm_cg_put("/vmt-apps/a", "cgroup.freeze", "0");
	vm_read_remote(app[0], COLD(0), 32 * MIB);
	a_back = vm_area_swap_kb(app[0], COLD(0));
	vm_cg_put("/vmt-apps/b", "cgroup.freeze", "1");
	tb = wait_swapped(app[1], COLD(1), kb, 30, &b);
	printf("# newly frozen app: %ld of %ld kB cold swapped %u s after its freeze\n", b, kb, tb);
	ok(b >= kb * 9 / 10 && tb <= 3,
	   "the newly frozen app's cold memory goes at once, before the next 5 s cycle was due");
	/* min_age 3 s and a confirming snapshot 5 s later: the area read back would be gone */
	vm_sleep_ms(14000);
	a_after = vm_area_swap_kb(app[0], COLD(0));
	printf("# thawed app: its cold area %ld kB swapped after reading it back, %ld kB 14 s "
	       "later\n",
	       a_back, a_after);
	ok(a_back <= kb / 10 && a_after <= a_back,
	   "the thawed app is advised nothing after the thaw: what it read back stays");
	printf("# thawed app: %.0f thaws, %.0f major faults in the 2 s after\n",
	       cg_metric("cgroup_thaws_total", "/vmt-apps/a"),
	       cg_metric("cgroup_thaw_major_faults_total", "/vmt-apps/a"));
	/* the _last sample appears once the daemon's timer closed the 2 s window */
	ok(cg_metric("cgroup_thaws_total", "/vmt-apps/a") == 1 &&
		   cg_metric("cgroup_frozen", "/vmt-apps/a") == 0 &&
		   cg_metric("cgroup_thaw_major_faults_last", "/vmt-apps/a") >= 0,
	   "per cgroup: its thaw is seen, it is no longer frozen, its fault window closed");
	rc = vm_daemon_stop(d);
	is_int(rc, 0, "pageoutd exits 0 on SIGTERM");
	fflush(stdout);
	if (system("grep -E 'froze or thawed|advised [1-9]' /tmp/pageoutd-frozen.log | tail -n 6 | "
		   "sed 's/^/#   /'") != 0)
		vm_show_log("/tmp/pageoutd-frozen.log", 6);
	vm_cg_put("/vmt-apps/b", "cgroup.freeze", "0");
	vm_reap(app[0]);
	vm_reap(app[1]);
	vm_cg_remove("/vmt-apps/a");
	vm_cg_remove("/vmt-apps/b");
	vm_cg_remove("/vmt-apps");
}

/* a /proc/meminfo field in kB, -1 when missing */
static long meminfo_kb(const char *field)
{
	char line[256];
	size_t n = strlen(field);
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n) && line[n] == ':')
			v = atol(line + n + 1);
	if (f)
		fclose(f);
	return v;
}

/*
 * swap_reserve on the guest's zram: a process with 48 MiB of cold anonymous memory under a
 * policy whose swap_reserve leaves 16 MiB of free swap above it. pageoutd pages out about those
 * 16 MiB, never more (within one cycle too: the first cycle sees all 48 MiB cold at once), says
 * once that anonymous pageout stopped, and free swap stays above the reserve.
 */
static void swap_reserve(void)
{
	const long room_kb = 16 * 1024, cold_kb = 48 * 1024;
	struct vm_area lay[2] = { { COLD(0), 48 * MIB, false }, { HOT(0), 4 * MIB, true } };
	long total, free0, reserve_kb, swapped = 0, low;
	unsigned long long ppm;
	char buf[512];
	pid_t app, d;

	vm_cg_make("/vmt-zram");
	app = vm_spawn(lay, 2, "/vmt-zram");
	total = meminfo_kb("SwapTotal");
	free0 = meminfo_kb("SwapFree");
	if (total <= 0 || free0 <= room_kb) {
		ok(0, "swap_reserve: the guest has swap (SwapTotal %ld kB, SwapFree %ld kB)", total,
		   free0);
		vm_reap(app);
		vm_cg_remove("/vmt-zram");
		return;
	}
	/* the reserve as a rate of swap, rounded down to the grammar's 0.0001%: room >= 16 MiB */
	ppm = (unsigned long long)(free0 - room_kb) * 1000000ULL / (unsigned long long)total;
	reserve_kb = (long)((unsigned long long)total * ppm / 1000000ULL);
	ok(app > 0 && total > 0 && free0 > room_kb,
	   "a process with 48 MiB cold in /vmt-zram; swap %ld kB, %ld kB free", total, free0);
	write_config("auto", "2s");
	snprintf(buf, sizeof(buf), "rm -f %s/conf.d/*.conf", conf_dir);
	if (system(buf) != 0)
		printf("# cannot clear %s/conf.d\n", conf_dir);
	snprintf(buf, sizeof(buf), "%s/conf.d/zram.conf", conf_dir);
	{
		char pol[512];

		snprintf(pol, sizeof(pol),
			 "[policy]\ncgroup = /vmt-zram\nengine = vaddr\nmin_age = 3s\n"
			 "memory = anon\nquota = none\npressure_limit = 100%%\n"
			 "swap_reserve = %llu.%04llu%%\n",
			 ppm / 10000, ppm % 10000);
		vm_put(buf, pol);
	}
	d = vm_daemon_start(conf_dir, "/tmp/pageoutd-zram.log", ~0ULL);
	low = free0;
	/*
	 * it would take the whole 48 MiB within about 10 s: watch for 30 s, or for 12 s (six
	 * cycles, each of which would take the rest of the area if the reserve were ignored)
	 * after the log says pageout stopped
	 */
	for (unsigned t = 0, stop = 0; t < 30 && (!stop || t < stop + 12); t++) {
		long f = meminfo_kb("SwapFree");

		low = f >= 0 && f < low ? f : low;
		vm_sleep_ms(1000);
		if (!stop &&
		    system("grep -q 'anonymous pageout stopped' /tmp/pageoutd-zram.log") == 0)
			stop = t + 1;
	}
	swapped = vm_area_swap_kb(app, COLD(0));
	printf("# swap_reserve %llu.%04llu%% (%ld kB of %ld kB): %ld of %ld kB cold swapped, free "
	       "swap %ld kB at start, %ld kB at its lowest\n",
	       ppm / 10000, ppm % 10000, reserve_kb, total, swapped, cold_kb, free0, low);
	ok(swapped >= room_kb * 3 / 4 && swapped <= room_kb + 1024,
	   "pageout stops at the reserve: about 16 MiB of the 48 MiB cold area swapped");
	ok(low >= reserve_kb, "free swap never fell below swap_reserve");
	vm_daemon_stop(d);
	fflush(stdout);
	ok(system("grep -q 'anonymous pageout stopped' /tmp/pageoutd-zram.log") == 0,
	   "the log says anonymous pageout stopped at swap_reserve");
	if (system("grep -c 'anonymous pageout stopped' /tmp/pageoutd-zram.log | "
		   "grep -qx 1") != 0) {
		vm_show_log("/tmp/pageoutd-zram.log", 10);
		ok(0, "... once, not every cycle");
	} else {
		ok(1, "... once, not every cycle");
	}
	vm_reap(app);
	vm_cg_remove("/vmt-zram");
}

/*
 * A cgroup that may not swap (memory.swap.max = 0, as Kubernetes' LimitedSwap gives pods
 * other than Burstable ones) beside one that may, under one policy: each has a process with
 * 32 MiB of cold anonymous memory. The one that may swap loses at least 90% of it; the other
 * keeps all of it, and its cold bytes are counted as skipped for swap_limit.
 */
static void swap_limit(void)
{
	struct vm_area lay[2] = { { COLD(0), 32 * MIB, false }, { HOT(0), 4 * MIB, true } };
	long swapped_a = 0, swapped_b = 0;
	double skipped;
	char buf[512];
	pid_t a, b, d;
	unsigned t;

	vm_cg_make("/vmt-sl");
	vm_cg_put("/vmt-sl", "cgroup.subtree_control", "+memory");
	vm_cg_make("/vmt-sl/limited");
	vm_cg_make("/vmt-sl/free");
	ok(vm_cg_put("/vmt-sl/limited", "memory.swap.max", "0") == 0,
	   "swap_limit: memory.swap.max = 0 written for /vmt-sl/limited");
	a = vm_spawn(lay, 2, "/vmt-sl/limited");
	b = vm_spawn(lay, 2, "/vmt-sl/free");
	write_config("auto", "2s");
	snprintf(buf, sizeof(buf), "rm -f %s/conf.d/*.conf", conf_dir);
	if (system(buf) != 0)
		printf("# cannot clear %s/conf.d\n", conf_dir);
	snprintf(buf, sizeof(buf), "%s/conf.d/sl.conf", conf_dir);
	vm_put(buf, "[policy]\ncgroup = /vmt-sl/*\nengine = vaddr\nmin_age = 3s\n"
		    "memory = anon\nquota = none\npressure_limit = 100%\nswap_reserve = 0%\n");
	d = vm_daemon_start(conf_dir, "/tmp/pageoutd-sl.log", ~0ULL);
	t = wait_swapped(b, COLD(0), 32 * 1024, 90, &swapped_b);
	vm_sleep_ms(4000); /* two more cycles for the limited one */
	swapped_a = vm_area_swap_kb(a, COLD(0));
	skipped = vm_metric(SOCK,
			    "pageoutd_skipped_bytes_total{policy=\"sl\",reason=\"swap_limit\"} ");
	printf("# swap_limit: free cgroup %ld kB of 32768 swapped in %u s; limited cgroup %ld kB; "
	       "skipped swap_limit %.0f bytes\n",
	       swapped_b, t, swapped_a, skipped);
	ok(swapped_b >= 32 * 1024 * 9 / 10,
	   "swap_limit: the cgroup that may swap loses at least 90%% of its cold memory");
	ok(swapped_a == 0, "swap_limit: the cgroup with memory.swap.max = 0 keeps all of it");
	ok(skipped >= 16.0 * MIB, "swap_limit: its cold bytes are counted as skipped: swap_limit");
	if (swapped_a != 0 || skipped < 16.0 * MIB)
		vm_show_log("/tmp/pageoutd-sl.log", 10);
	vm_daemon_stop(d);
	vm_reap(a);
	vm_reap(b);
	vm_cg_remove("/vmt-sl/limited");
	vm_cg_remove("/vmt-sl/free");
	vm_cg_remove("/vmt-sl");
}

#define FLIP (B0 + 2048 * MIB)

/* The pid of target t of kdamond 0 in the tree, 0 when it has none. */
static pid_t tree_pid(unsigned t)
{
	char p[160], buf[32] = "";

	snprintf(p, sizeof(p), VM_ADMIN "/kdamonds/0/contexts/0/targets/%u/pid_target", t);
	return read_file_at(AT_FDCWD, p, buf, sizeof(buf)) > 0 ? (pid_t)atoi(buf) : 0;
}

/*
 * What the last snapshot (the engine's update_schemes_tried_regions) left of scheme s, which
 * is target s's: how many regions, and the largest age, in aggregation intervals, of those in
 * [a, a + len).
 */
static unsigned tried_regions(unsigned s, uint64_t a, uint64_t len, unsigned *ret_age)
{
	char dir[160], p[512], buf[32];
	unsigned n = 0;
	struct dirent *e;
	DIR *dp;

	*ret_age = 0;
	snprintf(dir, sizeof(dir), VM_ADMIN "/kdamonds/0/contexts/0/schemes/%u/tried_regions", s);
	dp = opendir(dir);
	while (dp && (e = readdir(dp))) {
		uint64_t start, end, age;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		n++;
		snprintf(p, sizeof(p), "%s/%s/start", dir, e->d_name);
		start = read_file_at(AT_FDCWD, p, buf, sizeof(buf)) > 0 ? strtoull(buf, NULL, 0)
									: 0;
		snprintf(p, sizeof(p), "%s/%s/end", dir, e->d_name);
		end = read_file_at(AT_FDCWD, p, buf, sizeof(buf)) > 0 ? strtoull(buf, NULL, 0) : 0;
		snprintf(p, sizeof(p), "%s/%s/age", dir, e->d_name);
		age = read_file_at(AT_FDCWD, p, buf, sizeof(buf)) > 0 ? strtoull(buf, NULL, 0) : 0;
		if (start < a + len && end > a && age > *ret_age)
			*ret_age = (unsigned)age;
	}
	if (dp)
		closedir(dp);
	return n;
}

/*
 * tried_regions of scheme s after v's cycle, cycling again (at most 5 times, 0.5 s apart) while
 * the scheme has none. An update of the tried regions can leave a scheme with none on a loaded
 * TCG guest (the engine then sees nothing cold that cycle, as for any empty snapshot); what the
 * callers check is the ages of the regions kept, not one update's luck.
 */
static unsigned tried_regions_after(struct vaddr *v, unsigned s, uint64_t a, uint64_t len,
				    unsigned *ret_age)
{
	unsigned n = tried_regions(s, a, len, ret_age);

	for (int i = 0; i < 5 && n == 0; i++) {
		printf("# scheme %u: no tried regions after the cycle; cycling again\n", s);
		vm_sleep_ms(500);
		vaddr_cycle(v);
		n = tried_regions(s, a, len, ret_age);
	}
	return n;
}

static unsigned dropped_logged, moved_logged;

static void count_drops(int prio, const char *msg)
{
	(void)prio;
	dropped_logged += strstr(msg, "dropped in place") != NULL;
	moved_logged += strstr(msg, "into its index") != NULL;
}

/*
 * Three processes under one vaddr policy, the engine cycling on the real DAMON until it knows
 * each one's never-touched 32 MiB area as old; then the middle one is killed. With
 * obsolete_target (6.19+) its target is dropped in place: the commit is online, the last
 * process's target follows it to index 1 and its cold area's regions keep their age, and the
 * drop is logged. Before 6.19 the last process takes index 1 too, but starts from seed regions
 * (ages back near 0): the move is logged and counted.
 */
static void middle_exit(void)
{
	struct cfg_errors errs = { 0 };
	struct cgrp_root cg;
	struct cfg *cfg = NULL;
	struct damon d;
	struct vaddr *v = NULL;
	struct vm_area lay[NAPP][2];
	const struct vaddr_stats *s;
	pid_t app[NAPP], t0, t1, t2;
	unsigned n0 = 0, n2, n0b = 0, n2b, age0 = 0, age2, age0b = 0, age2b, last = NAPP;
	uint64_t restarts, commits;
	bool obs;
	char buf[512];
	int i, r;

	/* 7.x boots with damon_stat on, which holds DAMON; alone, this subtest is the operator */
	if (read_file_at(AT_FDCWD, "/sys/module/damon_stat/parameters/enabled", buf, sizeof(buf)) >
		    0 &&
	    buf[0] == 'Y')
		write_file_at(AT_FDCWD, "/sys/module/damon_stat/parameters/enabled", "N");
	vm_cg_make("/vmt-three");
	for (unsigned k = 0; k < NAPP; k++) {
		lay[k][0] = (struct vm_area){ COLD(k), 32 * MIB, false };
		lay[k][1] = (struct vm_area){ HOT(k), 8 * MIB, true };
		app[k] = vm_spawn(lay[k], 2, "/vmt-three");
	}
	write_config("auto", "1s");
	snprintf(buf, sizeof(buf), "rm -f %s/conf.d/*.conf", conf_dir);
	if (system(buf) != 0)
		printf("# cannot clear %s/conf.d\n", conf_dir);
	/* nothing is advised: the areas stay as DAMON learned them */
	snprintf(buf, sizeof(buf), "%s/conf.d/three.conf", conf_dir);
	vm_put(buf, "[policy]\ncgroup = /vmt-three\nengine = vaddr\nmin_age = 1h\nmemory = anon\n"
		    "quota = none\npressure_limit = 100%\nswap_reserve = 0%\n");
	snprintf(buf, sizeof(buf), "%s/pageoutd.conf", conf_dir);
	r = cfg_load(buf, "/tmp/pageoutd-vm/conf.d", true, &cfg, &errs);
	cfg_errors_fini(&errs);
	r = r ?: cgrp_init(&cg);
	r = r ?: damon_open(&d, VM_ADMIN, "/run/pageoutd", NULL) ?: damon_acquire(&d);
	r = r ?: vaddr_new(&v, cfg, &d, &cg);
	is_int(r, 0, "the engine on the real DAMON, three processes with 32 MiB cold + 8 MiB hot");
	if (r < 0 || app[0] < 0 || app[1] < 0 || app[2] < 0)
		goto out;
	obs = d.feat.obsolete_target;
	s = vaddr_stats(v);
	/* 15 s at 0.5 s cycles: under TCG the kdamond's interval is far longer than 100 ms */
	for (i = 0; i < 30; i++) {
		vaddr_cycle(v);
		vm_sleep_ms(500);
	}
	vaddr_cycle(v);
	t0 = tree_pid(0);
	t1 = tree_pid(1);
	t2 = tree_pid(2);
	for (unsigned k = 0; k < NAPP; k++)
		last = app[k] == t2 ? k : last;
	ok(s->targets == NAPP && t0 > 0 && t1 > 0 && last < NAPP && t0 != t1 && t1 != t2,
	   "three targets in the kdamond: pids %d %d %d", (int)t0, (int)t1, (int)t2);
	if (last == NAPP)
		goto out;
	for (unsigned k = 0; k < NAPP; k++)
		if (app[k] == t0)
			n0 = tried_regions_after(v, 0, COLD(k), 32 * MIB, &age0);
	n2 = tried_regions_after(v, 2, COLD(last), 32 * MIB, &age2);
	printf("# before: target 0 %u regions (cold area age %u), target 2 %u regions (cold area "
	       "age %u); aggregation interval %" PRIu64 " us as measured\n",
	       n0, age0, n2, age2, s->aggr_us);
	ok(age0 >= 8 && age2 >= 8, "DAMON learned the cold areas (ages %u, %u intervals)", age0,
	   age2);
	restarts = s->restarts;
	commits = s->commits;
	log_set_level(LOG_INFO);
	log_set_capture(count_drops);
	for (unsigned k = 0; k < NAPP; k++)
		if (app[k] == t1) {
			vm_reap(app[k]);
			app[k] = -1;
		}
	vaddr_cycle(v);
	log_set_capture(NULL);
	log_set_level(LOG_WARNING);
	for (unsigned k = 0; k < NAPP; k++)
		if (app[k] == t0)
			n0b = tried_regions_after(v, 0, COLD(k), 32 * MIB, &age0b);
	n2b = tried_regions_after(v, 1, COLD(last), 32 * MIB, &age2b);
	printf("# after the middle process exited (%s): target 0 %u regions (cold area age %u), "
	       "the last process's target, now 1: %u regions (cold area age %u); %" PRIu64
	       " commits, %" PRIu64 " restarts\n",
	       obs ? "obsolete_target" : "no obsolete_target", n0b, age0b, n2b, age2b,
	       s->commits - commits, s->restarts - restarts);
	ok(s->targets == 2 && tree_pid(0) == t0 && tree_pid(1) == t2 && tree_pid(2) == 0 &&
		   s->restarts == restarts && s->commits > commits,
	   "two targets, committed online: the first at index 0, the last process's at 1");
	ok(age0b >= age0, "the first target keeps its regions (age %u -> %u)", age0, age0b);
	if (obs) {
		ok(age2b >= age2,
		   "obsolete_target: the last process keeps its regions' ages "
		   "(%u -> %u)",
		   age2, age2b);
		ok(s->targets_dropped_in_place == 1 && s->targets_moved == 0 && dropped_logged == 1,
		   "obsolete_target: one target dropped in place, counted and logged");
	} else {
		ok(age2b < age2 / 2,
		   "before 6.19: the last process starts again from seed regions "
		   "(age %u -> %u)",
		   age2, age2b);
		ok(s->targets_moved == 1 && s->targets_dropped_in_place == 0 && moved_logged == 1,
		   "before 6.19: one target moved into the hole, counted and logged");
	}
out:
	vaddr_free(v);
	if (r == 0 || v) {
		damon_release(&d);
		damon_close(&d);
	}
	cfg_free(cfg);
	for (unsigned k = 0; k < NAPP; k++)
		vm_reap(app[k]);
	vm_cg_remove("/vmt-three");
}

static void turned_hot(void)
{
	struct cfg_errors errs = { 0 };
	struct cgrp_root cg;
	struct cfg *cfg = NULL;
	struct damon d;
	struct vaddr *v = NULL;
	const struct vaddr_policy_stats *ps;
	uint64_t unconf0 = 0, hot0, adv0;
	long f0, f1, f2, sw, adv = 0;
	pid_t w;
	int i, r;
	char buf[512];

	vm_cg_make("/vmt-flip");
	/* a cold 16 MiB area that the child starts writing continuously on SIGUSR1 */
	w = vm_spawn_ex(&(const struct vm_area){ FLIP, 16 * MIB, true }, 1, "/vmt-flip", true);
	write_config("ignore", "1s");
	snprintf(buf, sizeof(buf), "%s/conf.d/app.conf", conf_dir);
	vm_put(buf, "[policy]\ncgroup = /vmt-flip\nengine = vaddr\nmin_age = 2s\nmemory = anon\n"
		    "quota = none\npressure_limit = 100%\nswap_reserve = 0%\n");
	snprintf(buf, sizeof(buf), "%s/pageoutd.conf", conf_dir);
	r = cfg_load(buf, "/tmp/pageoutd-vm/conf.d", true, &cfg, &errs);
	cfg_errors_fini(&errs);
	r = r ?: cgrp_init(&cg);
	r = r ?: damon_open(&d, VM_ADMIN, "/run/pageoutd", NULL) ?: damon_acquire(&d);
	r = r ?: vaddr_new(&v, cfg, &d, &cg);
	is_int(r, 0, "the engine on the real DAMON, one process with a cold 16 MiB area");
	if (r < 0 || w < 0)
		return;
	/* cycles until the area is old enough: a candidate, not yet confirmed by a second one */
	for (i = 0; i < 30; i++) {
		vaddr_cycle(v);
		ps = vaddr_policy_stats(v, "app");
		if (ps->skipped_total[SKIP_UNCONFIRMED] - unconf0 >= 16 * MIB)
			break;
		unconf0 = ps->skipped_total[SKIP_UNCONFIRMED];
		vm_sleep_ms(500);
	}
	ok(i < 30, "after %d cycles one snapshot says the area is cold and old enough", i + 1);
	/* the process writes it again, right after that decision */
	hot0 = ps->skipped_total[SKIP_TURNED_HOT];
	adv0 = ps->advised_bytes_total;
	kill(w, SIGUSR1);
	vm_sleep_ms(1000);
	f0 = vm_majflt(w);
	vaddr_cycle(v);
	ps = vaddr_policy_stats(v, "app");
	vm_sleep_ms(500);
	sw = vm_area_swap_kb(w, FLIP);
	f1 = vm_majflt(w);
	printf("# two-snapshot rule: turned hot %" PRIu64 " kB, advised %" PRIu64
	       " kB, area swap %ld kB, %ld major faults\n",
	       (ps->skipped_total[SKIP_TURNED_HOT] - hot0) / 1024,
	       (ps->advised_bytes_total - adv0) / 1024, sw, f1 - f0);
	ok(ps->skipped_total[SKIP_TURNED_HOT] - hot0 >= 15 * MIB && sw == 0 &&
		   f1 - f0 < (long)(16 * MIB / 4096) / 20,
	   "pageoutd's second snapshot sees it hot and leaves it: nothing paged out");
	/* what a single-snapshot decision does on 6.9+: the kernel takes it anyway */
	f2 = vm_pageout_faults(w, FLIP, 16 * MIB, 5000, &adv);
	is_int(adv, 16 * MIB, "a raw MADV_PAGEOUT of the first snapshot's decision is accepted");
	printf("# raw MADV_PAGEOUT after the area turned hot: %ld major faults (%.0f%% of its "
	       "pages)\n",
	       f2, 100.0 * (double)f2 / (16 * MIB / 4096));
	if (vm_swap_sync())
		ok(f2 >= (long)(16 * MIB / 4096) / 2,
		   "and the kernel paged the hot area out: it faulted back");
	else
		skip("and the kernel paged the hot area out: it faulted back", VM_SWAP_ASYNC);
	vaddr_free(v);
	damon_release(&d);
	damon_close(&d);
	cfg_free(cfg);
	vm_reap(w);
	vm_cg_remove("/vmt-flip");
}

/*
 * The memory of mistakes (learn): per process a hot set, warm sets read in one burst every
 * 3, 6 and 20 s, and a cold set never touched, min_age = 3 s (warm.h). Each warm set's
 * refaults are counted by the process itself.
 */
#define WARM_PROCS 2
#define WARM_SECS 100

static const struct warm_spec warm_spec = {
	.cold_mb = 32,
	.hot_mb = 8,
	.set_mb = 16,
	.nsets = 3,
	.period_s = { 3, 6, 20 },
	.cgroup = "/vmt-warm",
};

static void warm(void)
{
	const struct warm_spec *ws = &warm_spec;
	struct warm_counts *f = warm_counts_new(WARM_PROCS);
	pid_t app[WARM_PROCS], d;
	char p[256], buf[1024];
	long cold = 0;
	const long cold_kb = WARM_PROCS * ws->cold_mb * 1024;
	unsigned refaulted = 0, quiet = 0;
	double learned, held;
	const char *learned_js = NULL;
	char *js;

	if (!f) {
		ok(0, "warm: shared counters");
		return;
	}
	vm_cg_make(ws->cgroup);
	write_config("auto", "1s");
	snprintf(p, sizeof(p), "%s/conf.d/app.conf", conf_dir);
	unlink(p);
	snprintf(buf, sizeof(buf),
		 "[policy]\ncgroup = %s\nengine = vaddr\nmin_age = 3s\n"
		 "max_access_rate = 0%%\nmemory = anon\nquota = 256M/1s\nswap_reserve = 5%%\n"
		 "max_refault_rate = 0.2%%\nlearn = yes\n",
		 ws->cgroup);
	snprintf(p, sizeof(p), "%s/conf.d/warm.conf", conf_dir);
	vm_put(p, buf);
	ok(warm_spawn(ws, WARM_PROCS, f, app) == WARM_PROCS,
	   "warm: %d processes in %s, each %u MiB cold, %u MiB hot and %u MiB warm sets read "
	   "every 3, 6 and 20 s",
	   WARM_PROCS, ws->cgroup, ws->cold_mb, ws->hot_mb, ws->set_mb);
	d = vm_daemon_start(conf_dir, "/tmp/pageoutd-warm.log", ~0ULL);
	vm_sleep_ms(WARM_SECS * 1000);
	for (unsigned k = 0; k < WARM_PROCS; k++)
		cold += vm_area_swap_kb(app[k], WARM_COLD(k));
	printf("# warm: cold %ld of %ld kB swapped after %d s\n", cold, cold_kb, WARM_SECS);
	for (unsigned k = 0; k < WARM_PROCS; k++)
		for (unsigned w = 0; w < ws->nsets; w++) {
			unsigned first = warm_first(&f[k], w);
			uint64_t a30, l30;

			if (first >= WARM_SECS) {
				printf("# warm: process %u, %u s set: never refaulted\n", k,
				       ws->period_s[w]);
				continue;
			}
			refaulted++;
			a30 = warm_sum(&f[k], w, first, first + 30);
			l30 = warm_sum(&f[k], w, WARM_SECS - 30, WARM_SECS);
			quiet += first + 30 <= WARM_SECS - 30 && l30 * 4 <= a30;
			printf("# warm: process %u, %u s set: first refault at %u s; major faults "
			       "%" PRIu64 " in the 30 s from then, %" PRIu64 " in the last 30 s\n",
			       k, ws->period_s[w], first, a30, l30);
		}
	js = vm_ask(SOCK, "stats\n");
	learned = vm_metric(SOCK, "pageoutd_learned_total{policy=\"warm\",engine=\"vaddr\"} ");
	held = vm_metric(SOCK, "pageoutd_skipped_bytes_total{policy=\"warm\",reason=\"learned\"} ");
	printf("# warm: %.0f ranges learned, %.0f bytes held back as learned\n", learned, held);
	{
		/* the policy "warm"'s object: conf.d may hold others' of earlier subtests */
		const char *w = js ? strstr(js, "{\"name\":\"warm\",") : NULL;
		const char *o = w ? strstr(w, "\"learned\":{") : NULL;
		const char *e = o ? strchr(o, '}') : NULL;

		learned_js = o;
		printf("# warm: the JSON's %.*s; pageoutd_learned_ranges %.0f\n",
		       o && e ? (int)(e - o + 1) : 4, o && e ? o : "none",
		       vm_metric(SOCK,
				 "pageoutd_learned_ranges{policy=\"warm\",engine=\"vaddr\"} "));
	}
	ok(cold >= cold_kb * 90 / 100, "warm: at least 90%% of the cold sets are swapped out");
	/* the processes count a fault by mincore(), which a page in the swap cache defeats */
	if (vm_swap_sync()) {
		ok(refaulted >= WARM_PROCS,
		   "warm: warm sets refaulted at first (min_age below their period)");
		is_int(quiet, refaulted,
		       "warm: each of them refaults in its last 30 s at most a quarter of its "
		       "first 30 s");
	} else {
		skip("warm: warm sets refaulted at first (min_age below their period)",
		     VM_SWAP_ASYNC);
		skip("warm: each of them refaults in its last 30 s at most a quarter of its first "
		     "30 s",
		     VM_SWAP_ASYNC);
	}
	ok(learned >= 1 && held > 0, "warm: the metrics count ranges learned and bytes held back");
	ok(learned_js &&
		   strncmp(learned_js, "\"learned\":{\"enabled\":true,\"ranges\":", 35) == 0 &&
		   strncmp(learned_js, "\"learned\":{\"enabled\":true,\"ranges\":0,", 37) != 0,
	   "warm: the status JSON has policy warm's learned ranges");
	free(js);
	ok(system("grep -q 'learned [0-9]* range(s)' /tmp/pageoutd-warm.log") == 0,
	   "warm: the log says what was learned");
	is_int(vm_daemon_stop(d), 0, "warm: pageoutd exits 0");
	vm_show_log("/tmp/pageoutd-warm.log", 4);
	for (unsigned k = 0; k < WARM_PROCS; k++)
		vm_reap(app[k]);
	vm_cg_remove(ws->cgroup);
	munmap(f, WARM_PROCS * sizeof(*f));
	unlink(p);
}

/* the number in file p, -1 when it cannot be read */
static long read_num(const char *p)
{
	char buf[64] = "";

	return read_file_at(AT_FDCWD, p, buf, sizeof(buf)) > 0 ? atol(buf) : -1;
}

/* the number after "key": in the JSON object that starts at o, or UINT64_MAX */
static uint64_t json_num(const char *o, const char *key)
{
	char k[64];
	const char *at;

	snprintf(k, sizeof(k), "\"%s\":", key);
	at = o ? strstr(o, k) : NULL;
	return at ? strtoull(at + strlen(k), NULL, 10) : UINT64_MAX;
}

/*
 * The intervals derived from min_age on the real kernel: a policy with min_age 30s and no
 * [damon] intervals gives the vaddr kdamond 30 ms samples and 600 ms aggregations (sampling.h),
 * written to its sysfs files, said in the log and in the stats; where the kernel tunes
 * intervals (6.15+) its goal is written with the derived interval as the floor and 62.5 ms as
 * the ceiling, and the stats say the interval in force lies between them.
 */
static void intervals(void)
{
	static const char *dir = "/tmp/pageoutd-vm-iv";
	const struct vm_area a[1] = { { COLD(0), 8 * MIB, false } };
	const char *ic = VM_ADMIN "/kdamonds/0/contexts/0/monitoring_attrs/intervals";
	char p[256];
	bool tuner;
	pid_t app, d;
	char *js, *log = NULL;
	const char *v;

	vm_cg_make("/vmt-iv");
	app = vm_spawn(a, 1, "/vmt-iv");
	mkdir(dir, 0755);
	snprintf(p, sizeof(p), "%s/conf.d", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/pageoutd.conf", dir);
	vm_put(p, "[daemon]\ninterval = 5s\nstate_dir = /run/pageoutd\nsocket = " SOCK "\n"
		  "log_level = info\n");
	snprintf(p, sizeof(p), "%s/conf.d/iv.conf", dir);
	vm_put(p, "[policy]\ncgroup = /vmt-iv\nengine = vaddr\nmin_age = 30s\nmemory = anon\n");
	d = vm_daemon_start(dir, "/tmp/pageoutd-iv.log", ~0ULL);
	vm_sleep_ms(12000);
	snprintf(p, sizeof(p), "%s/intervals_goal", ic);
	tuner = access(p, F_OK) == 0;
	js = vm_ask(SOCK, "stats\n");
	v = js ? strstr(js, "\"vaddr\":{") : NULL;
	snprintf(p, sizeof(p), "%s/aggr_us", ic);
	if (!tuner) {
		ok(json_num(v, "sample_us") == 30000 && json_num(v, "aggr_us") == 600000,
		   "intervals: min_age 30s, no tuner: 30 ms samples, 600 ms aggregations in the "
		   "stats (%" PRIu64 ", %" PRIu64 ")",
		   json_num(v, "sample_us"), json_num(v, "aggr_us"));
		ok(read_num(p) == 600000, "intervals: the kdamond's aggr_us is 600000 (%ld)",
		   read_num(p));
		ok(v && strstr(v, "\"intervals_tuned\":false"), "intervals: the stats say untuned");
	} else {
		uint64_t sm = json_num(v, "sample_us");

		snprintf(p, sizeof(p), "%s/intervals_goal/min_sample_us", ic);
		ok(read_num(p) == 30000,
		   "intervals: the kernel's tuner has the derived 30 ms as its floor (%ld)",
		   read_num(p));
		snprintf(p, sizeof(p), "%s/intervals_goal/max_sample_us", ic);
		ok(read_num(p) == 62500, "intervals: and 62.5 ms as its ceiling (%ld)",
		   read_num(p));
		ok(sm >= 30000 && sm <= 62500 && v && strstr(v, "\"intervals_tuned\":true"),
		   "intervals: the stats say tuned, the sample interval in force within them "
		   "(%" PRIu64 ")",
		   sm);
	}
	free(js);
	vm_daemon_stop(d);
	read_file_alloc_at(AT_FDCWD, "/tmp/pageoutd-iv.log", &log);
	ok(log && strstr(log, "vaddr: DAMON sample 30ms, aggregation 600ms (from min_age 30s of "
			      "policy iv"),
	   "intervals: the log says which intervals are in force and why");
	if (!log || !strstr(log, "vaddr: DAMON sample"))
		vm_show_log("/tmp/pageoutd-iv.log", 20);
	free(log);
	vm_reap(app);
	vm_cg_remove("/vmt-iv");
}

#define VM_VADDR_CHECKS 49

static const struct {
	const char *name;
	void (*fn)(void);
} subtests[] = {
	{ "reclaim", reclaim },
	{ "turned_hot", turned_hot },
	{ "frozen", frozen },
	{ "swap_reserve", swap_reserve },
	{ "swap_limit", swap_limit },
	{ "middle_exit", middle_exit },
	{ "warm", warm },
	{ "intervals", intervals },
};

int main(int argc, char **argv)
{
	bool found = false;

	vm_require_guest();
	vm_release_damon_stat();
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* a whole run, every subtest: the same checks on every kernel (SKIPs where one cannot run) */
	if (argc < 2)
		tap_plan(VM_VADDR_CHECKS);
	mkdir("/run/pageoutd", 0755);
	log_setup(LOG_TARGET_STDERR, LOG_WARNING);
	for (size_t i = 0; i < sizeof(subtests) / sizeof(subtests[0]); i++) {
		if (argc > 1 && strcmp(argv[1], subtests[i].name))
			continue;
		found = true;
		subtests[i].fn();
	}
	if (!found)
		ok(0, "no subtest named %s", argv[1]);
	vm_cg_remove("/vmt-app");
	vm_cg_remove("/vmt-other");
	tap_done();
	return tap_failed ? 1 : 0;
}
