/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vmtest: helpers for programs that run only inside the QEMU guest of tests/vm: the guest
 * check, workload children with fixed address layouts, and /proc and cgroup readers.
 */
#ifndef PAGEOUTD_VMTEST_H
#define PAGEOUTD_VMTEST_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pageoutd/paddr.h"
#include "pageoutd/pscheme.h"
#include "pageoutd/util.h"
#include "../../lib/child.h"

#define MIB (1024ULL * 1024)
#define VM_ADMIN "/sys/kernel/mm/damon/admin"
#define VM_CGROOT "/sys/fs/cgroup"

/* Refuse to run anywhere but in the tests/vm guest: its /init writes a marker and the kernel
 * command line carries pageoutd.vmtest=1. */
static inline void vm_require_guest(void)
{
	char cmd[1024] = "";

	if (read_file_at(AT_FDCWD, "/proc/cmdline", cmd, sizeof(cmd)) < 0 ||
	    !strstr(cmd, "pageoutd.vmtest=1") || access("/run/pageoutd-vm-guest", F_OK) < 0) {
		fprintf(stderr, "this program runs only inside the tests/vm QEMU guest\n");
		exit(77);
	}
}

/*
 * Turn off damon_stat where the kernel booted with it on (Debian's 7.x): it holds DAMON
 * exclusively, so a kdamond of pageoutd's answers EBUSY. An operator does this (pageoutd itself
 * only with release_modules); every guest program that needs DAMON calls it first, so that
 * each one, and each subtest, also runs alone (vm-damon tests the busy case, then turns it off).
 */
static inline void vm_release_damon_stat(void)
{
	const char *en = "/sys/module/damon_stat/parameters/enabled";
	char v[8] = "";

	if (read_file_at(AT_FDCWD, en, v, sizeof(v)) > 0 && v[0] == 'Y')
		write_file_at(AT_FDCWD, en, "N");
}

static inline void vm_sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/*
 * A workload: areas at fixed addresses (so that several processes overlap exactly), each
 * written once, then the hot ones written continuously until the child is killed. Under TCG a
 * store that hits QEMU's software TLB does not set the PTE accessed bit again after DAMON
 * cleared it, and nothing evicts that TLB the way a real CPU's small TLB is evicted; so each
 * pass over a hot area first toggles its protection, which flushes its TLB entries (as on real
 * hardware, where a hot loop over megabytes misses the TLB all the time).
 */
struct vm_area {
	uint64_t addr, size;
	bool hot;
};

struct vm_child {
	pid_t pid;
};

static inline void vm_touch(volatile char *p, uint64_t size, bool write)
{
	static volatile unsigned long sink;

	for (uint64_t o = 0; o < size; o += 4096) {
		if (write)
			p[o] = (char)(o >> 12 | 1);
		else
			sink += (unsigned long)p[o];
	}
}

/*
 * vm_lock_code: mlock the caller's file-backed mappings (its binary and libraries). Under TCG
 * instruction fetches that hit the emulator's TLB do not set the accessed bit again, so the
 * code of a busy loop looks idle and would be paged out and fault back; locked, the engines
 * leave it alone and a workload's major faults measure its data areas only.
 */
static inline void vm_lock_code(void)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[512];

	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long s, e;
		int off = 0;

		if (sscanf(line, "%llx-%llx %*s %*s %*s %*s %n", &s, &e, &off) == 2 && off &&
		    line[off] == '/')
			mlock((void *)(uintptr_t)s, (size_t)(e - s));
	}
	if (f)
		fclose(f);
}

struct vm_spawn_args {
	const struct vm_area *a;
	unsigned n;
	const char *cgroup;
	bool hot_on_signal;
};

