// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The vaddr plan on hand-made snapshots: which pieces are cold, young, hot or too sparsely
 * sampled; two-snapshot confirmation; what was advised or refused is not offered again; when a
 * target is settled; cutting work to the quota and the swap room; the kdamond's clock.
 */
#include <config.h>

#include "pageoutd/config.h"
#include "pageoutd/damon.h"
#include "pageoutd/vma.h"
#include "pageoutd/vplan.h"
#include "../lib/tap.h"

#define K 4096ull /* a page */
#define S 1000000ull

/* 5 ms samples, 100 ms intervals, hot above 2 accesses, min_age 2 s, watched for an hour */
static const struct vplan_params P = { 5000, 100000, 2, 2 * S, 3600 * S };

static struct damon_scheme_regions snap(struct damon_region *r, unsigned n)
{
	return (struct damon_scheme_regions){ .nr = n, .regions = r };
}

static void mapped_add(struct vrange_list *m, uint64_t s, uint64_t e)
{
	vrange_append(m, s, e, 0, 0);
}

static void pieces(void)
{
	struct damon_region r[] = {
		{ 0, 100 * K, 0, 100 },		/* 10 s idle: cold */
		{ 100 * K, 200 * K, 5, 100 },	/* hot */
		{ 200 * K, 300 * K, 0, 5 },	/* 0.5 s: young */
		{ 300 * K, 1300 * K, 0, 100 },	/* cold, but only 5 pages mapped: sparse */
		{ 2000 * K, 2100 * K, 0, 100 }, /* cold, unmapped */
	};
	struct damon_scheme_regions sr = snap(r, 5);
	struct vrange_list m = { 0 };
	struct vplan_pieces pc = { 0 };
	struct vplan_params p = P;

	mapped_add(&m, 0, 40 * K);
	mapped_add(&m, 40 * K, 100 * K);
	mapped_add(&m, 150 * K, 250 * K);
	mapped_add(&m, 1295 * K, 1300 * K);
	is_int(vplan_pieces(&p, &sr, &m, &pc), 0, "pieces");
	ok(pc.cold.nr == 1 && pc.cold.r[0].start == 0 && pc.cold.r[0].end == 100 * K &&
		   pc.cold.r[0].age_us == 10 * S,
	   "cold: the mapped parts of an idle region old enough, aged in the kdamond's clock");
	ok(pc.hot.nr == 1 && pc.hot.r[0].start == 100 * K && pc.hot.r[0].end == 200 * K,
	   "hot: the whole region above max_accesses, mapped or not");
	ok(pc.young.nr == 1 && pc.young.r[0].start == 200 * K && pc.young.r[0].end == 250 * K,
	   "young: idle for less than min_age, only its mapped part");
	is_u64(pc.sparse_bytes, 5 * K,
	       "sparse: 5 pages of a 1000-page region got 10 of its 2000 samples, fewer than %d",
	       VPLAN_SPARSE_MIN_SAMPLES);
	vplan_pieces_fini(&pc);
	p.watched_us = 3 * S;
	vplan_pieces(&p, &sr, &m, &pc);
	ok(pc.cold.nr == 1 && pc.cold.r[0].age_us == 3 * S,
	   "no age exceeds how long the target was watched at its index");
	vplan_pieces_fini(&pc);
	p.watched_us = S;
	vplan_pieces(&p, &sr, &m, &pc);
	ok(pc.cold.nr == 0 && pc.young.nr == 2, "watched 1 s: every idle piece is young");
	vplan_pieces_fini(&pc);
	is_u64(vplan_max_accesses(500000, 100000, 5000), 10,
	       "max_access_rate 50%% of 20 samples per interval: 10 accesses");
	vrange_list_fini(&m);
}

/* one cold region [0, 100 pages) at age `age` intervals */
static int select_at(struct vplan_target *t, uint32_t acc, uint32_t age, uint64_t now, bool confirm,
		     struct vrange_list *todo, struct vplan_tally *n)
{
	struct damon_region r[] = { { 0, 100 * K, acc, age } };
	struct damon_scheme_regions sr = snap(r, 1);
	struct vrange_list m = { 0 };
	int ret;

	mapped_add(&m, 0, 100 * K);
	ret = vplan_select(t, &P, &sr, &m, confirm, now, todo, n);
	vrange_list_fini(&m);
	return ret;
}

