// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * paddr: one DAMOS pageout scheme per cgroup on pageoutd's paddr kdamond; see paddr.h.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pageoutd/engine.h"
#include "pageoutd/log.h"
#include "pageoutd/paddr.h"
#include "pageoutd/pscheme.h"
#include "pageoutd/util.h"

/* without goal metrics pageoutd scales the quota from PSI in these steps */
#define PSI_STEPS 8

struct paddr_cgroup {
	char *path;
	size_t policy;
	struct policy_state st;
	struct policy_input in;
	struct damon_scheme want;
	int kidx;	/* its index at the last commit, -1 before */
	bool have_base; /* base holds the kernel's counters at the last read */
	struct damon_stats base;
	bool seen;		  /* still wanted this cycle */
	bool committed_paused;	  /* the kernel has it as a stat scheme */
	uint64_t tried_at_commit; /* s.nr_tried at the last commit: a walk since shows above it */
	bool was_paused;
	/* the byte quota, time quota and goals of the scheme the kernel has (note_commit) */
	uint64_t kquota_bytes, kquota_ms;
	bool kgoal_psi;	  /* the kernel's scheme has the PSI goal */
	bool kgoal_usage; /* and the max_usage goal */
	bool want_capped; /* want's byte quota is max_usage's cap (plan_scheme) */
	bool kcapped;	  /* and so is the kernel's (note_commit) */
	bool kbelow;	  /* the kernel's scheme is paused below max_usage (note_commit) */
	unsigned bound;	  /* PADDR_LIMIT_BITs that held its effective quota down at the last read */
	bool bound_known;
	uint64_t bound_effective; /* the effective quota then */
	int frozen;		  /* frozen_only: cgrp_frozen as last read */
	uint64_t swap_room;	  /* cgrp_swap_room as last read (UINT64_MAX: unlimited) */
	uint64_t last_resident, last_refaults;
	bool have_resident, have_refaults;
	struct paddr_cgroup_stats s;
};

struct paddr_policy {
	ENGINE_POLICY_HEAD; /* name, cfg, active */
	bool operator_paused;
	bool freezer_warned;
	unsigned nsch;
	unsigned nshare; /* the schemes its quotas are split over: frozen_only counts frozen ones */
	struct paddr_policy_stats s;
	struct log_cond refused_cond; /* more cgroups than schemes */
	struct log_cond limit_cond;   /* a limit other than the byte quota binds */
	unsigned limit_logged;	      /* the limits limit_cond names */
};

struct paddr {
	const struct cfg *cfg; /* borrowed: see paddr_new */
	struct damon *d;
	const struct cgrp_root *cg;
	int procfd;
	uint64_t page_size;
	struct damon_range ram[2];
	unsigned nram;
	struct log_cond cond;	   /* the schemes cannot be written or started, no RAM layout */
	struct log_cond read_cond; /* the schemes' stats cannot be read */
	struct paddr_cgroup *c;
	size_t nc;
	unsigned kschemes; /* schemes in the kernel after the last commit or start */
	bool kpaused;	   /* the kdamond's context is paused (7.3, want_pause) */
	struct paddr_policy *pol;
	size_t npol;
	bool running, dirty;
	uint64_t commit_us; /* CLOCK_MONOTONIC at the last commit or start */
	bool held_soft;	    /* dirty only with soft changes held back (may_hold) */
	int watchfd;	    /* inotify fd the frozen_only cgroups are watched on, -1: none */
	struct paddr_stats s;
	struct engine_intervals iv; /* the kdamond's sample and aggregation intervals */
	char self_cg[PATH_MAX];	    /* pageoutd's own memory cgroup: never given a scheme */
	unsigned mem_nodes;	    /* NUMA nodes with memory (zoneinfo), 0 before it is read */
	int first_nid;		    /* the first of them */
};

/* --- lifecycle --- */

int paddr_set_config(struct paddr *p, const struct cfg *cfg)
{
	void *pol = p->pol;
	int r;

	p->cfg = cfg;
	r = engine_set_policies(&pol, &p->npol, sizeof(*p->pol), cfg, ENGINE_PADDR, NULL);
	p->pol = pol;
	if (r < 0)
		return r;
	engine_intervals_config(&p->iv, cfg, ENGINE_PADDR, &p->d->feat);
	p->dirty = true;
	p->held_soft = false; /* an operator's reload is committed at the next cycle */
	return 0;
}

int paddr_pause(struct paddr *p, const char *policy, bool paused)
{
	struct paddr_policy *pp =
		(struct paddr_policy *)engine_find_policy(p->pol, p->npol, sizeof(*p->pol), policy);

	if (!pp)
		return -ENOENT;
	pp->operator_paused = paused;
	pp->s.operator_paused = paused;
	return 0;
}

int paddr_new(struct paddr **ret, const struct cfg *cfg, struct damon *d,
	      const struct cgrp_root *cg)
{
	struct paddr *p = calloc(1, sizeof(*p));
	int r;

	if (!p)
		return -ENOMEM;
	p->d = d;
	p->cg = cg;
	p->page_size = (uint64_t)sysconf(_SC_PAGESIZE);
	p->watchfd = -1;
	p->procfd = engine_open_proc(cfg, "paddr");
	if (p->procfd < 0) {
		r = p->procfd;
		free(p);
		return r;
	}
	r = paddr_set_config(p, cfg);
	if (r < 0) {
		paddr_free(p);
		return r;
	}
	p->s.goals = d->feat.goal_metric && d->feat.goal_tuner;
	/*
	 * 6.17+: the kernel refreshes the stats itself every cycle interval, at most every
	 * second, so what a cycle reads is at most that old. Not more often: each refresh holds
	 * the DAMON sysfs lock, and a write of pageoutd's that meets it is refused (EBUSY).
	 */
	if (d->feat.refresh_ms) {
		uint64_t ms = cfg->daemon.interval_us / USEC_PER_MSEC;

		if (damon_set_refresh(d, DAMON_SLOT_PADDR, ms < 1000 ? ms : 1000) < 0)
			log_warn("paddr: %s: the stats are updated by state commands", d->err);
	}
	if (cgrp_of_pid(getpid(), p->self_cg, sizeof(p->self_cg)) < 0)
		p->self_cg[0] = '\0';
	log_notice("paddr: the kernel reclaims and re-checks references; quotas %s",
		   p->s.goals ? "tuned by the kernel toward each policy's pressure_limit "
				"(some_mem_psi_us goal)"
			      : "scaled by pageoutd from each cgroup's PSI (no temporal goal tuner "
				"here)");
	*ret = p;
	return 0;
}

