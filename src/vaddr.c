// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vaddr: the engine of `engine = vaddr` policies (vaddr.h). It makes each process of the
 * matched cgroups a target (vtarget.c: a pidfd and its /proc directory), writes them to its
 * kdamond, and each cycle reads a snapshot, lets the plan (vplan.c) choose each target's cold
 * ranges over its VMAs (vma.c), and advises them with batched process_madvise(MADV_PAGEOUT)
 * through the pidfd held since registration, keeping the figures status and the log report.
 */
#include <config.h>

#include <errno.h>
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
#include "pageoutd/vma.h"
#include "pageoutd/vmemo.h"
#include "pageoutd/vplan.h"
#include "pageoutd/vrange.h"
#include "pageoutd/vtarget.h"

/* ---- the engine ---- */

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

struct vaddr {
	const struct cfg *cfg;
	struct damon *d;
	const struct cgrp_root *cg;
	int procfd;
	pid_t self;
	uint64_t page_size;
	enum cfg_refsem refsem;
	struct vtargets targets;
	struct vpolicy *pol;
	size_t npol;
	bool running, dirty;
	struct log_cond damon_cond; /* the context cannot be written or started */
	struct log_cond read_cond;  /* snapshots cannot be read */
	int watchfd;		   /* inotify fd the frozen_only cgroups are watched on, -1: none */
	struct cgstat *cs;	   /* per-cgroup figures, NULL: not kept */
	unsigned seed_refused;	   /* EINVAL answers to writes with seeded regions */
	unsigned obsolete_refused; /* commits dropping gone targets refused in a row */
	uint64_t clock[VPLAN_CLOCK_KEEP]; /* the last interval estimates, 0: none */
	unsigned nclock;
	struct engine_intervals iv; /* the kdamond's sample and aggregation intervals */
	uint64_t cycle_anon;	    /* anonymous bytes advised this cycle, by every policy */
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

const struct engine_intervals *vaddr_intervals(const struct vaddr *v)
{
	return &v->iv;
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
	/* the clock is measured against the aggregation interval, which may have changed */
	engine_intervals_config(&v->iv, cfg, ENGINE_VADDR, &v->d->feat);
	v->nclock = 0;
	v->s.aggr_us = v->iv.aggr_us;
	/* targets of a policy that went away are dropped at the next cycle */
	for (size_t i = 0; i < v->targets.n; i++)
		if (v->targets.t[i].policy >= v->npol || !v->pol[v->targets.t[i].policy].active)
			v->targets.t[i].dead = true;
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
	log_notice("vaddr: MADV_PAGEOUT %s (reference_semantics %s%s); a range is advised after %s",
		   v->refsem == REFSEM_IGNORE
			   ? "ignores page references on this kernel"
			   : "re-checks only the accesses made during the call on this kernel",
		   cfg_refsem_name(v->refsem),
		   cfg->daemon.reference_semantics == REFSEM_AUTO ? ", from the release" : "",
		   cfg->daemon.confirm_snapshots > 1 ? "two consecutive cold snapshots"
						     : "one cold snapshot (confirm_snapshots = 1)");
	*ret = v;
	return 0;
}

void vaddr_free(struct vaddr *v)
{
	if (!v)
		return;
	vtargets_fini(&v->targets);
	for (size_t i = 0; i < v->npol; i++) {
		cgrp_list_fini(&v->pol[i].cgroups);
		free(v->pol[i].frozen);
	}
	free(v->pol);
	if (v->procfd >= 0)
		close(v->procfd);
	free(v);
}

/*
 * A process of a matched cgroup: its policy, the cgroup (index in the policy's list), and the
 * swap room of the cgroup it is in, that cgroup or one below it (UINT64_MAX: unlimited).
 */
struct vpid {
	pid_t pid;
	unsigned policy;
	size_t cgroup;
	uint64_t swap_room;
};

/*
 * The kinds of memory vp advises (vma_kind): memory = anon takes shared memory with it, but in
 * the vaddr part of an engine = both policy, where the paddr part reaches shared memory.
 */
static unsigned vp_kinds(const struct vpolicy *vp)
{
	unsigned k = vp->cfg->memory;

	if ((k & MEMORY_ANON) && !vp->cfg->both)
		k |= MEMORY_SHMEM;
	return k;
}

/* The per-cgroup figures of vp's c-th cgroup, or NULL. */
static struct cgstat_entry *cg_entry(const struct vaddr *v, const struct vpolicy *vp, size_t c)
{
	return v->cs && c < vp->cgroups.nr
		       ? cgstat_find(v->cs, ENGINE_VADDR, vp->name, vp->cgroups.paths[c])
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
	bool missing = false, answered = false;

