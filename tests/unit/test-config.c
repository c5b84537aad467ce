// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * config: good and bad files, each bad one asserting the exact file:line and key. Every case
 * writes a main file and up to two drop-ins into a fresh temporary directory.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pageoutd/config.h"
#include "pageoutd/log.h"
#include "pageoutd/util.h"
#include "../lib/tap.h"

struct tcase {
	const char *name;
	const char *main;
	const char *f1, *c1; /* drop-in file name and content */
	const char *f2, *c2;
	const char *want; /* NULL: valid; else "FILE:LINE: KEY: " relative to the temp dir */
	int nerr;	  /* expected number of errors (0: do not check) */
};

#define POL "[policy]\ncgroup = /a\n"
#define BOM "\xef\xbb\xbf" /* U+FEFF, the byte order mark, in UTF-8 */

static const struct tcase cases[] = {
	/* valid */
	{ "empty main, no drop-ins", "", NULL, NULL, NULL, NULL, NULL, 0 },
	{ "full daemon and damon sections",
	  "[daemon]\ninterval = 5s\nsocket = /run/p/p.sock\nstate_dir = /run/p\nlog_level = debug\n"
	  "dry_run = yes\nreference_semantics = ignore\nconfirm_snapshots = 1\nproc_root = /proc\n"
	  "socket_group = adm\n"
	  "[damon]\nsysfs_root = /tmp/x\nsample_interval = 5ms\naggr_interval = 100ms\n"
	  "update_interval = 1s\nmin_regions = 10\nmax_regions = 1000\nrelease_modules = yes\n",
	  NULL, NULL, NULL, NULL, NULL, 0 },
	{ "full vaddr policy", "", "batch.conf",
	  "[policy]\ncgroup = /batch.slice\nengine = vaddr\nmin_age = 30s\n"
	  "max_access_rate = 0%\nmemory = anon,file\nquota = 256M/1s\n"
	  "pressure_limit = 10%\nmin_free = 0%\nswap_reserve = 20%\nmax_refault_rate = 0.2%\n"
	  "frozen_only = no\n",
	  NULL, NULL, NULL, 0 },
	{ "full paddr policy", "", "vms.conf",
	  "[policy]\ncgroup = /machine.slice/*\nengine = paddr\nmin_age = 2m\n"
	  "max_access_rate = 50%\nmemory = anon,file\nquota = 128M/1s\nquota_time = 10ms\n"
	  "pressure_limit = 5%\nmin_free = 0%\nswap_reserve = 10%\nmax_refault_rate = 0.5%\n",
	  NULL, NULL, NULL, 0 },
	{ "quota_time before engine = paddr", "", "a.conf",
	  POL "quota_time = 20ms\nengine = paddr\n", NULL, NULL, NULL, 0 },
	{ "max_usage and none", "", "a.conf", POL "engine = paddr\nmax_usage = 30%\n", "b.conf",
	  "[policy]\ncgroup = /b\nengine = paddr\nmax_usage = none\n", NULL, 0 },
	{ "engine = both with keys of either engine", "", "db.conf",
	  POL "engine = both\nmax_usage = 30%\nquota_time = 10ms\nlearn = no\n", NULL, NULL, NULL,
	  0 },
	{ "engine = both beside another policy's cgroup", "", "a.conf", POL "engine = both\n",
	  "b.conf", "[policy]\ncgroup = /b\nengine = both\n", NULL, 0 },
	{ "comments, inline comments and indentation",
	  "# top\n; semi\n[daemon]\n  interval = 2s   # two\n\tlog_level = info ; inline\n", NULL,
	  NULL, NULL, NULL, NULL, 0 },
	{ "glob policy and paddr", "", "apps.conf",
	  "[policy]\ncgroup = /apps/uid_*\nengine = paddr\nquota = none\n", NULL, NULL, NULL, 0 },
	{ "two disjoint policies", "", "a.conf", POL, "b.conf", "[policy]\ncgroup = /b\n", NULL,
	  0 },
	{ "sibling with common prefix is not an ancestor", "", "a.conf", POL, "b.conf",
	  "[policy]\ncgroup = /ab\n", NULL, 0 },
	{ "two different globs", "", "a.conf", "[policy]\ncgroup = /x/*\n", "b.conf",
	  "[policy]\ncgroup = /y/*\n", NULL, 0 },
	{ "non-.conf files are ignored", "", "README", "garbage", "a.conf", POL, NULL, 0 },
	{ "memory = anon only", "", "a.conf", POL "memory = anon\n", NULL, NULL, NULL, 0 },
	{ "frozen_only on vaddr", "", "a.conf", POL "frozen_only = yes\n", NULL, NULL, NULL, 0 },
	{ "frozen_only on paddr", "", "a.conf", POL "engine = paddr\nfrozen_only = yes\n", NULL,
	  NULL, NULL, 0 },
	{ "frozen_only = no before engine = paddr", "", "a.conf",
	  POL "frozen_only = no\nengine = paddr\n", NULL, NULL, NULL, 0 },

	/* a UTF-8 byte order mark: skipped at the start of a file, an error anywhere else */
	{ "byte order mark before [daemon]", BOM "[daemon]\ninterval = 2s\n", NULL, NULL, NULL,
	  NULL, NULL, 0 },
	{ "byte order mark before a comment", BOM "# pageoutd\n[daemon]\n", "a.conf", BOM POL, NULL,
	  NULL, NULL, 0 },
	{ "byte order mark on line 2", "[daemon]\n" BOM "interval = 2s\n", NULL, NULL, NULL, NULL,
	  "pageoutd.conf:2: line: a UTF-8 byte order mark belongs only at the start of a file", 1 },
	{ "byte order mark in a value", "", "a.conf", POL "memory = anon" BOM "\n", NULL, NULL,
	  "conf.d/a.conf:3: line: a UTF-8 byte order mark belongs only at the start of a file", 1 },
	{ "two byte order marks", BOM BOM "[daemon]\n", NULL, NULL, NULL, NULL,
	  "pageoutd.conf:1: line: a UTF-8 byte order mark belongs only at the start of a file", 1 },

	/* syntax and structure */
	{ "unknown section", "[daemon]\n[nope]\ninterval = 1s\n", NULL, NULL, NULL, NULL,
	  "pageoutd.conf:2: nope: ", 1 },
	{ "unknown key in [daemon]", "[daemon]\ninterval = 1s\nfoo = 1\n", NULL, NULL, NULL, NULL,
	  "pageoutd.conf:3: foo: ", 1 },
	{ "unknown key in [damon]", "[damon]\n\nregions = 4\n", NULL, NULL, NULL, NULL,
	  "pageoutd.conf:3: regions: ", 1 },
	{ "unknown key in [policy]", "", "a.conf", POL "min_ag = 30s\n", NULL, NULL,
	  "conf.d/a.conf:3: min_ag: ", 1 },
	{ "duplicate key", "[daemon]\ninterval = 1s\nlog_level = info\ninterval = 2s\n", NULL, NULL,
	  NULL, NULL, "pageoutd.conf:4: interval: ", 1 },
	{ "duplicate key in policy", "", "a.conf", POL "engine = vaddr\nengine = paddr\n", NULL,
	  NULL, "conf.d/a.conf:4: engine: ", 1 },
	{ "key outside section", "interval = 1s\n", NULL, NULL, NULL, NULL,
	  "pageoutd.conf:1: interval: ", 1 },
	{ "line without =", "[daemon]\ninterval 5s\n", NULL, NULL, NULL, NULL,
	  "pageoutd.conf:2: interval 5s: ", 1 },
	{ "colon separator refused", "[daemon]\ninterval: 5s\n", NULL, NULL, NULL, NULL,
	  "pageoutd.conf:2: interval: 5s: ", 1 },
	{ "malformed header", "[daemon\ninterval = 1s\n", NULL, NULL, NULL, NULL,
	  "pageoutd.conf:1: [daemon: ", 0 },
	{ "[policy] in main file", "[policy]\ncgroup = /a\n", NULL, NULL, NULL, NULL,
	  "pageoutd.conf:1: policy: ", 1 },
	{ "[daemon] in a drop-in", "", "a.conf", "[daemon]\ninterval = 1s\n" POL, NULL, NULL,
	  "conf.d/a.conf:1: daemon: ", 1 },
	{ "two [policy] in a drop-in", "", "a.conf", POL "[policy]\ncgroup = /b\n", NULL, NULL,
	  "conf.d/a.conf:3: policy: ", 1 },
	{ "drop-in without [policy]", "", "a.conf", "# nothing\n", NULL, NULL,
	  "conf.d/a.conf:1: [policy]: ", 1 },
	{ "missing cgroup", "", "a.conf", "# c\n[policy]\nengine = vaddr\n", NULL, NULL,
	  "conf.d/a.conf:2: cgroup: ", 1 },
	{ "empty value", "", "a.conf", POL "engine =\n", NULL, NULL,
	  "conf.d/a.conf:3: engine: ", 1 },
	{ "bad policy name from file", "", "bad name.conf", POL, NULL, NULL,
	  "conf.d/bad name.conf:0: file: ", 1 },

	/* values */
	{ "duration without unit", "[daemon]\ninterval = 5\n", NULL, NULL, NULL, NULL,
	  "pageoutd.conf:2: interval: ", 1 },
	{ "interval too short", "[daemon]\ninterval = 10ms\n", NULL, NULL, NULL, NULL,
	  "pageoutd.conf:2: interval: ", 1 },
	{ "bad log level", "[daemon]\nlog_level = loud\n", NULL, NULL, NULL, NULL,
	  "pageoutd.conf:2: log_level: ", 1 },
	{ "bad dry_run", "[daemon]\ndry_run = perhaps\n", NULL, NULL, NULL, NULL,
	  "pageoutd.conf:2: dry_run: ", 1 },
	{ "relative socket", "[daemon]\nsocket = run/x.sock\n", NULL, NULL, NULL, NULL,
	  "pageoutd.conf:2: socket: ", 1 },
	{ "socket path longer than sun_path",
	  "[daemon]\nsocket = "
	  "/run/"
	  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	  "aaaaaaaaaaaaaaaaaaa\n",
	  NULL, NULL, NULL, NULL, "pageoutd.conf:2: socket: ", 1 },
	{ "sysfs_root with ..", "[damon]\nsysfs_root = /tmp/../sys\n", NULL, NULL, NULL, NULL,
	  "pageoutd.conf:2: sysfs_root: ", 1 },
	{ "bad reference_semantics", "[daemon]\nreference_semantics = sometimes\n", NULL, NULL,
	  NULL, NULL, "pageoutd.conf:2: reference_semantics: ", 1 },
	{ "confirm_snapshots out of range", "[daemon]\nconfirm_snapshots = 3\n", NULL, NULL, NULL,
	  NULL, "pageoutd.conf:2: confirm_snapshots: ", 1 },
	{ "confirm_snapshots zero", "[daemon]\nconfirm_snapshots = 0\n", NULL, NULL, NULL, NULL,
	  "pageoutd.conf:2: confirm_snapshots: ", 1 },
	{ "min_regions below 3", "[damon]\nmin_regions = 2\n", NULL, NULL, NULL, NULL,
	  "pageoutd.conf:2: min_regions: ", 1 },
	{ "max_regions below min_regions", "[damon]\nmin_regions = 100\nmax_regions = 50\n", NULL,
	  NULL, NULL, NULL, "pageoutd.conf:3: max_regions: ", 1 },
	{ "aggr shorter than sample", "[damon]\nsample_interval = 10ms\naggr_interval = 5ms\n",
	  NULL, NULL, NULL, NULL, "pageoutd.conf:3: aggr_interval: ", 1 },
	{ "update shorter than aggr", "[damon]\nupdate_interval = 50ms\n", NULL, NULL, NULL, NULL,
	  "pageoutd.conf:2: update_interval: ", 1 },
	{ "regions not a number", "[damon]\nmax_regions = lots\n", NULL, NULL, NULL, NULL,
	  "pageoutd.conf:2: max_regions: ", 1 },
	{ "relative cgroup", "", "a.conf", "[policy]\ncgroup = system.slice\n", NULL, NULL,
	  "conf.d/a.conf:2: cgroup: ", 1 },
	{ "cgroup with ..", "", "a.conf", "[policy]\ncgroup = /a/../b\n", NULL, NULL,
	  "conf.d/a.conf:2: cgroup: ", 1 },
	{ "cgroup with trailing slash", "", "a.conf", "[policy]\ncgroup = /a/\n", NULL, NULL,
	  "conf.d/a.conf:2: cgroup: ", 1 },
	{ "bad engine", "", "a.conf", POL "engine = kernel\n", NULL, NULL,
	  "conf.d/a.conf:3: engine: ", 1 },
	{ "rate without %", "", "a.conf", POL "max_access_rate = 5\n", NULL, NULL,
	  "conf.d/a.conf:3: max_access_rate: ", 1 },
	{ "rate above 100%", "", "a.conf", POL "swap_reserve = 101%\n", NULL, NULL,
	  "conf.d/a.conf:3: swap_reserve: ", 1 },
	{ "pressure_limit 0%", "", "a.conf", POL "pressure_limit = 0%\n", NULL, NULL,
	  "conf.d/a.conf:3: pressure_limit: ", 1 },
	{ "bad memory kind", "", "a.conf", POL "memory = anon,shmem\n", NULL, NULL,
	  "conf.d/a.conf:3: memory: ", 1 },
	{ "quota without interval", "", "a.conf", POL "quota = 256M\n", NULL, NULL,
	  "conf.d/a.conf:3: quota: ", 1 },
	{ "quota too small", "", "a.conf", POL "quota = 1K/1s\n", NULL, NULL,
	  "conf.d/a.conf:3: quota: ", 1 },
	{ "quota interval too short", "", "a.conf", POL "quota = 1M/1ms\n", NULL, NULL,
	  "conf.d/a.conf:3: quota: ", 1 },
	{ "min_age shorter than aggregation", "", "a.conf", POL "min_age = 10ms\n", NULL, NULL,
	  "conf.d/a.conf:3: min_age: ", 1 },
	{ "min_age without unit", "", "a.conf", POL "min_age = 30\n", NULL, NULL,
	  "conf.d/a.conf:3: min_age: ", 1 },

	/* a key of the other engine, wherever engine is set */
	{ "quota_time on the default engine", "", "a.conf", POL "quota_time = 10ms\n", NULL, NULL,
	  "conf.d/a.conf:3: quota_time: applies to engine = paddr policies only (this policy: "
	  "engine = vaddr, the default)",
	  1 },
	{ "quota_time before engine = vaddr", "", "a.conf",
	  "[policy]\nquota_time = 10ms\ncgroup = /a\nengine = vaddr\n", NULL, NULL,
	  "conf.d/a.conf:2: quota_time: applies to engine = paddr policies only (this policy: "
	  "engine = vaddr, line 4)",
	  1 },
	{ "a refused engine decides no key", "", "a.conf",
	  POL "quota_time = 10ms\nengine = kernel\n", NULL, NULL, "conf.d/a.conf:4: engine: ", 1 },
	{ "engine = both without file", "", "a.conf", POL "engine = both\nmemory = anon\n", NULL,
	  NULL,
	  "conf.d/a.conf:4: memory: engine = both takes anon through vaddr and file through "
	  "paddr: it needs memory = anon,file (use engine = vaddr for anon alone)",
	  1 },
	{ "engine = both overlapping another policy", "", "a.conf", POL "engine = both\n", "b.conf",
	  "[policy]\ncgroup = /a/x\n", "conf.d/b.conf:2: cgroup: '/a/x' overlaps policy 'a'", 1 },
	{ "max_usage on the default engine", "", "a.conf", POL "max_usage = 30%\n", NULL, NULL,
	  "conf.d/a.conf:3: max_usage: applies to engine = paddr policies only (this policy: "
	  "engine = vaddr, the default)",
	  1 },
	{ "max_usage of 100%", "", "a.conf", POL "engine = paddr\nmax_usage = 100%\n", NULL, NULL,
	  "conf.d/a.conf:4: max_usage: '100%' is out of range (0% to 99.99%)", 1 },
	{ "max_usage without %", "", "a.conf", POL "engine = paddr\nmax_usage = 30\n", NULL, NULL,
	  "conf.d/a.conf:4: max_usage: '30' is not a rate", 1 },
	{ "the other engine's key without a cgroup", "", "a.conf", "[policy]\nquota_time = 10ms\n",
	  NULL, NULL, "conf.d/a.conf:2: quota_time: ", 2 },

	/* the value grammar: each refusal shows the accepted forms */
	{ "duration with an unknown unit", "", "a.conf", POL "min_age = 5x\n", NULL, NULL,
	  "conf.d/a.conf:3: min_age: '5x' is not a duration (a number and a unit us, ms, s, m or "
	  "h: 500ms, 1.5s, 2m, 1h)",
	  1 },
	{ "0 needs a unit too", "", "a.conf", POL "min_age = 0\n", NULL, NULL,
	  "conf.d/a.conf:3: min_age: '0' is not a duration (a number", 1 },
	{ "30min is not a unit", "", "a.conf", POL "min_age = 30min\n", NULL, NULL,
	  "conf.d/a.conf:3: min_age: '30min' is not a duration (", 1 },
	{ "duration finer than a microsecond", "", "a.conf", POL "min_age = 1.0000005s\n", NULL,
	  NULL, "conf.d/a.conf:3: min_age: '1.0000005s' is not a whole number of microseconds", 1 },
	{ "days are not a unit", "", "a.conf", POL "min_age = 1.5d\n", NULL, NULL,
	  "conf.d/a.conf:3: min_age: '1.5d' is not a duration (", 1 },
	{ "duration out of range", "", "a.conf", POL "min_age = 24.5h\n", NULL, NULL,
	  "conf.d/a.conf:3: min_age: '24.5h' is out of range (0s to 24h)", 1 },
	{ "duration beyond 64 bits", "", "a.conf", POL "min_age = 99999999999h\n", NULL, NULL,
	  "conf.d/a.conf:3: min_age: '99999999999h' is out of range (0s to 24h)", 1 },
	{ "size in SI spelling", "", "a.conf", POL "quota = 64MB/1s\n", NULL, NULL,
	  "conf.d/a.conf:3: quota: '64MB' is not a size (a number and a unit B, K, M, G "
	  "or T, powers of 1024 also written KiB, MiB, GiB, TiB: 4096B, 64M, 1.5G)",
	  1 },
	{ "size in lowercase", "", "a.conf", POL "quota = 64m/1s\n", NULL, NULL,
	  "conf.d/a.conf:3: quota: '64m' is not a size (", 1 },
	{ "size without a unit", "", "a.conf", POL "quota = 65536/1s\n", NULL, NULL,
	  "conf.d/a.conf:3: quota: '65536' is not a size (", 1 },
	{ "size not a whole number of bytes", "", "a.conf", POL "quota = 0.1G/1s\n", NULL, NULL,
	  "conf.d/a.conf:3: quota: '0.1G' is not a whole number of bytes", 1 },
	{ "size beyond 64 bits", "", "a.conf", POL "quota = 16777216T/1s\n", NULL, NULL,
	  "conf.d/a.conf:3: quota: '16777216T' is too large", 1 },
	{ "quota interval without a unit", "", "a.conf", POL "quota = 64M/1\n", NULL, NULL,
	  "conf.d/a.conf:3: quota: '1' is not a duration (", 1 },
	{ "rate finer than 0.0001%", "", "a.conf", POL "max_refault_rate = 0.00005%\n", NULL, NULL,
	  "conf.d/a.conf:3: max_refault_rate: '0.00005%' is not a whole number of parts per "
	  "million (0.0001%)",
	  1 },
	{ "rate starting with a point", "", "a.conf", POL "max_refault_rate = .5%\n", NULL, NULL,
	  "conf.d/a.conf:3: max_refault_rate: '.5%' is not a rate (a number and %: 0%, 0.5%, 10%)",
	  1 },
	{ "region count in hex", "[damon]\nmax_regions = 0x400\n", NULL, NULL, NULL, NULL,
	  "pageoutd.conf:2: max_regions: '0x400' is not a whole number (decimal digits: 10, 1000)",
	  1 },

	/* overlaps */
	{ "same cgroup twice", "", "a.conf", POL, "b.conf", "# b\n[policy]\ncgroup = /a\n",
	  "conf.d/b.conf:3: cgroup: ", 1 },
	{ "ancestor claims descendant", "", "a.conf", POL, "b.conf", "[policy]\ncgroup = /a/b\n",
	  "conf.d/b.conf:2: cgroup: ", 1 },
	{ "glob covers a literal", "", "a.conf", "[policy]\ncgroup = /apps/uid_*\n", "b.conf",
	  "[policy]\ncgroup = /apps/uid_10\n", "conf.d/b.conf:2: cgroup: ", 1 },
	{ "glob covers an ancestor of a literal", "", "a.conf", "[policy]\ncgroup = /apps/*\n",
	  "b.conf", "[policy]\ncgroup = /apps/x/y\n", "conf.d/b.conf:2: cgroup: ", 1 },
	{ "root claims everything", "", "a.conf", "[policy]\ncgroup = /\n", "b.conf", POL,
	  "conf.d/b.conf:2: cgroup: ", 1 },
	{ "same glob twice", "", "a.conf", "[policy]\ncgroup = /x/*\n", "b.conf",
	  "[policy]\ncgroup = /x/*\n", "conf.d/b.conf:2: cgroup: ", 1 },

	/* several errors are all reported */
	{ "all errors collected",
	  "[daemon]\ninterval = 5\nlog_level = loud\nbogus = 1\n[damon]\nmin_regions = 1\n", NULL,
	  NULL, NULL, NULL, "pageoutd.conf:6: min_regions: ", 4 },
};