static void paddr_cgroup_fini(struct paddr_cgroup *c)
{
	free(c->path);
	c->path = NULL;
}

void paddr_free(struct paddr *p)
{
	if (!p)
		return;
	if (p->running)
		damon_stop(p->d, DAMON_SLOT_PADDR);
	for (size_t i = 0; i < p->nc; i++)
		paddr_cgroup_fini(&p->c[i]);
	free(p->c);
	free(p->pol);
	if (p->procfd >= 0)
		close(p->procfd);
	free(p);
}

/* --- cgroups --- */

struct cand {
	char *path;
	size_t policy;
	uint64_t mem; /* anon + file, hierarchical on v2 */
};

static bool is_child(const char *parent, const char *path)
{
	size_t n = strlen(parent);
	const char *rest;

	if (!strcmp(parent, "/"))
		n = 0;
	if (strncmp(parent, path, n) || path[n] != '/' || !path[n + 1])
		return false;
	rest = path + n + 1;
	return strchr(rest, '/') == NULL;
}

static struct paddr_cgroup *find_cg(struct paddr *p, const char *path)
{
	for (size_t i = 0; i < p->nc; i++)
		if (!strcmp(p->c[i].path, path))
			return &p->c[i];
	return NULL;
}

static int add_cg(struct paddr *p, const char *path, size_t policy)
{
	struct paddr_cgroup *n = reallocarray(p->c, p->nc + 1, sizeof(*n));
	struct paddr_cgroup *c;

	if (!n)
		return -ENOMEM;
	p->c = n;
	c = &p->c[p->nc];
	memset(c, 0, sizeof(*c));
	c->path = strdup(path);
	if (!c->path)
		return -ENOMEM;
	c->policy = policy;
	c->kidx = -1;
	c->seen = true;
	policy_state_init(&c->st);
	p->nc++;
	p->dirty = true;
	return 0;
}

/*
 * collect_candidates: every cgroup under each active policy's cgroups, with the memory it
 * holds (anon + file, its children's included on v2), into *ret (*nret entries; the caller
 * frees each path and the array). The first policy that matches a cgroup owns it.
 */
static void collect_candidates(struct paddr *p, struct cand **ret, size_t *nret)
{
	struct cand *cand = NULL;
	size_t ncand = 0;

	for (size_t pi = 0; pi < p->npol; pi++) {
		struct paddr_policy *pp = &p->pol[pi];
		struct cgrp_list top = { 0 }, all = { 0 };

		pp->s.refused = 0;
		if (!pp->active)
			continue;
		if (cgrp_expand(p->cg, pp->cfg->cgroup, pp->cfg->cgroup_is_glob, &top) < 0)
			continue;
		for (size_t k = 0; k < top.nr; k++)
			if (cgrp_descendants(p->cg, top.paths[k], &all) < 0)
				log_rl(LOG_WARNING,
				       "paddr: policy %s: listing the cgroups below %s", pp->name,
				       top.paths[k]);
		cgrp_list_fini(&top);
		for (size_t k = 0; k < all.nr; k++) {
			struct cgrp_memstat ms;
			bool dup = false;
			struct cand *n;

			for (size_t j = 0; j < ncand && !dup; j++)
				dup = !strcmp(cand[j].path, all.paths[k]);
			if (dup)
				continue;
			n = reallocarray(cand, ncand + 1, sizeof(*n));
			if (!n)
				break;
			cand = n;
			cand[ncand].path = all.paths[k];
			all.paths[k] = NULL;
			cand[ncand].policy = pi;
			cand[ncand].mem = cgrp_memstat(p->cg, cand[ncand].path, &ms) == 0
						  ? ms.anon + ms.file
						  : 0;
			ncand++;
		}
		cgrp_list_fini(&all);
	}
	*ret = cand;
	*nret = ncand;
}

/*
 * admit_candidates: a cgroup already known under the same policy is seen; a new one that holds
 * memory of its own (on v2, beyond its children's) gets a scheme while fewer than
 * PADDR_MAX_SCHEMES exist (the rest are counted as refused). pageoutd's own cgroup never does.
 */
static void admit_candidates(struct paddr *p, const struct cand *cand, size_t ncand)
{
	for (size_t k = 0; k < ncand; k++) {
		struct paddr_cgroup *c = find_cg(p, cand[k].path);
		uint64_t local = cand[k].mem;

		if (c && c->policy == cand[k].policy) {
			c->seen = true; /* a cgroup keeps its scheme while it exists */
			continue;
		}
		if (c)
			continue; /* moved to another policy: dropped, then added next cycle */
		if (!strcmp(cand[k].path, p->self_cg)) {
			log_rl(LOG_NOTICE, "paddr: %s is pageoutd's own cgroup: no scheme for it",
			       cand[k].path);
			continue;
		}
		/* v2 counts children in memory.stat: what is left is the cgroup's own */
		for (size_t j = 0; p->cg->version == 2 && j < ncand; j++)
			if (is_child(cand[k].path, cand[j].path))
				local = cand[j].mem > local ? 0 : local - cand[j].mem;
		if (!local)
			continue;
		if (p->nc >= PADDR_MAX_SCHEMES) {
			p->pol[cand[k].policy].s.refused++;
			continue;
		}
		if (add_cg(p, cand[k].path, cand[k].policy) < 0)
			break;
	}
}

/* drop_unseen: forget the cgroups not seen this time or whose policy went, keeping the order. */
static void drop_unseen(struct paddr *p)
{
	size_t w = 0;

	for (size_t i = 0; i < p->nc; i++) {
		if (!p->c[i].seen || p->c[i].policy >= p->npol || !p->pol[p->c[i].policy].active) {
			log_info("paddr: cgroup %s leaves policy %s", p->c[i].path,
				 p->pol[p->c[i].policy].name);
			paddr_cgroup_fini(&p->c[i]);
			p->dirty = true;
			continue;
		}
		p->c[w++] = p->c[i];
	}
	p->nc = w;
}

/* count_schemes: each policy's schemes, and the refused cgroups as one condition per policy. */
static void count_schemes(struct paddr *p)
{
	for (size_t pi = 0; pi < p->npol; pi++) {
		struct paddr_policy *pp = &p->pol[pi];

		pp->nsch = 0;
		for (size_t i = 0; i < p->nc; i++)
			pp->nsch += p->c[i].policy == pi;
		pp->s.cgroups = pp->nsch;
		if (pp->s.refused)
			log_cond_set(
				&pp->refused_cond, LOG_ERR,
				"paddr: policy %s: %" PRIu64 " more cgroups hold memory than the "
				"%d schemes a paddr kdamond is given (each scheme walks the cold "
				"memory again every cycle); they are not reclaimed. Narrow "
				"`cgroup =` or use engine = vaddr",
				pp->name, pp->s.refused, PADDR_MAX_SCHEMES);
		else
			log_cond_clear(&pp->refused_cond);
	}
}

