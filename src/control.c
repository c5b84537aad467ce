// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * control: the request table and the answers; see control.h and pageoutd(8), REQUESTS.
 */
#include <config.h>

#include <errno.h>
#include <string.h>

#include "pageoutd/control.h"
#include "pageoutd/log.h"
#include "pageoutd/proto.h"
#include "pageoutd/report.h"

/* At most this much of an unknown request's word is repeated in the answer. */
#define WORD_ECHO_MAX 64

/* The requests anyone may make: reports of the daemon's state, and what pageoutd is. */

static void report(const struct daemon *d, void (*render)(const struct report_src *, struct sbuf *),
		   struct sbuf *out)
{
	struct report_src r;

	daemon_report(d, &r);
	render(&r, out);
}

static void answer_stats(struct daemon *d, const char *arg, const struct ucred *peer,
			 struct sbuf *out)
{
	report(d, report_stats_json, out);
}

static void answer_metrics(struct daemon *d, const char *arg, const struct ucred *peer,
			   struct sbuf *out)
{
	report(d, report_metrics, out);
}

static void answer_status(struct daemon *d, const char *arg, const struct ucred *peer,
			  struct sbuf *out)
{
	report(d, report_status, out);
}

static void answer_cgroups(struct daemon *d, const char *arg, const struct ucred *peer,
			   struct sbuf *out)
{
	report(d, report_cgroups, out);
}

static void answer_detail(struct daemon *d, const char *arg, const struct ucred *peer,
			  struct sbuf *out)
{
	report(d, report_detail, out);
}

static void answer_policies(struct daemon *d, const char *arg, const struct ucred *peer,
			    struct sbuf *out)
{
	report(d, report_policies, out);
}

static void answer_version(struct daemon *d, const char *arg, const struct ucred *peer,
			   struct sbuf *out)
{
	sbuf_printf(out, "pageoutd %s\n", PACKAGE_VERSION);
}

/* The requests for root: control of the daemon, each said in the log. */

static void answer_reload(struct daemon *d, const char *arg, const struct ucred *peer,
			  struct sbuf *out)
{
	struct cfg_errors errs = { 0 };
	char restart[DAEMON_RESTART_KEYS_LEN];
	int r = daemon_reload(d, &errs, restart);

	for (unsigned i = 0; i < errs.nr; i++)
		sbuf_printf(out, "%s %s\n", PROTO_ERROR, errs.msgs[i]);
	cfg_errors_fini(&errs);
	if (r == -ENOMEM) {
		sbuf_printf(out, "%s reload failed: out of memory\n", PROTO_ERROR);
		return;
	}
	if (r < 0) {
		sbuf_printf(out,
			    "%s reload failed, the configuration in force stays (%u policies)\n",
			    PROTO_ERROR, d->cfg->nr_policies);
		return;
	}
	sbuf_printf(out, "ok: reloaded, %d policies\n", r);
	if (restart[0])
		sbuf_printf(out,
			    "restart needed: %s changed; the old value stays in force until "
			    "pageoutd restarts\n",
			    restart);
}

static void pause_policy(struct daemon *d, const char *policy, const struct ucred *peer, bool pause,
			 struct sbuf *out)
{
	const char *done = pause ? "paused" : "resumed";
	int r = daemon_pause(d, policy, pause);

	if (r == -ENOENT) {
		sbuf_printf(out, "%s no policy '%s'\n", PROTO_ERROR, policy);
	} else if (r < 0) {
		sbuf_printf(out, "%s policy '%s' is not running yet; try again after a cycle\n",
			    PROTO_ERROR, policy);
	} else {
		log_notice("policy %s %s by uid 0 (pid %d)", policy, done, (int)peer->pid);
		sbuf_printf(out, "ok: %s %s\n", policy, done);
	}
}

static void answer_pause(struct daemon *d, const char *arg, const struct ucred *peer,
			 struct sbuf *out)
{
	pause_policy(d, arg, peer, true, out);
}

static void answer_resume(struct daemon *d, const char *arg, const struct ucred *peer,
			  struct sbuf *out)
{
	pause_policy(d, arg, peer, false, out);
}

static void answer_help(struct daemon *d, const char *arg, const struct ucred *peer,
			struct sbuf *out);

/* In the order of PROTO_REQUESTS, which `help` follows. Control of the daemon is for root. */
static const struct control_request requests[] = {
	{ PROTO_REQ_STATS, NULL, false, answer_stats },
	{ PROTO_REQ_METRICS, NULL, false, answer_metrics },
	{ PROTO_REQ_STATUS, NULL, false, answer_status },
	{ PROTO_REQ_CGROUPS, NULL, false, answer_cgroups },
	{ PROTO_REQ_DETAIL, NULL, false, answer_detail },
	{ PROTO_REQ_POLICIES, NULL, false, answer_policies },
	{ PROTO_REQ_VERSION, NULL, false, answer_version },
	{ PROTO_REQ_HELP, NULL, false, answer_help },
	{ PROTO_REQ_RELOAD, NULL, true, answer_reload },
	{ PROTO_REQ_PAUSE, "POLICY", true, answer_pause },
	{ PROTO_REQ_RESUME, "POLICY", true, answer_resume },
};

/* "requests: the open ones; as root: the others, with their arguments", from the table. */
static void answer_help(struct daemon *d, const char *arg, const struct ucred *peer,
			struct sbuf *out)
{
	const char *sep = "requests: ";

	for (size_t i = 0; i < ARRAY_SIZE(requests); i++) {
		if (!requests[i].needs_root) {
			sbuf_printf(out, "%s%s", sep, requests[i].name);
			sep = " ";
		}
	}
	sep = "; as root: ";
	for (size_t i = 0; i < ARRAY_SIZE(requests); i++) {
		if (requests[i].needs_root) {
			sbuf_printf(out, "%s%s%s%s", sep, requests[i].name,
				    requests[i].arg ? " " : "", requests[i].arg ?: "");
			sep = ", ";
		}
	}
	sbuf_puts(out, "\n");
}

const struct control_request *control_find(const char *word, size_t len)
{
	for (size_t i = 0; i < ARRAY_SIZE(requests); i++)
		if (strlen(requests[i].name) == len && !strncmp(word, requests[i].name, len))
			return &requests[i];
	return NULL;
}

void control_answer(void *daemon, const char *line, const struct ucred *peer, struct sbuf *out)
{
	const char *sp = strchr(line, ' ');
	size_t len = sp ? (size_t)(sp - line) : strlen(line);
	const char *arg = line + len;
	const struct control_request *q = control_find(line, len);

	while (*arg == ' ')
		arg++;
	if (!q) {
		sbuf_printf(out, "%s unknown request '%.*s'; try help\n", PROTO_ERROR,
			    (int)(len > WORD_ECHO_MAX ? WORD_ECHO_MAX : len), line);
		return;
	}
	if (q->needs_root && peer->uid != 0) {
		log_rl(LOG_NOTICE, "stats socket: refused '%s' from uid %d (control is for root)",
		       q->name, (int)peer->uid);
		sbuf_printf(out, "%s permission denied: '%s' is for root only\n", PROTO_ERROR,
			    q->name);
		return;
	}
	if (q->arg && !*arg) {
		sbuf_printf(out, "%s usage: %s %s\n", PROTO_ERROR, q->name, q->arg);
		return;
	}
	q->handler(daemon, arg, peer, out);
}
