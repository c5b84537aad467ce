// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit parsers and formatters. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pageoutd/log.h"
#include "pageoutd/util.h"
#include "../lib/tap.h"

/* one value of the grammar (pageoutd.conf(5) VALUES): the text, what parsing returns, the value */
struct val {
	const char *text;
	int r;
	uint64_t want;
};

static void check_vals(const char *what, int (*parse)(const char *, uint64_t *),
		       const struct val *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t got = 12345;
		int r = parse(v[i].text, &got);

		if (v[i].r)
			is_int(r, v[i].r, "%s '%s' refused (%d)", what, v[i].text, v[i].r);
		else
			ok(r == 0 && got == v[i].want, "%s '%s' = %llu (got %d, %llu)", what,
			   v[i].text, (unsigned long long)v[i].want, r, (unsigned long long)got);
	}
}

static char logged[4096];
static unsigned nlogged;

static void capture(int prio, const char *msg)
{
	(void)prio;
	nlogged++;
	str_copy(logged, sizeof(logged), msg);
}

/* A condition that holds for many cycles is logged when it starts, changes and clears. */
static void conditions(void)
{
	struct log_cond c = { 0 };

	log_set_capture(capture);
	ok(!log_cond_text(&c), "a zeroed condition does not hold");
	ok(!log_cond_clear(&c), "clearing it logs nothing");
	is_int(nlogged, 0, "nothing logged yet");
	for (int i = 0; i < 20; i++)
		log_cond_set(&c, LOG_ERR, "DAMON sysfs not found at %s", "/x");
	is_int(nlogged, 1, "20 cycles of the same condition: one line");
	is_str(logged, "DAMON sysfs not found at /x", "the line is the condition");
	is_str(log_cond_text(&c), "DAMON sysfs not found at /x", "its text while it holds");
	ok(log_cond_set(&c, LOG_ERR, "kdamond 0 (pid %d) is not ours", 7), "a new text logs");
	is_int(nlogged, 2, "one more line when it changes");
	has_str(logged, "the previous condition held 20 cycles", "with how long the last held");
	log_cond_set(&c, LOG_ERR, "kdamond 0 (pid %d) is not ours", 7);
	log_cond_set(&c, LOG_ERR, "kdamond 0 (pid %d) is not ours", 7);
	ok(log_cond_clear(&c), "clearing a holding condition logs");
	is_int(nlogged, 3, "one line when it clears");
	is_str(logged, "kdamond 0 (pid 7) is not ours: cleared after 3 cycles", "with its count");
	ok(!log_cond_text(&c) && !log_cond_clear(&c), "and it no longer holds");
	is_int(nlogged, 3, "a second clear logs nothing");
	log_set_capture(NULL);
}

static void sizes(void)
{
	static const struct val v[] = {
		{ "4096B", 0, 4096 },
		{ "0B", 0, 0 },
		{ "64K", 0, 65536 },
		{ "64KiB", 0, 65536 },
		{ "256M", 0, 256ull << 20 },
		{ "256MiB", 0, 256ull << 20 },
		{ "2G", 0, 2ull << 30 },
		{ "2GiB", 0, 2ull << 30 },
		{ "1T", 0, 1ull << 40 },
		{ "1TiB", 0, 1ull << 40 },
		{ "1.5G", 0, 1610612736 },
		{ "1.50G", 0, 1610612736 },
		{ "0.5K", 0, 512 },
		{ "1.25M", 0, 1310720 },
		{ "0.0009765625K", 0, 1 },
		{ "16777215T", 0, 16777215ull << 40 },
		{ "18446744073709551615B", 0, UINT64_MAX },
		/* the unit is required, whole and case-sensitive; the number is DIGITS[.DIGITS] */
		{ "4096", -EINVAL, 0 },
		{ "0", -EINVAL, 0 },
		{ "64m", -EINVAL, 0 },
		{ "64k", -EINVAL, 0 },
		{ "64MB", -EINVAL, 0 },
		{ "64KB", -EINVAL, 0 },
		{ "64mib", -EINVAL, 0 },
		{ "1P", -EINVAL, 0 },
		{ "12X", -EINVAL, 0 },
		{ "64 M", -EINVAL, 0 },
		{ " 64M", -EINVAL, 0 },
		{ "64M ", -EINVAL, 0 },
		{ ".5G", -EINVAL, 0 },
		{ "5.G", -EINVAL, 0 },
		{ "1e3K", -EINVAL, 0 },
		{ "+5K", -EINVAL, 0 },
		{ "-1K", -EINVAL, 0 },
		{ "0x10K", -EINVAL, 0 },
		{ "", -EINVAL, 0 },
		{ "M", -EINVAL, 0 },
		{ "1.0000000000000000001G", -EINVAL, 0 }, /* 19 decimals */
		/* exact or refused, never rounded */
		{ "1.5B", -EDOM, 0 },
		{ "0.1K", -EDOM, 0 },
		{ "0.3M", -EDOM, 0 },
		{ "16777216T", -ERANGE, 0 },
		{ "17179869184G", -ERANGE, 0 },
		{ "18446744073709551616B", -ERANGE, 0 },
		{ "99999999999999999999K", -ERANGE, 0 },
	};

	check_vals("size", parse_size, v, ARRAY_SIZE(v));
}

