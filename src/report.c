// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * report: the stats socket's answers; see report.h.
 */
#include <config.h>

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pageoutd/engine.h"
#include "pageoutd/kpod.h"
#include "pageoutd/report.h"

#define UNKNOWN UINT64_MAX

/*
 * One policy's figures, whichever engine runs it. A figure the engine does not know (or that
 * does not apply to it) is UNKNOWN or -1: JSON null, no metric sample, "-" in the table.
 */
struct policy_figures {
	const struct cfg_policy *p;
	enum report_state state;
	const char *reason; /* "" when active */
	bool paused;
	const char *why; /* the pause reason, "" when not paused */
	uint64_t cgroups, procs, cold, reclaimed, drop, refaults, tried, qt_exceeds;
	double refault_rate, psi; /* ratios 0-1, -1: unknown */
	const uint64_t *skipped;  /* SKIP_MAX, vaddr */
	const uint64_t *errors;	  /* MADV_ERR_MAX, vaddr */
	const uint64_t *failures; /* FAIL_MAX, NULL when the engine is not running */
	uint64_t frozen;	  /* frozen_only: cgroups frozen now */
	bool freezer_missing;	  /* frozen_only without a freezer: nothing is reclaimed */
	const struct paddr_policy_stats *ps; /* paddr: the limit binding and its cycles */
	const struct vaddr_policy_stats *vs; /* vaddr: its memory of mistakes */
	/* vaddr's memory of mistakes (vmemo.h); UNKNOWN and -1 for paddr */
	uint64_t learned_ranges, learned_bytes, learned_total, forgiven_total, attributed;
	double interval_min, interval_max; /* seconds, of the ranges learned now */
};

const char *report_state_name(enum report_state s)
{
	static const char *const names[RS_MAX] = { "active", "paused", "idle", "waiting", "error" };

	return s < RS_MAX ? names[s] : "unknown";
}

enum report_state report_daemon_state(const struct report_src *r, const char **ret_reason)
{
	const char *e = NULL;

	*ret_reason = NULL;
	if (!r->damon_owned && r->idle) {
		*ret_reason = r->idle;
		return RS_IDLE;
	}
	if (!r->damon_owned) {
		*ret_reason = r->waiting ? r->waiting : "starting";
		return RS_WAITING;
	}
	if (r->vaddr)
		e = vaddr_error(r->vaddr);
	if (!e && r->paddr)
		e = paddr_error(r->paddr);
	if (!e)
		e = r->no_vaddr ? r->no_vaddr : r->no_paddr;
	if (!e)
		return RS_ACTIVE;
	*ret_reason = e;
	return RS_ERROR;
}

/* The vaddr engine's figures of v->p; v stays waiting when the engine has none yet. */
static void figures_from_vaddr(const struct report_src *r, struct policy_figures *v)
{
	const struct vaddr_policy_stats *s = vaddr_policy_stats(r->vaddr, v->p->name);
	const struct policy_state *st = vaddr_policy_state(r->vaddr, v->p->name);

	if (!s || !st)
		return;
	v->state = RS_ACTIVE;
	v->paused = st->paused || st->operator_paused;
	v->why = st->operator_paused ? skip_reason_name(SKIP_PAUSED)
		 : st->paused	     ? skip_reason_name(st->paused_why)
				     : "";
	v->cgroups = s->cgroups;
	v->procs = s->procs;
	v->cold = s->cold_bytes;
	v->reclaimed = s->freed_bytes_total;
	/* matched cgroups without the memory controller have no memory.stat to drop */
	v->drop = s->memcg_known ? s->memcg_drop_bytes_total : UNKNOWN;
	v->refault_rate = st->have_refaults ? st->refault_rate / 1e6 : -1;
	v->psi = s->psi_some_avg10 >= 0 ? s->psi_some_avg10 / 100 : -1;
	v->skipped = s->skipped_total;
	v->errors = s->errors_total;
	v->failures = s->failures_total;
	v->frozen = s->frozen_cgroups;
	v->freezer_missing = s->freezer_missing;
	v->vs = s;
	v->learned_ranges = s->learned_ranges;
	v->learned_bytes = s->learned_bytes;
	v->learned_total = s->learned_total;
	v->forgiven_total = s->forgiven_total;
	v->attributed = s->back_pages_total;
	v->interval_min = s->learned_ranges ? (double)s->learned_interval_min_us / 1e6 : -1;
	v->interval_max = s->learned_ranges ? (double)s->learned_interval_max_us / 1e6 : -1;
	v->reason = vaddr_error(r->vaddr);
}

/* The paddr engine's figures of v->p, paused only when all its cgroups are. */
static void figures_from_paddr(const struct report_src *r, struct policy_figures *v)
{
	const struct paddr_policy_stats *s = paddr_policy_stats(r->paddr, v->p->name);
	const struct paddr_cgroup_stats *c;
	const char *path, *pol;

	if (!s)
		return;
	v->state = RS_ACTIVE;
	v->ps = s;
	v->cgroups = s->cgroups;
	v->reclaimed = s->applied_bytes_total;
	v->drop = s->memcg_drop_bytes_total;
	v->refaults = s->refaults_total;
	v->tried = s->tried_bytes_total;
	v->qt_exceeds = s->qt_exceeds_total;
	v->failures = s->failures_total;
	v->frozen = s->frozen_cgroups;
	v->freezer_missing = s->freezer_missing;
	v->paused = s->cgroups > 0;
	for (size_t i = 0; (c = paddr_cgroup_at(r->paddr, i, &path, &pol)); i++) {
		if (strcmp(pol, v->p->name))
			continue;
		if (!c->paused)
			v->paused = false;
		else
			v->why = c->paused_why;
		if (c->psi_some_avg10 >= 0 && c->psi_some_avg10 / 100 > v->psi)
			v->psi = c->psi_some_avg10 / 100;
	}
	if (!v->paused)
		v->why = "";
	if (s->operator_paused) {
		v->paused = true;
		v->why = skip_reason_name(SKIP_PAUSED);
	}
	v->reason = paddr_error(r->paddr);
}

/*
 * The figures of policy p in *v, from its engine or, when that is not running, from the
 * daemon's state. v borrows p, the engine's counters and reason strings: valid until the
 * engine's next cycle or reload.
 */
static void policy_figures_of(const struct report_src *r, const struct cfg_policy *p,
			      struct policy_figures *v)
{
	const char *err;

	memset(v, 0, sizeof(*v));
	v->p = p;
	v->why = "";
	v->cgroups = v->procs = v->cold = v->refaults = UNKNOWN;
	v->learned_ranges = v->learned_bytes = v->learned_total = v->forgiven_total = UNKNOWN;
	v->attributed = UNKNOWN;
	v->refault_rate = v->psi = v->interval_min = v->interval_max = -1;
	v->state = RS_WAITING;
	if (p->engine == ENGINE_VADDR && r->vaddr)
		figures_from_vaddr(r, v);
	else if (p->engine == ENGINE_PADDR && r->paddr)
		figures_from_paddr(r, v);
	err = v->reason;
	v->reason = "";
	if (v->state == RS_WAITING) {
		/* the engine is not running: the daemon's state says why */
		const char *no = p->engine == ENGINE_VADDR ? r->no_vaddr : r->no_paddr;

		v->state = report_daemon_state(r, &v->reason);
		if (no) {
			v->state = RS_ERROR;
			v->reason = no;
		} else if (v->state == RS_ACTIVE || v->state == RS_ERROR) {
			v->state = RS_WAITING;
			v->reason = "starting";
		}
	} else if (!v->cgroups) {
		v->state = RS_IDLE;
		v->reason = "no cgroup matched";
	} else if (err) {
		v->state = RS_ERROR;
		v->reason = err;
	} else if (v->paused) {
		v->state = RS_PAUSED;
		v->reason = v->why;
	}
	if (!v->reason)
		v->reason = "";
}

