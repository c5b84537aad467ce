// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pscheme: the System RAM ranges of /proc/iomem, the paddr kdamond's aggregation interval, the
 * DAMOS scheme a policy becomes for one cgroup (pattern, quotas split over the policy's
 * cgroups, weights, the PSI goal, watermarks, memcg and anon filters) on the 6.4, 6.12 and 7.2
 * features, and the byte quota's walk scale. No DAMON tree, no cgroup.
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pageoutd/config.h"
#include "pageoutd/damon.h"
#include "pageoutd/log.h"
#include "pageoutd/pscheme.h"
#include "pageoutd/util.h"
#include "../lib/cfgtext.h"
#include "../lib/tap.h"

#define MIB (1024ull * 1024)

static void ram_ranges(void)
{
	static const char iomem[] = "00000000-00000fff : Reserved\n"
				    "00001000-0009fbff : System RAM\n"
				    "000a0000-000fffff : Reserved\n"
				    "00100000-bffdffff : System RAM\n"
				    "  01000000-01ffffff : Kernel code\n"
				    "  02000000-0220ffff : System RAM\n"
				    "fee00000-fee00fff : Local APIC\n"
				    "100000000-23fffffff : System RAM\n";
	static const char zeros[] = "00000000-00000000 : System RAM\n"
				    "00000000-00000000 : System RAM\n";
	struct damon_range r[2];
	int n;

	n = pscheme_ram_ranges(iomem, r, 2);
	is_int(n, 2, "iomem: the two largest top-level System RAM ranges");
	is_u64(r[0].start, 0x100000, "first range starts at 1 MiB (address order)");
	is_u64(r[0].end, 0xbffe0000, "its end is exclusive");
	is_u64(r[1].start, 0x100000000ull, "second range above 4 GiB");
	is_u64(r[1].end, 0x240000000ull, "second range end");
	n = pscheme_ram_ranges(iomem, r, 1);
	ok(n == 1 && r[0].start == 0x100000000ull, "with room for one: the largest");
	is_int(pscheme_ram_ranges(zeros, r, 2), 0,
	       "addresses hidden (no CAP_SYS_ADMIN): 0 ranges, not a bogus range");
	is_int(pscheme_ram_ranges("garbage\n", r, 2), -EINVAL, "no System RAM at all: EINVAL");
	is_int(pscheme_ram_ranges("", r, 2), -EINVAL, "empty: EINVAL");
}

