// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * daemon: the running state and the decision cycle; see daemon.h.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef HAVE_SYSTEMD
#include <systemd/sd-daemon.h>
#endif

#include "pageoutd/daemon.h"
#include "pageoutd/util.h"

/*
 * When a watched frozen_only cgroup froze (or, on paddr, froze or thawed), FROZEN_CYCLES
 * cycles run, the first FROZEN_CYCLE_DELAY_US after its cgroup.events changed and the next
 * FROZEN_GAP_US apart, before the period resumes: a newly frozen app's cold memory goes at
 * once, and a thawed app's paddr scheme stops at once. The delay gathers the events of one
 * freeze (every cgroup of a frozen subtree raises its own); the second cycle is there because
 * a vaddr snapshot can come back without a target's regions (no news; every other one on
 * 6.12).
 */
#define FROZEN_CYCLE_DELAY_US (100 * USEC_PER_MSEC)
#define FROZEN_GAP_US (500 * USEC_PER_MSEC)
#define FROZEN_CYCLES 2

void daemon_notify(const char *state)
{
#ifdef HAVE_SYSTEMD
	sd_notify(0, state);
#else
	(void)state;
#endif
}

#ifdef HAVE_SYSTEMD
static int on_watchdog(struct loop *l, int fd, uint32_t events, void *data)
{
	loop_timer_ack(fd);
	daemon_notify("WATCHDOG=1");
	return 0;
}

/* Ping at half the service manager's WatchdogSec=, if it set one. */
static void start_watchdog(struct daemon *d)
{
	uint64_t usec = 0;

	if (sd_watchdog_enabled(0, &usec) <= 0 || !usec)
		return;
	d->watchdog = loop_add_timer(d->loop, usec / 2, usec / 2, on_watchdog, d);
	if (d->watchdog < 0)
		log_errno(LOG_WARNING, d->watchdog, "watchdog timer");
}
#else
static void start_watchdog(struct daemon *d)
{
}
#endif

struct cfg *daemon_load_config(const struct daemon_args *args, bool to_stderr,
			       struct cfg_errors *ret_errs)
{
	struct cfg_errors errs = { 0 };
	struct cfg *cfg = NULL;
	int r;

	r = cfg_load(args->file, args->dir, args->dir_given, &cfg, &errs);
	for (unsigned i = 0; i < errs.nr; i++) {
		if (to_stderr)
			fprintf(stderr, "%s\n", errs.msgs[i]);
		else
			log_err("%s", errs.msgs[i]);
	}
	if (r == -ENOMEM)
		log_err("loading the configuration: out of memory");
	if (ret_errs)
		*ret_errs = errs;
	else
		cfg_errors_fini(&errs);
	if (r < 0)
		return NULL;
	if (args->dry_run)
		cfg->daemon.dry_run = true;
	if (args->log_level >= 0)
		cfg->daemon.log_level = args->log_level;
	return cfg;
}

static unsigned nr_engine(const struct cfg *cfg, enum cfg_engine e)
{
	unsigned n = 0;

	for (unsigned i = 0; i < cfg->nr_policies; i++)
		n += cfg->policies[i].engine == e;
	return n;
}

/* Whether any policy's `cgroup =` names a cgroup that exists now (or cannot be told). */
static bool any_cgroup_matches(const struct daemon *d)
{
	for (unsigned i = 0; i < d->cfg->nr_policies; i++) {
		const struct cfg_policy *p = &d->cfg->policies[i];
		struct cgrp_list l = { 0 };
		int n = cgrp_expand(&d->cg, p->cgroup, p->cgroup_is_glob, &l);

		cgrp_list_fini(&l);
		if (n != 0)
			return true;
	}
	return false;
}