uint64_t report_reclaimed_bytes(const struct report_src *r)
{
	uint64_t sum = 0;
	struct policy_figures v;

	for (unsigned i = 0; i < r->cfg->nr_policies; i++) {
		policy_figures_of(r, &r->cfg->policies[i], &v);
		sum += v.reclaimed;
	}
	return sum;
}

/* --- JSON --- */

/* A count or size; UNKNOWN is null. */
/* json_str_or_null: s as a JSON string, or null when there is none */
static void json_str_or_null(struct sbuf *b, const char *s)
{
	if (s)
		sbuf_json_str(b, s);
	else
		sbuf_puts(b, "null");
}

static void json_u64(struct sbuf *b, const char *k, uint64_t v, bool comma)
{
	if (v == UNKNOWN)
		sbuf_printf(b, "\"%s\":null%s", k, comma ? "," : "");
	else
		sbuf_printf(b, "\"%s\":%" PRIu64 "%s", k, v, comma ? "," : "");
}

static void json_num(struct sbuf *b, const char *k, double v, bool comma)
{
	if (v < 0)
		sbuf_printf(b, "\"%s\":null%s", k, comma ? "," : "");
	else
		sbuf_printf(b, "\"%s\":%.6g%s", k, v, comma ? "," : "");
}

/*
 * paddr: the limit other than the byte quota that binds the policy now (null: none, or unknown
 * where binding_limit_known is false) and the cycles each bound.
 */
static void json_limits(struct sbuf *b, const struct paddr_policy_stats *s)
{
	const char *t = s ? paddr_limits_text(s->binding) : NULL;

	sbuf_puts(b, "\"binding_limit\":");
	json_str_or_null(b, t);
	sbuf_printf(b, ",\"binding_limit_known\":%s,\"limit_bound_cycles_total\":{",
		    s && s->binding_known ? "true" : "false");
	for (int k = 0; k < PADDR_LIMIT_MAX; k++)
		json_u64(b, paddr_limit_name(k), s ? s->limit_bound_cycles[k] : 0,
			 k + 1 < PADDR_LIMIT_MAX);
	sbuf_puts(b, "},");
}

static void json_policy(const struct report_src *r, const struct policy_figures *v, struct sbuf *b)
{
	sbuf_puts(b, "{\"name\":");
	sbuf_json_str(b, v->p->name);
	sbuf_printf(b, ",\"engine\":\"%s\",\"cgroup\":", cfg_engine_name(v->p->engine));
	sbuf_json_str(b, v->p->cgroup);
	sbuf_printf(b, ",\"state\":\"%s\",\"reason\":", report_state_name(v->state));
	sbuf_json_str(b, v->reason);
	sbuf_printf(b, ",\"paused\":%s,\"paused_why\":", v->paused ? "true" : "false");
	sbuf_json_str(b, v->why);
	sbuf_puts(b, ",");
	json_u64(b, "cgroups", v->cgroups, true);
	json_u64(b, "processes", v->procs, true);
	if (v->p->frozen_only) {
		json_u64(b, "frozen_cgroups", v->frozen, true);
		sbuf_printf(b, "\"freezer\":\"%s\",",
			    v->freezer_missing ? "unavailable" : "available");
	}
	json_u64(b, "cold_bytes", v->cold, true);
	json_u64(b, "reclaimed_bytes_total", v->reclaimed, true);
	json_u64(b, "memcg_drop_bytes_total", v->drop, true);
	json_u64(b, "refaults_total", v->refaults, true);
	json_num(b, "refault_rate_ratio", v->refault_rate, true);
	json_num(b, "psi_some_avg10_ratio", v->psi, true);
	sbuf_puts(b, "\"errors_total\":{");
	for (int k = 0; k < FAIL_MAX; k++)
		json_u64(b, fail_kind_name(k), v->failures ? v->failures[k] : 0, k + 1 < FAIL_MAX);
	sbuf_puts(b, "},");
	if (v->skipped) {
		sbuf_puts(b, "\"skipped_bytes_total\":{");
		for (int k = 0; k < SKIP_MAX; k++)
			json_u64(b, skip_reason_name(k), v->skipped[k], k + 1 < SKIP_MAX);
		sbuf_puts(b, "},\"madvise_errors_total\":{");
		for (int k = 0; k < MADV_ERR_MAX; k++)
			json_u64(b, madv_err_name(k), v->errors[k], k + 1 < MADV_ERR_MAX);
		sbuf_puts(b, "},");
	}
	if (v->vs) {
		/* what was asked; reclaimed_bytes_total is what of it left */
		json_u64(b, "advised_bytes_total", v->vs->advised_bytes_total, true);
		sbuf_printf(b, "\"learned\":{\"enabled\":%s,",
			    v->p->learn && !v->p->frozen_only ? "true" : "false");
		json_u64(b, "ranges", v->learned_ranges, true);
		json_u64(b, "bytes", v->learned_bytes, true);
		json_u64(b, "watched_bytes", v->vs->watched_bytes, true);
		json_num(b, "interval_min_seconds", v->interval_min, true);
		json_num(b, "interval_max_seconds", v->interval_max, true);
		json_u64(b, "learned_total", v->learned_total, true);
		json_u64(b, "forgiven_total", v->forgiven_total, true);
		json_u64(b, "forgiven_bytes_total", v->vs->forgiven_bytes_total, true);
		json_u64(b, "refaults_attributed_total", v->attributed, true);
		json_u64(b, "pagemap_pages_total", v->vs->pagemap_pages_total, false);
		sbuf_puts(b, "},");
	}
	if (v->p->engine == ENGINE_PADDR && r->paddr) {
		const struct paddr_cgroup_stats *c;
		const char *path, *pol;
		bool first = true;

		json_u64(b, "tried_bytes_total", v->tried, true);
		json_u64(b, "quota_exceeds_total", v->qt_exceeds, true);
		json_u64(b, "refused_cgroups", paddr_policy_stats(r->paddr, v->p->name)->refused,
			 true);
		json_limits(b, v->ps);
		sbuf_puts(b, "\"schemes\":[");
		for (size_t i = 0; (c = paddr_cgroup_at(r->paddr, i, &path, &pol)); i++) {
			if (strcmp(pol, v->p->name))
				continue;
			sbuf_puts(b, first ? "{\"cgroup\":" : ",{\"cgroup\":");
			first = false;
			sbuf_json_str(b, path);
			sbuf_printf(b, ",\"scheme\":%d,\"paused\":%s,",
				    paddr_scheme_of(r->paddr, path), c->paused ? "true" : "false");
			json_u64(b, "nr_tried", c->nr_tried, true);
			json_u64(b, "sz_tried", c->sz_tried, true);
			json_u64(b, "nr_applied", c->nr_applied, true);
			json_u64(b, "sz_applied", c->sz_applied, true);
			json_u64(b, "qt_exceeds", c->qt_exceeds, true);
			if (c->sz_ops_filter_passed != UINT64_MAX)
				json_u64(b, "sz_ops_filter_passed", c->sz_ops_filter_passed, true);
			if (c->effective_quota != UINT64_MAX)
				json_u64(b, "effective_quota_bytes", c->effective_quota, true);
			json_u64(b, "resident_bytes", c->resident, true);
			if (c->max_usage_bytes) {
				json_u64(b, "max_usage_bytes", c->max_usage_bytes, true);
				sbuf_printf(b, "\"max_usage_by\":\"%s\",", c->max_usage_by);
			}
			json_u64(b, "walk_scale", c->walk_scale, true);
			json_u64(b, "memcg_drop_bytes_total", c->memcg_drop_bytes_total, true);
			json_u64(b, "refaults_total", c->refaults_total, true);
			json_num(b, "psi_some_avg10_ratio",
				 c->psi_some_avg10 >= 0 ? c->psi_some_avg10 / 100 : -1, false);
			sbuf_puts(b, "}");
		}
		sbuf_puts(b, "],");
	}
	if (v->p->engine == ENGINE_PADDR)
		json_num(b, "max_usage_ratio", (double)v->p->max_usage / PPM_ONE, true);
	json_u64(b, "quota_bytes", v->p->quota_bytes, true);
	json_u64(b, "quota_interval_us", v->p->quota_interval_us, true);
	json_u64(b, "min_age_us", v->p->min_age_us, false);
	sbuf_puts(b, "}");
}