static void build(void)
{
	struct cfg *cfg = cfgtext_paddr_batch("min_free = 25%\nmemory = anon,file\n");
	struct damon_features f612 = { .ops_paddr = true,
				       .filters_legacy = true,
				       .filter_target = true,
				       .quota_goals = true,
				       .goal_metric = true,
				       .apply_interval = true };
	struct damon_features f72 = f612, f64 = { .ops_paddr = true, .filters_legacy = true };
	const struct cfg_policy *p;
	struct damon_scheme s;

	f72.core_filters = f72.filter_allow = f72.goal_tuner = true;
	ok(cfg && cfg->nr_policies == 1, "a paddr policy loads");
	if (!cfg)
		return;
	p = &cfg->policies[0];
	pscheme_build(p, cfg, &f612, "/batch/a", p->min_age_us, 1.0, 2, MEMORY_ANON | MEMORY_FILE,
		      false, &s);
	is_str(s.action, "pageout", "action pageout");
	is_u64(pscheme_aggr_us(cfg), 250000,
	       "the paddr kdamond aggregates over 50 samples of 5 ms (aggr_interval 100ms)");
	is_u64(s.pattern.age_min, 0,
	       "no age gate: DAMON resets the age of each region a pageout scheme walks, which "
	       "hid every idle region from the schemes after the first");
	is_u64(s.pattern.nr_accesses_max, 5, "max_access_rate 10%% of 50 samples = 5");
	is_u64(s.pattern.age_max, DAMON_U32_MAX, "no maximum age");
	is_u64(s.apply_interval_us, 30000000,
	       "walked once per min_age (30 s): the kernel's young check decides per page");
	is_u64(s.quota_bytes, 30 * 128 * MIB,
	       "quota 256M/1s split over the policy's 2 cgroups, for the 30 s between walks");
	is_u64(s.quota_reset_ms, 30000, "quota reset interval: one walk's (30 s)");
	is_u64(s.quota_ms, 300, "quota_time 20ms/1s split over 2 cgroups, for 30 s: 300 ms");
	ok(s.weight_age == 0 && s.weight_nr_accesses == 0 && s.weight_sz == 0,
	   "no weights: the quota sweeps every admitted region in turn");
	is_int(s.nr_goals, 0,
	       "6.12: no PSI goal (its only tuner starts at one byte and doubles each interval): "
	       "pageoutd scales the quota");
	ok(s.wmark_free_mem_rate && s.wmark_high == 250 && s.wmark_mid == 250 && s.wmark_low == 0 &&
		   s.wmark_interval_us == 2000000,
	   "watermarks: active below 25%% free (250 permil), checked every cycle");
	is_str(s.goal_tuner, "", "6.12: no goal tuner written");
	is_int(s.nr_filters, 1, "6.12: one filter for both kinds");
	ok(s.filters[0].type == DAMON_FILTER_MEMCG && !s.filters[0].matching &&
		   !s.filters[0].allow && !strcmp(s.filters[0].memcg_path, "/batch/a"),
	   "6.12: memcg filter excludes every other memcg");

	pscheme_build(p, cfg, &f612, "/batch/a", p->min_age_us, 1.0, 1, MEMORY_FILE, false, &s);
	ok(s.nr_filters == 2 && s.filters[1].type == DAMON_FILTER_ANON && s.filters[1].matching,
	   "6.12, anon blocked (swap reserve): an anon filter excludes anon");
	is_u64(s.quota_bytes, 30 * 256 * MIB, "one cgroup: the whole quota (for 30 s)");

	pscheme_build(p, cfg, &f72, "/batch/a", p->min_age_us * 2, 0.5, 1,
		      MEMORY_ANON | MEMORY_FILE, false, &s);
	ok(s.nr_filters == 1 && s.filters[0].type == DAMON_FILTER_MEMCG && !s.filters[0].matching &&
		   !s.filters[0].allow,
	   "7.2: the memcg filter rejects every other memcg (allow=N), so DAMON's implicit "
	   "young filter after it still decides");
	is_str(s.goal_tuner, "temporal",
	       "7.2: the temporal goal tuner (full quota below the goal)");
	ok(s.nr_goals == 1 && !strcmp(s.goals[0].metric, "some_mem_psi_us") &&
		   s.goals[0].target_value == 6000000,
	   "7.2: goal some_mem_psi_us 10%% of the 60 s reset interval = 6000000 us");
	is_u64(s.apply_interval_us, 60000000,
	       "refault back-off: doubled min_age (a walk a minute)");
	is_u64(s.quota_bytes, 60 * 128 * MIB, "refault back-off: halved quota (per second)");

	pscheme_build(p, cfg, &f72, "/batch/a", p->min_age_us, 1.0, 1, MEMORY_ANON, false, &s);
	ok(s.nr_filters == 2 && s.filters[0].type == DAMON_FILTER_MEMCG && !s.filters[0].allow &&
		   s.filters[1].type == DAMON_FILTER_ANON && !s.filters[1].matching &&
		   !s.filters[1].allow,
	   "7.2, anon only: reject other memcgs, then reject what is not anon");

	pscheme_build(p, cfg, &f72, "/batch/a", p->min_age_us, 1.0, 1, 0, false, &s);
	is_str(s.action, "stat", "nothing may go: the scheme only counts (stat)");
	pscheme_build(p, cfg, &f72, "/batch/a", p->min_age_us, 1.0, 1, MEMORY_ANON | MEMORY_FILE,
		      true, &s);
	is_str(s.action, "stat", "paused: stat");

	pscheme_build(p, cfg, &f64, "/batch/a", p->min_age_us, 1.0, 1, MEMORY_ANON | MEMORY_FILE,
		      false, &s);
	is_int(s.nr_goals, 0, "no goal metrics (before 6.9): no goal, pageoutd scales the quota");
	ok(s.pattern.age_min == 120 && s.quota_bytes == 256 * MIB && s.quota_reset_ms == 1000 &&
		   s.quota_ms == 20,
	   "no apply interval (before 6.7): every aggregation, so the age gate (120 intervals of "
	   "250 ms) and the quota per configured interval");
	cfg_free(cfg);

	cfg = cfgtext_paddr_batch("quota = none\nquota_time = 0s\n");
	ok(cfg != NULL, "a paddr policy without quota loads");
	if (!cfg)
		return;
	p = &cfg->policies[0];
	pscheme_build(p, cfg, &f612, "/batch/a", p->min_age_us, 1.0, 1, MEMORY_ANON | MEMORY_FILE,
		      false, &s);
	ok(s.quota_bytes == 0 && s.quota_ms == 0 && s.quota_reset_ms == 30000,
	   "no quota: bytes and ms 0, reset interval one walk's (30 s) for the goal");
	ok(!s.wmark_free_mem_rate, "min_free 0: no watermarks");
	cfg_free(cfg);
}

