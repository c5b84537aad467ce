// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pageoutd: arguments, wiring and the event loop. The daemon's state and cycle are in daemon.c,
 * its answers on the stats socket in control.c; everything else lives in libpageoutd.
 */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sysexits.h>
#include <unistd.h>

#include "pageoutd/cgroup.h"
#include "pageoutd/config.h"
#include "pageoutd/control.h"
#include "pageoutd/daemon.h"
#include "pageoutd/log.h"
#include "pageoutd/loop.h"
#include "pageoutd/server.h"
#include "pageoutd/util.h"

struct opts {
	struct daemon_args load; /* what every configuration load is asked */
	bool check;
	bool foreground;
};

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

/* Returns -1 to go on, else the exit status (after --help, --version or a usage error). */
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
			o->load.file = optarg;
			break;
		case 'd':
			o->load.dir = optarg;
			o->load.dir_given = true;
			break;
		case 'C':
			o->check = true;
			break;
		case 'n':
			o->load.dry_run = true;
			break;
		case 'f':
			o->foreground = true;
			break;
		case 'l':
			o->load.log_level = log_level_parse(optarg);
			if (o->load.log_level < 0) {
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

/* TERM and INT end the loop, HUP reloads. */
static int on_signal(struct loop *l, int signo, void *data)
{
	if (signo == SIGHUP) {
		daemon_reload(data, NULL, NULL);
		return 0;
	}
	log_notice("received %s, exiting", strsignal(signo));
	loop_quit(l, 0);
	return 0;
}

/*
 * Keep working under memory pressure: pageoutd's own pages stay resident. Future mappings too
 * only without a memlock limit: under one, a later mmap past it would fail.
 */
static void lock_memory(void)
{
	struct rlimit rl = { 0 };
	int flags = MCL_CURRENT | MCL_ONFAULT;

	if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur == RLIM_INFINITY)
		flags |= MCL_FUTURE;
	if (mlockall(flags) < 0)
		log_warn("mlockall: %s; pageoutd's own memory may be reclaimed under pressure",
			 strerror(errno));
}

/* The stats socket, answered by control. Returns it, or NULL: none configured, or it failed. */
static struct server *start_server(struct daemon *d, struct loop *l)
{
	const char *path = d->cfg->daemon.socket;
	struct server *s = NULL;
	int fd = server_inherited_fd(), r;

	if (fd < 0 && !path[0])
		return NULL; /* socket = (empty): no stats socket */
	r = server_new(&s, l, fd, path, d->cfg->daemon.socket_group, control_answer, d);
	if (r < 0) {
		log_err("the stats socket is not served (%s); pageoutd goes on without it",
			strerror(-r));
		return NULL;
	}
	log_info("stats socket: %s", fd >= 0 ? "handed over by the service manager" : path);
	return s;
}

/* Run the daemon until a signal ends it, then finish it. Returns the exit status. */
static int run(struct daemon *d)
{
	struct server *server;
	struct loop *l;
	int r;

	r = loop_new(&l, on_signal, d);
	if (r < 0) {
		log_errno(LOG_ERR, r, "event loop");
		daemon_fini(d);
		return 1;
	}
	r = daemon_start(d, l);
	if (r < 0) {
		daemon_fini(d);
		loop_free(l);
		return 1;
	}
	lock_memory();
	server = start_server(d, l);
	log_notice("started: %u policies, interval %llu ms%s", d->cfg->nr_policies,
		   (unsigned long long)(d->cfg->daemon.interval_us / USEC_PER_MSEC),
		   d->cfg->daemon.dry_run ? ", dry run" : "");
	r = loop_run(l);
	daemon_notify("STOPPING=1");
	server_free(server);
	daemon_fini(d);
	loop_free(l);
	if (r < 0) {
		log_errno(LOG_ERR, r, "event loop");
		return 1;
	}
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
				"policy %s waits until one exists\n",
				p->file, p->cgroup_line ? p->cgroup_line : p->line, p->cgroup,
				root.mount, p->name);
	}
}

int main(int argc, char **argv)
{
	struct opts o = {
		.load = { .file = CFG_DEFAULT_FILE, .dir = CFG_DEFAULT_DIR, .log_level = -1 },
	};
	bool systemd = getenv("NOTIFY_SOCKET") || getenv("INVOCATION_ID");
	struct daemon d;
	struct cfg *cfg;
	int r;

	r = parse_args(argc, argv, &o);
	if (r >= 0)
		return r;
	log_setup(LOG_TARGET_AUTO, LOG_INFO);
	cfg = daemon_load_config(&o.load, true, NULL);
	if (!cfg)
		return EX_CONFIG;
	if (o.check) {
		cfg_print(cfg, stdout);
		warn_unmatched(cfg);
		cfg_free(cfg);
		return 0;
	}
	if (!o.foreground && !systemd) {
		if (daemon(0, 0) < 0) {
			perror("pageoutd: daemon");
			cfg_free(cfg);
			return 1;
		}
		log_setup(LOG_TARGET_SYSLOG, cfg->daemon.log_level);
	} else {
		log_setup(LOG_TARGET_AUTO, cfg->daemon.log_level);
	}
	daemon_init(&d, &o.load, cfg);
	return run(&d);
}
