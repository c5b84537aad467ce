// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vplan: the vaddr selection over one snapshot of one target (vplan.h). Since Linux 6.9 the
 * kernel pages out what it is told even if it was touched a moment ago [K612 mm/madvise.c
 * madvise_cold_or_pageout_pte_range, no pageout re-check]: then a range is a candidate only
 * when two consecutive snapshots agree on it.
 */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pageoutd/config.h"
#include "pageoutd/damon.h"
#include "pageoutd/util.h"
#include "pageoutd/vma.h"
#include "pageoutd/vplan.h"
#include "pageoutd/vrange.h"

void vplan_target_fini(struct vplan_target *t)
{
	vrange_list_fini(&t->prev);
	vrange_list_fini(&t->advised);
	vrange_list_fini(&t->refused);
	vrange_list_fini(&t->seen);
	vma_list_fini(&t->vmas);
	vmemo_fini(&t->memo);
	memset(t, 0, sizeof(*t));
}

void vplan_target_forget(struct vplan_target *t, uint64_t now)
{
	t->since_us = now;
	t->prev.nr = 0;
	t->prev_us = 0;
	t->prev_clock = 0;
	t->seen.nr = 0;
}

void vplan_maps_read(struct vplan_target *t, uint64_t hash, uint64_t now)
{
	if (hash != t->maps_hash || now - t->refused_us > VPLAN_REFUSED_KEEP_US)
		t->refused.nr = 0;
	t->maps_hash = hash;
	t->vmas_us = now;
}

int vplan_record_refused(struct vplan_target *t, uint64_t start, uint64_t end, uint64_t now)
{
	if (!t->refused.nr)
		t->refused_us = now;
	return vrange_push(&t->refused, start, end, 0, 0);
}

uint64_t vplan_max_accesses(uint32_t rate_ppm, uint64_t aggr_us, uint64_t sample_us)
{
	return (uint64_t)rate_ppm * (aggr_us / (sample_us ? sample_us : 1)) / PPM_ONE;
}

/*
 * Position *j at the first range of the sorted list m that ends after s (a cursor for ascending
 * queries; a query below the last one starts over). Returns 0, or -ENOENT when none does.
 */
static int mapped_from(const struct vrange_list *m, uint64_t s, size_t *j)
{
	if (*j > m->nr || (*j<m->nr && * j> 0 && m->r[*j - 1].end > s))
		*j = 0;
	while (*j < m->nr && m->r[*j].end <= s)
		(*j)++;
	return *j < m->nr ? 0 : -ENOENT;
}

/* Whether the region g's age has put fewer than VPLAN_SPARSE_MIN_SAMPLES samples on [a, b). */
static bool sparse(const struct vplan_params *p, const struct damon_region *g, uint64_t age,
		   uint64_t a, uint64_t b)
{
	uint64_t sample = p->sample_us ? p->sample_us : 1;

	return (double)age / (double)sample * (double)(b - a) / (double)(g->end - g->start) <
	       VPLAN_SPARSE_MIN_SAMPLES;
}

/* The mapped pieces of one idle region g, aged age µs, into ret's cold or young list. */
static int region_pieces(const struct vplan_params *p, const struct damon_region *g, uint64_t age,
			 const struct vrange_list *mapped, size_t j, struct vplan_pieces *ret)
{
	struct vrange_list *to = age < p->min_age_us ? &ret->young : &ret->cold;

	for (size_t k = j; k < mapped->nr && mapped->r[k].start < g->end; k++) {
		uint64_t a = mapped->r[k].start > g->start ? mapped->r[k].start : g->start;
		uint64_t b = mapped->r[k].end < g->end ? mapped->r[k].end : g->end;

		if (sparse(p, g, age, a, b)) {
			ret->sparse_bytes += b - a;
			continue;
		}
		if (vrange_push(to, a, b, g->nr_accesses, age) < 0)
			return -ENOMEM;
	}
	return 0;
}

int vplan_pieces(const struct vplan_params *p, const struct damon_scheme_regions *sr,
		 const struct vrange_list *mapped, struct vplan_pieces *ret)
{
	size_t j = 0;

	for (unsigned i = 0; sr && i < sr->nr; i++) {
		const struct damon_region *g = &sr->regions[i];
		uint64_t age = (uint64_t)g->age * p->clock_us;

		if (g->nr_accesses > p->max_accesses) {
			if (vrange_push(&ret->hot, g->start, g->end, g->nr_accesses, 0) < 0)
				return -ENOMEM;
			continue;
		}
		/* never older than the target has been watched at this index */
		if (age > p->watched_us)
			age = p->watched_us;
		if (mapped_from(mapped, g->start, &j) < 0)
			continue;
		if (region_pieces(p, g, age, mapped, j, ret) < 0)
			return -ENOMEM;
	}
	return 0;
}

