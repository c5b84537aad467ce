// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The damon layer against the guest's real DAMON sysfs: features, the EBUSY of a module that
 * holds DAMON, exact per-target attribution of tried regions with overlapping address ranges,
 * targets that exit, foreign kdamonds left alone, recovery after kill -9, and the two pageout
 * semantics: process_madvise(MADV_PAGEOUT) ignores references (6.9+), DAMOS paddr pageout
 * re-checks them. Guest only.
 */
#include <config.h>

#include "pageoutd/damon.h"
#include "pageoutd/log.h"
#include "vmtest.h"
#include "../../lib/damonctx.h"
#include "../../lib/tap.h"

static char logbuf[65536];

static void capture(int prio, const char *msg)
{
	size_t n = strlen(logbuf);

	(void)prio;
	snprintf(logbuf + n, sizeof(logbuf) - n, "%s\n", msg);
}

static char state_dir[] = "/run/pageoutd-vmtest";

#define A0 0x7e0000000000ULL
#define A1 (A0 + 66 * MIB) /* a 2 MiB hole between the two areas */
#define U(k) (A0 + (200 + 32 * (uint64_t)(k)) * MIB)

/* size-weighted mean nr_accesses of the part of the regions inside [lo, hi) */
static double mean_access(const struct damon_scheme_regions *r, uint64_t lo, uint64_t hi,
			  uint64_t *covered)
{
	double sum = 0;

	*covered = 0;
	for (unsigned i = 0; i < r->nr; i++) {
		uint64_t s = r->regions[i].start > lo ? r->regions[i].start : lo;
		uint64_t e = r->regions[i].end < hi ? r->regions[i].end : hi;

		if (s < e) {
			sum += (double)(e - s) * r->regions[i].nr_accesses;
			*covered += e - s;
		}
	}
	return *covered ? sum / (double)*covered : -1;
}

#define VM_DAMON_CHECKS 54

/*
 * first_map_above: the lowest start of a mapping of pid at or above addr (its shared libraries
 * and stack, above the test's areas), UINT64_MAX when none or unreadable. Where they lie
 * depends on ASLR: the mmap base moves by up to a TiB, below 0x7f0000000000 at times.
 */
static uint64_t first_map_above(pid_t pid, uint64_t addr)
{
	char p[64], line[512];
	uint64_t low = UINT64_MAX;
	FILE *f;

	snprintf(p, sizeof(p), "/proc/%d/maps", (int)pid);
	f = fopen(p, "re");
	if (!f)
		return low;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s;

		if (sscanf(line, "%llx-", &s) == 1 && s >= addr && s < low)
			low = s;
	}
	fclose(f);
	return low;
}

static void damon_stat_busy(struct damon *d, struct damon_ctx *c)
{
	const char *en = "/sys/module/damon_stat/parameters/enabled";
	char v[8] = "";

	if (read_file_at(AT_FDCWD, en, v, sizeof(v)) < 0 || v[0] != 'Y') {
		static const char *const names[] = {
			"context written while damon_stat runs",
			"damon_stat holds DAMON: state=on is EBUSY",
			"the error names damon_stat and how to release it",
			"(operator) damon_stat disabled",
		};

		skip_each(names, ARRAY_SIZE(names),
			  "damon_stat is not enabled on this kernel (7.x enables it): no exclusive "
			  "holder of DAMON to test");
		return;
	}
	is_int(damon_write_ctx(d, DAMON_SLOT_VADDR, c), 0, "context written while damon_stat runs");
	is_int(damon_start(d, DAMON_SLOT_VADDR), -EBUSY,
	       "damon_stat holds DAMON: state=on is EBUSY");
	ok(strstr(d->err, "kernel module damon_stat") && strstr(d->err, "damon_stat.enabled=N"),
	   "the error names damon_stat and how to release it");
	/* the operator's fix, done by the test: pageoutd itself never changes it */
	ok(write_file_at(AT_FDCWD, en, "N") == 0, "(operator) damon_stat disabled");
}

