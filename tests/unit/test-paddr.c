// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The paddr schemes as written to the emulated 6.12 tree (filters/, every filter excludes) and
 * 7.2 tree (ops_filters/ with allow). The schemes themselves are tested in test-pscheme.c.
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pageoutd/config.h"
#include "pageoutd/damon.h"
#include "pageoutd/log.h"
#include "pageoutd/pscheme.h"
#include "pageoutd/util.h"
#include "../lib/cfgtext.h"
#include "../lib/fakedamon.h"
#include "../lib/tap.h"

#define MIB (1024ull * 1024)

/* The tree as the kernel's sysfs would hold it after pageoutd wrote a policy's schemes. */
static void tree(enum fake_abi abi)
{
	const char *a = abi == FAKE_ABI_612 ? "6.12" : "7.2";
	struct fakedamon *fk = fake_new(abi);
	struct damon_io io = fake_io(fk);
	struct cfg *cfg = cfgtext_paddr_batch("memory = file\n");
	struct damon_scheme s[2];
	struct damon_target t = { .nr_regions = 1, .regions = { { 0x100000, 0x40000000 } } };
	struct damon_ctx c = { .ops = "paddr",
			       .sample_us = 5000,
			       .aggr_us = 100000,
			       .update_us = 1000000,
			       .min_regions = 10,
			       .max_regions = 1000,
			       .nr_targets = 1,
			       .targets = &t,
			       .nr_schemes = 2,
			       .schemes = s };
	struct damon d;
	const char *fd = abi == FAKE_ABI_612 ? "filters" : "ops_filters";
	char p[256];

	if (!cfg) {
		ok(0, "%s: config", a);
		fake_free(fk);
		return;
	}
	is_int(damon_open(&d, fk->admin, fk->state_dir, &io), 0, "%s: open", a);
	is_int(damon_acquire(&d), 0, "%s: acquire", a);
	pscheme_build(&cfg->policies[0], cfg, &d.feat, "/batch/a", 30000000, 1.0, 2,
		      MEMORY_ANON | MEMORY_FILE, false, &s[0]);
	pscheme_build(&cfg->policies[0], cfg, &d.feat, "/batch/b", 30000000, 1.0, 2,
		      MEMORY_ANON | MEMORY_FILE, false, &s[1]);
	is_int(damon_write_ctx(&d, DAMON_SLOT_PADDR, &c), 0, "%s: the paddr context is written", a);
	is_int(damon_start(&d, DAMON_SLOT_PADDR), 0, "%s: and started", a);
#define K "kdamonds/1/contexts/0/"
	is_str(fake_get(fk, K "operations"), "paddr", "%s: operations paddr", a);
	is_str(fake_get(fk, K "targets/0/regions/0/start"), "1048576", "%s: region start", a);
	is_str(fake_get(fk, K "targets/0/regions/0/end"), "1073741824", "%s: region end", a);
	is_str(fake_get(fk, K "schemes/nr_schemes"), "2", "%s: one scheme per cgroup", a);
	is_str(fake_get(fk, K "schemes/1/action"), "pageout", "%s: action", a);
	is_str(fake_get(fk, K "schemes/1/access_pattern/age/min"), "0", "%s: no age gate", a);
	is_str(fake_get(fk, K "schemes/1/apply_interval_us"), "30000000",
	       "%s: walked once per min_age (30 s)", a);
	is_str(fake_get(fk, K "schemes/1/access_pattern/nr_accesses/max"), "5",
	       "%s: nr_accesses max", a);
	is_str(fake_get(fk, K "schemes/1/quotas/bytes"), "4026531840",
	       "%s: quota bytes (128 MiB/s for 30 s)", a);
	is_str(fake_get(fk, K "schemes/1/quotas/reset_interval_ms"), "30000", "%s: reset", a);
	is_str(fake_get(fk, K "schemes/1/quotas/ms"), "300", "%s: quota ms (10 ms/s for 30 s)", a);
	is_str(fake_get(fk, K "schemes/1/quotas/weights/age_permil"), "0", "%s: age weight", a);
	if (abi == FAKE_ABI_72) {
		is_str(fake_get(fk, K "schemes/1/quotas/goals/nr_goals"), "1", "%s: one goal", a);
		is_str(fake_get(fk, K "schemes/1/quotas/goals/0/target_metric"), "some_mem_psi_us",
		       "%s: PSI goal metric", a);
		is_str(fake_get(fk, K "schemes/1/quotas/goals/0/target_value"), "3000000",
		       "%s: PSI goal value (10%% of the 30 s reset interval)", a);
	} else {
		is_str(fake_get(fk, K "schemes/1/quotas/goals/nr_goals"), "0",
		       "%s: no goal without the temporal tuner", a);
	}
	is_str(fake_get(fk, K "schemes/1/watermarks/metric"), "none", "%s: no watermarks", a);
	if (abi == FAKE_ABI_72)
		is_str(fake_get(fk, K "schemes/1/quotas/goal_tuner"), "temporal",
		       "7.2: goal_tuner temporal");
	snprintf(p, sizeof(p), K "schemes/1/%s/nr_filters", fd);
	is_str(fake_get(fk, p), "2", "%s: %s has the memcg and the anon filter", a, fd);
	if (abi == FAKE_ABI_612) {
		is_str(fake_get(fk, K "schemes/1/filters/0/type"), "memcg", "6.12: memcg first");
		is_str(fake_get(fk, K "schemes/1/filters/0/matching"), "N",
		       "6.12: excluding what is not the memcg");
		is_str(fake_get(fk, K "schemes/1/filters/0/memcg_path"), "/batch/b",
		       "6.12: memcg_path");
		is_str(fake_get(fk, K "schemes/1/filters/1/type"), "anon", "6.12: anon second");
		is_str(fake_get(fk, K "schemes/1/filters/1/matching"), "Y",
		       "6.12: excluding anon (memory = file)");
	} else {
		is_str(fake_get(fk, K "schemes/1/core_filters/nr_filters"), "0",
		       "7.2: no core filters");
		is_str(fake_get(fk, K "schemes/1/ops_filters/0/type"), "memcg", "7.2: memcg first");
		is_str(fake_get(fk, K "schemes/1/ops_filters/0/matching"), "N",
		       "7.2: matching every other memcg");
		is_str(fake_get(fk, K "schemes/1/ops_filters/0/allow"), "N", "7.2: rejected");
		is_str(fake_get(fk, K "schemes/1/ops_filters/0/memcg_path"), "/batch/b",
		       "7.2: memcg_path");
		is_str(fake_get(fk, K "schemes/1/ops_filters/1/type"), "anon", "7.2: anon second");
		is_str(fake_get(fk, K "schemes/1/ops_filters/1/matching"), "Y",
		       "7.2: matching anon (memory = file)");
		is_str(fake_get(fk, K "schemes/1/ops_filters/1/allow"), "N", "7.2: rejected too");
	}
#undef K
	is_int(damon_release(&d), 0, "%s: release", a);
	damon_close(&d);
	cfg_free(cfg);
	fake_free(fk);
}

