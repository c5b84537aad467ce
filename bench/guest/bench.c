// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench: pageoutd measured against the other ways to reclaim cold memory, in the tests/vm
 * guest (real DAMON, cgroup v2, zram swap). Every figure is a fraction or a ratio measured in
 * this one run: absolute times under TCG mean nothing.
 *
 *   bench quality SECONDS [METHOD...]  the same workload, fresh for each method, reclaimed for SECONDS by
 *                           none, pageoutd-vaddr, pageoutd-paddr, damos-vaddr (the kernel's
 *                           own DAMOS pageout on a vaddr context), damon_reclaim (the module)
 *                           and memory.reclaim (a senpai/TMO-style loop); one line per second
 *   bench apply             pageoutd's apply path (madv_apply) against raw process_madvise of
 *                           the same ranges, by batch size
 *   bench scale N...        the real pageoutd (5 s cycles) over N target processes: its CPU per
 *                           cycle and RSS, the kdamond's CPU, snapshot cost and regions
 *   bench watch N...        what watching costs: pageoutd (dry run) and its kdamond's CPU per
 *                           5 s cycle over N processes, min_age 3 s, 30 s and 2 min, with the
 *                           intervals derived from min_age against fixed 5 ms / 100 ms; then
 *                           the time to 95% of the cold set at min_age 30 s, both ways
 *   bench android STEPS     the Android-like app lifecycle of tests/vm (lifecycle.h) under
 *                           pageoutd with the shipped cached-apps.conf, then under the kernel's
 *                           DAMOS vaddr pageout over the same apps
 *   bench warm SECONDS      warm sets (tests/vm/guest/warm.h) beside cold ones: pageoutd-vaddr
 *                           with its memory of mistakes, pageoutd-vaddr with the policy-wide
 *                           back-off alone (learn = no), the kernel's DAMOS vaddr pageout
 *
 * Output: lines "BENCH,<table>,<fields...>" (CSV, parsed by bench/run.sh) and "#" comments.
 */
#include <config.h>

#include <dirent.h>
#include <inttypes.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "pageoutd/cgroup.h"
#include "pageoutd/damon.h"
#include "pageoutd/log.h"
#include "pageoutd/madvise.h"
#include "pageoutd/paddr.h"
#include "pageoutd/pscheme.h"
#include "../../tests/vm/guest/lifecycle.h"
#include "../../tests/vm/guest/warm.h"

#define COLD_ADDR 0x7e0000000000ULL
#define HOT_ADDR (COLD_ADDR + 64 * MIB) /* a hole between the two, as in tests/vm */
#define COLD_MB 32
#define HOT_MB 8
#define NA 3 /* processes in /bq-a, the reclaimed cgroup */

/*
 * The cgroups of the method being measured: /bq-a-N and /bq-b-N, new names for each method.
 * DAMON resolves a memcg_path to the first memcg of that name, a removed one still holding
 * swap entries included: with one /bq-a re-created for every method, both paddr methods
 * reclaimed 0 kB on 6.12 after the vaddr methods had swapped.
 */
static char cg_a[32] = "/bq-a", cg_b[32] = "/bq-b";
#define MIN_AGE_S 3

static const char *conf_dir = "/tmp/bench-conf";
static const char *state_dir = "/run/bench-pageoutd";

/* --- the workload --- */

/*
 * The scale workload's processes pass over their hot set every 100 ms (still hot to DAMON): a
 * hundred busy loops on two emulated CPUs, each pass taking mmap_lock for its mprotect, kept
 * the kdamond waiting for the targets' mmap locks and a snapshot took some 100 s - contention
 * of the workload, not pageoutd's cost.
 */
#define SCALE_PAUSE_MS 100

struct proc_args {
	const char *cg;
	uint64_t cold, hot;
	bool skewed;
	unsigned pause_ms; /* between passes over the hot set; 0: none */
};