void vplan_pieces_fini(struct vplan_pieces *pc)
{
	vrange_list_fini(&pc->cold);
	vrange_list_fini(&pc->young);
	vrange_list_fini(&pc->hot);
	pc->sparse_bytes = 0;
}

/*
 * confirmed = the parts of cur that were candidates in t's previous snapshot too, and whose
 * age grew meanwhile by a quarter of the wall time between them at least (what the measured
 * clock may still miss). Ages are compared in one clock: prev's are rescaled to p's first, or
 * a fall of the measured interval would make every region look younger than it was then.
 */
static int confirm(struct vplan_target *t, const struct vplan_params *p,
		   const struct vrange_list *cur, uint64_t now, struct vrange_list *confirmed,
		   struct vplan_tally *tally)
{
	struct vrange_list gone = { 0 };
	uint64_t gain = t->prev_us ? (now - t->prev_us) / 4 : 0, turned = 0, both;
	int r = -ENOMEM;

	if (t->prev_clock && t->prev_us)
		vrange_rescale(&t->prev, t->prev_clock, p->clock_us, t->prev_us - t->since_us);
	if (vrange_confirm(cur, &t->prev, gain, confirmed, &turned) < 0 ||
	    vrange_subtract(&t->prev, cur, &gone) < 0)
		goto out;
	both = vrange_bytes(confirmed) + turned;
	tally->turned_hot += vrange_bytes(&gone) + turned;
	tally->unconfirmed += vrange_bytes(cur) - both;
	r = 0;
out:
	vrange_list_fini(&gone);
	return r;
}

int vplan_select(struct vplan_target *t, const struct vplan_params *p,
		 const struct damon_scheme_regions *sr, const struct vrange_list *mapped,
		 bool need_confirm, uint64_t now, struct vrange_list *ret_todo,
		 struct vplan_tally *tally)
{
	struct vplan_pieces pc = { 0 };
	struct vrange_list tmp = { 0 }, confirmed = { 0 };
	int r = -ENOMEM;

	ret_todo->nr = 0;
	if (vplan_pieces(p, sr, mapped, &pc) < 0)
		goto out;
	tally->sparse += pc.sparse_bytes;
	tally->young += vrange_bytes(&pc.young);
	tally->cold += vrange_bytes(&pc.cold);
	/*
	 * Advised ranges stay "done" until DAMON sees them accessed: a range that only looks
	 * younger (DAMON merged or split its regions) is not advised again.
	 */
	if (vrange_subtract(&t->advised, &pc.hot, &tmp) < 0)
		goto out;
	vrange_list_swap(&t->advised, &tmp);
	if (need_confirm) {
		if (confirm(t, p, &pc.cold, now, &confirmed, tally) < 0)
			goto out;
	} else {
		/* the kernel re-checks references: one cold snapshot is enough */
		tmp.nr = 0;
		if (vrange_subtract(&pc.cold, &tmp, &confirmed) < 0)
			goto out;
	}
	if (vrange_subtract(&confirmed, &t->advised, ret_todo) < 0)
		goto out;
	if (t->refused.nr) {
		if (vrange_subtract(ret_todo, &t->refused, &tmp) < 0)
			goto out;
		vrange_list_swap(ret_todo, &tmp);
	}
	if (t->memo.nr) {
		if (vmemo_hold(&t->memo, ret_todo, now, &tmp, &tally->learned) < 0)
			goto out;
		vrange_list_swap(ret_todo, &tmp);
	}
	vrange_list_swap(&t->prev, &pc.cold);
	t->prev_us = now;
	t->prev_clock = p->clock_us;
	r = 0;
out:
	vplan_pieces_fini(&pc);
	vrange_list_fini(&tmp);
	vrange_list_fini(&confirmed);
	return r;
}

bool vplan_settled(const struct vplan_target *t, const struct vplan_params *p,
		   const struct damon_scheme_regions *sr, unsigned kinds, uint64_t now)
{
	struct vplan_pieces pc = { 0 };
	struct vrange_list m = { 0 }, a = { 0 };
	bool settled = false;

	if (!t->vmas_us || now - t->vmas_us > VPLAN_MAPS_KEEP_US ||
	    (t->refused.nr && now - t->refused_us > VPLAN_REFUSED_KEEP_US))
		return false;
	/* nothing it may advise now (every kind blocked): no piece is a candidate */
	if (!kinds)
		return true;
	/* the mappings of the kinds it may advise now: the others are never advised */
	if (vma_pieces(&t->vmas, kinds, &m) < 0 || vplan_pieces(p, sr, &m, &pc) < 0 ||
	    vrange_subtract(&pc.cold, &t->advised, &a) < 0 ||
	    vrange_subtract(&a, &t->refused, &pc.cold) < 0)
		goto out;
	settled = pc.cold.nr == 0;
out:
	vrange_list_fini(&m);
	vrange_list_fini(&a);
	vplan_pieces_fini(&pc);
	return settled;
}