static inline int vm_spawn_setup(void *arg)
{
	const struct vm_spawn_args *v = arg;

	if (v->cgroup) {
		char p[512], s[32];

		snprintf(p, sizeof(p), VM_CGROOT "%s/cgroup.procs", v->cgroup);
		snprintf(s, sizeof(s), "%d", getpid());
		if (write_file_at(AT_FDCWD, p, s) < 0)
			return 2;
	}
	for (unsigned i = 0; i < v->n; i++) {
		void *m =
			mmap((void *)(uintptr_t)v->a[i].addr, v->a[i].size, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

		if (m == MAP_FAILED)
			return 3;
		madvise(m, v->a[i].size, MADV_NOHUGEPAGE); /* count pages, not THPs */
		vm_touch(m, v->a[i].size, true);
	}
	vm_lock_code();
	if (v->hot_on_signal) {
		sigset_t usr1;

		sigemptyset(&usr1);
		sigaddset(&usr1, SIGUSR1);
		sigprocmask(SIG_BLOCK, &usr1, NULL);
	}
	return 0;
}

static inline void vm_spawn_run(void *arg)
{
	const struct vm_spawn_args *v = arg;

	if (v->hot_on_signal) {
		sigset_t usr1;
		int sig;

		sigemptyset(&usr1);
		sigaddset(&usr1, SIGUSR1);
		sigwait(&usr1, &sig);
	}
	for (;;) {
		bool any = false;

		for (unsigned i = 0; i < v->n; i++) {
			char *m = (char *)(uintptr_t)v->a[i].addr;

			if (!v->a[i].hot)
				continue;
			any = true;
			mprotect(m, v->a[i].size, PROT_READ);
			mprotect(m, v->a[i].size, PROT_READ | PROT_WRITE);
			vm_touch(m, v->a[i].size, true);
		}
		if (!any)
			pause();
	}
}

/*
 * vm_spawn_ex: fork a child that joins cgroup (if not NULL, a path under VM_CGROOT), maps and
 * writes the areas, reports ready, then keeps writing the hot areas; with hot_on_signal it
 * leaves them alone until it gets SIGUSR1. Returns its pid.
 */
static inline pid_t vm_spawn_ex(const struct vm_area *a, unsigned n, const char *cgroup,
				bool hot_on_signal)
{
	struct vm_spawn_args v = { a, n, cgroup, hot_on_signal };

	return child_fork(vm_spawn_setup, vm_spawn_run, &v);
}

static inline pid_t vm_spawn(const struct vm_area *a, unsigned n, const char *cgroup)
{
	return vm_spawn_ex(a, n, cgroup, false);
}

static inline void vm_reap(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

/*
 * vm_daemon_start: the real ./pageoutd --foreground with conf_dir/pageoutd.conf and
 * conf_dir/conf.d, stderr to log (truncated). Unless keep is ~0, the capability bounding set is
 * cut to the capabilities in keep (bit n = capability n) first, so that pageoutd runs as root
 * with only those. vm_daemon_stop: SIGTERM, then its exit status (128 + signal if killed).
 */
static inline pid_t vm_daemon_start(const char *conf_dir, const char *log, uint64_t keep)
{
	pid_t p = fork();

	if (p == 0) {
		char c[256], d[256];
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		for (int cap = 0; keep != ~0ULL && cap < 64; cap++)
			if (!(keep >> cap & 1))
				prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
		snprintf(c, sizeof(c), "%s/pageoutd.conf", conf_dir);
		snprintf(d, sizeof(d), "%s/conf.d", conf_dir);
		dup2(fd, 2);
		execl("./pageoutd", "pageoutd", "--foreground", "-c", c, "-d", d, (char *)NULL);
		_exit(127);
	}
	return p;
}

static inline int vm_daemon_stop(pid_t p)
{
	int st = 0;

	if (p <= 0)
		return -1;
	kill(p, SIGTERM);
	waitpid(p, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* vm_show_log: the last lines of a log, as TAP comments. */
static inline void vm_show_log(const char *log, unsigned lines)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "tail -n %u %s | sed 's/^/#   /'", lines, log);
	fflush(stdout);
	if (system(cmd) != 0)
		printf("# (no log)\n");
}

/* vm_put: create or truncate a regular file (a config) and write text to it. */
static inline void vm_put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* A field of /proc/PID/status in kB ("VmSwap", "RssAnon"); -1 when unreadable. */
static inline long vm_status_kb(pid_t pid, const char *field)
{
	char p[64], buf[4096], *s;
	size_t fl = strlen(field);

	snprintf(p, sizeof(p), "/proc/%d/status", pid);
	if (read_file_at(AT_FDCWD, p, buf, sizeof(buf)) < 0)
		return -1;
	for (s = buf; s && *s; s = strchr(s, '\n') ? strchr(s, '\n') + 1 : NULL) {
		if (!strncmp(s, field, fl) && s[fl] == ':')
			return strtol(s + fl + 1, NULL, 10);
	}
	return -1;
}

/* A field ("Swap", "AnonHugePages") of the VMA of pid that starts at addr, from
 * /proc/PID/smaps, in kB; -1 if none. */
static inline long vm_area_field_kb(pid_t pid, uint64_t addr, const char *field)
{
	char p[64], line[512];
	size_t fl = strlen(field);
	FILE *f;
	long v = -1;
	bool in = false;

	snprintf(p, sizeof(p), "/proc/%d/smaps", pid);
	f = fopen(p, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e;

		if (sscanf(line, "%llx-%llx ", &s, &e) == 2 &&
		    strchr(line, '-') < strchr(line, ' '))
			in = s == addr;
		else if (in && !strncmp(line, field, fl) && line[fl] == ':')
			v = strtol(line + fl + 1, NULL, 10);
	}
	fclose(f);
	return v;
}

static inline long vm_area_swap_kb(pid_t pid, uint64_t addr)
{
	return vm_area_field_kb(pid, addr, "Swap");
}

/*
 * Whether the guest's swap pages out synchronously: zram, or a swap disk behind zswap
 * (tests/vm/boot.sh). On a bare swap disk (a kernel with neither zram nor zswap) a page paged
 * out stays in the swap cache until its write completes and reclaim comes back for it: touched
 * again, it returns by a minor fault, not a major one, and DAMOS counts it as applied only
 * when it is freed. Checks built on either say so there (tests/vm/README).
 */
static inline bool vm_swap_sync(void)
{
	char buf[4096] = "";

	if (read_file_at(AT_FDCWD, "/proc/swaps", buf, sizeof(buf)) > 0 && strstr(buf, "/dev/zram"))
		return true;
	memset(buf, 0, sizeof(buf));
	return read_file_at(AT_FDCWD, "/sys/module/zswap/parameters/enabled", buf, sizeof(buf)) >
		       0 &&
	       buf[0] == 'Y';
}

#define VM_SWAP_ASYNC                                                                              \
	"the swap is a bare disk (no zram, no zswap): a page paged out stays in the swap cache "   \
	"until written, and comes back by a minor fault"

/* Major faults of a process (field 12 of /proc/PID/stat). */
static inline long vm_majflt(pid_t pid)
{
	char p[64], buf[1024], *s;
	long v = -1;

	snprintf(p, sizeof(p), "/proc/%d/stat", pid);
	if (read_file_at(AT_FDCWD, p, buf, sizeof(buf)) < 0 || !(s = strrchr(buf, ')')))
		return -1;
	/* after ") ": state ppid pgrp session tty tpgid flags minflt cminflt majflt */
	if (sscanf(s + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %ld", &v) != 1)
		return -1;
	return v;
}

/*
 * vm_pageout_faults: process_madvise(MADV_PAGEOUT) of [addr, addr + size) in pid, through a
 * pidfd, then wait up to wait_ms for the process to fault the pages back (until 90% of them;
 * a slow host needs longer than a fast one). *ret_advised gets what the call returned. Returns
 * the major faults of pid since the call.
 */
static inline long vm_pageout_faults(pid_t pid, uint64_t addr, uint64_t size, unsigned wait_ms,
				     long *ret_advised)
{
	struct iovec iov = { (void *)(uintptr_t)addr, (size_t)size };
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	long f0 = vm_majflt(pid), f1 = f0;

	*ret_advised = (long)syscall(SYS_process_madvise, pidfd, &iov, 1, MADV_PAGEOUT, 0);
	for (unsigned t = 0; t < wait_ms; t += 100) {
		vm_sleep_ms(100);
		f1 = vm_majflt(pid);
		if (f1 - f0 >= (long)(size / 4096) * 9 / 10)
			break;
	}
	if (pidfd >= 0)
		close(pidfd);
	return f1 - f0;
}

static inline int vm_cg_make(const char *cg)
{
	char p[512];

	snprintf(p, sizeof(p), VM_CGROOT "%s", cg);
	return mkdir(p, 0755) < 0 && errno != EEXIST ? -errno : 0;
}

static inline void vm_cg_remove(const char *cg)
{
	char p[512];

	snprintf(p, sizeof(p), VM_CGROOT "%s", cg);
	rmdir(p);
}

/* vm_cg_put: write v to file of cgroup cg (a path under VM_CGROOT); 0 or -errno */
static inline int vm_cg_put(const char *cg, const char *file, const char *v)
{
	char p[512];

	snprintf(p, sizeof(p), VM_CGROOT "%s/%s", cg, file);
	return write_file_at(AT_FDCWD, p, v);
}

/* vm_read_remote: read len bytes of pid's memory at addr (process_vm_readv), faulting it in */
static inline void vm_read_remote(pid_t pid, uint64_t addr, uint64_t len)
{
	static char buf[MIB];

	for (uint64_t o = 0; o < len; o += sizeof(buf)) {
		struct iovec l = { buf, sizeof(buf) },
			     r = { (void *)(uintptr_t)(addr + o), sizeof(buf) };

		if (process_vm_readv(pid, &l, 1, &r, 1, 0) < 0)
			break;
	}
}

static inline uint64_t vm_cg_u64(const char *cg, const char *file)
{
	char p[512];
	uint64_t v = 0;

	snprintf(p, sizeof(p), VM_CGROOT "%s/%s", cg, file);
	return read_u64_at(AT_FDCWD, p, &v) < 0 ? UINT64_MAX : v;
}

/* The biggest "System RAM" range in /proc/iomem: what a paddr context monitors. */
static inline int vm_system_ram(uint64_t *start, uint64_t *end)
{
	struct damon_range r;
	char *buf = NULL;
	int n = (int)read_file_alloc_at(AT_FDCWD, "/proc/iomem", &buf);

	n = n < 0 ? n : pscheme_ram_ranges(buf, &r, 1);
	free(buf);
	if (n <= 0)
		return n < 0 ? n : -ENOENT;
	*start = r.start;
	*end = r.end;
	return 0;
}

/* vm_ask: the whole answer of pageoutd's socket at sock to req (a line), in a new buffer the
 * caller frees; "" when it cannot be reached. NULL only without memory. */
static inline char *vm_ask(const char *sock, const char *req)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const size_t max = 1 << 20;
	char *buf = calloc(1, max);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	size_t len = 0;
	ssize_t n;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock);
	if (buf && fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
	    write(fd, req, strlen(req)) == (ssize_t)strlen(req))
		while (len < max - 1 && (n = read(fd, buf + len, max - 1 - len)) > 0)
			len += (size_t)n;
	if (fd >= 0)
		close(fd);
	return buf;
}

/*
 * vm_sample: the value of the sample whose text starts with key in metrics text buf (NULL
 * allowed), -1 when none. Frees buf.
 */
static inline double vm_sample(char *buf, const char *key)
{
	const char *p;
	double v = -1;

	if (buf && (p = strstr(buf, key)))
		v = strtod(p + strlen(key), NULL);
	free(buf);
	return v;
}

/* vm_metric: the value of the metrics sample whose text starts with key, -1 when none. */
static inline double vm_metric(const char *sock, const char *key)
{
	return vm_sample(vm_ask(sock, "metrics\n"), key);
}

#endif
