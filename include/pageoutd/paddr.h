/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * paddr: the engine for `engine = paddr` policies. The kernel reclaims: pageoutd owns one
 * DAMON paddr kdamond over physical memory (the System RAM ranges of /proc/iomem) and gives
 * it one DAMOS `pageout` scheme per cgroup that holds memory under a policy. DAMON resolves a
 * scheme's memcg_path once, at commit, to one memcg id and matches that memcg only (not its
 * descendants), so a policy over a subtree gets a scheme for each cgroup in it, re-resolved
 * when cgroups come and go. Each scheme has a memcg filter (and an anon filter when only one
 * kind of memory may go), the policy's access pattern, quotas (bytes and time per reset
 * interval, split over the policy's schemes), no prioritisation weights (the quota sweeps
 * every admitted region in turn), free-memory watermarks from min_free and, where the kernel
 * has goal metrics, a PSI goal from pressure_limit so that the kernel tunes the quota itself.
 * Each cycle pageoutd reads the cgroups' PSI, refaults and swap, pauses a scheme (action stat)
 * or narrows it (anon filter), backs off on refaults, and commits what changed online. A paused
 * scheme keeps its other parameters until it resumes: up to Linux 6.17 every commit restarts
 * the apply interval of every scheme. Under frozen_only a running cgroup's scheme is paused
 * (not_frozen) and the policy's quotas are split over its frozen cgroups' schemes only.
 * DAMON's paddr pageout re-checks references before reclaiming: memory used again after DAMON
 * chose it stays.
 */
#ifndef PAGEOUTD_PADDR_H
#define PAGEOUTD_PADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pageoutd/cgroup.h"
#include "pageoutd/config.h"
#include "pageoutd/damon.h"
#include "pageoutd/policy.h"

/* The most schemes (cgroups) one paddr kdamond is given; past it cgroups are refused. */
#define PADDR_MAX_SCHEMES 64

/*
 * The limits other than the byte quota that can bind a scheme: DAMON's effective quota
 * (quotas/effective_bytes, 6.9+) below the scheme's byte quota means one of these held it
 * down, named from what the scheme was committed with: a time quota (quota_time) or a PSI goal
 * (pressure_limit, where the kernel tunes the quota toward it); and max_usage, a cgroup at its
 * ceiling where the kernel's per-cgroup goal holds it (its quota is then none).
 */
enum paddr_limit {
	PADDR_LIMIT_QUOTA_TIME,
	PADDR_LIMIT_PRESSURE,
	PADDR_LIMIT_MAX_USAGE, /* the cgroup is at its max_usage, where the kernel's goal holds it */
	PADDR_LIMIT_MAX,
};
#define PADDR_LIMIT_BIT(k) (1u << (k))
/*
 * paddr_limit_name: the configuration key of limit k ("quota_time", "pressure_limit",
 * "max_usage").
 */
const char *paddr_limit_name(enum paddr_limit k);
/*
 * paddr_limits_text: a set of PADDR_LIMIT_BIT()s as text, the names in limit order joined by
 * commas ("quota_time", "quota_time,pressure_limit", ...), or NULL for the empty set. A static
 * string.
 */
const char *paddr_limits_text(unsigned limits);

/* Figures of one cgroup's scheme, accumulated while the cgroup held it. */
struct paddr_cgroup_stats {
	uint64_t nr_tried, sz_tried, nr_applied, sz_applied, qt_exceeds;
	uint64_t sz_ops_filter_passed; /* UINT64_MAX when the kernel has no such stat */
	uint64_t sz_paused;	       /* tried while the scheme was paused (action stat) */
	uint64_t effective_quota;      /* bytes per reset interval, UINT64_MAX when unknown */
	uint64_t resident;	       /* the memcg's anon + file now */
	uint64_t walk_scale;	       /* the byte quota's factor (pscheme_walk_scale) */
	uint64_t memcg_drop_bytes_total;
	uint64_t refaults_total; /* pages since the cgroup got its scheme */
	uint64_t refault_pages;	 /* the cgroup's cumulative workingset refaults, or CGRP_UNKNOWN */
	uint64_t ws_bytes;	 /* its working set (engine_read_cgroup) as last read, 0: unread */
	uint64_t commits;
	uint64_t max_usage_bytes; /* the ceiling max_usage sets (of MemTotal), 0: none */
	const char *max_usage_by; /* who holds it there: pscheme_usage_name() */
	double psi_some_avg10;	  /* -1 when unknown */
	bool paused;
	const char *paused_why; /* a skip reason name, "" when not paused */
};

