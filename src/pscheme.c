// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pscheme: the paddr engine's DAMON parameters from configuration and figures; see pscheme.h.
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pageoutd/pscheme.h"
#include "pageoutd/util.h"

int pscheme_ram_ranges(const char *iomem, struct damon_range *ret, unsigned max)
{
	struct damon_range all[64];
	unsigned n = 0;

	if (!max)
		return 0;
	for (const char *l = iomem; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		unsigned long long s, e;
		int used = 0;

		/* top level only: nested resources are indented */
		if (*l == ' ' || sscanf(l, "%llx-%llx : %n", &s, &e, &used) != 2 || !used)
			continue;
		if (strncmp(l + used, "System RAM", 10) || (l[used + 10] != '\n' && l[used + 10]))
			continue;
		if (e <= s || n == ARRAY_SIZE(all))
			continue;
		all[n].start = s;
		all[n].end = (uint64_t)e + 1; /* iomem ends are inclusive */
		n++;
	}
	if (!n)
		return iomem && strstr(iomem, "System RAM") ? 0 : -EINVAL;
	/* keep the `max` largest, then put them back in address order */
	for (unsigned i = 0; i < n; i++)
		for (unsigned j = i + 1; j < n; j++)
			if (all[j].end - all[j].start > all[i].end - all[i].start) {
				struct damon_range t = all[i];

				all[i] = all[j];
				all[j] = t;
			}
	n = n < max ? n : max;
	for (unsigned i = 0; i < n; i++)
		for (unsigned j = i + 1; j < n; j++)
			if (all[j].start < all[i].start) {
				struct damon_range t = all[i];

				all[i] = all[j];
				all[j] = t;
			}
	memcpy(ret, all, n * sizeof(*ret));
	return (int)n;
}

uint64_t pscheme_aggr_us(const struct cfg *cfg)
{
	uint64_t aggr = cfg->sampling[ENGINE_PADDR].aggr_us;

	return aggr ? aggr : 1; /* a divisor */
}

/*
 * The access pattern: access rate at most max_access_rate of the samples of an aggregation
 * interval. With an apply interval (6.7+) each scheme walks its regions once per min_age and
 * has no age gate: page by page, not region by region. DAMON resets the age of every region a
 * pageout scheme walks and applies a kdamond's schemes to each region in turn, so the first
 * scheme with an age gate would hide every idle region from the schemes after it; the
 * kernel's own young check decides for each page (touched since the walk before: it stays).
 * Before 6.7 the schemes run every aggregation interval and only a region's age tells how
 * long it has been idle.
 */
static void set_pattern(const struct cfg_policy *p, const struct damon_features *f, uint64_t aggr,
			uint64_t samples, uint64_t min_age_us, struct damon_scheme *s)
{
	damon_pattern_all(&s->pattern);
	s->pattern.nr_accesses_max = (uint32_t)((uint64_t)p->max_access_rate * samples / PPM_ONE);
	if (f->apply_interval) {
		s->pattern.age_min = 0;
		s->apply_interval_us = min_age_us > aggr ? min_age_us : aggr;
	} else {
		s->pattern.age_min = (uint32_t)((min_age_us + aggr - 1) / aggr);
	}
}

/*
 * The quotas: the policy's rate (quota per quota interval, quota_time likewise) over the
 * interval between two walks, which is also the reset interval, scaled by quota_scale and
 * split over share schemes; at least one page and 1 ms where set.
 *
 * No prioritisation: every region the access pattern admits scores the same, so that the
 * quota sweeps them in address order and DAMON resumes each interval where the last one ran
 * out of quota. Weights that favour age would rank free memory and other cgroups' cold memory
 * (the oldest regions of all) first, and DAMON charges the quota for them although the memcg
 * filter then rejects every page: the same foreign regions would take the quota every interval.
 */
static void set_quotas(const struct cfg_policy *p, double quota_scale, unsigned share,
		       struct damon_scheme *s)
{
	uint64_t ival = p->quota_interval_us ? p->quota_interval_us : USEC_PER_SEC;
	double per = s->apply_interval_us ? (double)s->apply_interval_us / (double)ival : 1.0;