/* Every cgroup under an active policy that holds memory of its own gets a scheme. */
static void sync_cgroups(struct paddr *p)
{
	struct cand *cand;
	size_t ncand;

	for (size_t i = 0; i < p->nc; i++)
		p->c[i].seen = false;
	collect_candidates(p, &cand, &ncand);
	admit_candidates(p, cand, ncand);
	for (size_t k = 0; k < ncand; k++)
		free(cand[k].path);
	free(cand);
	drop_unseen(p);
	count_schemes(p);
}

/* --- inputs and decisions --- */

static void read_inputs(struct paddr *p, struct paddr_cgroup *c, const struct policy_input *sys)
{
	struct policy_input *in = &c->in;
	struct engine_cgroup ec;
	uint64_t res;

	*in = *sys;
	c->s.ws_bytes = 0;
	c->s.refault_pages = CGRP_UNKNOWN;
	if (engine_read_cgroup(p->cg, c->path, in, &ec) == 0) {
		res = ec.resident;
		c->s.ws_bytes = ec.ws_bytes;
		c->s.refault_pages = ec.refault_pages;
		if (c->have_resident && res < c->last_resident) {
			c->s.memcg_drop_bytes_total += c->last_resident - res;
			p->pol[c->policy].s.memcg_drop_bytes_total += c->last_resident - res;
		}
		c->s.resident = c->last_resident = res;
		c->have_resident = true;
		if (in->refaults_known) {
			if (c->have_refaults && in->refault_pages >= c->last_refaults) {
				c->s.refaults_total += in->refault_pages - c->last_refaults;
				p->pol[c->policy].s.refaults_total +=
					in->refault_pages - c->last_refaults;
			}
			c->last_refaults = in->refault_pages;
			c->have_refaults = true;
		}
	}
	if (cgrp_swap_room(p->cg, c->path, &c->swap_room) < 0)
		c->swap_room = UINT64_MAX; /* unknown: not held back for it */
	if (p->pol[c->policy].cfg->frozen_only) {
		c->frozen = cgrp_frozen(p->cg, c->path);
		/* without a watch a thaw is seen at the next cycle's read */
		if (p->watchfd >= 0 && cgrp_watch_add(p->cg, p->watchfd, c->path) < 0)
			log_rl(LOG_WARNING, "paddr: cannot watch %s for freezing and thawing",
			       c->path);
	}
}

/*
 * read_nodes: the NUMA nodes with memory, once (memory is not hot-added often enough to read
 * zoneinfo every cycle); none known when it cannot be read: then pageoutd holds the ceilings.
 */
static void read_nodes(struct paddr *p)
{
	char *buf = NULL;

	if (p->mem_nodes || read_file_alloc_at(p->procfd, "zoneinfo", &buf) < 0)
		return;
	p->mem_nodes = pscheme_mem_nodes(buf, &p->first_nid);
	free(buf);
}

/*
 * plan_usage: who holds cgroup c at its policy's max_usage, and its ceiling in bytes. Where
 * pageoutd does, a cgroup at or below the ceiling is paused (below_max_usage) until it grows
 * past it again; where the kernel does, the scheme gets the usage goal and stays as it is.
 */
static enum pscheme_usage_by plan_usage(struct paddr *p, struct paddr_cgroup *c)
{
	const struct cfg_policy *cp = p->pol[c->policy].cfg;
	enum pscheme_usage_by by = pscheme_usage_by(cp, &p->d->feat, p->mem_nodes);

	c->s.max_usage_by = pscheme_usage_name(by);
	c->s.max_usage_bytes = pscheme_usage_target(cp, c->in.mem_total);
	if (by != PSCHEME_USAGE_PAGEOUTD || c->st.paused || !c->have_resident || !c->in.mem_total ||
	    c->last_resident > c->s.max_usage_bytes)
		return by;
	c->st.paused = true;
	c->st.paused_why = SKIP_BELOW_MAX_USAGE;
	return by;
}

/*
 * plan_scheme: this cycle's verdict for cgroup c from the inputs read (c->st), and the scheme
 * it should have in the kernel (c->want).
 */