static int proc_setup(void *arg)
{
	const struct proc_args *a = arg;
	char p[256], s[32];
	void *c, *h;

	snprintf(p, sizeof(p), VM_CGROOT "%s/cgroup.procs", a->cg);
	snprintf(s, sizeof(s), "%d", getpid());
	if (write_file_at(AT_FDCWD, p, s) < 0)
		return 2;
	c = mmap((void *)(uintptr_t)COLD_ADDR, a->cold, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	h = mmap((void *)(uintptr_t)HOT_ADDR, a->hot, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (c == MAP_FAILED || h == MAP_FAILED)
		return 3;
	/* pages, not THPs: every method sees the same 4 KiB pages */
	madvise(c, a->cold, MADV_NOHUGEPAGE);
	madvise(h, a->hot, MADV_NOHUGEPAGE);
	vm_touch(c, a->cold, true);
	vm_touch(h, a->hot, true);
	/*
	 * Everything but the two areas locked (code, stack, libc's data): the process's major
	 * faults are then its hot set's, each a hot page a method took and the loop needed.
	 */
	mlockall(MCL_CURRENT);
	munlock(c, a->cold);
	munlock(h, a->hot);
	return 0;
}

/*
 * Hot loop. Uniform: every page each pass. Skewed: the first quarter each pass, every other
 * page once in four passes (each still touched about every second under TCG). Each pass
 * toggles the area's protection first (the TCG accessed-bit artifact, vmtest.h).
 */
static void proc_run(void *arg)
{
	const struct proc_args *a = arg;
	volatile char *h = (char *)(uintptr_t)HOT_ADDR;

	for (unsigned pass = 0;; pass++) {
		mprotect((void *)h, a->hot, PROT_READ);
		mprotect((void *)h, a->hot, PROT_READ | PROT_WRITE);
		for (uint64_t o = 0; o < a->hot; o += 4096) {
			if (a->skewed && o >= a->hot / 4 && (o / 4096 + pass) % 4)
				continue;
			h[o] = (char)(pass | 1);
		}
		if (a->pause_ms)
			vm_sleep_ms(a->pause_ms);
	}
}

struct workload {
	pid_t a[NA], b;
	long majflt0[NA + 1];
	uint64_t cur0;
};

static void workload_start(struct workload *w)
{
	struct proc_args pa[NA], pb = { cg_b, COLD_MB * MIB, HOT_MB * MIB, false, 0 };

	vm_cg_make(cg_a);
	vm_cg_make(cg_b);
	for (unsigned i = 0; i < NA; i++) {
		pa[i] = (struct proc_args){ cg_a, COLD_MB * MIB, HOT_MB * MIB, i == NA - 1, 0 };
		w->a[i] = child_fork(proc_setup, proc_run, &pa[i]);
	}
	w->b = child_fork(proc_setup, proc_run, &pb);
	vm_sleep_ms(1000);
	for (unsigned i = 0; i < NA; i++)
		w->majflt0[i] = vm_majflt(w->a[i]);
	w->majflt0[NA] = vm_majflt(w->b);
	w->cur0 = vm_cg_u64(cg_a, "memory.current");
}

static void workload_stop(struct workload *w)
{
	for (unsigned i = 0; i < NA; i++)
		vm_reap(w->a[i]);
	vm_reap(w->b);
	vm_sleep_ms(300);
	vm_cg_remove(cg_a);
	vm_cg_remove(cg_b);
}

struct sample {
	double cold_pct, hot_out_pct, hot_refault_pct, other_kb;
	long saved_kb;
};

static void sample(const struct workload *w, struct sample *s)
{
	long cold = 0, hot = 0, flt = 0;
	uint64_t cur = vm_cg_u64(cg_a, "memory.current");

	for (unsigned i = 0; i < NA; i++) {
		long c = vm_area_swap_kb(w->a[i], COLD_ADDR),
		     h = vm_area_swap_kb(w->a[i], HOT_ADDR);

		cold += c > 0 ? c : 0;
		hot += h > 0 ? h : 0;
		flt += vm_majflt(w->a[i]) - w->majflt0[i];
	}
	s->cold_pct = 100.0 * (double)cold / (NA * COLD_MB * 1024.0);
	s->hot_out_pct = 100.0 * (double)hot / (NA * HOT_MB * 1024.0);
	s->hot_refault_pct = 100.0 * (double)flt * 4 / (NA * HOT_MB * 1024.0);
	s->other_kb = (double)(vm_area_swap_kb(w->b, COLD_ADDR) + vm_area_swap_kb(w->b, HOT_ADDR));
	s->saved_kb = cur == UINT64_MAX ? 0 : (long)(w->cur0 - cur) / 1024;
}

/* --- the methods --- */

/*
 * The bench's pageoutd.conf: its state_dir and socket, info logging, then the lines `more`
 * (interval first), and conf.d/bench.conf holding `policy`.
 */
static void put_conf_with(const char *more, const char *policy)
{
	char p[256], buf[1024];

	mkdir(conf_dir, 0755);
	snprintf(p, sizeof(p), "%s/conf.d", conf_dir);
	mkdir(p, 0755);
	snprintf(buf, sizeof(buf),
		 "[daemon]\nstate_dir = %s\nsocket = %s/sock\nlog_level = info\n%s", state_dir,
		 state_dir, more);
	snprintf(p, sizeof(p), "%s/pageoutd.conf", conf_dir);
	vm_put(p, buf);
	snprintf(p, sizeof(p), "%s/conf.d/bench.conf", conf_dir);
	vm_put(p, policy);
}

/* 1 s cycles, the quality and warm steps' */
static void put_conf(const char *policy)
{
	put_conf_with("interval = 1s\n", policy);
}

/* the policy "bench" over this method's cgroup: the lines after "cgroup =" */
static void put_policy(const char *rest)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "[policy]\ncgroup = %s\n%s", cg_a, rest);
	put_conf(buf);
}

static pid_t daemon_start(void)
{
	return vm_daemon_start(conf_dir, "/tmp/bench-pageoutd.log", ~0ULL);
}

/*
 * The memory.reclaim loop trades hot against cold by its step alone, so it runs at three steps
 * (percent of memory.current per second): "fewer mistakes at equal saving" compares pageoutd
 * with the gentlest step that saved at least as much (bench/report.py).
 */
enum method {
	M_NONE,
	M_VADDR,
	M_PADDR,
	M_DAMOS,
	M_DAMOS_PADDR,
	M_RECLAIM,
	M_MEMRECLAIM2,
	M_MEMRECLAIM5,
	M_MEMRECLAIM10,
	M_MAX
};
static const char *const method_name[] = { "none",
					   "pageoutd-vaddr",
					   "pageoutd-paddr",
					   "damos-vaddr",
					   "damos-paddr",
					   "damon_reclaim-500ms",
					   "memory.reclaim-2%",
					   "memory.reclaim-5%",
					   "memory.reclaim-10%" };
static const unsigned memreclaim_pct[M_MAX] = {
	[M_MEMRECLAIM2] = 2, [M_MEMRECLAIM5] = 5, [M_MEMRECLAIM10] = 10
};

struct run {
	pid_t daemon;
	struct damon d;
	bool damon_on;
};

static void reclaim_param(const char *name, const char *val)
{
	char p[256];

	snprintf(p, sizeof(p), "/sys/module/damon_reclaim/parameters/%s", name);
	write_file_at(AT_FDCWD, p, val);
}

/*
 * A kdamond of the bench's own with one DAMOS pageout scheme s (filters set by the caller):
 * the intervals tests/vm uses, nothing accessed in an aggregation, idle for damos_age_s, no quota.
 */
static unsigned damos_age_s = MIN_AGE_S; /* the scheme's minimum age */

static void damos_ctx(struct damon_ctx *c, const char *ops, struct damon_target *t, unsigned nt,
		      struct damon_scheme *s)
{
	memset(c, 0, sizeof(*c));
	str_copy(c->ops, sizeof(c->ops), ops);
	c->sample_us = 5000;
	c->aggr_us = 100000;
	c->update_us = 1000000;
	c->min_regions = 10;
	c->max_regions = 1000;
	str_copy(s->action, sizeof(s->action), "pageout");
	damon_pattern_all(&s->pattern);
	s->pattern.nr_accesses_max = 0;
	s->pattern.age_min = damos_age_s * 10;
	c->nr_targets = nt;
	c->targets = t;
	c->nr_schemes = 1;
	c->schemes = s;
}

static int damos_start(struct run *r, const char *ops, struct damon_target *t, unsigned nt,
		       struct damon_scheme *s)
{
	struct damon_ctx c;

	damos_ctx(&c, ops, t, nt, s);
	if (damon_open(&r->d, VM_ADMIN, state_dir, NULL) < 0 || damon_acquire(&r->d) < 0 ||
	    damon_write_ctx(&r->d, 0, &c) < 0 || damon_start(&r->d, 0) < 0)
		return -1;
	r->damon_on = true;
	return 0;
}