static void durations(void)
{
	static const struct val v[] = {
		{ "30s", 0, 30000000 },
		{ "5ms", 0, 5000 },
		{ "250us", 0, 250 },
		{ "2m", 0, 120000000 },
		{ "1h", 0, 3600000000ull },
		{ "0s", 0, 0 },
		{ "0us", 0, 0 },
		{ "1.5s", 0, 1500000 },
		{ "0.5s", 0, 500000 },
		{ "0.25ms", 0, 250 },
		{ "0.001s", 0, 1000 },
		{ "2.5m", 0, 150000000 },
		{ "1.5h", 0, 5400000000ull },
		{ "18446744073709551615us", 0, UINT64_MAX },
		{ "0", -EINVAL, 0 },
		{ "30", -EINVAL, 0 },
		{ "30d", -EINVAL, 0 },
		{ "30S", -EINVAL, 0 },
		{ "30min", -EINVAL, 0 },
		{ "30sec", -EINVAL, 0 },
		{ "30 s", -EINVAL, 0 },
		{ "1.s", -EINVAL, 0 },
		{ ".5s", -EINVAL, 0 },
		{ "1e3ms", -EINVAL, 0 },
		{ "-1s", -EINVAL, 0 },
		{ "s", -EINVAL, 0 },
		{ "0.5us", -EDOM, 0 },
		{ "1.0000005s", -EDOM, 0 },
		{ "18446744073709551616us", -ERANGE, 0 },
		{ "5124095577h", -ERANGE, 0 },
	};

	check_vals("duration", parse_duration, v, ARRAY_SIZE(v));
}

static int parse_rate64(const char *s, uint64_t *ret)
{
	uint32_t v;
	int r = parse_rate(s, &v);

	if (r == 0)
		*ret = v;
	return r;
}

static void rates(void)
{
	static const struct val v[] = {
		{ "0%", 0, 0 },	       { "10%", 0, 100000 },	 { "0.2%", 0, 2000 },
		{ "0.0001%", 0, 1 },   { "100%", 0, PPM_ONE },	 { "100.0001%", -ERANGE, 0 },
		{ "5", -EINVAL, 0 },   { "0", -EINVAL, 0 },	 { ".5%", -EINVAL, 0 },
		{ "5 %", -EINVAL, 0 }, { "0.00001%", -EDOM, 0 },
	};

	check_vals("rate", parse_rate64, v, ARRAY_SIZE(v));
}

static void counts(void)
{
	static const struct val v[] = {
		{ "10", 0, 10 },
		{ "0", 0, 0 },
		{ "010", 0, 10 }, /* decimal, not octal */
		{ "18446744073709551615", 0, UINT64_MAX },
		{ "0x10", -EINVAL, 0 },
		{ "1.0", -EINVAL, 0 },
		{ "-1", -EINVAL, 0 },
		{ "1K", -EINVAL, 0 },
		{ "", -EINVAL, 0 },
		{ "18446744073709551616", -ERANGE, 0 },
	};

	check_vals("count", parse_count, v, ARRAY_SIZE(v));
}

/* what fmt_duration and fmt_rate print parses back to the same value */
static void round_trip(void)
{
	static const uint64_t us[] = { 0,	  1,	   999,	     1000,	    1500,
				       250000,	  1000000, 90000000, 3600000000ull, 5400000000ull,
				       UINT64_MAX };
	static const uint32_t ppm[] = { 0, 1, 2000, 100000, 123456, PPM_ONE };
	char b[32];

	for (size_t i = 0; i < ARRAY_SIZE(us); i++) {
		uint64_t v = 1;

		fmt_duration(b, sizeof(b), us[i]);
		ok(parse_duration(b, &v) == 0 && v == us[i], "fmt_duration %llu: '%s' parses back",
		   (unsigned long long)us[i], b);
	}
	for (size_t i = 0; i < ARRAY_SIZE(ppm); i++) {
		uint32_t v = 1;

		fmt_rate(b, sizeof(b), ppm[i]);
		ok(parse_rate(b, &v) == 0 && v == ppm[i], "fmt_rate %u: '%s' parses back", ppm[i],
		   b);
	}
}