static void plan_scheme(struct paddr *p, struct paddr_cgroup *c)
{
	const struct paddr_policy *pp = &p->pol[c->policy];
	enum pscheme_usage_by by;
	double scale;
	unsigned kinds;

	c->st.operator_paused = pp->operator_paused;
	/* the kernel gates on free memory (watermarks) and on bytes per interval (quota) */
	policy_decide(pp->cfg, POLICY_GATES_ALL & ~(POLICY_GATE_FREE_MEMORY | POLICY_GATE_QUOTA),
		      &c->in, &c->st);
	if (!c->st.paused && policy_cgroup_gate(pp->cfg, c->frozen) != SKIP_MAX) {
		/* frozen_only: this cgroup's scheme only counts while it runs */
		c->st.paused = true;
		c->st.paused_why = SKIP_NOT_FROZEN;
	}
	scale = c->st.quota_scale;
	if (!p->s.goals && c->in.psi_known && pp->cfg->pressure_limit && !c->st.paused) {
		/* no goal metrics: pageoutd shrinks the quota as PSI nears the limit */
		double frac = c->in.psi_some_avg10 * 10000.0 / (double)pp->cfg->pressure_limit;
		int step = (int)((1.0 - frac) * PSI_STEPS + 0.999);

		step = step < 1 ? 1 : step > PSI_STEPS ? PSI_STEPS : step;
		scale *= (double)step / PSI_STEPS;
	}
	/*
	 * Before 7.3 DAMON charges the byte quota with every byte of the regions a scheme walks,
	 * this cgroup's or not: the scheme's quota is multiplied by how much more RAM there is
	 * than the cgroup's memory (pscheme_walk_scale), so that the cgroup's share of a walk is
	 * about the configured quota. With fail_charge (7.3) the kernel charges what it reclaims
	 * (and a failed byte 1/PSCHEME_FAIL_CHARGE_DENOM): the quota is the configured one.
	 */
	c->s.walk_scale = c->have_resident && !p->d->feat.fail_charge
				  ? pscheme_walk_scale(p->s.ram_bytes, c->last_resident)
				  : 1;
	scale *= c->s.walk_scale;
	kinds = (c->st.anon_allowed ? MEMORY_ANON : 0) | (c->st.file_allowed ? MEMORY_FILE : 0);
	if (policy_swap_limited(c->swap_room))
		kinds &= ~(unsigned)MEMORY_ANON;
	if (!(kinds & pp->cfg->memory) && !c->st.paused) {
		c->st.paused = true; /* only anon wanted, and no swap for it */
		c->st.paused_why = c->st.anon_allowed ? SKIP_SWAP_LIMIT : SKIP_SWAP_RESERVE;
	}
	/*
	 * DAMOS tells anonymous pages from the rest, not shared memory from page cache: a scheme
	 * that may take file pages takes the cgroup's shmem too, to swap. Below swap_reserve
	 * that would spend the reserve, so a cgroup holding shared memory is paused there, as
	 * its anon is. Without swap, or at memory.swap.max, the kernel keeps shmem itself.
	 */
	if (!c->st.paused && (kinds & pp->cfg->memory) == MEMORY_FILE && c->in.swap_total &&
	    !c->st.swap_room && c->in.shmem_bytes) {
		c->st.paused = true;
		c->st.paused_why = SKIP_SWAP_RESERVE;
	}
	by = plan_usage(p, c);
	/* dry run: the schemes only count (stat), nothing is reclaimed */
	pscheme_build(pp->cfg, p->cfg, &p->d->feat, c->path, c->st.min_age_us, scale, pp->nshare,
		      kinds, c->st.paused || p->cfg->daemon.dry_run, &c->want);
	if (by == PSCHEME_USAGE_KERNEL)
		pscheme_usage_goal(pp->cfg, c->path, p->first_nid, &c->want);
	c->want_capped = false;
	if (by != PSCHEME_USAGE_NONE && c->have_resident) {
		/*
		 * one walk takes the cgroup no further than its ceiling: the cap bounds what a walk
		 * is charged, which with fail_charge (7.3, walk_scale 1) is what it reclaims
		 */
		uint64_t cap = pscheme_usage_cap(c->last_resident, c->s.max_usage_bytes);

		if (!c->want.quota_bytes || c->want.quota_bytes > cap) {
			c->want.quota_bytes = cap;
			c->want_capped = !c->st.paused;
		}
	}
	c->s.psi_some_avg10 = c->in.psi_known ? c->in.psi_some_avg10 : -1;
	c->s.paused = c->st.paused;
	c->s.paused_why = c->st.paused ? skip_reason_name(c->st.paused_why) : "";
	if (c->st.paused != c->was_paused)
		log_info("paddr: cgroup %s (policy %s) %s%s", c->path, pp->name,
			 c->st.paused ? "paused: " : "resumed",
			 c->st.paused ? skip_reason_name(c->st.paused_why) : "");
	c->was_paused = c->st.paused;
}

/* --- DAMON --- */

static int write_ctx(struct paddr *p, bool pause)
{
	struct damon_scheme *s = calloc(p->nc ? p->nc : 1, sizeof(*s));
	struct damon_target t = { 0 };
	struct damon_ctx c = { 0 };
	int r;

	if (!s)
		return -ENOMEM;
	str_copy(c.ops, sizeof(c.ops), "paddr");
	c.sample_us = p->cfg->sampling[ENGINE_PADDR].sample_us;
	c.aggr_us = pscheme_aggr_us(p->cfg);
	c.tune_max_sample_us = engine_intervals_tune_max(p->cfg, ENGINE_PADDR, &p->d->feat);
	c.update_us = p->cfg->damon.update_us > c.aggr_us ? p->cfg->damon.update_us : c.aggr_us;
	c.min_regions = p->cfg->damon.min_regions;
	c.max_regions = p->cfg->damon.max_regions;
	t.nr_regions = p->nram;
	memcpy(t.regions, p->ram, p->nram * sizeof(t.regions[0]));
	c.nr_targets = 1;
	c.targets = &t;
	for (size_t i = 0; i < p->nc; i++)
		s[i] = p->c[i].want;
	c.nr_schemes = (unsigned)p->nc;
	c.schemes = s;
	c.pause = pause;
	r = damon_write_ctx(p->d, DAMON_SLOT_PADDR, &c);
	free(s);
	return r;
}

/*
 * note_commit: after a commit (or a start, `started`), cgroup i holds kernel scheme i. Whether
 * that kernel object's counters are the cgroup's own (kept), start at zero (a new object), or
 * were another cgroup's (re-read as the base before they count).
 */
static void note_commit(struct paddr *p, bool started)
{
	for (size_t i = 0; i < p->nc; i++) {
		struct paddr_cgroup *c = &p->c[i];

		if (started || (c->kidx != (int)i && i >= p->kschemes)) {
			/* a new kernel scheme: its counters start at zero */
			memset(&c->base, 0, sizeof(c->base));
			c->have_base = true;
		} else if (c->kidx != (int)i) {
			c->have_base = false; /* it inherits another cgroup's counters */
		}
		c->kidx = (int)i;
		c->committed_paused = !strcmp(c->want.action, "stat");
		c->tried_at_commit = c->s.nr_tried;
		c->kquota_bytes = c->want.quota_bytes;
		c->kquota_ms = c->want.quota_ms;
		c->kcapped = c->want_capped;
		c->kbelow = c->committed_paused && c->st.paused &&
			    c->st.paused_why == SKIP_BELOW_MAX_USAGE;
		c->kgoal_psi = c->kgoal_usage = false;
		for (unsigned g = 0; g < c->want.nr_goals; g++) {
			c->kgoal_usage |= c->want.goals[g].path[0] != '\0';
			c->kgoal_psi |= !c->want.goals[g].path[0];
		}
		c->s.commits++;
	}
	p->kschemes = (unsigned)p->nc;
	p->commit_us = now_usec();
}

/*
 * soft_change: a and b differ at most in their quota sizes and goal targets, the figures
 * pageoutd retunes from cycle to cycle; anything else (action, pattern, filters, the goals'
 * metrics) is a change of what the scheme does.
 */
static bool soft_change(const struct damon_scheme *a, const struct damon_scheme *b)
{
	struct damon_scheme x = *a, y = *b;

	x.quota_bytes = y.quota_bytes = 0;
	x.quota_ms = y.quota_ms = 0;
	for (unsigned g = 0; g < ARRAY_SIZE(x.goals); g++) {
		x.goals[g].target_value = y.goals[g].target_value = 0;
		x.goals[g].current_value = y.goals[g].current_value = 0;
	}
	return !memcmp(&x, &y, sizeof(x));
}

