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

/* A range of one process with what DAMON said of it. Lists are sorted and disjoint. */
struct vrange {
	uint64_t start, end;
	uint32_t nr_accesses;
	uint64_t age_us;
	unsigned kind; /* vrange_clip's output: MEMORY_ANON or MEMORY_FILE, its VMA's kind */
};

struct vrange_list {
	size_t nr, cap;
	struct vrange *r;
};

enum vma_class {
	VMA_ANON,
	VMA_FILE,
	VMA_LOCKED,  /* VmFlags lo, ht, pf or io */
	VMA_SPECIAL, /* [vdso], [vvar], [vsyscall], [uprobes], ... */
};

struct vma {
	uint64_t start, end;
	enum vma_class cls;
};

struct vma_list {
	size_t nr, cap;
	struct vma *v;
};

/*
 * vaddr_seed_regions: the first monitoring regions of a new DAMON target, from its VMAs
 * (sorted, as /proc/PID/maps lists them): the max largest VMAs, each a region of its own, in
 * address order. DAMON starts a vaddr target with three regions around the two largest gaps
 * of the address space and needs many aggregation intervals of random splits before a cold
 * mapping next to a hot one (or a hole) stands alone; a region per VMA starts it there, and
 * DAMON fills the gaps at its next update. Returns the count (0 with max < 1).
 */
unsigned vaddr_seed_regions(const struct vma_list *vmas, struct damon_range *ret, unsigned max);

/* Pure helpers, exposed for tests. */
/*
 * vrange_rescale: ages of l counted in intervals of from µs, counted again in intervals of to µs,
 * and at most cap_us (how long the process had been watched then).
 */
void vrange_rescale(struct vrange_list *l, uint64_t from, uint64_t to, uint64_t cap_us);
int vrange_push(struct vrange_list *l, uint64_t start, uint64_t end, uint32_t nr_accesses,
		uint64_t age_us);
void vrange_list_fini(struct vrange_list *l);
uint64_t vrange_bytes(const struct vrange_list *l);
/* out = a ∩ b (attributes from a); out = a − b. out must differ from a and b. */
int vrange_intersect(const struct vrange_list *a, const struct vrange_list *b,
		     struct vrange_list *out);
int vrange_subtract(const struct vrange_list *a, const struct vrange_list *b,
		    struct vrange_list *out);
/*
 * vrange_confirm: the parts of cur that were also in prev and whose age grew by at least
 * min_gain_us since (an access in between would have reset it): two snapshots that agree.
 * The bytes in both whose age did not grow are added to *turned.
 */
int vrange_confirm(const struct vrange_list *cur, const struct vrange_list *prev,
		   uint64_t min_gain_us, struct vrange_list *out, uint64_t *turned);
/*
 * The kdamond's own clock. DAMON counts a region's age in aggregation intervals and an interval
 * in samples: on a loaded host every sample takes longer than sample_interval, the intervals
 * stretch, and age x aggr_interval understates how long a region has been idle. The interval
 * kept is read off regions whose bounds did not change between two snapshots some seconds
 * apart. vaddr_age_gain: the most intervals any region of cur aged since prev (same start and
 * end; prev's age_us holds intervals). vaddr_interval_estimate: a lower bound of the interval
 * from the wall time between the snapshots and that gain, never below aggr_us; 0 when the gain
 * is too small to tell.
 */
#define VADDR_CLOCK_MIN_GAIN 4
#define VADDR_CLOCK_SPAN_US 4000000ULL /* snapshots at least this far apart */
#define VADDR_CLOCK_KEEP 8	       /* the least of the last estimates is used */
/* ranges the kernel refused (EINVAL) are not offered again for this long, or until maps changes */
#define VADDR_REFUSED_KEEP_US 60000000ULL
/* a target with nothing left to advise goes this long at most without its maps being read */
#define VADDR_MAPS_KEEP_US 30000000ULL
uint32_t vaddr_age_gain(const struct vrange_list *prev, const struct damon_region *cur, unsigned n);
uint64_t vaddr_interval_estimate(uint64_t wall_us, uint32_t gain, uint64_t aggr_us);
/* vma_parse_smaps: the VMAs of /proc/PID/smaps (or maps, without VmFlags) text. */
int vma_parse_smaps(const char *buf, struct vma_list *ret);
void vma_list_fini(struct vma_list *l);
/*
 * vrange_clip: the parts of `in` that lie inside VMAs whose class is in `kinds`
 * (MEMORY_ANON/MEMORY_FILE bits), an entry per VMA piece (never merged with the next VMA's:
 * the kernel refuses a locked VMA as a whole), page aligned, into out; the bytes
 * left out are added to skipped[SKIP_VMA], skipped[SKIP_LOCKED] or, for a kind the caller
 * wants but may not take now (`blocked`), skipped[SKIP_SWAP_RESERVE].
 */
int vrange_clip(const struct vrange_list *in, const struct vma_list *vmas, unsigned kinds,
		unsigned blocked, uint64_t page_size, struct vrange_list *out, uint64_t *skipped);

struct vaddr_policy_stats {
	uint64_t cycles, cgroups, procs;
	uint64_t cold_bytes;		  /* candidates in the last snapshot */
	uint64_t advised_bytes_total;	  /* completed by the kernel */
	uint64_t skipped_total[SKIP_MAX]; /* bytes, by reason */
	uint64_t errors_total[MADV_ERR_MAX];
	uint64_t failures_total[FAIL_MAX]; /* cycles the policy's work failed, by kind */
	uint64_t rss_drop_bytes_total;	   /* observed RSS drop of the advised processes */
	uint64_t memcg_drop_bytes_total;   /* observed anon+file drop of the cgroups */
	bool memcg_known; /* some cgroup had a memory.stat at the last read (cgroup v2 without
			   * the memory controller has none): memcg_drop means something */
	uint64_t last_advised, last_rss_drop;
	double psi_some_avg10;	 /* the highest of its cgroups, -1 when unknown */
	uint64_t frozen_cgroups; /* frozen_only: its cgroups frozen when last read */
	bool freezer_missing;	 /* frozen_only without a freezer to read: nothing reclaimed */
};

struct vaddr_stats {
	uint64_t cycles, snapshots, snapshot_errors, commits, restarts;
	uint64_t targets, unadvisable;
	uint64_t snapshot_us_total;
	uint64_t aggr_us;	  /* the aggregation interval the kdamond keeps, as measured */
	uint64_t empty_snapshots; /* targets a snapshot had no region of (no news) */
	uint64_t maps_reads;	  /* /proc/PID/maps reads */
	uint64_t maps_kept;	  /* targets with nothing to advise whose last maps did */
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
const struct vaddr_policy_stats *vaddr_policy_stats(const struct vaddr *v, const char *policy);
const struct policy_state *vaddr_policy_state(const struct vaddr *v, const char *policy);
/* The effective reference semantics (REFSEM_IGNORE or REFSEM_RECHECK) after auto. */
enum cfg_refsem vaddr_refsem(const struct vaddr *v);
/* vaddr_refsem_of_release: what `auto` means for a kernel release string ("6.12.5-..."). */
enum cfg_refsem vaddr_refsem_of_release(const char *release);
/* vaddr_log_summary: one info line per vaddr policy with this cycle's figures. */
void vaddr_log_summary(const struct vaddr *v);

#endif
