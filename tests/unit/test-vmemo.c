// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The vaddr engine's memory of mistakes (vmemo): advised ranges watched, pages found back
 * learned under their addresses whatever DAMON's regions look like, held back until idle for
 * four times their interval, forgiven when they stay out, bounded per process.
 */
#include <config.h>

#include "pageoutd/policy.h"
#include "pageoutd/vmemo.h"
#include "../lib/tap.h"

#define K 4096ull
#define S 1000000ull /* µs */

/* a todo list of pieces [a, b) x K with an age */
static struct vrange_list todo(const uint64_t (*r)[3], size_t n)
{
	struct vrange_list l = { 0 };

	for (size_t i = 0; i < n; i++)
		vrange_append(&l, r[i][0] * K, r[i][1] * K, 0, r[i][2]);
	return l;
}

static struct vrange_list run(uint64_t a, uint64_t b)
{
	struct vrange_list l = { 0 };

	vrange_append(&l, a * K, b * K, 0, 0);
	return l;
}

static void learn_and_hold(void)
{
	struct vmemo m = { 0 };
	struct vmemo_tally n = { 0 };
	struct vrange_list back = run(10, 20), learned = { 0 }, out = { 0 }, t;
	uint64_t held = 0;

	/* advised at 100 s after 3 s idle, watched for 24 s */
	ok(vmemo_watch(&m, 0, 100 * K, 3 * S, 24 * S, 100 * S) == 0 && m.nw == 1,
	   "an advised range is watched");
	ok(m.w[0].until_us == 124 * S && m.w[0].idle_us == 3 * S, "for its window");
	/* at 117 s pages 10-20 are present again: used 20 s after the last use before advice */
	ok(vmemo_back(&m, 0, 100 * K, &back, K, 117 * S, &n, &learned) == 0, "a read of it");
	ok(m.nr == 1 && m.rec[0].start == 10 * K && m.rec[0].end == 20 * K, "the run is learned");
	is_u64(m.rec[0].interval_us, 20 * S, "its interval: idle before + out");
	is_u64(m.rec[0].hold_us, 80 * S, "its hold: four times the interval");
	ok(n.learned == 1 && n.back_pages == 10 && learned.nr == 1, "counted, and returned");
	ok(m.nw == 2 && m.w[0].end == 10 * K && m.w[1].start == 20 * K && m.w[1].read_us == 117 * S,
	   "the run leaves the watch, the rest stays, read now");
	is_u64(vmemo_bytes(&m), 10 * K, "bytes under records");
	{
		/*
		 * DAMON's regions split and merge the range any way: each piece is judged against
		 * the record by its own age
		 */
		const uint64_t a[][3] = { { 0, 12, 30 * S },
					  { 12, 15, 30 * S },
					  { 15, 50, 90 * S } };

		t = todo(a, 3);
		ok(vmemo_hold(&m, &t, 200 * S, &out, &held) == 0,
		   "hold over pieces of another layout");
		ok(out.nr == 2 && out.r[0].start == 0 && out.r[0].end == 10 * K &&
			   out.r[1].start == 15 * K && out.r[1].end == 50 * K,
		   "the learned part younger than its hold is left out, the rest goes");
		is_u64(held, 5 * K, "held-back bytes counted");
		vrange_list_fini(&t);
	}
	{
		const uint64_t a[][3] = { { 0, 100, 90 * S } };

		held = 0;
		t = todo(a, 1);
		vmemo_hold(&m, &t, 130 * S, &out, &held);
		ok(out.nr == 2 && held == 10 * K,
		   "DAMON's age says idle for its hold, but it was found back only 13 s ago: held");
		held = 0;
		vmemo_hold(&m, &t, 196 * S, &out, &held);
		ok(out.nr == 2 && held == 10 * K, "79 s after: still held");
		held = 0;
		vmemo_hold(&m, &t, 200 * S, &out, &held);
		ok(out.nr == 1 && out.r[0].end == 100 * K && held == 0,
		   "idle for its hold, by DAMON's age and since found back: advised again");
		vrange_list_fini(&t);
	}
	/* advised again at 160 s (idle 90 s): watched for its hold, not only the window */
	ok(vmemo_watch(&m, 10 * K, 20 * K, 90 * S, 24 * S, 160 * S) == 0, "advised again");
	ok(m.w[1].start == 10 * K && m.w[1].until_us == 240 * S, "watched as long as it is held");
	/* found back again at 170 s: reinforced, a longer hold */
	vrange_list_fini(&learned);
	ok(vmemo_back(&m, 10 * K, 20 * K, &back, K, 170 * S, &n, &learned) == 0 && m.nr == 1 &&
		   m.rec[0].mistakes == 2 && m.rec[0].interval_us == 100 * S &&
		   m.rec[0].hold_us == 800 * S,
	   "found back again: two mistakes, interval 100 s, hold twice 4 x 100 s");
	vmemo_fini(&m);
	ok(m.nw == 0 && m.nr == 0 && !m.w && !m.rec, "the process exits: all freed");
	vrange_list_fini(&back);
	vrange_list_fini(&learned);
	vrange_list_fini(&out);
}

