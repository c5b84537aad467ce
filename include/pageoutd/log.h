/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * log: leveled logging. The backend is chosen once by log_setup(): the journal under systemd
 * (when built with libsystemd), "<N>"-prefixed stderr under systemd without libsystemd, stderr
 * (colour on a tty unless NO_COLOR) in the foreground, syslog when daemonized.
 */
#ifndef PAGEOUTD_LOG_H
#define PAGEOUTD_LOG_H

#include <stdbool.h>
#include <stdint.h>
#include <syslog.h>

enum log_target {
	LOG_TARGET_AUTO,
	LOG_TARGET_STDERR,
	LOG_TARGET_SYSLOG,
};

/* log_setup: pick the backend and the maximum priority logged (LOG_ERR..LOG_DEBUG). */
void log_setup(enum log_target target, int max_prio);
/* log_set_level, log_get_level: the maximum priority logged, whatever the backend. */
void log_set_level(int max_prio);
/* log_set_capture: also hand every logged message to fn (tests); NULL to stop. */
void log_set_capture(void (*fn)(int prio, const char *msg));
int log_get_level(void);
/* log_level_parse: "err", "warning", "notice", "info", "debug" -> LOG_*; -EINVAL otherwise. */
int log_level_parse(const char *s);
/* log_level_name: the name log_level_parse reads for prio, a static string; "?" out of range. */
const char *log_level_name(int prio);

/* log_msg: log one line at prio; dropped when prio is above the level. */
void log_msg(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* log_errno: log "<msg>: <strerror(-err)>" and return err (a negative errno). */
int log_errno(int prio, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/*
 * A rate limit per call site: at most `burst` messages per `interval_us`; the next message
 * after a quiet interval says how many were suppressed.
 */
struct log_ratelimit {
	uint64_t interval_us;
	unsigned burst;
	uint64_t begin;
	unsigned printed;
	unsigned suppressed;
};
/* log_ratelimit_ok: 1 to log now (with *ret_suppressed to report), 0 to drop. */
int log_ratelimit_ok(struct log_ratelimit *rl, unsigned *ret_suppressed);

#define log_rl(prio, ...)                                                                          \
	do {                                                                                       \
		static struct log_ratelimit _rl = { .interval_us = 60000000, .burst = 5 };         \
		unsigned _supp;                                                                    \
		if (log_ratelimit_ok(&_rl, &_supp)) {                                              \
			if (_supp)                                                                 \
				log_msg(prio, "(suppressed %u similar messages)", _supp);          \
			log_msg(prio, __VA_ARGS__);                                                \
		}                                                                                  \
	} while (0)

/*
 * A condition that can hold cycle after cycle (DAMON missing, a foreign kdamond, a write the
 * kernel refuses): one line when it starts, one when its text changes, one when it clears, with
 * the number of cycles it held; never a line per cycle. Zero-initialised: not holding. The
 * caller owns the struct and calls log_cond_set or log_cond_clear once per cycle.
 */
#define LOG_COND_TEXT_MAX 512
struct log_cond {
	bool on;
	int prio;
	unsigned long count; /* cycles it held with this text */
	char text[LOG_COND_TEXT_MAX];
};
/*
 * log_cond_set: the condition holds, described by fmt (one line). Logs it at prio when it was
 * not holding or its text differs from the last; else counts. Returns true when it logged.
 */
bool log_cond_set(struct log_cond *c, int prio, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* log_cond_clear: the condition no longer holds; if it did, logs "<text>: cleared after N
 * cycles" at LOG_NOTICE. Returns true when it logged. */
bool log_cond_clear(struct log_cond *c);
/* log_cond_text: the text while the condition holds, NULL when it does not. */
const char *log_cond_text(const struct log_cond *c);

#define log_err(...) log_msg(LOG_ERR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARNING, __VA_ARGS__)
#define log_notice(...) log_msg(LOG_NOTICE, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

#endif