uint64_t vplan_cut_range(struct vrange *r, uint64_t limit, uint64_t page_size, uint64_t *cut)
{
	uint64_t sz = r->end - r->start, part;

	if (sz <= limit)
		return sz;
	part = limit & ~(page_size - 1);
	*cut += sz - part;
	r->end = r->start + part;
	return part;
}

static int cmp_work_cold(const void *a, const void *b)
{
	const struct vplan_work *x = a, *y = b;
	uint64_t sx = x->r.end - x->r.start, sy = y->r.end - y->r.start;

	if (x->r.nr_accesses != y->r.nr_accesses)
		return x->r.nr_accesses < y->r.nr_accesses ? -1 : 1;
	if (x->r.age_us != y->r.age_us)
		return x->r.age_us > y->r.age_us ? -1 : 1;
	if (sx != sy)
		return sx > sy ? -1 : 1;
	return 0;
}

size_t vplan_take(struct vplan_work *w, size_t nw, uint64_t page_size, struct vplan_room *room)
{
	size_t take = 0;

	if (nw)
		qsort(w, nw, sizeof(*w), cmp_work_cold);
	for (size_t k = 0; k < nw; k++) {
		struct vplan_work x = w[k];
		uint64_t sz;

		if (x.r.kind & MEMORY_SWAP_BACKED)
			vplan_cut_range(&x.r, room->anon, page_size, &room->reserve_cut);
		sz = vplan_cut_range(&x.r, room->budget, page_size, &room->quota_cut);
		if (!sz)
			continue;
		room->budget -= sz;
		if (x.r.kind & MEMORY_SWAP_BACKED)
			room->anon -= sz;
		w[take++] = x;
	}
	return take;
}

uint32_t vplan_age_gain(const struct vrange_list *prev, const struct damon_region *cur, unsigned n)
{
	uint32_t best = 0;
	size_t j = 0;

	for (unsigned i = 0; i < n; i++) {
		while (j < prev->nr && prev->r[j].start < cur[i].start)
			j++;
		if (j < prev->nr && prev->r[j].start == cur[i].start &&
		    prev->r[j].end == cur[i].end && cur[i].age > prev->r[j].age_us &&
		    cur[i].age - prev->r[j].age_us > best)
			best = cur[i].age - (uint32_t)prev->r[j].age_us;
	}
	return best;
}

uint64_t vplan_interval_estimate(uint64_t wall_us, uint32_t gain, uint64_t aggr_us)
{
	uint64_t est;

	if (gain < VPLAN_CLOCK_MIN_GAIN)
		return 0;
	/* each snapshot is up to one interval late: at most gain + 2 intervals fit */
	est = wall_us / ((uint64_t)gain + 2);
	return est > aggr_us ? est : aggr_us;
}

uint64_t vplan_clock_read(struct vplan_target *t, const struct damon_scheme_regions *sr,
			  uint64_t aggr_us, uint64_t now)
{
	uint64_t est;

	if (!sr->nr || (t->seen.nr && now - t->seen_us < VPLAN_CLOCK_SPAN_US))
		return 0;
	est = t->seen.nr ? vplan_interval_estimate(now - t->seen_us,
						   vplan_age_gain(&t->seen, sr->regions, sr->nr),
						   aggr_us)
			 : 0;
	t->seen.nr = 0;
	for (unsigned k = 0; k < sr->nr; k++)
		if (vrange_push(&t->seen, sr->regions[k].start, sr->regions[k].end,
				sr->regions[k].nr_accesses, sr->regions[k].age) < 0) {
			t->seen.nr = 0;
			break;
		}
	t->seen_us = now;
	return est;
}

uint64_t vplan_clock_update(uint64_t kept[VPLAN_CLOCK_KEEP], unsigned *n, uint64_t best,
			    uint64_t aggr_us)
{
	uint64_t eff = 0;

	if (best)
		kept[(*n)++ % VPLAN_CLOCK_KEEP] = best;
	for (unsigned k = 0; k < *n && k < VPLAN_CLOCK_KEEP; k++)
		if (!eff || kept[k] < eff)
			eff = kept[k];
	return eff ? eff : aggr_us;
}