/* The state of a cgroup's entry: frozen, running, unknown (no freezer), NULL: not watched. */
static const char *cgroup_state_name(const struct cgstat_entry *e)
{
	if (!e->watched)
		return NULL;
	return e->frozen == 1 ? "frozen" : e->frozen == 0 ? "running" : "unknown";
}

/* A cgroup's Kubernetes pod (kpod.h): ,"kubernetes":{qos, pod_uid, container_id} or null. */
static void json_kpod(struct sbuf *b, const char *cgroup)
{
	struct kpod k;

	if (!kpod_parse(cgroup, &k)) {
		sbuf_puts(b, ",\"kubernetes\":null");
		return;
	}
	sbuf_printf(b,
		    ",\"kubernetes\":{\"qos\":\"%s\",\"pod_uid\":\"%s\",\"container_id\":", k.qos,
		    k.pod_uid);
	if (k.container_id[0])
		sbuf_printf(b, "\"%s\"}", k.container_id);
	else
		sbuf_puts(b, "null}");
}

/* One object per matched cgroup; a figure its policy does not keep is null. */
static void json_cgroups(const struct report_src *r, struct sbuf *b)
{
	const struct cgstat_entry *e;
	uint64_t now = now_usec();

	for (size_t i = 0; r->cgstat && (e = cgstat_at(r->cgstat, i)); i++) {
		const char *st = cgroup_state_name(e);

		sbuf_puts(b, i ? ",{\"policy\":" : "{\"policy\":");
		sbuf_json_str(b, e->policy);
		sbuf_printf(b, ",\"engine\":\"%s\",\"cgroup\":", cfg_engine_name(e->engine));
		sbuf_json_str(b, e->path);
		json_kpod(b, e->path);
		sbuf_puts(b, ",\"state\":");
		json_str_or_null(b, st);
		sbuf_puts(b, ",");
		json_u64(b, "reclaimed_bytes_total", e->reclaimed_bytes_total, true);
		json_u64(b, "working_set_bytes", e->ws_bytes ? e->ws_bytes : UNKNOWN, true);
		json_num(b, "refault_rate_ratio", e->refault_rate, true);
		json_num(b, "frozen_seconds_total",
			 st ? (double)cgstat_frozen_us(e, now) / 1e6 : -1, true);
		json_u64(b, "thaws_total", st ? e->thaws_total : UNKNOWN, true);
		json_u64(b, "thaw_major_faults_last", st ? e->thaw_faults_last : UNKNOWN, true);
		json_u64(b, "thaw_major_faults_total", st ? e->thaw_faults_total : UNKNOWN, false);
		sbuf_puts(b, "}");
	}
}

/* An engine's DAMON intervals in force: "sample_us", "aggr_us", "intervals_tuned", then ','. */
static void json_intervals(struct sbuf *b, const struct engine_intervals *iv)
{
	json_u64(b, "sample_us", iv->sample_us, true);
	json_u64(b, "aggr_us", iv->aggr_us, true);
	sbuf_printf(b, "\"intervals_tuned\":%s,", iv->tuned ? "true" : "false");
}

/*
 * The reference semantics of MADV_PAGEOUT the vaddr engine reports: "ignore" or "recheck", and
 * where that comes from ("release" or "configured"); both NULL without a vaddr engine.
 */
static void refsem_of(const struct report_src *r, const char **sem, const char **from)
{
	*sem = *from = NULL;
	if (!r->vaddr)
		return;
	*sem = cfg_refsem_name(vaddr_refsem(r->vaddr));
	*from = r->cfg->daemon.reference_semantics == REFSEM_AUTO ? "release" : "configured";
}

void report_stats_json(const struct report_src *r, struct sbuf *b)
{
	uint64_t up = now_usec() - r->started_us;
	const char *why, *sem, *from;
	enum report_state st = report_daemon_state(r, &why);

	sbuf_printf(b, "{\"version\":\"%s\",", PACKAGE_VERSION);
	json_u64(b, "uptime_seconds", up / USEC_PER_SEC, true);
	json_u64(b, "cycles", r->cycles, true);
	json_u64(b, "cycle_us_total", r->cycle_us_total, true);
	sbuf_printf(b, "\"dry_run\":%s,\"damon_owned\":%s,\"state\":\"%s\",\"reason\":",
		    r->cfg->daemon.dry_run ? "true" : "false", r->damon_owned ? "true" : "false",
		    report_state_name(st));
	json_str_or_null(b, why);
	sbuf_puts(b, ",\"status\":");
	sbuf_json_str(b, r->status ? r->status : "");
	sbuf_puts(b, ",\"state_record_error\":");
	json_str_or_null(b, r->record_error);
	refsem_of(r, &sem, &from);
	sbuf_puts(b, ",\"reference_semantics\":");
	json_str_or_null(b, sem);
	sbuf_puts(b, ",\"reference_semantics_from\":");
	json_str_or_null(b, from);
	sbuf_printf(b, ",\"confirm_snapshots\":%" PRIu64, r->cfg->daemon.confirm_snapshots);
	if (r->vaddr) {
		const struct vaddr_stats *s = vaddr_stats(r->vaddr);

		sbuf_puts(b, ",\"vaddr\":{");
		json_u64(b, "targets", s->targets, true);
		json_u64(b, "snapshots", s->snapshots, true);
		json_u64(b, "snapshot_errors", s->snapshot_errors, true);
		json_u64(b, "empty_snapshots", s->empty_snapshots, true);
		json_u64(b, "maps_reads", s->maps_reads, true);
		json_u64(b, "maps_kept", s->maps_kept, true);
		json_u64(b, "snapshot_us_total", s->snapshot_us_total, true);
		json_u64(b, "aggregation_us", s->aggr_us, true);
		json_intervals(b, vaddr_intervals(r->vaddr));
		json_u64(b, "targets_dropped_in_place", s->targets_dropped_in_place, true);
		json_u64(b, "targets_moved", s->targets_moved, true);
		json_u64(b, "commits", s->commits, true);
		json_u64(b, "restarts", s->restarts, false);
		sbuf_puts(b, "}");
	}
	if (r->paddr) {
		const struct paddr_stats *s = paddr_stats(r->paddr);

		sbuf_puts(b, ",\"paddr\":{");
		json_u64(b, "schemes", s->schemes, true);
		json_u64(b, "max_schemes", PADDR_MAX_SCHEMES, true);
		json_u64(b, "ram_bytes", s->ram_bytes, true);
		json_intervals(b, paddr_intervals(r->paddr));
		sbuf_printf(b, "\"quota_goals\":%s,", s->goals ? "true" : "false");
		sbuf_printf(b, "\"kdamond_paused\":%s,", s->kdamond_paused ? "true" : "false");
		json_u64(b, "commits", s->commits, true);
		json_u64(b, "commits_held", s->commits_held, true);
		json_u64(b, "restarts", s->restarts, true);
		json_u64(b, "errors", s->errors, false);
		sbuf_puts(b, "}");
	}
	sbuf_puts(b, ",\"policies\":[");
	for (unsigned i = 0; i < r->cfg->nr_policies; i++) {
		struct policy_figures v;

		policy_figures_of(r, &r->cfg->policies[i], &v);
		if (i)
			sbuf_puts(b, ",");
		json_policy(r, &v, b);
	}
	sbuf_puts(b, "],\"cgroups\":[");
	json_cgroups(r, b);
	sbuf_puts(b, "]}\n");
}