/*
 * may_hold: whether a commit of soft changes alone waits. Before 6.18 a commit restarts every
 * scheme's apply countdown, so retuned quotas committed more often than a scheme's walk comes
 * due would keep it from ever walking (and its walk comes due later than min_age in wall time
 * when sampling stretches on a loaded machine). Such a commit waits until every reclaiming
 * scheme has walked since the last commit (its nr_tried grew), or for four of the longest apply
 * intervals, whichever comes first: a scheme whose walk finds nothing to try does not hold
 * the others for ever.
 */
static bool may_hold(const struct paddr *p)
{
	uint64_t longest = 0;
	bool waiting = false; /* a reclaiming scheme has not walked since the last commit */

	if (p->d->feat.commit_keeps_clock || !p->running)
		return false;
	for (size_t i = 0; i < p->nc; i++) {
		const struct paddr_cgroup *c = &p->c[i];
		uint64_t iv = c->want.apply_interval_us;

		if (c->kidx < 0 || c->committed_paused)
			continue;
		longest = iv > longest ? iv : longest;
		waiting |= c->s.nr_tried <= c->tried_at_commit;
	}
	return waiting && now_usec() - p->commit_us < 4 * longest;
}

/* A commit refused with EINVAL: most likely a cgroup went away after we listed it. */
static bool drop_vanished(struct paddr *p)
{
	size_t w = 0;
	bool any = false;

	for (size_t i = 0; i < p->nc; i++) {
		uint64_t cur;

		if (cgrp_current(p->cg, p->c[i].path, &cur) == -ENOENT) {
			log_info("paddr: cgroup %s vanished before the commit", p->c[i].path);
			paddr_cgroup_fini(&p->c[i]);
			any = true;
			continue;
		}
		p->c[w++] = p->c[i];
	}
	p->nc = w;
	return any;
}

/* Every policy with schemes failed this cycle, for the same reason. */
static void count_failure(struct paddr *p, enum fail_kind k)
{
	for (size_t pi = 0; pi < p->npol; pi++)
		if (p->pol[pi].active && p->pol[pi].nsch)
			p->pol[pi].s.failures_total[k]++;
}

const char *paddr_error(const struct paddr *p)
{
	const char *e = log_cond_text(&p->cond);

	return e ? e : log_cond_text(&p->read_cond);
}

/*
 * 7.3: the kdamond is paused, rather than stopped or left walking, while no scheme would
 * reclaim: no cgroup has one, or an operator paused every policy that has one. A paused
 * kdamond keeps its thread and its regions (their bounds, access counts and ages), takes
 * commits and resumes with them; it neither samples nor applies schemes, so their counters
 * stand still meanwhile. Before 7.3 the kdamond is stopped when no cgroup has a scheme (its
 * regions start again from the System RAM ranges at the next start) and its stat schemes
 * walk while every policy is paused.
 */
static bool want_pause(const struct paddr *p)
{
	if (!p->d->feat.pause)
		return false;
	for (size_t i = 0; i < p->nc; i++)
		if (!p->c[i].st.paused || p->c[i].st.paused_why != SKIP_PAUSED)
			return false;
	return true;
}

/* The running kdamond has no scheme left: pause it with none. Returns 0 or -errno. */
static int pause_empty(struct paddr *p)
{
	int r = write_ctx(p, true);

	r = r ?: damon_commit(p->d, DAMON_SLOT_PADDR);
	if (r < 0) {
		log_rl(LOG_WARNING, "paddr: pausing the kdamond failed, stopping it: %s",
		       p->d->err);
		return r;
	}
	if (!p->kpaused)
		log_info("paddr: no cgroup has a scheme: kdamond %d paused, its regions kept",
			 DAMON_SLOT_PADDR);
	p->kpaused = true;
	p->kschemes = 0;
	p->s.commits++;
	return 0;
}

/* After a commit or a start that worked: say when the kdamond paused or resumed. */
static void note_pause(struct paddr *p, bool pause)
{
	if (pause != p->kpaused)
		log_info("paddr: kdamond %d %s", DAMON_SLOT_PADDR,
			 pause ? "paused: every policy with a scheme is paused (pageoutctl pause)"
			       : "resumed with the regions it had");
	p->kpaused = pause;
}

static void read_stats(struct paddr *p, bool now);

static int sync_damon(struct paddr *p)
{
	bool pause = want_pause(p);
	int r = 0;

	if (p->running && pause != p->kpaused)
		p->dirty = true;
	if (!p->dirty || !p->nc)
		log_cond_clear(&p->cond); /* the last write worked, or there is nothing to write */
	if (!p->dirty)
		return 0;
	if (!p->nc) {
		if (p->running && pause && pause_empty(p) == 0) {
			p->dirty = false;
			p->s.schemes = 0;
			p->s.kdamond_paused = true;
			return 0;
		}
		if (p->running)
			damon_stop(p->d, DAMON_SLOT_PADDR);
		p->kpaused = p->s.kdamond_paused = false;
		p->running = false;
		p->dirty = false;
		p->kschemes = 0;
		return 0;
	}
	read_stats(p, true); /* what the schemes did up to the commit is theirs */
	for (int attempt = 0; attempt < 2; attempt++) {
		/* a kdamond starts unpaused: one with nothing to do is paused by a commit */
		r = write_ctx(p, pause && p->running);
		if (r == 0 && p->running) {
			r = damon_commit(p->d, DAMON_SLOT_PADDR);
			if (r == 0) {
				p->s.commits++;
				note_commit(p, false);
				note_pause(p, pause);
			}
		}
		if (r == 0 && !p->running) {
			r = damon_start(p->d, DAMON_SLOT_PADDR);
			if (r == 0) {
				p->running = true;
				p->s.restarts++;
				note_commit(p, true);
				p->kpaused = false;
			}
		}
		if (r != -EINVAL || !drop_vanished(p) || !p->nc)
			break;
	}
	if (r == -EINVAL && p->running && damon_running(p->d, DAMON_SLOT_PADDR) == 0) {
		/* 7.x answers commit on a stopped kdamond with EINVAL: start it next cycle */
		p->running = false;
		p->kpaused = false;
		return 0;
	}
	if (r < 0) {
		p->s.errors++;
		count_failure(p, FAIL_DAMON_WRITE);
		log_cond_set(&p->cond, LOG_ERR, "paddr: %s", p->d->err);
		return r;
	}
	log_cond_clear(&p->cond);
	p->dirty = false;
	p->s.schemes = p->nc;
	p->s.kdamond_paused = p->kpaused;
	return 0;
}

