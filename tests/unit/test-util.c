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
	uint64_t v = 0;

	is_int(parse_size("4096", &v), 0, "size 4096");
	is_u64(v, 4096, "size 4096 value");
	is_int(parse_size("64K", &v), 0, "size 64K");
	is_u64(v, 65536, "size 64K value");
	is_int(parse_size("256M", &v), 0, "size 256M");
	is_u64(v, 256ull << 20, "size 256M value");
	is_int(parse_size("2g", &v), 0, "size 2g");
	is_u64(v, 2ull << 30, "size 2g value");
	is_int(parse_size("1TiB", &v), 0, "size 1TiB");
	is_u64(v, 1ull << 40, "size 1TiB value");
	is_int(parse_size("12X", &v), -EINVAL, "size bad suffix");
	is_int(parse_size("", &v), -EINVAL, "size empty");
	is_int(parse_size("-1", &v), -EINVAL, "size negative");
	is_int(parse_size("1.5M", &v), -EINVAL, "size fraction");
	is_int(parse_size("99999999999999999999", &v), -ERANGE, "size overflow");
	is_int(parse_size("16777216T", &v), -ERANGE, "size overflow by suffix");
}

static void durations(void)
{
	uint64_t v = 0;

	is_int(parse_duration("30s", &v), 0, "duration 30s");
	is_u64(v, 30000000, "30s in us");
	is_int(parse_duration("5ms", &v), 0, "duration 5ms");
	is_u64(v, 5000, "5ms in us");
	is_int(parse_duration("250us", &v), 0, "duration 250us");
	is_u64(v, 250, "250us");
	is_int(parse_duration("2m", &v), 0, "duration 2m");
	is_u64(v, 120000000, "2m in us");
	is_int(parse_duration("1h", &v), 0, "duration 1h");
	is_u64(v, 3600000000ull, "1h in us");
	is_int(parse_duration("0", &v), 0, "duration 0 without unit");
	is_int(parse_duration("30", &v), -EINVAL, "duration needs a unit");
	is_int(parse_duration("30d", &v), -EINVAL, "duration unknown unit");
	is_int(parse_duration("s", &v), -EINVAL, "duration no number");
}

static void rates(void)
{
	uint32_t v = 1;

	is_int(parse_rate("0%", &v), 0, "rate 0%%");
	is_int(v, 0, "0%% value");
	is_int(parse_rate("10%", &v), 0, "rate 10%%");
	is_int(v, 100000, "10%% in ppm");
	is_int(parse_rate("0.2%", &v), 0, "rate 0.2%%");
	is_int(v, 2000, "0.2%% in ppm");
	is_int(parse_rate("100%", &v), 0, "rate 100%%");
	is_int(parse_rate("100.0001%", &v), -ERANGE, "rate above 100%%");
	is_int(parse_rate("5", &v), -EINVAL, "rate needs %%");
	is_int(parse_rate("0.00001%", &v), -EINVAL, "rate too precise");
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
	formats();
	return tap_exit();
}
