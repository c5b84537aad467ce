// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The paddr engine's cycle on the host: real cgroups (children of this test's own memory
 * cgroup, each holding memory of a real child process), a fake /proc with an iomem, and the
 * emulated DAMON tree (never the host's), whose commit resolves every memcg_path against the
 * real hierarchy as the kernel does. A glob policy gets one scheme per cgroup that holds
 * memory; a cgroup that appears is appended online, one that goes away is dropped without
 * breaking the others; counters are attributed to the cgroup that held the scheme; past
 * PADDR_MAX_SCHEMES cgroups are refused with an error; dry run writes stat schemes; the
 * kdamond is turned off at the end; a container with memory.swap.max 0 below a matched pod
 * has its own scheme paused (swap_limit).
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pageoutd/cgroup.h"
#include "pageoutd/config.h"
#include "pageoutd/damon.h"
#include "pageoutd/log.h"
#include "pageoutd/paddr.h"
#include "pageoutd/policy.h"
#include "pageoutd/pscheme.h"
#include "pageoutd/report.h"
#include "pageoutd/util.h"
#include "../lib/cfgtext.h"
#include "../lib/child.h"
#include "../lib/fakedamon.h"
#include "../lib/tap.h"

#define MIB (1024ull * 1024)
#define K "kdamonds/1/contexts/0/"

static char logbuf[65536];
static struct cgrp_root cg;
static char base[PATH_MAX]; /* this test's cgroup, relative to the hierarchy */

static void capture(int prio, const char *msg)
{
	size_t n = strlen(logbuf);

	(void)prio;
	if (n + strlen(msg) + 2 < sizeof(logbuf))
		snprintf(logbuf + n, sizeof(logbuf) - n, "%s\n", msg);
}

static int cg_make(const char *name)
{
	char p[PATH_MAX * 2];

	snprintf(p, sizeof(p), "%s%s/%s", cg.mount, base, name);
	return mkdir(p, 0755) == 0 || errno == EEXIST ? 0 : -errno;
}

static void cg_remove(const char *name)
{
	char p[PATH_MAX * 2];

	snprintf(p, sizeof(p), "%s%s/%s", cg.mount, base, name);
	rmdir(p);
}

struct holder_args {
	const char *name;
	unsigned mib, tour;
	bool shared; /* shared anonymous memory (shmem) rather than private */
};

static int holder_setup(void *arg)
{
	const struct holder_args *h = arg;
	char procs[PATH_MAX * 2], pid[32];
	volatile char *m;

	snprintf(pid, sizeof(pid), "%d", getpid());
	for (unsigned i = 0; i < h->tour; i++) {
		snprintf(procs, sizeof(procs), "%s%s/tour%u/cgroup.procs", cg.mount, base, i);
		m = mmap(NULL, 64 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
			 0);
		if (write_file_at(AT_FDCWD, procs, pid) < 0 || m == MAP_FAILED)
			return 2;
		for (unsigned k = 0; k < 64; k++)
			m[k * 4096] = 1;
	}
	snprintf(procs, sizeof(procs), "%s%s/%s/cgroup.procs", cg.mount, base, h->name);
	if (write_file_at(AT_FDCWD, procs, pid) < 0)
		return 3;
	m = mmap(NULL, h->mib * MIB, PROT_READ | PROT_WRITE,
		 (h->shared ? MAP_SHARED : MAP_PRIVATE) | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return 4;
	for (uint64_t o = 0; o < h->mib * MIB; o += 4096)
		m[o] = 1;
	return 0;
}

/* A child that joins cgroup `name` (under base), touches `mib` of anonymous memory and waits.
 * With `tour`, it first visits tour0..tour{n-1}, leaving one touched page charged to each. */
static pid_t holder(const char *name, unsigned mib, unsigned tour)
{
	struct holder_args h = { name, mib, tour, false };

	return child_fork(holder_setup, NULL, &h);
}

/* Move this process into cgroup `name` under base, or back to its own with NULL. */
static char own_cg[PATH_MAX];

static int join(const char *name)
{
	char p[PATH_MAX * 3], pid[32];

	if (name)
		snprintf(p, sizeof(p), "%s%s/%s/cgroup.procs", cg.mount, base, name);
	else
		snprintf(p, sizeof(p), "%s%s/cgroup.procs", cg.mount, own_cg);
	snprintf(pid, sizeof(pid), "%d", getpid());
	return write_file_at(AT_FDCWD, p, pid);
}

static void reap(pid_t c)
{
	if (c > 0) {
		kill(c, SIGKILL);
		waitpid(c, NULL, 0);
	}
}

static struct cfg *load(const char *top, const char *state, const char *proc, bool dry)
{
	char daemon[PATH_MAX * 2 + 96], policy[PATH_MAX + 128];

	snprintf(daemon, sizeof(daemon),
		 "interval = 1s\nstate_dir = %s\nproc_root = %s\ndry_run = %s\n", state, proc,
		 dry ? "yes" : "no");
	snprintf(policy, sizeof(policy),
		 "[policy]\ncgroup = %s/*\nengine = paddr\nmin_age = 10s\nquota = 64M/1s\n"
		 "swap_reserve = 0%%\n",
		 base);
	return cfgtext_load(top, daemon, policy);
}

/* a /proc with the files the engine reads besides cgroups: iomem and meminfo */
static void fake_proc(const char *dir)
{
	char p[PATH_MAX + 16], *mi = NULL;

	mkdir(dir, 0755);
	snprintf(p, sizeof(p), "%s/iomem", dir);
	FILE *f = fopen(p, "w");

	fputs("00001000-0009fbff : System RAM\n00100000-3fffffff : System RAM\n", f);
	fclose(f);
	snprintf(p, sizeof(p), "%s/meminfo", dir);
	f = fopen(p, "w");
	if (read_file_alloc_at(AT_FDCWD, "/proc/meminfo", &mi) > 0)
		fputs(mi, f);
	free(mi);
	fclose(f);
}

static const char *memcg_of(struct fakedamon *f, unsigned i)
{
	const char *dir = f->abi == FAKE_ABI_72 ? "ops_filters" : "filters";
	char p[256];

	for (unsigned k = 0; k < DAMON_MAX_FILTERS; k++) {
		snprintf(p, sizeof(p), K "schemes/%u/%s/%u/type", i, dir, k);
		if (strcmp(fake_get(f, p), "memcg"))
			continue;
		snprintf(p, sizeof(p), K "schemes/%u/%s/%u/memcg_path", i, dir, k);
		return fake_get(f, p);
	}
	return "";
}

static void set_applied(struct fakedamon *f, unsigned i, uint64_t bytes)
{
	char p[128], v[32];

	snprintf(p, sizeof(p), K "schemes/%u/stats/sz_applied", i);
	snprintf(v, sizeof(v), "%llu", (unsigned long long)bytes);
	fake_set(f, p, v);
	snprintf(p, sizeof(p), K "schemes/%u/stats/sz_tried", i);
	fake_set(f, p, v);
}

static void put_state(const char *top, const char *cgroup, const char *state)
{
	char p[PATH_MAX * 3];
	FILE *fp;

	snprintf(p, sizeof(p), "mkdir -p '%s/freezer%s/%s'", top, base, cgroup);
	if (system(p) != 0)
		return;
	snprintf(p, sizeof(p), "%s/freezer%s/%s/freezer.state", top, base, cgroup);
	fp = fopen(p, "w");
	if (fp) {
		fputs(state, fp);
		fclose(fp);
	}
}

/*
 * frozen_only per cgroup (b and c hold schemes 0 and 1) on cgroup v1, with a freezer tree in a
 * temp directory (never a host cgroup frozen): without a freezer both schemes only count; a
 * frozen cgroup's scheme pages out while the running one's counts; a freeze and a thaw are
 * both reported between cycles and swap the two.
 */
static void frozen_gate(struct fakedamon *f, struct paddr *p, struct cfg *cfg)
{
	char top[PATH_MAX], ms_one[32], bytes_b[32], bytes_c[32];

	if (cg.version != 1) {
		printf("# frozen_only: the v1 freezer tree test needs a v1 memory hierarchy\n");
		return;
	}
	cfg->policies[0].frozen_only = true;
	cfg->policies[0].quota_time_us = 20000;
	paddr_set_config(p, cfg); /* the changed policy, reloaded */
	cg.freezer[0] = '\0';
	paddr_cycle(p);
	ok(!strcmp(fake_get(f, K "schemes/0/action"), "stat") &&
		   !strcmp(fake_get(f, K "schemes/1/action"), "stat") &&
		   paddr_policy_stats(p, "host")->freezer_missing,
	   "frozen_only without a freezer: both schemes only count, and the stats say why");
	{
		struct report_src src = { .cfg = cfg, .paddr = p, .status = "test" };
		struct sbuf st = { 0 }, js = { 0 };

		report_status(&src, &st);
		report_stats_json(&src, &js);
		ok(st.s && strstr(st.s, "(frozen_only: no freezer)") && js.s &&
			   strstr(js.s, "\"freezer\":\"unavailable\""),
		   "and status and stats say so for the paddr policy as for vaddr ones");
		sbuf_fini(&st);
		sbuf_fini(&js);
	}
	put_state(f->top, "b", "THAWED\n");
	put_state(f->top, "c", "FROZEN\n");
	snprintf(top, sizeof(top), "%s/freezer", f->top);
	str_copy(cg.freezer, sizeof(cg.freezer), top);
	paddr_cycle(p);
	is_str(fake_get(f, K "schemes/0/action"), "stat", "running b: its scheme only counts");
	is_str(fake_get(f, K "schemes/1/action"), "pageout", "frozen c: its scheme pages out");
	is_u64(paddr_policy_stats(p, "host")->frozen_cgroups, 1, "one cgroup frozen");
	/* the running cgroup's scheme takes no part of the quotas; its parameters stay put */
	str_copy(ms_one, sizeof(ms_one), fake_get(f, K "schemes/1/quotas/ms"));
	str_copy(bytes_b, sizeof(bytes_b), fake_get(f, K "schemes/0/quotas/bytes"));
	str_copy(bytes_c, sizeof(bytes_c), fake_get(f, K "schemes/1/quotas/bytes"));
	cfg->policies[0].quota_bytes *= 2;
	paddr_set_config(p, cfg); /* the changed policy, reloaded */
	paddr_cycle(p);
	ok(strcmp(fake_get(f, K "schemes/1/quotas/bytes"), bytes_c) &&
		   !strcmp(fake_get(f, K "schemes/0/quotas/bytes"), bytes_b),
	   "a new quota reaches frozen c's scheme; running b's stat scheme keeps the one it was "
	   "paused with (no commit for it: up to 6.17 each commit restarts every scheme's walk)");
	cfg->policies[0].quota_bytes /= 2;
	paddr_set_config(p, cfg); /* the changed policy, reloaded */
	put_state(f->top, "b", "FROZEN\n");
	put_state(f->top, "c", "FROZEN\n");
	paddr_frozen_changed(p);
	paddr_cycle(p);
	ok(atoi(ms_one) >= 2 && atoi(fake_get(f, K "schemes/1/quotas/ms")) == atoi(ms_one) / 2,
	   "the time quota goes to the frozen cgroups' schemes only: %s ms to c alone, %s ms "
	   "each to b and c frozen",
	   ms_one, fake_get(f, K "schemes/1/quotas/ms"));
	put_state(f->top, "b", "THAWED\n");
	paddr_frozen_changed(p);
	paddr_cycle(p);
	put_state(f->top, "b", "FROZEN\n");
	put_state(f->top, "c", "THAWED\n");
	is_int((int)paddr_frozen_changed(p), 2, "a freeze and a thaw are seen between cycles");
	paddr_cycle(p);
	ok(!strcmp(fake_get(f, K "schemes/0/action"), "pageout") &&
		   !strcmp(fake_get(f, K "schemes/1/action"), "stat"),
	   "the next cycle swaps them: b pages out, thawed c only counts");
	cfg->policies[0].frozen_only = false;
	cfg->policies[0].quota_time_us = 0;
	paddr_set_config(p, cfg); /* the changed policy, reloaded */
	cg.freezer[0] = '\0';
	paddr_cycle(p);
}

/* scheme i's effective quota in the emulated tree: `num` over `den` of its byte quota */
static void set_effective(struct fakedamon *f, unsigned i, uint64_t num, uint64_t den)
{
	char p[128], v[32];

	snprintf(p, sizeof(p), K "schemes/%u/quotas/bytes", i);
	snprintf(v, sizeof(v), "%llu",
		 (unsigned long long)(strtoull(fake_get(f, p), NULL, 10) * num / den));
	snprintf(p, sizeof(p), K "schemes/%u/quotas/effective_bytes", i);
	fake_set(f, p, v);
}

/* how many times `needle` occurs in the captured log past log_mark */
static size_t log_mark;
static unsigned log_count(const char *needle)
{
	unsigned n = 0;

	for (const char *s = strstr(logbuf + log_mark, needle); s; s = strstr(s + 1, needle))
		n++;
	return n;
}

/*
 * The limit that binds: an effective quota below the byte quota names the time quota and the
 * PSI goal (7.2: the kernel tunes toward pressure_limit) the schemes were committed with; it
 * is logged once when it starts and once when it clears, counted per cycle and shown in
 * status, JSON and metrics. An effective quota of 0 (not computed yet) changes nothing.
 */
static void limit_binding(struct fakedamon *f, struct paddr *p, struct cfg *cfg, const char *a)
{
	const struct paddr_policy_stats *ps = paddr_policy_stats(p, "host");
	struct report_src src = { .cfg = cfg, .paddr = p, .status = "test" };
	bool goals = paddr_stats(p)->goals;
	unsigned want = goals ? PADDR_LIMIT_BIT(PADDR_LIMIT_PRESSURE) : 0;
	struct sbuf st = { 0 }, js = { 0 }, mx = { 0 };
	uint64_t qt0, pl0;

	set_effective(f, 0, 1, 1);
	set_effective(f, 1, 1, 1);
	paddr_cycle(p);
	ok(ps && ps->binding == 0 && ps->binding_known,
	   "%s: effective quota = byte quota: nothing else binds, and that is known", a);
	qt0 = ps ? ps->limit_bound_cycles[PADDR_LIMIT_QUOTA_TIME] : 0;
	pl0 = ps ? ps->limit_bound_cycles[PADDR_LIMIT_PRESSURE] : 0;
	/* below the byte quota without a time quota: only a PSI goal (7.2) can be what binds */
	set_effective(f, 1, 1, 10);
	log_mark = strlen(logbuf);
	paddr_cycle(p);
	ok(ps && ps->binding == want && log_count(" the kernel allows ") == (goals ? 1 : 0),
	   "%s: no quota_time (the default): %s", a,
	   goals ? "the PSI goal binds, logged" : "nothing named, nothing logged");
	set_effective(f, 1, 1, 1);
	paddr_cycle(p);
	is_str(fake_get(f, K "schemes/0/quotas/ms"), "0", "%s: the default: no time quota", a);

	/* quota_time = 10ms: committed this cycle, binding from the next stats read */
	cfg->policies[0].quota_time_us = 10000;
	ok(paddr_set_config(p, cfg) == 0, "%s: reloaded", a);
	paddr_cycle(p);
	ok(strcmp(fake_get(f, K "schemes/0/quotas/ms"), "0"), "%s: quota_time = 10ms: %s ms", a,
	   fake_get(f, K "schemes/0/quotas/ms"));
	set_effective(f, 0, 1, 8);
	set_effective(f, 1, 1, 8);
	log_mark = strlen(logbuf);
	paddr_cycle(p);
	want |= PADDR_LIMIT_BIT(PADDR_LIMIT_QUOTA_TIME);
	ok(ps && ps->binding == want, "%s: effective quota 1/8 of the byte quota: %s binds", a,
	   paddr_limits_text(want));
	ok(log_count(goals ? "paddr policy host: quota_time or pressure_limit binds: the kernel "
			     "allows "
			   : "paddr policy host: quota_time binds: the kernel allows ") == 1 &&
		   log_count("(quota_time = 10ms") == 1,
	   "%s: one log line names it, with the figures and the setting", a);
	set_effective(f, 0, 1, 5); /* the kernel's figure moves: no new line */
	paddr_cycle(p);
	paddr_cycle(p);
	ok(log_count(" the kernel allows ") == 1,
	   "%s: three cycles, the figures changing, still one line", a);
	ok(ps && ps->limit_bound_cycles[PADDR_LIMIT_QUOTA_TIME] == qt0 + 3 &&
		   ps->limit_bound_cycles[PADDR_LIMIT_PRESSURE] == pl0 + (goals ? 4 : 0),
	   "%s: counted per cycle (quota_time %" PRIu64 ", pressure_limit %" PRIu64 ")", a,
	   ps ? ps->limit_bound_cycles[PADDR_LIMIT_QUOTA_TIME] : 0,
	   ps ? ps->limit_bound_cycles[PADDR_LIMIT_PRESSURE] : 0);
	report_status(&src, &st);
	report_stats_json(&src, &js);
	report_metrics(&src, &mx);
	ok(st.s && strstr(st.s, goals ? "(quota_time,pressure_limit binds)" : "(quota_time binds)"),
	   "%s: status names it", a);
	ok(js.s &&
		   strstr(js.s, goals ? "\"binding_limit\":\"quota_time,pressure_limit\""
				      : "\"binding_limit\":\"quota_time\"") &&
		   strstr(js.s, "\"binding_limit_known\":true,\"limit_bound_cycles_total\":{"
				"\"quota_time\":"),
	   "%s: stats names it, with the cycles", a);
	{
		char line[160];

		snprintf(line, sizeof(line),
			 "pageoutd_paddr_limit_bound_cycles_total{policy=\"host\",limit=\"quota_"
			 "time\"} %" PRIu64 "\n",
			 qt0 + 3);
		ok(mx.s && strstr(mx.s, line) &&
			   strstr(mx.s, "pageoutd_paddr_limit_binding{policy=\"host\",limit="
					"\"quota_time\"} 1\n"),
		   "%s: and the metrics count it", a);
	}
	sbuf_fini(&st);
	sbuf_fini(&js);
	sbuf_fini(&mx);

	/* the kernel reaches the byte quota again: cleared, once */
	set_effective(f, 0, 1, 1);
	set_effective(f, 1, 1, 1);
	log_mark = strlen(logbuf);
	paddr_cycle(p);
	paddr_cycle(p);
	ok(ps && ps->binding == 0 && log_count("cycles") == 1 &&
		   log_count(" the kernel allows ") == 1 &&
		   strstr(logbuf + log_mark, "cleared after 3"),
	   "%s: at the byte quota again: one line says it cleared", a);
	report_stats_json(&src, &js);
	ok(js.s && strstr(js.s, "\"binding_limit\":null"), "%s: and stats says null", a);
	sbuf_fini(&js);

	/* 0: not computed yet (a scheme just begun): the last verdict stands, either way */
	set_effective(f, 0, 0, 1);
	set_effective(f, 1, 0, 1);
	paddr_cycle(p);
	ok(ps && ps->binding == 0 && ps->binding_known,
	   "%s: an effective quota of 0 after none bound: still none", a);
	set_effective(f, 0, 1, 8);
	paddr_cycle(p);
	set_effective(f, 0, 0, 1);
	log_mark = strlen(logbuf);
	paddr_cycle(p);
	ok(ps && ps->binding & PADDR_LIMIT_BIT(PADDR_LIMIT_QUOTA_TIME) &&
		   !strstr(logbuf + log_mark, "cleared"),
	   "%s: and after quota_time bound: it still binds, nothing logged", a);
	cfg->policies[0].quota_time_us = 0;
	ok(paddr_set_config(p, cfg) == 0, "%s: reloaded", a);
	paddr_cycle(p);
}

static void run(enum fake_abi abi)
{
	const char *a = abi == FAKE_ABI_72 ? "7.2" : "6.12";
	struct fakedamon *f = fake_new(abi);
	struct damon_io io = fake_io(f);
	char proc[PATH_MAX + 8], want[PATH_MAX * 2], want_a[PATH_MAX * 2], num[32];
	struct damon d;
	struct paddr *p = NULL;
	struct cfg *cfg;
	const struct paddr_cgroup_stats *cs;
	pid_t ha, hb, hc = -1;
	char *selfmem = NULL;

	snprintf(proc, sizeof(proc), "%s/proc", f->top);
	fake_proc(proc);
	str_copy(f->memcg_root, sizeof(f->memcg_root), cg.mount);
	cfg = load(f->top, f->state_dir, proc, false);
	ok(cg_make("a") == 0 && cg_make("b") == 0 && cg_make("empty") == 0,
	   "%s: cgroups a, b and an empty one", a);
	ha = holder("a", 4, 0);
	hb = holder("b", 4, 0);
	/* this process, the engine, joins a matched cgroup and puts memory there */
	ok(cg_make("self") == 0 && join("self") == 0 && (selfmem = malloc(4 * MIB)) != NULL,
	   "%s: the engine's own process is in a matched cgroup", a);
	if (selfmem)
		memset(selfmem, 1, 4 * MIB);
	ok(cfg && ha > 0 && hb > 0 && damon_open(&d, f->admin, f->state_dir, &io) == 0 &&
		   damon_acquire(&d) == 0 && paddr_new(&p, cfg, &d, &cg) == 0,
	   "%s: a and b hold 4 MiB each; the engine over the emulated tree", a);
	if (!p)
		goto out;
	is_int(paddr_cycle(p), 0, "%s: first cycle", a);
	is_str(fake_get(f, "kdamonds/1/state"), "on", "%s: the paddr kdamond runs", a);
	is_str(fake_get(f, K "operations"), "paddr", "%s: operations paddr", a);
	is_str(fake_get(f, K "targets/0/regions/nr_regions"), "2",
	       "%s: the System RAM ranges of iomem", a);
	is_str(fake_get(f, K "schemes/nr_schemes"), "2",
	       "%s: one scheme per cgroup with memory (not the empty one, not its own)", a);
	snprintf(want, sizeof(want), "%s/self", base);
	ok(paddr_scheme_of(p, want) < 0 && strstr(logbuf, "is pageoutd's own cgroup"),
	   "%s: its own cgroup gets no scheme, and the log says so", a);
	snprintf(want, sizeof(want), "%s/a", base);
	snprintf(want_a, sizeof(want_a), "%s/a", base);
	is_str(memcg_of(f, 0), want, "%s: scheme 0 is cgroup a", a);
	snprintf(want, sizeof(want), "%s/b", base);
	is_str(memcg_of(f, 1), want, "%s: scheme 1 is cgroup b", a);
	{
		/* the byte quota is also scaled by RAM over the cgroup's memory (walk_scale) */
		const struct paddr_cgroup_stats *ca = paddr_cgroup_stats(p, want_a);
		uint64_t ws = ca ? ca->walk_scale : 0;

		snprintf(num, sizeof(num), "%" PRIu64, 10 * 33554432 * ws);
		is_str(fake_get(f, K "schemes/0/quotas/bytes"), num,
		       "%s: the policy's 64M/1s quota split over its two cgroups, for the 10 s "
		       "between two walks (min_age), x%" PRIu64 " for the RAM it walks",
		       a, ws);
		ok(ca && ws == pscheme_walk_scale(paddr_stats(p)->ram_bytes, ca->resident) &&
			   ws > 1,
		   "%s: the factor is RAM over a's memory (%" PRIu64 " of %" PRIu64 " bytes)", a,
		   ca ? ca->resident : 0, paddr_stats(p)->ram_bytes);
	}
	is_str(fake_get(f, "kdamonds/0/state"), "off", "%s: the vaddr kdamond is left alone", a);

	set_applied(f, 0, 3 * MIB);
	set_applied(f, 1, 1 * MIB);
	paddr_cycle(p);
	cs = paddr_cgroup_stats(p, want);
	ok(cs && cs->sz_applied == 1 * MIB, "%s: b's counters go to b", a);
	is_u64(paddr_policy_stats(p, "host")->applied_bytes_total, 4 * MIB,
	       "%s: the policy sums its cgroups", a);

	/* a cgroup appears: appended online */
	ok(cg_make("c") == 0 && (hc = holder("c", 2, 0)) > 0, "%s: cgroup c appears", a);
	unsigned commits = (unsigned)paddr_stats(p)->commits;

	paddr_cycle(p);
	is_str(fake_get(f, K "schemes/nr_schemes"), "3", "%s: c gets a third scheme", a);
	ok(paddr_stats(p)->commits == commits + 1 && paddr_stats(p)->restarts == 1,
	   "%s: applied with one commit, no restart", a);
	{
		const struct paddr_cgroup_stats *ca = paddr_cgroup_stats(p, want_a);

		snprintf(num, sizeof(num), "%" PRIu64,
			 (uint64_t)((double)(64 * MIB) * 10 * (double)(ca ? ca->walk_scale : 0)) /
				 3);
		is_str(fake_get(f, K "schemes/0/quotas/bytes"), num, "%s: quota split three ways",
		       a);
	}

	/* a goes away: the others keep their schemes; b's counters are not confused with a's */
	reap(ha);
	ha = -1;
	cg_remove("a");
	set_applied(f, 0, 9 * MIB); /* a did 6 MiB more before it went */
	paddr_cycle(p);
	is_str(fake_get(f, K "schemes/nr_schemes"), "2", "%s: a's scheme is dropped", a);
	is_str(memcg_of(f, 0), want, "%s: b moves to scheme 0", a);
	ok(strstr(logbuf, "leaves policy host") != NULL, "%s: and the log says a left", a);
	cs = paddr_cgroup_stats(p, want);
	set_applied(f, 0, 10 * MIB); /* the scheme object b inherited: 1 MiB more */
	paddr_cycle(p);
	ok(cs && cs->sz_applied == 2 * MIB,
	   "%s: b counts only what its scheme did since it moved (%llu kB)", a,
	   cs ? (unsigned long long)cs->sz_applied / 1024 : 0);
	is_u64(paddr_policy_stats(p, "host")->applied_bytes_total, 11 * MIB,
	       "%s: a's last 6 MiB were counted before its scheme went (3 + 1 + 6 + 1 MiB)", a);

	/*
	 * b grows: its walk_scale, so its byte quota, shrinks. Before 6.18 a commit restarts every
	 * scheme's countdown to its walk: the new quota waits until b's scheme has walked.
	 */
	{
		pid_t hg = holder("b", 64, 0);
		uint64_t c0 = paddr_stats(p)->commits, h0 = paddr_stats(p)->commits_held;
		char q0[32];

		str_copy(q0, sizeof(q0), fake_get(f, K "schemes/0/quotas/bytes"));
		paddr_cycle(p);
		if (abi == FAKE_ABI_612) {
			ok(paddr_stats(p)->commits == c0 &&
				   paddr_stats(p)->commits_held == h0 + 1 &&
				   !strcmp(fake_get(f, K "schemes/0/quotas/bytes"), q0),
			   "6.12: b grew; its new quota waits for the schemes' walks (no commit)");
			paddr_cycle(p);
			ok(paddr_stats(p)->commits == c0 && paddr_stats(p)->commits_held == h0 + 2,
			   "6.12: and waits again the next cycle");
			/* both schemes walk (the commit restarts every scheme's countdown) */
			fake_set(f, K "schemes/0/stats/nr_tried", "5");
			fake_set(f, K "schemes/1/stats/nr_tried", "5");
		}
		paddr_cycle(p);
		ok(paddr_stats(p)->commits == c0 + 1 &&
			   strcmp(fake_get(f, K "schemes/0/quotas/bytes"), q0),
		   "%s: %s", a,
		   abi == FAKE_ABI_612 ? "committed once every scheme walked (nr_tried grew)"
				       : "b grew: its new quota is committed at once (the kernel "
					 "keeps the countdown)");
		reap(hg);
	}

	frozen_gate(f, p, cfg);
	limit_binding(f, p, cfg, a);

	/* the kdamond turned off by someone else: restarted */
	fake_set(f, "kdamonds/1/state", "off");
	paddr_cycle(p);
	is_str(fake_get(f, "kdamonds/1/state"), "on", "%s: restarted after someone stopped it", a);
	is_u64(paddr_stats(p)->restarts, 2, "%s: counted as a restart", a);

	paddr_free(p);
	p = NULL;
	is_str(fake_get(f, "kdamonds/1/state"), "off", "%s: the engine's end turns it off", a);
	reap(hb);
	reap(hc);
	join(NULL);
	free(selfmem);
	selfmem = NULL;
	cg_remove("self");
	cg_remove("b");
	cg_remove("c");
	cg_remove("empty");
out:
	reap(ha);
	paddr_free(p);
	damon_release(&d);
	damon_close(&d);
	cfg_free(cfg);
	fake_free(f);
}

/*
 * 7.3: the kernel charges what pageout reclaims (a failed byte 1/1024): the quota is not
 * scaled by RAM. The kdamond is paused, not stopped, while every policy is paused or no
 * cgroup has a scheme, and resumed by a commit: one thread all along, its regions kept.
 */
static void pause73(void)
{
	struct fakedamon *f = fake_new(FAKE_ABI_73);
	struct damon_io io = fake_io(f);
	char proc[PATH_MAX + 8], want[PATH_MAX * 2];
	struct damon d;
	struct paddr *p = NULL;
	struct cfg *cfg;
	const struct paddr_cgroup_stats *cs;
	const char *pid;
	char pid0[32] = "";
	pid_t ha = -1, hb = -1;

	snprintf(proc, sizeof(proc), "%s/proc", f->top);
	fake_proc(proc);
	str_copy(f->memcg_root, sizeof(f->memcg_root), cg.mount);
	cfg = load(f->top, f->state_dir, proc, false);
	ok(cg_make("a") == 0 && (ha = holder("a", 4, 0)) > 0, "7.3: cgroup a holds 4 MiB");
	ok(cfg && damon_open(&d, f->admin, f->state_dir, &io) == 0 && damon_acquire(&d) == 0 &&
		   paddr_new(&p, cfg, &d, &cg) == 0,
	   "7.3: the engine over the emulated tree");
	if (!p)
		goto out;
	paddr_cycle(p);
	snprintf(want, sizeof(want), "%s/a", base);
	cs = paddr_cgroup_stats(p, want);
	is_str(fake_get(f, K "schemes/0/quotas/fail_charge_num"), "1", "7.3: fail_charge_num 1");
	is_str(fake_get(f, K "schemes/0/quotas/fail_charge_denom"), "1024",
	       "7.3: fail_charge_denom 1024");
	ok(cs && cs->walk_scale == 1, "7.3: no walk_scale: the kernel charges what it reclaims");
	is_str(fake_get(f, K "schemes/0/quotas/bytes"), "671088640",
	       "7.3: the quota as configured, 64M/1s for the 10 s between two walks");
	is_str(fake_get(f, K "pause"), "N", "7.3: the kdamond runs unpaused");
	pid = fake_get(f, "kdamonds/1/pid");
	str_copy(pid0, sizeof(pid0), pid);

	/* the operator pauses the only policy: the kdamond pauses, its scheme stays (stat) */
	is_int(paddr_pause(p, "host", true), 0, "7.3: pageoutctl pause host");
	paddr_cycle(p);
	is_str(fake_get(f, K "pause"), "Y", "7.3: every policy paused: the kdamond is paused");
	ok(!strcmp(fake_get(f, K "schemes/0/action"), "stat") &&
		   !strcmp(fake_get(f, "kdamonds/1/state"), "on") && paddr_stats(p)->kdamond_paused,
	   "7.3: online (state on), its scheme a stat one, the stats say paused");
	ok(strstr(logbuf, "paused: every policy with a scheme is paused") != NULL,
	   "7.3: and the log says so");
	paddr_pause(p, "host", false);
	paddr_cycle(p);
	ok(!strcmp(fake_get(f, K "pause"), "N") &&
		   !strcmp(fake_get(f, K "schemes/0/action"), "pageout") &&
		   !paddr_stats(p)->kdamond_paused,
	   "7.3: resumed: unpaused, pageout again");

	/* a goes away: no scheme left; paused, not stopped; b appears: resumed, no restart */
	reap(ha);
	ha = -1;
	cg_remove("a");
	paddr_cycle(p);
	ok(!strcmp(fake_get(f, "kdamonds/1/state"), "on") && !strcmp(fake_get(f, K "pause"), "Y") &&
		   !strcmp(fake_get(f, K "schemes/nr_schemes"), "0"),
	   "7.3: no cgroup left: the kdamond is paused with no scheme, not turned off");
	ok(cg_make("b") == 0 && (hb = holder("b", 4, 0)) > 0, "7.3: cgroup b appears");
	paddr_cycle(p);
	ok(!strcmp(fake_get(f, K "pause"), "N") &&
		   !strcmp(fake_get(f, K "schemes/nr_schemes"), "1") &&
		   !strcmp(fake_get(f, "kdamonds/1/pid"), pid0) && paddr_stats(p)->restarts == 1,
	   "7.3: resumed with b's scheme by a commit: the same kdamond (pid %s), one start", pid0);
	paddr_free(p);
	p = NULL;
	is_str(fake_get(f, "kdamonds/1/state"), "off", "7.3: the engine's end turns it off");
	reap(hb);
	cg_remove("b");
out:
	reap(ha);
	paddr_free(p);
	damon_release(&d);
	damon_close(&d);
	cfg_free(cfg);
	fake_free(f);
}

/*
 * A max_usage rig: the engine over an emulated tree of abi with one memory node, a policy over
 * the cgroups under base with a ceiling of about 4 MiB, and cgroup u holding 16 MiB (12 above the ceiling).
 */
struct usage_rig {
	struct fakedamon *f;
	struct damon_io io;
	struct damon d;
	bool opened;
	struct cfg *cfg;
	struct paddr *p;
	struct policy_input in;
	pid_t h;
};

/* usage_up: the rig, two test lines named by `who`. false when the engine did not start. */
static bool usage_up(struct usage_rig *u, enum fake_abi abi, const char *who)
{
	char proc[PATH_MAX + 8], zi[PATH_MAX + 16], daemon[PATH_MAX * 2 + 64];
	char policy[PATH_MAX + 160];
	char *mi = NULL;
	FILE *fp;

	memset(u, 0, sizeof(*u));
	u->h = -1;
	u->f = fake_new(abi);
	u->io = fake_io(u->f);
	snprintf(proc, sizeof(proc), "%s/proc", u->f->top);
	fake_proc(proc);
	/* one memory node: where the kernel has the goal tuner, its goal holds the ceiling */
	snprintf(zi, sizeof(zi), "%s/zoneinfo", proc);
	fp = fopen(zi, "w");
	if (fp) {
		fputs("Node 0, zone   Normal\n        managed  262144\n", fp);
		fclose(fp);
	}
	str_copy(u->f->memcg_root, sizeof(u->f->memcg_root), cg.mount);
	if (read_file_alloc_at(AT_FDCWD, "/proc/meminfo", &mi) > 0)
		policy_parse_meminfo(mi, &u->in);
	free(mi);
	snprintf(daemon, sizeof(daemon), "interval = 1s\nstate_dir = %s\nproc_root = %s\n",
		 u->f->state_dir, proc);
	snprintf(policy, sizeof(policy),
		 "[policy]\ncgroup = %s/*\nengine = paddr\nmin_age = 10s\nquota = 64M/1s\n"
		 "swap_reserve = 0%%\nmax_usage = %.4f%%\n",
		 base, u->in.mem_total ? 100.0 * 4 * MIB / (double)u->in.mem_total : 1.0);
	if (u->in.mem_total)
		u->cfg = cfgtext_load(u->f->top, daemon, policy);
	ok(cg_make("u") == 0 && (u->h = holder("u", 16, 0)) > 0, "%s: cgroup u holds 16 MiB", who);
	ok(u->cfg && (u->opened = damon_open(&u->d, u->f->admin, u->f->state_dir, &u->io) == 0) &&
		   damon_acquire(&u->d) == 0 && paddr_new(&u->p, u->cfg, &u->d, &cg) == 0,
	   "%s: the engine over the emulated tree, max_usage about 4 MiB", who);
	return u->p != NULL;
}

static void usage_down(struct usage_rig *u)
{
	paddr_free(u->p);
	if (u->opened) {
		damon_release(&u->d);
		damon_close(&u->d);
	}
	reap(u->h);
	cg_remove("u");
	cfg_free(u->cfg);
	fake_free(u->f);
}

/*
 * 7.3 with max_usage: the cap on a walk's quota (what the cgroup holds above its ceiling)
 * applies to the quota as configured, walk_scale being 1 where the kernel charges a failed
 * byte 1/1024; the scheme carries the ratio and the kernel's usage goal together.
 */
static void usage73(void)
{
	const struct paddr_cgroup_stats *cs;
	struct usage_rig u;
	char name[PATH_MAX + 8], want[32];

	if (!usage_up(&u, FAKE_ABI_73, "7.3"))
		goto out;
	paddr_cycle(u.p);
	snprintf(name, sizeof(name), "%s/u", base);
	cs = paddr_cgroup_stats(u.p, name);
	ok(cs && cs->walk_scale == 1 && !strcmp(cs->max_usage_by, "kernel"),
	   "7.3: walk_scale 1, the kernel's goal holds the ceiling");
	snprintf(want, sizeof(want), "%" PRIu64,
		 cs ? pscheme_usage_cap(cs->resident, cs->max_usage_bytes) : 0);
	ok(cs && strcmp(want, "671088640") &&
		   !strcmp(fake_get(u.f, K "schemes/0/quotas/bytes"), want),
	   "7.3: the quota capped at what lies above the ceiling (%s, not 64M/1s x 10 s)", want);
	ok(!strcmp(fake_get(u.f, K "schemes/0/quotas/fail_charge_denom"), "1024") &&
		   !strcmp(fake_get(u.f, K "schemes/0/quotas/goals/1/target_metric"),
			   "node_memcg_free_bp"),
	   "7.3: the charge ratio beside the per-cgroup goal");
out:
	usage_down(&u);
}

/*
 * 6.12 with max_usage: pageoutd holds the ceiling. Above it the walk's quota is capped at what
 * lies above, and max_usage binds; at or below it the scheme is paused (below_max_usage), and
 * max_usage still binds: one condition, logged once, on either side of the ceiling.
 */
static void usage612(void)
{
	const struct paddr_policy_stats *ps;
	struct report_src src = { .status = "test" };
	struct sbuf st = { 0 };
	struct usage_rig u;

	if (!usage_up(&u, FAKE_ABI_612, "6.12"))
		goto out;
	src.cfg = u.cfg;
	src.paddr = u.p;
	ps = paddr_policy_stats(u.p, "host");
	log_mark = strlen(logbuf);
	paddr_cycle(u.p); /* commits the capped quota */
	set_effective(u.f, 0, 1, 1);
	paddr_cycle(u.p); /* reads what the kernel has */
	ok(ps && ps->binding == PADDR_LIMIT_BIT(PADDR_LIMIT_MAX_USAGE) &&
		   log_count("paddr policy host: max_usage binds") == 1,
	   "6.12: above the ceiling, its cap on the quota binds, logged once");
	report_status(&src, &st);
	ok(st.s && strstr(st.s, "active (max_usage binds)"), "6.12: status names it");
	sbuf_fini(&st);

	/* the ceiling raised over what the cgroup holds: paused, and the ceiling still binds */
	u.cfg->policies[0].max_usage =
		u.in.mem_total ? (uint32_t)(1e6 * 64 * MIB / u.in.mem_total) : 1;
	ok(paddr_set_config(u.p, u.cfg) == 0, "6.12: reloaded with a ceiling of about 64 MiB");
	paddr_cycle(u.p);
	paddr_cycle(u.p);
	is_str(fake_get(u.f, K "schemes/0/action"), "stat", "6.12: below it, the scheme is paused");
	ok(ps && ps->binding == PADDR_LIMIT_BIT(PADDR_LIMIT_MAX_USAGE) &&
		   log_count("paddr policy host: max_usage binds") == 1 && !log_count("cleared"),
	   "6.12: max_usage still binds, the same condition, nothing logged again");
	report_status(&src, &st);
	ok(st.s && strstr(st.s, "paused: below_max_usage\n"),
	   "6.12: status says paused below the ceiling, and only that");
	sbuf_fini(&st);
out:
	usage_down(&u);
}

/* More cgroups than schemes: refused with an error, never silently. Dry run: stat schemes. */
static void limits(void)
{
	struct fakedamon *f = fake_new(FAKE_ABI_72);
	struct damon_io io = fake_io(f);
	char proc[PATH_MAX + 8], name[32];
	struct damon d;
	struct paddr *p = NULL;
	struct cfg *cfg;
	unsigned n = PADDR_MAX_SCHEMES + 2, made = 0;
	pid_t h;

	snprintf(proc, sizeof(proc), "%s/proc", f->top);
	fake_proc(proc);
	cfg = load(f->top, f->state_dir, proc, true);
	for (unsigned i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "tour%u", i);
		made += cg_make(name) == 0;
	}
	ok(cg_make("last") == 0 && made == n, "%u cgroups", n + 1);
	h = holder("last", 1, n);
	ok(h > 0 && cfg && damon_open(&d, f->admin, f->state_dir, &io) == 0 &&
		   damon_acquire(&d) == 0 && paddr_new(&p, cfg, &d, &cg) == 0,
	   "each holds memory (a child visited them all); dry run");
	if (p) {
		/* the kernel flushes small memcg statistics every 2 s */
		usleep(2500000);
		logbuf[0] = '\0';
		paddr_cycle(p);
		is_str(fake_get(f, K "schemes/nr_schemes"), "64", "at most %d schemes",
		       PADDR_MAX_SCHEMES);
		ok(paddr_policy_stats(p, "host")->refused == n + 1 - PADDR_MAX_SCHEMES,
		   "the rest are counted as refused");
		ok(strstr(logbuf, "more cgroups hold memory than the 64 schemes") != NULL,
		   "and an error says so");
		logbuf[0] = '\0';
		paddr_cycle(p);
		ok(!strstr(logbuf, "more cgroups hold memory"),
		   "once: the next cycle, still refusing them, does not repeat it");
		is_str(fake_get(f, K "schemes/0/action"), "stat",
		       "dry run: the schemes only count, nothing is reclaimed");
		paddr_free(p);
		damon_release(&d);
		damon_close(&d);
	}
	reap(h);
	for (unsigned i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "tour%u", i);
		cg_remove(name);
	}
	cg_remove("last");
	cfg_free(cfg);
	fake_free(f);
}

