// SPDX-License-Identifier: GPL-2.0-or-later
/* log: one backend chosen at start, rate limits for loop call sites. */
#include <config.h>

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#ifdef HAVE_SYSTEMD
#include <systemd/sd-journal.h>
#endif

#include "pageoutd/log.h"
#include "pageoutd/util.h"

enum backend { BACKEND_STDERR, BACKEND_PREFIXED, BACKEND_JOURNAL, BACKEND_SYSLOG };

static enum backend backend = BACKEND_STDERR;
static int max_level = LOG_INFO;
static bool colour;
static void (*capture)(int prio, const char *msg);

void log_set_capture(void (*fn)(int prio, const char *msg))
{
	capture = fn;
}

static const char *const level_names[] = {
	[LOG_EMERG] = "emerg", [LOG_ALERT] = "alert",	  [LOG_CRIT] = "crit",
	[LOG_ERR] = "err",     [LOG_WARNING] = "warning", [LOG_NOTICE] = "notice",
	[LOG_INFO] = "info",   [LOG_DEBUG] = "debug",
};

int log_level_parse(const char *s)
{
	for (int i = LOG_ERR; i <= LOG_DEBUG; i++)
		if (!strcasecmp(s, level_names[i]))
			return i;
	if (!strcasecmp(s, "error"))
		return LOG_ERR;
	if (!strcasecmp(s, "warn"))
		return LOG_WARNING;
	return -EINVAL;
}

const char *log_level_name(int prio)
{
	if (prio < 0 || prio > LOG_DEBUG)
		return "?";
	return level_names[prio];
}

void log_setup(enum log_target target, int max_prio)
{
	const char *stream = getenv("JOURNAL_STREAM");

	max_level = max_prio;
	if (target == LOG_TARGET_SYSLOG) {
		openlog("pageoutd", LOG_PID | LOG_NDELAY, LOG_DAEMON);
		backend = BACKEND_SYSLOG;
		return;
	}
	if (stream && *stream) {
		/* stderr is connected to the journal: systemd runs us */
#ifdef HAVE_SYSTEMD
		backend = BACKEND_JOURNAL;
#else
		backend = BACKEND_PREFIXED;
#endif
		return;
	}
	backend = BACKEND_STDERR;
	colour = isatty(STDERR_FILENO) && !getenv("NO_COLOR");
}

void log_set_level(int max_prio)
{
	max_level = max_prio;
}

int log_get_level(void)
{
	return max_level;
}

static void log_vmsg(int prio, const char *fmt, va_list ap)
{
	char buf[2048];

	if (prio > max_level && !capture)
		return;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	if (capture)
		capture(prio, buf);
	if (prio > max_level)
		return;
	switch (backend) {
	case BACKEND_JOURNAL:
#ifdef HAVE_SYSTEMD
		sd_journal_send("MESSAGE=%s", buf, "PRIORITY=%d", prio,
				"SYSLOG_IDENTIFIER=pageoutd", NULL);
#endif
		break;
	case BACKEND_PREFIXED:
		fprintf(stderr, "<%d>%s\n", prio, buf);
		break;
	case BACKEND_SYSLOG:
		syslog(prio, "%s", buf);
		break;
	case BACKEND_STDERR:
		if (colour && prio <= LOG_WARNING)
			fprintf(stderr, "\033[%sm%s\033[0m\n", prio <= LOG_ERR ? "1;31" : "33",
				buf);
		else
			fprintf(stderr, "pageoutd: %s: %s\n", level_names[prio], buf);
		break;
	}
}

void log_msg(int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(prio, fmt, ap);
	va_end(ap);
}

int log_errno(int prio, int err, const char *fmt, ...)
{
	char buf[1536];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	log_msg(prio, "%s: %s", buf, strerror(err < 0 ? -err : err));
	return err;
}

int log_ratelimit_ok(struct log_ratelimit *rl, unsigned *ret_suppressed)
{
	uint64_t now = now_usec();

	*ret_suppressed = 0;
	if (!rl->begin || now - rl->begin >= rl->interval_us) {
		*ret_suppressed = rl->suppressed;
		rl->begin = now;
		rl->printed = 0;
		rl->suppressed = 0;
	}
	if (rl->printed < rl->burst) {
		rl->printed++;
		return 1;
	}
	rl->suppressed++;
	return 0;
}

bool log_cond_set(struct log_cond *c, int prio, const char *fmt, ...)
{
	char text[LOG_COND_TEXT_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (c->on && !strcmp(c->text, text)) {
		c->count++;
		return false;
	}
	if (c->on)
		log_msg(prio, "%s (the previous condition held %lu cycles)", text, c->count);
	else
		log_msg(prio, "%s", text);
	memcpy(c->text, text, sizeof(text));
	c->on = true;
	c->prio = prio;
	c->count = 1;
	return true;
}

bool log_cond_clear(struct log_cond *c)
{
	if (!c->on)
		return false;
	log_notice("%s: cleared after %lu cycle%s", c->text, c->count, c->count == 1 ? "" : "s");
	c->on = false;
	c->count = 0;
	return true;
}

const char *log_cond_text(const struct log_cond *c)
{
	return c->on ? c->text : NULL;
}
