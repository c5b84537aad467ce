// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vmemo: the vaddr engine's memory of its mistakes; see vmemo.h. Watches and records are each
 * kept sorted by address and disjoint, in arrays that begin every element with its start and
 * end, so that one carve serves both.
 */
#include <config.h>

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "pageoutd/vmemo.h"

_Static_assert(offsetof(struct vmemo_watch, end) == sizeof(uint64_t), "start, end first");
_Static_assert(offsetof(struct vmemo_record, end) == sizeof(uint64_t), "start, end first");

/* The start and end of element i of an array of elements of size sz. */
static uint64_t *span_at(void *a, size_t sz, size_t i)
{
	return (uint64_t *)(void *)((char *)a + i * sz);
}

/* Room for n + 1 elements of size sz in *a (capacity *cap). Returns 0 or -ENOMEM. */
static int reserve(void **a, size_t *cap, size_t sz, size_t n)
{
	size_t c;
	void *na;

	if (n + 1 <= *cap)
		return 0;
	c = *cap ? *cap * 2 : 16;
	na = realloc(*a, c * sz);
	if (!na)
		return -ENOMEM;
	*a = na;
	*cap = c;
	return 0;
}

/*
 * carve: remove [s, e) from the sorted, disjoint array *a of *n elements of size sz; an element
 * holding [s, e) strictly inside is split in two, both halves keeping its other fields.
 * Returns 0 or -ENOMEM (nothing changed).
 */
static int carve(void **a, size_t *n, size_t *cap, size_t sz, uint64_t s, uint64_t e)
{
	for (size_t i = 0; i < *n; i++) {
		uint64_t *p = span_at(*a, sz, i);

		if (p[1] <= s || p[0] >= e)
			continue;
		if (p[0] < s && p[1] > e) {
			if (reserve(a, cap, sz, *n) < 0)
				return -ENOMEM;
			p = span_at(*a, sz, i);
			memmove(span_at(*a, sz, i + 1), p, (*n - i) * sz);
			(*n)++;
			p[1] = s;
			span_at(*a, sz, i + 1)[0] = e;
			return 0;
		}
		if (p[0] < s) {
			p[1] = s;
		} else if (p[1] > e) {
			p[0] = e;
		} else {
			memmove(p, span_at(*a, sz, i + 1), (*n - i - 1) * sz);
			(*n)--;
			i--;
		}
	}
	return 0;
}

/* insert: elem (size sz) into the sorted array *a, which it does not overlap. 0 or -ENOMEM. */
static int insert(void **a, size_t *n, size_t *cap, size_t sz, const void *elem)
{
	uint64_t s = ((const uint64_t *)elem)[0];
	size_t i = *n;

	if (reserve(a, cap, sz, *n) < 0)
		return -ENOMEM;
	while (i > 0 && span_at(*a, sz, i - 1)[0] > s)
		i--;
	memmove(span_at(*a, sz, i + 1), span_at(*a, sz, i), (*n - i) * sz);
	memcpy(span_at(*a, sz, i), elem, sz);
	(*n)++;
	return 0;
}

static int carve_watches(struct vmemo *m, uint64_t s, uint64_t e)
{
	void *a = m->w;
	int r = carve(&a, &m->nw, &m->wcap, sizeof(*m->w), s, e);

	m->w = a;
	return r;
}

static int carve_records(struct vmemo *m, uint64_t s, uint64_t e)
{
	void *a = m->rec;
	int r = carve(&a, &m->nr, &m->rcap, sizeof(*m->rec), s, e);

	m->rec = a;
	return r;
}

