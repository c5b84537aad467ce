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

/*
 * pscheme_ram_ranges: the top-level "System RAM" ranges of /proc/iomem text, ascending, up to
 * max (the largest ones when there are more), into ret. Returns the count, 0 when the text has
 * System RAM whose addresses read as zero (the reader lacks CAP_SYS_ADMIN), or -EINVAL when
 * it has none.
 */
int pscheme_ram_ranges(const char *iomem, struct damon_range *ret, unsigned max);

/*
 * pscheme_aggr_us: the paddr kdamond's aggregation interval: [damon] aggr_interval, but at
 * least PSCHEME_MIN_SAMPLES samples, and never 0 (it is a divisor). A physical region mixes
 * the pages of many users; the access count of a region sampled too few times per interval
 * jumps between intervals, each jump resets the region's age, and cold pages that share a
 * region with used ones never reach min_age.
 */
#define PSCHEME_MIN_SAMPLES 50
uint64_t pscheme_aggr_us(const struct cfg *cfg);

/*
 * pscheme_build: into ret, the DAMOS scheme for cgroup `memcg` (its path in the memory
 * hierarchy) under policy p of cfg, on a kernel with features f: pageout (stat when `paused`
 * or no kind may go) of regions at most max_access_rate hot that have been idle for
 * min_age_us; quota bytes and time per interval scaled by quota_scale and split `share` ways
 * (0 counts as 1); a filter that rejects every other memcg, and one that rejects the kind of
 * memory not in `kinds` (MEMORY_ANON | MEMORY_FILE, masked by p's). memcg is copied.
 */
void pscheme_build(const struct cfg_policy *p, const struct cfg *cfg,
		   const struct damon_features *f, const char *memcg, uint64_t min_age_us,
		   double quota_scale, unsigned share, unsigned kinds, bool paused,
		   struct damon_scheme *ret);

/*
 * pscheme_walk_scale: the factor a cgroup's byte quota is multiplied by, because DAMON charges
 * a scheme's quota with every byte it walks, the cgroup's or not: the largest power of two
 * k <= PSCHEME_WALK_SCALE_MAX with k x resident <= ram_bytes; 1 when resident is 0 (unknown)
 * or more than half of ram_bytes.
 */
#define PSCHEME_WALK_SCALE_MAX 1024
unsigned pscheme_walk_scale(uint64_t ram_bytes, uint64_t resident);

#endif