static void forgive(void)
{
	struct vmemo m = { 0 };
	struct vmemo_tally n = { 0 };
	struct vrange_list back = run(0, 8);

	vmemo_watch(&m, 0, 8 * K, 3 * S, 24 * S, 0);
	vmemo_back(&m, 0, 8 * K, &back, K, 6 * S, &n, NULL);
	ok(m.nr == 1 && m.nw == 0 && m.rec[0].hold_us == 36 * S, "learned: hold 36 s");
	ok(vmemo_expire(&m, 100 * S, &n) == 0 && n.forgiven == 0 && m.nr == 1,
	   "a record is not forgiven while its range is not advised again");
	/* idle for its hold: advised again at 120 s, half of it stays out */
	vmemo_watch(&m, 0, 8 * K, 20 * S, 24 * S, 120 * S);
	ok(m.nw == 1 && m.w[0].until_us == 156 * S, "advised again, watched for its hold");
	vmemo_expire(&m, 155 * S, &n);
	ok(m.nw == 1 && m.nr == 1 && n.forgiven == 0, "not forgiven before its watch ends");
	vrange_list_fini(&back);
	back = run(0, 4);
	vmemo_back(&m, 0, 8 * K, &back, K, 130 * S, &n, NULL);
	ok(m.nr == 2 && m.rec[0].end == 4 * K && m.rec[0].mistakes == 2 &&
		   m.rec[1].start == 4 * K && m.rec[1].mistakes == 1 && m.nw == 1 &&
		   m.w[0].start == 4 * K,
	   "a part found back again is a record of its own; the rest of the old one stays");
	ok(vmemo_expire(&m, 200 * S, &n) == 0 && m.nw == 0, "the watch ends");
	ok(m.nr == 1 && m.rec[0].start == 0 && m.rec[0].end == 4 * K,
	   "the part that stayed out is forgiven, the part back is kept");
	ok(n.forgiven == 1 && n.forgiven_bytes == 4 * K, "forgiveness counted");
	vmemo_fini(&m);
	vrange_list_fini(&back);
}