static int method_start(enum method m, const struct workload *w, struct run *r)
{
	memset(r, 0, sizeof(*r));
	switch (m) {
	case M_NONE:
	case M_MEMRECLAIM2:
	case M_MEMRECLAIM5:
	case M_MEMRECLAIM10:
		return 0;
	case M_VADDR:
		put_policy("engine = vaddr\nmin_age = 3s\nmax_access_rate = 0%\nmemory = anon\n"
			   "quota = 1G/1s\n");
		r->daemon = daemon_start();
		return r->daemon > 0 ? 0 : -1;
	case M_PADDR:
		put_policy("engine = paddr\nmin_age = 3s\nmemory = anon\nquota = 256M/1s\n"
			   "quota_time = 500ms\n");
		r->daemon = daemon_start();
		return r->daemon > 0 ? 0 : -1;
	case M_DAMOS: {
		/* the kernel's own vaddr DAMOS pageout: the scheme damo would write */
		struct damon_target t[NA];
		struct damon_scheme s;

		memset(t, 0, sizeof(t));
		memset(&s, 0, sizeof(s));
		for (unsigned i = 0; i < NA; i++)
			t[i].pid = w->a[i];
		return damos_start(r, "vaddr", t, NA, &s);
	}
	case M_DAMOS_PADDR: {
		/*
		 * the kernel's own paddr DAMOS pageout, the scheme damo would write: the System RAM
		 * ranges, /bq-a's memcg only, anonymous pages only
		 */
		struct damon_target t = { 0 };
		struct damon_scheme s;
		char *iomem = NULL;
		int n;

		memset(&s, 0, sizeof(s));
		if (read_file_alloc_at(AT_FDCWD, "/proc/iomem", &iomem) < 0)
			return -1;
		n = pscheme_ram_ranges(iomem, t.regions, 2);
		free(iomem);
		if (n <= 0)
			return -1;
		t.nr_regions = (unsigned)n;
		s.nr_filters = 2;
		s.filters[0].type = DAMON_FILTER_MEMCG;
		str_copy(s.filters[0].memcg_path, sizeof(s.filters[0].memcg_path), cg_a);
		s.filters[0].matching = false; /* out: every page not of cg_a */
		s.filters[1].type = DAMON_FILTER_ANON;
		s.filters[1].matching = false; /* out: every page not anonymous */
		return damos_start(r, "paddr", &t, 1, &s);
	}
	case M_RECLAIM:
		/*
		 * always on (watermarks off), 3 s minimum age, and pageoutd-paddr's quotas (256 MiB
		 * and 500 ms per second) in place of the module's 128 MiB and 10 ms, which bind
		 */
		reclaim_param("min_age", "3000000");
		reclaim_param("quota_sz", "268435456");
		reclaim_param("quota_ms", "500");
		reclaim_param("quota_reset_interval_ms", "1000");
		reclaim_param("wmarks_high", "1000");
		reclaim_param("wmarks_mid", "999");
		reclaim_param("wmarks_low", "0");
		reclaim_param("enabled", "Y");
		return 0;
	case M_MAX:
		break;
	}
	return -1;
}

/* memory.reclaim, as senpai and TMO drive it: pct of memory.current per second, held back
 * while the cgroup's memory PSI is above 1% */
static void memreclaim_tick(unsigned pct)
{
	uint64_t cur = vm_cg_u64(cg_a, "memory.current");
	struct cgrp_root cg;
	struct cgrp_psi psi;
	char v[32], p[96];

	if (cur == UINT64_MAX)
		return;
	if (cgrp_init(&cg) == 0 && cgrp_pressure(&cg, cg_a, &psi) == 0 && psi.some_avg10 > 1.0)
		return;
	snprintf(v, sizeof(v), "%" PRIu64, cur / 100 * pct);
	snprintf(p, sizeof(p), VM_CGROOT "%s/memory.reclaim", cg_a);
	write_file_at(AT_FDCWD, p, v);
}

static void method_stop(enum method m, struct run *r)
{
	if (r->daemon > 0) {
		vm_daemon_stop(r->daemon);
		vm_show_log("/tmp/bench-pageoutd.log", 12);
	}
	if (r->damon_on) {
		damon_release(&r->d);
		damon_close(&r->d);
	}
	if (m == M_RECLAIM) {
		/* what the module says it did: whether it ran, tried, reclaimed, hit its quota */
		static const char *const stat[] = { "enabled", "kdamond_pid",
						    "bytes_reclaim_tried_regions",
						    "bytes_reclaimed_regions", "nr_quota_exceeds" };

		printf("# damon_reclaim:");
		for (size_t i = 0; i < ARRAY_SIZE(stat); i++) {
			char p[256], v[32] = "?";

			snprintf(p, sizeof(p), "/sys/module/damon_reclaim/parameters/%s", stat[i]);
			read_file_at(AT_FDCWD, p, v, sizeof(v));
			printf(" %s=%s", stat[i], str_strip(v));
		}
		printf("\n");
		reclaim_param("enabled", "N");
	}
}

#define QUALITY_RUNS 3

static int quality(unsigned secs, int argc, char **argv)
{
	mkdir(state_dir, 0700);
	printf("BENCH,quality_head,method,t,cold_pct,hot_out_pct,hot_refault_pct,saved_kb,"
	       "other_kb\n");
	/*
	 * Every method, baselines included, runs QUALITY_RUNS times (rows "NAME", "NAME#2", ...),
	 * interleaved (each round runs every method once, in the same order), so that a slow
	 * stretch of the host falls on all of them alike: TCG timing moves the time to 95% by
	 * several seconds between runs, and report.py gives min, median and max of each.
	 */
	for (unsigned mi = 0; mi < M_MAX * QUALITY_RUNS; mi++) {
		enum method m = (enum method)(mi % M_MAX);
		unsigned run = mi / M_MAX;
		struct workload w;
		bool chosen = argc == 0;
		struct run r;
		struct sample s = { 0 };
		double t95 = -1;
		char name[48];

		for (int i = 0; i < argc; i++)
			chosen = chosen || !strcmp(argv[i], method_name[m]);
		if (!chosen)
			continue;
		if (run)
			snprintf(name, sizeof(name), "%s#%u", method_name[m], run + 1);
		else
			str_copy(name, sizeof(name), method_name[m]);
		snprintf(cg_a, sizeof(cg_a), "/bq-a-%u", mi);
		snprintf(cg_b, sizeof(cg_b), "/bq-b-%u", mi);
		workload_start(&w);
		if (method_start(m, &w, &r) < 0) {
			printf("# %s: could not start (%s)\n", name, strerror(errno));
			method_stop(m, &r);
			workload_stop(&w);
			continue;
		}
		for (unsigned t = 1; t <= secs; t++) {
			vm_sleep_ms(1000);
			if (memreclaim_pct[m])
				memreclaim_tick(memreclaim_pct[m]);
			sample(&w, &s);
			if (t95 < 0 && s.cold_pct >= 95)
				t95 = t;
			printf("BENCH,quality,%s,%u,%.2f,%.2f,%.2f,%ld,%.0f\n", name, t, s.cold_pct,
			       s.hot_out_pct, s.hot_refault_pct, s.saved_kb, s.other_kb);
		}
		method_stop(m, &r);
		printf("BENCH,quality_end,%s,%.2f,%.2f,%.2f,%ld,%.0f,%.0f\n", name, s.cold_pct,
		       s.hot_out_pct, s.hot_refault_pct, s.saved_kb, s.other_kb, t95);
		workload_stop(&w);
	}
	return 0;
}

