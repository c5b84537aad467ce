/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * damon: the DAMON sysfs admin tree. A configurable root, feature detection from what the tree
 * shows, kdamond ownership (never touch a kdamond pageoutd does not own; record what it owns in
 * state_dir), contexts/targets/schemes written in one place, start/commit/stop, snapshots of
 * tried regions attributed to their target by one scheme per target with a target filter, and
 * scheme stats. All paths are relative to the root dirfd; all I/O goes through struct damon_io
 * so that tests can emulate the kernel and inject faults.
 */
#ifndef PAGEOUTD_DAMON_H
#define PAGEOUTD_DAMON_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pageoutd/log.h"

#define DAMON_MAX_KDAMONDS 2 /* pageoutd owns one vaddr and one paddr kdamond */
#define DAMON_SLOT_VADDR 0
#define DAMON_SLOT_PADDR 1
#define DAMON_MAX_FILTERS 4
#define DAMON_U32_MAX 4294967295u

/* The I/O seam: paths are relative to dirfd (the admin root). Return -errno on failure. */
struct damon_io {
	ssize_t (*read)(void *ctx, int dirfd, const char *path, char *buf, size_t len);
	int (*write)(void *ctx, int dirfd, const char *path, const char *val);
	void *ctx;
};

struct damon_features {
	bool ops_vaddr, ops_paddr, ops_fvaddr;
	bool filters_legacy;	   /* schemes/N/filters (6.3) */
	bool filter_target;	   /* damon_target_idx (6.6) */
	bool core_filters;	   /* core_filters/ and ops_filters/ (6.15) */
	bool filter_allow;	   /* allow (6.14) */
	bool quota_goals;	   /* quotas/goals (6.8) */
	bool goal_metric;	   /* goals/N/target_metric (6.9) */
	bool effective_bytes;	   /* quotas/effective_bytes (6.9) */
	bool apply_interval;	   /* apply_interval_us (6.7) */
	bool tried_total_bytes;	   /* tried_regions/total_bytes (6.6) */
	bool sz_ops_filter_passed; /* stats/sz_ops_filter_passed (6.14) */
	bool intervals_goal;	   /* monitoring_attrs/intervals/intervals_goal (6.15) */
	bool obsolete_target;	   /* targets/N/obsolete_target (6.19) */
	bool refresh_ms;	   /* kdamonds/N/refresh_ms (6.17) */
	bool goal_tuner;	   /* quotas/goal_tuner: consist or temporal (7.1) */
	bool goal_memcg;	   /* goals/N/path: node_memcg_{used,free}_bp metrics (6.19) */
	bool fail_charge;	   /* quotas/fail_charge_num, fail_charge_denom (7.3) */
	bool pause;		   /* contexts/N/pause (7.3) */
	/*
	 * contexts/N/addr_unit (6.18): the release from which a commit that leaves the
	 * monitoring attributes unchanged keeps every scheme's apply countdown; before it, each
	 * commit restarts them (damon_commit_ctx -> damon_set_attrs -> damos_set_next_apply_sis)
	 */
	bool commit_keeps_clock;
	bool detected;
};

enum damon_filter_type {
	DAMON_FILTER_TARGET,
	DAMON_FILTER_MEMCG,
	DAMON_FILTER_ANON,
	DAMON_FILTER_ADDR
};

struct damon_filter {
	enum damon_filter_type type;
	bool matching;
	bool allow; /* 6.14+; before that every filter excludes */
	unsigned target_idx;
	char memcg_path[PATH_MAX];
	uint64_t addr_start, addr_end;
};

struct damon_access_pattern {
	uint64_t sz_min, sz_max;
	uint32_t nr_accesses_min, nr_accesses_max; /* samples per aggregation interval */
	uint32_t age_min, age_max;		   /* aggregation intervals */
};

struct damon_goal {
	char metric[32]; /* user_input, some_mem_psi_us, ... */
	uint64_t target_value, current_value;
	/*
	 * node_memcg_{used,free}_bp (6.19): the NUMA node and the memcg's path in the memory
	 * hierarchy ("/a/b"); written only when path is set
	 */
	int nid;
	char path[PATH_MAX];
};

