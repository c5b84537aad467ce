// SPDX-License-Identifier: GPL-2.0-or-later
/* util: unit parsers and file helpers shared by every module. */
#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/openat2.h>

#include "pageoutd/util.h"

int parse_u64(const char *s, uint64_t *ret)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-' || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno == ERANGE)
		return -ERANGE;
	if (errno || end == s || *end)
		return -EINVAL;
	*ret = v;
	return 0;
}

struct unit {
	const char *name;
	uint64_t mult;
};

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/*
 * parse_digits: the decimal digits of [s, e) into *ret. Returns 0 or -ERANGE.
 */
static int parse_digits(const char *s, const char *e, uint64_t *ret)
{
	uint64_t v = 0;

	for (; s < e; s++) {
		if (v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return -ERANGE;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*ret = v;
	return 0;
}

/*
 * parse_scaled: NUMBER UNIT, NUMBER = DIGITS [ "." DIGITS ], UNIT one of units[] (the whole rest
 * of the string, case-sensitive), as the exact integer NUMBER * the unit's multiplier. Integer
 * arithmetic only: the fraction is reduced by gcd(multiplier, 10^decimals), so 1.5G is exactly
 * 1610612736 and 0.1K (102.4) is refused. Up to 18 decimals after trailing zeros are dropped.
 * Returns 0, -EINVAL (syntax, unknown unit), -ERANGE (above UINT64_MAX) or -EDOM (not a whole
 * number of the smallest unit).
 */
static int parse_scaled(const char *s, const struct unit *units, size_t n, uint64_t *ret)
{
	const char *int_end, *frac, *frac_end, *rest;
	uint64_t whole, f = 0, den = 1, mult = 0, g, part;
	int r;

	for (int_end = s; isdigit((unsigned char)*int_end); int_end++)
		;
	if (int_end == s)
		return -EINVAL;
	frac = frac_end = rest = int_end;
	if (*int_end == '.') {
		frac = int_end + 1;
		for (rest = frac; isdigit((unsigned char)*rest); rest++)
			;
		if (rest == frac)
			return -EINVAL;
		for (frac_end = rest; frac_end > frac && frac_end[-1] == '0'; frac_end--)
			;
	}
	for (size_t i = 0; i < n && !mult; i++)
		if (!strcmp(rest, units[i].name))
			mult = units[i].mult;
	if (!mult || frac_end - frac > 18)
		return -EINVAL;
	r = parse_digits(s, int_end, &whole);
	if (r < 0)
		return r;
	r = parse_digits(frac, frac_end, &f);
	if (r < 0)
		return r;
	for (const char *c = frac; c < frac_end; c++)
		den *= 10;
	/* f / den of a unit is f * mult / den; reduced, part <= mult cannot overflow */
	g = gcd_u64(mult, den);
	if (f % (den / g))
		return -EDOM;
	part = f / (den / g) * (mult / g);
	if (whole > (UINT64_MAX - part) / mult)
		return -ERANGE;
	*ret = whole * mult + part;
	return 0;
}

int parse_size(const char *s, uint64_t *ret)
{
	static const struct unit units[] = {
		{ "B", 1 },
		{ "K", 1ull << 10 },
		{ "KiB", 1ull << 10 },
		{ "M", 1ull << 20 },
		{ "MiB", 1ull << 20 },
		{ "G", 1ull << 30 },
		{ "GiB", 1ull << 30 },
		{ "T", 1ull << 40 },
		{ "TiB", 1ull << 40 },
	};

	return parse_scaled(s, units, ARRAY_SIZE(units), ret);
}

int parse_duration(const char *s, uint64_t *ret)
{
	static const struct unit units[] = {
		{ "us", 1 },
		{ "ms", USEC_PER_MSEC },
		{ "s", USEC_PER_SEC },
		{ "m", 60 * USEC_PER_SEC },
		{ "h", 3600 * USEC_PER_SEC },
	};

	return parse_scaled(s, units, ARRAY_SIZE(units), ret);
}

int parse_rate(const char *s, uint32_t *ret)
{
	/* one percent is 10000 parts per million */
	static const struct unit units[] = { { "%", PPM_ONE / 100 } };
	uint64_t v;
	int r;

	r = parse_scaled(s, units, ARRAY_SIZE(units), &v);
	if (r < 0)
		return r;
	if (v > PPM_ONE)
		return -ERANGE;
	*ret = (uint32_t)v;
	return 0;
}

int parse_count(const char *s, uint64_t *ret)
{
	const char *e;

	for (e = s; isdigit((unsigned char)*e); e++)
		;
	if (e == s || *e)
		return -EINVAL;
	return parse_digits(s, e, ret);
}

int parse_bool(const char *s, bool *ret)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };

	for (size_t i = 0; i < ARRAY_SIZE(yes); i++) {
		if (!strcasecmp(s, yes[i])) {
			*ret = true;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*ret = false;
			return 0;
		}
	}
	return -EINVAL;
}

const char *fmt_size(char *buf, size_t len, uint64_t bytes)
{
	static const char units[] = "KMGTP";
	int i = -1;

	while (bytes && !(bytes & 1023) && i < 4) {
		bytes >>= 10;
		i++;
	}
	if (i < 0)
		snprintf(buf, len, "%" PRIu64, bytes);
	else
		snprintf(buf, len, "%" PRIu64 "%c", bytes, units[i]);
	return buf;
}