/* --- warm sets: the memory of mistakes against a policy-wide back-off and DAMOS --- */

#define WARM_N 3
#define WARM_RUNS 3
static const struct warm_spec warm_bench = {
	.cold_mb = 48,
	.hot_mb = 16,
	.set_mb = 32,
	.nsets = 1,
	.period_s = { 6 },
	.cgroup = "/bw",
};

static const char *const warm_method[] = { "pageoutd-vaddr", "pageoutd-vaddr-nolearn",
					   "damos-vaddr" };

/*
 * One run of warm method m for secs seconds on fresh processes: one line per second (cold
 * swapped %, the warm sets' major faults in that second, all major faults of the processes),
 * then one end line (cold % at the end, seconds to 90% of the cold sets, the warm sets' faults
 * in each 30 s window).
 */
static void warm_one(unsigned m, unsigned secs, const char *name)
{
	struct warm_counts *c = warm_counts_new(WARM_N);
	struct damon_target t[WARM_N];
	struct damon_scheme sc;
	struct run r = { 0 };
	pid_t pids[WARM_N];
	long flt0[WARM_N];
	double cold_pct = 0, t90 = -1;
	char pol[512], win[256] = "";
	size_t wl = 0;

	if (!c)
		return;
	vm_cg_make(warm_bench.cgroup);
	if (warm_spawn(&warm_bench, WARM_N, c, pids) != WARM_N) {
		printf("# warm: %s: the workload did not start\n", name);
		goto out;
	}
	for (unsigned k = 0; k < WARM_N; k++)
		flt0[k] = vm_majflt(pids[k]);
	if (m < 2) {
		snprintf(pol, sizeof(pol),
			 "[policy]\ncgroup = %s\nengine = vaddr\nmin_age = 3s\n"
			 "max_access_rate = 0%%\nmemory = anon\nquota = 1G/1s\nswap_reserve = 5%%\n"
			 "max_refault_rate = 0.2%%\nlearn = %s\n",
			 warm_bench.cgroup, m == 0 ? "yes" : "no");
		put_conf(pol);
		r.daemon = daemon_start();
	} else {
		memset(t, 0, sizeof(t));
		memset(&sc, 0, sizeof(sc));
		for (unsigned k = 0; k < WARM_N; k++)
			t[k].pid = pids[k];
		if (damos_start(&r, "vaddr", t, WARM_N, &sc) < 0)
			printf("# warm: %s: DAMOS did not start\n", name);
	}
	for (unsigned s = 1; s <= secs; s++) {
		long cold = 0, flt = 0;
		uint64_t wf = 0;

		vm_sleep_ms(1000);
		for (unsigned k = 0; k < WARM_N; k++) {
			long v = vm_area_swap_kb(pids[k], WARM_COLD(k));

			cold += v > 0 ? v : 0;
			flt += vm_majflt(pids[k]) - flt0[k];
			wf += warm_sum(&c[k], 0, s - 1, s);
		}
		cold_pct = 100.0 * (double)cold / (WARM_N * warm_bench.cold_mb * 1024.0);
		if (t90 < 0 && cold_pct >= 90)
			t90 = s;
		printf("BENCH,warm,%s,%u,%.2f,%" PRIu64 ",%ld\n", name, s, cold_pct, wf, flt);
	}
	method_stop(m < 2 ? M_VADDR : M_DAMOS, &r);
	for (unsigned from = 0; from + 30 <= secs; from += 30) {
		uint64_t n = 0;

		for (unsigned k = 0; k < WARM_N; k++)
			n += warm_sum(&c[k], 0, from, from + 30);
		wl += (size_t)snprintf(win + wl, sizeof(win) - wl, "%s%" PRIu64, wl ? ";" : "", n);
		if (wl >= sizeof(win))
			break;
	}
	printf("BENCH,warm_end,%s,%.2f,%.0f,%s\n", name, cold_pct, t90, win);
out:
	for (unsigned k = 0; k < WARM_N; k++)
		vm_reap(pids[k]);
	vm_sleep_ms(300);
	vm_cg_remove(warm_bench.cgroup);
	munmap(c, WARM_N * sizeof(*c));
}

static int warm(unsigned secs)
{
	if (secs > WARM_MAX_SECS)
		secs = WARM_MAX_SECS;
	mkdir(state_dir, 0700);
	printf("BENCH,warm_head,method,t,cold_pct,warm_majflt,majflt\n");
	printf("BENCH,warm_end_head,method,cold_pct,t90_s,warm_majflt_per_30s\n");
	/* every method WARM_RUNS times, in interleaved rounds, as bench quality does */
	for (unsigned run = 0; run < WARM_RUNS; run++)
		for (unsigned m = 0; m < ARRAY_SIZE(warm_method); m++) {
			char name[48];

			if (run)
				snprintf(name, sizeof(name), "%s#%u", warm_method[m], run + 1);
			else
				str_copy(name, sizeof(name), warm_method[m]);
			warm_one(m, secs, name);
		}
	return 0;
}

/* --- apply cost --- */

#define APPLY_MB 64
#define APPLY_RANGE (64 * 1024)
#define APPLY_REPS 9

