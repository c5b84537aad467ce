// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pageoutd: arguments, wiring and the event loop. Everything else lives in libpageoutd.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sysexits.h>
#include <unistd.h>

#ifdef HAVE_SYSTEMD
#include <systemd/sd-daemon.h>
#endif

#include "pageoutd/cgroup.h"
#include "pageoutd/cgstat.h"
#include "pageoutd/config.h"
#include "pageoutd/damon.h"
#include "pageoutd/log.h"
#include "pageoutd/loop.h"
#include "pageoutd/paddr.h"
#include "pageoutd/report.h"
#include "pageoutd/server.h"
#include "pageoutd/util.h"
#include "pageoutd/vaddr.h"

struct opts {
	const char *file;
	const char *dir;
	bool dir_given;
	bool check;
	bool dry_run;
	bool foreground;
	int log_level; /* -1: from the config */
};

struct daemon {
	struct opts *o;
	struct cfg *cfg;
	struct cgrp_root cg;
	struct loop *loop;
	int timer;
	int cgwatch;	       /* inotify on the cgroup.events of frozen_only cgroups, -1: none */
	unsigned quick;	       /* cycles still to run FROZEN_GAP_US apart after a freeze */
	struct cgstat *cgstat; /* per-cgroup figures */
	int procfd;	       /* proc_root, for the major faults of thawed cgroups */
	int thaw_timer;	       /* closes the fault windows after thaws (one-shot) */
	unsigned long cycles;
	struct damon damon;
	bool damon_open, damon_owned;
	struct vaddr *vaddr;
	struct paddr *paddr;
	struct server *server;
	int watchdog;
	uint64_t started_us, cycle_us_total;
	char state[LOG_COND_TEXT_MAX + 64];
	bool ready;
	struct log_cond damon_cond;		  /* DAMON cannot be taken, or an engine started */
	struct log_cond no_ops[ENGINE_PADDR + 1]; /* an engine's operations set is missing */
	const char *idle;			  /* nothing to reclaim: why, else NULL */
};

static void notify(const char *state)
{
#ifdef HAVE_SYSTEMD
	sd_notify(0, state);
#else
	(void)state;
#endif
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: pageoutd [OPTION]...\n"
		"Proactive memory reclaim driven by DAMON, per cgroup.\n\n"
		"  -c, --config FILE     main configuration file (default %s)\n"
		"  -d, --config-dir DIR  policy drop-in directory (default %s)\n"
		"      --check-config    validate the configuration, print it and exit\n"
		"  -n, --dry-run         decide and report, never reclaim\n"
		"  -f, --foreground      stay in the foreground, log to stderr\n"
		"  -l, --log-level LVL   err, warning, notice, info or debug\n"
		"  -V, --version         print the version and exit\n"
		"  -h, --help            print this help and exit\n\n"
		"Exit status: 0 success, 1 runtime error, 78 configuration error.\n",
		CFG_DEFAULT_FILE, CFG_DEFAULT_DIR);
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "config-dir", required_argument, NULL, 'd' },
		{ "check-config", no_argument, NULL, 'C' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "log-level", required_argument, NULL, 'l' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "c:d:nfl:Vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			o->file = optarg;
			break;
		case 'd':
			o->dir = optarg;
			o->dir_given = true;
			break;
		case 'C':
			o->check = true;
			break;
		case 'n':
			o->dry_run = true;
			break;
		case 'f':
			o->foreground = true;
			break;
		case 'l':
			o->log_level = log_level_parse(optarg);
			if (o->log_level < 0) {
				fprintf(stderr, "pageoutd: --log-level: unknown level '%s'\n",
					optarg);
				return EX_USAGE;
			}
			break;
		case 'V':
#ifdef HAVE_SYSTEMD
			printf("pageoutd %s (+systemd)\n", PACKAGE_VERSION);
#else
			printf("pageoutd %s (-systemd)\n", PACKAGE_VERSION);
#endif
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EX_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "pageoutd: unexpected argument '%s'\n", argv[optind]);
		return EX_USAGE;
	}
	return -1;
}

/*
 * Load and validate; on failure every error is logged (or printed to stderr) and NULL
 * returned. With `answer`, every error line goes there too (a reload's answer).
 */
static struct cfg *load(const struct opts *o, bool to_stderr, struct sbuf *answer)
{
	struct cfg_errors errs = { 0 };
	struct cfg *cfg = NULL;
	int r;