struct paddr_policy_stats {
	uint64_t cycles, cgroups;
	uint64_t refused;	      /* cgroups without a scheme: past PADDR_MAX_SCHEMES */
	uint64_t applied_bytes_total; /* reclaimed by the kernel (sz_applied) */
	uint64_t tried_bytes_total;
	uint64_t qt_exceeds_total;
	uint64_t paused_bytes_total;
	uint64_t memcg_drop_bytes_total;
	uint64_t refaults_total;
	uint64_t last_applied;
	uint64_t failures_total[FAIL_MAX]; /* cycles the policy's work failed, by kind */
	bool operator_paused;
	uint64_t frozen_cgroups; /* frozen_only: its cgroups with a scheme frozen now */
	/*
	 * The limits (PADDR_LIMIT_BIT) that held one of its schemes' effective quota below the
	 * byte quota at the last stats read; binding_known is false where the kernel reports no
	 * effective quota (before 6.9). limit_bound_cycles: the cycles each limit bound.
	 */
	unsigned binding;
	bool binding_known;
	uint64_t limit_bound_cycles[PADDR_LIMIT_MAX];
	bool freezer_missing; /* frozen_only without a freezer to read: nothing reclaimed */
};

struct paddr_stats {
	uint64_t cycles, commits, restarts, errors;
	/*
	 * cycles a change of quota sizes alone waited for every scheme's walk since the last
	 * commit (kernels before 6.18, where a commit restarts the schemes' apply countdowns)
	 */
	uint64_t commits_held;
	uint64_t schemes; /* in use now */
	uint64_t ram_bytes;
	bool goals; /* the kernel tunes the quota (some_mem_psi_us goal) */
	/* 7.3: the kdamond is paused, its regions kept (no scheme, or every policy paused) */
	bool kdamond_paused;
};

struct paddr;

/*
 * paddr_new: the engine over an acquired damon d and the cgroup root cg, which it borrows: the
 * caller owns both and keeps them alive until paddr_free(). cfg is borrowed too (the engine
 * keeps pointers into it) and must live until the next paddr_set_config() or paddr_free().
 * Opens proc_root; the kdamond is started at the first cycle. Returns 0 with *ret set (free
 * with paddr_free), -ENOMEM, or the -errno of opening proc_root.
 */
int paddr_new(struct paddr **ret, const struct cfg *cfg, struct damon *d,
	      const struct cgrp_root *cg);
/*
 * paddr_set_config: a reloaded config, borrowed as in paddr_new; the previous one may be freed
 * once this returns 0. Policies are matched by name and keep their state and figures; the
 * schemes change at the next cycle. Returns 0 or -ENOMEM: the policies mapped before the
 * failure point into cfg, the others into the previous config, so keep both until a call
 * that succeeds.
 */
int paddr_set_config(struct paddr *p, const struct cfg *cfg);
/* paddr_pause: an operator pauses (or resumes) a policy by name. -ENOENT: no such policy. */
int paddr_pause(struct paddr *p, const char *policy, bool paused);
/*
 * paddr_cycle: one cycle. Returns 0 or -errno. A failure that repeats (DAMON refusing the
 * schemes, stats that cannot be read, no physical memory layout) is logged here when it
 * starts, changes and clears, counted in the failures of the policies it stops, and told by
 * paddr_error().
 */
int paddr_cycle(struct paddr *p);
/* paddr_error: what keeps the engine from working now (one line, owned by p), or NULL. */
const char *paddr_error(const struct paddr *p);
/*
 * paddr_watch: from now on the cgroups of frozen_only policies are watched on inotify fd
 * (cgrp_watch_new; the caller owns and drains it). paddr_frozen_changed: after events on fd,
 * read their frozen state again. Returns how many cgroups froze or thawed since it was last
 * read: their schemes change (pageout while frozen, stat while running) at the next cycle, so
 * run one soon.
 */
void paddr_watch(struct paddr *p, int fd);
unsigned paddr_frozen_changed(struct paddr *p);
/* paddr_free: turn the kdamond off and free the engine. */
void paddr_free(struct paddr *p);

const struct paddr_stats *paddr_stats(const struct paddr *p);
struct engine_intervals;
/* The kdamond's intervals in force (engine.h). */
const struct engine_intervals *paddr_intervals(const struct paddr *p);
const struct paddr_policy_stats *paddr_policy_stats(const struct paddr *p, const char *policy);
/* paddr_cgroup_stats: the figures of one cgroup (path), NULL when it has no scheme. */
const struct paddr_cgroup_stats *paddr_cgroup_stats(const struct paddr *p, const char *path);
/*
 * paddr_cgroup_frozen: the frozen state of the i-th cgroup with a scheme as the engine last
 * read it (cgrp_frozen: 1, 0 or -errno); meaningful for frozen_only policies only.
 */
int paddr_cgroup_frozen(const struct paddr *p, size_t i);
/* paddr_scheme_of: the scheme index of a cgroup in the kdamond, or -1. */
int paddr_scheme_of(const struct paddr *p, const char *path);
/* paddr_cgroup_at: the i-th cgroup with a scheme (NULL past the end), its path and policy. */
const struct paddr_cgroup_stats *paddr_cgroup_at(const struct paddr *p, size_t i, const char **path,
						 const char **policy);
void paddr_log_summary(const struct paddr *p);

#endif
