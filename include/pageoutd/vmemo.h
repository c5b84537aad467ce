/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vmemo: the vaddr engine's memory of its mistakes, per process. A range pageoutd advised is
 * watched for a while; pages of it found present again in /proc/PID/pagemap (the caller reads
 * them) were a mistake: they are learned as a record under their virtual addresses, which
 * DAMON's region splits and merges do not change. A range under a record must have been idle
 * for VMEMO_HOLD_FACTOR times the longest re-access interval seen there before it is advised
 * again. When a range under a record is advised again and stays out for its whole watch, that
 * part of the record is forgiven. Watches and records are bounded per process and freed with
 * it (vmemo_fini). Pure: no I/O.
 */
#ifndef PAGEOUTD_VMEMO_H
#define PAGEOUTD_VMEMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pageoutd/vrange.h"

/* advised ranges watched per process; the one nearest its end gives way beyond it */
#define VMEMO_MAX_WATCHES 256
/* learned ranges per process; the nearest two merge beyond it */
#define VMEMO_MAX_RECORDS 64
/* an advised range is watched for this many times the min_age that chose it */
#define VMEMO_WATCH_FACTOR 8
/*
 * a learned range is advised again only once idle for this many times its re-access interval
 * (DAMON's sampling can miss a burst or two), doubled for each time it was found back again
 * (DAMON's age misled the plan there), at most VMEMO_MAX_DOUBLINGS times
 */
#define VMEMO_HOLD_FACTOR 4
#define VMEMO_MAX_DOUBLINGS 5
/* runs of pages found back less than this many pages apart are learned as one range */
#define VMEMO_GAP_PAGES 16

/* An advised range being watched. */
struct vmemo_watch {
	uint64_t start, end;
	uint64_t advised_us; /* when it was advised */
	uint64_t idle_us;    /* how long DAMON had seen it idle then */
	uint64_t until_us;   /* watched until then */
	uint64_t read_us;    /* the last read that found its pages out (advised_us at first) */
};

/* A range found in use again soon after it was advised. */
struct vmemo_record {
	uint64_t start, end;
	uint64_t interval_us; /* the longest re-access interval seen (idle before + out) */
	uint64_t hold_us;     /* advised again only after idle this long */
	uint64_t learned_us;  /* when it was last found back */
	uint32_t mistakes;    /* how often it was found back */
};

/* What the memory did, counted by the caller's figures (added to, never reset). */
struct vmemo_tally {
	uint64_t learned;	   /* ranges learned (a new record, or one found back again) */
	uint64_t back_pages;	   /* pages found back in watched ranges */
	uint64_t forgiven;	   /* records (or parts of them) forgiven */
	uint64_t forgiven_bytes;   /* their bytes */
	uint64_t last_interval_us; /* the re-access interval of the last range learned */
	uint64_t last_hold_us;	   /* and its hold */
};

/* Zero-initialised is empty; everything is freed by vmemo_fini. */
struct vmemo {
	struct vmemo_watch *w;
	size_t nw, wcap;
	struct vmemo_record *rec;
	size_t nr, rcap;
};

void vmemo_fini(struct vmemo *m);

/*
 * vmemo_watch: [start, end), advised at now after idle_us of idleness, is watched until
 * now + window_us, or longer when a record covers part of it (its hold: a re-access may come
 * that late). A watched range it overlaps gives way to it. Returns 0 or -ENOMEM (not watched).
 */
int vmemo_watch(struct vmemo *m, uint64_t start, uint64_t end, uint64_t idle_us, uint64_t window_us,
		uint64_t now);
/*
 * vmemo_expire: drop the watches whose time is up at now; the records they cover are forgiven
 * there (the range stayed out, idle, for its whole watch). Counts go to *tally. Returns 0 or
 * -ENOMEM (a record could not be split: it is kept whole).
 */
int vmemo_expire(struct vmemo *m, uint64_t now, struct vmemo_tally *tally);
/*
 * vmemo_back: a read at now of the watch [start, end) (as m->w held it before the call) found
 * the pages in `back` present again (sorted runs of page_size pages; runs outside the watch
 * are ignored). Each run, joined to the next ones less than VMEMO_GAP_PAGES apart, becomes or
 * reinforces a record: its interval is the watch's idle_us plus the time since the advice
 * (the reuse came at most now), its hold VMEMO_HOLD_FACTOR times the longest interval seen
 * there, doubled for each mistake after the first. The runs leave the watch; the rest of it
 * was read out at now (read_us). Counts go to *tally; the learned ranges are appended to
 * *learned when it is not NULL (their age_us is the interval). Returns 0 or -ENOMEM. The
 * watches' indices may change.
 */
int vmemo_back(struct vmemo *m, uint64_t start, uint64_t end, const struct vrange_list *back,
	       uint64_t page_size, uint64_t now, struct vmemo_tally *tally,
	       struct vrange_list *learned);
/*
 * vmemo_hold: the parts of todo (sorted, with ages in µs) that lie under a record whose hold
 * is longer than their age or than the time since the record was last found back at now:
 * out = todo less those parts (out is emptied first and must differ from todo); their bytes
 * are added to *held. Returns 0 or -ENOMEM.
 */
int vmemo_hold(const struct vmemo *m, const struct vrange_list *todo, uint64_t now,
	       struct vrange_list *out, uint64_t *held);
/* vmemo_bytes: the bytes under m's records. */
uint64_t vmemo_bytes(const struct vmemo *m);

#endif