/*
 * usage_bound: the limits that hold c's scheme (bound, from its effective quota) with
 * max_usage's. The ceiling alone binds a cgroup at or below it: its scheme has the kernel's
 * usage goal and no quota because of it (the temporal tuner's none), or pageoutd paused it
 * (below_max_usage). Above it, the ceiling binds too where the kernel's byte quota is
 * max_usage's cap: the walk may take no more than what lies above the ceiling (plan_scheme).
 * So a cgroup held at its ceiling stays bound by max_usage on either side of it.
 */
static unsigned usage_bound(const struct paddr_cgroup *c, unsigned bound)
{
	bool at = c->kbelow || (c->kgoal_usage && !c->committed_paused && c->have_resident &&
				c->last_resident <= c->s.max_usage_bytes);

	bound &= ~PADDR_LIMIT_BIT(PADDR_LIMIT_MAX_USAGE);
	if (at)
		return PADDR_LIMIT_BIT(PADDR_LIMIT_MAX_USAGE);
	return bound |
	       (c->kcapped && !c->committed_paused ? PADDR_LIMIT_BIT(PADDR_LIMIT_MAX_USAGE) : 0);
}

/*
 * read_stats: add what each cgroup's kernel scheme did since the last read to its counters.
 * Only a cgroup that still holds the kernel scheme at its index (kidx) is read. `now`: the
 * figures the kdamond has at its next damon_call point (damon_update_stats_now), rather than
 * those of the kernel's last refresh_ms refresh, which are up to a second old and read 0 after
 * a context write (it rebuilds the scheme directories) until the next refresh. A commit is
 * read around with `now`: just before the context is written, so that what the schemes did
 * until then is theirs, and after the commit, so that the base lines are the kernel's
 * counters; a walk while the context is written counts as the new schemes'.
 */
static void read_stats(struct paddr *p, bool now)
{
	int r;

	if (!p->running || !p->nc)
		return;
	r = now ? damon_update_stats_now(p->d, DAMON_SLOT_PADDR)
		: damon_update_stats(p->d, DAMON_SLOT_PADDR);
	if (r < 0) {
		p->s.errors++;
		count_failure(p, FAIL_DAMON_READ);
		log_cond_set(&p->read_cond, LOG_WARNING,
			     "paddr: reading the scheme stats of kdamond %d: %s", DAMON_SLOT_PADDR,
			     strerror(-r));
		return;
	}
	log_cond_clear(&p->read_cond);
	for (size_t i = 0; i < p->nc; i++) {
		struct paddr_cgroup *c = &p->c[i];
		struct paddr_policy_stats *ps = &p->pol[c->policy].s;
		struct damon_stats st, *b = &c->base;

		if (c->kidx != (int)i)
			continue;
		r = damon_read_stats(p->d, DAMON_SLOT_PADDR, (unsigned)i, &st);
		if (r < 0) {
			/* its counters wait for the next read; the base stays as it was */
			log_rl(LOG_WARNING,
			       "paddr: reading the stats of scheme %zu (cgroup %s): %s", i, c->path,
			       strerror(-r));
			continue;
		}
		c->s.effective_quota = st.effective_bytes;
		/*
		 * Below the byte quota, what the scheme has besides it bound the walk. 0 is a
		 * quota not computed yet (no reset interval since the scheme began): the last
		 * verdict stands.
		 */
		c->bound_known = st.effective_bytes != UINT64_MAX;
		if (!c->bound_known || c->committed_paused) {
			c->bound = 0;
		} else if (st.effective_bytes) {
			c->bound_effective = st.effective_bytes;
			c->bound = 0;
			if (c->kquota_bytes && st.effective_bytes < c->kquota_bytes)
				c->bound =
					(c->kquota_ms ? PADDR_LIMIT_BIT(PADDR_LIMIT_QUOTA_TIME)
						      : 0) |
					(c->kgoal_psi ? PADDR_LIMIT_BIT(PADDR_LIMIT_PRESSURE) : 0);
		}
		c->bound = usage_bound(c, c->bound);
		if (c->have_base && st.sz_tried >= b->sz_tried && st.nr_tried >= b->nr_tried &&
		    st.sz_applied >= b->sz_applied) {
			uint64_t dt = st.sz_tried - b->sz_tried, da = st.sz_applied - b->sz_applied;

			c->s.nr_tried += st.nr_tried - b->nr_tried;
			c->s.sz_tried += dt;
			c->s.qt_exceeds += st.qt_exceeds - b->qt_exceeds;
			ps->tried_bytes_total += dt;
			ps->qt_exceeds_total += st.qt_exceeds - b->qt_exceeds;
			if (c->committed_paused) {
				/* a stat scheme "applies" everything it tries: nothing reclaimed */
				c->s.sz_paused += dt;
				ps->paused_bytes_total += dt;
			} else {
				c->s.nr_applied += st.nr_applied - b->nr_applied;
				c->s.sz_applied += da;
				ps->applied_bytes_total += da;
				ps->last_applied += da;
			}
			if (st.sz_ops_filter_passed != UINT64_MAX &&
			    b->sz_ops_filter_passed != UINT64_MAX &&
			    st.sz_ops_filter_passed >= b->sz_ops_filter_passed)
				c->s.sz_ops_filter_passed +=
					st.sz_ops_filter_passed - b->sz_ops_filter_passed;
		}
		if (st.sz_ops_filter_passed == UINT64_MAX)
			c->s.sz_ops_filter_passed = UINT64_MAX;
		*b = st;
		c->have_base = true;
	}
}

static int read_ram(struct paddr *p)
{
	char *buf = NULL;
	int n;

	if (p->nram)
		return 0;
	n = (int)read_file_alloc_at(p->procfd, "iomem", &buf);
	if (n < 0)
		goto fail;
	n = pscheme_ram_ranges(buf, p->ram, ARRAY_SIZE(p->ram));
	free(buf);
	if (n <= 0) {
		n = n ? n : -EPERM;
		goto fail;
	}
	p->nram = (unsigned)n;
	p->s.ram_bytes = 0;
	for (unsigned i = 0; i < p->nram; i++)
		p->s.ram_bytes += p->ram[i].end - p->ram[i].start;
	return 0;
fail:
	log_cond_set(&p->cond, LOG_ERR,
		     "paddr: cannot read the physical memory layout from %s/iomem (%s; it needs "
		     "CAP_SYS_ADMIN to show addresses): paddr policies are inactive",
		     p->cfg->daemon.proc_root, strerror(-n));
	return n;
}