/* DAMON charges every byte walked: a cgroup's quota grows with RAM over its memory */
static void walk_scale(void)
{
	const uint64_t G = 1ULL << 30, M = 1ULL << 20;

	is_int(pscheme_walk_scale(G, 0), 1, "resident unknown: the quota as configured");
	is_int(pscheme_walk_scale(G, 600 * M), 1, "more than half of RAM: as configured");
	is_int(pscheme_walk_scale(G, 512 * M), 2, "half of RAM: twice");
	is_int(pscheme_walk_scale(G, 130 * M), 4,
	       "130 MiB of 1 GiB: 4 (a power of two, rounded down)");
	is_int(pscheme_walk_scale(G, 128 * M), 8, "128 MiB of 1 GiB: 8");
	is_int(pscheme_walk_scale(256 * G, 4096), PSCHEME_WALK_SCALE_MAX,
	       "one page of 256 GiB: at most PSCHEME_WALK_SCALE_MAX");
}

/*
 * max_usage: which mechanism holds a cgroup at its ceiling on each kernel and machine, the
 * per-cgroup goal beside the PSI goal, and the ceiling in bytes.
 */
static void usage(void)
{
	static const char zi1[] =
		"Node 0, zone      DMA\n  pages free     3\n        managed  3840\n"
		"Node 0, zone   Normal\n        managed  200000\n";
	static const char zi2[] = "Node 0, zone    DMA32\n        managed  0\n"
				  "Node 1, zone   Normal\n        managed  5000\n"
				  "Node 2, zone   Normal\n        managed  7000\n"
				  "Node 2, zone  Movable\n        managed  1\n";
	struct cfg *cfg = cfgtext_paddr_batch("max_usage = 30%\n");
	struct cfg *none = cfgtext_paddr_batch("");
	struct damon_features f612 = { .ops_paddr = true,
				       .filters_legacy = true,
				       .filter_target = true,
				       .quota_goals = true,
				       .goal_metric = true,
				       .apply_interval = true };
	struct damon_features f70 = f612, f73;
	const struct cfg_policy *p;
	struct damon_scheme s;
	int first;

	is_int(pscheme_mem_nodes(zi1, &first), 1, "zoneinfo: one node with memory");
	is_int(first, 0, "node 0");
	is_int(pscheme_mem_nodes(zi2, &first), 2,
	       "zoneinfo: a node whose zones manage no page has no memory");
	is_int(first, 1, "the first node with memory: 1");
	is_int(pscheme_mem_nodes("", &first), 0, "empty zoneinfo: none");
	is_int(first, -1, "and no first node");
	f70.goal_memcg = true; /* 6.19 and 7.0: per-cgroup goals, consist only */
	f73 = f70;
	f73.core_filters = f73.filter_allow = f73.goal_tuner = true;
	ok(cfg && none, "paddr policies with and without max_usage load");
	if (!cfg || !none)
		return;
	p = &cfg->policies[0];
	is_int(p->max_usage, 300000, "max_usage 30%%");
	is_int(pscheme_usage_by(&none->policies[0], &f73, 1), PSCHEME_USAGE_NONE,
	       "no max_usage: no ceiling");
	is_int(pscheme_usage_by(p, &f612, 1), PSCHEME_USAGE_PAGEOUTD,
	       "6.12: no per-cgroup goal, pageoutd pauses the scheme");
	is_int(pscheme_usage_by(p, &f70, 1), PSCHEME_USAGE_PAGEOUTD,
	       "6.19-7.0: per-cgroup goals but only the consist tuner (starts at one byte): "
	       "pageoutd");
	is_int(pscheme_usage_by(p, &f73, 1), PSCHEME_USAGE_KERNEL,
	       "7.1+ on one memory node: the kernel's goal");
	is_int(pscheme_usage_by(p, &f73, 2), PSCHEME_USAGE_PAGEOUTD,
	       "two memory nodes: pageoutd (DAMOS stops at the best-scoring goal)");
	is_str(pscheme_usage_name(PSCHEME_USAGE_KERNEL), "kernel", "named kernel");
	is_str(pscheme_usage_name(PSCHEME_USAGE_PAGEOUTD), "pageoutd", "named pageoutd");

	pscheme_build(p, cfg, &f73, "/batch/a", p->min_age_us, 1.0, 1, MEMORY_ANON | MEMORY_FILE,
		      false, &s);
	pscheme_usage_goal(p, "/batch/a", 0, &s);
	is_int(s.nr_goals, 2, "7.3: the PSI goal and the usage goal");
	ok(!strcmp(s.goals[0].metric, "some_mem_psi_us") && !s.goals[0].path[0],
	   "the PSI goal first, without node or path");
	ok(!strcmp(s.goals[1].metric, "node_memcg_free_bp") && s.goals[1].target_value == 7000 &&
		   s.goals[1].nid == 0 && !strcmp(s.goals[1].path, "/batch/a"),
	   "node_memcg_free_bp at 70%% (100%% - max_usage), node 0, the cgroup's path");
	is_str(s.goal_tuner, "temporal",
	       "temporal: the full quota while above the ceiling, none once at it");
	is_str(s.action, "pageout", "the kernel holds it: the scheme stays pageout");

	pscheme_usage_goal(p, "/batch/a", 0, &s);
	is_int(s.nr_goals, 2, "no third goal: the slots are full");
	pscheme_build(&none->policies[0], none, &f73, "/batch/a", p->min_age_us, 1.0, 1,
		      MEMORY_ANON | MEMORY_FILE, false, &s);
	pscheme_usage_goal(&none->policies[0], "/batch/a", 0, &s);
	is_int(s.nr_goals, 1, "no max_usage: only the PSI goal");

	is_u64(pscheme_usage_target(p, 1000 * MIB), 300 * MIB, "30%% of 1000 MiB: 300 MiB");
	is_u64(pscheme_usage_target(&none->policies[0], 1000 * MIB), 0, "no ceiling: 0");
	is_u64(pscheme_usage_cap(112 * MIB, 64 * MIB), 32 * MIB,
	       "48 MiB above the ceiling: a walk may be charged 32 MiB");
	is_u64(pscheme_usage_cap(96 * MIB, 64 * MIB), 32 * MIB, "32 MiB above: 32 MiB");
	is_u64(pscheme_usage_cap(64 * MIB + 300000, 64 * MIB), PSCHEME_USAGE_CAP_MIN,
	       "less than the minimum above: the minimum (1 MiB)");
	is_u64(pscheme_usage_cap(10 * MIB, 64 * MIB), PSCHEME_USAGE_CAP_MIN,
	       "below the ceiling: the minimum, for when it grows past it");
	cfg_free(cfg);
	cfg_free(none);
}