static char tmpl[] = "/tmp/pageoutd-test-config-XXXXXX";

static void write_file(const char *dir, const char *name, const char *content)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(99);
	}
	fputs(content, f);
	fclose(f);
}

static void run_case(const struct tcase *t)
{
	char dir[512], sub[600], want[1024], cmd[700];
	struct cfg_errors errs = { 0 };
	struct cfg *cfg = NULL;
	const char *found = NULL;
	int r;

	snprintf(dir, sizeof(dir), "%s", tmpl);
	if (!mkdtemp(dir))
		exit(99);
	snprintf(sub, sizeof(sub), "%s/conf.d", dir);
	mkdir(sub, 0755);
	write_file(dir, "pageoutd.conf", t->main);
	if (t->f1)
		write_file(sub, t->f1, t->c1);
	if (t->f2)
		write_file(sub, t->f2, t->c2);
	snprintf(want, sizeof(want), "%s/pageoutd.conf", dir);
	r = cfg_load(want, sub, true, &cfg, &errs);
	if (!t->want) {
		ok(r == 0 && cfg, "valid: %s", t->name);
		for (unsigned i = 0; i < errs.nr; i++)
			printf("#   unexpected: %s\n", errs.msgs[i]);
	} else {
		snprintf(want, sizeof(want), "%s/%s", dir, t->want);
		for (unsigned i = 0; i < errs.nr; i++)
			if (!strncmp(errs.msgs[i], want, strlen(want)))
				found = errs.msgs[i];
		ok(r == -EINVAL && found && (!t->nerr || (int)errs.nr == t->nerr), "invalid: %s",
		   t->name);
		if (found)
			printf("#   %s\n", found + strlen(dir) + 1);
		else
			printf("#   want prefix %s\n", t->want);
		for (unsigned i = 0; !found || (t->nerr && (int)errs.nr != t->nerr); i++) {
			if (i >= errs.nr)
				break;
			printf("#   got: %s\n", errs.msgs[i]);
		}
	}
	cfg_errors_fini(&errs);
	cfg_free(cfg);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		exit(99);
}