	for (size_t c = 0; c < vp->cgroups.nr; c++) {
		int f = 1;

		if (vp->cfg->frozen_only) {
			f = cgrp_frozen(v->cg, vp->cgroups.paths[c]);
			missing |= f == -EOPNOTSUPP;
			answered |= f == 0 || f == 1;
			/* one that cannot be watched (v1: -EOPNOTSUPP) is still read each cycle */
			if (v->watchfd >= 0)
				(void)cgrp_watch_add(v->cg, v->watchfd, vp->cgroups.paths[c]);
		}
		newly += f == 1 && c < old_nr && vp->frozen[c] != 1;
		frozen += f == 1;
		set_frozen(v, vp, c, f);
	}
	vp->s.frozen_cgroups = vp->cfg->frozen_only ? frozen : 0;
	/* a freezer one cgroup answered is there: the others' answers were transient */
	missing = missing && !answered;
	vp->s.freezer_missing = missing;
	if (missing && !vp->freezer_warned)
		log_warn("vaddr: policy %s: frozen_only, but no cgroup freezer to read (cgroup v1 "
			 "without a freezer hierarchy mounted): none of its cgroups is reclaimed",
			 vp->name);
	vp->freezer_warned = missing;
	return newly;
}

/*
 * The swap room of cgroup `path`, top or one below it, whose processes policy vp may advise:
 * top's limits (*top_lim, read once per matched cgroup) with those of the levels between them
 * folded on (cgrp_swap_limits), so that each cgroup's files are read once a cycle. Unknown
 * (the cgroup went away meanwhile) is UINT64_MAX: not held back for it. Nothing is read for a
 * policy that takes no anonymous memory.
 */
static uint64_t leaf_room(const struct vaddr *v, const struct vpolicy *vp, const char *top,
			  const struct cgrp_swap_limits *top_lim, const char *path)
{
	struct cgrp_swap_limits lim = *top_lim;
	uint64_t room = cgrp_swap_limits_room(top_lim);

	/* the room only shrinks going down: below a limited cgroup, all are */
	if (!(vp->cfg->memory & MEMORY_ANON) || policy_swap_limited(room) || !strcmp(path, top))
		return room;
	return cgrp_swap_limits(v->cg, path, top, &lim) < 0 ? room : cgrp_swap_limits_room(&lim);
}

/*
 * Append to *all the processes of vp's c-th matched cgroup and of every cgroup below it, each
 * with the swap room of the cgroup it is in: Kubernetes writes memory.swap.max = 0 on the
 * container cgroups below a pod's. Returns 0 or -ENOMEM.
 */
static int matched_pids(struct vaddr *v, unsigned pi, size_t c, struct vpid **all, size_t *nall)
{
	struct vpolicy *vp = &v->pol[pi];
	const char *top = vp->cgroups.paths[c];
	struct cgrp_swap_limits top_lim = CGRP_SWAP_LIMITS_NONE;
	struct cgrp_list below = { 0 };
	int r = 0;

	if ((vp->cfg->memory & MEMORY_ANON) && cgrp_swap_limits(v->cg, top, NULL, &top_lim) < 0)
		top_lim = CGRP_SWAP_LIMITS_NONE; /* unknown: not held back for it */
	if (cgrp_descendants(v->cg, top, &below) < 0)
		return 0; /* gone, or out of memory: its processes are listed next cycle */
	for (size_t d = 0; d < below.nr && r == 0; d++) {
		pid_t *pids = NULL;
		int n = cgrp_pids(v->cg, below.paths[d], false, &pids);
		struct vpid *na = n > 0 ? reallocarray(*all, *nall + (size_t)n, sizeof(*na)) : NULL;
		uint64_t room = na ? leaf_room(v, vp, top, &top_lim, below.paths[d]) : 0;

		if (na)
			*all = na;
		else if (n > 0)
			r = -ENOMEM;
		for (int k = 0; na && k < n; k++)
			(*all)[(*nall)++] = (struct vpid){ pids[k], pi, c, room };
		free(pids);
	}
	cgrp_list_fini(&below);
	return r;
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
	for (size_t c = 0; c < vp->cgroups.nr; c++)
		if (matched_pids(v, pi, c, all, nall) < 0)
			return -ENOMEM;
	return 0;
}

/*
 * add_target: register process p as a target (vtargets_add). A process that exited meanwhile or
 * that cannot be advised (logged and skipped by vtargets_add) is no error; any other failure is
 * logged here, and the process is tried again next cycle.
 */
static void add_target(struct vaddr *v, const struct vpid *p)
{
	int r = vtargets_add(&v->targets, v->procfd, p->pid, p->policy, p->cgroup,
			     v->pol[p->policy].name);

	if (r == 0) {
		v->targets.t[v->targets.n - 1].swap_room = p->swap_room;
		v->dirty = true;
	} else if (r != -ESRCH && r != -EPERM && r != -EACCES)
		log_rl(LOG_WARNING, "vaddr: policy %s: pid %d cannot be a target: %s",
		       v->pol[p->policy].name, (int)p->pid, strerror(-r));
}

/* The pids each policy matches now; targets added, and removed when gone or moved out. */
static void sync_targets(struct vaddr *v)
{
	struct vpid *all = NULL;
	size_t nall = 0;

	for (size_t i = 0; i < v->targets.n; i++)
		if (madv_pidfd_alive(v->targets.t[i].pidfd) < 0)
			v->targets.t[i].dead = true;
	/* the figures of a cgroup no policy matches any more (an app gone) are freed */
	if (v->cs)
		cgstat_mark(v->cs, ENGINE_VADDR);
	for (size_t pi = 0; pi < v->npol; pi++)
		if (policy_pids(v, (unsigned)pi, &all, &nall) < 0)
			log_rl(LOG_WARNING,
			       "vaddr: policy %s: out of memory listing its cgroups; its targets "
			       "are dropped",
			       v->pol[pi].name);
	if (v->cs)
		cgstat_sweep(v->cs, ENGINE_VADDR);
	/* a target whose process left every matched cgroup is dropped */
	for (size_t i = 0; i < v->targets.n; i++) {
		struct vtarget *t = &v->targets.t[i];
		bool found = false;

		for (size_t k = 0; k < nall && !found; k++) {
			found = all[k].pid == t->pid && all[k].policy == t->policy;
			if (found) {
				t->cgroup = all[k].cgroup; /* the first that lists it */
				t->swap_room = all[k].swap_room;
			}
		}
		if (!found)
			t->dead = true;
	}
	/* with obsolete_target a commit drops a target without moving the others */
	if (vtargets_compact(&v->targets, v->d->feat.obsolete_target))
		v->dirty = true;
	for (size_t k = 0; k < nall; k++) {
		bool known = all[k].pid == v->self || vtargets_skipped(&v->targets, all[k].pid);

		for (size_t i = 0; i < v->targets.n && !known; i++)
			known = !v->targets.t[i].gone && v->targets.t[i].pid == all[k].pid;
		/* the first policy that matches a process owns it */
		for (size_t j = 0; j < k && !known; j++)
			known = all[j].pid == all[k].pid;
		if (!known)
			add_target(v, &all[k]);
	}
	for (size_t pi = 0; pi < v->npol; pi++)
		v->pol[pi].s.procs = 0;
	for (size_t i = 0; i < v->targets.n; i++)
		if (!v->targets.t[i].gone)
			v->pol[v->targets.t[i].policy].s.procs++;
	v->s.targets = vtargets_live(&v->targets);
	v->s.unadvisable = v->targets.skipped_total;
	v->s.targets_moved = v->targets.moved_total;
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
 * The first regions of target t (vma_seed_regions), as many per target as keep all targets'
 * seeds within half of max_regions (DAMON splits only below that); none when fewer than three
 * fit, or when its maps cannot be read (DAMON then starts it the usual way). Returns the count.
 */
static unsigned seed_target(const struct vaddr *v, const struct vtarget *vt, struct damon_target *t)
{
	size_t live = vtargets_live(&v->targets);
	uint64_t per = v->cfg->damon.max_regions / (2 * (live ? live : 1));
	struct vma_list vmas = { 0 };
	char *maps = NULL;

	t->nr_regions = 0;
	if (per < 3)
		return 0;
	if (per > DAMON_TARGET_REGIONS_MAX)
		per = DAMON_TARGET_REGIONS_MAX;
	if (read_file_alloc_at(vt->procfd, "maps", &maps) >= 0 && vma_parse_smaps(maps, &vmas) == 0)
		t->nr_regions = vma_seed_regions(&vmas, t->regions, (unsigned)per);
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

/*
 * fill_ctx: the context of v's kdamond into c: a target per vtarget (with seed regions when it
 * is new to DAMON at its index; a gone one as an obsolete target, under pageoutd's own pid,
 * which the kernel resolves before it drops the target) and a stat scheme for each target that
 * stays, filtered to its index after the commit when several stay. The targets and schemes are
 * allocated into *ret_t and *ret_s, which the caller frees, also on failure. Returns how many
 * targets got seed regions, or -ENOMEM.
 */
static int fill_ctx(struct vaddr *v, struct damon_ctx *c, struct damon_target **ret_t,
		    struct damon_scheme **ret_s)
{
	struct damon_target *t = *ret_t = calloc(v->targets.n, sizeof(*t));
	struct damon_scheme *s = *ret_s = calloc(v->targets.n, sizeof(*s));
	size_t live = vtargets_live(&v->targets), k = 0;
	int seeds = 0;

	c->targets = t;
	c->schemes = s;
	if (!t || !s)
		return -ENOMEM;
	str_copy(c->ops, sizeof(c->ops), "vaddr");
	c->sample_us = v->cfg->sampling[ENGINE_VADDR].sample_us;
	c->aggr_us = v->cfg->sampling[ENGINE_VADDR].aggr_us;
	c->tune_max_sample_us = engine_intervals_tune_max(v->cfg, ENGINE_VADDR, &v->d->feat);
	c->update_us = v->cfg->damon.update_us > c->aggr_us ? v->cfg->damon.update_us : c->aggr_us;
	c->min_regions = v->cfg->damon.min_regions;
	c->max_regions = v->cfg->damon.max_regions;
	for (size_t i = 0; i < v->targets.n; i++) {
		if (v->targets.t[i].gone) {
			t[i].pid = v->self;
			t[i].obsolete = true;
			continue;
		}
		t[i].pid = v->targets.t[i].pid;
		/* a target new to DAMON (or to its index) starts with a region per large VMA */
		if ((!v->running || !v->targets.t[i].seeded) && v->seed_refused < 2)
			seeds += seed_target(v, &v->targets.t[i], &t[i]) > 0;
		str_copy(s[k].action, sizeof(s[k].action), "stat");
		damon_pattern_all(&s[k].pattern);
		if (live > 1) {
			s[k].nr_filters = 1;
			s[k].filters[0].type = DAMON_FILTER_TARGET;
			s[k].filters[0].target_idx = (unsigned)k;
			s[k].filters[0].matching = false; /* filter out every other target */
		}
		k++;
	}
	c->nr_targets = (unsigned)v->targets.n;
	c->nr_schemes = (unsigned)k;
	return seeds;
}

/*
 * commit_ctx: write c to the kdamond and commit it online, or start it when it is not running
 * or refuses the commit; after a start every target is watched afresh. A context with gone
 * targets (obsolete, under pageoutd's own pid) is only committed, never started. Returns 0 or
 * -errno.
 */
static int commit_ctx(struct vaddr *v, const struct damon_ctx *c, bool obsolete)
{
	int r = damon_write_ctx(v->d, DAMON_SLOT_VADDR, c);

	if (r < 0)
		return r;
	if (v->running) {
		r = damon_commit(v->d, DAMON_SLOT_VADDR);
		v->s.commits++;
	}
	if (obsolete || (v->running && r != -EINVAL && r != -ECANCELED))
		return r;
	r = damon_start(v->d, DAMON_SLOT_VADDR);
	if (r < 0)
		return r;
	v->s.restarts++;
	for (size_t i = 0; i < v->targets.n; i++)
		vtarget_forget(&v->targets.t[i]);
	return 0;
}

/*
 * dropped_in_place: a commit dropped the gone targets and kept the others' regions: remove them
 * from the set, the others keeping their order as the kdamond does, and write the kdamond's
 * targets again as it now holds them, so that no later commit drops another target at a gone
 * one's index (the kernel does not renumber the tree itself).
 */
static void dropped_in_place(struct vaddr *v)
{
	struct damon_ctx c = { .ops = "vaddr" };
	struct damon_target *t;
	size_t n;

	for (size_t i = 0; i < v->targets.n; i++)
		if (v->targets.t[i].gone)
			/* rate-limited: under churn processes exit every cycle */
			log_rl(LOG_INFO,
			       "vaddr: target %zu (pid %d) dropped in place (obsolete_target); "
			       "the targets after it keep their regions",
			       i, (int)v->targets.t[i].pid);
	n = vtargets_drop_gone(&v->targets);
	v->s.targets_dropped_in_place += n;
	t = calloc(v->targets.n ? v->targets.n : 1, sizeof(*t));
	if (t) {
		for (size_t i = 0; i < v->targets.n; i++)
			t[i].pid = v->targets.t[i].pid;
		c.targets = t;
		c.nr_targets = (unsigned)v->targets.n;
	}
	/* when this fails, the next context write, before any commit, writes them right */
	if (!t || damon_write_targets(v->d, DAMON_SLOT_VADDR, &c) < 0)
		log_rl(LOG_WARNING,
		       "vaddr: rewriting the kdamond's %zu targets after dropping %zu: "
		       "%s",
		       v->targets.n, n, t ? v->d->err : strerror(ENOMEM));
	free(t);
}

/*
 * obsolete_refused: the commit that drops the gone targets was refused (r). A kdamond that
 * stopped meanwhile (every target exited) is started afresh without them next cycle; one that
 * refuses twice in a row is restarted, as its targets are not what the set says.
 */
static void obsolete_refused(struct vaddr *v, int r)
{
	if (damon_running(v->d, DAMON_SLOT_VADDR) == 0) {
		v->running = false;
	} else if (++v->obsolete_refused >= 2) {
		log_notice("vaddr: DAMON refused dropping gone targets in place twice (%s); "
			   "restarting the kdamond",
			   strerror(-r));
		if (damon_stop(v->d, DAMON_SLOT_VADDR) == 0)
			v->running = false;
	}
	if (!v->running) {
		v->obsolete_refused = 0;
		vtargets_drop_gone(&v->targets);
	}
}

/*
 * sync_damon: bring the kdamond in line with the targets: stop it when there is none, else
 * write the context (fill_ctx) and commit or start it (commit_ctx). Returns 0 or -errno;
 * -ESRCH and -EINVAL (a target exited meanwhile) are retried next cycle, other failures are
 * logged as the engine's condition (damon_failed).
 */
static int sync_damon(struct vaddr *v)
{
	struct damon_ctx c = { 0 };
	struct damon_target *t = NULL;
	struct damon_scheme *s = NULL;
	bool obsolete;
	int seeds, r;

	/* gone targets are dropped in place by a commit, and only while others stay */
	if (!v->running || !vtargets_live(&v->targets))
		vtargets_drop_gone(&v->targets);
	obsolete = vtargets_live(&v->targets) != v->targets.n;
	if (!v->targets.n || (!v->dirty && v->running))
		log_cond_clear(&v->damon_cond); /* nothing to write, or the last write worked */
	if (!v->dirty && (v->running || !v->targets.n))
		return 0;
	if (!v->targets.n) {
		/* damon_stop logs its own failure; a later write starts the kdamond afresh */
		if (v->running)
			(void)damon_stop(v->d, DAMON_SLOT_VADDR);
		v->running = false;
		v->dirty = false;
		return 0;
	}
	if (vtargets_live(&v->targets) > 1 && !v->d->feat.filter_target)
		return damon_failed(v, -EOPNOTSUPP,
				    "this kernel's DAMON has no target filters (Linux 6.6+): "
				    "regions cannot be attributed to processes; vaddr policies are "
				    "inactive");
	seeds = fill_ctx(v, &c, &t, &s);
	r = seeds < 0 ? seeds : commit_ctx(v, &c, obsolete);
	free(t);
	free(s);
	if (seeds < 0)
		return seeds;
	if (obsolete && r == 0) {
		v->obsolete_refused = 0;
		dropped_in_place(v);
	} else if (obsolete && (r == -EINVAL || r == -ECANCELED || r == -ESRCH)) {
		obsolete_refused(v, r);
	}
	if (r == 0)
		for (size_t i = 0; i < v->targets.n; i++)
			v->targets.t[i].seeded = true;
	if (r == -EINVAL && seeds > 0 && ++v->seed_refused == 2)
		log_notice("vaddr: DAMON refused the seeded monitoring regions twice; new targets "
			   "start with DAMON's own regions from now on");
	if (r == -ESRCH || r == -EINVAL || (obsolete && r == -ECANCELED)) {
		/* a target exited between the check and the write: the next cycle drops it */
		log_rl(LOG_INFO, "vaddr: DAMON refused the targets (%s); retrying next cycle",
		       strerror(-r));
		v->dirty = true;
		return r == -ECANCELED ? -EINVAL : r;
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
	vp->in.attributed_pages = vp->s.back_pages_total;
	vp->resident = 0;
	vp->s.memcg_known = false;
	for (size_t c = 0; c < vp->cgroups.nr; c++) {
		struct engine_cgroup ec;

		if (engine_read_cgroup(v->cg, vp->cgroups.paths[c], &vp->in, &ec) == 0) {
			vp->s.memcg_known = true;
			vp->resident += ec.resident;
		}
		cgstat_refaults(v->cs, cg_entry(v, vp, c), ec.refault_pages, ec.ws_bytes,
				sys->now_us);
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

/* order of work for advice: by target, then by address */
static int cmp_work_addr(const void *a, const void *b)
{
	const struct vplan_work *x = a, *y = b;

	if (x->target != y->target)
		return x->target < y->target ? -1 : 1;
	return (x->r.start > y->r.start) - (x->r.start < y->r.start);
}

/* How target t's regions are judged this cycle (vplan_params), at now. */
static struct vplan_params plan_params(const struct vaddr *v, const struct vtarget *t,
				       const struct vpolicy *vp, uint64_t now)
{
	uint64_t aggr = v->iv.aggr_us, sample = v->iv.sample_us;

	return (struct vplan_params){
		.sample_us = sample,
		/* an age in intervals, in the time the kdamond really took for them */
		.clock_us = v->s.aggr_us > aggr ? v->s.aggr_us : aggr,
		.max_accesses = vplan_max_accesses(vp->cfg->max_access_rate, aggr, sample),
		.min_age_us = vp->st.min_age_us,
		.watched_us = now - t->plan.since_us,
	};
}

/*
 * select_target: what target t may be advised now (vplan_select with p over sr, mapped holding
 * every VMA of t as a piece) into todo; what is cold but not taken is counted in vp's figures
 * by reason. Returns 0 or -ENOMEM.
 */
static int select_target(const struct vaddr *v, struct vtarget *t, struct vpolicy *vp,
			 const struct vplan_params *p, const struct damon_scheme_regions *sr,
			 uint64_t now, const struct vrange_list *mapped, struct vrange_list *todo)
{
	struct vplan_tally n = { 0 };
	int r = vplan_select(&t->plan, p, sr, mapped, v->cfg->daemon.confirm_snapshots > 1, now,
			     todo, &n);

	vp->s.skipped_total[SKIP_SPARSE] += n.sparse;
	vp->s.skipped_total[SKIP_YOUNG] += n.young;
	vp->s.skipped_total[SKIP_TURNED_HOT] += n.turned_hot;
	vp->s.skipped_total[SKIP_UNCONFIRMED] += n.unconfirmed;
	vp->s.skipped_total[SKIP_LEARNED] += n.learned;
	vp->s.cold_bytes += n.cold;
	return r;
}

/* A policy's work of one cycle: pieces of its targets' ranges, owned by the cycle. */
struct vwork_list {
	struct vplan_work *w;
	size_t nr, cap;
};

/* work_push: append range r of target number `target` to l. Returns 0 or -ENOMEM. */
static int work_push(struct vwork_list *l, size_t target, const struct vrange *r)
{
	if (l->nr == l->cap) {
		size_t c = l->cap ? l->cap * 2 : 64;
		struct vplan_work *n = reallocarray(l->w, c, sizeof(*n));

		if (!n)
			return -ENOMEM;
		l->w = n;
		l->cap = c;
	}
	l->w[l->nr++] = (struct vplan_work){ target, *r };
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

/* pagemap entries read per target and cycle for its watched ranges, at most */
#define MEMO_READ_PAGES 65536

/*
 * Whether policy vp keeps a memory of its mistakes now: not in a dry run (nothing is paged
 * out), nor under frozen_only, where a thawed app reads its memory back by design.
 */
static bool memo_on(const struct vaddr *v, const struct vpolicy *vp)
{
	return vp->cfg->learn && !vp->cfg->frozen_only && !v->cfg->daemon.dry_run;
}

/* The figures of what t's memo did this cycle (tally) in vp's, and the log lines. */
static void memo_book(struct vpolicy *vp, const struct vtarget *t, const struct vmemo_tally *n,
		      const struct vrange_list *learned)
{
	char a[16], b[16], c[16];

	vp->s.learned_total += n->learned;
	vp->s.back_pages_total += n->back_pages;
	vp->s.forgiven_total += n->forgiven;
	vp->s.forgiven_bytes_total += n->forgiven_bytes;
	if (learned && learned->nr)
		log_rl(LOG_INFO,
		       "vaddr: policy %s: pid %d: learned %zu range(s), %s from %#" PRIx64
		       ", in use again %s after they were last used: advised again only once "
		       "idle for %s",
		       vp->name, (int)t->pid, learned->nr,
		       fmt_size(a, sizeof(a), vrange_bytes(learned)), learned->r[0].start,
		       fmt_duration(b, sizeof(b), n->last_interval_us),
		       fmt_duration(c, sizeof(c), n->last_hold_us));
	if (n->forgiven)
		log_rl(LOG_INFO,
		       "vaddr: policy %s: pid %d: forgave %s of learned ranges: advised again, "
		       "they stayed out",
		       vp->name, (int)t->pid, fmt_size(a, sizeof(a), n->forgiven_bytes));
}

/*
 * memo_watch: the advised range mr (the piece `piece` of target t, chosen idle for its age)
 * is watched in t's memo, less the pages the advice left in (`left`: present and mapped by t
 * alone right after it, as its pagemap read then says: MADV_PAGEOUT could not take them,
 * their presence later says nothing).
 */
static void memo_watch(struct vaddr *v, struct vpolicy *vp, struct vtarget *t,
		       const struct vrange_list *left, const struct madv_range *mr,
		       const struct vrange *piece, uint64_t now)
{
	struct vrange_list range = { 0 }, out = { 0 };
	uint64_t window = VMEMO_WATCH_FACTOR * vp->st.min_age_us;
	int r;

	r = vrange_append(&range, mr->start, mr->end, 0, 0);
	r = r ?: vrange_subtract(&range, left, &out);
	for (size_t k = 0; r == 0 && k < out.nr; k++)
		r = vmemo_watch(&t->plan.memo, out.r[k].start, out.r[k].end, piece->age_us, window,
				now);
	if (r == -ENOMEM)
		log_rl(LOG_WARNING, "vaddr: policy %s: pid %d: out of memory watching its advice",
		       vp->name, (int)t->pid);
	vrange_list_fini(&range);
	vrange_list_fini(&out);
}

/* order of the watches to read: the longest unread first */
static int cmp_watch_read(const void *a, const void *b)
{
	const struct vmemo_watch *x = a, *y = b;

	return (x->read_us > y->read_us) - (x->read_us < y->read_us);
}

/*
 * memo_check: t's memo at now: watches whose time is up are dropped (forgiving what they
 * cover), and the others are read in pagemap, the longest unread first, up to
 * MEMO_READ_PAGES: pages found back are learned (vmemo_back) and leave t's advised set, so
 * that they are judged again. A policy that does not learn forgets t's memo.
 */
static void memo_check(struct vaddr *v, struct vpolicy *vp, struct vtarget *t, uint64_t now)
{
	struct vmemo *m = &t->plan.memo;
	struct vmemo_tally n = { 0 };
	struct vrange_list back = { 0 }, learned = { 0 }, tmp = { 0 };
	struct vmemo_watch *w = NULL;
	uint64_t budget = MEMO_READ_PAGES;
	size_t nw;
	int r, pm = -1;

	if (!memo_on(v, vp)) {
		vmemo_fini(m);
		return;
	}
	r = vmemo_expire(m, now, &n);
	nw = m->nw;
	if (nw && r == 0) {
		w = malloc(nw * sizeof(*w));
		r = w ? 0 : -ENOMEM;
	}
	if (w) {
		memcpy(w, m->w, nw * sizeof(*w));
		qsort(w, nw, sizeof(*w), cmp_watch_read);
		pm = vtarget_pagemap_open(t);
		r = pm < 0 ? pm : 0;
	}
	for (size_t i = 0; w && i < nw && r == 0; i++) {
		uint64_t pages = (w[i].end - w[i].start) / v->page_size;
		int64_t got;

		/* the longest unread is read even when larger than the budget: nothing starves */
		if (pages > budget && budget < MEMO_READ_PAGES)
			continue;
		back.nr = 0;
		got = vtarget_present(pm, w[i].start, w[i].end, v->page_size, &back);
		if (got < 0) {
			r = (int)got;
			break;
		}
		budget = pages < budget ? budget - pages : 0;
		vp->s.pagemap_pages_total += (uint64_t)got;
		r = vmemo_back(m, w[i].start, w[i].end, &back, v->page_size, now, &n, &learned);
	}
	if (learned.nr) {
		vrange_sort(&learned);
		if (vrange_subtract(&t->plan.advised, &learned, &tmp) == 0)
			vrange_list_swap(&t->plan.advised, &tmp);
	}
	if (r == -ENOMEM)
		log_rl(LOG_WARNING, "vaddr: policy %s: pid %d: out of memory reading its watches",
		       vp->name, (int)t->pid);
	memo_book(vp, t, &n, &learned);
	if (pm >= 0)
		close(pm);
	free(w);
	vrange_list_fini(&back);
	vrange_list_fini(&learned);
	vrange_list_fini(&tmp);
}

/* The memo figures of policy pi's targets now into its stats. */
static void memo_figures(struct vaddr *v, size_t pi)
{
	struct vaddr_policy_stats *s = &v->pol[pi].s;

	s->learned_ranges = s->learned_bytes = s->watched_bytes = 0;
	s->learned_interval_min_us = s->learned_interval_max_us = 0;
	for (size_t i = 0; i < v->targets.n; i++) {
		const struct vmemo *m = &v->targets.t[i].plan.memo;

		if (v->targets.t[i].policy != pi || v->targets.t[i].gone)
			continue;
		s->learned_ranges += m->nr;
		s->learned_bytes += vmemo_bytes(m);
		for (size_t k = 0; k < m->nw; k++)
			s->watched_bytes += m->w[k].end - m->w[k].start;
		for (size_t k = 0; k < m->nr; k++) {
			uint64_t iv = m->rec[k].interval_us;

			if (!s->learned_interval_min_us || iv < s->learned_interval_min_us)
				s->learned_interval_min_us = iv;
			if (iv > s->learned_interval_max_us)
				s->learned_interval_max_us = iv;
		}
	}
}

/* the pages of one advised range in its process's pagemap, before and after the advice */
struct range_census {
	bool known; /* both read */
	uint64_t before, after, shared_after;
	struct vrange_list left; /* after: present, mapped by the process alone (memo_on) */
};

/*
 * book_range: the outcome of one advised range mr (the piece of work `piece`, of target t,
 * whose madv_apply returned r, its pages counted in c) in vp's figures and t's plan. Advice
 * that left every page it found in place could not act: MADV_PAGEOUT skips a page another
 * process maps ("shared") and the kernel keeps a pinned page, one without a swap slot or one
 * of a file the daemon may not write ("kept"); such a range is counted under that reason and
 * not offered again until maps changes, or for a minute. Otherwise the range is advised
 * (remembered as advised unless in a dry run) and the pages that left are what it freed.
 * Returns whether the range counts as advised.
 */
static bool book_range(struct vaddr *v, struct vpolicy *vp, struct vtarget *t,
		       const struct madv_range *mr, const struct vrange *piece, int r,
		       const struct range_census *c)
{
	uint64_t sz = mr->end - mr->start, freed = sz;

	if (mr->done && c->known && c->before && c->after >= c->before) {
		vp->s.skipped_total[c->shared_after * 2 >= c->after ? SKIP_SHARED : SKIP_KEPT] +=
			sz;
		if (vplan_record_refused(&t->plan, mr->start, mr->end, now_usec()) < 0)
			log_rl(LOG_WARNING,
			       "vaddr: policy %s: pid %d: out of memory keeping its refused ranges",
			       vp->name, (int)t->pid);
		return false;
	}
	if (mr->done) {
		if (c->known)
			freed = (c->before > c->after ? c->before - c->after : 0) * v->page_size;
		vp->s.advised_bytes_total += sz;
		vp->s.freed_bytes_total += freed;
		cgstat_reclaimed(cg_entry(v, vp, t->cgroup), freed);
		if (!v->cfg->daemon.dry_run && vrange_push(&t->plan.advised, mr->start, mr->end,
							   piece->nr_accesses, piece->age_us) < 0)
			log_rl(LOG_WARNING,
			       "vaddr: policy %s: pid %d: out of memory keeping its advised ranges",
			       vp->name, (int)t->pid);
		return true;
	}
	if (r == -ESRCH || r == -EBADF) {
		vp->s.skipped_total[SKIP_VANISHED] += sz;
	} else if (mr->err == EINVAL) {
		/* locked, hugetlb, PFN or I/O VMA: not offered again until maps changes */
		vp->s.skipped_total[SKIP_LOCKED] += sz;
		if (vplan_record_refused(&t->plan, mr->start, mr->end, now_usec()) < 0)
			log_rl(LOG_WARNING,
			       "vaddr: policy %s: pid %d: out of memory keeping its refused ranges",
			       vp->name, (int)t->pid);
	} else if (mr->err == ENOMEM) {
		vp->s.skipped_total[SKIP_VMA] += sz; /* no longer mapped */
	} else {
		vp->s.skipped_total[SKIP_ERROR] += sz;
	}
	return false;
}

/*
 * advise_target: advise the n pieces w of target t (sorted by address) through its pidfd, and
 * book each range's outcome (book_range), its pages counted in t's pagemap before and after
 * (not in a dry run, which asks nothing of the kernel); the RSS drop seen meanwhile is added
 * to *rss_drop, the errnos to *ms. Returns 0, -ESRCH or -EBADF (the process exited: t is
 * marked dead), or -ENOMEM when nothing could be tried.
 */
static int advise_target(struct vaddr *v, struct vpolicy *vp, struct vtarget *t,
			 const struct vplan_work *w, size_t n, struct madv_stats *ms,
			 uint64_t *rss_drop)
{
	struct madv_range *mr = calloc(n, sizeof(*mr));
	struct range_census *c = calloc(n, sizeof(*c));
	uint64_t rss0, rss1, now, shared, pages;
	bool memo = memo_on(v, vp);
	int r, pm = -1;

	if (!mr || !c) {
		free(mr);
		free(c);
		return -ENOMEM;
	}
	if (!v->cfg->daemon.dry_run)
		pm = vtarget_pagemap_open(t);
	for (size_t k = 0; k < n; k++) {
		mr[k].start = w[k].r.start;
		mr[k].end = w[k].r.end;
		c[k].known = pm >= 0 && vtarget_census(pm, mr[k].start, mr[k].end, v->page_size,
						       &c[k].before, &shared, NULL) == 0;
		if (c[k].known)
			vp->s.pagemap_pages_total += (mr[k].end - mr[k].start) / v->page_size;
	}
	rss0 = vtarget_rss(t, v->page_size);
	r = madv_apply(t->pidfd, mr, n, MADV_PAGEOUT, 0, v->cfg->daemon.dry_run, ms);
	rss1 = vtarget_rss(t, v->page_size);
	if (rss0 > rss1)
		*rss_drop += rss0 - rss1;
	/* one time for the call: the ranges of one advice share a watch where they touch */
	now = now_usec();
	for (size_t k = 0; k < n; k++) {
		/* one read after the advice: what left, and what the memo does not watch */
		bool after = pm >= 0 && mr[k].done &&
			     vtarget_census(pm, mr[k].start, mr[k].end, v->page_size, &c[k].after,
					    &c[k].shared_after, memo ? &c[k].left : NULL) == 0;

		pages = (mr[k].end - mr[k].start) / v->page_size;
		vp->s.pagemap_pages_total += after ? pages : 0;
		c[k].known &= after;
		if (book_range(v, vp, t, &mr[k], &w[k].r, r, &c[k]) && memo && after)
			memo_watch(v, vp, t, &c[k].left, &mr[k], &w[k].r, now);
		vrange_list_fini(&c[k].left);
	}
	if (pm >= 0)
		close(pm);
	if (r == -ESRCH || r == -EBADF) {
		log_debug("vaddr: policy %s: pid %d exited during its advice", vp->name,
			  (int)t->pid);
		t->dead = true;
	}
	/* the advised and refused sets must stay sorted by address */
	vrange_sort(&t->plan.advised);
	vrange_sort(&t->plan.refused);
	free(mr);
	free(c);
	return r;
}

/*
 * advise_work: advise one policy's work w (nw pieces, reordered by target and address here),
 * target by target; a target whose cgroup thawed since the plan is skipped. Sets the policy's
 * figures of this cycle: bytes advised, errors by errno, the RSS and memcg drops.
 */
static void advise_work(struct vaddr *v, struct vpolicy *vp, struct vplan_work *w, size_t nw)
{
	struct madv_stats ms = { 0 };
	uint64_t advised0 = vp->s.advised_bytes_total, memcg0 = vp->resident, memcg1;
	uint64_t freed0 = vp->s.freed_bytes_total;
	uint64_t rss_drop = 0;

	if (nw)
		qsort(w, nw, sizeof(*w), cmp_work_addr);
	for (size_t i = 0, j; i < nw; i = j) {
		struct vtarget *t = &v->targets.t[w[i].target];

		for (j = i; j < nw && w[j].target == w[i].target; j++)
			;
		if (target_thawed(v, vp, t)) {
			for (size_t k = i; k < j; k++)
				vp->s.skipped_total[SKIP_NOT_FROZEN] += w[k].r.end - w[k].r.start;
			continue;
		}
		if (advise_target(v, vp, t, &w[i], j - i, &ms, &rss_drop) == -ENOMEM)
			break;
	}
	for (unsigned e = 0; e < MADV_ERR_MAX; e++) {
		vp->s.errors_total[e] += ms.err[e];
		/* a process that exited is no failure: its bytes count as vanished */
		if (e != MADV_ERR_ESRCH)
			vp->s.failures_total[FAIL_MADVISE] += ms.err[e];
	}
	memcg1 = memcg_resident(v, vp);
	vp->s.last_advised = vp->s.advised_bytes_total - advised0;
	vp->s.last_freed = vp->s.freed_bytes_total - freed0;
	vp->s.last_rss_drop = rss_drop;
	vp->s.rss_drop_bytes_total += rss_drop;
	if (memcg0 > memcg1)
		vp->s.memcg_drop_bytes_total += memcg0 - memcg1;
}

/*
 * clip_todo: todo clipped to the VMAs of vmas that vp may advise now (vma_clip), into clipped;
 * the bytes left out are counted in vp's skip counters, those of blocked kinds under `why`.
 * Returns 0 or -ENOMEM.
 */
static int clip_todo(const struct vaddr *v, struct vpolicy *vp, const struct vrange_list *todo,
		     const struct vma_list *vmas, unsigned blocked, enum skip_reason why,
		     struct vrange_list *clipped)
{
	struct vma_skipped sk = { 0 };
	int r = vma_clip(todo, vmas, vp_kinds(vp), blocked, v->page_size, clipped, &sk);

	vp->s.skipped_total[SKIP_VMA] += sk.vma;
	vp->s.skipped_total[SKIP_LOCKED] += sk.locked;
	vp->s.skipped_total[why] += sk.blocked;
	return r;
}

/*
 * refresh_maps: read target t's maps into its plan (vplan_maps_read). Returns 0, or -errno
 * when they cannot be read or parsed: its VMAs are then unknown, and t is marked dead if its
 * process exited.
 */
static int refresh_maps(struct vaddr *v, struct vtarget *t, uint64_t now)
{
	char *text = NULL;
	ssize_t len = read_file_alloc_at(t->procfd, "maps", &text);
	int r = len < 0 ? (int)len : vma_parse_smaps(text, &t->plan.vmas);

	if (r < 0) {
		t->plan.vmas.nr = 0;
		t->plan.vmas_us = 0;
		t->dead = madv_pidfd_alive(t->pidfd) < 0;
	} else {
		vplan_maps_read(&t->plan, hash_bytes(text, (size_t)len), now);
		v->s.maps_reads++;
	}
	free(text);
	return r;
}

/*
 * plan_target: the work of target number i this cycle, appended to wl: what vplan_select
 * leaves of its regions in sr, clipped to the VMAs of the kinds vp may advise now (not in
 * blocked, nor anon when the cgroup its process is in may not swap). While its matched
 * cgroup's frozen_only gate is closed the bytes are counted, not taken. Returns 0 or -errno
 * (nothing more of it is taken this cycle).
 */
static int plan_target(struct vaddr *v, struct vpolicy *vp, size_t i,
		       const struct damon_scheme_regions *sr, unsigned blocked, uint64_t now,
		       struct vwork_list *wl)
{
	struct vtarget *t = &v->targets.t[i];
	enum skip_reason why = SKIP_SWAP_RESERVE;
	struct vplan_params p = plan_params(v, t, vp, now);
	struct vrange_list todo = { 0 }, clipped = { 0 }, mapped = { 0 };
	struct vma_list flagged = { 0 };
	char *smaps = NULL;
	bool settled;
	int r;

	if ((vp->cfg->memory & MEMORY_ANON) && policy_swap_limited(t->swap_room)) {
		blocked |= MEMORY_SWAP_BACKED;
		why = SKIP_SWAP_LIMIT;
	}
	/*
	 * maps is cheap (no page walk): it bounds what is counted. A settled target's last maps
	 * do: nothing of it can be advised this cycle.
	 */
	settled = vplan_settled(&t->plan, &p, sr, vp_kinds(vp) & ~blocked, now);
	if (settled)
		v->s.maps_kept++;
	else if ((r = refresh_maps(v, t, now)) < 0)
		return r;
	/* what its earlier advice showed: pages in use again are learned before the plan */
	memo_check(v, vp, t, now);
	/* every mapping, each a piece of its own */
	r = vma_pieces(&t->plan.vmas, 0, &mapped);
	if (r == 0)
		r = select_target(v, t, vp, &p, sr, now, &mapped, &todo);
	if (r < 0 || !todo.nr)
		goto out;
	/*
	 * The VMAs as they are now, of the process the pidfd names: the maps just read, when the
	 * process is still alive after it (its /proc directory was opened while the pid was the
	 * pidfd's). Only smaps' VmFlags tell locked, hugetlb, PFN and I/O VMAs from others, and
	 * smaps walks every page to print them: maps is read instead, and the kernel refuses
	 * those VMAs itself with EINVAL, which book_range counts as locked and keeps as refused
	 * until maps changes. A dry run asks nothing of the kernel, so it reads smaps to count
	 * them right.
	 */
	if ((v->cfg->daemon.dry_run && read_file_alloc_at(t->procfd, "smaps", &smaps) < 0) ||
	    (!settled && madv_pidfd_alive(t->pidfd) < 0)) {
		vp->s.skipped_total[SKIP_VANISHED] += vrange_bytes(&todo);
		t->dead = true;
		goto out;
	}
	if (smaps)
		r = vma_parse_smaps(smaps, &flagged);
	if (r == 0)
		r = clip_todo(v, vp, &todo, smaps ? &flagged : &t->plan.vmas, blocked, why,
			      &clipped);
	if (r < 0)
		goto out;
	/*
	 * A settled target's todo holds only memory of kinds it may not advise now, which the
	 * clip drops. If the clip keeps some, its maps no longer say what they said: nothing is
	 * advised on them, and they are read again next cycle.
	 */
	if (settled && clipped.nr)
		t->plan.vmas_us = 0;
	else if (target_gate(vp, t) != SKIP_MAX)
		/* its books are kept: the cold set goes as soon as it is frozen */
		vp->s.skipped_total[SKIP_NOT_FROZEN] += vrange_bytes(&clipped);
	else
		for (size_t k = 0; k < clipped.nr && r == 0; k++)
			r = work_push(wl, i, &clipped.r[k]);
out:
	free(smaps);
	vma_list_fini(&flagged);
	vrange_list_fini(&todo);
	vrange_list_fini(&clipped);
	vrange_list_fini(&mapped);
	return r;
}

/*
 * fit_work: order w coldest, then oldest, then largest first, and keep at its front what fits
 * vp's quota and, for anonymous memory, the swap left above every policy's reserve this cycle
 * (vplan_take). The bytes cut are counted, the anonymous bytes kept are charged to the cycle,
 * and a swap room below a page is logged. Returns how many pieces are kept.
 */
static size_t fit_work(struct vaddr *v, struct vpolicy *vp, struct vplan_work *w, size_t nw)
{
	struct vplan_room room = { .budget = vp->st.budget };
	uint64_t anon0;
	size_t take;
	char rate[16];

	room.anon = vp->st.anon_room > v->cycle_anon ? vp->st.anon_room - v->cycle_anon : 0;
	anon0 = room.anon;
	take = vplan_take(w, nw, v->page_size, &room);
	v->cycle_anon += anon0 - room.anon;
	vp->s.skipped_total[SKIP_SWAP_RESERVE] += room.reserve_cut;
	vp->s.skipped_total[SKIP_QUOTA] += room.quota_cut;
	if (!(vp->cfg->memory & MEMORY_ANON))
		return take;
	if (room.anon < v->page_size)
		log_cond_set(&vp->swap_cond, LOG_NOTICE,
			     "vaddr: policy %s: %s%s: anonymous pageout stopped", vp->name,
			     vp->in.swap_total ? "free swap at swap_reserve " : "no swap",
			     vp->in.swap_total ? fmt_rate(rate, sizeof(rate), vp->cfg->swap_reserve)
					       : "");
	else
		log_cond_clear(&vp->swap_cond);
	return take;
}

/* run_policy: one cycle of policy pi over snapshot snap: decide, plan each target, advise. */
static void run_policy(struct vaddr *v, size_t pi, const struct damon_snapshot *snap, uint64_t now)
{
	struct vpolicy *vp = &v->pol[pi];
	struct vwork_list wl = { 0 };
	unsigned kinds = vp_kinds(vp), blocked = 0;
	size_t take;

	vp->s.cycles++;
	vp->s.cold_bytes = 0;
	vp->s.last_advised = vp->s.last_freed = vp->s.last_rss_drop = 0;
	vp->s.psi_some_avg10 = vp->in.psi_known ? vp->in.psi_some_avg10 : -1;
	policy_decide(vp->cfg, POLICY_GATES_ALL, &vp->in, &vp->st);
	if ((kinds & MEMORY_ANON) && !vp->st.anon_allowed)
		blocked |= MEMORY_SWAP_BACKED;
	if ((kinds & MEMORY_FILE) && !vp->st.file_allowed)
		blocked |= MEMORY_FILE;
	for (size_t i = 0; i < v->targets.n; i++) {
		struct vtarget *t = &v->targets.t[i];
		int r;

		if (t->policy != pi || t->dead)
			continue;
		/*
		 * A live target always has regions in DAMON (min_regions): a scheme without any
		 * tried region is no news, not "nothing cold". The next snapshot is compared
		 * with the last one that had regions.
		 */
		if (i >= snap->nr_schemes || !snap->schemes[i].nr) {
			v->s.empty_snapshots++;
			continue;
		}
		r = plan_target(v, vp, i, &snap->schemes[i], blocked, now, &wl);
		if (r == -ENOMEM)
			log_rl(LOG_WARNING,
			       "vaddr: policy %s: pid %d: out of memory planning its advice",
			       vp->name, (int)t->pid);
	}
	if (vp->st.paused) {
		for (size_t k = 0; k < wl.nr; k++)
			vp->s.skipped_total[vp->st.paused_why] += wl.w[k].r.end - wl.w[k].r.start;
		wl.nr = 0;
	}
	take = fit_work(v, vp, wl.w, wl.nr);
	if (take) {
		uint64_t before = vp->s.advised_bytes_total;

		advise_work(v, vp, wl.w, take);
		policy_consume(&vp->st, vp->s.advised_bytes_total - before);
	}
	memo_figures(v, pi);
	free(wl.w);
}

/*
 * read_clock: the interval ages are counted in, read off this snapshot (vplan_clock_read for
 * each target; the shortest estimate of the cycle goes to vplan_clock_update) into
 * v->s.aggr_us.
 */
static void read_clock(struct vaddr *v, const struct damon_snapshot *snap, uint64_t now)
{
	uint64_t aggr = v->iv.aggr_us, best = 0;

	for (size_t i = 0; i < v->targets.n && i < snap->nr_schemes; i++) {
		uint64_t est =
			vplan_clock_read(&v->targets.t[i].plan, &snap->schemes[i], aggr, now);

		/* a region whose age was reset meanwhile makes a target's estimate too long */
		if (est && (!best || est < best))
			best = est;
	}
	v->s.aggr_us = vplan_clock_update(v->clock, &v->nclock, best, aggr);
}

static int read_sys(struct vaddr *v, struct policy_input *in)
{
	return engine_read_sys(v->procfd, v->page_size, in);
}

/*
 * read_meminfo: the system-wide inputs of this cycle (read_sys) into sys; when meminfo cannot
 * be read they are left unknown (zero) and that is logged.
 */
static void read_meminfo(struct vaddr *v, struct policy_input *sys)
{
	if (read_sys(v, sys) < 0)
		log_rl(LOG_WARNING, "vaddr: cannot read meminfo: free memory and swap unknown");
}

/*
 * No process to watch: no policy runs, but what its cgroups show is still known (PSI), as
 * a paddr policy shows it without a scheme at work.
 */
static void read_idle(struct vaddr *v)
{
	struct policy_input sys;

	read_meminfo(v, &sys);
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
	if (!v->targets.n)
		read_idle(v);
	if (r < 0 || !v->targets.n)
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
	/* a failure keeps the last intervals read, which age figures are no worse for */
	r = engine_intervals_read(&v->iv, v->d, DAMON_SLOT_VADDR);
	if (r < 0)
		log_msg(LOG_DEBUG, "vaddr: reading the tuned intervals: %s", strerror(-r));
	v->s.snapshots++;
	v->s.snapshot_us_total += snap.cost_us;
	if (snap.nr_schemes != v->targets.n)
		log_rl(LOG_WARNING, "vaddr: snapshot has %u schemes for %zu targets",
		       snap.nr_schemes, v->targets.n);
	read_meminfo(v, &sys);
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
	char a[16], b[16], c[16], d[16], f[16], k[16], q[16], h[16], u[16];

	for (size_t pi = 0; pi < v->npol; pi++) {
		const struct vpolicy *vp = &v->pol[pi];
		const uint64_t *sk = vp->s.skipped_total;

		if (!vp->active)
			continue;
		/* info when something happened, debug otherwise */
		log_msg(vp->s.last_advised || vp->st.paused ? LOG_INFO : LOG_DEBUG,
			"policy %s: %" PRIu64 " cgroups, %" PRIu64 " processes, cold %s, "
			"advised %s, freed %s (rss -%s), total freed %s; not taken: young %s, "
			"quota %s, unconfirmed/turned hot %s, shared/kept %s%s",
			vp->name, vp->s.cgroups, vp->s.procs,
			fmt_size(a, sizeof(a), vp->s.cold_bytes),
			fmt_size(b, sizeof(b), vp->s.last_advised),
			fmt_size(f, sizeof(f), vp->s.last_freed),
			fmt_size(c, sizeof(c), vp->s.last_rss_drop),
			fmt_size(d, sizeof(d), vp->s.freed_bytes_total),
			fmt_size(h, sizeof(h), sk[SKIP_YOUNG]),
			fmt_size(q, sizeof(q), sk[SKIP_QUOTA]),
			fmt_size(u, sizeof(u), sk[SKIP_UNCONFIRMED] + sk[SKIP_TURNED_HOT]),
			fmt_size(k, sizeof(k), sk[SKIP_SHARED] + sk[SKIP_KEPT]),
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
