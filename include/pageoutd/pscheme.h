/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pscheme: what the paddr engine gives DAMON, computed from the configuration and figures the
 * caller read: the physical address ranges to monitor, the kdamond's aggregation interval, and
 * the DAMOS scheme of one cgroup. Pure: no file, sysfs or cgroup access, nothing allocated.
 */
#ifndef PAGEOUTD_PSCHEME_H
#define PAGEOUTD_PSCHEME_H

#include <stdbool.h>
#include <stdint.h>

#include "pageoutd/config.h"
#include "pageoutd/damon.h"
#include "pageoutd/sampling.h"

/*
 * pscheme_ram_ranges: the top-level "System RAM" ranges of /proc/iomem text, ascending, up to
 * max (the largest ones when there are more), into ret. Returns the count, 0 when the text has
 * System RAM whose addresses read as zero (the reader lacks CAP_SYS_ADMIN), or -EINVAL when
 * it has none.
 */
int pscheme_ram_ranges(const char *iomem, struct damon_range *ret, unsigned max);

/*
 * pscheme_aggr_us: the paddr kdamond's aggregation interval: cfg->sampling's, which holds at
 * least PSCHEME_MIN_SAMPLES samples (sampling.h), and never 0 (it is a divisor). A physical
 * region mixes the pages of many users; the access count of a region sampled too few times per
 * interval jumps between intervals, each jump resets the region's age, and cold pages that
 * share a region with used ones never reach min_age.
 */
#define PSCHEME_MIN_SAMPLES SAMPLING_PADDR_PER_AGGR
uint64_t pscheme_aggr_us(const struct cfg *cfg);

/*
 * Where the kernel has the charge ratio of failed regions (7.3), a byte of a walked region that
 * is not reclaimed is charged 1/PSCHEME_FAIL_CHARGE_DENOM of the quota a reclaimed one is: the
 * same bound on the walk (the quota times this) as PSCHEME_WALK_SCALE_MAX before 7.3.
 */
#define PSCHEME_FAIL_CHARGE_DENOM 1024

/*
 * pscheme_build: into ret, the DAMOS scheme for cgroup `memcg` (its path in the memory
 * hierarchy) under policy p of cfg, on a kernel with features f: pageout (stat when `paused`
 * or no kind may go) of regions at most max_access_rate hot that have been idle for
 * min_age_us; quota bytes and time per interval scaled by quota_scale and split `share` ways
 * (0 counts as 1); a filter that rejects every other memcg, and one that rejects the kind of
 * memory not in `kinds` (MEMORY_ANON | MEMORY_FILE, masked by p's); where f has fail_charge,
 * a failed byte charged 1/PSCHEME_FAIL_CHARGE_DENOM. memcg is copied.
 */
void pscheme_build(const struct cfg_policy *p, const struct cfg *cfg,
		   const struct damon_features *f, const char *memcg, uint64_t min_age_us,
		   double quota_scale, unsigned share, unsigned kinds, bool paused,
		   struct damon_scheme *ret);

/*
 * pscheme_walk_scale: the factor a cgroup's byte quota is multiplied by, because DAMON before
 * 7.3 (or without fail_charge) charges a scheme's quota with every byte it walks, the
 * cgroup's or not: the largest power of two k <= PSCHEME_WALK_SCALE_MAX with
 * k x resident <= ram_bytes; 1 when resident is 0 (unknown) or more than half of ram_bytes.
 * Where the kernel has fail_charge the quota is not scaled (pscheme_build charges a failed
 * byte 1/PSCHEME_FAIL_CHARGE_DENOM).
 */
#define PSCHEME_WALK_SCALE_MAX 1024
unsigned pscheme_walk_scale(uint64_t ram_bytes, uint64_t resident);

/*
 * Who holds a cgroup at its policy's max_usage: nobody (no ceiling), the kernel (a quota goal
 * in the cgroup's scheme), or pageoutd (the scheme paused while the cgroup is at or below).
 */
enum pscheme_usage_by {
	PSCHEME_USAGE_NONE,
	PSCHEME_USAGE_KERNEL,
	PSCHEME_USAGE_PAGEOUTD,
};

/* pscheme_usage_name: "none", "kernel" or "pageoutd". */
const char *pscheme_usage_name(enum pscheme_usage_by u);

/*
 * pscheme_mem_nodes: the NUMA nodes that have memory in /proc/zoneinfo text (a zone with
 * managed pages), and the lowest such node's id into *first (-1 when none). Returns the count,
 * 0 when the text names none.
 */
unsigned pscheme_mem_nodes(const char *zoneinfo, int *first);

/*
 * pscheme_usage_by: who holds cgroups of policy p at max_usage on a kernel with features f
 * and mem_nodes NUMA nodes with memory. The kernel where it has per-cgroup goals
 * (node_memcg_free_bp, 6.19) and the temporal tuner (7.1), on a machine with one memory node:
 * DAMOS uses the highest score of a scheme's goals, so one goal per node would stop reclaim
 * as soon as the cgroup is below the ceiling on any one node. pageoutd elsewhere.
 */
enum pscheme_usage_by pscheme_usage_by(const struct cfg_policy *p, const struct damon_features *f,
				       unsigned mem_nodes);

/*
 * pscheme_usage_goal: add to s the goal that holds cgroup `memcg` (its path in the memory
 * hierarchy, copied) at p's max_usage of node nid's memory: node_memcg_free_bp at
 * 100% - max_usage, with the temporal tuner, which gives the scheme its full quota while the
 * cgroup's free share of the node is below that (the cgroup is above its ceiling) and none
 * once it is reached. DAMOS takes the highest score of its goals, so that with the PSI goal
 * the scheme reclaims only while both allow it. Nothing when p has no ceiling or s has no
 * goal slot left.
 */
void pscheme_usage_goal(const struct cfg_policy *p, const char *memcg, int nid,
			struct damon_scheme *s);

/*
 * pscheme_usage_target: the bytes of cgroup memory (anon + file) that p's max_usage allows
 * out of mem_total; 0 when p has no ceiling.
 */
uint64_t pscheme_usage_target(const struct cfg_policy *p, uint64_t mem_total);

/*
 * pscheme_usage_cap: the most bytes one walk of a cgroup holding `resident` bytes under ceiling
 * `target` may be charged: what it holds above the ceiling rounded down to a power of two, at
 * least PSCHEME_USAGE_CAP_MIN (also at or below the ceiling, where the kernel's goal allows
 * nothing until the cgroup grows past it). DAMOS charges a walk at least every byte it
 * reclaims (every byte it walks; with fail_charge, 7.3, what it reclaims and 1/1024 of the
 * rest), so a walk reclaims at most that: the cgroup comes down to its ceiling in halving steps
 * instead of going past it by one walk's quota (the whole cold memory, where it lies
 * together). The cap applies to the quota after walk_scale: with fail_charge it bounds reclaim
 * closely; without it a walk reclaims about cap / walk_scale.
 */
#define PSCHEME_USAGE_CAP_MIN (1ull << 20)
uint64_t pscheme_usage_cap(uint64_t resident, uint64_t target);

#endif
