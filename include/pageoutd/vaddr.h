/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vaddr: the engine for `engine = vaddr` policies. Every process of every matched cgroup is a
 * target of pageoutd's vaddr kdamond (one stat scheme per target, for exact attribution);
 * targets come and go online through commit. Each cycle takes a snapshot, selects the regions
 * that are cold enough and old enough, keeps only those that were candidates in the previous
 * snapshot too (the kernel does not re-check references since 6.9), clips them to VMAs of the
 * selected kinds (never locked, hugetlb, PFN or special mappings), orders them coldest and
 * largest first within the quota, and advises them through the pidfd taken at registration.
 */
#ifndef PAGEOUTD_VADDR_H
#define PAGEOUTD_VADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pageoutd/cgroup.h"
#include "pageoutd/cgstat.h"
#include "pageoutd/config.h"
#include "pageoutd/damon.h"
#include "pageoutd/madvise.h"
#include "pageoutd/policy.h"

struct vaddr_policy_stats {
	uint64_t cycles, cgroups, procs;
	uint64_t cold_bytes;	      /* candidates in the last snapshot */
	uint64_t advised_bytes_total; /* completed by the kernel */
	/*
	 * of them, the pages present before the advice and gone right after (memory that left);
	 * where pagemap cannot be read, the advised bytes
	 */
	uint64_t freed_bytes_total;
	uint64_t skipped_total[SKIP_MAX]; /* bytes, by reason */
	uint64_t errors_total[MADV_ERR_MAX];
	uint64_t failures_total[FAIL_MAX]; /* cycles the policy's work failed, by kind */
	uint64_t rss_drop_bytes_total;	   /* observed RSS drop of the advised processes */
	uint64_t memcg_drop_bytes_total;   /* observed anon+file drop of the cgroups */
	bool memcg_known; /* some cgroup had a memory.stat at the last read (cgroup v2 without
			   * the memory controller has none): memcg_drop means something */
	uint64_t last_advised, last_freed, last_rss_drop;
	double psi_some_avg10;	 /* the highest of its cgroups, -1 when unknown */
	uint64_t frozen_cgroups; /* frozen_only: its cgroups frozen when last read */
	bool freezer_missing;	 /* frozen_only without a freezer to read: nothing reclaimed */
	/* its memory of mistakes (learn, vmemo.h), over its targets, as of the last cycle */
	uint64_t learned_ranges, learned_bytes; /* records now */
	uint64_t learned_interval_min_us;	/* of those records (0: none) */
	uint64_t learned_interval_max_us;
	uint64_t watched_bytes;	       /* advised ranges watched now */
	uint64_t learned_total;	       /* ranges learned (new or found back again), ever */
	uint64_t forgiven_total;       /* records or parts of them forgiven, ever */
	uint64_t forgiven_bytes_total; /* their bytes */
	uint64_t back_pages_total;    /* pages found back in watched ranges (attributed refaults) */
	uint64_t pagemap_pages_total; /* pagemap entries read for it */
};

struct vaddr_stats {
	uint64_t cycles, snapshots, snapshot_errors, commits, restarts;
	uint64_t targets, unadvisable;
	uint64_t snapshot_us_total;
	uint64_t aggr_us;	  /* the aggregation interval the kdamond keeps, as measured */
	uint64_t empty_snapshots; /* targets a snapshot had no region of (no news) */
	uint64_t maps_reads;	  /* /proc/PID/maps reads */
	uint64_t maps_kept;	  /* targets with nothing to advise whose last maps did */
	/* exited targets dropped by a commit with obsolete_target (6.19+), the others in place */
	uint64_t targets_dropped_in_place;
	/* before 6.19: targets moved into an exited one's index, watched afresh from seeds */
	uint64_t targets_moved;
};

struct vaddr;

/*
 * vaddr_new: the engine over an acquired damon. proc_root from the config. d and cg are borrowed
 * until vaddr_free(); cfg is borrowed (the engine keeps pointers into it) until the next
 * vaddr_set_config() or vaddr_free().
 */
int vaddr_new(struct vaddr **ret, const struct cfg *cfg, struct damon *d,
	      const struct cgrp_root *cg);
/* vaddr_set_config: a reloaded config; policies are matched by name, state kept. */
int vaddr_set_config(struct vaddr *v, const struct cfg *cfg);
/* vaddr_pause: an operator pauses (or resumes) a policy by name. -ENOENT: no such policy. */
int vaddr_pause(struct vaddr *v, const char *policy, bool paused);
/*
 * vaddr_cycle: one decision cycle. Returns 0 or -errno. A failure that repeats (DAMON refusing
 * the context, a snapshot that cannot be read) is logged here when it starts, changes and
 * clears, counted in the failures of the policies it stops, and told by vaddr_error().
 */
int vaddr_cycle(struct vaddr *v);
/* vaddr_error: what keeps the engine from working now (one line, owned by v), or NULL. */
const char *vaddr_error(const struct vaddr *v);
void vaddr_free(struct vaddr *v);
/*
 * vaddr_watch: from now on the cgroups of frozen_only policies are watched on inotify fd
 * (cgrp_watch_new; the caller owns it and drains it) as targets are synced. vaddr_frozen_changed:
 * after events on fd, read those cgroups' frozen state again. Returns how many became frozen
 * since it was last read (their cold memory is ready to go at the next cycle: run one soon).
 */
void vaddr_watch(struct vaddr *v, int fd);
unsigned vaddr_frozen_changed(struct vaddr *v);
/*
 * vaddr_cgstat: from now on the figures of each matched cgroup are kept in cs (owned by the
 * caller, which outlives v): its entries of ENGINE_VADDR are added and freed as cgroups come
 * and go, their bytes advised added, and the frozen state of frozen_only cgroups recorded.
 */
void vaddr_cgstat(struct vaddr *v, struct cgstat *cs);

/* For status and tests. */
const struct vaddr_stats *vaddr_stats(const struct vaddr *v);
struct engine_intervals;
/* The kdamond's intervals in force (engine.h). */
const struct engine_intervals *vaddr_intervals(const struct vaddr *v);
const struct vaddr_policy_stats *vaddr_policy_stats(const struct vaddr *v, const char *policy);
const struct policy_state *vaddr_policy_state(const struct vaddr *v, const char *policy);
/*
 * vaddr_refsem: what MADV_PAGEOUT does with references on this kernel (REFSEM_IGNORE or
 * REFSEM_RECHECK: configured, or from the release for auto). Reported only: the engine needs
 * cfg->daemon.confirm_snapshots cold snapshots before it advises a range, on every kernel.
 */
enum cfg_refsem vaddr_refsem(const struct vaddr *v);
/* vaddr_refsem_of_release: what `auto` means for a kernel release string ("6.12.5-..."). */
enum cfg_refsem vaddr_refsem_of_release(const char *release);
/* vaddr_log_summary: one info line per vaddr policy with this cycle's figures. */
void vaddr_log_summary(const struct vaddr *v);

#endif