const char *paddr_limit_name(enum paddr_limit k)
{
	static const char *const names[PADDR_LIMIT_MAX] = {
		[PADDR_LIMIT_QUOTA_TIME] = "quota_time",
		[PADDR_LIMIT_PRESSURE] = "pressure_limit",
		[PADDR_LIMIT_MAX_USAGE] = "max_usage",
	};

	return k < PADDR_LIMIT_MAX ? names[k] : "?";
}

/* limits_join: the names of the limits in `limits`, in limit order, joined by sep, into buf. */
static char *limits_join(unsigned limits, const char *sep, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int k = 0; k < PADDR_LIMIT_MAX; k++) {
		int w;

		if (!(limits & PADDR_LIMIT_BIT(k)))
			continue;
		w = snprintf(buf + n, len - n, "%s%s", n ? sep : "", paddr_limit_name(k));
		if (w < 0 || (size_t)w >= len - n)
			break;
		n += (size_t)w;
	}
	return buf;
}

const char *paddr_limits_text(unsigned limits)
{
	static char texts[1u << PADDR_LIMIT_MAX][64];
	unsigned set = limits & ((1u << PADDR_LIMIT_MAX) - 1);

	if (!set)
		return NULL;
	if (!texts[set][0])
		limits_join(set, ",", texts[set], sizeof(texts[set]));
	return texts[set];
}

/* limit_values: "quota_time = 10ms, pressure_limit = 10%" for the limits in `bound`, into buf. */
static char *limit_values(const struct cfg_policy *cp, unsigned bound, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int k = 0; k < PADDR_LIMIT_MAX; k++) {
		char v[32];
		int w;

		if (!(bound & PADDR_LIMIT_BIT(k)))
			continue;
		if (k == PADDR_LIMIT_QUOTA_TIME)
			fmt_duration(v, sizeof(v), cp->quota_time_us);
		else
			fmt_rate(v, sizeof(v),
				 k == PADDR_LIMIT_PRESSURE ? cp->pressure_limit : cp->max_usage);
		w = snprintf(buf + n, len - n, "%s%s = %s", n ? ", " : "", paddr_limit_name(k), v);
		if (w < 0 || (size_t)w >= len - n)
			break;
		n += (size_t)w;
	}
	return buf;
}

/*
 * note_limits: after the cycle's first stats read, which limit binds each policy now, counted
 * per cycle and logged when it starts, changes and clears.
 */
static void note_limits(struct paddr *p)
{
	for (size_t pi = 0; pi < p->npol; pi++) {
		struct paddr_policy *pp = &p->pol[pi];
		unsigned bound = 0;
		bool known = false;
		uint64_t eff = 0, quota = 0;
		char names[96], why[128];

		if (!pp->active)
			continue;
		for (size_t i = 0; i < p->nc; i++) {
			const struct paddr_cgroup *c = &p->c[i];

			if (c->policy != pi || !c->have_base)
				continue;
			known |= c->bound_known;
			if (!c->bound)
				continue;
			bound |= c->bound;
			/* at or below its ceiling the cgroup is allowed nothing */
			eff += c->bound & PADDR_LIMIT_BIT(PADDR_LIMIT_MAX_USAGE) &&
					       c->last_resident <= c->s.max_usage_bytes
				       ? 0
				       : c->bound_effective;
			quota += c->kquota_bytes;
		}
		pp->s.binding = bound;
		pp->s.binding_known = known;
		for (int k = 0; k < PADDR_LIMIT_MAX; k++)
			pp->s.limit_bound_cycles[k] += !!(bound & PADDR_LIMIT_BIT(k));
		if (!bound) {
			log_cond_clear(&pp->limit_cond);
			continue;
		}
		if (pp->limit_cond.on && bound == pp->limit_logged) {
			/* the same limits: the first line's figures stand */
			char same[LOG_COND_TEXT_MAX];

			str_copy(same, sizeof(same), pp->limit_cond.text);
			log_cond_set(&pp->limit_cond, LOG_NOTICE, "%s", same);
			continue;
		}
		log_cond_set(&pp->limit_cond, LOG_NOTICE,
			     "paddr policy %s: %s binds: the kernel allows %.1f MiB of %.1f MiB "
			     "per walk (%s)",
			     pp->name, limits_join(bound, " or ", names, sizeof(names)),
			     (double)eff / (1 << 20), (double)quota / (1 << 20),
			     limit_values(pp->cfg, bound, why, sizeof(why)));
		pp->limit_logged = bound;
	}
}

/* Say once per policy that frozen_only has no freezer to read. */
static void warn_freezer(struct paddr *p)
{
	for (size_t pi = 0; pi < p->npol; pi++) {
		struct paddr_policy *pp = &p->pol[pi];

		if (pp->s.freezer_missing && !pp->freezer_warned)
			log_warn("paddr: policy %s: frozen_only, but no cgroup freezer to read "
				 "(cgroup v1 without a freezer hierarchy mounted): none of its "
				 "cgroups is reclaimed",
				 pp->name);
		pp->freezer_warned = pp->s.freezer_missing;
	}
}

void paddr_watch(struct paddr *p, int fd)
{
	p->watchfd = fd;
}

unsigned paddr_frozen_changed(struct paddr *p)
{
	unsigned changed = 0;

	for (size_t i = 0; i < p->nc; i++) {
		struct paddr_cgroup *c = &p->c[i];
		int f;

		/* a policy dropped by a reload: its cfg may be gone, its cgroups leave next cycle */
		if (!p->pol[c->policy].active || !p->pol[c->policy].cfg->frozen_only)
			continue;
		f = cgrp_frozen(p->cg, c->path);
		changed += (f == 1) != (c->frozen == 1);
		c->frozen = f;
	}
	return changed;
}

/*
 * The schemes each policy's quotas are split over: every cgroup's, except that under frozen_only
 * only the frozen ones reclaim, and a running app's scheme takes no part of the frozen apps'.
 */
static void share_quotas(struct paddr *p)
{
	for (size_t pi = 0; pi < p->npol; pi++)
		p->pol[pi].nshare = 0;
	for (size_t i = 0; i < p->nc; i++) {
		struct paddr_policy *pp = &p->pol[p->c[i].policy];

		pp->nshare += policy_cgroup_gate(pp->cfg, p->c[i].frozen) == SKIP_MAX;
	}
}