static void gaps_and_bounds(void)
{
	struct vmemo m = { 0 };
	struct vmemo_tally n = { 0 };
	struct vrange_list back = { 0 };

	/* runs a few pages apart are one range; runs far apart are two */
	vmemo_watch(&m, 0, 1000 * K, 1 * S, 24 * S, 0);
	vrange_append(&back, 0, 10 * K, 0, 0);
	vrange_append(&back, 14 * K, 20 * K, 0, 0);
	vrange_append(&back, 500 * K, 510 * K, 0, 0);
	vrange_append(&back, 2000 * K, 2010 * K, 0, 0); /* outside the watch */
	vmemo_back(&m, 0, 1000 * K, &back, K, 4 * S, &n, NULL);
	ok(m.nr == 2 && m.rec[0].end == 20 * K && m.rec[1].start == 500 * K,
	   "runs less than %d pages apart join; a run outside the watch is ignored",
	   VMEMO_GAP_PAGES);
	is_u64(n.back_pages, 26, "only pages found back count as attributed");
	vmemo_fini(&m);
	vrange_list_fini(&back);

	/* bounded watches: the one nearest its end gives way */
	{
		int fails = 0;

		for (uint64_t i = 0; i < VMEMO_MAX_WATCHES + 10; i++)
			fails += vmemo_watch(&m, i * 10 * K, i * 10 * K + K, 0, (1000 - i) * S,
					     0) != 0;
		is_int(fails, 0, "every watch taken");
	}
	is_u64(m.nw, VMEMO_MAX_WATCHES, "watches bounded per process");
	ok(m.w[0].start == 0 && m.w[m.nw - 1].start == (VMEMO_MAX_WATCHES + 9) * 10 * K,
	   "those nearest their end gave way to the newest");
	vmemo_fini(&m);

	/* bounded records: the nearest two merge */
	for (uint64_t i = 0; i < VMEMO_MAX_RECORDS + 5; i++) {
		struct vrange_list b = run(i * 100, i * 100 + 1);

		vmemo_watch(&m, i * 100 * K, i * 100 * K + K, 0, 10 * S, 0);
		vmemo_back(&m, i * 100 * K, i * 100 * K + K, &b, K, (i + 1) * S, &n, NULL);
		vrange_list_fini(&b);
	}
	is_u64(m.nr, VMEMO_MAX_RECORDS, "records bounded per process");
	{
		bool sorted = true;
		uint64_t bytes = 0;

		for (size_t i = 1; i < m.nr; i++)
			sorted &= m.rec[i - 1].end <= m.rec[i].start;
		for (size_t i = 0; i < m.nr; i++)
			bytes += m.rec[i].end - m.rec[i].start;
		ok(sorted && m.rec[0].start == 0 &&
			   m.rec[m.nr - 1].end == (VMEMO_MAX_RECORDS + 4) * 100 * K + K,
		   "merged records stay sorted and cover every range learned");
		ok(bytes > (VMEMO_MAX_RECORDS + 5) * K, "the merged gaps are held too");
	}
	vmemo_fini(&m);
}

static void overlap(void)
{
	struct vmemo m = { 0 };

	vmemo_watch(&m, 0, 100 * K, 1 * S, 10 * S, 0);
	vmemo_watch(&m, 40 * K, 60 * K, 2 * S, 10 * S, 5 * S);
	ok(m.nw == 3 && m.w[0].end == 40 * K && m.w[1].start == 40 * K &&
		   m.w[1].advised_us == 5 * S && m.w[2].start == 60 * K && m.w[2].advised_us == 0,
	   "a range advised again takes its part of an older watch");
	vmemo_watch(&m, 100 * K, 120 * K, 1 * S, 10 * S, 0);
	ok(m.nw == 3 && m.w[2].end == 120 * K, "the next range of the same advice grows its watch");
	vmemo_fini(&m);
}

/* refaults attributed to learned ranges do not move the policy-wide controller */
static void controller(void)
{
	struct cfg_policy p = { .min_age_us = 3 * S, .max_refault_rate = 2000 };
	struct policy_state a, b;
	struct policy_input in = { .refaults_known = true,
				   .memory_bytes = 256ull << 20,
				   .page_size = K,
				   .mem_total = 1ull << 30,
				   .mem_free = 512ull << 20 };

	policy_state_init(&a);
	policy_state_init(&b);
	in.now_us = 1 * S;
	policy_decide(&p, 0, &in, &a);
	policy_decide(&p, 0, &in, &b);
	in.now_us = 20 * S;
	in.refault_pages = 8192; /* 32 MiB in 19 s: far above 0.2% per minute */
	policy_decide(&p, 0, &in, &a);
	in.attributed_pages = 8192;
	policy_decide(&p, 0, &in, &b);
	ok(a.backoffs == 1 && a.min_age_us == 6 * S, "unattributed refaults back the policy off");
	ok(b.backoffs == 0 && b.min_age_us == 3 * S && b.refault_rate == 0,
	   "the same refaults attributed to learned ranges do not");
}

int main(void)
{
	learn_and_hold();
	forgive();
	gaps_and_bounds();
	overlap();
	controller();
	return tap_exit();
}