struct damon_scheme {
	char action[16];
	struct damon_access_pattern pattern;
	uint64_t apply_interval_us;
	uint64_t quota_ms, quota_bytes, quota_reset_ms;
	unsigned weight_sz, weight_nr_accesses, weight_age; /* permil */
	unsigned nr_goals;
	struct damon_goal goals[2];
	char goal_tuner[16]; /* "" leaves the kernel's default; written where the kernel has it */
	/*
	 * 7.3: a region's bytes the action failed on are charged to the byte quota at
	 * fail_charge_num / fail_charge_denom (denom 0: every byte walked is charged, as before
	 * 7.3). Written where the kernel has them.
	 */
	uint32_t fail_charge_num, fail_charge_denom;
	bool wmark_free_mem_rate; /* else metric none */
	uint64_t wmark_interval_us, wmark_high, wmark_mid, wmark_low;
	unsigned nr_filters;
	struct damon_filter filters[DAMON_MAX_FILTERS];
};

struct damon_range {
	uint64_t start, end;
};

#define DAMON_TARGET_REGIONS_MAX 16

struct damon_target {
	pid_t pid;	     /* vaddr; ignored by paddr */
	unsigned nr_regions; /* explicit monitoring regions (paddr needs one; vaddr seeds) */
	/*
	 * obsolete_target (6.19+): a commit drops the running target at this index and matches
	 * the others by index as before, so none after it moves; the pid must still resolve (the
	 * kernel looks it up first). Once committed, the running context has one target fewer
	 * here: the tree must be written again without it (damon_write_targets) before another
	 * commit, which would drop the target that took its index.
	 */
	bool obsolete;
	struct damon_range regions[DAMON_TARGET_REGIONS_MAX];
};

struct damon_ctx {
	char ops[8]; /* vaddr, paddr, fvaddr */
	uint64_t sample_us, aggr_us, update_us;
	/*
	 * 6.15+ (intervals_goal): the kernel tunes the sample interval between sample_us and this
	 * (the aggregation interval in proportion) toward SAMPLING_TUNE_ACCESS_BP; 0: no tuning.
	 * Written as off where it is 0, and ignored where the kernel has no tuner.
	 */
	uint64_t tune_max_sample_us;
	uint64_t min_regions, max_regions;
	unsigned nr_targets;
	const struct damon_target *targets;
	unsigned nr_schemes;
	const struct damon_scheme *schemes;
	/*
	 * 7.3: the kdamond keeps its regions but neither samples nor applies schemes; it still
	 * takes commits (pause = false resumes it) and state=off. Written where the kernel has
	 * `pause`; damon_write_ctx refuses it (-EOPNOTSUPP) elsewhere.
	 */
	bool pause;
};

struct damon_region {
	uint64_t start, end;
	uint32_t nr_accesses;
	uint32_t age;
	/* a region's sz_filter_passed (6.14+) is not read: no engine uses it, and each figure
	 * read costs one sysfs read per region */
};

/* Regions tried by one scheme (= one target, with pageoutd's one-scheme-per-target layout). */
struct damon_scheme_regions {
	unsigned nr;
	struct damon_region *regions; /* nr entries, owned by the snapshot */
	uint64_t total_bytes;
};

/* Owns its arrays: release with damon_snapshot_fini(). */
struct damon_snapshot {
	unsigned nr_schemes;
	struct damon_scheme_regions *schemes; /* nr_schemes entries, scheme index order */
	uint64_t taken_us;		      /* CLOCK_MONOTONIC when the kernel finished */
	uint64_t cost_us;		      /* wall time of update + read */
	unsigned long syscalls;		      /* file operations spent reading it */
};

struct damon_stats {
	uint64_t nr_tried, sz_tried, nr_applied, sz_applied, qt_exceeds;
	uint64_t sz_ops_filter_passed; /* UINT64_MAX when absent */
	uint64_t effective_bytes;      /* UINT64_MAX when absent */
};

struct damon_kdamond_info {
	unsigned idx;
	bool running;
	pid_t pid;
	char ops[16];
};

struct damon {
	int rootfd;
	char root[PATH_MAX];
	char state_file[PATH_MAX];
	char module_dir[PATH_MAX];
	/*
	 * The last failure of damon_open, damon_acquire, damon_write_ctx, damon_start and
	 * damon_commit, one line naming what failed (the file, the kdamond, the module that holds
	 * DAMON) and why. Those functions do not log it: the caller, which retries each cycle,
	 * logs it through a struct log_cond and shows it in its status.
	 */
	char err[512];
	char err_path[192]; /* the file of the last refused write, relative to the root */
	struct damon_io io;
	unsigned nr_kdamonds; /* in the tree, once owned */
	bool owned;
	int kpid[DAMON_MAX_KDAMONDS];
	/*
	 * release_modules: when state=on is refused because a DAMON kernel module (dmodule.h)
	 * holds DAMON, turn that module off and try again. Set by the caller after damon_open.
	 * released: the modules pageoutd turned off (bit i: dmodule i), recorded in the state
	 * file and turned back on by damon_release().
	 */
	bool release_modules;
	unsigned released;
	/* refresh_ms written to each owned kdamond (6.17+), 0: stats need state commands */
	uint64_t refresh_ms[DAMON_MAX_KDAMONDS];
	struct damon_features feat;
	unsigned long nr_io; /* file operations, for the cost figures */
	/*
	 * Holds while the ownership record in state_dir could not be rewritten after a kdamond
	 * started or stopped (the directory full or read-only): logged once, and again when it
	 * clears; damon_sync_record() tries again.
	 */
	struct log_cond record_cond;
};

