// SPDX-License-Identifier: GPL-2.0-or-later
/* The range lists of the vaddr plan: building, set arithmetic, confirmation and rescaling. */
#include <config.h>

#include "pageoutd/vrange.h"
#include "../lib/tap.h"

#define K 4096ull

static struct vrange_list L(const uint64_t (*r)[2], size_t n) {
	struct vrange_list l = { 0 };

	for (size_t i = 0; i < n; i++)
		vrange_push(&l, r[i][0], r[i][1], (unsigned)i, 0);
	return l;
}

static void
ranges(void)
{
	const uint64_t a_[][2] = { { 0, 10 * K }, { 20 * K, 30 * K } };
	const uint64_t b_[][2] = { { 5 * K, 25 * K } };
	struct vrange_list a = L(a_, 2), b = L(b_, 1), o = { 0 };

	vrange_intersect(&a, &b, &o);
	ok(o.nr == 2 && o.r[0].start == 5 * K && o.r[0].end == 10 * K && o.r[1].start == 20 * K &&
		   o.r[1].end == 25 * K,
	   "intersection of two range sets");
	vrange_subtract(&a, &b, &o);
	ok(o.nr == 2 && o.r[0].end == 5 * K && o.r[1].start == 25 * K && o.r[1].end == 30 * K,
	   "difference of two range sets");
	is_u64(vrange_bytes(&o), 10 * K, "bytes of a set");
	vrange_subtract(&b, &a, &o);
	ok(o.nr == 1 && o.r[0].start == 10 * K && o.r[0].end == 20 * K, "the other difference");
	{
		struct vrange_list prev = { 0 }, cur = { 0 };
		uint64_t turned = 0;

		/* two regions cold in both snapshots 4 s apart: one aged on, one was reset */
		vrange_push(&prev, 0, 10 * K, 0, 5000000);
		vrange_push(&prev, 10 * K, 20 * K, 0, 5000000);
		vrange_push(&cur, 0, 10 * K, 0, 9000000);
		vrange_push(&cur, 10 * K, 20 * K, 0, 3500000);
		vrange_confirm(&cur, &prev, 1000000, &o, &turned);
		ok(o.nr == 1 && o.r[0].end == 10 * K && turned == 10 * K,
		   "two snapshots agree only where the age kept growing; a reset age turned hot");
		vrange_list_fini(&prev);
		vrange_list_fini(&cur);
	}
	vrange_list_fini(&a);
	vrange_list_fini(&b);
	vrange_list_fini(&o);
}

/* push merges only a true continuation; append never merges; sort and swap keep the entries */
static void building(void)
{
	struct vrange_list l = { 0 }, m = { 0 };

	vrange_push(&l, 0, K, 1, 5);
	vrange_push(&l, K, 2 * K, 1, 5);
	ok(l.nr == 1 && l.r[0].end == 2 * K, "push extends a continuation with the same figures");
	vrange_push(&l, 2 * K, 3 * K, 2, 5);
	vrange_push(&l, 4 * K, 5 * K, 2, 5);
	is_int(l.nr, 3, "push: other accesses, or a gap, start an entry of their own");
	vrange_append(&l, 5 * K, 6 * K, 2, 5);
	is_int(l.nr, 4, "append keeps a continuation apart");
	is_int(vrange_append(&l, 7 * K, 7 * K, 0, 0), 0, "an empty range is no error ...");
	is_int(l.nr, 4, "... and adds nothing");
	is_u64(vrange_bytes(&l), 5 * K, "bytes of a list");
	vrange_push(&m, 9 * K, 10 * K, 0, 0);
	vrange_push(&m, 0, K, 0, 0);
	vrange_sort(&m);
	ok(m.nr == 2 && m.r[0].start == 0 && m.r[1].start == 9 * K, "sort by start address");
	vrange_list_swap(&l, &m);
	ok(l.nr == 2 && m.nr == 4, "swap exchanges the lists");
	vrange_list_fini(&l);
	ok(l.nr == 0 && l.r == NULL, "fini leaves an empty list");
	vrange_list_fini(&m);
}

/* subtracting a set that covers a range in several pieces leaves the gaps between them */
static void subtract_pieces(void)
{
	const uint64_t a_[][2] = { { 0, 100 * K } };
	const uint64_t b_[][2] = { { 10 * K, 20 * K }, { 30 * K, 40 * K }, { 90 * K, 110 * K } };
	struct vrange_list a = L(a_, 1), b = L(b_, 3), o = { 0 };

	vrange_subtract(&a, &b, &o);
	ok(o.nr == 3 && o.r[0].end == 10 * K && o.r[1].start == 20 * K && o.r[1].end == 30 * K &&
		   o.r[2].start == 40 * K && o.r[2].end == 90 * K,
	   "a − b: the three gaps, nothing past b's last range");
	vrange_intersect(&b, &a, &o);
	is_u64(vrange_bytes(&o), 30 * K, "b ∩ a: b's ranges clipped to a");
	vrange_list_fini(&a);
	vrange_list_fini(&b);
	vrange_list_fini(&o);
}

/* The kdamond's clock read off two snapshots of one target's regions. */
static void rescale(void)
{
	struct vrange r[] = { { 0, 4096, 0, 7000000, 0 }, { 8192, 12288, 0, 1000000, 0 } };
	struct vrange_list l = { 2, 2, r };

	/* 70 and 10 intervals of 100 ms, counted in the 350 ms the kdamond was found to keep */
	vrange_rescale(&l, 100000, 350000, 20000000);
	ok(r[0].age_us == 20000000 && r[1].age_us == 3500000,
	   "rescale: ages follow the clock, capped at how long the process was watched");
	vrange_rescale(&l, 350000, 100000, UINT64_MAX);
	ok(r[0].age_us == 5714285 && r[1].age_us == 1000000, "rescale: and back down");
	vrange_rescale(&l, 0, 100000, 0);
	ok(r[0].age_us == 5714285, "rescale: no earlier clock, nothing to do");
}

int main(void)
{
	ranges();
	building();
	subtract_pieces();
	rescale();
	return tap_exit();
}
