// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cgstat: per-cgroup figures; see cgstat.h. The table is small (one entry per matched cgroup)
 * and looked up by a linear scan: a phone has a few hundred apps at most, and every entry of a
 * cgroup that went away is freed at the engine's next pass.
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pageoutd/cgstat.h"
#include "pageoutd/util.h"

/* the frozen state of an entry whose cgroup was never read */
#define FROZEN_UNREAD (-ENODATA)

struct cgstat {
	const struct cgrp_root *cg;
	int procfd;
	uint64_t page_size;
	struct cgstat_entry **e;
	size_t n, cap;
};

struct cgstat *cgstat_new(const struct cgrp_root *cg, int procfd)
{
	struct cgstat *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->cg = cg;
	t->procfd = procfd;
	t->page_size = (uint64_t)sysconf(_SC_PAGESIZE);
	return t;
}

static void entry_free(struct cgstat_entry *e)
{
	if (!e)
		return;
	free(e->path);
	free(e->base);
	free(e);
}

struct cgstat *cgstat_free(struct cgstat *t)
{
	if (!t)
		return NULL;
	for (size_t i = 0; i < t->n; i++)
		entry_free(t->e[i]);
	free(t->e);
	free(t);
	return NULL;
}

void cgstat_mark(struct cgstat *t, enum cfg_engine e)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->e[i]->engine == e)
			t->e[i]->seen = false;
}

unsigned cgstat_sweep(struct cgstat *t, enum cfg_engine e)
{
	unsigned freed = 0;
	size_t k = 0;

	for (size_t i = 0; i < t->n; i++) {
		if (t->e[i]->engine == e && !t->e[i]->seen) {
			entry_free(t->e[i]);
			freed++;
			continue;
		}
		t->e[k++] = t->e[i];
	}
	t->n = k;
	return freed;
}

struct cgstat_entry *cgstat_find(const struct cgstat *t, enum cfg_engine e, const char *policy,
				 const char *path)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->e[i]->engine == e && !strcmp(t->e[i]->path, path) &&
		    !strcmp(t->e[i]->policy, policy))
			return t->e[i];
	return NULL;
}

struct cgstat_entry *cgstat_get(struct cgstat *t, enum cfg_engine eng, const char *policy,
				const char *path)
{
	struct cgstat_entry *e = cgstat_find(t, eng, policy, path);

	if (e) {
		e->seen = true;
		return e;
	}
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		struct cgstat_entry **n = reallocarray(t->e, cap, sizeof(*n));

		if (!n)
			return NULL;
		t->e = n;
		t->cap = cap;
	}
	e = calloc(1, sizeof(*e));
	if (!e || !(e->path = strdup(path))) {
		free(e);
		return NULL;
	}
	e->engine = eng;
	str_copy(e->policy, sizeof(e->policy), policy);
	e->frozen = FROZEN_UNREAD;
	e->refault_rate = -1;
	e->thaw_faults_last = CGSTAT_NO_FAULTS;
	e->seen = true;
	t->e[t->n++] = e;
	return e;
}

const struct cgstat_entry *cgstat_at(const struct cgstat *t, size_t i)
{
	return i < t->n ? t->e[i] : NULL;
}

size_t cgstat_count(const struct cgstat *t)
{
	return t->n;
}

int cgstat_parse_stat(const char *buf, size_t len, uint64_t *ret_majflt, uint64_t *ret_start)
{
	char tmp[1024];
	const char *p;
	unsigned long long maj, start;

	if (len >= sizeof(tmp))
		len = sizeof(tmp) - 1;
	memcpy(tmp, buf, len);
	tmp[len] = '\0';
	/* the command is in parentheses and may hold any of them: the fields follow the last */
	p = strrchr(tmp, ')');
	if (!p)
		return -EINVAL;
	/* state(3) ppid pgrp session tty_nr tpgid flags minflt cminflt majflt(12) cmajflt utime
	 * stime cutime cstime priority nice num_threads itrealvalue starttime(22) */
	if (sscanf(p + 1,
		   " %*c %*d %*d %*d %*d %*d %*u %*u %*u %llu %*u %*u %*u %*d %*d %*d %*d %*d %*d "
		   "%llu",
		   &maj, &start) != 2)
		return -EINVAL;
	*ret_majflt = maj;
	*ret_start = start;
	return 0;
}