/* --- Prometheus text exposition --- */

/* A label value, quoted, with backslash, double quote and newline escaped. */
static void metric_label_value(struct sbuf *b, const char *s)
{
	sbuf_puts(b, "\"");
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			sbuf_printf(b, "\\%c", *s);
		else if (*s == '\n')
			sbuf_puts(b, "\\n");
		else
			sbuf_printf(b, "%c", *s);
	}
	sbuf_puts(b, "\"");
}

/* The HELP and TYPE lines of metric pageoutd_<name>. */
static void metric_header(struct sbuf *b, const char *name, const char *type, const char *help)
{
	sbuf_printf(b, "# HELP pageoutd_%s %s\n# TYPE pageoutd_%s %s\n", name, help, name, type);
}

/* One sample of pageoutd_<name> with a policy label and, unless k is NULL, label k=v. */
static void metric_sample(struct sbuf *b, const char *name, const char *policy, const char *k,
			  const char *v, double value)
{
	sbuf_printf(b, "pageoutd_%s{policy=", name);
	metric_label_value(b, policy);
	if (k) {
		sbuf_printf(b, ",%s=", k);
		metric_label_value(b, v);
	}
	sbuf_printf(b, "} %.17g\n", value);
}

/*
 * A per-cgroup sample: labels policy and cgroup and, for a Kubernetes pod's cgroup (kpod.h),
 * qos, pod_uid and, beneath a container, container_id, to join with kube-state-metrics.
 * `engine`: NULL, or the part of an engine = both policy, whose two parts have a sample each
 * for one cgroup.
 */
static void metric_cgroup_sample(struct sbuf *b, const char *name, const char *policy,
				 const char *engine, const char *cgroup, double value)
{
	struct kpod k;

	sbuf_printf(b, "pageoutd_%s{policy=", name);
	metric_label_value(b, policy);
	if (engine)
		sbuf_printf(b, ",engine=\"%s\"", engine);
	sbuf_puts(b, ",cgroup=");
	metric_label_value(b, cgroup);
	if (kpod_parse(cgroup, &k)) {
		sbuf_printf(b, ",qos=\"%s\",pod_uid=\"%s\"", k.qos, k.pod_uid);
		if (k.container_id[0])
			sbuf_printf(b, ",container_id=\"%s\"", k.container_id);
	}
	sbuf_printf(b, "} %.17g\n", value);
}

/* How a policy metric reads its field of struct policy_figures, and when it has no sample. */
enum figure_kind {
	FIGURE_FLAG,  /* bool: 0 or 1, always a sample */
	FIGURE_COUNT, /* uint64_t: no sample when UNKNOWN */
	FIGURE_RATIO, /* double: no sample when negative (unknown) */
};

/* A metric with one sample per policy: one row of policy_metrics. */
struct policy_metric {
	const char *name, *type, *help;
	size_t offset; /* of the figure in struct policy_figures */
	enum figure_kind kind;
};

#define FIGURE(field, k) offsetof(struct policy_figures, field), FIGURE_##k

static const struct policy_metric policy_metrics[] = {
	{ "policy_paused", "gauge", "1 while the policy is paused (pressure, not frozen, operator)",
	  FIGURE(paused, FLAG) },
	{ "policy_cgroups", "gauge", "Cgroups the policy covers now", FIGURE(cgroups, COUNT) },
	{ "policy_processes", "gauge", "Processes the policy targets now (vaddr)",
	  FIGURE(procs, COUNT) },
	{ "cold_bytes", "gauge", "Cold bytes found in the last snapshot (vaddr)",
	  FIGURE(cold, COUNT) },
	{ "reclaimed_bytes_total", "counter",
	  "Bytes reclaimed: present before the advice and gone after it (vaddr), applied by "
	  "the kernel (paddr)",
	  FIGURE(reclaimed, COUNT) },
	{ "memcg_drop_bytes_total", "counter", "Observed drop of the cgroups' anon + file",
	  FIGURE(drop, COUNT) },
	{ "psi_some_avg10_ratio", "gauge",
	  "Highest memory PSI some avg10 of the cgroups, as a ratio (0-1)", FIGURE(psi, RATIO) },
	{ "refault_rate_ratio", "gauge",
	  "Bytes refaulted per minute as a ratio of the cgroups' working set (memory.current "
	  "less inactive_file; last measured; vaddr: less those attributed to learned ranges)",
	  FIGURE(refault_rate, RATIO) },
	{ "learned_ranges", "gauge",
	  "Ranges found in use again soon after their advice, held back until idle longer (vaddr)",
	  FIGURE(learned_ranges, COUNT) },
	{ "learned_bytes", "gauge", "Bytes under those ranges (vaddr)",
	  FIGURE(learned_bytes, COUNT) },
	{ "learned_interval_min_seconds", "gauge",
	  "Shortest re-access interval among the learned ranges (vaddr)",
	  FIGURE(interval_min, RATIO) },
	{ "learned_interval_max_seconds", "gauge",
	  "Longest re-access interval among the learned ranges (vaddr)",
	  FIGURE(interval_max, RATIO) },
	{ "learned_total", "counter", "Ranges learned, new or found back again (vaddr)",
	  FIGURE(learned_total, COUNT) },
	{ "forgiven_total", "counter",
	  "Learned ranges forgiven: advised again, they stayed out (vaddr)",
	  FIGURE(forgiven_total, COUNT) },
	{ "refaults_attributed_total", "counter",
	  "Pages found back in advised ranges, answered by learning them rather than by the "
	  "policy-wide back-off (vaddr)",
	  FIGURE(attributed, COUNT) },
};

/* The value of metric m for policy f in *ret; false when f does not know it. */
static bool policy_metric_value(const struct policy_metric *m, const struct policy_figures *f,
				double *ret)
{
	const char *field = (const char *)f + m->offset;
	uint64_t u;

	switch (m->kind) {
	case FIGURE_FLAG:
		*ret = *(const bool *)field;
		return true;
	case FIGURE_COUNT:
		memcpy(&u, field, sizeof(u));
		*ret = (double)u;
		return u != UNKNOWN;
	case FIGURE_RATIO:
		memcpy(ret, field, sizeof(*ret));
		return *ret >= 0;
	}
	return false;
}

/*
 * A per-policy sample of a metric both engines have, labelled k=v: with the engine label too
 * for the parts of an engine = both policy, which share its name.
 */
static void metric_part_sample(struct sbuf *b, const char *name, const struct policy_figures *f,
			       const char *k, const char *v, double value)
{
	sbuf_printf(b, "pageoutd_%s{policy=", name);
	metric_label_value(b, f->p->name);
	if (f->p->both)
		sbuf_printf(b, ",engine=\"%s\"", cfg_engine_name(f->p->engine));
	sbuf_printf(b, ",%s=", k);
	metric_label_value(b, v);
	sbuf_printf(b, "} %.17g\n", value);
}

