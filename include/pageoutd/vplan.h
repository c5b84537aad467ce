/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vplan: the vaddr engine's selection over one DAMON snapshot of one target, and the books it
 * keeps of that target between snapshots. Which mapped pieces of DAMON's regions are cold, hot
 * or too sparsely sampled to judge; which cold pieces two snapshots agree on; whether a target
 * has nothing left to advise; how much of the ordered work fits the quota and the swap room;
 * and the kdamond's own clock, read off the regions' ages. Pure: the caller reads the snapshot
 * and the maps and passes them in; nothing here reads a file or makes a system call.
 */
#ifndef PAGEOUTD_VPLAN_H
#define PAGEOUTD_VPLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pageoutd/damon.h"
#include "pageoutd/vma.h"
#include "pageoutd/vmemo.h"
#include "pageoutd/vrange.h"

/*
 * A mapped piece of a DAMON region counts only once the region's age has put this many
 * samples on it (age in samples x the piece's share of the region), none of them seeing an
 * access: DAMON samples one random address of a region at a time, so its "no access" speaks
 * for each part of the region in proportion to the samples that fell there. A hole, a cold
 * mapping and a few pages of a hot one can share a region, which DAMON may never split apart:
 * until then each mapping's piece waits.
 */
#define VPLAN_SPARSE_MIN_SAMPLES 20
/* the kdamond's clock: the least gain in intervals an estimate is made from */
#define VPLAN_CLOCK_MIN_GAIN 4
#define VPLAN_CLOCK_SPAN_US 4000000ULL /* a target's clock snapshots at least this far apart */
#define VPLAN_CLOCK_KEEP 8	       /* the least of the last estimates is used */
/* ranges the kernel refused (EINVAL) are not offered again for this long, or until maps changes */
#define VPLAN_REFUSED_KEEP_US 60000000ULL
/* a target with nothing left to advise goes this long at most without its maps being read */
#define VPLAN_MAPS_KEEP_US 30000000ULL

/* How one target's regions are judged this cycle. */
struct vplan_params {
	uint64_t sample_us;    /* the kdamond's sampling interval (0 is taken as 1) */
	uint64_t clock_us;     /* what one interval of a region's age lasts (vplan_clock_update) */
	uint64_t max_accesses; /* a region with more accesses per interval is hot */
	uint64_t min_age_us;   /* a cold piece younger than this is young, not a candidate */
	uint64_t watched_us;   /* how long the target has been watched at its DAMON index */
};

/*
 * What the plan keeps of one target between snapshots. Owned by the caller: zeroed at
 * registration, freed with vplan_target_fini.
 */
struct vplan_target {
	uint64_t since_us;	    /* watched at its current DAMON index since */
	struct vrange_list prev;    /* candidates of the previous snapshot */
	uint64_t prev_us;	    /* when prev was taken, 0: none */
	uint64_t prev_clock;	    /* the interval prev's ages were counted in */
	struct vrange_list advised; /* advised and not seen accessed since */
	/* refused by the kernel (EINVAL: locked, hugetlb, PFN or I/O VMA), until maps changes */
	struct vrange_list refused;
	uint64_t refused_us;	 /* when the first of refused was refused */
	struct vma_list vmas;	 /* its VMAs when maps was last read */
	uint64_t vmas_us;	 /* then; 0: read it this cycle */
	uint64_t maps_hash;	 /* of that maps text */
	struct vrange_list seen; /* its regions (age in intervals) when the clock was read */
	uint64_t seen_us;	 /* then */
	struct vmemo memo;	 /* its advised ranges watched, and those found back (vmemo.h) */
};

/* vplan_target_fini: free t's lists; t is zeroed after it. */
void vplan_target_fini(struct vplan_target *t);
/*
 * vplan_target_forget: what DAMON said of t's regions no longer holds (a new kdamond, or
 * another process at its index): t is watched afresh from now; advised, refused and the memo
 * stay.
 */
void vplan_target_forget(struct vplan_target *t, uint64_t now);
/*
 * vplan_maps_read: t's maps, whose text hashes to hash, were parsed into t->vmas at now.
 * Refused ranges are dropped when the text changed or after VPLAN_REFUSED_KEEP_US (munlock
 * changes no line of maps).
 */
void vplan_maps_read(struct vplan_target *t, uint64_t hash, uint64_t now);
/* vplan_record_refused: the kernel refused [start, end) at now. Returns 0 or -ENOMEM. */
int vplan_record_refused(struct vplan_target *t, uint64_t start, uint64_t end, uint64_t now);

/*
 * vplan_max_accesses: the nr_accesses above which a region is hot, for a max_access_rate of
 * rate_ppm of the samples of an aggregation interval.
 */
uint64_t vplan_max_accesses(uint32_t rate_ppm, uint64_t aggr_us, uint64_t sample_us);

/* One snapshot's regions of a target, split by what they say. Freed with vplan_pieces_fini. */
struct vplan_pieces {
	struct vrange_list cold;  /* mapped pieces at least min_age old: candidates */
	struct vrange_list young; /* mapped pieces idle, but for less than min_age */
	struct vrange_list hot;	  /* whole regions accessed above max_accesses */
	uint64_t sparse_bytes;	  /* mapped pieces too sparsely sampled to judge yet */
};

/*
 * vplan_pieces: split the regions of sr by p into ret (zeroed by the caller; appended to).
 * Cold and young hold the parts of idle regions that lie in `mapped` (sorted; one entry per
 * VMA), each part judged on its own, with the region's nr_accesses and its age in µs (in
 * p->clock_us intervals, never more than p->watched_us); adjacent parts with the same figures
 * are merged (vrange_push). A part on which the region's age has put fewer than
 * VPLAN_SPARSE_MIN_SAMPLES samples is in neither: its bytes go to sparse_bytes. Hot regions
 * are whole (mapped or not). Returns 0 or -ENOMEM.
 */