static int cmp_proc(const void *a, const void *b)
{
	const struct cgstat_proc *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

uint64_t cgstat_proc_faults(int procfd, const pid_t *pids, size_t n, const struct cgstat_proc *base,
			    size_t nbase, struct cgstat_proc *ret_procs, size_t *ret_nprocs)
{
	uint64_t sum = 0;
	size_t np = 0;

	for (size_t i = 0; i < n; i++) {
		struct cgstat_proc key = { .pid = pids[i] }, *b;
		char name[32], buf[1024];
		ssize_t len;

		snprintf(name, sizeof(name), "%d/stat", (int)pids[i]);
		len = read_file_at(procfd, name, buf, sizeof(buf));
		if (len <= 0 || cgstat_parse_stat(buf, (size_t)len, &key.majflt, &key.start) < 0)
			continue; /* exited */
		b = nbase ? bsearch(&key, base, nbase, sizeof(*base), cmp_proc) : NULL;
		/* a process new since the base (or a reused pid) counts from its start */
		if (b && b->start == key.start && key.majflt >= b->majflt)
			sum += key.majflt - b->majflt;
		else
			sum += key.majflt;
		if (ret_procs)
			ret_procs[np++] = key;
	}
	if (ret_procs) {
		qsort(ret_procs, np, sizeof(*ret_procs), cmp_proc);
		*ret_nprocs = np;
	}
	return sum;
}

/*
 * The cgroup's major fault count now: memory.stat pgmajfault where the memory controller has
 * it (*ret_memstat), else the majflt of each of its processes into e's base.
 */
static uint64_t faults_now(struct cgstat *t, struct cgstat_entry *e, bool memstat_only,
			   bool *ret_memstat)
{
	struct cgrp_memstat ms;
	pid_t *pids = NULL;
	uint64_t sum;
	int n;

	if (cgrp_memstat(t->cg, e->path, &ms) == 0 && ms.pgmajfault != CGRP_UNKNOWN) {
		*ret_memstat = true;
		return ms.pgmajfault;
	}
	*ret_memstat = false;
	if (memstat_only)
		return 0;
	n = cgrp_pids(t->cg, e->path, true, &pids);
	free(e->base);
	e->base = n > 0 ? calloc((size_t)n, sizeof(*e->base)) : NULL;
	e->nbase = 0;
	sum = e->base ? cgstat_proc_faults(t->procfd, pids, (size_t)n, NULL, 0, e->base, &e->nbase)
		      : 0;
	free(pids);
	return sum;
}

void cgstat_refaults(const struct cgstat *t, struct cgstat_entry *e, uint64_t pages,
		     uint64_t ws_bytes, uint64_t now)
{
	double bytes;

	if (!e)
		return;
	e->ws_bytes = ws_bytes;
	if (pages == CGRP_UNKNOWN)
		return;
	if (!e->refault_base_us || pages < e->refault_base || now < e->refault_base_us) {
		e->refault_base = pages;
		e->refault_base_us = now;
		return;
	}
	if (now - e->refault_base_us < CGSTAT_REFAULT_WINDOW_US)
		return;
	bytes = (double)(pages - e->refault_base) * (double)t->page_size;
	/* no working set read: no rate, rather than a made-up one */
	e->refault_rate =
		ws_bytes ? bytes * 60e6 / (double)(now - e->refault_base_us) / (double)ws_bytes
			 : -1;
	e->refault_base = pages;
	e->refault_base_us = now;
}

void cgstat_frozen(struct cgstat *t, struct cgstat_entry *e, int frozen, uint64_t now)
{
	int was;

	if (!e)
		return;
	was = e->frozen;
	e->watched = true;
	e->frozen = frozen;
	if (frozen == 1 && was != 1)
		e->frozen_since_us = now;
	if (frozen == 1 || was != 1)
		return;
	e->frozen_us_total += now - e->frozen_since_us;
	e->frozen_since_us = 0;
	if (frozen != 0)
		return; /* gone, or no longer readable: no thaw */
	e->thaws_total++;
	e->thaw_base = faults_now(t, e, false, &e->thaw_memstat);
	e->thaw_due_us = now + CGSTAT_THAW_WINDOW_US;
}

uint64_t cgstat_frozen_us(const struct cgstat_entry *e, uint64_t now)
{
	return e->frozen_us_total + (e->frozen == 1 ? now - e->frozen_since_us : 0);
}

uint64_t cgstat_next_due(const struct cgstat *t)
{
	uint64_t due = 0;

	for (size_t i = 0; i < t->n; i++)
		if (t->e[i]->thaw_due_us && (!due || t->e[i]->thaw_due_us < due))
			due = t->e[i]->thaw_due_us;
	return due;
}

/* Close e's fault window: the faults since its base. */
static void close_window(struct cgstat *t, struct cgstat_entry *e)
{
	uint64_t faults = 0;

	if (e->thaw_memstat) {
		bool memstat;
		uint64_t now = faults_now(t, e, true, &memstat);

		faults = memstat && now >= e->thaw_base ? now - e->thaw_base : 0;
	} else {
		pid_t *pids = NULL;
		int n = cgrp_pids(t->cg, e->path, true, &pids);

		if (n > 0)
			faults = cgstat_proc_faults(t->procfd, pids, (size_t)n, e->base, e->nbase,
						    NULL, NULL);
		free(pids);
	}
	free(e->base);
	e->base = NULL;
	e->nbase = 0;
	e->thaw_due_us = 0;
	e->thaw_faults_last = faults;
	e->thaw_faults_total += faults;
}

unsigned cgstat_run_due(struct cgstat *t, uint64_t now)
{
	unsigned n = 0;

	for (size_t i = 0; i < t->n; i++)
		if (t->e[i]->thaw_due_us && t->e[i]->thaw_due_us <= now) {
			close_window(t, t->e[i]);
			n++;
		}
	return n;
}