static void values(void)
{
	char dir[512], main[600], sub[600], line[2048];
	struct cfg_errors errs = { 0 };
	struct cfg *cfg = NULL;
	const struct cfg_policy *p;

	snprintf(dir, sizeof(dir), "%s", tmpl);
	if (!mkdtemp(dir))
		exit(99);
	snprintf(sub, sizeof(sub), "%s/conf.d", dir);
	mkdir(sub, 0755);
	write_file(dir, "pageoutd.conf", "[damon]\nsample_interval = 1ms\naggr_interval = 50ms\n");
	write_file(sub, "20-b.conf", "[policy]\ncgroup = /b\nengine = paddr\nquota = 64M/500ms\n");
	write_file(sub, "30-c.conf",
		   "[policy]\ncgroup = /c\nengine = paddr\nmax_access_rate = 0%\n");
	write_file(sub, "40-d.conf", "[policy]\ncgroup = /d\n");
	write_file(sub, "10-a.conf",
		   "[policy]\ncgroup = /a/*\nmin_age = 2m\nmax_access_rate = 5%\n");
	write_file(sub, "50-e.conf",
		   "[policy]\ncgroup = /e\nengine = paddr\nmin_age = 1.5s\nquota = 1.5G/0.5s\n"
		   "quota_time = 0.25s\nmax_refault_rate = 0.0001%\nmax_usage = 12.5%\n");
	write_file(sub, "60-f.conf",
		   "[policy]\ncgroup = /f\nmin_age = 0s\nquota = 5000B/90s\nmin_free = 0.5%\n");
	write_file(sub, "70-g.conf", "[policy]\ncgroup = /g\nquota = 2048TiB/1h\n");
	write_file(sub, "80-h.conf", "[policy]\ncgroup = /h\nengine = paddr\nquota_time = none\n");
	snprintf(main, sizeof(main), "%s/pageoutd.conf", dir);
	is_int(cfg_load(main, sub, true, &cfg, &errs), 0, "load eight policies");
	if (!cfg)
		return;
	is_int(cfg->nr_policies, 8, "eight policies");
	is_str(cfg->policies[0].name, "10-a", "lexical order: 10-a first");
	is_str(cfg->policies[1].name, "20-b", "then 20-b");
	p = cfg_find_policy(cfg, "10-a");
	ok(p && p->cgroup_is_glob, "glob detected");
	is_u64(p->min_age_us, 120000000, "min_age 2m");
	is_int(p->max_access_rate, 50000, "max_access_rate 5%% in ppm");
	is_u64(p->quota_bytes, 256ull << 20, "default quota size");
	p = cfg_find_policy(cfg, "20-b");
	is_u64(p->quota_time_us, 0,
	       "paddr: no time quota by default (the byte quota bounds the work)");
	has_str(cfg_policy_describe(p, line, sizeof(line)), " quota_time=none ",
		"describe the default quota_time as none");
	is_int(p->engine, ENGINE_PADDR, "engine paddr");
	is_u64(p->quota_bytes, 64ull << 20, "quota 64M");
	is_u64(p->quota_interval_us, 500000, "quota interval 500ms");
	is_int(p->max_access_rate, 500000, "paddr without max_access_rate: 50%%");
	is_int(cfg_find_policy(cfg, "30-c")->max_access_rate, 0, "paddr with 0%%: 0");
	is_int(cfg_find_policy(cfg, "40-d")->max_access_rate, 0, "vaddr without: 0");
	is_u64(cfg->damon.sample_us, 1000, "sample 1ms");
	is_u64(cfg->damon.update_us, 1000000, "default update 1s");
	has_str(cfg_policy_describe(p, line, sizeof(line)), "quota=64M/500ms", "describe quota");
	has_str(line, "engine=paddr", "describe engine");
	p = cfg_find_policy(cfg, "50-e");
	is_u64(p->min_age_us, 1500000, "min_age 1.5s");
	is_u64(p->quota_bytes, 1610612736, "quota 1.5G: exactly 1.5 * 2^30 bytes");
	is_u64(p->quota_interval_us, 500000, "quota interval 0.5s");
	is_u64(p->quota_time_us, 250000, "quota_time 0.25s");
	is_int(p->max_refault_rate, 1, "max_refault_rate 0.0001%%: 1 ppm");
	has_str(cfg_policy_describe(p, line, sizeof(line)), "quota=1536M/500ms quota_time=250ms",
		"describe 1.5G/0.5s in whole units");
	is_int(p->max_usage, 125000, "max_usage 12.5%%: 125000 ppm");
	has_str(line, " max_usage=12.5%", "describe max_usage");
	p = cfg_find_policy(cfg, "80-h");
	is_int(p->max_usage, 0, "paddr without max_usage: no ceiling");
	has_str(cfg_policy_describe(p, line, sizeof(line)), " max_usage=none",
		"describe no ceiling as none");
	p = cfg_find_policy(cfg, "60-f");
	is_u64(p->min_age_us, 0, "min_age 0s");
	is_u64(p->quota_bytes, 5000, "quota 5000B");
	is_int(p->min_free, 5000, "min_free 0.5%%");
	has_str(cfg_policy_describe(p, line, sizeof(line)), "min_age=0s", "describe min_age 0s");
	has_str(line, "quota=5000B/90s", "describe a byte count with its B");
	ok(!strstr(line, "quota_time="), "describe a vaddr policy without quota_time");
	ok(!strstr(line, "max_usage="), "describe a vaddr policy without max_usage");
	has_str(line, " frozen_only=no", "describe a vaddr policy with frozen_only");
	p = cfg_find_policy(cfg, "50-e");
	cfg_policy_describe(p, line, sizeof(line));
	has_str(line, " frozen_only=no", "describe a paddr policy with frozen_only");
	p = cfg_find_policy(cfg, "70-g");
	is_u64(p->quota_bytes, 2048ull << 40, "quota 2048TiB");
	has_str(cfg_policy_describe(p, line, sizeof(line)), "quota=2048T/1h",
		"describe 2048TiB in T, the largest unit");
	p = cfg_find_policy(cfg, "80-h");
	ok(p && p->quota_time_us == 0, "quota_time = none: no time quota");
	cfg_free(cfg);
	snprintf(line, sizeof(line), "rm -rf '%s'", dir);
	if (system(line) != 0)
		exit(99);
}