static void formats(void)
{
	char b[32];
	bool t;
	uint64_t u;

	is_str(fmt_size(b, sizeof(b), 256ull << 20), "256M", "fmt 256M");
	is_str(fmt_size(b, sizeof(b), 1000), "1000", "fmt 1000");
	is_str(fmt_duration(b, sizeof(b), 30000000), "30s", "fmt 30s");
	is_str(fmt_duration(b, sizeof(b), 1500), "1500us", "fmt 1500us");
	is_str(fmt_duration(b, sizeof(b), 120000000), "2m", "fmt 2m");
	is_str(fmt_duration(b, sizeof(b), 0), "0s", "fmt 0s");
	is_str(fmt_rate(b, sizeof(b), 2000), "0.2%", "fmt 0.2%%");
	is_str(fmt_rate(b, sizeof(b), 100000), "10%", "fmt 10%%");
	is_int(parse_bool("yes", &t), 0, "bool yes");
	ok(t, "yes is true");
	is_int(parse_bool("off", &t), 0, "bool off");
	ok(!t, "off is false");
	is_int(parse_bool("maybe", &t), -EINVAL, "bool maybe");
	is_int(parse_u64("0x10", &u), 0, "u64 hex");
	is_u64(u, 16, "u64 hex value");
	ok(path_is_beneath("kdamonds/0/state"), "relative path is beneath");
	ok(!path_is_beneath("../etc/passwd"), ".. is not beneath");
	ok(!path_is_beneath("a/../../b"), "inner .. is not beneath");
	ok(!path_is_beneath("/abs"), "absolute is not beneath");
}

/* write_file_beneath never leaves its directory nor crosses a symlink (the DAMON writes) */
static void beneath(void)
{
	char top[] = "/tmp/pageoutd-beneath-XXXXXX", p[128], out[128], buf[16] = "";
	int dfd;

	if (!mkdtemp(top))
		return;
	snprintf(p, sizeof(p), "%s/tree", top);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/tree/a", top);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/tree/a/state", top);
	close(open(p, O_WRONLY | O_CREAT, 0600));
	snprintf(out, sizeof(out), "%s/outside", top);
	mkdir(out, 0700);
	snprintf(p, sizeof(p), "%s/outside/state", top);
	close(open(p, O_WRONLY | O_CREAT, 0600));
	snprintf(p, sizeof(p), "%s/tree/b", top);
	if (symlink(out, p) < 0)
		return;
	snprintf(p, sizeof(p), "%s/tree", top);
	dfd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
	is_int(write_file_beneath(dfd, "a/state", "on"), 0,
	       "beneath: a file in the tree is written");
	ok(write_file_beneath(dfd, "b/state", "on") < 0,
	   "beneath: not through a symlink to outside");
	ok(write_file_beneath(dfd, "../outside/state", "on") < 0, "beneath: not through '..'");
	snprintf(p, sizeof(p), "%s/outside/state", top);
	is_int(read_file_at(AT_FDCWD, p, buf, sizeof(buf)), 0,
	       "beneath: the outside file untouched");
	ok(write_file_at(dfd, "b/state", "x") == 0, "(write_file_at would have followed it)");
	close(dfd);
	snprintf(p, sizeof(p), "rm -rf %s", top);
	if (system(p) != 0)
		printf("# cleanup failed\n");
}

/*
 * A write the kernel takes only in part is an error (-EIO), never taken as done: a short write
 * made real with RLIMIT_FSIZE (4 bytes fit, SIGXFSZ ignored), in a child.
 */
static void short_write(void)
{
	char p[] = "/tmp/pageoutd-short-XXXXXX";
	int fd = mkstemp(p), st = 0;
	pid_t c;

	if (fd < 0)
		return;
	close(fd);
	c = fork();
	if (c == 0) {
		struct rlimit rl = { 4, 4 };

		signal(SIGXFSZ, SIG_IGN);
		if (setrlimit(RLIMIT_FSIZE, &rl) < 0)
			_exit(2);
		_exit(write_file_at(AT_FDCWD, p, "12345678") == -EIO &&
				      write_file_beneath(open("/tmp", O_PATH | O_DIRECTORY), p + 5,
							 "12345678") == -EIO
			      ? 0
			      : 1);
	}
	waitpid(c, &st, 0);
	is_int(WIFEXITED(st) ? WEXITSTATUS(st) : -1, 0,
	       "a short write gives -EIO (write_file_at, write_file_beneath)");
	unlink(p);
}

int main(void)
{
	log_setup(LOG_TARGET_STDERR, LOG_CRIT);
	conditions();
	beneath();
	short_write();
	sizes();
	durations();
	rates();
	counts();
	round_trip();
	formats();
	return tap_exit();
}