/*
 * damon_features_str: the features f holds as space-separated names, in the order of struct
 * damon_features (vaddr fvaddr paddr filters target_filter core_filters allow quota_goals
 * goal_metric effective_bytes apply_interval total_bytes sz_ops_filter_passed intervals_goal
 * obsolete_target refresh_ms goal_tuner goal_memcg fail_charge pause), "none" when it holds
 * none; truncated to len.
 * Returns buf.
 */
const char *damon_features_str(const struct damon_features *f, char *buf, size_t len);

/* The default I/O: openat/read/write with short-write detection and EBUSY retry. */
extern const struct damon_io damon_sysfs_io;

/*
 * damon_open: open root (the admin directory) and remember state_dir for the ownership record.
 * io may be NULL (sysfs); it is copied, its ctx borrowed until damon_close. Returns 0, -ENODEV
 * when root is missing or has no kdamonds/nr_kdamonds (kernel without CONFIG_DAMON_SYSFS), or
 * -errno; the reason is in d->err, not logged. d needs damon_close whatever the result.
 */
int damon_open(struct damon *d, const char *root, const char *state_dir, const struct damon_io *io);
/* damon_close: close the root; kdamonds stay as they are (damon_release turns them off). */
void damon_close(struct damon *d);

/*
 * damon_acquire: take ownership of DAMON_MAX_KDAMONDS kdamonds. With nr_kdamonds 0, creates
 * them; with kdamonds that the state file says pageoutd owns (a crash or kill -9), reuses them
 * after turning them off; with any other kdamond present refuses with -EBUSY, d->err naming the
 * first foreign kdamond's index, pid, state and operations, and what to do; with another live
 * pageoutd recorded in state_dir refuses with -EEXIST. Never writes nr_kdamonds while a foreign
 * kdamond exists. Detects features. Returns 0 or -errno.
 */
int damon_acquire(struct damon *d);
/*
 * damon_release: turn off every owned kdamond, write nr_kdamonds 0, turn back on every kernel
 * module pageoutd turned off, and remove the state file. Returns 0 (also when nothing is owned)
 * or the first -errno, logged; on failure the state file stays so that the next start recovers
 * the kdamonds (and the modules to turn back on). Ownership ends either way.
 */
int damon_release(struct damon *d);

/*
 * damon_list: the first max kdamonds in the tree into ret (for errors and status); a figure
 * that cannot be read is left unknown (pid -1, ops "none"). Returns the count or -errno when
 * nr_kdamonds cannot be read.
 */
int damon_list(struct damon *d, struct damon_kdamond_info *ret, unsigned max);

/*
 * damon_write_ctx: write the whole context of owned kdamond `slot` (operations, intervals,
 * region limits, targets, schemes with pattern, quotas, goals, watermarks, filters). Nothing
 * reaches a running kdamond until damon_commit(). Returns 0, -EOPNOTSUPP for a feature this
 * kernel lacks (d->err names it), or -errno.
 */
int damon_write_ctx(struct damon *d, unsigned slot, const struct damon_ctx *c);
/*
 * damon_write_targets: write only the targets of c (nr_targets, each pid and its regions) to
 * owned kdamond slot, as the running context holds them after a commit that dropped obsolete
 * targets. Nothing reaches a running kdamond until damon_commit(). Returns 0, -EOPNOTSUPP for
 * an obsolete target on a kernel without obsolete_target (d->err names it), or -errno.
 */
int damon_write_targets(struct damon *d, unsigned slot, const struct damon_ctx *c);
/*
 * damon_start: state=on of owned kdamond slot, and record its pid in the state file. When a
 * kernel module (damon_stat, damon_reclaim, damon_lru_sort) holds DAMON exclusively: with
 * d->release_modules, turns the module off (logged, recorded in the state file) and tries
 * again; otherwise -EBUSY with d->err naming the module and how to release it. Returns 0,
 * -EPERM when slot is not owned, -EBUSY, or -errno with d->err set. A state file that cannot
 * be written is logged, not returned.
 */