int paddr_cycle(struct paddr *p)
{
	struct policy_input sys;
	uint64_t commits;
	bool soft, held;
	int r;

	p->s.cycles++;
	for (size_t pi = 0; pi < p->npol; pi++)
		p->pol[pi].s.last_applied = 0;
	if (read_ram(p) < 0)
		return 0;
	read_nodes(p);
	/* changes held back last cycle are soft; whatever sets dirty before the plans is not */
	held = p->held_soft;
	if (held)
		p->dirty = false;
	p->held_soft = false;
	/* the counters first, while the kernel's schemes are still the ones we know */
	read_stats(p, false);
	if (p->running && (r = engine_intervals_read(&p->iv, p->d, DAMON_SLOT_PADDR)) < 0)
		log_msg(LOG_DEBUG, "paddr: reading the tuned intervals: %s", strerror(-r));
	note_limits(p);
	sync_cgroups(p);
	/* what a failed read leaves out counts as 0: no swap known, so no anonymous pageout */
	r = engine_read_sys(p->procfd, p->page_size, &sys);
	if (r < 0)
		log_rl(LOG_WARNING, "paddr: reading %s/meminfo: %s", p->cfg->daemon.proc_root,
		       strerror(-r));
	for (size_t pi = 0; pi < p->npol; pi++) {
		if (p->pol[pi].active)
			p->pol[pi].s.cycles++;
		p->pol[pi].s.frozen_cgroups = 0;
		p->pol[pi].s.freezer_missing = false;
	}
	for (size_t i = 0; i < p->nc; i++) {
		struct paddr_cgroup *c = &p->c[i];

		read_inputs(p, c, &sys);
		p->pol[c->policy].s.frozen_cgroups += c->frozen == 1;
		p->pol[c->policy].s.freezer_missing |= c->frozen == -EOPNOTSUPP;
	}
	/* a freezer one cgroup of the policy answered is there: the others were transient */
	for (size_t i = 0; i < p->nc; i++)
		if (p->c[i].frozen == 0 || p->c[i].frozen == 1)
			p->pol[p->c[i].policy].s.freezer_missing = false;
	share_quotas(p);
	/* a change pending from before this cycle's plans (cgroups, reload) is not soft */
	soft = !p->dirty;
	p->dirty |= held;
	for (size_t i = 0; i < p->nc; i++) {
		struct paddr_cgroup *c = &p->c[i];
		struct damon_scheme before = c->want;

		plan_scheme(p, c);
		/*
		 * A paused scheme (stat) keeps the parameters it was paused with until it resumes:
		 * it reclaims nothing whatever they are, and a commit costs every other scheme a
		 * walk. Up to Linux 6.17 each commit restarts every scheme's apply interval
		 * (damon_commit_ctx -> damon_set_attrs -> damos_set_next_apply_sis), so changes
		 * committed more often than min_age keep every scheme from ever applying.
		 */
		if (c->st.paused && c->kidx >= 0 && !strcmp(before.action, "stat"))
			c->want = before;
		if (memcmp(&before, &c->want, sizeof(before))) {
			p->dirty = true;
			soft &= c->kidx >= 0 && soft_change(&before, &c->want);
		}
	}
	warn_freezer(p);
	if (p->running && damon_running(p->d, DAMON_SLOT_PADDR) == 0) {
		log_rl(LOG_WARNING, "paddr: the kdamond is off (someone turned it off); "
				    "restarting it");
		p->running = false;
		p->kpaused = false;
		p->dirty = true;
	}
	commits = p->s.commits + p->s.restarts;
	if (p->dirty && soft && want_pause(p) == p->kpaused && may_hold(p)) {
		p->s.commits_held++;
		p->held_soft = true;
		return 0;
	}
	r = sync_damon(p);
	if (p->s.commits + p->s.restarts != commits)
		read_stats(p, true); /* base lines of the schemes that changed hands */
	return r;
}

/* --- reporting --- */

const struct engine_intervals *paddr_intervals(const struct paddr *p)
{
	return &p->iv;
}

const struct paddr_stats *paddr_stats(const struct paddr *p)
{
	return &p->s;
}

const struct paddr_policy_stats *paddr_policy_stats(const struct paddr *p, const char *policy)
{
	for (size_t i = 0; i < p->npol; i++)
		if (!strcmp(p->pol[i].name, policy))
			return &p->pol[i].s;
	return NULL;
}

const struct paddr_cgroup_stats *paddr_cgroup_at(const struct paddr *p, size_t i, const char **path,
						 const char **policy)
{
	if (i >= p->nc)
		return NULL;
	*path = p->c[i].path;
	*policy = p->pol[p->c[i].policy].name;
	return &p->c[i].s;
}

int paddr_cgroup_frozen(const struct paddr *p, size_t i)
{
	return i < p->nc ? p->c[i].frozen : -ENOENT;
}

int paddr_scheme_of(const struct paddr *p, const char *path)
{
	for (size_t i = 0; i < p->nc; i++)
		if (!strcmp(p->c[i].path, path))
			return (int)i;
	return -1;
}

const struct paddr_cgroup_stats *paddr_cgroup_stats(const struct paddr *p, const char *path)
{
	int i = paddr_scheme_of(p, path);

	return i < 0 ? NULL : &p->c[i].s;
}

void paddr_log_summary(const struct paddr *p)
{
	char a[16], b[16], c[16], d[16];

	for (size_t pi = 0; pi < p->npol; pi++) {
		const struct paddr_policy *pp = &p->pol[pi];
		unsigned paused = 0;

		if (!pp->active)
			continue;
		for (size_t i = 0; i < p->nc; i++)
			paused += p->c[i].policy == pi && p->c[i].st.paused;
		log_msg(pp->s.last_applied ? LOG_INFO : LOG_DEBUG,
			"policy %s: %" PRIu64 " cgroups (%u paused%s), reclaimed %s by the kernel "
			"(total %s, memcg -%s), refaults %" PRIu64 ", quota exceeded %" PRIu64
			" times; %s tried",
			pp->name, pp->s.cgroups, paused, pp->s.refused ? ", some refused" : "",
			fmt_size(a, sizeof(a), pp->s.last_applied),
			fmt_size(b, sizeof(b), pp->s.applied_bytes_total),
			fmt_size(c, sizeof(c), pp->s.memcg_drop_bytes_total), pp->s.refaults_total,
			pp->s.qt_exceeds_total, fmt_size(d, sizeof(d), pp->s.tried_bytes_total));
	}
}
