// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sampling: the DAMON intervals each engine's kdamond is given, derived from the policies'
 * shortest min_age and access rates (sampling.h) or set in [damon], as cfg_load leaves them.
 * No DAMON tree.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pageoutd/config.h"
#include "pageoutd/log.h"
#include "pageoutd/sampling.h"
#include "../lib/cfgtext.h"
#include "../lib/tap.h"

#define MS 1000ull

/* one policy "host" of engine eng with min_age age (and extra lines), daemon lines d */
static struct cfg *one(const char *d, const char *eng, const char *age, const char *extra)
{
	char pol[512];

	snprintf(pol, sizeof(pol), "[policy]\ncgroup = /batch\nengine = %s\nmin_age = %s\n%s", eng,
		 age, extra);
	return cfgtext_load_tmp(d, pol);
}

static void check(const char *what, struct cfg *cfg, enum cfg_engine e, uint64_t sample,
		  uint64_t aggr, uint64_t tune)
{
	const struct cfg_sampling *s = cfg ? &cfg->sampling[e] : NULL;

	ok(s && s->sample_us == sample && s->aggr_us == aggr && s->tune_max_sample_us == tune,
	   "%s: sample %llu, aggr %llu, tuner up to %llu µs (got %llu, %llu, %llu)", what,
	   (unsigned long long)sample, (unsigned long long)aggr, (unsigned long long)tune,
	   s ? (unsigned long long)s->sample_us : 0, s ? (unsigned long long)s->aggr_us : 0,
	   s ? (unsigned long long)s->tune_max_sample_us : 0);
	cfg_free(cfg);
}

static void derived(void)
{
	const char *d = "interval = 5s\n";

	/*
	 * 1000 samples per min_age, 20 per aggregation; the tuner up to 5/2 of the sample, but
	 * the aggregation no longer than a quarter of the cycle
	 */
	check("vaddr 30s", one(d, "vaddr", "30s", ""), ENGINE_VADDR, 30 * MS, 600 * MS, 62500);
	/* DAMON's own 5 ms is the floor */
	check("vaddr 3s", one(d, "vaddr", "3s", ""), ENGINE_VADDR, 5 * MS, 100 * MS, 12500);
	/*
	 * a vaddr aggregation is at most a quarter of the cycle: then it holds fewer samples (10),
	 * and the tuner has room up to where it would be longer
	 */
	check("vaddr 2m", one(d, "vaddr", "2m", ""), ENGINE_VADDR, 120 * MS, 1250 * MS, 125 * MS);
	/* paddr: 50 samples per aggregation, at most the cycle */
	check("paddr 30s", one(d, "paddr", "30s", ""), ENGINE_PADDR, 30 * MS, 1500 * MS, 75 * MS);
	check("paddr 2m", one(d, "paddr", "2m", ""), ENGINE_PADDR, 100 * MS, 5000 * MS, 0);
	/* an access rate of 1% needs 100 samples per aggregation to count one access */
	check("vaddr 30s, 1%", one(d, "vaddr", "30s", "max_access_rate = 1%\n"), ENGINE_VADDR,
	      12500, 1250 * MS, 0);
	check("vaddr 10s, 5%", one(d, "vaddr", "10s", "max_access_rate = 5%\n"), ENGINE_VADDR,
	      10 * MS, 200 * MS, 25 * MS);
	/* a longer cycle leaves the paddr aggregation longer */
	check("paddr 2m, 20s cycles", one("interval = 20s\n", "paddr", "2m", ""), ENGINE_PADDR,
	      120 * MS, 6000 * MS, 300 * MS);
	/* a short cycle: 5 samples per aggregation at least, then samples more often */
	check("vaddr 30s, 200ms cycles", one("interval = 200ms\n", "vaddr", "30s", ""),
	      ENGINE_VADDR, 10 * MS, 50 * MS, 0);
	/* an engine without policies keeps DAMON's defaults */
	check("no paddr policy", one(d, "vaddr", "30s", ""), ENGINE_PADDR, 5 * MS, 250 * MS, 12500);
}

static void configured(void)
{
	struct cfg *cfg;
	char buf[256];

	check("sample_interval set",
	      one("interval = 5s\n[damon]\nsample_interval = 10ms\n", "vaddr", "2m", ""),
	      ENGINE_VADDR, 10 * MS, 200 * MS, 0);
	check("aggr_interval set",
	      one("interval = 5s\n[damon]\naggr_interval = 1s\n", "vaddr", "2m", ""), ENGINE_VADDR,
	      50 * MS, 1000 * MS, 0);
	check("both set",
	      one("[damon]\nsample_interval = 5ms\naggr_interval = 100ms\n", "vaddr", "2m", ""),
	      ENGINE_VADDR, 5 * MS, 100 * MS, 0);
	/* a paddr aggregation keeps its 50 samples even when set shorter */
	check("paddr, both set",
	      one("[damon]\nsample_interval = 5ms\naggr_interval = 100ms\n", "paddr", "2m", ""),
	      ENGINE_PADDR, 5 * MS, 250 * MS, 0);
	cfg = one("[damon]\nsample_interval = 5ms\n", "vaddr", "2m", "");
	ok(cfg && cfg->sampling[ENGINE_VADDR].configured, "set in [damon]: configured");
	sampling_describe(&cfg->sampling[ENGINE_VADDR], buf, sizeof(buf));
	is_str(buf, "sample 5ms, aggregation 100ms (set in [damon])", "said as set in [damon]");
	cfg_free(cfg);
	cfg = one("interval = 5s\n", "vaddr", "30s", "");
	sampling_describe(&cfg->sampling[ENGINE_VADDR], buf, sizeof(buf));
	is_str(buf,
	       "sample 30ms, aggregation 600ms (from min_age 30s of policy host; where the kernel "
	       "tunes intervals, up to 62500us, 1250ms)",
	       "said with the policy it is from and the tuner's range");
	cfg_free(cfg);
}

/* the shortest min_age of the engine's policies decides, whichever file it is in */
static void shortest(void)
{
	char top[] = "/tmp/pageoutd-sampling.XXXXXX", p[PATH_MAX + 32];
	struct cfg *cfg;

	if (!mkdtemp(top))
		return;
	snprintf(p, sizeof(p), "%s/conf.d", top);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/conf.d/fast.conf", top);
	cfgtext_put(p, "", "[policy]\ncgroup = /fast\nengine = vaddr\nmin_age = 10s\n");
	cfg = cfgtext_load(top, "interval = 5s\n",
			   "[policy]\ncgroup = /slow\nengine = vaddr\nmin_age = 2m\n");
	ok(cfg && cfg->sampling[ENGINE_VADDR].min_age_us == 10000000 &&
		   !strcmp(cfg->sampling[ENGINE_VADDR].policy, "fast"),
	   "two vaddr policies: the shorter min_age (10s, policy fast)");
	check("two vaddr policies", cfg, ENGINE_VADDR, 10 * MS, 200 * MS, 25 * MS);
	remove(p);
	cfgtext_remove(top);
}

int main(void)
{
	log_setup(LOG_TARGET_STDERR, LOG_CRIT);
	derived();
	configured();
	shortest();
	return tap_exit();
}
