// SPDX-License-Identifier: GPL-2.0-or-later
/* sampling: each engine's DAMON intervals from its policies (sampling.h). */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "pageoutd/sampling.h"
#include "pageoutd/util.h"

#define PPM_ONE 1000000u

/*
 * Samples per aggregation of engine e: base, or more where a vaddr policy's access rate needs
 * them to count one access (1 / rate, up to SAMPLING_PER_AGGR_MAX): a rate that is less than
 * one access of an aggregation would count none.
 */
static uint64_t samples_per_aggr(const struct cfg *cfg, enum cfg_engine e, uint64_t base)
{
	uint64_t n = base;

	for (unsigned i = 0; e == ENGINE_VADDR && i < cfg->nr_policies; i++) {
		const struct cfg_policy *p = &cfg->policies[i];
		uint64_t need;

		if (p->engine != e || !p->max_access_rate)
			continue;
		need = (PPM_ONE + p->max_access_rate - 1) / p->max_access_rate;
		need = need < SAMPLING_PER_AGGR_MAX ? need : SAMPLING_PER_AGGR_MAX;
		n = need > n ? need : n;
	}
	return n;
}

static void derive(const struct cfg *cfg, enum cfg_engine e, struct cfg_sampling *s)
{
	const struct cfg_damon *m = &cfg->damon;
	bool paddr = e == ENGINE_PADDR;
	uint64_t n = samples_per_aggr(cfg, e, paddr ? SAMPLING_PADDR_PER_AGGR : SAMPLING_PER_AGGR);
	uint64_t cycle = cfg->daemon.interval_us;

	/* a vaddr snapshot waits for the next aggregation: a quarter of the cycle at most */
	if (e == ENGINE_VADDR)
		cycle /= SAMPLING_VADDR_AGGRS_PER_CYCLE;

	memset(s, 0, sizeof(*s));
	for (unsigned i = 0; i < cfg->nr_policies; i++) {
		const struct cfg_policy *p = &cfg->policies[i];

		if (p->engine == e && p->min_age_us &&
		    (!s->min_age_us || p->min_age_us < s->min_age_us)) {
			s->min_age_us = p->min_age_us;
			str_copy(s->policy, sizeof(s->policy), p->name);
		}
	}
	s->configured = m->sample_set || m->aggr_set;
	if (m->sample_set && m->aggr_set) {
		s->sample_us = m->sample_us;
		s->aggr_us = m->aggr_us;
	} else if (m->sample_set) {
		s->sample_us = m->sample_us;
		s->aggr_us = m->sample_us * n;
	} else if (m->aggr_set) {
		s->aggr_us = m->aggr_us;
		s->sample_us = m->aggr_us / n ? m->aggr_us / n : 1;
	} else {
		s->sample_us = s->min_age_us / SAMPLING_PER_MIN_AGE;
		if (s->sample_us < SAMPLING_MIN_SAMPLE_US)
			s->sample_us = SAMPLING_MIN_SAMPLE_US;
		s->aggr_us = s->sample_us * n;
		if (cycle && s->aggr_us > cycle) {
			/*
			 * The ceiling binds: fewer samples per aggregation, down to a count that
			 * tells no access from some (vaddr) or what the access rates or a steady
			 * paddr count need, before samples come more often, never more often than
			 * 5 ms
			 */
			uint64_t least = samples_per_aggr(
				cfg, e, paddr ? SAMPLING_PADDR_PER_AGGR : SAMPLING_PER_AGGR_LEAST);

			s->aggr_us = cycle;
			if (s->sample_us * least > cycle)
				s->sample_us = cycle / least;
			/* a cycle is at least 100 ms (config.c): a vaddr ceiling of 25 ms */
			if (s->sample_us < SAMPLING_MIN_SAMPLE_US)
				s->sample_us = SAMPLING_MIN_SAMPLE_US;
		}
		s->tune_max_sample_us =
			s->sample_us * SAMPLING_TUNE_SPAN_NUM / SAMPLING_TUNE_SPAN_DEN;
		/* the tuner keeps the samples per aggregation: the aggregation under the ceiling */
		if (cycle && s->tune_max_sample_us * (s->aggr_us / s->sample_us) > cycle)
			s->tune_max_sample_us = cycle / (s->aggr_us / s->sample_us);
		if (s->tune_max_sample_us <= s->sample_us)
			s->tune_max_sample_us = 0;
	}
	/* a paddr region sampled fewer times per aggregation jumps between intervals (pscheme.h) */
	if (e == ENGINE_PADDR && s->aggr_us < SAMPLING_PADDR_PER_AGGR * s->sample_us)
		s->aggr_us = SAMPLING_PADDR_PER_AGGR * s->sample_us;
	if (s->aggr_us < s->sample_us)
		s->aggr_us = s->sample_us;
}

void sampling_derive(struct cfg *cfg)
{
	derive(cfg, ENGINE_VADDR, &cfg->sampling[ENGINE_VADDR]);
	derive(cfg, ENGINE_PADDR, &cfg->sampling[ENGINE_PADDR]);
}

const char *sampling_describe(const struct cfg_sampling *s, char *buf, size_t len)
{
	char a[32], b[32], c[32], d[32], e[32];

	fmt_duration(a, sizeof(a), s->sample_us);
	fmt_duration(b, sizeof(b), s->aggr_us);
	if (s->configured)
		snprintf(buf, len, "sample %s, aggregation %s (set in [damon])", a, b);
	else if (!s->min_age_us)
		snprintf(buf, len, "sample %s, aggregation %s (no policy)", a, b);
	else if (s->tune_max_sample_us)
		snprintf(
			buf, len,
			"sample %s, aggregation %s (from min_age %s of policy %s; where the kernel "
			"tunes intervals, up to %s, %s)",
			a, b, fmt_duration(c, sizeof(c), s->min_age_us), s->policy,
			fmt_duration(d, sizeof(d), s->tune_max_sample_us),
			fmt_duration(e, sizeof(e),
				     s->tune_max_sample_us * (s->aggr_us / s->sample_us)));
	else
		snprintf(buf, len, "sample %s, aggregation %s (from min_age %s of policy %s)", a, b,
			 fmt_duration(c, sizeof(c), s->min_age_us), s->policy);
	return buf;
}