const char *fmt_duration(char *buf, size_t len, uint64_t usec)
{
	if (usec == 0)
		snprintf(buf, len, "0s");
	else if (usec % (3600 * USEC_PER_SEC) == 0)
		snprintf(buf, len, "%" PRIu64 "h", usec / (3600 * USEC_PER_SEC));
	else if (usec % (60 * USEC_PER_SEC) == 0)
		snprintf(buf, len, "%" PRIu64 "m", usec / (60 * USEC_PER_SEC));
	else if (usec % USEC_PER_SEC == 0)
		snprintf(buf, len, "%" PRIu64 "s", usec / USEC_PER_SEC);
	else if (usec % USEC_PER_MSEC == 0)
		snprintf(buf, len, "%" PRIu64 "ms", usec / USEC_PER_MSEC);
	else
		snprintf(buf, len, "%" PRIu64 "us", usec);
	return buf;
}

const char *fmt_rate(char *buf, size_t len, uint32_t ppm)
{
	unsigned whole = ppm / 10000, frac = ppm % 10000;
	int n;

	if (!frac) {
		snprintf(buf, len, "%u%%", whole);
		return buf;
	}
	n = snprintf(buf, len, "%u.%04u", whole, frac);
	while (n > 0 && (size_t)n < len && buf[n - 1] == '0')
		buf[--n] = '\0';
	if ((size_t)n + 1 < len) {
		buf[n] = '%';
		buf[n + 1] = '\0';
	}
	return buf;
}

int str_copy(char *dst, size_t size, const char *src)
{
	size_t n = strlen(src);

	if (n >= size) {
		memcpy(dst, src, size - 1);
		dst[size - 1] = '\0';
		return -ENAMETOOLONG;
	}
	memcpy(dst, src, n + 1);
	return 0;
}

char *str_strip(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

bool str_has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

ssize_t read_file_at(int dirfd, const char *path, char *buf, size_t size)
{
	_cleanup_close_ int fd = -1;
	size_t len = 0;

	fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	while (len + 1 < size) {
		ssize_t n = read(fd, buf + len, size - 1 - len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	return (ssize_t)len;
}

ssize_t read_file_alloc_at(int dirfd, const char *name, char **buf)
{
	size_t cap = 16384, len = 0;
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	char *b = NULL;

	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n;

		if (len + 1 >= cap || !b) {
			char *nb = realloc(b, cap *= 2);

			if (!nb) {
				free(b);
				close(fd);
				return -ENOMEM;
			}
			b = nb;
		}
		n = read(fd, b + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = -errno;

			free(b);
			close(fd);
			return e;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	b[len] = '\0';
	*buf = b;
	return (ssize_t)len;
}

int read_u64_at(int dirfd, const char *path, uint64_t *ret)
{
	char buf[64];
	ssize_t n = read_file_at(dirfd, path, buf, sizeof(buf));

	if (n < 0)
		return (int)n;
	return parse_u64(str_strip(buf), ret);
}

static int write_fd(int fd, const char *s)
{
	size_t len = strlen(s);
	ssize_t n;

	do
		n = write(fd, s, len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if ((size_t)n != len)
		return -EIO;
	return 0;
}

int write_file_at(int dirfd, const char *path, const char *s)
{
	_cleanup_close_ int fd = -1;

	fd = openat(dirfd, path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_TRUNC);
	if (fd < 0)
		return -errno;
	return write_fd(fd, s);
}

int write_file_beneath(int dirfd, const char *path, const char *s)
{
	struct open_how how = {
		.flags = O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_TRUNC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	_cleanup_close_ int fd = (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));

	if (fd < 0 && errno == ENOSYS)
		return write_file_at(dirfd, path, s); /* before 5.6: O_NOFOLLOW on the leaf */
	if (fd < 0)
		return -errno;
	return write_fd(fd, s);
}

int write_u64_at(int dirfd, const char *path, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	return write_file_at(dirfd, path, buf);
}

bool path_is_beneath(const char *path)
{
	const char *p = path;

	if (*path == '/')
		return false;
	while (*p) {
		size_t n = strcspn(p, "/");

		if (n == 2 && p[0] == '.' && p[1] == '.')
			return false;
		p += n;
		while (*p == '/')
			p++;
	}
	return true;
}

uint64_t hash_bytes(const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

uint64_t now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * USEC_PER_SEC + (uint64_t)ts.tv_nsec / 1000;
}

static bool sbuf_grow(struct sbuf *b, size_t need)
{
	size_t cap = b->cap ? b->cap : 256;
	char *n;

	if (b->oom)
		return false;
	if (b->len + need + 1 <= b->cap)
		return true;
	while (cap < b->len + need + 1)
		cap *= 2;
	n = realloc(b->s, cap);
	if (!n) {
		b->oom = true;
		return false;
	}
	b->s = n;
	b->cap = cap;
	return true;
}

void sbuf_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !sbuf_grow(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void sbuf_puts(struct sbuf *b, const char *s)
{
	size_t n = strlen(s);

	if (!sbuf_grow(b, n))
		return;
	memcpy(b->s + b->len, s, n + 1);
	b->len += n;
}

void sbuf_json_str(struct sbuf *b, const char *s)
{
	sbuf_puts(b, "\"");
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			sbuf_printf(b, "\\%c", *p);
		else if (*p < 0x20)
			sbuf_printf(b, "\\u%04x", *p);
		else
			sbuf_printf(b, "%c", *p);
	}
	sbuf_puts(b, "\"");
}

void sbuf_fini(struct sbuf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
	b->oom = false;
}