static void confirmation(void)
{
	struct vplan_target t = { 0 };
	struct vrange_list todo = { 0 };
	struct vplan_tally n = { 0 };

	is_int(select_at(&t, 0, 100, 10 * S, true, &todo, &n), 0, "select");
	ok(todo.nr == 0 && n.cold == 100 * K && n.unconfirmed == 100 * K,
	   "a first cold snapshot is not enough: unconfirmed");
	n = (struct vplan_tally){ 0 };
	select_at(&t, 0, 140, 14 * S, true, &todo, &n);
	ok(todo.nr == 1 && vrange_bytes(&todo) == 100 * K && n.unconfirmed == 0,
	   "the next snapshot agrees, its age grew by 4 s: confirmed");
	n = (struct vplan_tally){ 0 };
	select_at(&t, 0, 145, 18 * S, true, &todo, &n);
	ok(todo.nr == 0 && n.turned_hot == 100 * K,
	   "age grew by 0.5 s in 4 s (less than a quarter): accessed in between, turned hot");
	n = (struct vplan_tally){ 0 };
	select_at(&t, 0, 30, 22 * S, true, &todo, &n);
	ok(todo.nr == 0 && n.turned_hot == 100 * K, "an age that was reset: turned hot");
	vplan_target_fini(&t);
	ok(t.prev.nr == 0 && t.prev.r == NULL, "fini frees the books");
	n = (struct vplan_tally){ 0 };
	select_at(&t, 0, 100, 10 * S, false, &todo, &n);
	ok(vrange_bytes(&todo) == 100 * K && n.unconfirmed == 0,
	   "the kernel re-checks references: one cold snapshot is enough");
	vplan_target_fini(&t);
	vrange_list_fini(&todo);
}

static void advised_refused(void)
{
	struct vplan_target t = { 0 };
	struct vrange_list todo = { 0 };
	struct vplan_tally n = { 0 };

	vrange_push(&t.advised, 0, 60 * K, 0, 0);
	select_at(&t, 0, 100, 10 * S, false, &todo, &n);
	ok(todo.nr == 1 && todo.r[0].start == 60 * K, "what was advised is not offered again");
	select_at(&t, 5, 100, 11 * S, false, &todo, &n);
	ok(todo.nr == 0 && t.advised.nr == 0, "a hot region ends its advised state");
	is_int(vplan_record_refused(&t, 20 * K, 30 * K, 12 * S), 0, "record a refusal");
	is_u64(t.refused_us, 12 * S, "the time of the first refusal is kept");
	vplan_record_refused(&t, 40 * K, 50 * K, 13 * S);
	is_u64(t.refused_us, 12 * S, "... not that of a later one");
	select_at(&t, 0, 100, 14 * S, false, &todo, &n);
	is_u64(vrange_bytes(&todo), 80 * K, "what the kernel refused is not offered again");
	vplan_maps_read(&t, 7, 15 * S);
	is_int(t.refused.nr, 0, "maps changed: the refusals are dropped");
	vplan_record_refused(&t, 20 * K, 30 * K, 16 * S);
	vplan_maps_read(&t, 7, 17 * S);
	is_int(t.refused.nr, 1, "maps as it was: refusals stand");
	vplan_maps_read(&t, 7, 16 * S + VPLAN_REFUSED_KEEP_US + 1);
	is_int(t.refused.nr, 0, "... for VPLAN_REFUSED_KEEP_US at most");
	t.prev_us = 5;
	vplan_target_forget(&t, 20 * S);
	ok(t.since_us == 20 * S && t.prev.nr == 0 && t.prev_us == 0 && t.seen.nr == 0,
	   "forget: watched afresh from now");
	vplan_target_fini(&t);
	vrange_list_fini(&todo);
}

static void settled(void)
{
	struct damon_region r[] = { { 0, 100 * K, 0, 100 } };
	struct damon_scheme_regions sr = snap(r, 1);
	struct vplan_target t = { 0 };
	uint64_t now = 100 * S;

	vma_parse_smaps("00000000-00064000 rw-p 00000000 00:00 0 \n", &t.vmas);
	ok(!vplan_settled(&t, &P, &sr, MEMORY_ANON, now), "maps never read: not settled");
	t.vmas_us = now - S;
	ok(!vplan_settled(&t, &P, &sr, MEMORY_ANON, now), "a cold piece not advised: not settled");
	ok(vplan_settled(&t, &P, &sr, MEMORY_FILE, now),
	   "no VMA of the kinds it may advise: settled");
	ok(vplan_settled(&t, &P, &sr, 0, now), "every kind blocked: settled");
	vrange_push(&t.advised, 0, 100 * K, 0, 0);
	ok(vplan_settled(&t, &P, &sr, MEMORY_ANON, now), "everything cold advised: settled");
	vplan_record_refused(&t, 0, K, now - VPLAN_REFUSED_KEEP_US - 1);
	ok(!vplan_settled(&t, &P, &sr, MEMORY_ANON, now), "a stale refusal: not settled");
	t.refused.nr = 0;
	t.vmas_us = now - VPLAN_MAPS_KEEP_US - 1;
	ok(!vplan_settled(&t, &P, &sr, MEMORY_ANON, now), "maps too old: not settled");
	vplan_target_fini(&t);
}