/* a file that starts with a byte order mark reads as if it did not */
static void bom(void)
{
	char dir[512], main[600], sub[600];
	struct cfg_errors errs = { 0 };
	struct cfg *cfg = NULL;

	snprintf(dir, sizeof(dir), "%s", tmpl);
	if (!mkdtemp(dir))
		exit(99);
	snprintf(sub, sizeof(sub), "%s/conf.d", dir);
	mkdir(sub, 0755);
	write_file(dir, "pageoutd.conf", BOM "[daemon]\ninterval = 2s\n");
	write_file(sub, "a.conf", BOM "[policy]\ncgroup = /a\nmin_age = 1m\n");
	snprintf(main, sizeof(main), "%s/pageoutd.conf", dir);
	is_int(cfg_load(main, sub, true, &cfg, &errs), 0, "byte order marks: no error");
	is_int(errs.nr, 0, "byte order marks: no message");
	if (cfg) {
		is_u64(cfg->daemon.interval_us, 2000000, "byte order mark: [daemon] read");
		ok(cfg->nr_policies == 1 && cfg->policies[0].min_age_us == 60000000 &&
			   cfg->policies[0].line == 1,
		   "byte order mark: [policy] read, on line 1");
	}
	cfg_errors_fini(&errs);
	cfg_free(cfg);
	snprintf(main, sizeof(main), "rm -rf '%s'", dir);
	if (system(main) != 0)
		exit(99);
}