/* Write text to f->top/swap<base>/rel/name, creating the directories. */
static void put_swap(struct fakedamon *f, const char *rel, const char *name, const char *text)
{
	char q[PATH_MAX * 3];
	FILE *fp;

	snprintf(q, sizeof(q), "mkdir -p '%s/swap%s/%s'", f->top, base, rel);
	if (system(q) != 0)
		return;
	snprintf(q, sizeof(q), "%s/swap%s/%s/%s", f->top, base, rel, name);
	fp = fopen(q, "w");
	if (fp) {
		fprintf(fp, "%s\n", text);
		fclose(fp);
	}
}

/* the fake meminfo: 4 GiB of RAM, 1 GiB of swap with free_mib free */
static void put_meminfo(const char *proc, unsigned free_mib)
{
	char path[PATH_MAX + 16];
	FILE *mi;

	snprintf(path, sizeof(path), "%s/meminfo", proc);
	mi = fopen(path, "w");
	if (mi) {
		fprintf(mi,
			"MemTotal: 4194304 kB\nMemFree: 2097152 kB\nSwapTotal: 1048576 kB\n"
			"SwapFree: %u kB\n",
			free_mib * 1024);
		fclose(mi);
	}
}

/*
 * Kubernetes' LimitedSwap writes memory.swap.max = 0 on the container cgroups below a pod's.
 * DAMOS's memcg filter matches one memcg exactly, so each cgroup below a matched one that holds
 * memory has a scheme of its own, gated on its own swap room. A matched pod, a container in it
 * that may not swap and one that may, each holding 4 MiB; the swap files in a v2 tree of plain
 * files, a /proc with free swap: with memory = anon, only the limited one's scheme is paused
 * (swap_limit), and the pod, without memory of its own, has none.
 */