/* Open DAMON (state_dir first) and acquire its kdamonds. Returns 0 or -errno, a condition. */
static int acquire_damon(struct daemon *d)
{
	const struct cfg *c = d->cfg;
	int r;

	if (!d->damon_open) {
		if (mkdir(c->daemon.state_dir, 0700) < 0 && errno != EEXIST) {
			r = -errno;
			log_cond_set(&d->damon_cond, LOG_ERR, "state_dir %s: %s",
				     c->daemon.state_dir, strerror(-r));
			return r;
		}
		r = damon_open(&d->damon, c->damon.sysfs_root, c->daemon.state_dir, NULL);
		if (r < 0) {
			log_cond_set(&d->damon_cond, LOG_ERR, "%s", d->damon.err);
			return r;
		}
		d->damon_open = true;
	}
	r = damon_acquire(&d->damon);
	if (r < 0) {
		log_cond_set(&d->damon_cond, LOG_ERR, "%s", d->damon.err);
		return r;
	}
	d->damon_owned = true;
	daemon_notify("STATUS=running: DAMON kdamonds owned");
	return 0;
}

/*
 * Start the engine e if its policies need it and it is not running. An operations set this
 * kernel lacks is a condition of its own (the engine's policies are inactive); returns 0 then.
 * Returns -errno, a condition, when the engine cannot start.
 */
static int start_engine(struct daemon *d, enum cfg_engine e)
{
	const struct cfg *c = d->cfg;
	bool vaddr = e == ENGINE_VADDR;
	int r;

	if (!nr_engine(c, e) || (vaddr ? d->vaddr != NULL : d->paddr != NULL))
		return 0;
	if (!(vaddr ? d->damon.feat.ops_vaddr : d->damon.feat.ops_paddr)) {
		log_cond_set(&d->no_ops[e], LOG_ERR, "%s",
			     vaddr ? "DAMON here has no vaddr operations (CONFIG_DAMON_VADDR): the "
				     "vaddr policies are inactive"
				   : "DAMON here has no paddr operations (CONFIG_DAMON_PADDR): the "
				     "paddr policies are inactive");
		return 0;
	}
	if (vaddr)
		r = vaddr_new(&d->vaddr, c, &d->damon, &d->cg);
	else
		r = paddr_new(&d->paddr, c, &d->damon, &d->cg);
	if (r < 0) {
		log_cond_set(&d->damon_cond, LOG_ERR, "starting the %s engine (%s): %s",
			     cfg_engine_name(e), c->daemon.proc_root, strerror(-r));
		return r;
	}
	if (vaddr) {
		vaddr_watch(d->vaddr, d->cgwatch);
		vaddr_cgstat(d->vaddr, d->cgstat);
	} else {
		paddr_watch(d->paddr, d->cgwatch);
	}
	return 0;
}

/*
 * Take DAMON when a policy has a cgroup to work on, and start the engines its policies need.
 * Returns 0, -ENOENT with d->idle set when there is nothing to reclaim (DAMON is not taken),
 * or -errno when DAMON cannot be taken: a kernel without DAMON, a foreign kdamond, another
 * pageoutd. That is one condition, logged when it starts, changes and clears; the daemon
 * tries again each cycle, so that an operator's fix, or a reload that adds the first policy
 * of an engine, takes effect without a restart.
 */
static int take_damon(struct daemon *d)
{
	int r;

	d->idle = NULL;
	if (!d->cfg->nr_policies && !d->damon_owned) {
		d->idle = "no policies";
		return -ENOENT;
	}
	if (!d->damon_owned && !any_cgroup_matches(d)) {
		d->idle = "no cgroup matched";
		return -ENOENT;
	}
	if (!d->damon_owned) {
		r = acquire_damon(d);
		if (r < 0)
			return r;
	}
	/* read before each state=on: a reload takes effect at the next start of a kdamond */
	d->damon.release_modules = d->cfg->damon.release_modules;
	for (int e = ENGINE_VADDR; e <= ENGINE_PADDR; e++)
		if (!nr_engine(d->cfg, (enum cfg_engine)e)) /* a reload removed its policies */
			log_cond_clear(&d->no_ops[e]);
	r = start_engine(d, ENGINE_PADDR);
	if (r == 0)
		r = start_engine(d, ENGINE_VADDR);
	if (r < 0)
		return r;
	log_cond_clear(&d->damon_cond);
	return 0;
}