static void attribution(struct damon *d)
{
	/* two areas at the same addresses in all three, and one area only process k has */
	const struct vm_area lay[3][3] = {
		{ { A0, 64 * MIB, true }, { A1, 64 * MIB, false }, { U(0), 16 * MIB, false } },
		{ { A0, 64 * MIB, false }, { A1, 64 * MIB, true }, { U(1), 16 * MIB, false } },
		{ { A0, 64 * MIB, false }, { A1, 64 * MIB, false }, { U(2), 16 * MIB, false } },
	};
	struct damon_target t[3];
	struct damon_scheme s[3];
	struct damon_ctx c;
	struct damon_snapshot snap;
	pid_t pids[3];
	int bad = 0, r;

	for (unsigned i = 0; i < 3; i++)
		pids[i] = vm_spawn(lay[i], 3, NULL);
	ok(pids[0] > 0 && pids[1] > 0 && pids[2] > 0,
	   "3 processes with two 64 MiB areas at the same addresses, one 16 MiB area each of its "
	   "own");
	test_vaddr_ctx(&c, t, s, pids, 3);
	damon_stat_busy(d, &c);
	is_int(damon_write_ctx(d, DAMON_SLOT_VADDR, &c), 0, "vaddr context: 3 targets, 3 schemes");
	is_int(damon_start(d, DAMON_SLOT_VADDR), 0, "vaddr kdamond on");
	ok(d->kpid[DAMON_SLOT_VADDR] > 0, "its kernel thread pid is recorded (%d)",
	   d->kpid[DAMON_SLOT_VADDR]);
	vm_sleep_ms(4000);
	r = damon_snapshot(d, DAMON_SLOT_VADDR, &snap);
	/* 6.12 sometimes answers an update of tried regions with none at all: ask again */
	for (unsigned n = 0; n < 3 && r == 0 && snap.nr_schemes == 3 &&
			     !(snap.schemes[0].nr + snap.schemes[1].nr + snap.schemes[2].nr);
	     n++) {
		printf("# snapshot %u came back empty: asking again\n", n);
		damon_snapshot_fini(&snap);
		vm_sleep_ms(1000);
		r = damon_snapshot(d, DAMON_SLOT_VADDR, &snap);
	}
	is_int(r, 0, "snapshot");
	if (r == 0) {
		printf("# snapshot: 3 targets, %u+%u+%u regions, %lu file operations, %" PRIu64
		       " us\n",
		       snap.schemes[0].nr, snap.schemes[1].nr, snap.schemes[2].nr, snap.syscalls,
		       snap.cost_us);
		for (unsigned k = 0; k < 3; k++) {
			uint64_t c0, c1, cu, top = 0,
					     libs = first_map_above(pids[k], U(k) + 16 * MIB);
			double m0 = mean_access(&snap.schemes[k], A0, A0 + 64 * MIB, &c0);
			double m1 = mean_access(&snap.schemes[k], A1, A1 + 64 * MIB, &c1);

			mean_access(&snap.schemes[k], U(k), U(k) + 16 * MIB, &cu);
			/* DAMON monitors ranges, holes included, up to the next big gap: the
			 * highest end at or below the process's next mapping (its shared libraries,
			 * wherever ASLR put them) is the top of target k's own area */
			for (unsigned i = 0; i < snap.schemes[k].nr; i++)
				if (snap.schemes[k].regions[i].end <= libs &&
				    snap.schemes[k].regions[i].end > top)
					top = snap.schemes[k].regions[i].end;
			/*
			 * Access counts are printed, not asserted: under TCG a hot loop's stores
			 * hit the emulator's TLB, which does not set the PTE accessed bit again
			 * after DAMON cleared it, so hot memory can look cold in the guest.
			 */
			printf("# scheme %u (pid %d): area0 %.1f, area1 %.1f mean nr_accesses; own "
			       "area %" PRIu64 " MiB covered, top 0x%" PRIx64 " (own area ends at "
			       "0x%" PRIx64 ")\n",
			       k, pids[k], m0, m1, (uint64_t)(cu / MIB), top,
			       (uint64_t)(U(k) + 16 * MIB));
			if (c0 != 64 * MIB || c1 != 64 * MIB || cu != 16 * MIB ||
			    top != U(k) + 16 * MIB)
				bad++;
		}
		is_int(bad, 0,
		       "scheme k's regions are exactly target k's: shared areas once, and "
		       "they end where target k's own area ends");
		damon_snapshot_fini(&snap);
	}
	/* a target exits: the others are still monitored */
	vm_reap(pids[2]);
	vm_sleep_ms(1500);
	is_int(damon_running(d, DAMON_SLOT_VADDR), 1, "a target exited: the kdamond runs on");
	/*
	 * 6.12 often answers the first one or two updates after a target exited with no tried
	 * regions at all, for every scheme (7.2 does not); pageoutd's engine then waits a cycle
	 * with nothing confirmed. Allow a few.
	 */
	for (int tries = 0; tries < 5; tries++) {
		r = damon_snapshot(d, DAMON_SLOT_VADDR, &snap);
		if (r < 0 || (snap.schemes[0].nr > 0 && snap.schemes[1].nr > 0) || tries == 4)
			break;
		printf("# snapshot %d after a target exited came back empty (%u, %u)\n", tries + 1,
		       snap.schemes[0].nr, snap.schemes[1].nr);
		damon_snapshot_fini(&snap);
		vm_sleep_ms(500);
	}
	is_int(r, 0, "snapshot after a target exited");
	if (r == 0) {
		ok(snap.schemes[0].nr > 0 && snap.schemes[1].nr > 0,
		   "live targets still have regions (%u, %u; exited: %u)", snap.schemes[0].nr,
		   snap.schemes[1].nr, snap.schemes[2].nr);
		damon_snapshot_fini(&snap);
	}
	vm_reap(pids[0]);
	vm_reap(pids[1]);
	for (int i = 0; i < 50 && damon_running(d, DAMON_SLOT_VADDR) == 1; i++)
		vm_sleep_ms(100);
	is_int(damon_running(d, DAMON_SLOT_VADDR), 0, "every target exited: the kernel stopped it");
	r = damon_snapshot(d, DAMON_SLOT_VADDR, &snap);
	ok(r == -EINVAL || r == -ECANCELED, "a snapshot of a stopped kdamond fails cleanly (%s)",
	   strerror(-r));
	is_int(damon_stop(d, DAMON_SLOT_VADDR), 0, "stopping an already stopped kdamond is fine");
}

