/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * util: unit parsers, checked strings and numbers, *_at file helpers.
 * Layer 0: depends on nothing else in pageoutd.
 */
#ifndef PAGEOUTD_UTIL_H
#define PAGEOUTD_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define PPM_ONE 1000000u /* a rate of 100% in parts per million */

#define USEC_PER_MSEC UINT64_C(1000)
#define USEC_PER_SEC UINT64_C(1000000)

static inline void freep(void *p)
{
	free(*(void **)p);
}
static inline void closep(int *fd)
{
	if (*fd >= 0)
		close(*fd);
}
#define _cleanup_free_ __attribute__((cleanup(freep)))
#define _cleanup_close_ __attribute__((cleanup(closep)))

/*
 * The value grammar of pageoutd.conf(5): NUMBER UNIT with nothing between or around them,
 * NUMBER = DIGITS [ "." DIGITS ] (1.5G, 0.5s; not .5s, 5., 1e3, +5 nor 5 s), the unit required
 * and case-sensitive (0 is 0s, 0B or 0%). The result is exact: a value that is not a whole
 * number of the smallest unit (byte, microsecond, part per million) is refused, never rounded.
 * Each returns 0 and the value in *ret, -EINVAL for the syntax or an unknown unit, -ERANGE
 * above the largest value and -EDOM for a value that is not a whole number.
 */

/*
 * parse_size: units B, K, M, G, T (binary: 1K = 1024B), also written KiB, MiB, GiB, TiB.
 * Lowercase (64m), SI spellings (64MB) and a bare number are refused. Bytes in *ret.
 */
int parse_size(const char *s, uint64_t *ret);

/* parse_duration: units us, ms, s, m (minute), h. Microseconds in *ret. */
int parse_duration(const char *s, uint64_t *ret);

/* parse_rate: unit %, 0% to 100% (-ERANGE above). Parts per million in *ret (0.0001% is 1). */
int parse_rate(const char *s, uint32_t *ret);

/* parse_count: decimal digits only (no sign, 0x or unit). Returns 0, -EINVAL or -ERANGE. */
int parse_count(const char *s, uint64_t *ret);

/* parse_bool: yes/no, true/false, on/off, 1/0. Returns 0 or -EINVAL. */
int parse_bool(const char *s, bool *ret);

/* parse_u64: decimal or 0x hex, whole string. Returns 0, -EINVAL or -ERANGE. */
int parse_u64(const char *s, uint64_t *ret);

/*
 * Canonical text of a value for --check-config and stats; return buf. fmt_duration and fmt_rate
 * give text their parser reads back; fmt_size leaves out the B of a byte count (4000, not 4000B).
 */
const char *fmt_size(char *buf, size_t len, uint64_t bytes);
const char *fmt_duration(char *buf, size_t len, uint64_t usec);
const char *fmt_rate(char *buf, size_t len, uint32_t ppm);

/* str_copy: bounded copy; returns 0 or -ENAMETOOLONG (dst then holds a truncated string). */
int str_copy(char *dst, size_t size, const char *src);
/* str_strip: trim leading and trailing white space in place, returns the new start. */
char *str_strip(char *s);
/* str_has_suffix: whether s ends with suffix. */
bool str_has_suffix(const char *s, const char *suffix);

/*
 * read_file_at: read up to size-1 bytes of dirfd/path into buf, NUL-terminated, with a single
 * read(2) loop until EOF. Returns the length or -errno.
 */
ssize_t read_file_at(int dirfd, const char *path, char *buf, size_t size);
/* read_file_alloc_at: the whole of dirfd/name in a new NUL-terminated *buf (caller frees).
 * Returns the length or -errno. */
ssize_t read_file_alloc_at(int dirfd, const char *name, char **buf);
/* read_u64_at: read a file holding one number. Returns 0 or -errno (-EINVAL: not a number). */
int read_u64_at(int dirfd, const char *path, uint64_t *ret);
/*
 * write_file_at: open O_WRONLY (no O_CREAT) and write s in one write(2). A short write is
 * -EIO. Returns 0 or -errno as the kernel gave it (EBUSY, EINVAL, ENOMEM...).
 */
int write_file_at(int dirfd, const char *path, const char *s);
/*
 * write_file_beneath: the same, but the path may not leave dirfd nor cross a symlink
 * (openat2 RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS; -EXDEV or -ELOOP otherwise): every DAMON
 * write stays inside sysfs_root. Kernels before 5.6 get write_file_at().
 */
int write_file_beneath(int dirfd, const char *path, const char *s);
/* write_u64_at: write_file_at of v in decimal. */
int write_u64_at(int dirfd, const char *path, uint64_t v);

/*
 * path_is_beneath: true if a relative path has no ".." component and does not start with '/'.
 * Used to refuse writes outside a configured root.
 */
bool path_is_beneath(const char *path);

/*
 * sbuf: a growing text buffer, zero-initialised to empty. s is NUL-terminated (NULL while
 * nothing was appended) and owned by the buffer until sbuf_fini. Allocation failure is sticky
 * (oom): later appends do nothing and the text stays as far as it got.
 */
struct sbuf {
	char *s;
	size_t len, cap;
	bool oom;
};
__attribute__((format(printf, 2, 3))) void sbuf_printf(struct sbuf *b, const char *fmt, ...);
void sbuf_puts(struct sbuf *b, const char *s);
/* sbuf_json_str: append s as a JSON string, quoted and escaped. */
void sbuf_json_str(struct sbuf *b, const char *s);
/* sbuf_fini: free the text and make b empty again, oom cleared. */
void sbuf_fini(struct sbuf *b);

/* hash_bytes: 64-bit FNV-1a of len bytes (to tell whether a text changed). */
uint64_t hash_bytes(const void *buf, size_t len);
/* now_usec: CLOCK_MONOTONIC in microseconds. */
uint64_t now_usec(void);

#endif