/* Per policy, one sample each, whichever the engine; an unknown figure has no sample. */
static void metrics_policies(const struct report_src *r, const struct policy_figures *v,
			     struct sbuf *b)
{
	const struct cfg *cfg = r->cfg;

	metric_header(b, "policy_state", "gauge",
		      "1 for the policy's state: active, paused, idle, waiting, error (the reason "
		      "is in pageoutctl status)");
	for (unsigned i = 0; i < cfg->nr_policies; i++)
		for (int k = 0; k < RS_MAX; k++)
			metric_part_sample(b, "policy_state", &v[i], "state", report_state_name(k),
					   k == (int)v[i].state);
	for (size_t k = 0; k < ARRAY_SIZE(policy_metrics); k++) {
		const struct policy_metric *m = &policy_metrics[k];

		metric_header(b, m->name, m->type, m->help);
		for (unsigned i = 0; i < cfg->nr_policies; i++) {
			double x;

			if (policy_metric_value(m, &v[i], &x))
				metric_sample(b, m->name, v[i].p->name, "engine",
					      cfg_engine_name(v[i].p->engine), x);
		}
	}
	metric_header(b, "errors_total", "counter",
		      "Cycles in which the policy's work failed, by kind: damon_write (context, "
		      "commit, start), damon_read (snapshot, scheme stats), madvise "
		      "(process_madvise calls)");
	for (unsigned i = 0; i < cfg->nr_policies; i++)
		for (int k = 0; k < FAIL_MAX; k++)
			metric_part_sample(b, "errors_total", &v[i], "kind", fail_kind_name(k),
					   v[i].failures ? (double)v[i].failures[k] : 0);
	metric_header(b, "skipped_bytes_total", "counter",
		      "Cold bytes not reclaimed, by reason (vaddr)");
	for (unsigned i = 0; i < cfg->nr_policies; i++)
		for (int k = 0; v[i].skipped && k < SKIP_MAX; k++)
			metric_sample(b, "skipped_bytes_total", v[i].p->name, "reason",
				      skip_reason_name(k), (double)v[i].skipped[k]);
	metric_header(b, "madvise_errors_total", "counter",
		      "process_madvise failures by errno (vaddr)");
	for (unsigned i = 0; i < cfg->nr_policies; i++)
		for (int k = 0; v[i].errors && k < MADV_ERR_MAX; k++)
			metric_sample(b, "madvise_errors_total", v[i].p->name, "errno",
				      madv_err_name(k), (double)v[i].errors[k]);
}

/* A metric with one sample per paddr scheme (labels policy, cgroup): one row of the table. */
struct scheme_metric {
	const char *name, *type, *help;
	size_t offset; /* of a uint64_t in struct paddr_cgroup_stats, always known */
};

#define SCHEME_FIGURE(field) offsetof(struct paddr_cgroup_stats, field)

static const struct scheme_metric scheme_metrics[] = {
	{ "paddr_applied_bytes_total", "counter", "Bytes the kernel reclaimed for the cgroup",
	  SCHEME_FIGURE(sz_applied) },
	{ "paddr_tried_bytes_total", "counter", "Physical bytes the cgroup's scheme walked",
	  SCHEME_FIGURE(sz_tried) },
	{ "paddr_quota_exceeds_total", "counter", "Quota intervals the scheme used up",
	  SCHEME_FIGURE(qt_exceeds) },
	{ "paddr_refaults_total", "counter", "Refaulted pages of the cgroup since its scheme",
	  SCHEME_FIGURE(refaults_total) },
	{ "paddr_memcg_drop_bytes_total", "counter", "Observed drop of the cgroup's memory",
	  SCHEME_FIGURE(memcg_drop_bytes_total) },
	{ "paddr_resident_bytes", "gauge", "The cgroup's anon + file now",
	  SCHEME_FIGURE(resident) },
	{ "paddr_max_usage_bytes", "gauge",
	  "The cgroup's ceiling from max_usage, of MemTotal (0: none)",
	  SCHEME_FIGURE(max_usage_bytes) },
};

/* Per policy with max_usage: its cgroups held at the ceiling by the kernel's goal, by pageoutd. */
static void metrics_max_usage(const struct report_src *r, struct sbuf *b)
{
	static const char *const by[] = { "kernel", "pageoutd" };

	metric_header(b, "paddr_max_usage_cgroups", "gauge",
		      "Cgroups of a policy with max_usage, by what holds them at the ceiling: the "
		      "kernel's quota goal or pageoutd pausing the scheme");
	for (unsigned pi = 0; pi < r->cfg->nr_policies; pi++) {
		const struct cfg_policy *cp = &r->cfg->policies[pi];

		if (cp->engine != ENGINE_PADDR || !cp->max_usage)
			continue;
		for (size_t k = 0; k < ARRAY_SIZE(by); k++) {
			const struct paddr_cgroup_stats *c;
			const char *path, *pol;
			unsigned n = 0;

			for (size_t i = 0; (c = paddr_cgroup_at(r->paddr, i, &path, &pol)); i++)
				n += !strcmp(pol, cp->name) && c->max_usage_by &&
				     !strcmp(c->max_usage_by, by[k]);
			metric_sample(b, "paddr_max_usage_cgroups", cp->name, "by", by[k], n);
		}
	}
}

/* The paddr engine's schemes, one sample per cgroup. */
static void metrics_paddr(const struct report_src *r, struct sbuf *b)
{
	for (size_t k = 0; k < ARRAY_SIZE(scheme_metrics); k++) {
		const struct scheme_metric *m = &scheme_metrics[k];
		const struct paddr_cgroup_stats *c;
		const char *path, *pol;

		metric_header(b, m->name, m->type, m->help);
		for (size_t i = 0; (c = paddr_cgroup_at(r->paddr, i, &path, &pol)); i++) {
			uint64_t x;

			memcpy(&x, (const char *)c + m->offset, sizeof(x));
			metric_cgroup_sample(b, m->name, pol, NULL, path, (double)x);
		}
	}
	metric_header(b, "paddr_limit_bound_cycles_total", "counter",
		      "Cycles in which a limit other than the byte quota held a scheme of the "
		      "policy below it: quota_time, pressure_limit");
	for (unsigned i = 0; i < r->cfg->nr_policies; i++) {
		const struct cfg_policy *cp = &r->cfg->policies[i];
		const struct paddr_policy_stats *s = paddr_policy_stats(r->paddr, cp->name);

		for (int k = 0; s && cp->engine == ENGINE_PADDR && k < PADDR_LIMIT_MAX; k++)
			metric_sample(b, "paddr_limit_bound_cycles_total", cp->name, "limit",
				      paddr_limit_name(k), (double)s->limit_bound_cycles[k]);
	}
	metric_header(b, "paddr_limit_binding", "gauge",
		      "1 while the limit binds the policy at the last stats read (no sample where "
		      "the kernel reports no effective quota)");
	for (unsigned i = 0; i < r->cfg->nr_policies; i++) {
		const struct cfg_policy *cp = &r->cfg->policies[i];
		const struct paddr_policy_stats *s = paddr_policy_stats(r->paddr, cp->name);

		for (int k = 0;
		     s && s->binding_known && cp->engine == ENGINE_PADDR && k < PADDR_LIMIT_MAX;
		     k++)
			metric_sample(b, "paddr_limit_binding", cp->name, "limit",
				      paddr_limit_name(k), !!(s->binding & PADDR_LIMIT_BIT(k)));
	}
	metrics_max_usage(r, b);
	metric_header(b, "paddr_schemes", "gauge", "DAMOS schemes on pageoutd's paddr kdamond");
	sbuf_printf(b, "pageoutd_paddr_schemes %" PRIu64 "\n", paddr_stats(r->paddr)->schemes);
}

