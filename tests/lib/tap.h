/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tap: a minimal TAP producer for automake's tap-driver [chrony test.h, kselftest]. */
#ifndef PAGEOUTD_TAP_H
#define PAGEOUTD_TAP_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_n, tap_failed, tap_planned = -1;

/*
 * tap_plan: declare the number of checks before the first one. A program with branches that
 * do not apply on some kernel reports each check of such a branch as a SKIP, so its count is
 * the same everywhere and a subtest lost on the way (an early return, a crash) shows.
 */
static inline void tap_plan(int n)
{
	tap_planned = n;
	printf("1..%d\n", n);
	fflush(stdout);
}

/* tap_done: the plan at the end for a program that declared none; else the count against it
 * (a difference counts as a failure) */
static inline void tap_done(void)
{
	if (tap_planned < 0) {
		printf("1..%d\n", tap_n);
	} else if (tap_n != tap_planned) {
		printf("# planned %d checks, ran %d\n", tap_planned, tap_n);
		tap_failed++;
	}
	fflush(stdout);
}

__attribute__((format(printf, 4, 5))) static inline int tap_ok(int cond, const char *file, int line,
							       const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond) {
		printf("# failed at %s:%d\n", file, line);
		tap_failed++;
	}
	fflush(stdout);
	return cond;
}

/* skip: a check that cannot run here, said so (not a pass in disguise: TAP's SKIP) */
static inline void skip(const char *name, const char *why)
{
	printf("ok %d - %s # SKIP %s\n", ++tap_n, name, why);
	fflush(stdout);
}

/* skip_each: the n checks of a branch that cannot run here, each a SKIP for the same reason */
static inline void skip_each(const char *const *names, size_t n, const char *why)
{
	for (size_t i = 0; i < n; i++)
		skip(names[i], why);
}

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define is_int(got, want, ...)                                                                     \
	do {                                                                                       \
		long long _g = (long long)(got), _w = (long long)(want);                           \
		if (!ok(_g == _w, __VA_ARGS__))                                                    \
			printf("#   got %lld, want %lld\n", _g, _w);                               \
	} while (0)
#define is_u64(got, want, ...)                                                                     \
	do {                                                                                       \
		uint64_t _g = (got), _w = (want);                                                  \
		if (!ok(_g == _w, __VA_ARGS__))                                                    \
			printf("#   got %" PRIu64 ", want %" PRIu64 "\n", _g, _w);                 \
	} while (0)
#define is_str(got, want, ...)                                                                     \
	do {                                                                                       \
		const char *_g = (got), *_w = (want);                                              \
		if (!ok(_g && _w && !strcmp(_g, _w), __VA_ARGS__))                                 \
			printf("#   got '%s', want '%s'\n", _g ? _g : "(null)",                    \
			       _w ? _w : "(null)");                                                \
	} while (0)
#define has_str(hay, needle, ...)                                                                  \
	do {                                                                                       \
		const char *_h = (hay), *_n = (needle);                                            \
		if (!ok(_h && strstr(_h, _n), __VA_ARGS__))                                        \
			printf("#   '%s' does not contain '%s'\n", _h ? _h : "(null)", _n);        \
	} while (0)

static inline void tap_skip_all(const char *why)
{
	printf("1..0 # SKIP %s\n", why);
	exit(0);
}

static inline int tap_exit(void)
{
	tap_done();
	return tap_failed ? 1 : 0;
}

#endif