static void unreadable(void)
{
	struct cfg_errors errs = { 0 };
	struct cfg *cfg = NULL;

	is_int(cfg_load("/nonexistent/pageoutd.conf", NULL, false, &cfg, &errs), -EINVAL,
	       "missing main file is an error");
	ok(errs.nr == 1 &&
		   !strncmp(errs.msgs[0], "/nonexistent/pageoutd.conf:0: file: cannot open", 47),
	   "missing main file names the file");
	cfg_errors_fini(&errs);
	is_int(cfg_load("/dev/null", "/nonexistent/conf.d", true, &cfg, &errs), -EINVAL,
	       "missing -d directory is an error");
	ok(errs.nr == 2 && strstr(errs.msgs[1], "/nonexistent/conf.d:0: directory: cannot read"),
	   "missing directory named");
	cfg_errors_fini(&errs);
	is_int(cfg_load("/dev/null", "/nonexistent/conf.d", false, &cfg, &errs), -EINVAL,
	       "/dev/null is not a regular file");
	cfg_errors_fini(&errs);
}

static void long_line(void)
{
	char dir[512], main[600], buf[CFG_LINE_MAX + 100];
	struct cfg_errors errs = { 0 };
	struct cfg *cfg = NULL;

	snprintf(dir, sizeof(dir), "%s", tmpl);
	if (!mkdtemp(dir))
		exit(99);
	memset(buf, 'x', sizeof(buf));
	memcpy(buf, "[daemon]\n# ", 11);
	buf[sizeof(buf) - 2] = '\n';
	buf[sizeof(buf) - 1] = '\0';
	write_file(dir, "pageoutd.conf", buf);
	snprintf(main, sizeof(main), "%s/pageoutd.conf", dir);
	cfg_load(main, NULL, false, &cfg, &errs);
	ok(errs.nr == 1 && strstr(errs.msgs[0], "pageoutd.conf:2: line: longer than"),
	   "over-long line flagged at its line");
	cfg_errors_fini(&errs);
	cfg_free(cfg);
	snprintf(buf, sizeof(buf), "rm -rf '%s'", dir);
	if (system(buf) != 0)
		exit(99);
}

