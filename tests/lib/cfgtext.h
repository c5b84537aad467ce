/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cfgtext.h: a configuration from text, for the host tests and bench/host. cfgtext_load()
 * writes TOP/pageoutd.conf ("[daemon]" and the daemon lines) and TOP/conf.d/host.conf (the
 * policy, so the policy is named "host"), then loads them with cfg_load(). Each error is
 * printed as a TAP comment. Returns the configuration, or NULL. cfgtext_load_tmp() does the
 * same in a fresh directory under /tmp and removes what it wrote.
 */
#ifndef PAGEOUTD_TESTS_CFGTEXT_H
#define PAGEOUTD_TESTS_CFGTEXT_H

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "pageoutd/config.h"

static inline int cfgtext_put(const char *path, const char *head, const char *body)
{
	FILE *c = fopen(path, "w");

	if (!c)
		return -1;
	fputs(head, c);
	fputs(body, c);
	return fclose(c);
}

static inline struct cfg *cfgtext_load(const char *top, const char *daemon, const char *policy)
{
	struct cfg_errors errs = { 0 };
	struct cfg *cfg = NULL;
	char conf[PATH_MAX], dir[PATH_MAX], p[PATH_MAX + 16];

	snprintf(dir, sizeof(dir), "%s/conf.d", top);
	mkdir(dir, 0755);
	snprintf(conf, sizeof(conf), "%s/pageoutd.conf", top);
	snprintf(p, sizeof(p), "%s/host.conf", dir);
	if (cfgtext_put(conf, "[daemon]\n", daemon) < 0 || cfgtext_put(p, "", policy) < 0) {
		printf("# cannot write %s or %s\n", conf, p);
		return NULL;
	}
	if (cfg_load(conf, dir, true, &cfg, &errs) < 0)
		for (unsigned i = 0; i < errs.nr; i++)
			printf("# %s\n", errs.msgs[i]);
	cfg_errors_fini(&errs);
	return cfg;
}

/* cfgtext_remove: what cfgtext_load wrote under top, and top itself (emptied of it). */
static inline void cfgtext_remove(const char *top)
{
	char p[PATH_MAX + 32];

	snprintf(p, sizeof(p), "%s/conf.d/host.conf", top);
	remove(p);
	snprintf(p, sizeof(p), "%s/conf.d", top);
	remove(p);
	snprintf(p, sizeof(p), "%s/pageoutd.conf", top);
	remove(p);
	remove(top);
}

static inline struct cfg *cfgtext_load_tmp(const char *daemon, const char *policy)
{
	char top[] = "/tmp/pageoutd-cfgtext.XXXXXX";
	struct cfg *cfg;

	if (!mkdtemp(top))
		return NULL;
	cfg = cfgtext_load(top, daemon, policy);
	cfgtext_remove(top);
	return cfg;
}

/*
 * cfgtext_paddr_batch: a configuration with one paddr policy over the children of /batch
 * (min_age 30 s, max_access_rate 10%, pressure_limit 10%, quota 256M/1s with quota_time 20ms
 * unless extra sets a quota), plus the policy lines `extra`; 2 s cycles, 5 ms samples.
 */
static inline struct cfg *cfgtext_paddr_batch(const char *extra)
{
	char pol[512];

	snprintf(pol, sizeof(pol),
		 "[policy]\ncgroup = /batch/*\nengine = paddr\nmin_age = 30s\n"
		 "max_access_rate = 10%%\npressure_limit = 10%%\n%s%s",
		 strstr(extra, "quota") ? "" : "quota = 256M/1s\nquota_time = 20ms\n", extra);
	return cfgtext_load_tmp("interval = 2s\n[damon]\nsample_interval = 5ms\n"
				"aggr_interval = 100ms\n",
				pol);
}

#endif
