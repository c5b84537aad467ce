/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sampling: the intervals each engine's kdamond runs with, from the policies it serves. Pure:
 * called by cfg_load on the whole configuration, no kernel access.
 *
 * DAMON's cost grows with regions x samples per second; what the engines need of it is a
 * number of samples of each region per min_age, not a sample every 5 ms. So, unless [damon]
 * sets sample_interval or aggr_interval (a value set there wins, the other is derived from it):
 *
 *   sample = shortest min_age of the engine's policies / SAMPLING_PER_MIN_AGE,
 *            never below SAMPLING_MIN_SAMPLE_US (DAMON's own default)
 *   aggr   = sample x samples per aggregation: SAMPLING_PER_AGGR (vaddr; more when a
 *            max_access_rate needs them to be a whole access: 1 / rate, up to
 *            SAMPLING_PER_AGGR_MAX) or SAMPLING_PADDR_PER_AGGR (paddr,
 *            pscheme.h), never above the daemon's
 *            interval (paddr) or a SAMPLING_VADDR_AGGRS_PER_CYCLE-th of it (vaddr: each
 *            cycle's snapshot sees aggregations of its own, the two-snapshot rule, and waits
 *            for the next one, which blocks the daemon) - where it would be, the
 *            aggregation holds fewer samples, down to SAMPLING_PER_AGGR_LEAST (vaddr: a
 *            count that only tells no access from some; more where an access rate needs
 *            them) or SAMPLING_PADDR_PER_AGGR (paddr), and only then do the samples come
 *            more often, never more often than SAMPLING_MIN_SAMPLE_US
 *
 * The vaddr sparse-region rule (vplan.h) wants VPLAN_SPARSE_MIN_SAMPLES samples on a region's
 * piece by min_age: with SAMPLING_PER_MIN_AGE samples per min_age, a piece of 1/50 of its
 * region has them at min_age.
 *
 * Where the kernel tunes intervals itself (intervals_goal, 6.15+), the derived sample interval
 * is the tuner's floor and SAMPLING_TUNE_SPAN times it its ceiling (and the aggregation no
 * longer than the ceiling above): the kernel may watch an idle system less often, never
 * more often than derived, and never so seldom that a piece of 1/20 of its region lacks its
 * samples at min_age. Explicit [damon] intervals turn the tuner off.
 */
#ifndef PAGEOUTD_SAMPLING_H
#define PAGEOUTD_SAMPLING_H

#include "pageoutd/config.h"

#define SAMPLING_PER_MIN_AGE 1000
#define SAMPLING_MIN_SAMPLE_US 5000ULL
#define SAMPLING_PER_AGGR 20
#define SAMPLING_PER_AGGR_MAX 200
#define SAMPLING_PER_AGGR_LEAST 5
#define SAMPLING_PADDR_PER_AGGR 50
#define SAMPLING_VADDR_AGGRS_PER_CYCLE 4
#define SAMPLING_TUNE_SPAN_NUM 5 /* the tuner's ceiling: 5/2 of the derived sample interval */
#define SAMPLING_TUNE_SPAN_DEN 2
/* the tuner's goal: DAMON's recommended 4% of samples seeing an access, tuned every 3 aggregations */
#define SAMPLING_TUNE_ACCESS_BP 400
#define SAMPLING_TUNE_AGGRS 3

/* sampling_derive: cfg->sampling[e] for both engines from cfg's policies, [damon] and [daemon]. */
void sampling_derive(struct cfg *cfg);

/*
 * sampling_describe: "sample 30ms, aggregation 600ms (from min_age 30s of policy batch; where
 * the kernel tunes intervals, up to 62500us, 1250ms)", "... (set in [damon])" or "... (no
 * policy)" into buf (len bytes).
 * Returns buf.
 */
const char *sampling_describe(const struct cfg_sampling *s, char *buf, size_t len);

#endif