void vmemo_fini(struct vmemo *m)
{
	free(m->w);
	free(m->rec);
	memset(m, 0, sizeof(*m));
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

int vmemo_watch(struct vmemo *m, uint64_t start, uint64_t end, uint64_t idle_us, uint64_t window_us,
		uint64_t now)
{
	struct vmemo_watch w = { start, end, now, idle_us, now + window_us, now };
	void *a;
	int r;

	if (start >= end)
		return 0;
	/* a range advised again under a record is watched for as long as the record holds it */
	for (size_t i = 0; i < m->nr; i++)
		if (m->rec[i].start < end && m->rec[i].end > start)
			w.until_us = max_u64(w.until_us, now + m->rec[i].hold_us);
	if (carve_watches(m, start, end) < 0)
		return -ENOMEM;
	/* the neighbour advised with it in the same call grows instead */
	for (size_t i = 0; i < m->nw; i++) {
		struct vmemo_watch *p = &m->w[i];

		if (p->end == start && p->advised_us == now && p->idle_us == idle_us &&
		    p->until_us == w.until_us && (i + 1 == m->nw || m->w[i + 1].start >= end)) {
			p->end = end;
			return 0;
		}
	}
	if (m->nw >= VMEMO_MAX_WATCHES) {
		/* the watch nearest its end gives way: only a chance to learn is lost */
		size_t k = 0;

		for (size_t i = 1; i < m->nw; i++)
			if (m->w[i].until_us < m->w[k].until_us)
				k = i;
		memmove(&m->w[k], &m->w[k + 1], (m->nw - k - 1) * sizeof(*m->w));
		m->nw--;
	}
	a = m->w;
	r = insert(&a, &m->nw, &m->wcap, sizeof(w), &w);
	m->w = a;
	return r;
}

int vmemo_expire(struct vmemo *m, uint64_t now, struct vmemo_tally *tally)
{
	int r = 0;

	for (size_t i = 0; i < m->nw; i++) {
		struct vmemo_watch w = m->w[i];

		if (w.until_us > now)
			continue;
		/* it stayed out for its whole watch: what a record said of it is forgiven */
		for (size_t k = 0; k < m->nr; k++) {
			const struct vmemo_record *p = &m->rec[k];
			uint64_t s = max_u64(p->start, w.start),
				 e = p->end < w.end ? p->end : w.end;

			if (s < e) {
				tally->forgiven++;
				tally->forgiven_bytes += e - s;
			}
		}
		if (carve_records(m, w.start, w.end) < 0)
			r = -ENOMEM;
		memmove(&m->w[i], &m->w[i + 1], (m->nw - i - 1) * sizeof(*m->w));
		m->nw--;
		i--;
	}
	return r;
}

/* Merge the two nearest records into one spanning both (their gap too) until at most max. */
static void bound_records(struct vmemo *m, size_t max)
{
	while (m->nr > max) {
		size_t k = 0;

		for (size_t i = 1; i + 1 < m->nr; i++)
			if (m->rec[i + 1].start - m->rec[i].end <
			    m->rec[k + 1].start - m->rec[k].end)
				k = i;
		m->rec[k].end = m->rec[k + 1].end;
		m->rec[k].interval_us = max_u64(m->rec[k].interval_us, m->rec[k + 1].interval_us);
		m->rec[k].hold_us = max_u64(m->rec[k].hold_us, m->rec[k + 1].hold_us);
		m->rec[k].learned_us = max_u64(m->rec[k].learned_us, m->rec[k + 1].learned_us);
		if (m->rec[k + 1].mistakes > m->rec[k].mistakes)
			m->rec[k].mistakes = m->rec[k + 1].mistakes;
		memmove(&m->rec[k + 1], &m->rec[k + 2], (m->nr - k - 2) * sizeof(*m->rec));
		m->nr--;
	}
}

/*
 * learn: [s, e) was found back at now, interval_us after it was last used; its hold goes to
 * *hold. Returns 0 or -ENOMEM.
 */
static int learn(struct vmemo *m, uint64_t s, uint64_t e, uint64_t interval_us, uint64_t now,
		 uint64_t *hold)
{
	struct vmemo_record rec = { s, e, interval_us, 0, now, 1 };
	void *a;
	int r;

	for (size_t i = 0; i < m->nr; i++) {
		const struct vmemo_record *p = &m->rec[i];

		if (p->start < e && p->end > s) {
			rec.interval_us = max_u64(rec.interval_us, p->interval_us);
			if (p->mistakes + 1 > rec.mistakes)
				rec.mistakes = p->mistakes + 1;
		}
	}
	rec.hold_us = VMEMO_HOLD_FACTOR * rec.interval_us
		      << (rec.mistakes - 1 < VMEMO_MAX_DOUBLINGS ? rec.mistakes - 1
								 : VMEMO_MAX_DOUBLINGS);
	*hold = rec.hold_us;
	if (carve_records(m, s, e) < 0)
		return -ENOMEM;
	a = m->rec;
	r = insert(&a, &m->nr, &m->rcap, sizeof(rec), &rec);
	m->rec = a;
	bound_records(m, VMEMO_MAX_RECORDS);
	return r;
}

int vmemo_back(struct vmemo *m, uint64_t start, uint64_t end, const struct vrange_list *back,
	       uint64_t page_size, uint64_t now, struct vmemo_tally *tally,
	       struct vrange_list *learned)
{
	const struct vmemo_watch *w = NULL;
	uint64_t interval, gap = VMEMO_GAP_PAGES * page_size;
	size_t k = 0;
	int r = 0;

	for (size_t i = 0; i < m->nw && !w; i++)
		if (m->w[i].start < end && m->w[i].end > start)
			w = &m->w[i];
	if (!w)
		return 0;
	/* the last use was idle_us before the advice; the reuse at most now */
	interval = w->idle_us + (now > w->advised_us ? now - w->advised_us : 0);
	while (k < back->nr && r == 0) {
		uint64_t s, e, pages = 0;

		/* a run, joined to the next ones less than gap apart, clipped to [start, end) */
		if (back->r[k].end <= start || back->r[k].start >= end) {
			k++;
			continue;
		}
		s = max_u64(back->r[k].start, start);
		e = back->r[k].end < end ? back->r[k].end : end;
		pages += (e - s) / page_size;
		for (k++; k < back->nr && back->r[k].start < end && back->r[k].start - e < gap;
		     k++) {
			e = back->r[k].end < end ? back->r[k].end : end;
			pages += (e - max_u64(back->r[k].start, start)) / page_size;
		}
		r = learn(m, s, e, interval, now, &tally->last_hold_us);
		if (r == 0)
			r = carve_watches(m, s, e);
		if (r == 0 && learned)
			r = vrange_append(learned, s, e, 0, interval);
		tally->learned++;
		tally->back_pages += pages;
		tally->last_interval_us = interval;
	}
	/* what is left of the watch was read out now */
	for (size_t i = 0; i < m->nw; i++)
		if (m->w[i].start < end && m->w[i].end > start)
			m->w[i].read_us = now;
	return r;
}

int vmemo_hold(const struct vmemo *m, const struct vrange_list *todo, uint64_t now,
	       struct vrange_list *out, uint64_t *held)
{
	size_t j = 0;

	out->nr = 0;
	for (size_t i = 0; i < todo->nr; i++) {
		const struct vrange *p = &todo->r[i];
		uint64_t cur = p->start;

		while (j < m->nr && m->rec[j].end <= p->start)
			j++;
		for (size_t k = j; k < m->nr && m->rec[k].start < p->end; k++) {
			const struct vmemo_record *rec = &m->rec[k];
			uint64_t s = max_u64(rec->start, cur),
				 e = rec->end < p->end ? rec->end : p->end;

			/* idle for its hold, by DAMON's age and since it was last found back */
			if ((rec->hold_us <= p->age_us && now - rec->learned_us >= rec->hold_us) ||
			    s >= e)
				continue;
			if (s > cur && vrange_append(out, cur, s, p->nr_accesses, p->age_us) < 0)
				return -ENOMEM;
			if (s > cur)
				out->r[out->nr - 1].kind = p->kind;
			*held += e - s;
			cur = e;
		}
		if (cur < p->end) {
			if (vrange_append(out, cur, p->end, p->nr_accesses, p->age_us) < 0)
				return -ENOMEM;
			out->r[out->nr - 1].kind = p->kind;
		}
	}
	return 0;
}

uint64_t vmemo_bytes(const struct vmemo *m)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < m->nr; i++)
		sum += m->rec[i].end - m->rec[i].start;
	return sum;
}
