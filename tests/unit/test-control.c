// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The request table of the stats socket, without a running daemon: every request word of
 * proto.h has an entry, the control requests are for root only and refused to any other peer
 * before anything of the daemon is read, and the answers of a daemon whose engines have not
 * started (pause, resume, reload) are what pageoutctl and pageoutd(8) promise.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pageoutd/control.h"
#include "pageoutd/log.h"
#include "pageoutd/proto.h"
#include "../lib/cfgtext.h"
#include "../lib/tap.h"

static const struct ucred root = { .pid = 1, .uid = 0, .gid = 0 };
static const struct ucred nobody = { .pid = 1, .uid = 65534, .gid = 65534 };

/* The answer to line from peer, by a daemon that may be NULL; the caller frees it. */
static char *answer(struct daemon *d, const char *line, const struct ucred *peer)
{
	struct sbuf out = { 0 };
	char *s;

	control_answer(d, line, peer, &out);
	s = strdup(out.s ? out.s : "");
	sbuf_fini(&out);
	return s;
}

static void check_answer(struct daemon *d, const char *line, const struct ucred *peer,
			 const char *want, const char *what)
{
	char *got = answer(d, line, peer);

	is_str(got, want, "%s", what);
	free(got);
}

static void check_table(void)
{
	static const char *const words[] = { PROTO_REQUESTS };
	static const char *const root_only[] = { PROTO_REQ_RELOAD, PROTO_REQ_PAUSE,
						 PROTO_REQ_RESUME };

	for (size_t i = 0; i < ARRAY_SIZE(words); i++) {
		const struct control_request *q = control_find(words[i], strlen(words[i]));
		bool want_root = false;

		for (size_t j = 0; j < ARRAY_SIZE(root_only); j++)
			want_root |= !strcmp(words[i], root_only[j]);
		ok(q && !strcmp(q->name, words[i]) && q->handler, "'%s' has an entry", words[i]);
		ok(q && q->needs_root == want_root, "'%s' is %s", words[i],
		   want_root ? "for root only" : "for anyone");
	}
	ok(!control_find("stat", 4) && !control_find("statsx", 6) && !control_find("", 0),
	   "a word is found whole, and only whole");
	ok(control_find("pause web", 5) != NULL, "a word need not end in NUL");
}

/* With no daemon at all: only what must never read it. */
static void check_refusals(void)
{
	static const char *const lines[] = { PROTO_REQ_RELOAD, PROTO_REQ_PAUSE " web",
					     PROTO_REQ_RESUME " web", PROTO_REQ_PAUSE };

	for (size_t i = 0; i < ARRAY_SIZE(lines); i++) {
		char want[128];
		size_t len = strcspn(lines[i], " ");

		snprintf(want, sizeof(want), "error: permission denied: '%.*s' is for root only\n",
			 (int)len, lines[i]);
		check_answer(NULL, lines[i], &nobody, want, "uid 65534 refused");
	}
	check_answer(NULL, "bogus x", &root, "error: unknown request 'bogus'; try help\n",
		     "an unknown request, even from root");
	check_answer(NULL, "", &nobody, "error: unknown request ''; try help\n", "an empty line");
	check_answer(
		NULL,
		"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz",
		&nobody,
		"error: unknown request "
		"'abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijkl'; try help\n",
		"a long unknown word is cut at 64 bytes");
	check_answer(NULL, PROTO_REQ_PAUSE, &root, "error: usage: pause POLICY\n",
		     "pause without a policy");
	check_answer(NULL, PROTO_REQ_RESUME "   ", &root, "error: usage: resume POLICY\n",
		     "resume with only spaces");
	check_answer(NULL, PROTO_REQ_HELP, &nobody,
		     "requests: stats metrics status cgroups detail policies version help; as "
		     "root: reload, pause POLICY, resume POLICY\n",
		     "help lists the table");
	check_answer(NULL, PROTO_REQ_VERSION, &nobody, "pageoutd " PACKAGE_VERSION "\n", "version");
}

/* A daemon with its configuration but no engine: as before its first cycle took DAMON. */
static void check_daemon(const char *top)
{
	const char *policy = "[policy]\ncgroup = /nowhere\n";
	char file[PATH_MAX], dir[PATH_MAX], daemon_text[PATH_MAX + 64], *got;
	struct daemon_args args = { .file = file, .dir = dir, .dir_given = true, .log_level = -1 };
	struct daemon d;
	struct cfg *cfg;

	snprintf(file, sizeof(file), "%s/pageoutd.conf", top);
	snprintf(dir, sizeof(dir), "%s/conf.d", top);
	snprintf(daemon_text, sizeof(daemon_text), "socket = %s/a.sock\n", top);
	cfg = cfgtext_load(top, daemon_text, policy);
	if (!ok(cfg != NULL, "a configuration with one policy"))
		return;
	daemon_init(&d, &args, cfg);
	check_answer(&d, "pause host", &root,
		     "error: policy 'host' is not running yet; try again after a cycle\n",
		     "pause before the engine runs");
	check_answer(&d, "resume nosuch", &root, "error: no policy 'nosuch'\n",
		     "resume of an unknown policy");
	got = answer(&d, PROTO_REQ_STATS, &nobody);
	ok(got[0] == '{', "stats: a JSON document for anyone");
	free(got);
	check_answer(&d, "reload", &root, "ok: reloaded, 1 policies\n", "reload");
	snprintf(daemon_text, sizeof(daemon_text), "socket = %s/b.sock\n", top);
	cfgtext_put(file, "[daemon]\n", daemon_text);
	got = answer(&d, "reload", &root);
	has_str(got, "restart needed: socket changed", "reload: a changed socket waits");
	free(got);
	cfgtext_put(file, "[daemon]\n", "interval = soon\n");
	got = answer(&d, "reload", &root);
	ok(!strncmp(got, "error: ", 7) &&
		   strstr(got, "error: reload failed, the configuration in force stays (1 "
			       "policies)\n"),
	   "reload of a bad file: its errors, then the old configuration stays");
	free(got);
	daemon_fini(&d);
}

int main(void)
{
	char top[] = "/tmp/pageoutd-test-control.XXXXXX";
	char cmd[sizeof(top) + 16];

	log_setup(LOG_TARGET_STDERR, LOG_EMERG);
	check_table();
	check_refusals();
	if (ok(mkdtemp(top) != NULL, "a directory for the configuration"))
		check_daemon(top);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", top);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", top);
	tap_done();
	return tap_failed ? 1 : 0;
}
