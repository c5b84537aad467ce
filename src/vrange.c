// SPDX-License-Identifier: GPL-2.0-or-later
/* vrange: sorted range lists of one process and their set arithmetic (vrange.h). */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pageoutd/vrange.h"

int vrange_append(struct vrange_list *l, uint64_t start, uint64_t end, uint32_t nr_accesses,
		  uint64_t age_us)
{
	if (start >= end)
		return 0;
	if (l->nr == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		struct vrange *n = reallocarray(l->r, cap, sizeof(*n));

		if (!n)
			return -ENOMEM;
		l->r = n;
		l->cap = cap;
	}
	l->r[l->nr++] = (struct vrange){
		.start = start, .end = end, .nr_accesses = nr_accesses, .age_us = age_us
	};
	return 0;
}

int vrange_push(struct vrange_list *l, uint64_t start, uint64_t end, uint32_t nr_accesses,
		uint64_t age_us)
{
	if (start < end && l->nr && l->r[l->nr - 1].end == start &&
	    l->r[l->nr - 1].nr_accesses == nr_accesses && l->r[l->nr - 1].age_us == age_us) {
		l->r[l->nr - 1].end = end;
		return 0;
	}
	return vrange_append(l, start, end, nr_accesses, age_us);
}

void vrange_list_fini(struct vrange_list *l)
{
	free(l->r);
	memset(l, 0, sizeof(*l));
}

void vrange_list_swap(struct vrange_list *a, struct vrange_list *b)
{
	struct vrange_list t = *a;

	*a = *b;
	*b = t;
}

static int cmp_start(const void *a, const void *b)
{
	const struct vrange *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

void vrange_sort(struct vrange_list *l)
{
	if (l->nr)
		qsort(l->r, l->nr, sizeof(*l->r), cmp_start);
}

uint64_t vrange_bytes(const struct vrange_list *l)
{
	uint64_t s = 0;

	for (size_t i = 0; i < l->nr; i++)
		s += l->r[i].end - l->r[i].start;
	return s;
}

int vrange_intersect(const struct vrange_list *a, const struct vrange_list *b,
		     struct vrange_list *out)
{
	size_t i = 0, j = 0;

	out->nr = 0;
	while (i < a->nr && j < b->nr) {
		uint64_t s = a->r[i].start > b->r[j].start ? a->r[i].start : b->r[j].start;
		uint64_t e = a->r[i].end < b->r[j].end ? a->r[i].end : b->r[j].end;

		if (s < e && vrange_push(out, s, e, a->r[i].nr_accesses, a->r[i].age_us) < 0)
			return -ENOMEM;
		if (a->r[i].end < b->r[j].end)
			i++;
		else
			j++;
	}
	return 0;
}

int vrange_subtract(const struct vrange_list *a, const struct vrange_list *b,
		    struct vrange_list *out)
{
	size_t j = 0;

	out->nr = 0;
	for (size_t i = 0; i < a->nr; i++) {
		uint64_t s = a->r[i].start;

		while (j < b->nr && b->r[j].end <= s)
			j++;
		for (size_t k = j; k < b->nr && b->r[k].start < a->r[i].end; k++) {
			if (b->r[k].start > s &&
			    vrange_push(out, s, b->r[k].start, a->r[i].nr_accesses,
					a->r[i].age_us) < 0)
				return -ENOMEM;
			if (b->r[k].end > s)
				s = b->r[k].end;
		}
		if (s < a->r[i].end &&
		    vrange_push(out, s, a->r[i].end, a->r[i].nr_accesses, a->r[i].age_us) < 0)
			return -ENOMEM;
	}
	return 0;
}

int vrange_confirm(const struct vrange_list *cur, const struct vrange_list *prev,
		   uint64_t min_gain_us, struct vrange_list *out, uint64_t *turned)
{
	size_t i = 0, j = 0;

	out->nr = 0;
	while (i < cur->nr && j < prev->nr) {
		const struct vrange *a = &cur->r[i], *b = &prev->r[j];
		uint64_t s = a->start > b->start ? a->start : b->start;
		uint64_t e = a->end < b->end ? a->end : b->end;

		if (s < e) {
			/* an access in between resets DAMON's age: it must have kept growing */
			if (a->age_us >= b->age_us + min_gain_us) {
				if (vrange_push(out, s, e, a->nr_accesses, a->age_us) < 0)
					return -ENOMEM;
			} else {
				*turned += e - s;
			}
		}
		if (a->end < b->end)
			i++;
		else
			j++;
	}
	return 0;
}

void vrange_rescale(struct vrange_list *l, uint64_t from, uint64_t to, uint64_t cap_us)
{
	if (!from || from == to)
		return;
	for (size_t i = 0; i < l->nr; i++) {
		double a = (double)l->r[i].age_us * (double)to / (double)from;
		uint64_t v = a >= (double)UINT64_MAX ? UINT64_MAX : (uint64_t)a;

		l->r[i].age_us = v < cap_us ? v : cap_us;
	}
}