/* engine = both: two policies of its name, vaddr for anon and paddr for file, in that order */
static void both(void)
{
	char dir[512], main[600], sub[600], line[2048];
	struct cfg_errors errs = { 0 };
	struct cfg *cfg = NULL;
	const struct cfg_policy *v, *p;

	snprintf(dir, sizeof(dir), "%s", tmpl);
	if (!mkdtemp(dir))
		exit(99);
	snprintf(sub, sizeof(sub), "%s/conf.d", dir);
	mkdir(sub, 0755);
	write_file(dir, "pageoutd.conf", "");
	write_file(sub, "db.conf",
		   "[policy]\ncgroup = /system.slice/postgresql*.service\nengine = both\n"
		   "min_age = 30s\nquota = 64M/1s\nmax_usage = 20%\n");
	snprintf(main, sizeof(main), "%s/pageoutd.conf", dir);
	ok(cfg_load(main, sub, true, &cfg, &errs) == 0 && cfg && cfg->nr_policies == 2,
	   "engine = both loads as two policies");
	if (cfg && cfg->nr_policies == 2) {
		v = &cfg->policies[0];
		p = &cfg->policies[1];
		ok(!strcmp(v->name, "db") && !strcmp(p->name, "db") && v->both && p->both,
		   "of one name, each marked as a part");
		ok(v->engine == ENGINE_VADDR && v->memory == MEMORY_ANON &&
			   p->engine == ENGINE_PADDR && p->memory == MEMORY_FILE,
		   "vaddr takes anon, paddr file (shared memory and page cache)");
		ok(v->max_access_rate == 0 && p->max_access_rate == CFG_PADDR_MAX_ACCESS_RATE &&
			   v->quota_bytes == p->quota_bytes && v->min_age_us == p->min_age_us &&
			   p->max_usage == 200000,
		   "each part keeps the policy's settings, with its engine's max_access_rate");
		has_str(cfg_policy_describe(p, line, sizeof(line)), "engine=paddr (part of both)",
			"describe names the part");
	}
	cfg_errors_fini(&errs);
	cfg_free(cfg);
	snprintf(main, sizeof(main), "rm -rf '%s'", dir);
	if (system(main) != 0)
		exit(99);
}

int main(void)
{
	log_setup(LOG_TARGET_STDERR, LOG_ERR);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		run_case(&cases[i]);
	values();
	both();
	bom();
	unreadable();
	long_line();
	return tap_exit();
}