	s->quota_reset_ms = (s->apply_interval_us ? s->apply_interval_us : ival) / USEC_PER_MSEC;
	if (p->quota_interval_us) {
		uint64_t b = (uint64_t)((double)p->quota_bytes * quota_scale * per) / share;

		s->quota_bytes = b < 4096 ? 4096 : b;
	}
	if (p->quota_time_us) {
		s->quota_ms = (uint64_t)((double)p->quota_time_us * per) / USEC_PER_MSEC / share;
		if (!s->quota_ms)
			s->quota_ms = 1;
	}
	s->weight_sz = 0;
	s->weight_nr_accesses = 0;
	s->weight_age = 0;
}

/*
 * A PSI goal only where the kernel has the temporal tuner (7.1+): the full quota while stall
 * time is below pressure_limit of the reset interval, none above it. The only tuner of 6.9 to
 * 7.0 (consist) starts at one byte, doubles each interval and starts again after every commit,
 * so a scheme committed each time a cgroup changes would reclaim next to nothing; there
 * pageoutd scales the quota from PSI itself, as before 6.9.
 */
static void set_goal(const struct cfg_policy *p, const struct damon_features *f,
		     struct damon_scheme *s)
{
	uint64_t t;

	if (!f->goal_metric || !f->goal_tuner || !p->pressure_limit)
		return;
	t = (uint64_t)p->pressure_limit * s->quota_reset_ms * USEC_PER_MSEC / PPM_ONE;
	s->nr_goals = 1;
	str_copy(s->goals[0].metric, sizeof(s->goals[0].metric), "some_mem_psi_us");
	s->goals[0].target_value = t ? t : 1;
	str_copy(s->goal_tuner, sizeof(s->goal_tuner), "temporal");
}

/*
 * 7.3: the bytes of a walked region that pageout fails on are charged 1/PSCHEME_FAIL_CHARGE_DENOM
 * of the bytes it reclaims. Those are other cgroups' pages and free memory (the memcg filter
 * rejects them), unevictable, pinned and young pages: each costs a folio lookup and a check,
 * not the unmap and the write of a page that goes. The byte quota then bounds what is
 * reclaimed, and the walk covers at most PSCHEME_FAIL_CHARGE_DENOM times the quota.
 */
static void set_fail_charge(const struct damon_features *f, struct damon_scheme *s)
{
	if (!f->fail_charge)
		return;
	s->fail_charge_num = 1;
	s->fail_charge_denom = PSCHEME_FAIL_CHARGE_DENOM;
}

/* min_free: the scheme is active while free memory is below it (per-mille); never off below. */
static void set_watermarks(const struct cfg_policy *p, const struct cfg *cfg,
			   struct damon_scheme *s)
{
	uint64_t pm = p->min_free / 1000;

	if (!p->min_free)
		return;
	s->wmark_free_mem_rate = true;
	s->wmark_interval_us = cfg->daemon.interval_us;
	s->wmark_high = s->wmark_mid = pm ? pm : 1;
	s->wmark_low = 0;
}

/*
 * The filters: every memcg but memcg, and anonymous or file pages when kinds holds one of
 * them. Every filter rejects what it matches (allow=N where the kernel has `allow`), so that
 * what no filter matches is allowed. That matters on 6.14+, where the first filter that
 * matches decides: DAMON's paddr pageout appends its implicit young filter (reject pages
 * accessed since DAMON last looked: the kernel's re-check) after the scheme's own, and an
 * allow filter before it would decide first and switch the re-check off.
 */
static void set_filters(const char *memcg, unsigned kinds, struct damon_scheme *s)
{
	struct damon_filter *fl = &s->filters[s->nr_filters++];

	fl->type = DAMON_FILTER_MEMCG;
	fl->matching = false; /* every other memcg */
	fl->allow = false;
	str_copy(fl->memcg_path, sizeof(fl->memcg_path), memcg);
	if (kinds == MEMORY_ANON || kinds == MEMORY_FILE) {
		fl = &s->filters[s->nr_filters++];
		fl->type = DAMON_FILTER_ANON;
		fl->matching = kinds == MEMORY_FILE; /* anon when only file may go */
		fl->allow = false;
	}
}

