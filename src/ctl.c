// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pageoutctl: talk to a running pageoutd over its stats socket (one request line, one
 * response), or check a configuration without a daemon.
 */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "pageoutd/config.h"
#include "pageoutd/proto.h"
#include "pageoutd/util.h"

/* request: the word sent (proto.h); NULL: done here, without the daemon */
static const struct cmd {
	const char *name, *args, *request, *help;
	unsigned nargs;
} cmds[] = {
	{ "status", "[--cgroups]", PROTO_REQ_STATUS,
	  "policies, cgroups, processes, cold, reclaimed, refaults, PSI (--cgroups: a line per "
	  "cgroup: state, reclaimed, frozen time, major faults after thaws)",
	  0 },
	{ "stats", "[--json]", PROTO_REQ_DETAIL,
	  "everything pageoutd counts (--json: the JSON document)", 0 },
	{ "metrics", "", PROTO_REQ_METRICS, "the Prometheus text exposition", 0 },
	{ "policies", "", PROTO_REQ_POLICIES, "the policies in force, one line each", 0 },
	{ "version", "", PROTO_REQ_VERSION, "the daemon's version", 0 },
	{ "reload", "", PROTO_REQ_RELOAD, "re-read the configuration (root)", 0 },
	{ "pause", "POLICY", PROTO_REQ_PAUSE, "pause a policy until resumed (root)", 1 },
	{ "resume", "POLICY", PROTO_REQ_RESUME, "resume a paused policy (root)", 1 },
	{ "check-config", "[-c FILE] [-d DIR]", NULL, "validate a configuration, no daemon needed",
	  0 },
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: pageoutctl [--socket PATH] COMMAND [ARGS]\n"
		   "Ask a running pageoutd, or check its configuration.\n\nCommands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(cmds); i++)
		fprintf(f, "  %-13s %-20s %s\n", cmds[i].name, cmds[i].args, cmds[i].help);
	fprintf(f,
		"\n  -s, --socket PATH  the daemon's socket (default %s)\n"
		"  -h, --help         this help; COMMAND --help: that command's\n"
		"  -V, --version      pageoutctl's version\n\n"
		"Exit status: 0 success, 1 the daemon is unreachable or refused, 2 usage.\n",
		CFG_DEFAULT_SOCKET);
}

static int ask_daemon(const char *path, const char *req)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char buf[65536];
	int fd;
	bool error = false, first = true;
	size_t len = strlen(req);

	if (str_copy(sa.sun_path, sizeof(sa.sun_path), path) < 0) {
		fprintf(stderr, "pageoutctl: socket path too long: %s\n", path);
		return 2;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		fprintf(stderr, "pageoutctl: cannot reach pageoutd at %s: %s\n", path,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return 1;
	}
	if (write(fd, req, len) != (ssize_t)len || write(fd, "\n", 1) != 1) {
		fprintf(stderr, "pageoutctl: sending to %s: %s\n", path, strerror(errno));
		close(fd);
		return 1;
	}
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "pageoutctl: reading from %s: %s\n", path, strerror(errno));
			close(fd);
			return 1;
		}
		if (n == 0)
			break;
		if (first && (size_t)n >= strlen(PROTO_ERROR) &&
		    !strncmp(buf, PROTO_ERROR, strlen(PROTO_ERROR)))
			error = true;
		first = false;
		if (fwrite(buf, 1, (size_t)n, error ? stderr : stdout) != (size_t)n)
			break;
	}
	close(fd);
	if (first) {
		fprintf(stderr, "pageoutctl: %s closed the connection without an answer\n", path);
		return 1;
	}
	return error ? 1 : 0;
}

static int check_config(int argc, char **argv)
{
	const char *file = CFG_DEFAULT_FILE, *dir = NULL;
	char *args[8];
	unsigned n = 0;
	int c;

	optind = 1;
	while ((c = getopt(argc, argv, "c:d:h")) != -1) {
		if (c == 'c')
			file = optarg;
		else if (c == 'd')
			dir = optarg;
		else {
			fprintf(c == 'h' ? stdout : stderr,
				"Usage: pageoutctl check-config [-c FILE] [-d DIR]\n"
				"Validate a configuration (default %s and %s): every error with "
				"file:line, or the effective settings.\n",
				CFG_DEFAULT_FILE, CFG_DEFAULT_DIR);
			return c == 'h' ? 0 : 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "pageoutctl check-config: unexpected argument '%s'\n",
			argv[optind]);
		return 2;
	}
	static char a0[] = "pageoutd", a1[] = "--check-config", a2[] = "-c", a4[] = "-d";

	args[n++] = a0;
	args[n++] = a1;
	args[n++] = a2;
	args[n++] = (char *)(uintptr_t)file;
	/* -d only when given, so that a missing default conf.d is what it is to pageoutd: none */
	if (dir) {
		args[n++] = a4;
		args[n++] = (char *)(uintptr_t)dir;
	}
	args[n] = NULL;
	/* the daemon beside this program first (a build tree), then the installed one */
	{
		char self[4096], *slash;
		ssize_t l = readlink("/proc/self/exe", self, sizeof(self) - 16);

		if (l > 0) {
			self[l] = '\0';
			slash = strrchr(self, '/');
			if (slash) {
				strcpy(slash + 1, "pageoutd");
				execv(self, args);
			}
		}
	}
	execv(SBINDIR "/pageoutd", args);
	execvp("pageoutd", args);
	fprintf(stderr, "pageoutctl: cannot run pageoutd --check-config: %s\n", strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *sock = CFG_DEFAULT_SOCKET;
	const struct cmd *cmd = NULL;
	char req[PROTO_REQUEST_MAX];
	bool json = false, cgroups = false;
	int c;

	while ((c = getopt_long(argc, argv, "+s:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			sock = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("pageoutctl %s\n", PACKAGE_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	for (size_t i = 0; i < ARRAY_SIZE(cmds); i++)
		if (!strcmp(argv[optind], cmds[i].name))
			cmd = &cmds[i];
	if (!cmd) {
		fprintf(stderr, "pageoutctl: unknown command '%s'; see pageoutctl --help\n",
			argv[optind]);
		return 2;
	}
	argc -= optind;
	argv += optind;
	if (!cmd->request)
		return check_config(argc, argv);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("Usage: pageoutctl [--socket PATH] %s %s\n%s.\n", cmd->name,
			       cmd->args, cmd->help);
			return 0;
		}
		if (!strcmp(cmd->name, "stats") && !strcmp(argv[i], "--json"))
			json = true;
		else if (!strcmp(cmd->name, "status") && !strcmp(argv[i], "--cgroups"))
			cgroups = true;
		else if (cmd->nargs == 0 || i > (int)cmd->nargs || argv[i][0] == '-') {
			fprintf(stderr, "pageoutctl %s: unexpected argument '%s'\n", cmd->name,
				argv[i]);
			return 2;
		}
	}
	if (argc - 1 < (int)cmd->nargs) {
		fprintf(stderr, "Usage: pageoutctl %s %s\n", cmd->name, cmd->args);
		return 2;
	}
	if (cmd->nargs)
		snprintf(req, sizeof(req), "%s %s", cmd->request, argv[1]);
	else
		snprintf(req, sizeof(req), "%s",
			 json	   ? PROTO_REQ_STATS
			 : cgroups ? PROTO_REQ_CGROUPS
				   : cmd->request);
	if (strlen(req) + 1 >= sizeof(req)) {
		fprintf(stderr, "pageoutctl: request too long\n");
		return 2;
	}
	return ask_daemon(sock, req);
}