static void leaf_swap(void)
{
	static const char *const rel[] = { "pod", "pod/limited", "pod/free" };
	struct fakedamon *f = fake_new(FAKE_ABI_72);
	struct damon_io io = fake_io(f);
	struct cgrp_root fcg = cg;
	char proc[PATH_MAX + 8], daemon[PATH_MAX * 2 + 96], policy[PATH_MAX + 160],
		path[3][PATH_MAX * 2];
	const struct paddr_cgroup_stats *lim = NULL, *free_ = NULL;
	struct damon d;
	struct paddr *p = NULL;
	struct cfg *cfg;
	pid_t h[2] = { -1, -1 };

	snprintf(proc, sizeof(proc), "%s/proc", f->top);
	fake_proc(proc);
	put_meminfo(proc, 1024); /* all of its 1 GiB of swap free */
	str_copy(f->memcg_root, sizeof(f->memcg_root), cg.mount);
	snprintf(fcg.swap, sizeof(fcg.swap), "%s/swap", f->top);
	snprintf(daemon, sizeof(daemon), "interval = 1s\nstate_dir = %s\nproc_root = %s\n",
		 f->state_dir, proc);
	snprintf(policy, sizeof(policy),
		 "[policy]\ncgroup = %s/pod*\nengine = paddr\nmin_age = 10s\nquota = 64M/1s\n"
		 "memory = anon\nswap_reserve = 0%%\n",
		 base);
	cfg = cfgtext_load(f->top, daemon, policy);
	for (unsigned k = 0; k < 3; k++) {
		snprintf(path[k], sizeof(path[k]), "%s/%s", base, rel[k]);
		put_swap(f, rel[k], "memory.swap.max", k == 1 ? "0" : "max");
		put_swap(f, rel[k], "memory.swap.current", "0");
	}
	if (cg_make("pod") == 0 && cg_make("pod/limited") == 0 && cg_make("pod/free") == 0) {
		h[0] = holder("pod/limited", 4, 0);
		h[1] = holder("pod/free", 4, 0);
	}
	ok(cfg && h[0] > 0 && h[1] > 0 && damon_open(&d, f->admin, f->state_dir, &io) == 0 &&
		   damon_acquire(&d) == 0 && paddr_new(&p, cfg, &d, &fcg) == 0,
	   "LimitedSwap: a pod matched, a container with swap.max 0 and one with max below it");
	if (p) {
		paddr_cycle(p);
		if (!paddr_cgroup_stats(p, path[1]) || !paddr_cgroup_stats(p, path[2])) {
			usleep(2500000); /* the kernel flushes small memcg statistics every 2 s */
			paddr_cycle(p);
		}
		lim = paddr_cgroup_stats(p, path[1]);
		free_ = paddr_cgroup_stats(p, path[2]);
		ok(lim && free_ && !paddr_cgroup_stats(p, path[0]),
		   "each container has a scheme of its own, the pod (no memory of its own) none");
		ok(lim && lim->paused && !strcmp(lim->paused_why, "swap_limit"),
		   "the container with swap.max 0 is paused: swap_limit (%s)",
		   lim ? lim->paused_why : "no scheme");
		ok(free_ && !free_->paused, "the one that may swap is not paused");
		paddr_free(p);
		damon_release(&d);
		damon_close(&d);
	}
	reap(h[0]);
	reap(h[1]);
	cg_remove("pod/limited");
	cg_remove("pod/free");
	cg_remove("pod");
	cfg_free(cfg);
	fake_free(f);
}