void pscheme_build(const struct cfg_policy *p, const struct cfg *cfg,
		   const struct damon_features *f, const char *memcg, uint64_t min_age_us,
		   double quota_scale, unsigned share, unsigned kinds, bool paused,
		   struct damon_scheme *s)
{
	uint64_t aggr = pscheme_aggr_us(cfg);
	uint64_t sample = cfg->sampling[ENGINE_PADDR].sample_us;
	uint64_t samples = sample ? aggr / sample : 1;

	memset(s, 0, sizeof(*s));
	kinds &= p->memory;
	str_copy(s->action, sizeof(s->action), paused || !kinds ? "stat" : "pageout");
	set_pattern(p, f, aggr, samples, min_age_us, s);
	set_quotas(p, quota_scale, share ? share : 1, s);
	set_goal(p, f, s);
	set_fail_charge(f, s);
	set_watermarks(p, cfg, s);
	set_filters(memcg, kinds, s);
}

unsigned pscheme_walk_scale(uint64_t ram_bytes, uint64_t resident)
{
	unsigned k = 1;

	while (k < PSCHEME_WALK_SCALE_MAX && resident && (uint64_t)k * 2 * resident <= ram_bytes)
		k *= 2;
	return k;
}

const char *pscheme_usage_name(enum pscheme_usage_by u)
{
	switch (u) {
	case PSCHEME_USAGE_KERNEL:
		return "kernel";
	case PSCHEME_USAGE_PAGEOUTD:
		return "pageoutd";
	case PSCHEME_USAGE_NONE:
	default:
		return "none";
	}
}

unsigned pscheme_mem_nodes(const char *zoneinfo, int *first)
{
	unsigned long long seen[16] = { 0 }; /* bit n of word n / 64: node n has memory */
	unsigned n = 0;
	int node = -1;

	*first = -1;
	for (const char *l = zoneinfo; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		unsigned long long managed;
		int nid;

		if (sscanf(l, "Node %d, zone", &nid) == 1) {
			node = nid >= 0 && nid < 1024 ? nid : -1;
			continue;
		}
		if (node < 0 || sscanf(l, " managed %llu", &managed) != 1 || !managed)
			continue;
		if (seen[node / 64] & (1ull << (node % 64)))
			continue;
		seen[node / 64] |= 1ull << (node % 64);
		n++;
		if (*first < 0 || node < *first)
			*first = node;
	}
	return n;
}

enum pscheme_usage_by pscheme_usage_by(const struct cfg_policy *p, const struct damon_features *f,
				       unsigned mem_nodes)
{
	if (!p->max_usage)
		return PSCHEME_USAGE_NONE;
	if (f->goal_memcg && f->goal_tuner && mem_nodes == 1)
		return PSCHEME_USAGE_KERNEL;
	return PSCHEME_USAGE_PAGEOUTD;
}

void pscheme_usage_goal(const struct cfg_policy *p, const char *memcg, int nid,
			struct damon_scheme *s)
{
	struct damon_goal *g;
	uint64_t bp = p->max_usage / 100; /* ppm to basis points */

	if (!p->max_usage || s->nr_goals >= ARRAY_SIZE(s->goals))
		return;
	g = &s->goals[s->nr_goals++];
	memset(g, 0, sizeof(*g));
	str_copy(g->metric, sizeof(g->metric), "node_memcg_free_bp");
	/* the kernel ignores a goal whose target is 0 */
	g->target_value = bp < 10000 ? 10000 - bp : 1;
	g->nid = nid;
	str_copy(g->path, sizeof(g->path), memcg);
	str_copy(s->goal_tuner, sizeof(s->goal_tuner), "temporal");
}

uint64_t pscheme_usage_target(const struct cfg_policy *p, uint64_t mem_total)
{
	return (uint64_t)((double)mem_total * (double)p->max_usage / PPM_ONE);
}

uint64_t pscheme_usage_cap(uint64_t resident, uint64_t target)
{
	uint64_t over = resident > target ? resident - target : 0, cap = PSCHEME_USAGE_CAP_MIN;

	while (cap <= over / 2)
		cap *= 2;
	return cap;
}