/* Many targets: the cost of a snapshot (file operations and time) per target and region. */
static void snapshot_cost(struct damon *d)
{
	enum { N = 8 };
	const struct vm_area lay[1] = { { A0, 16 * MIB, false } };
	struct damon_target t[N];
	struct damon_scheme s[N];
	struct damon_ctx c;
	struct damon_snapshot snap;
	pid_t pids[N];
	unsigned regions = 0;
	int r;

	for (unsigned i = 0; i < N; i++)
		pids[i] = vm_spawn(lay, 1, NULL);
	test_vaddr_ctx(&c, t, s, pids, N);
	r = damon_write_ctx(d, DAMON_SLOT_VADDR, &c) ?: damon_start(d, DAMON_SLOT_VADDR);
	is_int(r, 0, "%d targets started", N);
	vm_sleep_ms(2500);
	r = damon_snapshot(d, DAMON_SLOT_VADDR, &snap);
	is_int(r, 0, "snapshot of %d targets", N);
	if (r == 0) {
		for (unsigned k = 0; k < snap.nr_schemes; k++)
			regions += snap.schemes[k].nr;
		printf("# snapshot cost: %d targets, %u regions: %lu file operations (%.1f per "
		       "region), %" PRIu64 " us\n",
		       N, regions, snap.syscalls, (double)snap.syscalls / (regions ? regions : 1),
		       snap.cost_us);
		ok(snap.nr_schemes == N && regions >= N, "every target has regions");
		damon_snapshot_fini(&snap);
	}
	/* online change: a narrower pattern, written and committed while it runs */
	for (unsigned i = 0; i < N; i++)
		s[i].pattern.age_min = 5;
	r = damon_write_ctx(d, DAMON_SLOT_VADDR, &c) ?: damon_commit(d, DAMON_SLOT_VADDR);
	is_int(r, 0, "a changed context committed online");
	{
		char v[32] = "";

		read_file_at(AT_FDCWD,
			     VM_ADMIN "/kdamonds/0/contexts/0/schemes/3/access_pattern/age/min", v,
			     sizeof(v));
		ok(damon_running(d, DAMON_SLOT_VADDR) == 1 && !strcmp(str_strip(v), "5"),
		   "it keeps running with the new pattern (age min %s)", v);
	}
	damon_stop(d, DAMON_SLOT_VADDR);
	for (unsigned i = 0; i < N; i++)
		vm_reap(pids[i]);
}

