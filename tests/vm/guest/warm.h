/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * warm: the warm-set workload of `vm-vaddr warm` and `bench warm`. Process k maps, at fixed
 * addresses, a cold set written once, a hot set written every 100 ms, and warm sets each read
 * in one burst every period_s[w] seconds. The process counts each warm set's major faults
 * itself: before each burst, the pages mincore() finds not resident are those the burst
 * faults in (on zram a swapped page is not in the swap cache), added to the counter of the
 * second since its start, in memory shared with the parent. Guest only.
 */
#ifndef PAGEOUTD_WARM_H
#define PAGEOUTD_WARM_H

#include "vmtest.h"

#define WARM_MAX_SETS 4
#define WARM_MAX_SECS 300
#define WARM_BASE(k) (0x7d0000000000ULL + (uint64_t)(k)*1024 * MIB)
#define WARM_COLD(k) WARM_BASE(k)
#define WARM_HOT(k) (WARM_BASE(k) + 256 * MIB)
#define WARM_SET(k, w) (WARM_BASE(k) + (384 + 128 * (uint64_t)(w)) * MIB) /* at most 64 MiB */

struct warm_spec {
	unsigned cold_mb, hot_mb, set_mb; /* set_mb at most 64 */
	unsigned nsets;
	unsigned period_s[WARM_MAX_SETS];
	const char *cgroup; /* under VM_CGROOT */
};

/* One process's faults per warm set and second; in memory shared with the parent. */
struct warm_counts {
	uint32_t n[WARM_MAX_SETS][WARM_MAX_SECS];
};

struct warm_proc {
	unsigned k;
	const struct warm_spec *spec;
	struct warm_counts *c;
	uint64_t t0_us;
};

static inline int warm_setup(void *arg)
{
	const struct warm_proc *p = arg;
	const struct warm_spec *s = p->spec;

	if (vm_cg_put(s->cgroup, "cgroup.procs", "0") < 0)
		return 2;
	for (unsigned i = 0; i < 2 + s->nsets; i++) {
		uint64_t a = i == 0   ? WARM_COLD(p->k)
			     : i == 1 ? WARM_HOT(p->k)
				      : WARM_SET(p->k, i - 2);
		uint64_t len = (i == 0 ? s->cold_mb : i == 1 ? s->hot_mb : s->set_mb) * MIB;
		void *m = mmap((void *)(uintptr_t)a, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

		if (m == MAP_FAILED)
			return 3;
		madvise(m, len, MADV_NOHUGEPAGE); /* count pages, not THPs */
		vm_touch(m, len, true);
	}
	vm_lock_code();
	return 0;
}

/* pages of the warm set at addr (len bytes, at most 64 MiB) not resident now */
static inline uint32_t warm_out(uint64_t addr, uint64_t len)
{
	static unsigned char vec[64 * MIB / 4096];
	uint32_t n = 0;

	if (mincore((void *)(uintptr_t)addr, len, vec) < 0)
		return 0;
	for (size_t i = 0; i < len / 4096; i++)
		n += !(vec[i] & 1);
	return n;
}

/*
 * The process's loop: the hot set every 100 ms, each warm set once a period, as bursts the
 * emulator's TLB cannot hide from DAMON (mprotect first: tests/vm/README).
 */
static inline void warm_run(void *arg)
{
	const struct warm_proc *p = arg;
	const struct warm_spec *s = p->spec;
	uint64_t next[WARM_MAX_SETS];

	for (unsigned w = 0; w < s->nsets; w++)
		next[w] = p->t0_us + s->period_s[w] * 1000000ULL;
	for (;;) {
		uint64_t now = now_usec(), sec = (now - p->t0_us) / 1000000ULL;
		char *h = (char *)(uintptr_t)WARM_HOT(p->k);

		mprotect(h, s->hot_mb * MIB, PROT_READ);
		mprotect(h, s->hot_mb * MIB, PROT_READ | PROT_WRITE);
		vm_touch(h, s->hot_mb * MIB, true);
		for (unsigned w = 0; w < s->nsets; w++) {
			char *m = (char *)(uintptr_t)WARM_SET(p->k, w);

			if (now < next[w])
				continue;
			next[w] += s->period_s[w] * 1000000ULL;
			if (sec < WARM_MAX_SECS)
				p->c->n[w][sec] += warm_out(WARM_SET(p->k, w), s->set_mb * MIB);
			mprotect(m, s->set_mb * MIB, PROT_NONE);
			mprotect(m, s->set_mb * MIB, PROT_READ | PROT_WRITE);
			vm_touch(m, s->set_mb * MIB, false);
		}
		vm_sleep_ms(100);
	}
}

/*
 * warm_spawn: n processes of spec s (k = 0..n-1), their counters in c[k] (n of them, in
 * memory shared with the children, zeroed here), into pids. Returns how many started.
 */
static inline unsigned warm_spawn(const struct warm_spec *s, unsigned n, struct warm_counts *c,
				  pid_t *pids)
{
	unsigned started = 0;

	memset(c, 0, n * sizeof(*c));
	for (unsigned k = 0; k < n; k++) {
		struct warm_proc p = { k, s, &c[k], now_usec() };

		pids[k] = child_fork(warm_setup, warm_run, &p);
		started += pids[k] > 0;
	}
	return started;
}

/* warm_counts_new: shared counters for n processes (MAP_SHARED), NULL when none could be had. */
static inline struct warm_counts *warm_counts_new(unsigned n)
{
	void *m = mmap(NULL, n * sizeof(struct warm_counts), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return m == MAP_FAILED ? NULL : m;
}

/* The faults of set w counted in seconds [from, to). */
static inline uint64_t warm_sum(const struct warm_counts *c, unsigned w, unsigned from, unsigned to)
{
	uint64_t n = 0;

	for (unsigned s = from; s < to && s < WARM_MAX_SECS; s++)
		n += c->n[w][s];
	return n;
}

/* The first second set w faulted in, or WARM_MAX_SECS when it never did. */
static inline unsigned warm_first(const struct warm_counts *c, unsigned w)
{
	unsigned s = 0;

	while (s < WARM_MAX_SECS && !c->n[w][s])
		s++;
	return s;
}

#endif