/* max_usage's per-cgroup goal: its node and path written where the tree has them, else refused */
static void usage_goal(enum fake_abi abi)
{
	const char *a = abi == FAKE_ABI_612 ? "6.12" : "7.2";
	struct fakedamon *fk = fake_new(abi);
	struct damon_io io = fake_io(fk);
	struct cfg *cfg = cfgtext_paddr_batch("max_usage = 25%\n");
	struct damon_scheme s;
	struct damon_target t = { .nr_regions = 1, .regions = { { 0x100000, 0x40000000 } } };
	struct damon_ctx c = { .ops = "paddr",
			       .sample_us = 5000,
			       .aggr_us = 100000,
			       .update_us = 1000000,
			       .min_regions = 10,
			       .max_regions = 1000,
			       .nr_targets = 1,
			       .targets = &t,
			       .nr_schemes = 1,
			       .schemes = &s };
	struct damon d;

	if (!cfg) {
		ok(0, "%s: config", a);
		fake_free(fk);
		return;
	}
	is_int(damon_open(&d, fk->admin, fk->state_dir, &io), 0, "%s: open", a);
	is_int(damon_acquire(&d), 0, "%s: acquire", a);
	is_int(d.feat.goal_memcg, abi == FAKE_ABI_72, "%s: per-cgroup goals detected", a);
	pscheme_build(&cfg->policies[0], cfg, &d.feat, "/batch/a", 30000000, 1.0, 1,
		      MEMORY_ANON | MEMORY_FILE, false, &s);
	pscheme_usage_goal(&cfg->policies[0], "/batch/a", 0, &s);
	if (abi == FAKE_ABI_612) {
		is_int(damon_write_ctx(&d, DAMON_SLOT_PADDR, &c), -EOPNOTSUPP,
		       "6.12: a per-cgroup goal is refused, naming the kernel it needs");
		ok(strstr(d.err, "6.19") != NULL, "6.12: %s", d.err);
	} else {
#define G "kdamonds/1/contexts/0/schemes/0/quotas/goals/"
		is_int(damon_write_ctx(&d, DAMON_SLOT_PADDR, &c), 0, "7.2: written");
		is_str(fake_get(fk, G "nr_goals"), "2", "7.2: the PSI goal and the usage goal");
		is_str(fake_get(fk, G "1/target_metric"), "node_memcg_free_bp",
		       "7.2: node_memcg_free_bp");
		is_str(fake_get(fk, G "1/target_value"), "7500", "7.2: at 75%% (100%% - 25%%)");
		is_str(fake_get(fk, G "1/nid"), "0", "7.2: node 0");
		is_str(fake_get(fk, G "1/path"), "/batch/a", "7.2: the cgroup's path");
		is_str(fake_get(fk, G "0/path"), "", "7.2: the PSI goal has no path");
#undef G
	}
	is_int(damon_release(&d), 0, "%s: release", a);
	damon_close(&d);
	cfg_free(cfg);
	fake_free(fk);
}

int main(void)
{
	log_setup(LOG_TARGET_STDERR, LOG_WARNING);
	tree(FAKE_ABI_612);
	tree(FAKE_ABI_72);
	usage_goal(FAKE_ABI_612);
	usage_goal(FAKE_ABI_72);
	return tap_exit();
}