/* Engine e's DAMON intervals in force, NULL while that engine does not run. */
static const struct engine_intervals *intervals_of(const struct report_src *r, enum cfg_engine e)
{
	if (e == ENGINE_VADDR)
		return r->vaddr ? vaddr_intervals(r->vaddr) : NULL;
	return r->paddr ? paddr_intervals(r->paddr) : NULL;
}

/* Each running engine's DAMON intervals in force. */
static void metrics_intervals(const struct report_src *r, struct sbuf *b)
{
	const struct engine_intervals *iv[2] = { intervals_of(r, ENGINE_VADDR),
						 intervals_of(r, ENGINE_PADDR) };

	if (!iv[0] && !iv[1])
		return;
	metric_header(b, "damon_sample_seconds", "gauge",
		      "The sample interval of pageoutd's kdamond of each engine, in force");
	for (int e = 0; e < 2; e++)
		if (iv[e])
			sbuf_printf(b, "pageoutd_damon_sample_seconds{engine=\"%s\"} %.6f\n",
				    cfg_engine_name((enum cfg_engine)e),
				    (double)iv[e]->sample_us / 1e6);
	metric_header(b, "damon_aggregation_interval_seconds", "gauge",
		      "The aggregation interval of pageoutd's kdamond of each engine, in force");
	for (int e = 0; e < 2; e++)
		if (iv[e])
			sbuf_printf(
				b,
				"pageoutd_damon_aggregation_interval_seconds{engine=\"%s\"} %.6f\n",
				cfg_engine_name((enum cfg_engine)e), (double)iv[e]->aggr_us / 1e6);
}

/* The vaddr engine's kdamond. */
static void metrics_vaddr(const struct report_src *r, struct sbuf *b)
{
	metric_header(b, "vaddr_targets", "gauge", "Processes on pageoutd's vaddr kdamond");
	sbuf_printf(b, "pageoutd_vaddr_targets %" PRIu64 "\n", vaddr_stats(r->vaddr)->targets);
	metric_header(b, "vaddr_snapshot_seconds_total", "counter", "Time spent taking snapshots");
	sbuf_printf(b, "pageoutd_vaddr_snapshot_seconds_total %.6f\n",
		    (double)vaddr_stats(r->vaddr)->snapshot_us_total / 1e6);
	metric_header(b, "vaddr_aggregation_seconds", "gauge",
		      "The aggregation interval the vaddr kdamond keeps, as measured from its "
		      "regions' ages");
	sbuf_printf(b, "pageoutd_vaddr_aggregation_seconds %.6f\n",
		    (double)vaddr_stats(r->vaddr)->aggr_us / 1e6);
}

/*
 * The figures of a cgroup entry at time now, in *ret; each returns false when the entry has
 * none (its frozen state is not watched, or no thaw was measured): no sample rather than a
 * made-up zero.
 */
static bool cgroup_reclaimed(const struct cgstat_entry *e, uint64_t now, double *ret)
{
	(void)now;
	*ret = (double)e->reclaimed_bytes_total;
	return true;
}

static bool cgroup_frozen(const struct cgstat_entry *e, uint64_t now, double *ret)
{
	(void)now;
	*ret = e->frozen == 1;
	return e->watched;
}

static bool cgroup_frozen_seconds(const struct cgstat_entry *e, uint64_t now, double *ret)
{
	*ret = (double)cgstat_frozen_us(e, now) / 1e6;
	return e->watched;
}

static bool cgroup_thaws(const struct cgstat_entry *e, uint64_t now, double *ret)
{
	(void)now;
	*ret = (double)e->thaws_total;
	return e->watched;
}

static bool cgroup_thaw_faults_total(const struct cgstat_entry *e, uint64_t now, double *ret)
{
	(void)now;
	*ret = (double)e->thaw_faults_total;
	return e->watched;
}

static bool cgroup_thaw_faults_last(const struct cgstat_entry *e, uint64_t now, double *ret)
{
	(void)now;
	*ret = (double)e->thaw_faults_last;
	return e->watched && e->thaw_faults_last != CGSTAT_NO_FAULTS;
}

static bool cgroup_refault_rate(const struct cgstat_entry *e, uint64_t now, double *ret)
{
	(void)now;
	*ret = e->refault_rate;
	return e->refault_rate >= 0;
}

static bool cgroup_working_set(const struct cgstat_entry *e, uint64_t now, double *ret)
{
	(void)now;
	*ret = (double)e->ws_bytes;
	return e->ws_bytes > 0;
}

/* A metric with one sample per matched cgroup (labels policy, cgroup): one row of the table. */
struct cgroup_metric {
	const char *name, *type, *help;
	bool (*value)(const struct cgstat_entry *e, uint64_t now, double *ret);
};

static const struct cgroup_metric cgroup_metrics[] = {
	{ "cgroup_reclaimed_bytes_total", "counter",
	  "Bytes reclaimed from the cgroup: gone from its processes after the advice (vaddr), "
	  "applied by its scheme (paddr)",
	  cgroup_reclaimed },
	{ "cgroup_working_set_bytes", "gauge",
	  "The cgroup's working set: memory.current less inactive_file (as last read)",
	  cgroup_working_set },
	{ "cgroup_refault_rate_ratio", "gauge",
	  "Bytes the cgroup refaulted per minute as a ratio of its working set (over the last "
	  "10 s or more; the far-memory SLO is 0.002)",
	  cgroup_refault_rate },
	{ "cgroup_frozen", "gauge", "1 while the cgroup is frozen (frozen_only policies)",
	  cgroup_frozen },
	{ "cgroup_frozen_seconds_total", "counter",
	  "Time the cgroup was seen frozen (frozen_only policies)", cgroup_frozen_seconds },
	{ "cgroup_thaws_total", "counter", "Thaws of the cgroup seen (frozen_only policies)",
	  cgroup_thaws },
	{ "cgroup_thaw_major_faults_total", "counter",
	  "Major faults of the cgroup in the 2 s after each thaw (frozen_only policies)",
	  cgroup_thaw_faults_total },
	{ "cgroup_thaw_major_faults_last", "gauge",
	  "Major faults of the cgroup in the 2 s after its last thaw (frozen_only policies)",
	  cgroup_thaw_faults_last },
};

/* The engine of entry e where its policy is engine = both (two entries per cgroup), else NULL. */
static const char *part_of_both(const struct report_src *r, const struct cgstat_entry *e)
{
	const struct cfg_policy *p = cfg_find_policy(r->cfg, e->policy);

	return p && p->both ? cfg_engine_name(e->engine) : NULL;
}

/*
 * Per matched cgroup (labels policy and cgroup, and engine for the parts of an engine = both
 * policy); frozen figures of watched cgroups only.
 */
static void metrics_cgroups(const struct report_src *r, struct sbuf *b)
{
	uint64_t now = now_usec();

	for (size_t k = 0; k < ARRAY_SIZE(cgroup_metrics); k++) {
		const struct cgroup_metric *m = &cgroup_metrics[k];
		const struct cgstat_entry *e;

		metric_header(b, m->name, m->type, m->help);
		for (size_t i = 0; (e = cgstat_at(r->cgstat, i)); i++) {
			double x;

			if (m->value(e, now, &x))
				metric_cgroup_sample(b, m->name, e->policy, part_of_both(r, e),
						     e->path, x);
		}
	}
}