	r = cfg_load(o->file, o->dir, o->dir_given, &cfg, &errs);
	for (unsigned i = 0; i < errs.nr; i++) {
		if (to_stderr)
			fprintf(stderr, "%s\n", errs.msgs[i]);
		else
			log_err("%s", errs.msgs[i]);
		if (answer)
			sbuf_printf(answer, "error: %s\n", errs.msgs[i]);
	}
	if (r == -ENOMEM)
		log_err("loading the configuration: out of memory");
	cfg_errors_fini(&errs);
	if (r < 0)
		return NULL;
	if (o->dry_run)
		cfg->daemon.dry_run = true;
	if (o->log_level >= 0)
		cfg->daemon.log_level = o->log_level;
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
	const struct cfg *c = d->cfg;
	int r;

	d->idle = NULL;
	if (!c->nr_policies && !d->damon_owned)
		return d->idle = "no policies", -ENOENT;
	if (!d->damon_owned && !any_cgroup_matches(d))
		return d->idle = "no cgroup matched", -ENOENT;
	if (!d->damon_owned) {
		if (!d->damon_open) {
			if (mkdir(c->daemon.state_dir, 0700) < 0 && errno != EEXIST) {
				r = -errno;
				log_cond_set(&d->damon_cond, LOG_ERR, "state_dir %s: %s",
					     c->daemon.state_dir, strerror(-r));
				return r;
			}
			r = damon_open(&d->damon, c->damon.sysfs_root, c->daemon.state_dir, NULL);
			if (r < 0)
				return log_cond_set(&d->damon_cond, LOG_ERR, "%s", d->damon.err), r;
			d->damon_open = true;
		}
		r = damon_acquire(&d->damon);
		if (r < 0)
			return log_cond_set(&d->damon_cond, LOG_ERR, "%s", d->damon.err), r;
		d->damon_owned = true;
		notify("STATUS=running: DAMON kdamonds owned");
	}
	/* read at each state=on: a reload takes effect at the next start of a kdamond */
	d->damon.release_modules = c->damon.release_modules;
	for (int e = ENGINE_VADDR; e <= ENGINE_PADDR; e++)
		if (!nr_engine(c, (enum cfg_engine)e)) /* a reload removed its policies */
			log_cond_clear(&d->no_ops[e]);
	if (!d->paddr && nr_engine(c, ENGINE_PADDR) && !d->damon.feat.ops_paddr) {
		log_cond_set(&d->no_ops[ENGINE_PADDR], LOG_ERR,
			     "DAMON here has no paddr operations (CONFIG_DAMON_PADDR): the paddr "
			     "policies are inactive");
	} else if (!d->paddr && nr_engine(c, ENGINE_PADDR)) {
		r = paddr_new(&d->paddr, c, &d->damon, &d->cg);
		if (r < 0)
			return log_cond_set(&d->damon_cond, LOG_ERR,
					    "starting the paddr engine (%s): %s",
					    c->daemon.proc_root, strerror(-r)),
			       r;
		paddr_watch(d->paddr, d->cgwatch);
	}
	if (!d->vaddr && nr_engine(c, ENGINE_VADDR) && !d->damon.feat.ops_vaddr) {
		log_cond_set(&d->no_ops[ENGINE_VADDR], LOG_ERR,
			     "DAMON here has no vaddr operations (CONFIG_DAMON_VADDR): the vaddr "
			     "policies are inactive");
	} else if (!d->vaddr && nr_engine(c, ENGINE_VADDR)) {
		r = vaddr_new(&d->vaddr, c, &d->damon, &d->cg);
		if (r < 0)
			return log_cond_set(&d->damon_cond, LOG_ERR,
					    "starting the vaddr engine (%s): %s",
					    c->daemon.proc_root, strerror(-r)),
			       r;
		vaddr_watch(d->vaddr, d->cgwatch);
		vaddr_cgstat(d->vaddr, d->cgstat);
	}
	log_cond_clear(&d->damon_cond);
	return 0;
}

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