/* Another tool's kdamond, running or idle: refused by name, never touched. */
static void foreign(void)
{
	const char *k = VM_ADMIN "/kdamonds/0";
	char before[64] = "", after[64] = "", ops[32] = "";
	struct damon d;
	uint64_t s, e;
	char v[64];

	ok(write_file_at(AT_FDCWD, VM_ADMIN "/kdamonds/nr_kdamonds", "1") == 0 &&
		   write_file_at(AT_FDCWD, VM_ADMIN "/kdamonds/0/contexts/nr_contexts", "1") == 0 &&
		   write_file_at(AT_FDCWD, VM_ADMIN "/kdamonds/0/contexts/0/operations", "paddr") ==
			   0 &&
		   write_file_at(AT_FDCWD, VM_ADMIN "/kdamonds/0/contexts/0/targets/nr_targets",
				 "1") == 0 &&
		   vm_system_ram(&s, &e) == 0,
	   "(another tool) one paddr kdamond");
	write_file_at(AT_FDCWD, VM_ADMIN "/kdamonds/0/contexts/0/targets/0/regions/nr_regions",
		      "1");
	snprintf(v, sizeof(v), "%" PRIu64, s);
	write_file_at(AT_FDCWD, VM_ADMIN "/kdamonds/0/contexts/0/targets/0/regions/0/start", v);
	snprintf(v, sizeof(v), "%" PRIu64, e);
	write_file_at(AT_FDCWD, VM_ADMIN "/kdamonds/0/contexts/0/targets/0/regions/0/end", v);
	for (int running = 1; running >= 0; running--) {
		snprintf(v, sizeof(v), "%s/state", k);
		write_file_at(AT_FDCWD, v, running ? "on" : "off");
		snprintf(v, sizeof(v), "%s/pid", k);
		read_file_at(AT_FDCWD, v, before, sizeof(before));
		logbuf[0] = '\0';
		ok(damon_open(&d, VM_ADMIN, state_dir, NULL) == 0 && damon_acquire(&d) == -EBUSY,
		   "a foreign %s kdamond: acquire refused with EBUSY",
		   running ? "running" : "idle");
		ok(strstr(d.err, "kdamond 0") && strstr(d.err, "paddr") &&
			   (!running || strstr(d.err, str_strip(before))),
		   "the error names its index, operations and pid");
		read_file_at(AT_FDCWD, v, after, sizeof(after));
		read_file_at(AT_FDCWD, VM_ADMIN "/kdamonds/0/contexts/0/operations", ops,
			     sizeof(ops));
		snprintf(v, sizeof(v), "%s/state", k);
		{
			char st[16] = "", nr[16] = "";

			read_file_at(AT_FDCWD, v, st, sizeof(st));
			read_file_at(AT_FDCWD, VM_ADMIN "/kdamonds/nr_kdamonds", nr, sizeof(nr));
			ok(!strcmp(str_strip(st), running ? "on" : "off") &&
				   !strcmp(str_strip(nr), "1") &&
				   !strcmp(str_strip(ops), "paddr") &&
				   !strcmp(str_strip(before), str_strip(after)),
			   "it is left as it was (state %s, nr_kdamonds %s, pid %s)", st, nr,
			   after);
		}
		damon_close(&d);
	}
	write_file_at(AT_FDCWD, VM_ADMIN "/kdamonds/nr_kdamonds", "0");
}

/* A pageoutd killed with -9 leaves its kdamond on; the next one recognises and reuses it. */
static void crash_recovery(void)
{
	const struct vm_area lay[1] = { { A0, 8 * MIB, false } };
	pid_t w = vm_spawn(lay, 1, NULL), p;
	struct damon d;
	char st[16] = "";
	int status = 0;

	p = fork();
	if (p == 0) {
		struct damon_target t[1];
		struct damon_scheme s[1];
		struct damon_ctx c;
		struct damon dd;

		test_vaddr_ctx(&c, t, s, &w, 1);
		if (damon_open(&dd, VM_ADMIN, state_dir, NULL) || damon_acquire(&dd) ||
		    damon_write_ctx(&dd, DAMON_SLOT_VADDR, &c) ||
		    damon_start(&dd, DAMON_SLOT_VADDR))
			_exit(1);
		raise(SIGKILL);
		_exit(2);
	}
	waitpid(p, &status, 0);
	ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "a pageoutd-like owner killed -9");
	read_file_at(AT_FDCWD, VM_ADMIN "/kdamonds/0/state", st, sizeof(st));
	is_str(str_strip(st), "on", "its kdamond is still on");
	logbuf[0] = '\0';
	is_int(damon_open(&d, VM_ADMIN, state_dir, NULL) ?: damon_acquire(&d), 0,
	       "the next start acquires");
	ok(strstr(logbuf, "recover") != NULL, "and says it recovers its own kdamonds");
	is_int(damon_running(&d, DAMON_SLOT_VADDR), 0, "the leftover kdamond was turned off");
	is_int(damon_release(&d), 0, "release");
	damon_close(&d);
	vm_reap(w);
}

