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
 * Guest only.
 */
#include <config.h>

#include <sys/wait.h>

#include "pageoutd/cgroup.h"
#include "pageoutd/config.h"
#include "pageoutd/damon.h"
#include "pageoutd/log.h"
#include "pageoutd/vaddr.h"
#include "vmtest.h"
#include "../../lib/tap.h"

#define B0 0x7e0000000000ULL
#define COLD(k) (B0 + (uint64_t)(k)*128 * MIB)
#define HOT(k) (COLD(k) + 64 * MIB) /* a hole between the two */
#define NAPP 3

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

#define FLIP (B0 + 2048 * MIB)

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
	ok(f2 >= (long)(16 * MIB / 4096) / 2,
	   "and the kernel paged the hot area out: it faulted back");
	vaddr_free(v);
	damon_release(&d);
	damon_close(&d);
	cfg_free(cfg);
	vm_reap(w);
	vm_cg_remove("/vmt-flip");
}

int main(void)
{
	vm_require_guest();
	setvbuf(stdout, NULL, _IOLBF, 0);
	mkdir("/run/pageoutd", 0755);
	log_setup(LOG_TARGET_STDERR, LOG_WARNING);
	reclaim();
	turned_hot();
	vm_cg_remove("/vmt-app");
	vm_cg_remove("/vmt-other");
	tap_done();
	return tap_failed ? 1 : 0;
}