int damon_start(struct damon *d, unsigned slot);
/*
 * damon_commit: apply the written context online (state=commit). Returns 0, -EPERM when slot
 * is not owned, -EINVAL when it is not running, or -errno; d->err says why.
 */
int damon_commit(struct damon *d, unsigned slot);
/*
 * damon_stop: state=off of owned kdamond slot; one already off is not an error. Returns 0,
 * -EPERM when slot is not owned, or -errno, logged and in d->err.
 */
int damon_stop(struct damon *d, unsigned slot);
/* damon_running: 1 running, 0 off (someone turned it off, or every target exited), -errno. */
int damon_running(struct damon *d, unsigned slot);
/*
 * damon_sync_record: while the ownership record is stale (record_cond), write it again; called
 * each cycle. Returns 0 (nothing stale, or written) or the -errno of the write, which stays a
 * condition (damon_record_error) until a write works.
 */
int damon_sync_record(struct damon *d);
/* damon_record_error: why the ownership record is stale (one line, owned by d), or NULL. */
const char *damon_record_error(const struct damon *d);

/*
 * damon_snapshot: update_schemes_tried_regions (blocks one apply interval), then read every
 * scheme's tried_regions into *ret. Region i of scheme k belongs to target k when the context
 * was written with one scheme per target and a target filter. A region removed while it is
 * read ends its scheme's list. Returns 0 or -errno (-EPERM: slot not owned; not running:
 * -EINVAL, or -ECANCELED on 7.x; -ECANCELED also when watermarks deactivated it; -ENOMEM). On
 * success the caller owns *ret and frees it with damon_snapshot_fini(); on failure *ret holds
 * nothing to free.
 */
int damon_snapshot(struct damon *d, unsigned slot, struct damon_snapshot *ret);
/* damon_snapshot_fini: free what s owns and zero it; a zeroed snapshot is fine. */
void damon_snapshot_fini(struct damon_snapshot *s);
/*
 * damon_update_stats: update_schemes_stats, and the effective quotas where the kernel has
 * them, so that damon_read_stats reads fresh figures; nothing when damon_set_refresh() made
 * the kernel refresh them itself. Returns 0, -EPERM (not owned) or -errno.
 */
int damon_update_stats(struct damon *d, unsigned slot);
/*
 * damon_update_stats_now: the state commands of damon_update_stats, whether or not the kernel
 * refreshes the stats itself. The kdamond answers them at its next damon_call point, so the
 * figures hold every walk it finished before that point. A refresh_ms refresh is up to
 * refresh_ms older, and a damon_write_ctx (which rebuilds the scheme directories) leaves the
 * stats files at 0 until the next refresh. Returns 0, -EPERM (not owned) or -errno.
 */
int damon_update_stats_now(struct damon *d, unsigned slot);
/*
 * damon_set_refresh: write refresh_ms (6.17+) of owned kdamond slot: the kernel then updates
 * the schemes' stats and effective quotas itself every ms milliseconds (0: never), and
 * damon_update_stats() writes no state command, each of which waits for the kdamond. The
 * kernel keeps one deadline for every kdamond's refresh (a global in mm/damon/sysfs.c), so
 * one kdamond of pageoutd's at most should have it. Returns 0, -EOPNOTSUPP (no refresh_ms),
 * -EPERM (not owned) or -errno.
 */
int damon_set_refresh(struct damon *d, unsigned slot, uint64_t ms);
/*
 * damon_read_intervals: the sample and aggregation intervals owned kdamond slot runs with now,
 * as its interval tuner (6.15+) left them (update_tuned_intervals, unless refresh_ms copies
 * them). Returns 0, -EOPNOTSUPP (no tuner: the written intervals are in force), -EPERM (not
 * owned) or -errno.
 */
int damon_read_intervals(struct damon *d, unsigned slot, uint64_t *sample_us, uint64_t *aggr_us);
/*
 * damon_read_stats: the stats of scheme `scheme` of kdamond slot into *ret, as of the last
 * damon_update_stats. The figures every kernel has must read (else -errno); those of newer
 * kernels are UINT64_MAX when the kernel lacks them or they cannot be read.
 */
int damon_read_stats(struct damon *d, unsigned slot, unsigned scheme, struct damon_stats *ret);

/*
 * damon_parse_u64: the number in one sysfs file's text (buf, len; trailing newline and spaces
 * ignored); "-1" (a stopped kdamond's pid) reads UINT64_MAX. Returns 0 or -EINVAL, -ERANGE.
 * Fuzzed.
 */
int damon_parse_u64(const char *buf, size_t len, uint64_t *ret);

/* damon_pattern_all: a pattern that matches every region. */
void damon_pattern_all(struct damon_access_pattern *p);

#endif
