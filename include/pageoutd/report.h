/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report: what the stats socket answers, rendered from the configuration and the engines'
 * figures: `stats` (JSON), `metrics` (Prometheus text exposition, pageoutd_ prefix, labels
 * policy and cgroup), `status` (a table for people), `cgroups` (a table per matched cgroup),
 * `policies`, `version`.
 */
#ifndef PAGEOUTD_REPORT_H
#define PAGEOUTD_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "pageoutd/cgstat.h"
#include "pageoutd/config.h"
#include "pageoutd/paddr.h"
#include "pageoutd/util.h"
#include "pageoutd/vaddr.h"

struct report_src {
	const struct cfg *cfg;
	const struct vaddr *vaddr; /* NULL when not running */
	const struct paddr *paddr;
	const struct cgstat *cgstat; /* per-cgroup figures, NULL when not kept */
	uint64_t started_us, cycles, cycle_us_total;
	bool damon_owned;
	const char *status;   /* what the daemon is doing, one line */
	const char *waiting;  /* why DAMON cannot be taken, or NULL */
	const char *idle;     /* why there is nothing to reclaim (DAMON not taken), or NULL */
	const char *no_vaddr; /* why the vaddr engine cannot run on this kernel, or NULL */
	const char *no_paddr;
	/* why the ownership record in state_dir is stale (full, read-only), or NULL */
	const char *record_error;
};

/*
 * The state of the daemon and of each policy, with a reason unless active or running:
 * active/running, paused (pressure, not frozen, operator...), idle (no cgroup matched),
 * waiting (DAMON cannot be taken yet), error (the engine's DAMON writes or reads fail).
 */
enum report_state { RS_ACTIVE, RS_PAUSED, RS_IDLE, RS_WAITING, RS_ERROR, RS_MAX };
/* report_state_name: "active" ... "error", a static string; "unknown" out of range. */
const char *report_state_name(enum report_state s);
/*
 * report_daemon_state: the daemon's state and, unless active, why in *ret_reason (NULL when
 * active): a string borrowed from r or its engines, valid until their next cycle.
 */
enum report_state report_daemon_state(const struct report_src *r, const char **ret_reason);

/*
 * The answers append to out; on allocation failure out->oom is set and the text is cut
 * short. They only read r and what it points to, which the caller keeps valid for the call.
 */
/* report_stats_json: the `stats` object, one line: daemon, engines, policies, cgroups. */
void report_stats_json(const struct report_src *r, struct sbuf *out);
/* report_metrics: the Prometheus text exposition; an unknown figure has no sample. */
void report_metrics(const struct report_src *r, struct sbuf *out);
/* report_status: the daemon's line and a table of one row per policy, "-" where unknown. */
void report_status(const struct report_src *r, struct sbuf *out);
/* report_detail: per policy every counter, skipped bytes by reason, paddr schemes. */
void report_detail(const struct report_src *r, struct sbuf *out);
/*
 * report_cgroups: one line per cgroup a policy matches: its policy, state (frozen, running,
 * unknown; "-" when its policy does not watch it), bytes reclaimed, time seen frozen, thaws
 * and the major faults in the CGSTAT_THAW_WINDOW_US after them (the last thaw's, all thaws').
 */
void report_cgroups(const struct report_src *r, struct sbuf *out);
/* report_policies: one line per policy with every setting that applies, or "no policies". */
void report_policies(const struct report_src *r, struct sbuf *out);
/* report_reclaimed_bytes: what every policy reclaimed so far (the STATUS= line). */
uint64_t report_reclaimed_bytes(const struct report_src *r);

#endif