static int apply_setup(void *arg)
{
	void *m = mmap((void *)(uintptr_t)COLD_ADDR, 2 * APPLY_MB * MIB, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	(void)arg;
	if (m == MAP_FAILED)
		return 3;
	madvise(m, 2 * APPLY_MB * MIB, MADV_NOHUGEPAGE);
	vm_touch(m, 2 * APPLY_MB * MIB, true);
	vm_lock_code();
	return 0;
}

/* on SIGUSR1: fault every page back in, then say so on SIGUSR2 to the parent */
static void apply_run(void *arg)
{
	sigset_t set;
	int sig;

	(void)arg;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	for (;;) {
		sigwait(&set, &sig);
		vm_touch((char *)(uintptr_t)COLD_ADDR, 2 * APPLY_MB * MIB, false);
		kill(getppid(), SIGUSR2);
	}
}

static void refill(pid_t pid)
{
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	kill(pid, SIGUSR1);
	sigwait(&set, &sig);
}

static ssize_t raw_apply(int pidfd, const struct madv_range *r, size_t n, int advice)
{
	struct iovec iov[MADV_BATCH_MAX];
	ssize_t total = 0;

	for (size_t i = 0; i < n;) {
		size_t k = 0;
		ssize_t got;

		for (; k < MADV_BATCH_MAX && i + k < n; k++) {
			iov[k].iov_base = (void *)(uintptr_t)r[i + k].start;
			iov[k].iov_len = r[i + k].end - r[i + k].start;
		}
		got = syscall(SYS_process_madvise, pidfd, iov, k, advice, 0);
		if (got < 0)
			return -1;
		total += got;
		i += k;
	}
	return total;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* one run each, every page faulted back in first */
static uint64_t timed_raw(pid_t pid, int pidfd, const struct madv_range *r, size_t n, int advice)
{
	uint64_t t0;

	refill(pid);
	t0 = now_usec();
	raw_apply(pidfd, r, n, advice);
	return now_usec() - t0;
}

static uint64_t timed_ours(pid_t pid, int pidfd, struct madv_range *r, size_t n, int advice,
			   unsigned batch)
{
	struct madv_stats st = { 0 };
	uint64_t t0;

	refill(pid);
	t0 = now_usec();
	madv_apply(pidfd, r, n, advice, batch, false, &st);
	return now_usec() - t0;
}

static int apply(void)
{
	static const unsigned batches[] = { 1, 16, 128, 1024 };
	static const int advices[] = { MADV_COLD, MADV_PAGEOUT };
	size_t n = APPLY_MB * MIB / APPLY_RANGE;
	struct madv_range *r = calloc(n, sizeof(*r));
	sigset_t set;
	pid_t pid;
	int pidfd;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	sigprocmask(SIG_BLOCK, &set, NULL);
	pid = child_fork(apply_setup, apply_run, NULL);
	pidfd = madv_pidfd_open(pid);
	if (!r || pid < 0 || pidfd < 0)
		return 1;
	/* every other 64 KiB: n separate ranges, as a snapshot of scattered cold regions gives */
	for (size_t i = 0; i < n; i++) {
		r[i].start = COLD_ADDR + 2 * i * APPLY_RANGE;
		r[i].end = r[i].start + APPLY_RANGE;
	}
	printf("BENCH,apply_head,advice,batch,raw_us,pageoutd_us,ratio,ratio_q1,ratio_q3,"
	       "raw_raw_q1,raw_raw_q3\n");
	for (unsigned a = 0; a < 2; a++)
		for (unsigned b = 0; b < sizeof(batches) / sizeof(batches[0]); b++) {
			uint64_t raw[APPLY_REPS], ours[APPLY_REPS];
			double ratio[APPLY_REPS], noise[APPLY_REPS];

			/*
			 * Pairs, the order alternating (the second run of a pair finds the first's
			 * swap-in behind it), and a raw-against-raw pair each time: the spread of that
			 * ratio is the run's noise band, against which pageoutd's ratio is read.
			 */
			for (unsigned k = 0; k < APPLY_REPS; k++) {
				uint64_t r2;

				if (k % 2) {
					ours[k] = timed_ours(pid, pidfd, r, n, advices[a],
							     batches[b]);
					raw[k] = timed_raw(pid, pidfd, r, n, advices[a]);
				} else {
					raw[k] = timed_raw(pid, pidfd, r, n, advices[a]);
					ours[k] = timed_ours(pid, pidfd, r, n, advices[a],
							     batches[b]);
				}
				r2 = timed_raw(pid, pidfd, r, n, advices[a]);
				ratio[k] = (double)raw[k] / (double)ours[k];
				noise[k] = (double)raw[k] / (double)r2;
			}
			qsort(raw, APPLY_REPS, sizeof(raw[0]), cmp_u64);
			qsort(ours, APPLY_REPS, sizeof(ours[0]), cmp_u64);
			qsort(ratio, APPLY_REPS, sizeof(ratio[0]), cmp_double);
			qsort(noise, APPLY_REPS, sizeof(noise[0]), cmp_double);
			/* throughput ratio: pageoutd's bytes per second over raw's, median of the
			 * pairs, with its quartiles and the raw-against-raw quartiles */
			printf("BENCH,apply,%s,%u,%" PRIu64 ",%" PRIu64
			       ",%.3f,%.3f,%.3f,%.3f,%.3f\n",
			       a ? "MADV_PAGEOUT" : "MADV_COLD", batches[b], raw[APPLY_REPS / 2],
			       ours[APPLY_REPS / 2], ratio[APPLY_REPS / 2], ratio[APPLY_REPS / 4],
			       ratio[APPLY_REPS * 3 / 4], noise[APPLY_REPS / 4],
			       noise[APPLY_REPS * 3 / 4]);
		}
	printf("# apply: %zu ranges of %d KiB (%d MiB), raw process_madvise in batches of %d\n", n,
	       APPLY_RANGE / 1024, APPLY_MB, MADV_BATCH_MAX);
	close(pidfd);
	vm_reap(pid);
	free(r);
	return 0;
}

/* --- daemon cost and scaling --- */

static int small_setup(void *arg)
{
	struct proc_args a = { "/bq-s", 1 * MIB, 256 * 1024, false, SCALE_PAUSE_MS };

	(void)arg;
	return proc_setup(&a);
}

static void small_run(void *arg)
{
	struct proc_args a = { "/bq-s", 1 * MIB, 256 * 1024, false, SCALE_PAUSE_MS };

	(void)arg;
	proc_run(&a);
}

/* utime + stime of pid, in clock ticks */
static uint64_t cpu_ticks(pid_t pid)
{
	char p[64], buf[1024], *s;
	unsigned long long ut = 0, st = 0;

	snprintf(p, sizeof(p), "/proc/%d/stat", pid);
	if (read_file_at(AT_FDCWD, p, buf, sizeof(buf)) < 0 || !(s = strrchr(buf, ')')))
		return 0;
	if (sscanf(s + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
		return 0;
	return ut + st;
}

/* a value of the daemon's stats JSON ("key": N), 0 when absent */
static uint64_t stats_value(const char *sock, const char *key)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	static char buf[1 << 16];
	char k[64];
	size_t len = 0;
	ssize_t got;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	const char *at;

	struct timeval tv = { 10, 0 };

	str_copy(sa.sun_path, sizeof(sa.sun_path), sock);
	if (fd >= 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    write(fd, "stats\n", 6) != 6) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	while (len < sizeof(buf) - 1 && (got = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)got;
	buf[len] = '\0';
	close(fd);
	snprintf(k, sizeof(k), "\"%s\":", key);
	at = strstr(buf, k);
	return at ? strtoull(at + strlen(k), NULL, 10) : 0;
}

static unsigned count_regions(void)
{
	char p[256];
	unsigned n = 0;

	for (unsigned s = 0; s < 1000; s++) {
		DIR *d;
		struct dirent *e;

		snprintf(p, sizeof(p), VM_ADMIN "/kdamonds/0/contexts/0/schemes/%u/tried_regions",
			 s);
		d = opendir(p);
		if (!d)
			break;
		while ((e = readdir(d)))
			n += e->d_name[0] >= '0' && e->d_name[0] <= '9';
		closedir(d);
	}
	return n;
}

static int scale(int argc, char **argv)
{
	long hz = sysconf(_SC_CLK_TCK);
	char sock[128];

	mkdir(state_dir, 0700);
	snprintf(sock, sizeof(sock), "%s/sock", state_dir);
	printf("BENCH,scale_head,procs,cycles,cpu_ms_per_cycle,cpu_pct_of_one,rss_kb,"
	       "kdamond_cpu_ms_per_cycle,snapshot_ms,regions,first_cycles,first_cpu_ms_per_cycle,"
	       "first_reclaimed_kb\n");
	for (int i = 0; i < argc; i++) {
		unsigned n = (unsigned)atoi(argv[i]), cycles = 6, secs = 5;
		pid_t *pids = calloc(n, sizeof(*pids));
		char kp[32] = "";
		uint64_t c0, c1, k0 = 0, k1 = 0, snaps0, snaps1, sus0, sus1, f0, rec0, rec1, mr0,
				 mk0;
		unsigned first = 0;
		pid_t d, kpid = 0;
		long rss;

		vm_cg_make("/bq-s");
		for (unsigned k = 0; k < n; k++)
			pids[k] = child_fork(small_setup, small_run, NULL);
		put_conf("[policy]\ncgroup = /bq-s\nengine = vaddr\nmin_age = 10s\n"
			 "max_access_rate = 0%\nmemory = anon\n");
		/* 5 s cycles, as the target says */
		{
			char buf[512], p[256];

			snprintf(buf, sizeof(buf),
				 "[daemon]\ninterval = 5s\nstate_dir = %s\nsocket = %s\n"
				 "log_level = notice\n",
				 state_dir, sock);
			snprintf(p, sizeof(p), "%s/pageoutd.conf", conf_dir);
			vm_put(p, buf);
		}
		d = daemon_start();
		/*
		 * The first cycles find the processes, start the kdamond and page the cold sets
		 * out: process_madvise does that reclaim work in pageoutd's own time (kswapd's or
		 * the kdamond's for the other methods). They are measured apart, until a whole
		 * cycle reclaimed nothing more (at most 16 cycles); then the steady cycles.
		 */
		f0 = cpu_ticks(d);
		vm_sleep_ms(2 * secs * 1000);
		first = 2;
		rec0 = stats_value(sock, "reclaimed_bytes_total");
		while (first < 16) {
			vm_sleep_ms(secs * 1000);
			first++;
			rec1 = stats_value(sock, "reclaimed_bytes_total");
			if (rec1 == rec0 && rec1 > 0)
				break;
			rec0 = rec1;
		}
		if (read_file_at(AT_FDCWD, VM_ADMIN "/kdamonds/0/pid", kp, sizeof(kp)) > 0)
			kpid = atoi(kp);
		c0 = cpu_ticks(d);
		k0 = kpid > 0 ? cpu_ticks(kpid) : 0;
		snaps0 = stats_value(sock, "snapshots");
		sus0 = stats_value(sock, "snapshot_us_total");
		mr0 = stats_value(sock, "maps_reads");
		mk0 = stats_value(sock, "maps_kept");
		vm_sleep_ms(cycles * secs * 1000);
		c1 = cpu_ticks(d);
		k1 = kpid > 0 ? cpu_ticks(kpid) : 0;
		snaps1 = stats_value(sock, "snapshots");
		sus1 = stats_value(sock, "snapshot_us_total");
		rss = vm_status_kb(d, "VmRSS");
		printf("# %u processes, steady cycles: maps read %" PRIu64 " times, the last "
		       "maps kept %" PRIu64 " times (nothing left to advise)\n",
		       n, stats_value(sock, "maps_reads") - mr0,
		       stats_value(sock, "maps_kept") - mk0);
		{
			double ms = (double)(c1 - c0) * 1000.0 / (double)hz / cycles;
			double kms = (double)(k1 - k0) * 1000.0 / (double)hz / cycles;
			double snap_ms = snaps1 > snaps0 ? (double)(sus1 - sus0) / 1000.0 /
								   (double)(snaps1 - snaps0)
							 : -1;

			double fms = (double)(c0 - f0) * 1000.0 / (double)hz / first;

			printf("BENCH,scale,%u,%u,%.1f,%.3f,%ld,%.1f,%.1f,%u,%u,%.1f,%" PRIu64 "\n",
			       n, cycles, ms, ms / (secs * 10.0), rss, kms, snap_ms,
			       count_regions(), first, fms, rec0 / 1024);
		}
		vm_daemon_stop(d);
		for (unsigned k = 0; k < n; k++)
			vm_reap(pids[k]);
		free(pids);
		vm_sleep_ms(300);
		vm_cg_remove("/bq-s");
	}
	return 0;
}

/* --- what watching costs: the intervals derived from min_age against fixed ones --- */

/*
 * The [damon] lines of a watch setting: "fixed" is the 5 ms / 100 ms pageoutd ran every
 * kdamond with before the intervals followed the policies; "derived" leaves them to sampling.h.
 */
static const char *watch_damon(bool fixed)
{
	return fixed ? "[damon]\nsample_interval = 5ms\naggr_interval = 100ms\n" : "";
}

static void put_watch_conf(bool fixed, bool dry, const char *policy)
{
	char more[256];

	snprintf(more, sizeof(more), "interval = 5s\ndry_run = %s\n%s", dry ? "yes" : "no",
		 watch_damon(fixed));
	put_conf_with(more, policy);
}

/* CPU ticks of every kdamond pageoutd runs (slots 0 and 1) */
static uint64_t kdamond_ticks(void)
{
	uint64_t t = 0;

	for (unsigned k = 0; k < 2; k++) {
		char p[96], kp[32] = "";
		pid_t pid;

		snprintf(p, sizeof(p), VM_ADMIN "/kdamonds/%u/pid", k);
		if (read_file_at(AT_FDCWD, p, kp, sizeof(kp)) > 0 && (pid = atoi(kp)) > 0)
			t += cpu_ticks(pid);
	}
	return t;
}

#define WATCH_WARM_S 10
#define WATCH_CYCLES 3

/*
 * One watch run over the processes of /bq-s already running: pageoutd with a policy of engine
 * eng and min_age age_s over /bq-s, dry_run (deciding everything, advising nothing: the cost of
 * watching, the same work whatever the intervals), WATCH_WARM_S to start, then WATCH_CYCLES
 * cycles measured.
 */
static void watch_cost(unsigned n, const char *eng, unsigned age_s, bool fixed)
{
	long hz = sysconf(_SC_CLK_TCK);
	char pol[256], sock[160];
	uint64_t c0, c1, k0, k1;
	pid_t d;

	snprintf(sock, sizeof(sock), "%s/sock", state_dir);
	snprintf(pol, sizeof(pol),
		 "[policy]\ncgroup = /bq-s\nengine = %s\nmin_age = %us\nmemory = anon\n", eng,
		 age_s);
	put_watch_conf(fixed, true, pol);
	d = daemon_start();
	if (d <= 0) {
		printf("# watch %u %s %us: pageoutd did not start\n", n, eng, age_s);
		return;
	}
	vm_sleep_ms(WATCH_WARM_S * 1000);
	c0 = cpu_ticks(d);
	k0 = kdamond_ticks();
	vm_sleep_ms(WATCH_CYCLES * 5000);
	c1 = cpu_ticks(d);
	k1 = kdamond_ticks();
	{
		double ms = (double)(c1 - c0) * 1000.0 / (double)hz / WATCH_CYCLES;
		double kms = (double)(k1 - k0) * 1000.0 / (double)hz / WATCH_CYCLES;

		printf("BENCH,watch,%u,%s,%u,%s,%.1f,%.1f,%.1f,%.3f,%" PRIu64 ",%" PRIu64 "\n", n,
		       eng, age_s, fixed ? "fixed" : "derived", ms, kms, ms + kms,
		       (ms + kms) / (5 * 10.0), stats_value(sock, "sample_us"),
		       stats_value(sock, "aggr_us"));
	}
	vm_daemon_stop(d);
	vm_show_log("/tmp/bench-pageoutd.log", 4);
}

/*
 * Reclaim speed and mistakes at min_age age_s, 5 s cycles: the quality workload under
 * pageoutd-vaddr, fixed against derived intervals, for 3 x min_age + 15 s.
 */
static void watch_speed(unsigned age_s, bool fixed, unsigned k)
{
	unsigned secs = 3 * age_s + 15;
	char pol[512], name[48];
	struct workload w;
	struct sample sm = { 0 };
	double t95 = -1;
	pid_t d;

	snprintf(name, sizeof(name), "vaddr-%us-%s", age_s, fixed ? "fixed" : "derived");
	snprintf(cg_a, sizeof(cg_a), "/bq-a-w%u", k);
	snprintf(cg_b, sizeof(cg_b), "/bq-b-w%u", k);
	workload_start(&w);
	snprintf(pol, sizeof(pol),
		 "[policy]\ncgroup = %s\nengine = vaddr\nmin_age = %us\nmax_access_rate = 0%%\n"
		 "memory = anon\nquota = 1G/1s\n",
		 cg_a, age_s);
	put_watch_conf(fixed, false, pol);
	d = daemon_start();
	for (unsigned t = 1; d > 0 && t <= secs; t++) {
		vm_sleep_ms(1000);
		sample(&w, &sm);
		if (t95 < 0 && sm.cold_pct >= 95)
			t95 = t;
	}
	if (d > 0) {
		vm_daemon_stop(d);
		vm_show_log("/tmp/bench-pageoutd.log", 6);
	}
	printf("BENCH,watch_speed,%s,%u,%s,%.2f,%.2f,%.0f,%.2f\n", name, age_s,
	       fixed ? "fixed" : "derived", sm.cold_pct, sm.hot_refault_pct, t95,
	       t95 > 0 ? t95 / age_s : -1);
	workload_stop(&w);
}

static int watch(int argc, char **argv)
{
	static const unsigned ages[] = { 3, 30, 120 };

	mkdir(state_dir, 0700);
	printf("BENCH,watch_head,procs,engine,min_age_s,intervals,pageoutd_ms_per_cycle,"
	       "kdamond_ms_per_cycle,total_ms_per_cycle,total_pct_of_one,sample_us,aggr_us\n");
	printf("BENCH,watch_speed_head,run,min_age_s,intervals,cold_pct,hot_refault_pct,t95_s,"
	       "t95_in_min_age\n");
	for (int i = 0; i < argc; i++) {
		unsigned n = (unsigned)atoi(argv[i]);
		pid_t *pids = calloc(n, sizeof(*pids));

		vm_cg_make("/bq-s");
		for (unsigned k = 0; k < n; k++)
			pids[k] = child_fork(small_setup, small_run, NULL);
		for (unsigned a = 0; a < sizeof(ages) / sizeof(ages[0]); a++)
			for (int fixed = 1; fixed >= 0; fixed--)
				watch_cost(n, "vaddr", ages[a], fixed);
		/* the shipped paddr example (machines.conf): min_age 2m */
		if (n == 100)
			for (int fixed = 1; fixed >= 0; fixed--)
				watch_cost(n, "paddr", 120, fixed);
		for (unsigned k = 0; k < n; k++)
			vm_reap(pids[k]);
		free(pids);
		vm_sleep_ms(300);
		vm_cg_remove("/bq-s");
	}
	for (int fixed = 1; fixed >= 0; fixed--)
		watch_speed(30, fixed, (unsigned)fixed);
	return 0;
}

/* --- the Android-like lifecycle --- */

/* DAMOS vaddr pageout over every app alive, re-committed as apps come and go */
static struct run android_damos;

static void android_damos_targets(void)
{
	static struct damon_target t[LC_NSLOT];
	struct damon_scheme sc;
	struct damon_ctx c;
	unsigned n = 0;

	memset(&sc, 0, sizeof(sc));
	for (unsigned i = 0; i < lc_napps; i++)
		if (lc_apps[i].st != LC_GONE) {
			memset(&t[n], 0, sizeof(t[n]));
			t[n++].pid = lc_apps[i].pid;
		}
	if (!android_damos.damon_on) {
		if (damos_start(&android_damos, "vaddr", t, n, &sc) < 0)
			printf("# damos-vaddr: could not start (%s)\n", strerror(errno));
		return;
	}
	damos_ctx(&c, "vaddr", t, n, &sc);
	if (damon_write_ctx(&android_damos.d, 0, &c) < 0 || damon_commit(&android_damos.d, 0) < 0)
		printf("# damos-vaddr: commit of %u targets failed\n", n);
}

static uint64_t zram_field(unsigned i)
{
	char buf[256];
	unsigned long long v[3] = { 0 };

	if (read_file_at(AT_FDCWD, "/sys/block/zram0/mm_stat", buf, sizeof(buf)) < 0 ||
	    sscanf(buf, "%llu %llu %llu", &v[0], &v[1], &v[2]) != 3)
		return 0;
	return v[i];
}

static int android(unsigned nstep)
{
	long hz = sysconf(_SC_CLK_TCK);
	char sock[128], kp[32];
	uint64_t disk = 0;

	mkdir(state_dir, 0700);
	snprintf(sock, sizeof(sock), "%s/sock", state_dir);
	read_u64_at(AT_FDCWD, "/sys/block/zram0/disksize", &disk);
	printf("BENCH,android_head,method,apps,thaws,freezes,cold_out_pct,t90_mean_s,t90_worst_s,"
	       "t90_within_%ds,taken_running_kb,thaw_majflt_2s,zram_orig_kb,zram_compr_kb,"
	       "zram_used_kb,zram_disksize_kb,daemon_cpu_ms_per_cycle,kdamond_cpu_ms_per_s\n",
	       LC_BOUND_S);
	for (unsigned m = 0; m < 2; m++) {
		const char *name = m == 0 ? "pageoutd" : "damos-vaddr";
		uint64_t c0, k1 = 0, cycles = 0, t0 = 0, t1;
		pid_t d = -1, kpid = 0;
		double cpu = -1;

		lc_reset();
		if (m == 0) {
			/* the shipped policy, as a device installs it, and 5 s cycles as shipped */
			char buf[256], p[256];

			put_conf("");
			snprintf(buf, sizeof(buf),
				 "[daemon]\ninterval = 5s\nstate_dir = %s\nsocket = %s\n",
				 state_dir, sock);
			snprintf(p, sizeof(p), "%s/pageoutd.conf", conf_dir);
			vm_put(p, buf);
			if (system("cp cached-apps.conf /tmp/bench-conf/conf.d/bench.conf") != 0)
				printf("# cached-apps.conf missing from the guest\n");
			d = daemon_start();
			lc_changed = NULL;
		} else {
			/* the kernel's own vaddr pageout with cached-apps.conf's min_age (10 s) */
			memset(&android_damos, 0, sizeof(android_damos));
			damos_age_s = 10;
			lc_changed = android_damos_targets;
		}
		c0 = d > 0 ? cpu_ticks(d) : 0;
		t0 = lc_now_ms();
		lc_run(nstep, NULL);
		t1 = lc_now_ms();
		if (read_file_at(AT_FDCWD, VM_ADMIN "/kdamonds/0/pid", kp, sizeof(kp)) > 0)
			kpid = atoi(kp);
		if (d > 0) {
			cycles = stats_value(sock, "cycles");
			cpu = cycles ? (double)(cpu_ticks(d) - c0) * 1000.0 / (double)hz /
					       (double)cycles
				     : -1;
		}
		k1 = kpid > 0 ? cpu_ticks(kpid) : 0;
		printf("BENCH,android,%s,%u,%u,%u,%.1f,%.1f,%.1f,%u/%u,%ld,%.0f,%" PRIu64
		       ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.1f,%.1f\n",
		       name, lc_napps, lc.thaws, lc.freezes_ended,
		       lc.freezes_ended ? 100.0 * (double)lc.cold_out_kb_sum /
						  (double)lc.freezes_ended / (LC_COLD_SZ / 1024)
					: 0.0,
		       lc.reclaimed_ok ? (double)lc.reclaim_ms_sum / lc.reclaimed_ok / 1000 : -1.0,
		       (double)lc.worst_reclaim_ms / 1000, lc.reclaimed_ok, lc.judged,
		       lc.taken_hw_kb + lc.taken_cold_kb,
		       lc.thaw_faults_n ? (double)lc.thaw_faults_sum / (double)lc.thaw_faults_n
					: -1,
		       zram_field(0) / 1024, zram_field(1) / 1024, zram_field(2) / 1024,
		       disk / 1024, cpu,
		       (double)k1 * 1000.0 / (double)hz / ((double)(t1 - t0) / 1000));
		if (d > 0) {
			vm_daemon_stop(d);
			vm_show_log("/tmp/bench-pageoutd.log", 6);
		}
		if (android_damos.damon_on) {
			damon_release(&android_damos.d);
			damon_close(&android_damos.d);
			android_damos.damon_on = false;
		}
		lc_end();
		vm_sleep_ms(2000);
	}
	return 0;
}

int main(int argc, char **argv)
{
	char en[8] = "";

	vm_require_guest();
	/* 7.2 boots with damon_stat on, which holds DAMON; an operator turns it off */
	if (read_file_at(AT_FDCWD, "/sys/module/damon_stat/parameters/enabled", en, sizeof(en)) >
		    0 &&
	    en[0] == 'Y')
		write_file_at(AT_FDCWD, "/sys/module/damon_stat/parameters/enabled", "N");
	setvbuf(stdout, NULL, _IOLBF, 0);
	log_setup(LOG_TARGET_STDERR, LOG_WARNING);
	if (argc >= 3 && !strcmp(argv[1], "quality"))
		return quality((unsigned)atoi(argv[2]), argc - 3, argv + 3);
	if (argc >= 2 && !strcmp(argv[1], "apply"))
		return apply();
	if (argc >= 3 && !strcmp(argv[1], "warm"))
		return warm((unsigned)atoi(argv[2]));
	if (argc >= 3 && !strcmp(argv[1], "scale"))
		return scale(argc - 2, argv + 2);
	if (argc >= 3 && !strcmp(argv[1], "watch"))
		return watch(argc - 2, argv + 2);
	if (argc >= 3 && !strcmp(argv[1], "android")) {
		if (lc_init() < 0)
			return 1;
		return android((unsigned)atoi(argv[2]));
	}
	fprintf(stderr, "usage: bench quality SECONDS | apply | scale N... | watch N... | android "
			"STEPS | warm SECONDS\n");
	return 2;
}