/* Free the engines, then give back the kdamonds and close DAMON. */
static void give_back_damon(struct daemon *d)
{
	vaddr_free(d->vaddr);
	d->vaddr = NULL;
	paddr_free(d->paddr);
	d->paddr = NULL;
	if (d->damon_owned)
		damon_release(&d->damon);
	if (d->damon_open)
		damon_close(&d->damon);
	d->damon_owned = d->damon_open = false;
}

void daemon_report(const struct daemon *d, struct report_src *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->cfg = d->cfg;
	ret->vaddr = d->vaddr;
	ret->paddr = d->paddr;
	ret->cgstat = d->cgstat;
	ret->started_us = d->started_us;
	ret->cycles = d->cycles;
	ret->cycle_us_total = d->cycle_us_total;
	ret->damon_owned = d->damon_owned;
	ret->status = d->state;
	ret->waiting = log_cond_text(&d->damon_cond);
	ret->idle = d->idle;
	ret->no_vaddr = log_cond_text(&d->no_ops[ENGINE_VADDR]);
	ret->no_paddr = log_cond_text(&d->no_ops[ENGINE_PADDR]);
	ret->record_error = d->damon_open ? damon_record_error(&d->damon) : NULL;
}

/* The daemon's one-line state, for the reports and the service manager's STATUS=. */
static void set_state(struct daemon *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_state(struct daemon *d, const char *fmt, ...)
{
	char msg[sizeof(d->state) + 8];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(d->state, sizeof(d->state), fmt, ap);
	va_end(ap);
	snprintf(msg, sizeof(msg), "STATUS=%s", d->state);
	daemon_notify(msg);
}

/*
 * The per-cgroup figures of the paddr engine, which keeps one scheme per cgroup: each
 * scheme's sz_applied, and for frozen_only policies the frozen state the engine last read.
 * An engine not running has none.
 */
static void paddr_figures(struct daemon *d)
{
	const struct paddr_cgroup_stats *c;
	const char *path, *pol;
	uint64_t now = now_usec();

	if (!d->cgstat)
		return;
	cgstat_mark(d->cgstat, ENGINE_PADDR);
	for (size_t i = 0; d->paddr && (c = paddr_cgroup_at(d->paddr, i, &path, &pol)); i++) {
		const struct cfg_policy *p = cfg_find_policy(d->cfg, pol);
		struct cgstat_entry *e = cgstat_get(d->cgstat, ENGINE_PADDR, pol, path);

		if (!e)
			continue;
		e->reclaimed_bytes_total = c->sz_applied;
		cgstat_refaults(d->cgstat, e, c->refault_pages, c->ws_bytes, now);
		if (p && p->frozen_only)
			cgstat_frozen(d->cgstat, e, paddr_cgroup_frozen(d->paddr, i), now);
	}
	cgstat_sweep(d->cgstat, ENGINE_PADDR);
	if (!d->vaddr) {
		cgstat_mark(d->cgstat, ENGINE_VADDR);
		cgstat_sweep(d->cgstat, ENGINE_VADDR);
	}
}

/* Arm the one-shot timer for the first fault window after a thaw that is still open. */
static void arm_thaw_timer(struct daemon *d)
{
	uint64_t due = d->cgstat ? cgstat_next_due(d->cgstat) : 0, now = now_usec();

	if (due && d->thaw_timer >= 0)
		loop_timer_set(d->thaw_timer, due > now ? due - now : 0, 0);
}

static int on_thaw_timer(struct loop *l, int fd, uint32_t events, void *data)
{
	struct daemon *d = data;

	(void)l;
	(void)events;
	loop_timer_ack(fd);
	if (d->cgstat)
		cgstat_run_due(d->cgstat, now_usec());
	arm_thaw_timer(d);
	return 0;
}

/* Run the engines' cycles and say what they did in the state line. */
static void run_engines(struct daemon *d)
{
	struct report_src rs;
	char sz[16];

	/* a state_dir that was full or read-only when a kdamond started: try the record again */
	damon_sync_record(&d->damon);
	/* the engines log their own failures, once per condition */
	if (d->vaddr) {
		vaddr_cycle(d->vaddr);
		vaddr_log_summary(d->vaddr);
	}
	if (d->paddr) {
		paddr_cycle(d->paddr);
		paddr_log_summary(d->paddr);
	}
	daemon_report(d, &rs);
	set_state(d,
		  "%s%u policies, %" PRIu64 " processes on vaddr, %" PRIu64
		  " schemes on paddr, %s reclaimed",
		  d->cfg->daemon.dry_run ? "dry run: " : "", d->cfg->nr_policies,
		  d->vaddr ? vaddr_stats(d->vaddr)->targets : 0,
		  d->paddr ? paddr_stats(d->paddr)->schemes : 0,
		  fmt_size(sz, sizeof(sz), report_reclaimed_bytes(&rs)));
}

/* One decision cycle: take DAMON if need be, run the engines, update the figures. */
static void cycle(struct daemon *d)
{
	uint64_t t0 = now_usec();
	int r = take_damon(d);

	d->cycles++;
	if (r < 0 && d->idle)
		set_state(d, "idle: %s", d->idle);
	else if (r < 0)
		set_state(d, "waiting for DAMON: %s",
			  log_cond_text(&d->damon_cond) ?: strerror(-r));
	else
		run_engines(d);
	paddr_figures(d);
	arm_thaw_timer(d);
	d->cycle_us_total += now_usec() - t0;
	if (!d->ready) {
		/* ready once the first cycle has run: the socket answers with real figures */
		d->ready = true;
		daemon_notify("READY=1");
	}
}

static int on_cycle_timer(struct loop *l, int fd, uint32_t events, void *data)
{
	struct daemon *d = data;

	(void)l;
	(void)events;
	loop_timer_ack(fd);
	cycle(d);
	if (d->quick_cycles && --d->quick_cycles)
		loop_timer_set(d->cycle_timer, FROZEN_GAP_US, d->cfg->daemon.interval_us);
	return 0;
}

static int on_cgroup_events(struct loop *l, int fd, uint32_t events, void *data)
{
	struct daemon *d = data;
	unsigned n = 0;

	(void)l;
	(void)events;
	cgrp_watch_drain(fd);
	if (d->vaddr)
		n += vaddr_frozen_changed(d->vaddr);
	if (d->paddr) {
		n += paddr_frozen_changed(d->paddr);
		paddr_figures(d);
	}
	arm_thaw_timer(d);
	if (n) {
		log_info("%u frozen_only cgroups froze or thawed: cycles now", n);
		d->quick_cycles = FROZEN_CYCLES;
		loop_timer_set(d->cycle_timer, FROZEN_CYCLE_DELAY_US, d->cfg->daemon.interval_us);
	}
	return 0;
}

/*
 * The restart keys (daemon.h): a reload keeps their values in force (copied from old into n)
 * and returns how many differed, their names in names.
 */
static unsigned keep_restart_keys(const struct cfg *old, struct cfg *n,
				  char names[DAEMON_RESTART_KEYS_LEN])
{
	static const struct {
		const char *key;
		size_t off, size;
	} keys[] = {
#define KEY(name, field) { name, offsetof(struct cfg, field), sizeof(((struct cfg *)0)->field) }
		KEY("socket", daemon.socket),	     KEY("socket_group", daemon.socket_group),
		KEY("state_dir", daemon.state_dir),  KEY("proc_root", daemon.proc_root),
		KEY("sysfs_root", damon.sysfs_root),
#undef KEY
	};
	unsigned changed = 0;
	size_t len = DAEMON_RESTART_KEYS_LEN;

	names[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		const char *a = (const char *)old + keys[i].off;
		char *b = (char *)n + keys[i].off;

		if (!strcmp(a, b))
			continue;
		str_copy(b, keys[i].size, a);
		snprintf(names + strlen(names), len - strlen(names), "%s%s", changed ? ", " : "",
			 keys[i].key);
		changed++;
	}
	return changed;
}

/* Hand the engines n; on failure they are given back the configuration in force. */
static int engines_set_config(struct daemon *d, const struct cfg *n)
{
	if ((d->vaddr && vaddr_set_config(d->vaddr, n) < 0) ||
	    (d->paddr && paddr_set_config(d->paddr, n) < 0)) {
		if (d->vaddr)
			vaddr_set_config(d->vaddr, d->cfg);
		if (d->paddr)
			paddr_set_config(d->paddr, d->cfg);
		return -ENOMEM;
	}
	return 0;
}

static void on_config_changed(void *data)
{
	struct daemon *d = data;

	log_notice("the configuration changed on disk: reloading");
	daemon_reload(d, NULL, NULL);
}

/* Start or stop the watch of the configuration's files as watch_config says. */
static void follow_watch_config(struct daemon *d)
{
	int r;

	if (!d->cfg->daemon.watch_config) {
		if (cfgwatch_active(&d->cfgwatch))
			log_info("configuration files no longer watched (watch_config = no)");
		cfgwatch_stop(&d->cfgwatch);
		return;
	}
	if (cfgwatch_active(&d->cfgwatch) || !d->loop)
		return;
	r = cfgwatch_start(&d->cfgwatch, d->loop, d->args->file, d->args->dir, on_config_changed,
			   d);
	if (r < 0)
		log_errno(LOG_WARNING, r,
			  "cannot watch the configuration files; changes are read at a reload");
	else
		log_info("watching %s and %s/*.conf: a change reloads", d->args->file,
			 d->args->dir);
}

int daemon_reload(struct daemon *d, struct cfg_errors *ret_errs,
		  char ret_restart[DAEMON_RESTART_KEYS_LEN])
{
	char restart[DAEMON_RESTART_KEYS_LEN];
	struct cfg *n;

	daemon_notify("RELOADING=1");
	if (ret_restart)
		ret_restart[0] = '\0';
	cfgwatch_reading(&d->cfgwatch); /* this reload reads what changed until now */
	n = daemon_load_config(d->args, false, ret_errs);
	if (!n) {
		log_err("reload failed: keeping the current configuration (%u policies)",
			d->cfg->nr_policies);
		daemon_notify("READY=1\nSTATUS=reload failed, old configuration in force");
		return -EINVAL;
	}
	if (keep_restart_keys(d->cfg, n, restart))
		log_warn("reload: %s changed; the new value takes effect at the next start, the "
			 "old one stays in force",
			 restart);
	if (engines_set_config(d, n) < 0) {
		log_err("reload failed: out of memory; keeping the current configuration");
		cfg_free(n);
		daemon_notify("READY=1\nSTATUS=reload failed, old configuration in force");
		return -ENOMEM;
	}
	cfg_free(d->cfg);
	d->cfg = n;
	log_set_level(n->daemon.log_level);
	loop_timer_set(d->cycle_timer, n->daemon.interval_us, n->daemon.interval_us);
	follow_watch_config(d);
	log_notice("reloaded configuration: %u policies", n->nr_policies);
	if (ret_restart)
		str_copy(ret_restart, DAEMON_RESTART_KEYS_LEN, restart);
	daemon_notify("READY=1\nSTATUS=configuration reloaded");
	return (int)n->nr_policies;
}

int daemon_pause(struct daemon *d, const char *policy, bool paused)
{
	int r = -ENOENT;

	/* an engine = both policy is two of that name: both parts pause and resume together */
	for (unsigned i = 0; i < d->cfg->nr_policies; i++) {
		const struct cfg_policy *p = &d->cfg->policies[i];
		int k;

		if (strcmp(p->name, policy))
			continue;
		if (p->engine == ENGINE_VADDR)
			k = d->vaddr ? vaddr_pause(d->vaddr, policy, paused) : -EAGAIN;
		else
			k = d->paddr ? paddr_pause(d->paddr, policy, paused) : -EAGAIN;
		if (r == -ENOENT || k < 0)
			r = k;
	}
	return r;
}

void daemon_init(struct daemon *d, const struct daemon_args *args, struct cfg *cfg)
{
	*d = (struct daemon){
		.args = args,
		.cfg = cfg,
		.cycle_timer = -1,
		.cgwatch = -1,
		.procfd = -1,
		.thaw_timer = -1,
		.watchdog = -1,
	};
	cfgwatch_init(&d->cfgwatch);
}

/* The per-cgroup figures are a report, not a duty: without them pageoutd goes on. */
static void start_figures(struct daemon *d)
{
	d->procfd = open(d->cfg->daemon.proc_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	d->cgstat = cgstat_new(&d->cg, d->procfd);
	d->thaw_timer = loop_add_timer(d->loop, CGSTAT_THAW_WINDOW_US, 0, on_thaw_timer, d);
	if (d->procfd < 0 || !d->cgstat || d->thaw_timer < 0)
		log_warn("per-cgroup figures: %s: the major faults after a thaw are not counted",
			 d->procfd < 0 ? "cannot open proc_root" : "out of resources");
}

/* Without the watch (cgroup v1, or no inotify) frozen cgroups are seen at the next cycle. */
static void start_cgroup_watch(struct daemon *d)
{
	int r;

	if (d->cg.version != 2)
		return;
	d->cgwatch = cgrp_watch_new();
	if (d->cgwatch >= 0 &&
	    (r = loop_add_fd(d->loop, d->cgwatch, EPOLLIN, on_cgroup_events, d)) < 0) {
		close(d->cgwatch);
		d->cgwatch = r;
	}
	if (d->cgwatch < 0)
		log_errno(LOG_WARNING, d->cgwatch,
			  "cannot watch cgroup.events; frozen_only cgroups are seen frozen at the "
			  "next cycle");
}

int daemon_start(struct daemon *d, struct loop *l)
{
	int r;

	d->loop = l;
	r = cgrp_init(&d->cg);
	if (r < 0)
		return log_errno(LOG_ERR, r, "cannot find the memory cgroup hierarchy");
	log_info("memory cgroup hierarchy: %s (cgroup v%d)", d->cg.mount, d->cg.version);
	d->cycle_timer = loop_add_timer(l, 0, d->cfg->daemon.interval_us, on_cycle_timer, d);
	if (d->cycle_timer < 0)
		return log_errno(LOG_ERR, d->cycle_timer, "cycle timer");
	start_figures(d);
	start_cgroup_watch(d);
	start_watchdog(d);
	follow_watch_config(d);
	d->started_us = now_usec();
	set_state(d, "starting: first cycle");
	return 0;
}

static void close_watched(struct loop *l, int *fd)
{
	if (*fd < 0)
		return;
	if (l)
		loop_del_fd(l, *fd);
	close(*fd);
	*fd = -1;
}

void daemon_fini(struct daemon *d)
{
	give_back_damon(d);
	d->cgstat = cgstat_free(d->cgstat);
	if (d->procfd >= 0)
		close(d->procfd);
	d->procfd = -1;
	cfgwatch_stop(&d->cfgwatch);
	close_watched(d->loop, &d->cgwatch);
	close_watched(d->loop, &d->thaw_timer);
	close_watched(d->loop, &d->cycle_timer);
	close_watched(d->loop, &d->watchdog);
	d->cfg = cfg_free(d->cfg);
}