static long swap_kb(pid_t p)
{
	return vm_status_kb(p, "VmSwap");
}

/*
 * vaddr semantics: process_madvise(MADV_PAGEOUT) on an area its process reads continuously.
 * Since 6.9 the kernel ignores references: the hot pages are paged out and fault back in.
 */
static void madvise_ignores_references(void)
{
	const struct vm_area lay[1] = { { A0, 32 * MIB, true } };
	pid_t w = vm_spawn(lay, 1, NULL);
	long n, f;

	vm_sleep_ms(500);
	f = vm_pageout_faults(w, A0, 32 * MIB, 10000, &n);
	is_int(n, 32 * MIB, "process_madvise(MADV_PAGEOUT) on a hot 32 MiB area: all accepted");
	printf("# hot area paged out by process_madvise: %ld major faults (%.0f%% of its pages) "
	       "after the call\n",
	       f, 100.0 * (double)f / (32 * MIB / 4096));
	if (vm_swap_sync())
		ok(f >= (long)(32 * MIB / 4096) / 2,
		   "references ignored: most hot pages were paged out and faulted back");
	else
		skip("references ignored: most hot pages were paged out and faulted back",
		     VM_SWAP_ASYNC);
	vm_reap(w);
}

/*
 * paddr semantics: a DAMOS pageout scheme on physical memory, filtered to one memcg, with an
 * access pattern that matches everything: the kernel re-checks references, so the cgroup's hot
 * pages stay while its cold ones go, and another cgroup is not touched.
 */
static void paddr_rechecks(struct damon *d)
{
	const struct vm_area cold[1] = { { A0, 64 * MIB, false } };
	const struct vm_area hot[1] = { { A1, 16 * MIB, true } };
	struct damon_target t = { 0 };
	struct damon_scheme s;
	struct damon_ctx c;
	pid_t pc, ph, po;
	long sc = 0, sh = 0, so = 0, fh0, fh1;
	int r;

	vm_cg_make("/vmt-cold");
	vm_cg_make("/vmt-other");
	pc = vm_spawn(cold, 1, "/vmt-cold");
	ph = vm_spawn(hot, 1, "/vmt-cold");
	po = vm_spawn(cold, 1, "/vmt-other");
	ok(pc > 0 && ph > 0 && po > 0,
	   "a cold and a hot process in vmt-cold, a cold one elsewhere");
	memset(&c, 0, sizeof(c));
	memset(&s, 0, sizeof(s));
	str_copy(c.ops, sizeof(c.ops), "paddr");
	c.sample_us = 5000;
	c.aggr_us = 100000;
	c.update_us = 1000000;
	c.min_regions = 10;
	c.max_regions = 1000;
	t.nr_regions = 1;
	vm_system_ram(&t.regions[0].start, &t.regions[0].end);
	c.nr_targets = 1;
	c.targets = &t;
	str_copy(s.action, sizeof(s.action), "pageout");
	damon_pattern_all(&s.pattern);
	s.pattern.sz_min = 4096;
	s.apply_interval_us = 1000000;
	s.nr_filters = 1;
	s.filters[0].type = DAMON_FILTER_MEMCG;
	str_copy(s.filters[0].memcg_path, sizeof(s.filters[0].memcg_path), "/vmt-cold");
	c.nr_schemes = 1;
	c.schemes = &s;
	r = damon_write_ctx(d, DAMON_SLOT_PADDR, &c);
	is_int(r, 0, "paddr context: pageout of every region, memcg filter /vmt-cold");
	r = r ?: damon_start(d, DAMON_SLOT_PADDR);
	is_int(r, 0, "paddr kdamond on");
	if (d->feat.refresh_ms)
		is_int(damon_set_refresh(d, DAMON_SLOT_PADDR, 200), 0,
		       "refresh_ms (6.17+): the kernel refreshes the stats every 200 ms");
	else
		skip("refresh_ms: the kernel refreshes the stats every 200 ms",
		     "no refresh_ms before Linux 6.17");
	fh0 = vm_majflt(ph);
	/* DAMON paddr pageout takes a few seconds alone, much longer on a loaded host */
	for (int i = 0; i < 120 && r == 0; i++) {
		vm_sleep_ms(500);
		sc = swap_kb(pc);
		if (sc >= 64 * 1024 * 9 / 10 && i >= 10)
			break;
	}
	sh = swap_kb(ph);
	so = swap_kb(po);
	fh1 = vm_majflt(ph);
	printf("# paddr pageout: cold %ld kB swapped of 65536, hot %ld kB of 16384 (%ld major "
	       "faults), other cgroup %ld kB\n",
	       sc, sh, fh1 - fh0, so);
	ok(sc >= 64 * 1024 * 9 / 10, "the cgroup's cold memory was paged out");
	ok(fh1 - fh0 < (long)(16 * MIB / 4096) / 10,
	   "references re-checked: under 10%% of the hot pages came back by major fault");
	is_int(so, 0, "the other cgroup was not touched");
	{
		struct damon_stats st = { 0 };
		unsigned long io = d->nr_io;

		vm_sleep_ms(400);
		r = damon_update_stats(d, DAMON_SLOT_PADDR);
		io = d->nr_io - io;
		r = r ?: damon_read_stats(d, DAMON_SLOT_PADDR, 0, &st);
		printf("# paddr stats: nr_tried %" PRIu64 " sz_applied %" PRIu64
		       " sz_ops_filter_passed %" PRId64 " (%lu state commands)\n",
		       st.nr_tried, st.sz_applied, (int64_t)st.sz_ops_filter_passed, io);
		if (vm_swap_sync())
			ok(r == 0 && st.sz_applied >= (uint64_t)sc * 1024 / 2,
			   "the stats show what was paged out (%s)",
			   d->feat.refresh_ms ? "refreshed by the kernel"
					      : "after update_schemes_stats");
		else
			skip("the stats show what was paged out",
			     "the swap is a bare disk (no zram, no zswap): DAMOS counts a page "
			     "as applied when it is freed, after its write");
		if (d->feat.refresh_ms)
			is_int((int)io, 0, "with refresh_ms no state command was written for them");
		else
			skip("with refresh_ms no state command was written for them",
			     "no refresh_ms before Linux 6.17");
	}
	is_int(damon_stop(d, DAMON_SLOT_PADDR), 0, "paddr kdamond off");
	vm_reap(pc);
	vm_reap(ph);
	vm_reap(po);
	vm_cg_remove("/vmt-cold");
	vm_cg_remove("/vmt-other");
}