/*
 * Shared memory is swap-backed: a file-only scheme takes a cgroup's shmem too (DAMOS tells
 * anonymous pages from the rest, not shmem from page cache), so below swap_reserve a cgroup
 * holding shmem is paused (swap_reserve) and one without keeps its scheme; with swap room
 * again it resumes.
 */
static void shmem_reserve(void)
{
	struct fakedamon *f = fake_new(FAKE_ABI_72);
	struct damon_io io = fake_io(f);
	struct holder_args sa = { "shm", 4, 0, true };
	char proc[PATH_MAX + 8], daemon[PATH_MAX * 2 + 96], policy[PATH_MAX + 160],
		psh[PATH_MAX * 2], ppc[PATH_MAX * 2];
	const struct paddr_cgroup_stats *sh = NULL, *pc = NULL;
	struct damon d;
	struct paddr *p = NULL;
	struct cfg *cfg;
	pid_t h[2] = { -1, -1 };

	snprintf(proc, sizeof(proc), "%s/proc", f->top);
	fake_proc(proc);
	put_meminfo(proc, 100); /* 100 MiB free of 1 GiB: below a 50% reserve */
	str_copy(f->memcg_root, sizeof(f->memcg_root), cg.mount);
	snprintf(daemon, sizeof(daemon), "interval = 1s\nstate_dir = %s\nproc_root = %s\n",
		 f->state_dir, proc);
	snprintf(policy, sizeof(policy),
		 "[policy]\ncgroup = %s/s*\nengine = paddr\nmin_age = 10s\nquota = 64M/1s\n"
		 "memory = file\nswap_reserve = 50%%\n",
		 base);
	cfg = cfgtext_load(f->top, daemon, policy);
	snprintf(psh, sizeof(psh), "%s/shm", base);
	snprintf(ppc, sizeof(ppc), "%s/srest", base);
	if (cg_make("shm") == 0 && cg_make("srest") == 0) {
		h[0] = child_fork(holder_setup, NULL, &sa);
		h[1] = holder("srest", 4, 0);
	}
	ok(cfg && h[0] > 0 && h[1] > 0 && damon_open(&d, f->admin, f->state_dir, &io) == 0 &&
		   damon_acquire(&d) == 0 && paddr_new(&p, cfg, &d, &cg) == 0,
	   "shmem: memory = file below swap_reserve, a cgroup with 4 MiB of shmem, one without");
	if (!p)
		goto out;
	for (int i = 0; i < 2 && (!paddr_cgroup_stats(p, psh) || !paddr_cgroup_stats(p, ppc) ||
				  !paddr_cgroup_stats(p, psh)->paused);
	     i++) {
		paddr_cycle(p);
		usleep(i ? 0 : 2500000); /* the kernel flushes small memcg statistics every 2 s */
	}
	paddr_cycle(p);
	sh = paddr_cgroup_stats(p, psh);
	pc = paddr_cgroup_stats(p, ppc);
	ok(sh && sh->paused && !strcmp(sh->paused_why, "swap_reserve"),
	   "the cgroup holding shmem is paused below the reserve: swap_reserve (%s)",
	   sh ? sh->paused_why : "no scheme");
	ok(pc && !pc->paused, "the one without shmem keeps its file scheme");
	put_meminfo(proc, 900);
	paddr_cycle(p);
	ok(sh && !sh->paused, "with swap room again, the shmem cgroup's scheme resumes");
	paddr_free(p);
	damon_release(&d);
	damon_close(&d);
out:
	reap(h[0]);
	reap(h[1]);
	cg_remove("shm");
	cg_remove("srest");
	cfg_free(cfg);
	fake_free(f);
}

int main(void)
{
	char *own = own_cg, p[PATH_MAX * 2];

	log_setup(LOG_TARGET_STDERR, LOG_ERR);
	log_set_level(LOG_INFO);
	log_set_capture(capture);
	if (cgrp_init(&cg) < 0 || cgrp_of_pid(getpid(), own, sizeof(own_cg)) < 0)
		tap_skip_all("no memory cgroup hierarchy");
	snprintf(base, sizeof(base), "%s/pageoutd-paddr-%d", strcmp(own, "/") ? own : "",
		 (int)getpid());
	snprintf(p, sizeof(p), "%s%s", cg.mount, base);
	if (mkdir(p, 0755) < 0)
		tap_skip_all("cannot create a child of this test's own memory cgroup");
	run(FAKE_ABI_612);
	run(FAKE_ABI_72);
	pause73();
	usage73();
	usage612();
	limits();
	leaf_swap();
	shmem_reserve();
	rmdir(p);
	return tap_exit();
}