/* 7.3: a byte pageout fails on is charged 1/1024 of a reclaimed one; before, every byte */
static void fail_charge(void)
{
	struct cfg *cfg = cfgtext_paddr_batch("");
	struct damon_features f72 = { .ops_paddr = true,
				      .core_filters = true,
				      .filter_target = true,
				      .filter_allow = true,
				      .apply_interval = true };
	struct damon_features f73 = f72;
	struct damon_scheme s;

	f73.fail_charge = true;
	if (!cfg)
		return;
	pscheme_build(&cfg->policies[0], cfg, &f72, "/batch/a", 0, 1.0, 1, MEMORY_ANON, false, &s);
	ok(s.fail_charge_num == 0 && s.fail_charge_denom == 0,
	   "7.2: no charge ratio (denominator 0: the kernel charges every byte walked)");
	pscheme_build(&cfg->policies[0], cfg, &f73, "/batch/a", 0, 1.0, 1, MEMORY_ANON, false, &s);
	ok(s.fail_charge_num == 1 && s.fail_charge_denom == PSCHEME_FAIL_CHARGE_DENOM &&
		   PSCHEME_FAIL_CHARGE_DENOM == PSCHEME_WALK_SCALE_MAX,
	   "7.3: a failed byte charged 1/%d, the walk bounded as walk_scale bounded it before",
	   PSCHEME_FAIL_CHARGE_DENOM);
	pscheme_build(&cfg->policies[0], cfg, &f73, "/batch/a", 0, 1.0, 1, MEMORY_ANON, true, &s);
	ok(!strcmp(s.action, "stat") && s.fail_charge_denom == PSCHEME_FAIL_CHARGE_DENOM,
	   "and a paused (stat) scheme keeps it: resuming changes the action only");
	cfg_free(cfg);
}

int main(void)
{
	log_setup(LOG_TARGET_STDERR, LOG_WARNING);
	ram_ranges();
	walk_scale();
	build();
	usage();
	fail_charge();
	return tap_exit();
}