void report_metrics(const struct report_src *r, struct sbuf *b)
{
	const char *sem, *from;
	const struct cfg *cfg = r->cfg;
	struct policy_figures *v = calloc(cfg->nr_policies ? cfg->nr_policies : 1, sizeof(*v));
	const char *why;
	enum report_state st = report_daemon_state(r, &why);

	if (!v) {
		b->oom = true;
		return;
	}
	for (unsigned i = 0; i < cfg->nr_policies; i++)
		policy_figures_of(r, &cfg->policies[i], &v[i]);
	metric_header(
		b, "info", "gauge",
		"Version of the running pageoutd; with a vaddr engine, what MADV_PAGEOUT does "
		"with page references here (ignore, recheck) and the cold snapshots a range "
		"needs");
	refsem_of(r, &sem, &from);
	sbuf_printf(b,
		    "pageoutd_info{version=\"%s\",reference_semantics=\"%s\","
		    "confirm_snapshots=\"%" PRIu64 "\"} 1\n",
		    PACKAGE_VERSION, sem ? sem : "", r->cfg->daemon.confirm_snapshots);
	metric_header(
		b, "state", "gauge",
		"1 for the daemon's state: active, idle (nothing matched), waiting (for DAMON), "
		"error");
	for (int k = 0; k < RS_MAX; k++)
		if (k != RS_PAUSED)
			sbuf_printf(b, "pageoutd_state{state=\"%s\"} %d\n", report_state_name(k),
				    k == (int)st);
	metric_header(b, "cycles_total", "counter", "Decision cycles run");
	sbuf_printf(b, "pageoutd_cycles_total %" PRIu64 "\n", r->cycles);
	metric_header(b, "cycle_seconds_total", "counter", "Time spent in decision cycles");
	sbuf_printf(b, "pageoutd_cycle_seconds_total %.6f\n", (double)r->cycle_us_total / 1e6);
	metric_header(b, "damon_owned", "gauge", "1 while pageoutd owns its DAMON kdamonds");
	sbuf_printf(b, "pageoutd_damon_owned %d\n", r->damon_owned ? 1 : 0);
	metric_header(b, "state_record_stale", "gauge",
		      "1 while the record of the kdamonds pageoutd owns cannot be written to "
		      "state_dir (full or read-only)");
	sbuf_printf(b, "pageoutd_state_record_stale %d\n", r->record_error ? 1 : 0);
	metrics_policies(r, v, b);
	if (r->paddr)
		metrics_paddr(r, b);
	if (r->vaddr)
		metrics_vaddr(r, b);
	metrics_intervals(r, b);
	if (r->cgstat)
		metrics_cgroups(r, b);
	free(v);
}

/* --- people --- */

/* A count, or "-" when unknown. */
static void fmt_count(char *buf, size_t len, uint64_t v)
{
	if (v == UNKNOWN)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%" PRIu64, v);
}

/* A size in bytes, or "-" when unknown. */
static void fmt_size_or_dash(char *buf, size_t len, uint64_t v)
{
	if (v == UNKNOWN)
		snprintf(buf, len, "-");
	else
		fmt_size(buf, len, v);
}

/* A ratio as percent with the given decimals and suffix, or "-" when negative (unknown). */
static void fmt_percent(char *buf, size_t len, double ratio, int decimals, const char *suffix)
{
	if (ratio >= 0)
		snprintf(buf, len, "%.*f%%%s", decimals, ratio * 100, suffix);
	else
		snprintf(buf, len, "-");
}

#define CELL_MAX 24

/* The status table's cells of a policy: each writes its text to buf (CELL_MAX bytes). */
static void cell_cgroups(const struct policy_figures *v, char *buf)
{
	fmt_count(buf, CELL_MAX, v->cgroups);
}

static void cell_procs(const struct policy_figures *v, char *buf)
{
	fmt_count(buf, CELL_MAX, v->procs);
}

static void cell_cold(const struct policy_figures *v, char *buf)
{
	fmt_size_or_dash(buf, CELL_MAX, v->cold);
}

static void cell_reclaimed(const struct policy_figures *v, char *buf)
{
	fmt_size(buf, CELL_MAX, v->reclaimed);
}

static void cell_drop(const struct policy_figures *v, char *buf)
{
	fmt_size_or_dash(buf, CELL_MAX, v->drop);
}

/* paddr counts refaulted pages, vaddr measures a rate: people read percent per minute */
static void cell_refaults(const struct policy_figures *v, char *buf)
{
	if (v->refaults != UNKNOWN)
		snprintf(buf, CELL_MAX, "%" PRIu64, v->refaults);
	else
		fmt_percent(buf, CELL_MAX, v->refault_rate, 3, "/m");
}

static void cell_psi(const struct policy_figures *v, char *buf)
{
	fmt_percent(buf, CELL_MAX, v->psi, 2, "");
}

/* One column of the status table, right-aligned, between ENGINE and STATE. */
struct status_column {
	const char *header;
	int width;
	void (*cell)(const struct policy_figures *v, char *buf);
};

static const struct status_column status_columns[] = {
	{ "CGROUPS", 7, cell_cgroups },	 { "PROCS", 6, cell_procs },
	{ "COLD", 10, cell_cold },	 { "RECLAIMED", 10, cell_reclaimed },
	{ "MEMCG-DROP", 10, cell_drop }, { "REFAULTS", 9, cell_refaults },
	{ "PSI", 7, cell_psi },
};

void report_status(const struct report_src *r, struct sbuf *b)
{
	const char *sem, *from;

	sbuf_printf(b, "pageoutd %s: %s; %" PRIu64 " cycles, up %" PRIu64 " s%s\n", PACKAGE_VERSION,
		    r->status ? r->status : "starting", r->cycles,
		    (now_usec() - r->started_us) / USEC_PER_SEC,
		    r->cfg->daemon.dry_run ? ", dry run" : "");
	if (r->record_error)
		sbuf_printf(b, "state_dir: %s\n", r->record_error);
	sbuf_printf(b, "%-16s %-6s", "POLICY", "ENGINE");
	for (size_t k = 0; k < ARRAY_SIZE(status_columns); k++)
		sbuf_printf(b, " %*s", status_columns[k].width, status_columns[k].header);
	sbuf_puts(b, "  STATE\n");
	for (unsigned i = 0; i < r->cfg->nr_policies; i++) {
		struct policy_figures v;
		char cell[CELL_MAX];
		bool binds;

		policy_figures_of(r, &r->cfg->policies[i], &v);
		sbuf_printf(b, "%-16s %-6s", v.p->name, cfg_engine_name(v.p->engine));
		for (size_t k = 0; k < ARRAY_SIZE(status_columns); k++) {
			status_columns[k].cell(&v, cell);
			sbuf_printf(b, " %*s", status_columns[k].width, cell);
		}
		/* a paused policy's reason says what holds it */
		binds = v.ps && v.ps->binding && v.state != RS_PAUSED;
		sbuf_printf(b, "  %s%s%s%s%s%s%s\n", report_state_name(v.state),
			    v.reason[0] ? ": " : "", v.reason,
			    v.freezer_missing  ? " (frozen_only: no freezer)"
			    : v.p->frozen_only ? " (frozen_only)"
					       : "",
			    binds ? " (" : "", binds ? paddr_limits_text(v.ps->binding) : "",
			    binds ? " binds)" : "");
	}
	refsem_of(r, &sem, &from);
	if (sem)
		sbuf_printf(b,
			    "vaddr: MADV_PAGEOUT %s here (reference_semantics %s, %s); ranges are "
			    "advised after %" PRIu64 " cold snapshot%s\n",
			    !strcmp(sem, "ignore") ? "ignores page references"
						   : "re-checks accesses made during the call",
			    sem, !strcmp(from, "release") ? "from the release" : "configured",
			    r->cfg->daemon.confirm_snapshots,
			    r->cfg->daemon.confirm_snapshots > 1 ? "s" : "");
}