int vplan_pieces(const struct vplan_params *p, const struct damon_scheme_regions *sr,
		 const struct vrange_list *mapped, struct vplan_pieces *ret);
void vplan_pieces_fini(struct vplan_pieces *pc);

/* What one target's selection counted, in bytes (added to, never reset). */
struct vplan_tally {
	uint64_t cold;	      /* candidates of this snapshot */
	uint64_t young;	      /* idle, younger than min_age */
	uint64_t sparse;      /* too sparsely sampled to judge */
	uint64_t unconfirmed; /* candidates now, not in the previous snapshot */
	uint64_t turned_hot;  /* candidates then, accessed since */
	uint64_t learned;     /* candidates under a record of t's memo not idle for its hold */
};

/*
 * vplan_select: what target t may be advised now, into ret_todo (emptied first): this
 * snapshot's candidates (vplan_pieces over `mapped`, every VMA of t as a piece), kept only
 * where the previous snapshot's candidates agree when `confirm` is set (the kernel does not
 * re-check references: vrange_confirm, with a required age gain of a quarter of the wall time
 * between them), less what was advised and not seen hot since, less what the kernel refused,
 * less what t's memo holds back (vmemo_hold: found back soon after an earlier advice, and not
 * idle long enough since). Advised ranges DAMON now sees hot are forgotten; this snapshot's
 * candidates become prev.
 * Counts go to *tally. Returns 0 or -ENOMEM (t's books are then left as they were, but for
 * advised).
 */
int vplan_select(struct vplan_target *t, const struct vplan_params *p,
		 const struct damon_scheme_regions *sr, const struct vrange_list *mapped,
		 bool confirm, uint64_t now, struct vrange_list *ret_todo,
		 struct vplan_tally *tally);
/*
 * vplan_settled: whether target t has nothing left to advise whatever its maps say now: its
 * maps were read less than VPLAN_MAPS_KEEP_US ago, no refusal is older than
 * VPLAN_REFUSED_KEEP_US, and every candidate piece of sr over its VMAs of `kinds` (the kinds
 * it may advise now; none: settled) is already advised or refused. A settled target's maps
 * need not be read this cycle. False on -ENOMEM.
 */
bool vplan_settled(const struct vplan_target *t, const struct vplan_params *p,
		   const struct damon_scheme_regions *sr, unsigned kinds, uint64_t now);

/* A piece of work: a clipped range of the caller's target number `target`. */
struct vplan_work {
	size_t target;
	struct vrange r;
};

/* The room a policy's work of one cycle is fitted into. */
struct vplan_room {
	uint64_t budget;      /* bytes the quota allows; taken bytes are subtracted */
	uint64_t anon;	      /* anonymous bytes swap allows; taken anon bytes are subtracted */
	uint64_t quota_cut;   /* bytes left out for the quota (added to) */
	uint64_t reserve_cut; /* anonymous bytes left out for the swap reserve (added to) */
};

/*
 * vplan_cut_range: shorten r to at most limit bytes, rounded down to whole pages; what is cut
 * is added to *cut. Returns r's size after the cut.
 */
uint64_t vplan_cut_range(struct vrange *r, uint64_t limit, uint64_t page_size, uint64_t *cut);
/*
 * vplan_take: order w coldest (fewest accesses), then oldest, then largest first, and keep at
 * its front what fits room (vplan_cut_range: an anonymous range first within room->anon, then
 * every range within room->budget; a range cut to nothing is dropped). Returns how many
 * pieces were kept.
 */
size_t vplan_take(struct vplan_work *w, size_t nw, uint64_t page_size, struct vplan_room *room);

/*
 * The kdamond's own clock. DAMON counts a region's age in aggregation intervals and an
 * interval in samples: on a loaded host every sample takes longer than sample_interval, the
 * intervals stretch, and age x aggr_interval understates how long a region has been idle.
 * The interval is read off regions whose bounds did not change between two snapshots some
 * seconds apart.
 *
 * vplan_age_gain: the most intervals any region of cur aged since prev (same start and end;
 * prev's age_us holds intervals). vplan_interval_estimate: a lower bound of the interval from
 * the wall time between the snapshots and that gain, never below aggr_us; 0 when the gain is
 * below VPLAN_CLOCK_MIN_GAIN.
 */
uint32_t vplan_age_gain(const struct vrange_list *prev, const struct damon_region *cur, unsigned n);
uint64_t vplan_interval_estimate(uint64_t wall_us, uint32_t gain, uint64_t aggr_us);
/*
 * vplan_clock_read: target t's estimate of the interval from its regions in sr against those
 * it kept at the last read (t->seen), which sr's regions then replace. Nothing is read (0)
 * when sr has no region or the last read is less than VPLAN_CLOCK_SPAN_US old. Returns the
 * estimate or 0 (none yet, or too little ageing to tell).
 */
uint64_t vplan_clock_read(struct vplan_target *t, const struct damon_scheme_regions *sr,
			  uint64_t aggr_us, uint64_t now);
/*
 * vplan_clock_update: best (the shortest estimate of a cycle; 0: none) joins the last
 * VPLAN_CLOCK_KEEP in kept[] (*n counts them); returns the least of those, or aggr_us when
 * there is none. It falls at once when the host gets less loaded, and rises only as the load
 * stays.
 */
uint64_t vplan_clock_update(uint64_t kept[VPLAN_CLOCK_KEEP], unsigned *n, uint64_t best,
			    uint64_t aggr_us);

#endif
