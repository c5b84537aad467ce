/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vrange: lists of address ranges of one process, each with what DAMON said of it, and the
 * set arithmetic the vaddr plan is made of. Unless a function says otherwise, a list is sorted
 * by address and its ranges are disjoint. Pure: no I/O. A list is owned by whoever declared it
 * ({ 0 } is an empty list) and freed with vrange_list_fini; every function that grows a list
 * may fail only with -ENOMEM, and leaves what it had appended so far.
 */
#ifndef PAGEOUTD_VRANGE_H
#define PAGEOUTD_VRANGE_H

#include <stddef.h>
#include <stdint.h>

/* A range [start, end) of one process with what DAMON said of it. */
struct vrange {
	uint64_t start, end;
	uint32_t nr_accesses;
	uint64_t age_us;
	unsigned kind; /* set by vma_clip only: MEMORY_ANON or MEMORY_FILE, its VMA's kind */
};

struct vrange_list {
	size_t nr, cap;
	struct vrange *r;
};

/*
 * vrange_append: [start, end) as an entry of its own at the end of l, even when it continues
 * the last one (an empty range is not added). Returns 0 or -ENOMEM.
 */
int vrange_append(struct vrange_list *l, uint64_t start, uint64_t end, uint32_t nr_accesses,
		  uint64_t age_us);
/*
 * vrange_push: like vrange_append, but a range that continues the last entry with the same
 * nr_accesses and age extends it. Returns 0 or -ENOMEM.
 */
int vrange_push(struct vrange_list *l, uint64_t start, uint64_t end, uint32_t nr_accesses,
		uint64_t age_us);
/* vrange_list_fini: free l's entries; l is an empty list after it. */
void vrange_list_fini(struct vrange_list *l);
/* vrange_list_swap: exchange the contents (and the ownership) of a and b. */
void vrange_list_swap(struct vrange_list *a, struct vrange_list *b);
/* vrange_sort: order l by start address (for a list built out of order). */
void vrange_sort(struct vrange_list *l);
/* vrange_bytes: the bytes l covers. */
uint64_t vrange_bytes(const struct vrange_list *l);
/*
 * vrange_intersect: out = a ∩ b, with the attributes of a; vrange_subtract: out = a − b.
 * out is emptied first and must differ from a and b. Return 0 or -ENOMEM.
 */
int vrange_intersect(const struct vrange_list *a, const struct vrange_list *b,
		     struct vrange_list *out);
int vrange_subtract(const struct vrange_list *a, const struct vrange_list *b,
		    struct vrange_list *out);
/*
 * vrange_confirm: into out (emptied first), the parts of cur that were also in prev and whose
 * age grew by at least min_gain_us since: an access in between would have reset it. The bytes
 * in both whose age did not grow that much are added to *turned. Returns 0 or -ENOMEM.
 */
int vrange_confirm(const struct vrange_list *cur, const struct vrange_list *prev,
		   uint64_t min_gain_us, struct vrange_list *out, uint64_t *turned);
/*
 * vrange_rescale: ages of l counted in intervals of `from` µs, counted again in intervals of
 * `to` µs, and at most cap_us (how long the process had been watched then). Nothing changes
 * when from is 0 or equals to.
 */
void vrange_rescale(struct vrange_list *l, uint64_t from, uint64_t to, uint64_t cap_us);

#endif