int main(void)
{
	struct damon d;
	char nr[16] = "";

	vm_require_guest();
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* every check on every kernel: a branch that does not apply reports its checks as SKIPs */
	tap_plan(VM_DAMON_CHECKS);
	log_setup(LOG_TARGET_STDERR, LOG_WARNING);
	log_set_capture(capture);
	mkdir(state_dir, 0700);
	read_file_at(AT_FDCWD, VM_ADMIN "/kdamonds/nr_kdamonds", nr, sizeof(nr));
	if (strcmp(str_strip(nr), "0")) {
		printf("Bail out! this guest already has kdamonds (%s)\n", nr);
		return 1;
	}
	is_int(damon_open(&d, VM_ADMIN, state_dir, NULL), 0, "open the real DAMON sysfs");
	is_int(damon_acquire(&d), 0, "acquire on an empty tree");
	ok(d.feat.ops_vaddr && d.feat.ops_paddr && d.feat.filter_target,
	   "features: vaddr, paddr, target filters");
	printf("# filters: %s\n", d.feat.core_filters ? "core_filters/ops_filters" : "filters/");
	{
		char feats[512];

		/* one line the kernel matrix (tests/vm/matrix.sh) reads */
		printf("# damon features: %s\n", damon_features_str(&d.feat, feats, sizeof(feats)));
	}
	attribution(&d);
	snapshot_cost(&d);
	madvise_ignores_references();
	paddr_rechecks(&d);
	is_int(damon_release(&d), 0, "release");
	ok(access("/run/pageoutd-vmtest/damon.state", F_OK) < 0, "ownership record removed");
	{
		char nr0[16] = "";

		read_file_at(AT_FDCWD, VM_ADMIN "/kdamonds/nr_kdamonds", nr0, sizeof(nr0));
		is_str(str_strip(nr0), "0", "the kdamonds are given back: nr_kdamonds 0");
	}
	is_int(damon_acquire(&d), 0, "a restart acquires again");
	is_int(damon_release(&d), 0, "and releases");
	damon_close(&d);
	foreign();
	crash_recovery();
	tap_done();
	return tap_failed ? 1 : 0;
}
