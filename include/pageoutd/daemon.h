/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * daemon: pageoutd's running state and its decision cycle. The daemon takes DAMON when a
 * policy has a cgroup to work on, starts the engines its policies need, runs one cycle per
 * `interval` (and quicker ones after a frozen_only cgroup froze or thawed), keeps the
 * per-cgroup figures and the state it reports, reloads its configuration, and gives DAMON
 * back when it stops.
 *
 * Ownership: the daemon owns the configuration in force (cfg: handed over by daemon_init,
 * replaced whole by a reload, freed by daemon_fini) and the engines (vaddr, paddr: started by
 * the cycle, freed with DAMON); the engines read cfg, which a reload swaps under them through
 * their *_set_config. The loop is the caller's; the daemon's timers and watch are in it from
 * daemon_start to daemon_fini. Single-threaded: everything here runs from the event loop.
 *
 * Failures of DAMON and of the engines are not errors of these functions: they are
 * conditions, logged once when they start, change and clear, shown in the reported state,
 * and tried again every cycle.
 */
#ifndef PAGEOUTD_DAEMON_H
#define PAGEOUTD_DAEMON_H

#include <stdbool.h>
#include <stdint.h>

#include "pageoutd/cfgwatch.h"
#include "pageoutd/cgroup.h"
#include "pageoutd/cgstat.h"
#include "pageoutd/config.h"
#include "pageoutd/damon.h"
#include "pageoutd/log.h"
#include "pageoutd/loop.h"
#include "pageoutd/paddr.h"
#include "pageoutd/report.h"
#include "pageoutd/vaddr.h"

/* What the command line asked of every configuration load: the first one and each reload. */
struct daemon_args {
	const char *file;
	const char *dir;
	bool dir_given; /* a missing dir is an error, not "no policies" */
	bool dry_run;
	int log_level; /* -1: the configuration's */
};

struct daemon {
	const struct daemon_args *args;
	struct cfg *cfg; /* in force */
	struct cgrp_root cg;
	struct loop *loop;
	int cycle_timer;       /* the cycle */
	int cgwatch;	       /* inotify on the cgroup.events of frozen_only cgroups, -1: none */
	unsigned quick_cycles; /* cycles still to run FROZEN_GAP_US apart after a freeze */
	struct cgstat *cgstat; /* per-cgroup figures, NULL: not kept */
	int procfd;	       /* proc_root, for the major faults of thawed cgroups */
	int thaw_timer;	       /* closes the fault windows after thaws (one-shot) */
	int watchdog;	       /* WATCHDOG=1 at half the service manager's WatchdogSec= */
	struct cfgwatch cfgwatch; /* the configuration's files, while watch_config */
	unsigned long cycles;
	struct damon damon;
	bool damon_open, damon_owned;
	struct vaddr *vaddr; /* NULL: not running */
	struct paddr *paddr;
	uint64_t started_us, cycle_us_total;
	char state[LOG_COND_TEXT_MAX + 64];	  /* what the daemon does, one line (STATUS=) */
	bool ready;				  /* READY=1 sent: the first cycle ran */
	struct log_cond damon_cond;		  /* DAMON cannot be taken, or an engine started */
	struct log_cond no_ops[ENGINE_PADDR + 1]; /* an engine's operations set is missing */
	const char *idle;			  /* nothing to reclaim: why, else NULL */
};

/*
 * daemon_load_config: load the configuration args names and validate it, with args' dry run
 * and log level applied. Returns a new configuration (free with cfg_free) or NULL. Every error
 * is logged, or printed on stderr with to_stderr; with ret_errs they are kept there too, one
 * line each (the caller calls cfg_errors_fini).
 */
struct cfg *daemon_load_config(const struct daemon_args *args, bool to_stderr,
			       struct cfg_errors *ret_errs);

/* daemon_init: a daemon that has cfg in force and reloads it from args. Cannot fail. */
void daemon_init(struct daemon *d, const struct daemon_args *args, struct cfg *cfg);
/*
 * daemon_start: find the memory cgroup hierarchy and add to l the cycle's timer (its first
 * cycle at once), the thaw timer, the cgroup.events watch, the service manager's watchdog and,
 * with watch_config, the watch of the configuration's files (a settled change reloads).
 * Returns 0, or -errno, logged, when there is no memory cgroup hierarchy or no cycle timer;
 * the per-cgroup figures, the watch and the watchdog are only warned about when they cannot
 * be had.
 */
int daemon_start(struct daemon *d, struct loop *l);
/* daemon_fini: give DAMON back, free the engines and the configuration, close what it holds. */
void daemon_fini(struct daemon *d);

/*
 * The keys a running daemon cannot change: the socket it serves, the DAMON tree and procfs it
 * holds open and the record of what it owns. Their names, comma-separated, fit this length.
 */
#define DAEMON_RESTART_KEYS_LEN 128

/*
 * daemon_reload: SIGHUP and the reload request. Loads the configuration again and, if it
 * validates and the engines take it, puts it in force: its policies, log level and interval;
 * watch_config takes effect at once. The restart keys keep their old values, their names, when
 * changed, in ret_restart ("" when
 * none; may be NULL). ret_errs (may be NULL) gets the new configuration's errors (the caller
 * calls cfg_errors_fini). Returns the number of policies now in force, -EINVAL when the
 * configuration could not be loaded, -ENOMEM when the engines could not take it; on failure
 * the configuration in force stays. Logged and told to the service manager either way.
 */
int daemon_reload(struct daemon *d, struct cfg_errors *ret_errs,
		  char ret_restart[DAEMON_RESTART_KEYS_LEN]);

/*
 * daemon_pause: an operator pauses (or resumes) policy by name. Returns 0, -ENOENT when no
 * policy has that name, -EAGAIN when its engine is not running yet (DAMON not taken).
 */
int daemon_pause(struct daemon *d, const char *policy, bool paused);

/* daemon_report: what the reports render, pointing into d (valid until d changes). */
void daemon_report(const struct daemon *d, struct report_src *ret);

/* daemon_notify: tell the service manager (sd_notify(3) text); nothing without libsystemd. */
void daemon_notify(const char *state);

#endif
