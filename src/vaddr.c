// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vaddr: per-process cold ranges from DAMON, re-validated, applied with pidfd + batched
 * process_madvise(MADV_PAGEOUT). Since Linux 6.9 the kernel pages out what it is told even if
 * it was touched a moment ago [K612 mm/madvise.c madvise_cold_or_pageout_pte_range, no
 * pageout re-check], so a range is advised only when it was a candidate in two consecutive
 * snapshots, is at least min_age old by pageoutd's own clock, and still lies in an eligible
 * VMA of the process behind the pidfd held since registration.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "pageoutd/engine.h"
#include "pageoutd/log.h"
#include "pageoutd/util.h"
#include "pageoutd/vaddr.h"

#define PF_KTHREAD 0x00200000u
#define SWAP_LISTS(a, b)                                                                           \
	do {                                                                                       \
		struct vrange_list _t = (a);                                                       \
		(a) = (b);                                                                         \
		(b) = _t;                                                                          \
	} while (0)

/* ---- range lists ---- */

/* append [start, end) as an entry of its own, even when it continues the last one */
static int vrange_append(struct vrange_list *l, uint64_t start, uint64_t end, uint32_t nr_accesses,
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

uint32_t vaddr_age_gain(const struct vrange_list *prev, const struct damon_region *cur, unsigned n)
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

uint64_t vaddr_interval_estimate(uint64_t wall_us, uint32_t gain, uint64_t aggr_us)
{
	uint64_t est;

	if (gain < VADDR_CLOCK_MIN_GAIN)
		return 0;
	/* each snapshot is up to one interval late: at most gain + 2 intervals fit */
	est = wall_us / ((uint64_t)gain + 2);
	return est > aggr_us ? est : aggr_us;
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

/* ---- VMAs ---- */

void vma_list_fini(struct vma_list *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

unsigned vaddr_seed_regions(const struct vma_list *vmas, struct damon_range *ret, unsigned max)
{
	unsigned n = 0;

	/* insertion by size into ret[0..n), the largest first; then back to address order */
	for (size_t i = 0; i < vmas->nr && max; i++) {
		uint64_t sz = vmas->v[i].end - vmas->v[i].start;
		unsigned k;

		/* [vsyscall] and anything else in the kernel half is not DAMON's to watch */
		if (!sz || vmas->v[i].start >= 0xffff800000000000ULL)
			continue;
		if (n == max && sz <= ret[n - 1].end - ret[n - 1].start)
			continue;
		k = n < max ? n++ : n - 1;
		while (k > 0 && ret[k - 1].end - ret[k - 1].start < sz) {
			ret[k] = ret[k - 1];
			k--;
		}
		ret[k] = (struct damon_range){ vmas->v[i].start, vmas->v[i].end };
	}
	for (unsigned i = 1; i < n; i++)
		for (unsigned k = i; k > 0 && ret[k - 1].start > ret[k].start; k--) {
			struct damon_range x = ret[k];

			ret[k] = ret[k - 1];
			ret[k - 1] = x;
		}
	return n;
}

static bool flags_locked(const char *flags)
{
	/* VmFlags: two-letter words; lo locked, ht hugetlb, pf PFN map, io I/O mapping */
	for (const char *p = flags; *p;) {
		while (*p == ' ')
			p++;
		if (!p[0] || !p[1])
			break;
		if ((p[0] == 'l' && p[1] == 'o') || (p[0] == 'h' && p[1] == 't') ||
		    (p[0] == 'p' && p[1] == 'f') || (p[0] == 'i' && p[1] == 'o'))
			return true;
		p += 2;
	}
	return false;
}

int vma_parse_smaps(const char *buf, struct vma_list *ret)
{
	ret->nr = 0;
	for (const char *l = buf; l && *l;) {
		const char *nl = strchr(l, '\n');
		unsigned long long s, e, ino;
		char perms[8], path[256] = "";
		int n = 0;

		if (sscanf(l, "%llx-%llx %7s %*s %*s %llu %n", &s, &e, perms, &ino, &n) == 4) {
			struct vma *v;

			if (ret->nr == ret->cap) {
				size_t cap = ret->cap ? ret->cap * 2 : 64;
				struct vma *nv = reallocarray(ret->v, cap, sizeof(*nv));

				if (!nv)
					return -ENOMEM;
				ret->v = nv;
				ret->cap = cap;
			}
			sscanf(l + n, "%255[^\n]", path);
			v = &ret->v[ret->nr++];
			v->start = s;
			v->end = e;
			if (path[0] == '/')
				v->cls = VMA_FILE;
			else if (path[0] == '[' && strncmp(path, "[heap]", 6) &&
				 strncmp(path, "[stack", 6) && strncmp(path, "[anon:", 6))
				v->cls = VMA_SPECIAL;
			else
				v->cls = VMA_ANON;
		} else if (!strncmp(l, "VmFlags:", 8) && ret->nr) {
			char flags[256] = "";

			sscanf(l + 8, "%255[^\n]", flags);
			if (flags_locked(flags))
				ret->v[ret->nr - 1].cls = VMA_LOCKED;
		}
		l = nl ? nl + 1 : NULL;
	}
	return 0;
}

/* the memory kind (MEMORY_ANON or MEMORY_FILE) a VMA's pages are of; 0: special or locked */
static unsigned vma_kind(const struct vma *v)
{
	return v->cls == VMA_ANON ? MEMORY_ANON : v->cls == VMA_FILE ? MEMORY_FILE : 0;
}

/*
 * The VMAs of the kinds in `kinds` (all of them for 0) as ranges, one entry each (never merged
 * with the next: each VMA's part of a region is a piece of its own).
 */
static int vma_pieces(const struct vma_list *vmas, unsigned kinds, struct vrange_list *out)
{
	for (size_t k = 0; k < vmas->nr; k++)
		if ((!kinds || (vma_kind(&vmas->v[k]) & kinds)) &&
		    vrange_append(out, vmas->v[k].start, vmas->v[k].end, 0, k) < 0)
			return -ENOMEM;
	return 0;
}

int vrange_clip(const struct vrange_list *in, const struct vma_list *vmas, unsigned kinds,
		unsigned blocked, uint64_t page_size, struct vrange_list *out, uint64_t *skipped)
{
	size_t j = 0;

	out->nr = 0;
	for (size_t i = 0; i < in->nr; i++) {
		const struct vrange *r = &in->r[i];
		uint64_t covered = 0;

		while (j < vmas->nr && vmas->v[j].end <= r->start)
			j++;
		for (size_t k = j; k < vmas->nr && vmas->v[k].start < r->end; k++) {
			const struct vma *v = &vmas->v[k];
			uint64_t s = v->start > r->start ? v->start : r->start;
			uint64_t e = v->end < r->end ? v->end : r->end;
			unsigned kind = vma_kind(v);

			s = (s + page_size - 1) & ~(page_size - 1);
			e &= ~(page_size - 1);
			if (s >= e)
				continue;
			covered += e - s;
			if (v->cls == VMA_LOCKED)
				skipped[SKIP_LOCKED] += e - s;
			else if (!kind || !(kinds & kind))
				skipped[SKIP_VMA] += e - s;
			else if (blocked & kind)
				skipped[SKIP_SWAP_RESERVE] += e - s;
			/*
			 * a range per VMA: the kernel refuses a locked, hugetlb or PFN VMA as a
			 * whole (EINVAL) and must not take a neighbour's range down with it
			 */
			else if (vrange_append(out, s, e, r->nr_accesses, r->age_us) < 0)
				return -ENOMEM;
			else
				out->r[out->nr - 1].kind = kind;
		}
		/* holes and unmapped parts: the kernel would stop the batch there */
		skipped[SKIP_VMA] += (r->end - r->start) - covered;
	}
	return 0;
}

/* ---- the engine ---- */

struct vtarget {
	pid_t pid;
	int pidfd, procfd;
	unsigned policy;
	size_t cgroup;	   /* the policy's matched cgroup (index in cgroups) it came from */
	uint64_t since_us; /* monitored at its current DAMON index since */
	bool dead;
	struct vrange_list prev;    /* candidates of the previous snapshot */
	struct vrange_list advised; /* advised and cold ever since */
	/* refused by the kernel (EINVAL: locked, hugetlb, PFN or I/O VMA), until maps changes */
	struct vrange_list refused;
	uint64_t maps_hash, refused_us;
	struct vma_list vmas;	 /* its VMAs when maps was last read */
	uint64_t vmas_us;	 /* then; 0: read it this cycle */
	uint64_t prev_us;	 /* when prev was taken */
	uint64_t prev_clock;	 /* the interval prev's ages were counted in */
	struct vrange_list seen; /* its regions (age in intervals) when the clock was read */
	uint64_t seen_us;
	bool seeded; /* DAMON has it at this index (vaddr_seed_regions given once) */
};

struct vpolicy {
	ENGINE_POLICY_HEAD; /* name, cfg, active */
	struct policy_state st;
	struct vaddr_policy_stats s;
	struct policy_input in;
	struct cgrp_list cgroups;
	int *frozen; /* cgrp_frozen of each of cgroups (1 without frozen_only) */
	bool freezer_warned;
	struct log_cond swap_cond; /* anonymous pageout stopped at swap_reserve */
	uint64_t resident; /* anon + file of its cgroups when this cycle's inputs were read */
};

/* a process that cannot be advised: reported once, skipped while it lives */
struct vskip {
	pid_t pid;
	int pidfd;
};

struct vaddr {
	const struct cfg *cfg;
	struct damon *d;
	const struct cgrp_root *cg;
	int procfd;
	pid_t self;
	uint64_t page_size;
	enum cfg_refsem refsem;
	struct vtarget *t;
	size_t nt, cap;
	struct vpolicy *pol;
	size_t npol;
	struct vskip *skip;
	size_t nskip;
	bool running, dirty;
	struct log_cond damon_cond; /* the context cannot be written or started */
	struct log_cond read_cond;  /* snapshots cannot be read */
	int watchfd;	       /* inotify fd the frozen_only cgroups are watched on, -1: none */
	struct cgstat *cs;     /* per-cgroup figures, NULL: not kept */
	unsigned seed_refused; /* EINVAL answers to writes with seeded regions */
	uint64_t clock[VADDR_CLOCK_KEEP]; /* the last interval estimates, 0: none */
	unsigned nclock;
	uint64_t cycle_anon; /* anonymous bytes advised this cycle, by every policy */
	struct vaddr_stats s;
};

enum cfg_refsem vaddr_refsem_of_release(const char *release)
{
	unsigned maj = 0, min = 0;

	if (sscanf(release, "%u.%u", &maj, &min) != 2)
		return REFSEM_IGNORE; /* unknown: assume the stricter semantics */
	return maj > 6 || (maj == 6 && min >= 9) ? REFSEM_IGNORE : REFSEM_RECHECK;
}

enum cfg_refsem vaddr_refsem(const struct vaddr *v)
{
	return v->refsem;
}

const struct vaddr_stats *vaddr_stats(const struct vaddr *v)
{
	return &v->s;
}

static struct vpolicy *find_policy(const struct vaddr *v, const char *name)
{
	return (struct vpolicy *)engine_find_policy(v->pol, v->npol, sizeof(*v->pol), name);
}

const struct vaddr_policy_stats *vaddr_policy_stats(const struct vaddr *v, const char *policy)
{
	struct vpolicy *p = find_policy(v, policy);

	return p ? &p->s : NULL;
}

const struct policy_state *vaddr_policy_state(const struct vaddr *v, const char *policy)
{
	struct vpolicy *p = find_policy(v, policy);

	return p ? &p->st : NULL;
}

int vaddr_pause(struct vaddr *v, const char *policy, bool paused)
{
	struct vpolicy *p = find_policy(v, policy);

	if (!p)
		return -ENOENT;
	p->st.operator_paused = paused;
	return 0;
}

/* A policy new to the engine. */
static void vpolicy_init(struct engine_policy *e)
{
	struct vpolicy *vp = (struct vpolicy *)e;

	policy_state_init(&vp->st);
	vp->s.psi_some_avg10 = -1; /* unknown until measured */
}

int vaddr_set_config(struct vaddr *v, const struct cfg *cfg)
{
	void *pol = v->pol;
	int r;

	v->cfg = cfg;
	r = engine_set_policies(&pol, &v->npol, sizeof(*v->pol), cfg, ENGINE_VADDR, vpolicy_init);
	v->pol = pol;
	if (r < 0)
		return r;
	/* the clock is measured against aggr_interval, which may have changed */
	v->nclock = 0;
	v->s.aggr_us = cfg->damon.aggr_us;
	/* targets of a policy that went away are dropped at the next cycle */
	for (size_t i = 0; i < v->nt; i++)
		if (v->t[i].policy >= v->npol || !v->pol[v->t[i].policy].active)
			v->t[i].dead = true;
	v->dirty = true;
	return 0;
}

int vaddr_new(struct vaddr **ret, const struct cfg *cfg, struct damon *d,
	      const struct cgrp_root *cg)
{
	struct vaddr *v = calloc(1, sizeof(*v));
	struct utsname u;
	int r;

	if (!v)
		return -ENOMEM;
	v->d = d;
	v->cg = cg;
	v->watchfd = -1;
	v->self = getpid();
	v->page_size = (uint64_t)sysconf(_SC_PAGESIZE);
	v->procfd = engine_open_proc(cfg, "vaddr");
	if (v->procfd < 0) {
		r = v->procfd;
		free(v);
		return r;
	}
	v->refsem = cfg->daemon.reference_semantics;
	if (v->refsem == REFSEM_AUTO)
		v->refsem = uname(&u) == 0 ? vaddr_refsem_of_release(u.release) : REFSEM_IGNORE;
	r = vaddr_set_config(v, cfg);
	if (r < 0) {
		vaddr_free(v);
		return r;
	}
	log_notice("vaddr: MADV_PAGEOUT %s page references on this kernel%s: %s",
		   v->refsem == REFSEM_IGNORE ? "ignores" : "re-checks",
		   cfg->daemon.reference_semantics == REFSEM_AUTO ? " (auto)" : " (configured)",
		   v->refsem == REFSEM_IGNORE
			   ? "a range is advised only after two consecutive cold snapshots"
			   : "one cold snapshot is enough, the kernel has the last word");
	*ret = v;
	return 0;
}

static void target_close(struct vtarget *t)
{
	if (t->pidfd >= 0)
		close(t->pidfd);
	if (t->procfd >= 0)
		close(t->procfd);
	t->pidfd = t->procfd = -1;
	vrange_list_fini(&t->prev);
	vrange_list_fini(&t->advised);
	vrange_list_fini(&t->refused);
	vrange_list_fini(&t->seen);
	vma_list_fini(&t->vmas);
}

/* What DAMON said of a target's regions no longer holds: watch it afresh from now. */
static void target_forget(struct vtarget *t)
{
	t->since_us = now_usec();
	t->prev.nr = 0;
	t->prev_us = 0;
	t->prev_clock = 0;
	t->seen.nr = 0;
}

void vaddr_free(struct vaddr *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->nt; i++)
		target_close(&v->t[i]);
	for (size_t i = 0; i < v->nskip; i++)
		close(v->skip[i].pidfd);
	for (size_t i = 0; i < v->npol; i++) {
		cgrp_list_fini(&v->pol[i].cgroups);
		free(v->pol[i].frozen);
	}
	free(v->skip);
	free(v->t);
	free(v->pol);
	if (v->procfd >= 0)
		close(v->procfd);
	free(v);
}

/* RSS in bytes from the statm of the process behind procfd, or 0. */
static uint64_t rss_of(const struct vaddr *v, int procfd)
{
	char buf[128] = "";
	unsigned long long size, res;

	if (read_file_at(procfd, "statm", buf, sizeof(buf)) <= 0 ||
	    sscanf(buf, "%llu %llu", &size, &res) != 2)
		return 0;
	return (uint64_t)res * v->page_size;
}

static bool is_skipped(const struct vaddr *v, pid_t pid)
{
	for (size_t i = 0; i < v->nskip; i++)
		if (v->skip[i].pid == pid)
			return true;
	return false;
}

static void skip_pid(struct vaddr *v, pid_t pid, int pidfd)
{
	struct vskip *n = reallocarray(v->skip, v->nskip + 1, sizeof(*n));

	if (!n) {
		close(pidfd);
		return;
	}
	v->skip = n;
	v->skip[v->nskip++] = (struct vskip){ pid, pidfd };
	v->s.unadvisable++;
}

/*
 * register: pidfd first, then the /proc/PID directory, then check the pidfd's process is
 * still alive: the directory was then opened while the pid was still that process's.
 */
static int target_add(struct vaddr *v, pid_t pid, unsigned policy, size_t cgroup)
{
	char name[32], stat[1024] = "";
	int pidfd, procfd, r;
	unsigned long flags = 0;
	char *p;
	struct vtarget *t;

	pidfd = madv_pidfd_open(pid);
	if (pidfd < 0)
		return pidfd;
	snprintf(name, sizeof(name), "%d", (int)pid);
	procfd = openat(v->procfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (procfd < 0 || madv_pidfd_alive(pidfd) < 0) {
		if (procfd >= 0)
			close(procfd);
		close(pidfd);
		return -ESRCH;
	}
	/* kernel threads have no user memory to advise: /proc/PID/stat flags has PF_KTHREAD */
	if (read_file_at(procfd, "stat", stat, sizeof(stat)) > 0 && (p = strrchr(stat, ')')) &&
	    sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %lu", &flags) == 1 && (flags & PF_KTHREAD)) {
		log_info("vaddr: policy %s: pid %d is a kernel thread; skipped",
			 v->pol[policy].name, (int)pid);
		close(procfd);
		skip_pid(v, pid, pidfd);
		return -EPERM;
	}
	r = madv_probe(pidfd, MADV_PAGEOUT);
	if (r == -EPERM || r == -EACCES) {
		log_warn("vaddr: policy %s: pid %d cannot be advised (%s: %s); skipped while it "
			 "lives",
			 v->pol[policy].name, (int)pid, r == -EPERM ? "EPERM" : "EACCES",
			 r == -EPERM ? "CAP_SYS_NICE is missing" : "ptrace read access denied");
		close(procfd);
		skip_pid(v, pid, pidfd);
		return r;
	}
	if (r == -ESRCH) {
		close(procfd);
		close(pidfd);
		return r;
	}
	if (v->nt == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 16;
		struct vtarget *n = reallocarray(v->t, cap, sizeof(*n));

		if (!n) {
			close(procfd);
			close(pidfd);
			return -ENOMEM;
		}
		v->t = n;
		v->cap = cap;
	}
	t = &v->t[v->nt++];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->pidfd = pidfd;
	t->procfd = procfd;
	t->policy = policy;
	t->cgroup = cgroup;
	t->since_us = now_usec();
	v->dirty = true;
	log_debug("vaddr: policy %s: target pid %d", v->pol[policy].name, (int)pid);
	return 0;
}

/* Drop dead targets: the last one moves into the hole so only it changes DAMON index. */
static void targets_compact(struct vaddr *v)
{
	for (size_t i = 0; i < v->nt;) {
		if (!v->t[i].dead) {
			i++;
			continue;
		}
		target_close(&v->t[i]);
		if (i != v->nt - 1) {
			v->t[i] = v->t[v->nt - 1];
			/* its regions carry another process's history until DAMON updates them */
			target_forget(&v->t[i]);
			v->t[i].seeded = false;
		}
		v->nt--;
		v->dirty = true;
	}
	for (size_t i = 0; i < v->nskip;) {
		if (madv_pidfd_alive(v->skip[i].pidfd) < 0) {
			close(v->skip[i].pidfd);
			v->skip[i] = v->skip[--v->nskip];
		} else {
			i++;
		}
	}
}

/* A process of a matched cgroup: its policy and the cgroup (index in the policy's list). */
struct vpid {
	pid_t pid;
	unsigned policy;
	size_t cgroup;
};

/* The per-cgroup figures of vp's c-th cgroup, or NULL. */
static struct cgstat_entry *cg_entry(const struct vaddr *v, const struct vpolicy *vp, size_t c)
{
	return v->cs && c < vp->cgroups.nr ? cgstat_find(v->cs, vp->name, vp->cgroups.paths[c])
					   : NULL;
}

/* Record vp's c-th cgroup's frozen state f, read now, there and in its figures. */
static void set_frozen(struct vaddr *v, struct vpolicy *vp, size_t c, int f)
{
	vp->frozen[c] = f;
	if (vp->cfg->frozen_only)
		cgstat_frozen(v->cs, cg_entry(v, vp, c), f, now_usec());
}

/*
 * The frozen state of each of vp's matched cgroups into vp->frozen (1 for every cgroup without
 * frozen_only), watching their cgroup.events when a watch fd is set. Returns how many became
 * frozen since the last read at the same index.
 */
static unsigned read_frozen(struct vaddr *v, struct vpolicy *vp, size_t old_nr)
{
	unsigned newly = 0, frozen = 0;
	bool missing = false;

	for (size_t c = 0; c < vp->cgroups.nr; c++) {
		int f = 1;

		if (vp->cfg->frozen_only) {
			f = cgrp_frozen(v->cg, vp->cgroups.paths[c]);
			missing |= f == -EOPNOTSUPP;
			if (v->watchfd >= 0)
				cgrp_watch_add(v->cg, v->watchfd, vp->cgroups.paths[c]);
		}
		newly += f == 1 && c < old_nr && vp->frozen[c] != 1;
		frozen += f == 1;
		set_frozen(v, vp, c, f);
	}
	vp->s.frozen_cgroups = vp->cfg->frozen_only ? frozen : 0;
	vp->s.freezer_missing = missing;
	if (missing && !vp->freezer_warned)
		log_warn("vaddr: policy %s: frozen_only, but no cgroup freezer to read (cgroup v1 "
			 "without a freezer hierarchy mounted): none of its cgroups is reclaimed",
			 vp->name);
	vp->freezer_warned = missing;
	return newly;
}

/* Append the processes of every cgroup policy pi matches now to *all. Returns 0 or -ENOMEM. */
static int policy_pids(struct vaddr *v, unsigned pi, struct vpid **all, size_t *nall)
{
	struct vpolicy *vp = &v->pol[pi];
	size_t old_nr = vp->cgroups.nr;
	int *fr;

	cgrp_list_fini(&vp->cgroups);
	if (!vp->active ||
	    cgrp_expand(v->cg, vp->cfg->cgroup, vp->cfg->cgroup_is_glob, &vp->cgroups) < 0)
		return 0;
	vp->s.cgroups = vp->cgroups.nr;
	fr = reallocarray(vp->frozen, vp->cgroups.nr + 1, sizeof(*fr));
	if (!fr) {
		cgrp_list_fini(&vp->cgroups); /* its targets are dropped, not left ungated */
		return -ENOMEM;
	}
	vp->frozen = fr;
	for (size_t c = 0; v->cs && c < vp->cgroups.nr; c++)
		cgstat_get(v->cs, ENGINE_VADDR, vp->name, vp->cgroups.paths[c]);
	/* a new list: states at the same index are of other cgroups only when it changed */
	read_frozen(v, vp, old_nr == vp->cgroups.nr ? old_nr : 0);
	for (size_t c = 0; c < vp->cgroups.nr; c++) {
		pid_t *pids = NULL;
		int n = cgrp_pids(v->cg, vp->cgroups.paths[c], true, &pids);
		struct vpid *na = n > 0 ? reallocarray(*all, *nall + (size_t)n, sizeof(*na)) : NULL;

		if (na)
			*all = na;
		for (int k = 0; na && k < n; k++)
			(*all)[(*nall)++] = (struct vpid){ pids[k], pi, c };
		free(pids);
	}
	return 0;
}

/* The pids each policy matches now; targets added, and removed when gone or moved out. */
static void sync_targets(struct vaddr *v)
{
	struct vpid *all = NULL;
	size_t nall = 0;

	for (size_t i = 0; i < v->nt; i++)
		if (madv_pidfd_alive(v->t[i].pidfd) < 0)
			v->t[i].dead = true;
	/* the figures of a cgroup no policy matches any more (an app gone) are freed */
	if (v->cs)
		cgstat_mark(v->cs, ENGINE_VADDR);
	for (size_t pi = 0; pi < v->npol; pi++)
		policy_pids(v, (unsigned)pi, &all, &nall);
	if (v->cs)
		cgstat_sweep(v->cs, ENGINE_VADDR);
	/* a target whose process left every matched cgroup is dropped */
	for (size_t i = 0; i < v->nt; i++) {
		bool found = false;

		for (size_t k = 0; k < nall && !found; k++) {
			found = all[k].pid == v->t[i].pid && all[k].policy == v->t[i].policy;
			if (found)
				v->t[i].cgroup = all[k].cgroup; /* the first that lists it */
		}
		if (!found)
			v->t[i].dead = true;
	}
	targets_compact(v);
	for (size_t k = 0; k < nall; k++) {
		bool known = all[k].pid == v->self || is_skipped(v, all[k].pid);

		for (size_t i = 0; i < v->nt && !known; i++)
			known = v->t[i].pid == all[k].pid;
		/* the first policy that matches a process owns it */
		for (size_t j = 0; j < k && !known; j++)
			known = all[j].pid == all[k].pid;
		if (!known)
			target_add(v, all[k].pid, all[k].policy, all[k].cgroup);
	}
	for (size_t pi = 0; pi < v->npol; pi++)
		v->pol[pi].s.procs = 0;
	for (size_t i = 0; i < v->nt; i++)
		v->pol[v->t[i].policy].s.procs++;
	v->s.targets = v->nt;
	free(all);
}

void vaddr_watch(struct vaddr *v, int fd)
{
	v->watchfd = fd;
}

void vaddr_cgstat(struct vaddr *v, struct cgstat *cs)
{
	v->cs = cs;
}

unsigned vaddr_frozen_changed(struct vaddr *v)
{
	unsigned newly = 0;

	for (size_t pi = 0; pi < v->npol; pi++)
		if (v->pol[pi].active && v->pol[pi].cfg->frozen_only)
			newly += read_frozen(v, &v->pol[pi], v->pol[pi].cgroups.nr);
	return newly;
}

/*
 * The first regions of target t (vaddr_seed_regions), as many per target as keep all targets'
 * seeds within half of max_regions (DAMON splits only below that); none when fewer than three
 * fit, or when its maps cannot be read (DAMON then starts it the usual way). Returns the count.
 */
static unsigned seed_target(const struct vaddr *v, const struct vtarget *vt, struct damon_target *t)
{
	uint64_t per = v->cfg->damon.max_regions / (2 * (v->nt ? v->nt : 1));
	struct vma_list vmas = { 0 };
	char *maps = NULL;

	t->nr_regions = 0;
	if (per < 3)
		return 0;
	if (per > DAMON_TARGET_REGIONS_MAX)
		per = DAMON_TARGET_REGIONS_MAX;
	if (read_file_alloc_at(vt->procfd, "maps", &maps) >= 0 && vma_parse_smaps(maps, &vmas) == 0)
		t->nr_regions = vaddr_seed_regions(&vmas, t->regions, (unsigned)per);
	free(maps);
	vma_list_fini(&vmas);
	return t->nr_regions;
}

/* Every policy with processes failed this cycle, for the same reason. */
static void count_failure(struct vaddr *v, enum fail_kind k)
{
	for (size_t pi = 0; pi < v->npol; pi++)
		if (v->pol[pi].active && v->pol[pi].s.procs)
			v->pol[pi].s.failures_total[k]++;
}

/* The context could not be written or started: log the condition once, count it, return r. */
__attribute__((format(printf, 3, 4))) static int damon_failed(struct vaddr *v, int r,
							      const char *fmt, ...)
{
	char why[LOG_COND_TEXT_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	count_failure(v, FAIL_DAMON_WRITE);
	log_cond_set(&v->damon_cond, LOG_ERR, "vaddr: %s", why);
	return r;
}

const char *vaddr_error(const struct vaddr *v)
{
	const char *e = log_cond_text(&v->damon_cond);

	return e ? e : log_cond_text(&v->read_cond);
}

/* Write the context (one stat scheme per target) and start or commit it. */
static int sync_damon(struct vaddr *v)
{
	struct damon_target *t;
	struct damon_scheme *s;
	struct damon_ctx c = { 0 };
	unsigned seeds = 0;
	int r;

	if (!v->nt || (!v->dirty && v->running))
		log_cond_clear(&v->damon_cond); /* nothing to write, or the last write worked */
	if (!v->dirty && (v->running || !v->nt))
		return 0;
	if (!v->nt) {
		if (v->running)
			damon_stop(v->d, DAMON_SLOT_VADDR);
		v->running = false;
		v->dirty = false;
		return 0;
	}
	if (v->nt > 1 && !v->d->feat.filter_target)
		return damon_failed(v, -EOPNOTSUPP,
				    "this kernel's DAMON has no target filters (Linux 6.6+): "
				    "regions cannot be attributed to processes; vaddr policies are "
				    "inactive");
	t = calloc(v->nt, sizeof(*t));
	s = calloc(v->nt, sizeof(*s));
	if (!t || !s) {
		free(t);
		free(s);
		return -ENOMEM;
	}
	str_copy(c.ops, sizeof(c.ops), "vaddr");
	c.sample_us = v->cfg->damon.sample_us;
	c.aggr_us = v->cfg->damon.aggr_us;
	c.update_us = v->cfg->damon.update_us;
	c.min_regions = v->cfg->damon.min_regions;
	c.max_regions = v->cfg->damon.max_regions;
	for (size_t i = 0; i < v->nt; i++) {
		t[i].pid = v->t[i].pid;
		/* a target new to DAMON (or to its index) starts with a region per large VMA */
		if ((!v->running || !v->t[i].seeded) && v->seed_refused < 2)
			seeds += seed_target(v, &v->t[i], &t[i]);
		str_copy(s[i].action, sizeof(s[i].action), "stat");
		damon_pattern_all(&s[i].pattern);
		if (v->nt > 1) {
			s[i].nr_filters = 1;
			s[i].filters[0].type = DAMON_FILTER_TARGET;
			s[i].filters[0].target_idx = (unsigned)i;
			s[i].filters[0].matching = false; /* filter out every other target */
		}
	}
	c.nr_targets = c.nr_schemes = (unsigned)v->nt;
	c.targets = t;
	c.schemes = s;
	r = damon_write_ctx(v->d, DAMON_SLOT_VADDR, &c);
	if (r == 0) {
		if (v->running) {
			r = damon_commit(v->d, DAMON_SLOT_VADDR);
			v->s.commits++;
		}
		if (!v->running || r == -EINVAL || r == -ECANCELED) {
			r = damon_start(v->d, DAMON_SLOT_VADDR);
			if (r == 0) {
				v->s.restarts++;
				for (size_t i = 0; i < v->nt; i++)
					target_forget(&v->t[i]);
			}
		}
	}
	free(t);
	free(s);
	if (r == 0)
		for (size_t i = 0; i < v->nt; i++)
			v->t[i].seeded = true;
	if (r == -EINVAL && seeds && ++v->seed_refused == 2)
		log_notice("vaddr: DAMON refused the seeded monitoring regions twice; new targets "
			   "start with DAMON's own regions from now on");
	if (r == -ESRCH || r == -EINVAL) {
		/* a target exited between the check and the write: the next cycle drops it */
		log_rl(LOG_INFO, "vaddr: DAMON refused the targets (%s); retrying next cycle",
		       strerror(-r));
		return r;
	}
	if (r < 0)
		return damon_failed(v, r, "%s", v->d->err);
	log_cond_clear(&v->damon_cond);
	v->running = true;
	v->dirty = false;
	return 0;
}

static void read_inputs(struct vaddr *v, struct vpolicy *vp, const struct policy_input *sys)
{
	vp->in = *sys;
	vp->resident = 0;
	vp->s.memcg_known = false;
	for (size_t c = 0; c < vp->cgroups.nr; c++) {
		uint64_t res;

		if (engine_read_cgroup(v->cg, vp->cgroups.paths[c], &vp->in, &res) == 0) {
			vp->s.memcg_known = true;
			vp->resident += res;
		}
	}
	read_frozen(v, vp, vp->cgroups.nr);
}

static uint64_t memcg_resident(const struct vaddr *v, const struct vpolicy *vp)
{
	uint64_t sum = 0;

	for (size_t c = 0; c < vp->cgroups.nr; c++) {
		struct cgrp_memstat ms;

		if (cgrp_memstat(v->cg, vp->cgroups.paths[c], &ms) == 0)
			sum += ms.anon + ms.file;
	}
	return sum;
}

/* One piece of work: a clipped range of target t. */
struct vwork {
	size_t target;
	struct vrange r;
};

static int cmp_work_cold(const void *a, const void *b)
{
	const struct vwork *x = a, *y = b;
	uint64_t sx = x->r.end - x->r.start, sy = y->r.end - y->r.start;

	if (x->r.nr_accesses != y->r.nr_accesses)
		return x->r.nr_accesses < y->r.nr_accesses ? -1 : 1;
	if (x->r.age_us != y->r.age_us)
		return x->r.age_us > y->r.age_us ? -1 : 1;
	if (sx != sy)
		return sx > sy ? -1 : 1;
	return 0;
}

static int cmp_vrange(const void *a, const void *b)
{
	const struct vrange *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

static int cmp_work_addr(const void *a, const void *b)
{
	const struct vwork *x = a, *y = b;

	if (x->target != y->target)
		return x->target < y->target ? -1 : 1;
	return (x->r.start > y->r.start) - (x->r.start < y->r.start);
}

/*
 * Selection for target t from its regions in this snapshot: candidates now; confirmed ones
 * (candidates in the previous snapshot too, unless the kernel re-checks); not yet advised.
 * Skip counters get the bytes that are cold but not taken, by reason.
 */
/* samples a region must have put on a mapping's piece of it (select_target) */
#define SPARSE_MIN_SAMPLES 20

/*
 * The pieces of a target's regions as DAMON reports them (sr) that are idle enough to be
 * candidates: raw (at least min_age old) and young (younger), one piece per mapping of
 * `mapped` (sorted, never merged), with the age of its region in µs of the kdamond's clock;
 * regions accessed more than max_access_rate into hot (if not NULL). A piece too sparsely
 * sampled to speak for (below) is left out and its bytes added to *sparse (if not NULL).
 */
static int cold_pieces(const struct vaddr *v, const struct vtarget *t, const struct vpolicy *vp,
		       const struct damon_scheme_regions *sr, uint64_t now,
		       const struct vrange_list *mapped, struct vrange_list *hot,
		       struct vrange_list *raw, struct vrange_list *young, uint64_t *sparse)
{
	uint64_t aggr = v->cfg->damon.aggr_us, sample = v->cfg->damon.sample_us;
	/* an age in intervals, in the time the kdamond really took for them */
	uint64_t clock = v->s.aggr_us > aggr ? v->s.aggr_us : aggr;
	uint64_t max_acc =
		(uint64_t)vp->cfg->max_access_rate * (aggr / (sample ? sample : 1)) / PPM_ONE;
	uint64_t monitored = now - t->since_us;
	size_t j = 0;

	for (unsigned i = 0; sr && i < sr->nr; i++) {
		const struct damon_region *g = &sr->regions[i];
		uint64_t age = (uint64_t)g->age * clock;

		if (g->nr_accesses > max_acc) {
			if (hot && vrange_push(hot, g->start, g->end, g->nr_accesses, 0) < 0)
				return -ENOMEM;
			continue;
		}
		/* never older than pageoutd has watched this process at this index */
		if (age > monitored)
			age = monitored;
		/*
		 * DAMON samples one random address of the region at a time, so its "no access"
		 * speaks for each part of the region in proportion to the samples that fell there.
		 * Each mapping's part (one VMA's piece: a hole, a cold mapping and a few pages of a
		 * hot one can share a region) counts only once the region's age has put
		 * SPARSE_MIN_SAMPLES samples on it (expected: age in samples x the piece's share),
		 * none of them seeing an access; until then (or until DAMON splits the region) it
		 * waits. DAMON merges a cold area with an unmapped hole next to it and may never
		 * split them apart again; a hot mapping's edge beside them was paged out with them
		 * (6.12 guest bench: 816 KiB of a hot set with a 32 MiB cold area, 3.3% refaulted).
		 */
		if (mapped_from(mapped, g->start, &j) < 0)
			continue;
		for (size_t k = j; k < mapped->nr && mapped->r[k].start < g->end; k++) {
			uint64_t a = mapped->r[k].start > g->start ? mapped->r[k].start : g->start;
			uint64_t b = mapped->r[k].end < g->end ? mapped->r[k].end : g->end;
			struct vrange_list *to = age < vp->st.min_age_us ? young : raw;

			if ((double)age / (double)(sample ? sample : 1) * (double)(b - a) /
				    (double)(g->end - g->start) <
			    SPARSE_MIN_SAMPLES) {
				if (sparse)
					*sparse += b - a;
				continue;
			}
			if (to && vrange_push(to, a, b, g->nr_accesses, age) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

static int select_target(struct vaddr *v, struct vtarget *t, struct vpolicy *vp,
			 const struct damon_scheme_regions *sr, uint64_t now,
			 const struct vrange_list *mapped, struct vrange_list *todo)
{
	uint64_t aggr = v->cfg->damon.aggr_us;
	uint64_t clock = v->s.aggr_us > aggr ? v->s.aggr_us : aggr;
	struct vrange_list raw = { 0 }, young = { 0 }, hot = { 0 }, cur = { 0 }, tmp = { 0 },
			   confirmed = { 0 };
	int r = 0;

	if (cold_pieces(v, t, vp, sr, now, mapped, &hot, &raw, &young,
			&vp->s.skipped_total[SKIP_SPARSE]) < 0)
		goto nomem;
	/* young and raw hold mapped pieces only (cold_pieces): no second intersection */
	SWAP_LISTS(cur, raw);
	vp->s.skipped_total[SKIP_YOUNG] += vrange_bytes(&young);
	vp->s.cold_bytes += vrange_bytes(&cur);
	/*
	 * Advised ranges stay "done" until DAMON sees them accessed: a range that only looks
	 * younger (DAMON merged or split its regions) is not advised again.
	 */
	if (vrange_subtract(&t->advised, &hot, &tmp) < 0)
		goto nomem;
	SWAP_LISTS(t->advised, tmp);
	if (v->refsem == REFSEM_IGNORE) {
		/* a quarter of the wall time: what the measured clock (read_clock) still misses */
		uint64_t gain = t->prev_us ? (now - t->prev_us) / 4 : 0, turned = 0, both;

		/*
		 * Ages are compared in one clock: when the measured interval fell since the last
		 * snapshot, every age counted now would look younger than the same region's then,
		 * and no cold range would be confirmed until the clock stood still again.
		 */
		if (t->prev_clock && t->prev_us)
			vrange_rescale(&t->prev, t->prev_clock, clock, t->prev_us - t->since_us);
		if (vrange_confirm(&cur, &t->prev, gain, &confirmed, &turned) < 0 ||
		    vrange_subtract(&t->prev, &cur, &tmp) < 0)
			goto nomem;
		both = vrange_bytes(&confirmed) + turned;
		vp->s.skipped_total[SKIP_TURNED_HOT] += vrange_bytes(&tmp) + turned;
		vp->s.skipped_total[SKIP_UNCONFIRMED] += vrange_bytes(&cur) - both;
	} else {
		/* the kernel re-checks references: one cold snapshot is enough */
		tmp.nr = 0;
		if (vrange_subtract(&cur, &tmp, &confirmed) < 0)
			goto nomem;
	}
	/* todo: confirmed, less what was advised or refused by the kernel (run_policy) */
	if (vrange_subtract(&confirmed, &t->advised, todo) < 0)
		goto nomem;
	if (t->refused.nr) {
		if (vrange_subtract(todo, &t->refused, &tmp) < 0)
			goto nomem;
		SWAP_LISTS(*todo, tmp);
	}
	SWAP_LISTS(t->prev, cur);
	t->prev_us = now;
	t->prev_clock = clock;
	goto out;
nomem:
	r = -ENOMEM;
out:
	vrange_list_fini(&raw);
	vrange_list_fini(&young);
	vrange_list_fini(&hot);
	vrange_list_fini(&cur);
	vrange_list_fini(&tmp);
	vrange_list_fini(&confirmed);
	return r;
}

static int push_work(struct vwork **w, size_t *nw, size_t *cap, size_t target,
		     const struct vrange *r)
{
	if (*nw == *cap) {
		size_t c = *cap ? *cap * 2 : 64;
		struct vwork *n = reallocarray(*w, c, sizeof(*n));

		if (!n)
			return -ENOMEM;
		*w = n;
		*cap = c;
	}
	(*w)[(*nw)++] = (struct vwork){ target, *r };
	return 0;
}

/* The frozen_only gate of target t's cgroup (policy_cgroup_gate), as last read. */
static enum skip_reason target_gate(const struct vpolicy *vp, const struct vtarget *t)
{
	return policy_cgroup_gate(vp->cfg,
				  t->cgroup < vp->cgroups.nr ? vp->frozen[t->cgroup] : -ENOENT);
}

/*
 * Whether target t's cgroup may no longer be reclaimed, read again right before its advice:
 * a thaw seen then stops it (its process runs again and may touch any of it).
 */
static bool target_thawed(struct vaddr *v, struct vpolicy *vp, const struct vtarget *t)
{
	if (!vp->cfg->frozen_only)
		return false;
	if (t->cgroup < vp->cgroups.nr)
		set_frozen(v, vp, t->cgroup, cgrp_frozen(v->cg, vp->cgroups.paths[t->cgroup]));
	return target_gate(vp, t) != SKIP_MAX;
}

/* Apply the chosen work of one policy, target by target, and record what it did. */
static void apply(struct vaddr *v, struct vpolicy *vp, struct vwork *w, size_t nw)
{
	struct madv_stats ms = { 0 };
	uint64_t advised0, memcg0 = vp->resident, memcg1, rss_drop = 0;

	if (nw)
		qsort(w, nw, sizeof(*w), cmp_work_addr);
	advised0 = vp->s.advised_bytes_total;
	for (size_t i = 0; i < nw;) {
		size_t j = i, n;
		struct vtarget *t = &v->t[w[i].target];
		struct madv_range *mr;
		uint64_t rss0, rss1;
		int r;

		while (j < nw && w[j].target == w[i].target)
			j++;
		n = j - i;
		if (target_thawed(v, vp, t)) {
			for (size_t k = i; k < j; k++)
				vp->s.skipped_total[SKIP_NOT_FROZEN] += w[k].r.end - w[k].r.start;
			i = j;
			continue;
		}
		mr = calloc(n, sizeof(*mr));
		if (!mr)
			break;
		for (size_t k = 0; k < n; k++) {
			mr[k].start = w[i + k].r.start;
			mr[k].end = w[i + k].r.end;
		}
		rss0 = rss_of(v, t->procfd);
		r = madv_apply(t->pidfd, mr, n, MADV_PAGEOUT, 0, v->cfg->daemon.dry_run, &ms);
		rss1 = rss_of(v, t->procfd);
		if (rss0 > rss1)
			rss_drop += rss0 - rss1;
		for (size_t k = 0; k < n; k++) {
			uint64_t sz = mr[k].end - mr[k].start;

			if (mr[k].done) {
				vp->s.advised_bytes_total += sz;
				cgstat_reclaimed(cg_entry(v, vp, t->cgroup), sz);
				if (!v->cfg->daemon.dry_run)
					vrange_push(&t->advised, mr[k].start, mr[k].end,
						    w[i + k].r.nr_accesses, w[i + k].r.age_us);
			} else if (r == -ESRCH || r == -EBADF) {
				vp->s.skipped_total[SKIP_VANISHED] += sz;
			} else if (mr[k].err == EINVAL) {
				/* locked, hugetlb, PFN or I/O: not tried again (see run_policy) */
				vp->s.skipped_total[SKIP_LOCKED] += sz;
				if (!t->refused.nr)
					t->refused_us = now_usec();
				vrange_push(&t->refused, mr[k].start, mr[k].end, 0, 0);
			} else if (mr[k].err == ENOMEM) {
				vp->s.skipped_total[SKIP_VMA] += sz;
			} else {
				vp->s.skipped_total[SKIP_ERROR] += sz;
			}
		}
		if (r == -ESRCH || r == -EBADF) {
			log_debug("vaddr: policy %s: pid %d exited during apply", vp->name,
				  (int)t->pid);
			t->dead = true;
		}
		/* the advised and refused sets must stay sorted by address */
		if (t->advised.nr)
			qsort(t->advised.r, t->advised.nr, sizeof(*t->advised.r), cmp_vrange);
		if (t->refused.nr)
			qsort(t->refused.r, t->refused.nr, sizeof(*t->refused.r), cmp_vrange);
		free(mr);
		i = j;
	}
	for (unsigned e = 0; e < MADV_ERR_MAX; e++) {
		vp->s.errors_total[e] += ms.err[e];
		/* a process that exited is no failure: its bytes count as vanished */
		if (e != MADV_ERR_ESRCH)
			vp->s.failures_total[FAIL_MADVISE] += ms.err[e];
	}
	memcg1 = memcg_resident(v, vp);
	vp->s.last_advised = vp->s.advised_bytes_total - advised0;
	vp->s.last_rss_drop = rss_drop;
	vp->s.rss_drop_bytes_total += rss_drop;
	if (memcg0 > memcg1)
		vp->s.memcg_drop_bytes_total += memcg0 - memcg1;
}

/*
 * Whether a target has nothing left to advise whatever its maps say now: every candidate piece
 * (cold_pieces over its mappings of the kinds it may advise now, as of the last maps read) is
 * already advised or refused. Then this cycle's select_target can only keep its books (prev,
 * advised), and the maps read it needs (a third of pageoutd's steady CPU at 100 processes in
 * the 7.2 guest) can wait. A piece too sparsely sampled is no candidate yet: a heap 800 MB
 * above the program, in one DAMON region with the gap between them, stays one for good.
 */
static bool target_settled(const struct vaddr *v, const struct vtarget *t, const struct vpolicy *vp,
			   const struct damon_scheme_regions *sr, unsigned kinds, uint64_t now)
{
	struct vrange_list m = { 0 }, raw = { 0 }, a = { 0 };
	bool settled = false;

	if (!t->vmas_us || now - t->vmas_us > VADDR_MAPS_KEEP_US ||
	    (t->refused.nr && now - t->refused_us > VADDR_REFUSED_KEEP_US))
		return false;
	/* nothing it may advise now (every kind blocked): no piece is a candidate */
	if (!kinds)
		return true;
	/* the mappings of the kinds it may advise now: the others are never advised */
	if (vma_pieces(&t->vmas, kinds, &m) < 0 ||
	    cold_pieces(v, t, vp, sr, now, &m, NULL, &raw, NULL, NULL) < 0 ||
	    vrange_subtract(&raw, &t->advised, &a) < 0 ||
	    vrange_subtract(&a, &t->refused, &raw) < 0)
		goto out;
	settled = raw.nr == 0;
out:
	vrange_list_fini(&m);
	vrange_list_fini(&raw);
	vrange_list_fini(&a);
	return settled;
}

/*
 * cut_range: shorten r to at most limit bytes, rounded down to whole pages; what is cut is
 * added to *skipped. Returns r's size after the cut.
 */
static uint64_t cut_range(struct vrange *r, uint64_t limit, uint64_t page_size, uint64_t *skipped)
{
	uint64_t sz = r->end - r->start, part;

	if (sz <= limit)
		return sz;
	part = limit & ~(page_size - 1);
	*skipped += sz - part;
	r->end = r->start + part;
	return part;
}

static void run_policy(struct vaddr *v, size_t pi, const struct damon_snapshot *snap, uint64_t now)
{
	struct vpolicy *vp = &v->pol[pi];
	struct vwork *w = NULL;
	size_t nw = 0, cap = 0, take = 0;
	unsigned kinds = vp->cfg->memory, blocked = 0;
	uint64_t budget, room;
	char rate[16];

	vp->s.cycles++;
	vp->s.cold_bytes = 0;
	vp->s.last_advised = vp->s.last_rss_drop = 0;
	vp->s.psi_some_avg10 = vp->in.psi_known ? vp->in.psi_some_avg10 : -1;
	policy_decide(vp->cfg, POLICY_GATES_ALL, &vp->in, &vp->st);
	budget = vp->st.budget;
	if ((kinds & MEMORY_ANON) && !vp->st.anon_allowed)
		blocked |= MEMORY_ANON;
	if ((kinds & MEMORY_FILE) && !vp->st.file_allowed)
		blocked |= MEMORY_FILE;
	for (size_t i = 0; i < v->nt; i++) {
		struct vtarget *t = &v->t[i];
		struct vrange_list todo = { 0 }, clipped = { 0 }, mapped = { 0 };
		struct vma_list flagged = { 0 };
		char *text = NULL;
		ssize_t len;
		bool kept;
		int sel;

		if (t->policy != pi || t->dead)
			continue;
		/*
		 * A live target always has regions in DAMON (min_regions): a scheme without any
		 * tried region is no news, not "nothing cold". 6.12 answered every other update
		 * so in the guest bench, and taking it as news emptied the previous candidates,
		 * so that no two consecutive snapshots agreed and the cold set waited 16 s
		 * instead of 7. The next snapshot is compared with the last one that had regions.
		 */
		if (i >= snap->nr_schemes || !snap->schemes[i].nr) {
			v->s.empty_snapshots++;
			continue;
		}
		/*
		 * maps is cheap (no page walk): it bounds what is counted. A settled target's
		 * last maps do: nothing of it can be advised this cycle (target_settled).
		 */
		kept = target_settled(v, t, vp, &snap->schemes[i], kinds & ~blocked, now);
		if (kept) {
			v->s.maps_kept++;
		} else if ((len = read_file_alloc_at(t->procfd, "maps", &text)) < 0 ||
			   vma_parse_smaps(text, &t->vmas) < 0) {
			free(text);
			t->vmas.nr = 0;
			t->vmas_us = 0;
			t->dead = madv_pidfd_alive(t->pidfd) < 0;
			continue;
		} else {
			/*
			 * Ranges the kernel refused stay refused while the VMAs are as they
			 * were: until maps changes, or for VADDR_REFUSED_KEEP_US at most (munlock
			 * changes no line).
			 */
			uint64_t h = hash_bytes(text, (size_t)len);

			if (h != t->maps_hash || now - t->refused_us > VADDR_REFUSED_KEEP_US)
				t->refused.nr = 0;
			t->maps_hash = h;
			free(text);
			text = NULL;
			v->s.maps_reads++;
			t->vmas_us = now;
		}
		/* every mapping, each a piece of its own */
		sel = vma_pieces(&t->vmas, 0, &mapped) < 0
			      ? -ENOMEM
			      : select_target(v, t, vp, &snap->schemes[i], now, &mapped, &todo);
		vrange_list_fini(&mapped);
		if (sel < 0 || !todo.nr) {
			vrange_list_fini(&todo);
			continue;
		}
		/*
		 * The VMAs as they are now, of the process the pidfd names: the maps just read,
		 * when the process is still alive after it (its /proc directory was opened while
		 * the pid was the pidfd's). Only smaps' VmFlags tell locked, hugetlb, PFN and I/O
		 * VMAs from others, and smaps walks every page to print them (at 100 small
		 * processes with mlockall in the 6.12 guest it took two thirds of pageoutd's CPU):
		 * the kernel refuses those VMAs itself with EINVAL, which apply counts as locked
		 * and records as refused until maps changes (above). A dry run asks nothing of
		 * the kernel, so it reads smaps to count them right. A settled target's todo holds
		 * only memory of kinds it may not advise now, which the clip counts and drops.
		 */
		if ((v->cfg->daemon.dry_run && read_file_alloc_at(t->procfd, "smaps", &text) < 0) ||
		    (!kept && madv_pidfd_alive(t->pidfd) < 0)) {
			vp->s.skipped_total[SKIP_VANISHED] += vrange_bytes(&todo);
			t->dead = true;
		} else if ((!text || vma_parse_smaps(text, &flagged) == 0) &&
			   vrange_clip(&todo, text ? &flagged : &t->vmas, kinds, blocked,
				       v->page_size, &clipped, vp->s.skipped_total) == 0) {
			/* settled, yet something to advise (cannot be): never on maps read before */
			if (kept && clipped.nr)
				t->vmas_us = 0;
			else if (target_gate(vp, t) != SKIP_MAX)
				/* its books are kept: the cold set goes as soon as it is frozen */
				vp->s.skipped_total[SKIP_NOT_FROZEN] += vrange_bytes(&clipped);
			else
				for (size_t k = 0; k < clipped.nr; k++)
					push_work(&w, &nw, &cap, i, &clipped.r[k]);
		}
		free(text);
		vma_list_fini(&flagged);
		vrange_list_fini(&todo);
		vrange_list_fini(&clipped);
	}
	if (vp->st.paused) {
		for (size_t k = 0; k < nw; k++)
			vp->s.skipped_total[vp->st.paused_why] += w[k].r.end - w[k].r.start;
		nw = 0;
	}
	/*
	 * coldest, then oldest, then largest first, within the quota and, for anonymous memory,
	 * within the swap left above every policy's reserve this cycle
	 */
	if (nw)
		qsort(w, nw, sizeof(*w), cmp_work_cold);
	room = vp->st.anon_room > v->cycle_anon ? vp->st.anon_room - v->cycle_anon : 0;
	for (size_t k = 0; k < nw; k++) {
		struct vwork x = w[k];
		uint64_t sz;

		if (x.r.kind & MEMORY_ANON)
			cut_range(&x.r, room, v->page_size,
				  &vp->s.skipped_total[SKIP_SWAP_RESERVE]);
		sz = cut_range(&x.r, budget, v->page_size, &vp->s.skipped_total[SKIP_QUOTA]);
		if (!sz)
			continue;
		budget -= sz;
		if (x.r.kind & MEMORY_ANON) {
			room -= sz;
			v->cycle_anon += sz;
		}
		w[take++] = x;
	}
	if (vp->cfg->memory & MEMORY_ANON) {
		if (room < v->page_size)
			log_cond_set(&vp->swap_cond, LOG_NOTICE,
				     "vaddr: policy %s: %s%s: anonymous pageout stopped", vp->name,
				     vp->in.swap_total ? "free swap at swap_reserve " : "no swap",
				     vp->in.swap_total
					     ? fmt_rate(rate, sizeof(rate), vp->cfg->swap_reserve)
					     : "");
		else
			log_cond_clear(&vp->swap_cond);
	}
	if (take) {
		uint64_t before = vp->s.advised_bytes_total;

		apply(v, vp, w, take);
		policy_consume(&vp->st, vp->s.advised_bytes_total - before);
	}
	free(w);
}

/*
 * Read the kdamond's clock off this snapshot (see vaddr_age_gain): each target compares its
 * regions with those it kept at least VADDR_CLOCK_SPAN_US ago; the shortest estimate of the cycle
 * joins the last VADDR_CLOCK_KEEP, and the least of those is the interval ages are counted in
 * (it falls at once when the host gets less loaded, and rises only as the load stays).
 */
static void read_clock(struct vaddr *v, const struct damon_snapshot *snap, uint64_t now)
{
	uint64_t aggr = v->cfg->damon.aggr_us, best = 0, eff = 0;

	for (size_t i = 0; i < v->nt && i < snap->nr_schemes; i++) {
		struct vtarget *t = &v->t[i];
		const struct damon_scheme_regions *sr = &snap->schemes[i];
		uint64_t est;

		if (!sr->nr || (t->seen.nr && now - t->seen_us < VADDR_CLOCK_SPAN_US))
			continue;
		est = t->seen.nr ? vaddr_interval_estimate(
					   now - t->seen_us,
					   vaddr_age_gain(&t->seen, sr->regions, sr->nr), aggr)
				 : 0;
		/* a region whose age was reset meanwhile makes a target's estimate too long */
		if (est && (!best || est < best))
			best = est;
		t->seen.nr = 0;
		for (unsigned k = 0; k < sr->nr; k++)
			if (vrange_push(&t->seen, sr->regions[k].start, sr->regions[k].end,
					sr->regions[k].nr_accesses, sr->regions[k].age) < 0) {
				t->seen.nr = 0;
				break;
			}
		t->seen_us = now;
	}
	if (best)
		v->clock[v->nclock++ % VADDR_CLOCK_KEEP] = best;
	for (unsigned k = 0; k < v->nclock && k < VADDR_CLOCK_KEEP; k++)
		if (!eff || v->clock[k] < eff)
			eff = v->clock[k];
	v->s.aggr_us = eff ? eff : aggr;
}

static int read_sys(struct vaddr *v, struct policy_input *in)
{
	return engine_read_sys(v->procfd, v->page_size, in);
}

/*
 * No process to watch: no policy runs, but what its cgroups show is still known (PSI), as
 * a paddr policy shows it without a scheme at work.
 */
static void read_idle(struct vaddr *v)
{
	struct policy_input sys;

	read_sys(v, &sys);
	for (size_t pi = 0; pi < v->npol; pi++) {
		struct vpolicy *vp = &v->pol[pi];

		if (!vp->active)
			continue;
		read_inputs(v, vp, &sys);
		vp->s.psi_some_avg10 = vp->in.psi_known ? vp->in.psi_some_avg10 : -1;
	}
}

int vaddr_cycle(struct vaddr *v)
{
	struct damon_snapshot snap = { 0 };
	struct policy_input sys;
	uint64_t now;
	int r;

	v->s.cycles++;
	sync_targets(v);
	if (v->running) {
		r = damon_running(v->d, DAMON_SLOT_VADDR);
		if (r == 0) {
			log_rl(LOG_WARNING, "vaddr: the kdamond is off (all targets exited, or "
					    "someone turned it off); restarting it");
			v->running = false;
			v->dirty = true;
		}
	}
	r = sync_damon(v);
	if (!v->nt)
		read_idle(v);
	if (r < 0 || !v->nt)
		return r == -EOPNOTSUPP || r == -ESRCH || r == -EINVAL ? 0 : r;
	r = damon_snapshot(v->d, DAMON_SLOT_VADDR, &snap);
	if (r < 0) {
		v->s.snapshot_errors++;
		if (r == -EINVAL || r == -ECANCELED) {
			v->running = false;
			v->dirty = true;
			return 0;
		}
		count_failure(v, FAIL_DAMON_READ);
		log_cond_set(&v->read_cond, LOG_WARNING,
			     "vaddr: reading the snapshot of kdamond %d: %s", DAMON_SLOT_VADDR,
			     strerror(-r));
		return r;
	}
	log_cond_clear(&v->read_cond);
	v->s.snapshots++;
	v->s.snapshot_us_total += snap.cost_us;
	if (snap.nr_schemes != v->nt)
		log_rl(LOG_WARNING, "vaddr: snapshot has %u schemes for %zu targets",
		       snap.nr_schemes, v->nt);
	read_sys(v, &sys);
	now = now_usec();
	read_clock(v, &snap, now);
	v->cycle_anon = 0;
	for (size_t pi = 0; pi < v->npol; pi++) {
		if (!v->pol[pi].active)
			continue;
		read_inputs(v, &v->pol[pi], &sys);
		run_policy(v, pi, &snap, now);
	}
	damon_snapshot_fini(&snap);
	return 0;
}

void vaddr_log_summary(const struct vaddr *v)
{
	char a[16], b[16], c[16], d[16], q[16], h[16], u[16];

	for (size_t pi = 0; pi < v->npol; pi++) {
		const struct vpolicy *vp = &v->pol[pi];
		const uint64_t *sk = vp->s.skipped_total;

		if (!vp->active)
			continue;
		/* info when something happened, debug otherwise */
		log_msg(vp->s.last_advised || vp->st.paused ? LOG_INFO : LOG_DEBUG,
			"policy %s: %" PRIu64 " cgroups, %" PRIu64 " processes, cold %s, "
			"advised %s (rss -%s), total advised %s; not taken: young %s, quota %s, "
			"unconfirmed/turned hot %s%s",
			vp->name, vp->s.cgroups, vp->s.procs,
			fmt_size(a, sizeof(a), vp->s.cold_bytes),
			fmt_size(b, sizeof(b), vp->s.last_advised),
			fmt_size(c, sizeof(c), vp->s.last_rss_drop),
			fmt_size(d, sizeof(d), vp->s.advised_bytes_total),
			fmt_size(h, sizeof(h), sk[SKIP_YOUNG]),
			fmt_size(q, sizeof(q), sk[SKIP_QUOTA]),
			fmt_size(u, sizeof(u), sk[SKIP_UNCONFIRMED] + sk[SKIP_TURNED_HOT]),
			vp->st.paused
				? (vp->st.paused_why == SKIP_PAUSED	? "; paused by an operator"
				   : vp->st.paused_why == SKIP_PRESSURE ? "; paused: pressure"
				   : vp->st.paused_why == SKIP_NOT_FROZEN ? "; paused: not frozen"
				   : vp->st.paused_why == SKIP_SWAP_RESERVE
					   ? "; paused: no free swap above swap_reserve"
					   : "; paused: free memory above min_free")
				: "");
	}
}