void report_cgroups(const struct report_src *r, struct sbuf *b)
{
	const struct cgstat_entry *e;
	uint64_t now = now_usec();

	sbuf_printf(b, "%-16s %-7s %10s %10s %9s %10s %6s %11s %11s  %s\n", "POLICY", "STATE",
		    "RECLAIMED", "WORKSET", "REFAULTS", "FROZEN", "THAWS", "THAW-FAULTS",
		    "FAULTS-SUM", "CGROUP");
	for (size_t i = 0; r->cgstat && (e = cgstat_at(r->cgstat, i)); i++) {
		const char *st = cgroup_state_name(e);
		char rec[16], ws[16] = "-", rf[CELL_MAX] = "-", fr[24] = "-", th[24] = "-",
			      last[24] = "-", sum[24] = "-";

		if (st) {
			snprintf(fr, sizeof(fr), "%.1fs", (double)cgstat_frozen_us(e, now) / 1e6);
			snprintf(th, sizeof(th), "%" PRIu64, e->thaws_total);
			if (e->thaw_faults_last != CGSTAT_NO_FAULTS)
				snprintf(last, sizeof(last), "%" PRIu64, e->thaw_faults_last);
			snprintf(sum, sizeof(sum), "%" PRIu64, e->thaw_faults_total);
		}
		const char *part = part_of_both(r, e);
		char pol[CFG_NAME_MAX + 8];

		/* an engine = both policy's parts: one row each, "name/vaddr" and "name/paddr" */
		snprintf(pol, sizeof(pol), "%s%s%s", e->policy, part ? "/" : "", part ? part : "");
		if (e->ws_bytes)
			fmt_size(ws, sizeof(ws), e->ws_bytes);
		if (e->refault_rate >= 0)
			fmt_percent(rf, sizeof(rf), e->refault_rate, 3, "/m");
		sbuf_printf(b, "%-16s %-7s %10s %10s %9s %10s %6s %11s %11s  %s\n", pol,
			    st ? st : "-", fmt_size(rec, sizeof(rec), e->reclaimed_bytes_total), ws,
			    rf, fr, th, last, sum, e->path);
	}
}

void report_detail(const struct report_src *r, struct sbuf *b)
{
	char x[16], y[16], z[16];

	report_status(r, b);
	for (int e = ENGINE_VADDR; e <= ENGINE_PADDR; e++) {
		const struct engine_intervals *iv = intervals_of(r, (enum cfg_engine)e);

		if (iv)
			sbuf_printf(b, "\n%s kdamond: sample %s, aggregation %s%s",
				    cfg_engine_name((enum cfg_engine)e),
				    fmt_duration(x, sizeof(x), iv->sample_us),
				    fmt_duration(y, sizeof(y), iv->aggr_us),
				    iv->tuned ? " (tuned by the kernel)" : "");
	}
	if (r->vaddr || r->paddr)
		sbuf_puts(b, "\n");
	for (unsigned i = 0; i < r->cfg->nr_policies; i++) {
		struct policy_figures v;
		bool any = false;

		policy_figures_of(r, &r->cfg->policies[i], &v);
		sbuf_printf(b, "\npolicy %s (%s, cgroup %s):\n", v.p->name,
			    cfg_engine_name(v.p->engine), v.p->cgroup);
		for (int k = 0; v.skipped && k < SKIP_MAX; k++)
			if (v.skipped[k]) {
				sbuf_printf(b, "%s %s %s",
					    any ? "," : "  not reclaimed:", skip_reason_name(k),
					    fmt_size(x, sizeof(x), v.skipped[k]));
				any = true;
			}
		if (any)
			sbuf_puts(b, "\n");
		any = false;
		for (int k = 0; v.errors && k < MADV_ERR_MAX; k++)
			if (v.errors[k]) {
				sbuf_printf(b, "%s %s %" PRIu64,
					    any ? "," : "  process_madvise errors:",
					    madv_err_name(k), v.errors[k]);
				any = true;
			}
		if (any)
			sbuf_puts(b, "\n");
		if (v.vs && v.p->learn && !v.p->frozen_only)
			sbuf_printf(b,
				    "  learned: %" PRIu64
				    " ranges, %s (re-access intervals %.1f-%.1f "
				    "s), %" PRIu64 " learned, %" PRIu64 " forgiven, %" PRIu64
				    " refaulted pages attributed\n",
				    v.learned_ranges, fmt_size(x, sizeof(x), v.learned_bytes),
				    v.interval_min > 0 ? v.interval_min : 0,
				    v.interval_max > 0 ? v.interval_max : 0, v.learned_total,
				    v.forgiven_total, v.attributed);
		if (v.p->engine == ENGINE_PADDR && r->paddr) {
			const struct paddr_cgroup_stats *c;
			const char *path, *pol;

			sbuf_printf(b,
				    "  tried %s, quota exceeded %" PRIu64
				    " times, refused cgroups %" PRIu64 "\n",
				    fmt_size(x, sizeof(x), v.tried), v.qt_exceeds,
				    paddr_policy_stats(r->paddr, v.p->name)->refused);
			if (v.ps)
				sbuf_printf(b,
					    "  binding limit: %s; bound quota_time %" PRIu64
					    " cycles, pressure_limit %" PRIu64
					    " cycles, max_usage %" PRIu64 " cycles\n",
					    !v.ps->binding_known
						    ? "unknown (no effective quota here)"
					    : v.ps->binding ? paddr_limits_text(v.ps->binding)
							    : "none (the byte quota)",
					    v.ps->limit_bound_cycles[PADDR_LIMIT_QUOTA_TIME],
					    v.ps->limit_bound_cycles[PADDR_LIMIT_PRESSURE],
					    v.ps->limit_bound_cycles[PADDR_LIMIT_MAX_USAGE]);
			for (size_t k = 0; (c = paddr_cgroup_at(r->paddr, k, &path, &pol)); k++) {
				char mu[64] = "", m[16];

				if (strcmp(pol, v.p->name))
					continue;
				if (c->max_usage_bytes)
					snprintf(mu, sizeof(mu), ", max_usage %s (held by %s)",
						 fmt_size(m, sizeof(m), c->max_usage_bytes),
						 c->max_usage_by);
				sbuf_printf(b,
					    "  scheme %d %s: applied %s, resident %s, memcg -%s, "
					    "refaults %" PRIu64 ", quota exceeded %" PRIu64
					    "%s%s%s\n",
					    paddr_scheme_of(r->paddr, path), path,
					    fmt_size(x, sizeof(x), c->sz_applied),
					    fmt_size(y, sizeof(y), c->resident),
					    fmt_size(z, sizeof(z), c->memcg_drop_bytes_total),
					    c->refaults_total, c->qt_exceeds, mu,
					    c->paused ? ", paused: " : "",
					    c->paused ? c->paused_why : "");
			}
		}
	}
}

void report_policies(const struct report_src *r, struct sbuf *b)
{
	char buf[1024];

	if (!r->cfg->nr_policies)
		sbuf_puts(b, "no policies\n"); /* an answer all the same: an empty list */
	for (unsigned i = 0; i < r->cfg->nr_policies; i++)
		sbuf_printf(b, "%s: %s\n", r->cfg->policies[i].name,
			    cfg_policy_describe(&r->cfg->policies[i], buf, sizeof(buf)));
}
