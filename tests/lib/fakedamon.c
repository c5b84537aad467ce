// SPDX-License-Identifier: GPL-2.0-or-later
/* fakedamon: an emulated DAMON sysfs tree; see fakedamon.h. */
#include <config.h>

#define _XOPEN_SOURCE_EXTENDED 1
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fakedamon.h"
#include "pageoutd/util.h"

static void die(const char *what)
{
	perror(what);
	exit(99);
}

static void put(struct fakedamon *f, const char *rel, const char *val)
{
	char p[PATH_MAX * 2];
	FILE *fp;

	snprintf(p, sizeof(p), "%s/%s", f->admin, rel);
	fp = fopen(p, "w");
	if (!fp)
		die(p);
	fprintf(fp, "%s\n", val);
	fclose(fp);
}

static void dir(struct fakedamon *f, const char *rel)
{
	char p[PATH_MAX * 2];

	snprintf(p, sizeof(p), "%s/%s", f->admin, rel);
	if (mkdir(p, 0755) < 0 && errno != EEXIST)
		die(p);
}

static int rm_cb(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static void rm_rf(const char *abs)
{
	nftw(abs, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

/* remove numbered children >= 0 of rel */
static void rm_children(struct fakedamon *f, const char *rel)
{
	char p[PATH_MAX * 2];

	for (unsigned i = 0; i < 100000; i++) {
		struct stat st;

		snprintf(p, sizeof(p), "%s/%s/%u", f->admin, rel, i);
		if (stat(p, &st) < 0)
			break;
		rm_rf(p);
	}
}

const char *fake_get(struct fakedamon *f, const char *rel)
{
	static char buf[256];
	char p[PATH_MAX * 2];
	ssize_t n;

	snprintf(p, sizeof(p), "%s/%s", f->admin, rel);
	n = read_file_at(AT_FDCWD, p, buf, sizeof(buf));
	if (n < 0)
		buf[0] = '\0';
	return str_strip(buf);
}

void fake_set(struct fakedamon *f, const char *rel, const char *val)
{
	put(f, rel, val);
}

static uint64_t get_u64(struct fakedamon *f, const char *rel)
{
	uint64_t v = 0;

	parse_u64(fake_get(f, rel), &v);
	return v;
}

#define P(...) (snprintf(p, sizeof(p), __VA_ARGS__), p)
/* a value, in its own buffer: put(f, P(path), V(value)) */
#define V(...) (snprintf(v_, sizeof(v_), __VA_ARGS__), v_)

static void mk_filter(struct fakedamon *f, const char *base)
{
	char p[512];

	dir(f, base);
	put(f, P("%s/type", base), "anon");
	put(f, P("%s/matching", base), "N");
	put(f, P("%s/memcg_path", base), "");
	put(f, P("%s/addr_start", base), "0");
	put(f, P("%s/addr_end", base), "0");
	put(f, P("%s/damon_target_idx", base), "0");
	if (f->abi >= FAKE_ABI_72) {
		put(f, P("%s/allow", base), "N");
		put(f, P("%s/min", base), "0");
		put(f, P("%s/max", base), "0");
	}
}

static void mk_filters_dir(struct fakedamon *f, const char *base)
{
	char p[512];

	dir(f, base);
	put(f, P("%s/nr_filters", base), "0");
}

/* the counters of a scheme's stats directory, as fakedamon.kstats keeps them */
static const char *const stat_names[] = { "nr_tried", "sz_tried", "nr_applied", "sz_applied",
					  "qt_exceeds" };

static void mk_scheme(struct fakedamon *f, const char *s)
{
	char p[512];

	dir(f, s);
	put(f, P("%s/action", s), "stat");
	if (f->abi >= FAKE_ABI_612) {
		put(f, P("%s/apply_interval_us", s), "0");
		put(f, P("%s/target_nid", s), "-1");
	}
	dir(f, P("%s/access_pattern", s));
	for (int i = 0; i < 3; i++) {
		static const char *const k[] = { "sz", "nr_accesses", "age" };

		dir(f, P("%s/access_pattern/%s", s, k[i]));
		put(f, P("%s/access_pattern/%s/min", s, k[i]), "0");
		put(f, P("%s/access_pattern/%s/max", s, k[i]), "0");
	}
	dir(f, P("%s/quotas", s));
	put(f, P("%s/quotas/ms", s), "0");
	put(f, P("%s/quotas/bytes", s), "0");
	put(f, P("%s/quotas/reset_interval_ms", s), "0");
	dir(f, P("%s/quotas/weights", s));
	put(f, P("%s/quotas/weights/sz_permil", s), "0");
	put(f, P("%s/quotas/weights/nr_accesses_permil", s), "0");
	put(f, P("%s/quotas/weights/age_permil", s), "0");
	if (f->abi >= FAKE_ABI_612) {
		put(f, P("%s/quotas/effective_bytes", s), "0");
		dir(f, P("%s/quotas/goals", s));
		put(f, P("%s/quotas/goals/nr_goals", s), "0");
	}
	if (f->abi >= FAKE_ABI_72) {
		put(f, P("%s/quotas/goal_tuner", s), "consist");
		if (f->abi >= FAKE_ABI_73) {
			put(f, P("%s/quotas/fail_charge_num", s), "0");
			put(f, P("%s/quotas/fail_charge_denom", s), "0");
		}
		dir(f, P("%s/dests", s));
		put(f, P("%s/dests/nr_dests", s), "0");
		mk_filters_dir(f, P("%s/core_filters", s));
		mk_filters_dir(f, P("%s/ops_filters", s));
	}
	dir(f, P("%s/watermarks", s));
	put(f, P("%s/watermarks/metric", s), "none");
	put(f, P("%s/watermarks/interval_us", s), "0");
	put(f, P("%s/watermarks/high", s), "0");
	put(f, P("%s/watermarks/mid", s), "0");
	put(f, P("%s/watermarks/low", s), "0");
	if (f->abi >= FAKE_ABI_612)
		mk_filters_dir(f, P("%s/filters", s));
	dir(f, P("%s/stats", s));
	for (size_t i = 0; i < ARRAY_SIZE(stat_names); i++)
		put(f, P("%s/stats/%s", s, stat_names[i]), "0");
	if (f->abi >= FAKE_ABI_72)
		put(f, P("%s/stats/sz_ops_filter_passed", s), "0");
	dir(f, P("%s/tried_regions", s));
	if (f->abi >= FAKE_ABI_612)
		put(f, P("%s/tried_regions/total_bytes", s), "0");
}

static void mk_context(struct fakedamon *f, const char *c)
{
	char p[512];

	dir(f, c);
	put(f, P("%s/avail_operations", c), "vaddr fvaddr paddr");
	put(f, P("%s/operations", c), "vaddr");
	dir(f, P("%s/monitoring_attrs", c));
	dir(f, P("%s/monitoring_attrs/intervals", c));
	put(f, P("%s/monitoring_attrs/intervals/sample_us", c), "5000");
	put(f, P("%s/monitoring_attrs/intervals/aggr_us", c), "100000");
	put(f, P("%s/monitoring_attrs/intervals/update_us", c), "60000000");
	if (f->abi >= FAKE_ABI_72) {
		dir(f, P("%s/monitoring_attrs/intervals/intervals_goal", c));
		put(f, P("%s/monitoring_attrs/intervals/intervals_goal/access_bp", c), "0");
		put(f, P("%s/monitoring_attrs/intervals/intervals_goal/aggrs", c), "0");
		put(f, P("%s/monitoring_attrs/intervals/intervals_goal/min_sample_us", c), "0");
		put(f, P("%s/monitoring_attrs/intervals/intervals_goal/max_sample_us", c), "0");
		put(f, P("%s/addr_unit", c), "1");
	}
	if (f->abi >= FAKE_ABI_73)
		put(f, P("%s/pause", c), "N");
	dir(f, P("%s/monitoring_attrs/nr_regions", c));
	put(f, P("%s/monitoring_attrs/nr_regions/min", c), "10");
	put(f, P("%s/monitoring_attrs/nr_regions/max", c), "1000");
	dir(f, P("%s/targets", c));
	put(f, P("%s/targets/nr_targets", c), "0");
	dir(f, P("%s/schemes", c));
	put(f, P("%s/schemes/nr_schemes", c), "0");
}

static void mk_kdamond(struct fakedamon *f, const char *k)
{
	char p[512];

	dir(f, k);
	put(f, P("%s/state", k), "off");
	put(f, P("%s/pid", k), "-1");
	if (f->abi >= FAKE_ABI_72)
		put(f, P("%s/refresh_ms", k), "0");
	dir(f, P("%s/contexts", k));
	put(f, P("%s/contexts/nr_contexts", k), "0");
}

static void mk_target(struct fakedamon *f, const char *t)
{
	char p[512];

	dir(f, t);
	put(f, P("%s/pid_target", t), "0");
	if (f->abi >= FAKE_ABI_72)
		put(f, P("%s/obsolete_target", t), "N");
	dir(f, P("%s/regions", t));
	put(f, P("%s/regions/nr_regions", t), "0");
}

static void mk_region(struct fakedamon *f, const char *r)
{
	char p[512];

	dir(f, r);
	put(f, P("%s/start", r), "0");
	put(f, P("%s/end", r), "0");
}

static void mk_goal(struct fakedamon *f, const char *g)
{
	char p[512];

	dir(f, g);
	put(f, P("%s/target_metric", g), "user_input");
	put(f, P("%s/target_value", g), "0");
	put(f, P("%s/current_value", g), "0");
	if (f->abi >= FAKE_ABI_72) {
		put(f, P("%s/nid", g), "0");
		put(f, P("%s/path", g), "");
	}
}

struct fakedamon *fake_new(enum fake_abi abi)
{
	struct fakedamon *f = calloc(1, sizeof(*f));
	char p[PATH_MAX * 2];

	if (!f)
		die("calloc");
	f->abi = abi;
	f->next_kpid = 4000;
	snprintf(f->top, sizeof(f->top), "/tmp/pageoutd-fakedamon-XXXXXX");
	if (!mkdtemp(f->top))
		die("mkdtemp");
	snprintf(f->admin, sizeof(f->admin), "%s/fakesys/kernel/mm/damon/admin", f->top);
	snprintf(p, sizeof(p), "mkdir -p '%s' '%s/fakesys/module' '%s/state'", f->admin, f->top,
		 f->top);
	if (system(p) != 0)
		die("mkdir");
	snprintf(f->state_dir, sizeof(f->state_dir), "%s/state", f->top);
	dir(f, "kdamonds");
	put(f, "kdamonds/nr_kdamonds", "0");
	return f;
}

void fake_free(struct fakedamon *f)
{
	if (!f)
		return;
	rm_rf(f->top);
	free(f);
}

void fake_module(struct fakedamon *f, const char *module, const char *enabled)
{
	char p[PATH_MAX * 2];
	FILE *fp;

	snprintf(p, sizeof(p), "mkdir -p '%s/fakesys/module/%s/parameters'", f->top, module);
	if (system(p) != 0)
		die("mkdir");
	snprintf(p, sizeof(p), "%s/fakesys/module/%s/parameters/enabled", f->top, module);
	fp = fopen(p, "w");
	if (!fp)
		die(p);
	fprintf(fp, "%s\n", enabled);
	fclose(fp);
}

void fake_foreign(struct fakedamon *f, unsigned n, bool running)
{
	char p[256];

	put(f, "kdamonds/nr_kdamonds", P("%u", n));
	for (unsigned i = 0; i < n; i++) {
		mk_kdamond(f, P("kdamonds/%u", i));
		put(f, P("kdamonds/%u/contexts/nr_contexts", i), "1");
		mk_context(f, P("kdamonds/%u/contexts/0", i));
		put(f, P("kdamonds/%u/contexts/0/operations", i), "paddr");
		if (running && i == 0) {
			put(f, "kdamonds/0/state", "on");
			put(f, "kdamonds/0/pid", "777");
		}
	}
}

int fake_log_index(struct fakedamon *f, unsigned from, const char *suffix, const char *val)
{
	for (unsigned i = from; i < f->nlog; i++)
		if (str_has_suffix(f->log[i].path, suffix) && (!val || !strcmp(f->log[i].val, val)))
			return (int)i;
	return -1;
}

/* --- emulation of writes --- */

static bool any_running(struct fakedamon *f)
{
	char p[64];
	uint64_t n = get_u64(f, "kdamonds/nr_kdamonds");

	for (unsigned i = 0; i < n; i++)
		if (!strcmp(fake_get(f, P("kdamonds/%u/state", i)), "on"))
			return true;
	return false;
}

/* Rebuild the numbered children of the directory holding nr file `path`. */
static int rebuild(struct fakedamon *f, const char *path, uint64_t n)
{
	char parent[256], p[512];
	const char *leaf = strrchr(path, '/');
	const char *pdir;

	snprintf(parent, sizeof(parent), "%.*s", (int)(leaf - path), path);
	pdir = strrchr(parent, '/') ? strrchr(parent, '/') + 1 : parent;
	leaf++;
	if (!strcmp(leaf, "nr_contexts") && n > 1)
		return -EINVAL;
	if (!strcmp(leaf, "nr_kdamonds") && any_running(f))
		return -EBUSY;
	/*
	 * the kernel keeps its scheme objects, and their counters, for the indices that stay;
	 * the rebuilt stats files read 0 until update_schemes_stats shows the counters again
	 */
	unsigned slot;

	if (!strcmp(leaf, "nr_schemes") && sscanf(parent, "kdamonds/%u/", &slot) == 1 &&
	    slot < DAMON_MAX_KDAMONDS && !f->nkstats[slot]) {
		uint64_t i;

		for (i = 0; i < n && i < ARRAY_SIZE(f->kstats[slot]); i++) {
			if (!fake_get(f, P("%s/%" PRIu64 "/stats/nr_tried", parent, i))[0])
				break;
			for (size_t k = 0; k < ARRAY_SIZE(stat_names); k++)
				str_copy(f->kstats[slot][i][k], sizeof(f->kstats[slot][i][k]),
					 fake_get(f, P("%s/%" PRIu64 "/stats/%s", parent, i,
						       stat_names[k])));
		}
		f->nkstats[slot] = (unsigned)i;
	}
	rm_children(f, parent);
	for (uint64_t i = 0; i < n; i++) {
		P("%s/%" PRIu64, parent, i);
		if (!strcmp(leaf, "nr_kdamonds"))
			mk_kdamond(f, p);
		else if (!strcmp(leaf, "nr_contexts"))
			mk_context(f, p);
		else if (!strcmp(leaf, "nr_targets"))
			mk_target(f, p);
		else if (!strcmp(leaf, "nr_regions"))
			mk_region(f, p);
		else if (!strcmp(leaf, "nr_schemes"))
			mk_scheme(f, p);
		else if (!strcmp(leaf, "nr_filters"))
			mk_filter(f, p);
		else if (!strcmp(leaf, "nr_goals"))
			mk_goal(f, p);
		else if (!strcmp(leaf, "nr_dests"))
			dir(f, p);
	}
	(void)pdir;
	return 0;
}

/* A scheme's target filters and access pattern, read once for all regions (fill_tried). */
#define VIEW_FILTERS 16
struct scheme_view {
	unsigned nt;
	uint64_t target[VIEW_FILTERS];
	bool matching[VIEW_FILTERS];
	uint64_t sz_min, sz_max, acc_min, acc_max, age_min, age_max;
};

static void scheme_view(struct fakedamon *f, const char *s, struct scheme_view *w)
{
	const char *dirs[] = { "filters", "core_filters" };
	char p[512];

	memset(w, 0, sizeof(*w));
	for (size_t d = 0; d < ARRAY_SIZE(dirs); d++) {
		uint64_t n = get_u64(f, P("%s/%s/nr_filters", s, dirs[d]));

		for (uint64_t i = 0; i < n && w->nt < VIEW_FILTERS; i++) {
			char fb[384];

			snprintf(fb, sizeof(fb), "%s/%s/%" PRIu64, s, dirs[d], i);
			if (strcmp(fake_get(f, P("%s/type", fb)), "target"))
				continue;
			w->target[w->nt] = get_u64(f, P("%s/damon_target_idx", fb));
			w->matching[w->nt++] = fake_get(f, P("%s/matching", fb))[0] == 'Y';
		}
	}
	w->sz_min = get_u64(f, P("%s/access_pattern/sz/min", s));
	w->sz_max = get_u64(f, P("%s/access_pattern/sz/max", s));
	w->acc_min = get_u64(f, P("%s/access_pattern/nr_accesses/min", s));
	w->acc_max = get_u64(f, P("%s/access_pattern/nr_accesses/max", s));
	w->age_min = get_u64(f, P("%s/access_pattern/age/min", s));
	w->age_max = get_u64(f, P("%s/access_pattern/age/max", s));
}

/* Does region v pass the scheme's target filters and access pattern? */
static bool scheme_tries(const struct scheme_view *w, const struct fake_vregion *v)
{
	/* before 6.14 and with allow=N: filtered out when match == matching */
	for (unsigned i = 0; i < w->nt; i++)
		if ((w->target[i] == v->target) == w->matching[i])
			return false;
	return v->end - v->start >= w->sz_min && v->end - v->start <= w->sz_max &&
	       v->nr_accesses >= w->acc_min && v->nr_accesses <= w->acc_max &&
	       v->age >= w->age_min && v->age <= w->age_max;
}

static void fill_tried(struct fakedamon *f, const char *k)
{
	char p[512], v_[32], s[256], t[320];
	uint64_t ns = get_u64(f, P("%s/contexts/0/schemes/nr_schemes", k));
	unsigned g = 0; /* before 6.14 one counter names the region directories of all schemes */

	for (uint64_t i = 0; i < ns; i++) {
		unsigned j = 0;
		uint64_t total = 0;
		struct scheme_view w;

		snprintf(s, sizeof(s), "%s/contexts/0/schemes/%" PRIu64, k, i);
		snprintf(t, sizeof(t), "%s/tried_regions", s);
		rm_children(f, t);
		scheme_view(f, s, &w);
		for (unsigned r = 0; r < f->nvr; r++) {
			const struct fake_vregion *v = &f->vr[r];
			char rb[400];

			if (!scheme_tries(&w, v))
				continue;
			snprintf(rb, sizeof(rb), "%s/%u", t, f->abi == FAKE_ABI_612 ? g : j);
			g++;
			j++;
			dir(f, rb);
			put(f, P("%s/start", rb), V("%" PRIu64, v->start));
			put(f, P("%s/end", rb), V("%" PRIu64, v->end));
			put(f, P("%s/nr_accesses", rb), V("%u", v->nr_accesses));
			put(f, P("%s/age", rb), V("%u", v->age));
			if (f->abi >= FAKE_ABI_72)
				put(f, P("%s/sz_filter_passed", rb), "0");
			total += v->end - v->start;
		}
		if (f->abi >= FAKE_ABI_612)
			put(f, P("%s/total_bytes", t), V("%" PRIu64, total));
		put(f, P("%s/stats/nr_tried", s), V("%u", j));
	}
}

static int validate_ctx(struct fakedamon *f, const char *k)
{
	char p[512];

	if (get_u64(f, P("%s/contexts/nr_contexts", k)) != 1)
		return -EINVAL;
	if (get_u64(f, P("%s/contexts/0/monitoring_attrs/nr_regions/min", k)) < 3 ||
	    get_u64(f, P("%s/contexts/0/monitoring_attrs/nr_regions/min", k)) >
		    get_u64(f, P("%s/contexts/0/monitoring_attrs/nr_regions/max", k)))
		return -EINVAL;
	if (get_u64(f, P("%s/contexts/0/monitoring_attrs/intervals/sample_us", k)) >
	    get_u64(f, P("%s/contexts/0/monitoring_attrs/intervals/aggr_us", k)))
		return -EINVAL;
	/* the kernel resolves every memcg_path to an online memcg, or refuses with EINVAL */
	for (uint64_t i = 0; i < get_u64(f, P("%s/contexts/0/schemes/nr_schemes", k)); i++) {
		static const char *const dirs[] = { "filters", "core_filters", "ops_filters" };

		for (size_t d = 0; d < ARRAY_SIZE(dirs); d++) {
			char s[256];
			uint64_t nf;

			snprintf(s, sizeof(s), "%s/contexts/0/schemes/%" PRIu64 "/%s", k, i,
				 dirs[d]);
			nf = get_u64(f, P("%s/nr_filters", s));
			for (uint64_t j = 0; j < nf; j++) {
				char fb[300], abs[PATH_MAX * 2];
				const char *m;
				struct stat st;

				snprintf(fb, sizeof(fb), "%s/%" PRIu64, s, j);
				if (strcmp(fake_get(f, P("%s/type", fb)), "memcg"))
					continue;
				m = fake_get(f, P("%s/memcg_path", fb));
				if (m[0] != '/')
					return -EINVAL;
				snprintf(abs, sizeof(abs), "%s%s", f->memcg_root, m);
				if (f->memcg_root[0] &&
				    (stat(abs, &st) < 0 || !S_ISDIR(st.st_mode)))
					return -EINVAL;
			}
		}
	}
	return 0;
}

/* A kernel module holds DAMON: f->exclusive, or a module's enabled parameter reads Y. */
static bool module_holds(const struct fakedamon *f)
{
	static const char *const mods[] = { "damon_stat", "damon_reclaim", "damon_lru_sort" };
	char p[PATH_MAX * 2], v[8];

	for (size_t i = 0; i < sizeof(mods) / sizeof(mods[0]); i++) {
		snprintf(p, sizeof(p), "%s/fakesys/module/%s/parameters/enabled", f->top, mods[i]);
		if (read_file_at(AT_FDCWD, p, v, sizeof(v)) > 0 && v[0] == 'Y')
			return true;
	}
	return f->exclusive;
}

/*
 * A commit's targets against the kdamond's running ones (mm/damon/core.c damon_commit_targets):
 * the i-th running one is dropped when the i-th written one is obsolete, the others are matched
 * by index, the written ones beyond them appended; an obsolete one beyond them is refused.
 */
static int commit_targets(struct fakedamon *f, const char *k, unsigned *kt)
{
	char p[512];
	uint64_t n = get_u64(f, P("%s/contexts/0/targets/nr_targets", k));
	unsigned stay = 0;

	for (uint64_t i = 0; i < n; i++) {
		bool obsolete = fake_get(f, P("%s/contexts/0/targets/%" PRIu64 "/obsolete_target",
					      k, i))[0] == 'Y';

		if (obsolete && i >= *kt)
			return -EINVAL;
		stay += !obsolete;
	}
	*kt = stay;
	return 0;
}

static int state_write(struct fakedamon *f, const char *path, const char *val)
{
	unsigned slot = 0;
	char k[128], p[512], v_[32];
	bool on;
	int r;

	snprintf(k, sizeof(k), "%.*s", (int)(strrchr(path, '/') - path), path);
	on = !strcmp(fake_get(f, path), "on");
	if (sscanf(k, "kdamonds/%u", &slot) != 1 || slot >= DAMON_MAX_KDAMONDS)
		slot = 0;
	if (!strcmp(val, "on")) {
		if (on || module_holds(f))
			return -EBUSY;
		r = validate_ctx(f, k);
		if (r < 0)
			return r;
		put(f, path, "on");
		put(f, P("%s/pid", k), V("%d", f->next_kpid++));
		f->nkstats[slot] = 0; /* new scheme objects */
		f->ktargets[slot] = (unsigned)get_u64(f, P("%s/contexts/0/targets/nr_targets", k));
		return 0;
	}
	if (!on)
		return -EINVAL; /* off, commit and every update need a running kdamond */
	if (!strcmp(val, "off")) {
		put(f, path, "off");
		put(f, P("%s/pid", k), "-1");
		return 0;
	}
	if (!strcmp(val, "commit"))
		return validate_ctx(f, k) ?: commit_targets(f, k, &f->ktargets[slot]);
	if (!strcmp(val, "update_schemes_tried_regions")) {
		fill_tried(f, k);
		return 0;
	}
	if (!strcmp(val, "update_schemes_stats")) {
		uint64_t ns = get_u64(f, P("%s/contexts/0/schemes/nr_schemes", k));

		for (uint64_t i = 0; i < f->nkstats[slot] && i < ns; i++)
			for (size_t j = 0; j < ARRAY_SIZE(stat_names); j++)
				put(f,
				    P("%s/contexts/0/schemes/%" PRIu64 "/stats/%s", k, i,
				      stat_names[j]),
				    f->kstats[slot][i][j]);
		f->nkstats[slot] = 0;
		return 0;
	}
	if (!strcmp(val, "update_schemes_effective_quotas") ||
	    !strcmp(val, "clear_schemes_tried_regions") ||
	    !strcmp(val, "update_schemes_tried_bytes") || !strcmp(val, "update_tuned_intervals"))
		return 0;
	return -EINVAL;
}

static int fake_write(void *ctx, int dirfd, const char *path, const char *val)
{
	struct fakedamon *f = ctx;
	const char *leaf = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	char abs[PATH_MAX * 2];
	struct stat st;
	uint64_t n;
	int r;

	(void)dirfd;
	f->nwrites++;
	if (f->nlog < FAKE_LOG_MAX) {
		str_copy(f->log[f->nlog].path, sizeof(f->log[f->nlog].path), path);
		str_copy(f->log[f->nlog].val, sizeof(f->log[f->nlog].val), val);
		f->nlog++;
	}
	if ((f->fail_at && f->nwrites == f->fail_at) ||
	    (f->fail_path && str_has_suffix(path, f->fail_path)))
		return f->fail_err;
	snprintf(abs, sizeof(abs), "%s/%s", f->admin, path);
	if (stat(abs, &st) < 0)
		return -ENOENT;
	if (!strcmp(leaf, "state"))
		return state_write(f, path, val);
	if (!strncmp(leaf, "nr_", 3) && strcmp(leaf, "nr_accesses")) {
		if (parse_u64(val, &n) < 0)
			return -EINVAL;
		r = rebuild(f, path, n);
		if (r < 0)
			return r;
	}
	if (!strcmp(leaf, "matching") || !strcmp(leaf, "allow")) {
		bool b;

		if (parse_bool(val, &b) < 0 && strcmp(val, "Y") && strcmp(val, "N"))
			return -EINVAL;
		put(f, path, (val[0] == 'Y' || val[0] == '1' || val[0] == 'y') ? "Y" : "N");
		return 0;
	}
	if (!strcmp(leaf, "type") && strstr(path, "/ops_filters/") &&
	    (!strcmp(val, "target") || !strcmp(val, "addr")))
		return -EINVAL; /* 6.15+: core types are refused in ops_filters */
	put(f, path, val);
	return 0;
}

static ssize_t fake_read(void *ctx, int dirfd, const char *path, char *buf, size_t len)
{
	struct fakedamon *f = ctx;

	if (f->fail_read_path && strstr(path, f->fail_read_path))
		return f->fail_read_err;
	return read_file_at(dirfd, path, buf, len);
}

struct damon_io fake_io(struct fakedamon *f)
{
	return (struct damon_io){ .read = fake_read, .write = fake_write, .ctx = f };
}