static void report_of(const struct daemon *d, struct report_src *r)
{
	memset(r, 0, sizeof(*r));
	r->cfg = d->cfg;
	r->vaddr = d->vaddr;
	r->paddr = d->paddr;
	r->cgstat = d->cgstat;
	r->started_us = d->started_us;
	r->cycles = d->cycles;
	r->cycle_us_total = d->cycle_us_total;
	r->damon_owned = d->damon_owned;
	r->status = d->state;
	r->waiting = log_cond_text(&d->damon_cond);
	r->idle = d->idle;
	r->no_vaddr = log_cond_text(&d->no_ops[ENGINE_VADDR]);
	r->no_paddr = log_cond_text(&d->no_ops[ENGINE_PADDR]);
}

static void set_state(struct daemon *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_state(struct daemon *d, const char *fmt, ...)
{
	char msg[sizeof(d->state) + 8];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(d->state, sizeof(d->state), fmt, ap);
	va_end(ap);
	snprintf(msg, sizeof(msg), "STATUS=%s", d->state);
	notify(msg);
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

/* One decision cycle. */
static void cycle(struct daemon *d)
{
	uint64_t t0 = now_usec();
	int r = take_damon(d);

	d->cycles++;
	if (r < 0 && d->idle) {
		set_state(d, "idle: %s", d->idle);
	} else if (r < 0) {
		set_state(d, "waiting for DAMON: %s",
			  log_cond_text(&d->damon_cond) ?: strerror(-r));
	} else {
		char sz[16];

		/* the engines log their own failures, once per condition */
		if (d->vaddr) {
			vaddr_cycle(d->vaddr);
			vaddr_log_summary(d->vaddr);
		}
		if (d->paddr) {
			paddr_cycle(d->paddr);
			paddr_log_summary(d->paddr);
		}
		struct report_src rs;

		report_of(d, &rs);
		set_state(d,
			  "%s%u policies, %" PRIu64 " processes on vaddr, %" PRIu64
			  " schemes on paddr, %s reclaimed",
			  d->cfg->daemon.dry_run ? "dry run: " : "", d->cfg->nr_policies,
			  d->vaddr ? vaddr_stats(d->vaddr)->targets : 0,
			  d->paddr ? paddr_stats(d->paddr)->schemes : 0,
			  fmt_size(sz, sizeof(sz), report_reclaimed_bytes(&rs)));
	}
	paddr_figures(d);
	arm_thaw_timer(d);
	d->cycle_us_total += now_usec() - t0;
	if (!d->ready) {
		/* ready once the first cycle has run: the socket answers with real figures */
		d->ready = true;
		notify("READY=1");
	}
}

#ifdef HAVE_SYSTEMD
static int on_watchdog(struct loop *l, int fd, uint32_t events, void *data)
{
	(void)l;
	(void)events;
	(void)data;
	loop_timer_ack(fd);
	notify("WATCHDOG=1");
	return 0;
}
#endif

static void reload(struct daemon *d, struct sbuf *answer);

static int pause_policy(struct daemon *d, const char *name, bool paused)
{
	const struct cfg_policy *p = cfg_find_policy(d->cfg, name);

	if (!p)
		return -ENOENT;
	if (p->engine == ENGINE_VADDR)
		return d->vaddr ? vaddr_pause(d->vaddr, name, paused) : -EAGAIN;
	return d->paddr ? paddr_pause(d->paddr, name, paused) : -EAGAIN;
}

/* One request of the stats socket. Control requests are for uid 0 only. */
static void on_request(void *data, const char *line, const struct ucred *peer, struct sbuf *out)
{
	struct daemon *d = data;
	struct report_src r;
	struct request q;
	int e;

	request_parse(line, &q);
	report_of(d, &r);
	if (q.control && peer->uid != 0) {
		log_rl(LOG_NOTICE, "stats socket: refused '%.*s' from uid %d (control is for root)",
		       (int)q.verb_len, q.verb, (int)peer->uid);
		sbuf_printf(out, "error: permission denied: '%.*s' is for root only\n",
			    (int)q.verb_len, q.verb);
		return;
	}
	switch (q.kind) {
	case REQ_STATS:
		report_stats_json(&r, out);
		break;
	case REQ_METRICS:
		report_metrics(&r, out);
		break;
	case REQ_STATUS:
		report_status(&r, out);
		break;
	case REQ_CGROUPS:
		report_cgroups(&r, out);
		break;
	case REQ_DETAIL:
		report_detail(&r, out);
		break;
	case REQ_POLICIES:
		report_policies(&r, out);
		break;
	case REQ_VERSION:
		sbuf_printf(out, "pageoutd %s\n", PACKAGE_VERSION);
		break;
	case REQ_HELP:
		sbuf_puts(out,
			  "requests: stats metrics status cgroups detail policies version help; "
			  "as root: reload, pause POLICY, resume POLICY\n");
		break;
	case REQ_RELOAD:
		reload(d, out);
		break;
	case REQ_PAUSE:
	case REQ_RESUME: {
		bool pause = q.kind == REQ_PAUSE;

		if (!*q.arg) {
			sbuf_printf(out, "error: usage: %.*s POLICY\n", (int)q.verb_len, q.verb);
			break;
		}
		e = pause_policy(d, q.arg, pause);
		if (e == -ENOENT)
			sbuf_printf(out, "error: no policy '%s'\n", q.arg);
		else if (e < 0)
			sbuf_printf(out,
				    "error: policy '%s' is not running yet; try again after a "
				    "cycle\n",
				    q.arg);
		else {
			log_notice("policy %s %s by uid 0 (pid %d)", q.arg,
				   pause ? "paused" : "resumed", (int)peer->pid);
			sbuf_printf(out, "ok: %s %s\n", q.arg, pause ? "paused" : "resumed");
		}
		break;
	}
	case REQ_UNKNOWN:
		sbuf_printf(out, "error: unknown request '%.*s'; try help\n",
			    (int)(q.verb_len > 64 ? 64 : q.verb_len), q.verb);
		break;
	}
}

/* The socket handed over by systemd, or by Android's init (ANDROID_SOCKET_pageoutd). */
static int inherited_socket(void)
{
	const char *a = getenv("ANDROID_SOCKET_pageoutd");
	uint64_t fd;

#ifdef HAVE_SYSTEMD
	int n = sd_listen_fds(1);

	if (n > 1)
		log_warn("socket activation passed %d sockets; serving the first", n);
	if (n >= 1 && sd_is_socket_unix(SD_LISTEN_FDS_START, SOCK_STREAM, 1, NULL, 0) > 0)
		return SD_LISTEN_FDS_START;
	if (n >= 1)
		log_err("socket activation: descriptor %d is not a listening Unix stream socket; "
			"ignoring it",
			SD_LISTEN_FDS_START);
#endif
	if (a && parse_u64(a, &fd) == 0 && fd <= 65535)
		return (int)fd;
	return -1;
}

/*
 * A watched cgroup.events changed. When a frozen_only cgroup froze (or, on paddr, froze or
 * thawed) FROZEN_CYCLES cycles run, the first FROZEN_CYCLE_DELAY_US from now and the next
 * FROZEN_GAP_US apart, before the period resumes: a newly frozen app's cold memory goes at
 * once, and a thawed app's paddr scheme stops at once. The delay gathers the events of one
 * freeze (every cgroup of a frozen subtree raises its own); the second cycle is there because
 * a vaddr snapshot can come back without a target's regions (no news; every other one on
 * 6.12).
 */
#define FROZEN_CYCLE_DELAY_US (100 * USEC_PER_MSEC)
#define FROZEN_GAP_US (500 * USEC_PER_MSEC)
#define FROZEN_CYCLES 2

static int on_timer(struct loop *l, int fd, uint32_t events, void *data)
{
	struct daemon *d = data;

	(void)l;
	(void)events;
	loop_timer_ack(fd);
	cycle(d);
	if (d->quick && --d->quick)
		loop_timer_set(d->timer, FROZEN_GAP_US, d->cfg->daemon.interval_us);
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
		d->quick = FROZEN_CYCLES;
		loop_timer_set(d->timer, FROZEN_CYCLE_DELAY_US, d->cfg->daemon.interval_us);
	}
	return 0;
}

/*
 * The keys a running daemon cannot change: the socket it serves, the DAMON and procfs it
 * holds open and the record of what it owns. A reload keeps their values in force (copied
 * from old into n) and returns how many differed, their names appended to names.
 */
static unsigned keep_restart_keys(const struct cfg *old, struct cfg *n, char *names, size_t len)
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

/* SIGHUP or the reload request: answer (may be NULL) gets one line per error, or ok. */
static void reload(struct daemon *d, struct sbuf *answer)
{
	char restart[128];
	struct cfg *n;

	notify("RELOADING=1");
	n = load(d->o, false, answer);
	if (!n) {
		log_err("reload failed: keeping the current configuration (%u policies)",
			d->cfg->nr_policies);
		if (answer)
			sbuf_printf(answer,
				    "error: reload failed, the configuration in force stays (%u "
				    "policies)\n",
				    d->cfg->nr_policies);
		notify("READY=1\nSTATUS=reload failed, old configuration in force");
		return;
	}
	if (keep_restart_keys(d->cfg, n, restart, sizeof(restart)))
		log_warn("reload: %s changed; the new value takes effect at the next start, the "
			 "old one stays in force",
			 restart);
	if ((d->vaddr && vaddr_set_config(d->vaddr, n) < 0) ||
	    (d->paddr && paddr_set_config(d->paddr, n) < 0)) {
		log_err("reload failed: out of memory; keeping the current configuration");
		if (d->vaddr)
			vaddr_set_config(d->vaddr, d->cfg);
		if (d->paddr)
			paddr_set_config(d->paddr, d->cfg);
		cfg_free(n);
		if (answer)
			sbuf_puts(answer, "error: reload failed: out of memory\n");
		notify("READY=1\nSTATUS=reload failed, old configuration in force");
		return;
	}
	cfg_free(d->cfg);
	d->cfg = n;
	log_set_level(n->daemon.log_level);
	loop_timer_set(d->timer, n->daemon.interval_us, n->daemon.interval_us);
	log_notice("reloaded configuration: %u policies", n->nr_policies);
	if (answer) {
		sbuf_printf(answer, "ok: reloaded, %u policies\n", n->nr_policies);
		if (restart[0])
			sbuf_printf(answer,
				    "restart needed: %s changed; the old value stays in force "
				    "until pageoutd restarts\n",
				    restart);
	}
	notify("READY=1\nSTATUS=configuration reloaded");
}

static int on_signal(struct loop *l, int signo, void *data)
{
	if (signo == SIGHUP) {
		reload(data, NULL);
		return 0;
	}
	log_notice("received %s, exiting", strsignal(signo));
	loop_quit(l, 0);
	return 0;
}

static void start_server(struct daemon *d)
{
	const char *path = d->cfg->daemon.socket;
	int fd = inherited_socket(), r;

	if (fd < 0 && !path[0])
		return; /* socket = (empty): no stats socket */
	if (fd < 0) {
		char dir[PATH_MAX];
		char *slash;

		str_copy(dir, sizeof(dir), path);
		slash = strrchr(dir, '/');
		if (slash && slash != dir) {
			*slash = '\0';
			if (mkdir(dir, 0755) < 0 && errno != EEXIST)
				log_errno(LOG_WARNING, -errno, "stats socket directory %s", dir);
		}
	}
	r = server_new(&d->server, d->loop, fd, path, d->cfg->daemon.socket_group, on_request, d);
	if (r < 0)
		log_err("the stats socket is not served (%s); pageoutd goes on without it",
			strerror(-r));
	else
		log_info("stats socket: %s", fd >= 0 ? "handed over by the service manager" : path);
}

static int run(struct daemon *d)
{
	int r;

	r = cgrp_init(&d->cg);
	if (r < 0)
		return log_errno(LOG_ERR, r, "cannot find the memory cgroup hierarchy"), 1;
	log_info("memory cgroup hierarchy: %s (cgroup v%d)", d->cg.mount, d->cg.version);
	r = loop_new(&d->loop, on_signal, d);
	if (r < 0)
		return log_errno(LOG_ERR, r, "event loop"), 1;
	d->timer = loop_add_timer(d->loop, 0, d->cfg->daemon.interval_us, on_timer, d);
	if (d->timer < 0)
		return log_errno(LOG_ERR, d->timer, "cycle timer"), 1;
	/* per-cgroup figures are a report, not a duty: without them pageoutd goes on */
	d->procfd = open(d->cfg->daemon.proc_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	d->cgstat = cgstat_new(&d->cg, d->procfd);
	d->thaw_timer = loop_add_timer(d->loop, CGSTAT_THAW_WINDOW_US, 0, on_thaw_timer, d);
	if (d->procfd < 0 || !d->cgstat || d->thaw_timer < 0)
		log_warn("per-cgroup figures: %s: the major faults after a thaw are not counted",
			 d->procfd < 0 ? "cannot open proc_root" : "out of resources");
	if (d->cg.version == 2) {
		d->cgwatch = cgrp_watch_new();
		if (d->cgwatch >= 0 &&
		    (r = loop_add_fd(d->loop, d->cgwatch, EPOLLIN, on_cgroup_events, d)) < 0) {
			close(d->cgwatch);
			d->cgwatch = r;
		}
		if (d->cgwatch < 0)
			log_errno(LOG_WARNING, d->cgwatch,
				  "cannot watch cgroup.events; frozen_only cgroups are seen frozen "
				  "at the next cycle");
	}
	d->started_us = now_usec();
	/*
	 * Keep working under memory pressure: pageoutd's own pages stay resident. Future
	 * mappings too only without a memlock limit: under one, a later mmap past it would fail.
	 */
	{
		struct rlimit rl = { 0 };
		int fl = MCL_CURRENT | MCL_ONFAULT;

		if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur == RLIM_INFINITY)
			fl |= MCL_FUTURE;
		if (mlockall(fl) < 0)
			log_warn("mlockall: %s; pageoutd's own memory may be reclaimed under "
				 "pressure",
				 strerror(errno));
	}
	start_server(d);
#ifdef HAVE_SYSTEMD
	{
		uint64_t usec = 0;

		if (sd_watchdog_enabled(0, &usec) > 0 && usec) {
			d->watchdog = loop_add_timer(d->loop, usec / 2, usec / 2, on_watchdog, d);
			if (d->watchdog < 0)
				log_errno(LOG_WARNING, d->watchdog, "watchdog timer");
		}
	}
#endif
	log_notice("started: %u policies, interval %llu ms%s", d->cfg->nr_policies,
		   (unsigned long long)(d->cfg->daemon.interval_us / USEC_PER_MSEC),
		   d->cfg->daemon.dry_run ? ", dry run" : "");
	set_state(d, "starting: first cycle");
	r = loop_run(d->loop);
	notify("STOPPING=1");
	server_free(d->server);
	d->server = NULL;
	give_back_damon(d);
	d->cgstat = cgstat_free(d->cgstat);
	if (d->procfd >= 0)
		close(d->procfd);
	if (r < 0)
		return log_errno(LOG_ERR, r, "event loop"), 1;
	return r;
}

/*
 * --check-config: a warning on stderr for each policy whose cgroup matches nothing on this
 * machine now. Not an error: the policy waits until its cgroup appears.
 */
static void warn_unmatched(const struct cfg *cfg)
{
	struct cgrp_root root;

	if (!cfg->nr_policies || cgrp_init(&root) < 0)
		return;
	for (unsigned i = 0; i < cfg->nr_policies; i++) {
		const struct cfg_policy *p = &cfg->policies[i];
		struct cgrp_list l = { 0 };
		int n = cgrp_expand(&root, p->cgroup, p->cgroup_is_glob, &l);

		cgrp_list_fini(&l);
		if (n == 0)
			fprintf(stderr,
				"%s:%u: warning: cgroup = %s matches no cgroup under %s now; "
				"policy "
				"%s waits until one exists\n",
				p->file, p->cgroup_line ? p->cgroup_line : p->line, p->cgroup,
				root.mount, p->name);
	}
}

int main(int argc, char **argv)
{
	struct opts o = { .file = CFG_DEFAULT_FILE, .dir = CFG_DEFAULT_DIR, .log_level = -1 };
	struct daemon d = {
		.o = &o, .timer = -1, .cgwatch = -1, .watchdog = -1, .procfd = -1, .thaw_timer = -1
	};
	bool systemd = getenv("NOTIFY_SOCKET") || getenv("INVOCATION_ID");
	int r;

	r = parse_args(argc, argv, &o);
	if (r >= 0)
		return r;
	log_setup(LOG_TARGET_AUTO, LOG_INFO);
	d.cfg = load(&o, true, NULL);
	if (!d.cfg)
		return EX_CONFIG;
	if (o.check) {
		cfg_print(d.cfg, stdout);
		warn_unmatched(d.cfg);
		cfg_free(d.cfg);
		return 0;
	}
	if (!o.foreground && !systemd) {
		if (daemon(0, 0) < 0) {
			perror("pageoutd: daemon");
			return 1;
		}
		log_setup(LOG_TARGET_SYSLOG, d.cfg->daemon.log_level);
	} else {
		log_setup(LOG_TARGET_AUTO, d.cfg->daemon.log_level);
	}
	r = run(&d);
	loop_free(d.loop);
	if (d.cgwatch >= 0)
		close(d.cgwatch);
	cfg_free(d.cfg);
	return r;
}