static void cut_and_take(void)
{
	struct vrange r = { 0, 10 * K + 100, 0, 0, 0 };
	uint64_t cut = 0;
	struct vplan_work w[] = {
		{ 0, { 0, K, 0, 10 * S, MEMORY_FILE } },
		{ 1, { 0, 2 * K, 0, 20 * S, MEMORY_ANON } },
		{ 2, { 0, K, 1, 99 * S, MEMORY_ANON } },
	};
	struct vplan_room room = { .budget = 3 * K, .anon = K + K / 2 };

	is_u64(vplan_cut_range(&r, 20 * K, K, &cut), 10 * K + 100, "a range within the limit");
	is_u64(cut, 0, "... is not cut");
	is_u64(vplan_cut_range(&r, 5 * K + 10, K, &cut), 5 * K, "cut to whole pages");
	ok(r.end == 5 * K && cut == 5 * K + 100, "the cut bytes are counted");
	is_u64(vplan_take(w, 3, K, &room), 2, "two of three pieces fit");
	ok(w[0].target == 1 && w[0].r.end == K && w[1].target == 0,
	   "coldest, then oldest first; anon cut to the swap room");
	ok(room.reserve_cut == 2 * K && room.quota_cut == 0 && room.budget == K &&
		   room.anon == K / 2,
	   "anon bytes beyond the room are counted for the reserve; the room shrinks");
	room = (struct vplan_room){ .budget = K, .anon = UINT64_MAX };
	w[0] = (struct vplan_work){ 0, { 0, 4 * K, 0, S, MEMORY_FILE } };
	is_u64(vplan_take(w, 1, K, &room), 1, "the quota");
	ok(w[0].r.end == K && room.quota_cut == 3 * K && room.budget == 0,
	   "cuts the range to the budget and counts the rest");
}

static void clock(void)
{
	struct vrange_list prev = { 0 };
	/* 0-10K and 30-40K kept their bounds; 10-30K split since */
	const struct damon_region cur[] = { { 0, 10 * K, 0, 25 },
					    { 10 * K, 20 * K, 0, 40 },
					    { 20 * K, 30 * K, 0, 40 },
					    { 30 * K, 40 * K, 3, 2 } };

	vrange_push(&prev, 0, 10 * K, 0, 11);
	vrange_push(&prev, 10 * K, 30 * K, 0, 20);
	vrange_push(&prev, 30 * K, 40 * K, 0, 30);
	is_u64(vplan_age_gain(&prev, cur, 4), 14,
	       "the gain is the most intervals a region with unchanged bounds aged (a reset one "
	       "and split ones do not count)");
	is_u64(vplan_age_gain(&prev, cur, 0), 0, "no regions: no gain");
	/* 14 intervals in 5.6 s: 350 ms each; the bound allows a late snapshot either side */
	is_u64(vplan_interval_estimate(5600000, 14, 100000), 350000,
	       "a stretched interval is measured as a lower bound: 5.6 s / (14 + 2)");
	is_u64(vplan_interval_estimate(4000000, 40, 100000), 100000,
	       "never shorter than aggr_interval");
	is_u64(vplan_interval_estimate(4000000, VPLAN_CLOCK_MIN_GAIN - 1, 100000), 0,
	       "too little ageing to tell: no estimate");
	vrange_list_fini(&prev);
}

static void clock_keep(void)
{
	struct damon_region r[] = { { 0, 10 * K, 0, 10 } };
	struct damon_scheme_regions sr = snap(r, 1);
	struct vplan_target t = { 0 };
	uint64_t kept[VPLAN_CLOCK_KEEP] = { 0 };
	unsigned n = 0;

	is_u64(vplan_clock_read(&t, &sr, 100000, 10 * S), 0, "first read: no estimate");
	is_u64(t.seen.nr, 1, "the regions are kept");
	r[0].age = 24;
	is_u64(vplan_clock_read(&t, &sr, 100000, 12 * S), 0, "2 s later: too soon to read");
	is_u64(t.seen_us, 10 * S, "and the kept regions stay");
	is_u64(vplan_clock_read(&t, &sr, 100000, 10 * S + 5600000), 350000,
	       "5.6 s later, 14 intervals on: 350 ms each");
	is_u64(vplan_clock_update(kept, &n, 0, 100000), 100000, "no estimate: aggr_interval");
	is_u64(vplan_clock_update(kept, &n, 350000, 100000), 350000, "one estimate");
	is_u64(vplan_clock_update(kept, &n, 200000, 100000), 200000, "it falls at once");
	for (int i = 0; i < VPLAN_CLOCK_KEEP - 1; i++)
		vplan_clock_update(kept, &n, 300000, 100000);
	is_u64(vplan_clock_update(kept, &n, 0, 100000), 200000, "and stays while it is kept");
	is_u64(vplan_clock_update(kept, &n, 300000, 100000), 300000,
	       "it rises once VPLAN_CLOCK_KEEP later estimates replaced it");
	vplan_target_fini(&t);
}

int main(void)
{
	pieces();
	confirmation();
	advised_refused();
	settled();
	cut_and_take();
	clock();
	clock_keep();
	return tap_exit();
}
