// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench/host/cycle: pageoutd's own CPU per cycle, natively, on the machine that runs make bench.
 * Under TCG a guest's CPU time includes the emulation (tens of times slower for kernel code)
 * and host descheduling, so the guest's figure (bench scale) says how pageoutd grows and how it
 * compares with the kdamond, not what it costs on real hardware. This measures the vaddr
 * engine's real cycle (vaddr_cycle: target sync through libcgroup, pidfds, /proc/PID/maps,
 * snapshot reading and parsing, selection, the policy inputs from memory.stat and PSI) over N
 * real processes in a real cgroup, against the emulated DAMON tree of tests/lib (never the
 * host's DAMON), with three regions per process as the guest's kdamond gives them. The
 * emulator's own work (filling tried_regions, which the kernel does in the kdamond) is timed
 * apart and subtracted; the reads of the files it wrote are pageoutd's and stay counted.
 *
 *   cycle N...   one CSV line per N: BENCH,host_scale,procs,cycles,cpu_ms_per_cycle,
 *                cpu_pct_of_one_at_5s,emulator_ms_per_cycle,regions,io_per_cycle
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pageoutd/cgroup.h"
#include "pageoutd/config.h"
#include "pageoutd/damon.h"
#include "pageoutd/log.h"
#include "pageoutd/util.h"
#include "pageoutd/vaddr.h"
#include "../../tests/lib/cfgtext.h"
#include "../../tests/lib/child.h"
#include "../../tests/lib/fakedamon.h"

#define MIB (1024ULL * 1024)
#define COLD_ADDR 0x7e0000000000ULL
#define HOT_ADDR (COLD_ADDR + 64 * MIB)
#define COLD_SZ (1 * MIB) /* as the guest's bench scale: 1 MiB cold, 256 KiB hot */
#define HOT_SZ (256 * 1024)
#define CYCLES 20
#define SETTLE 3

static char procs_file[PATH_MAX * 2];
static int data_fd = -1; /* the file the children map: file-backed, no swap touched */

static int child_setup(void *arg)
{
	char s[32];
	volatile char sink = 0;
	char *c, *h;

	(void)arg;
	snprintf(s, sizeof(s), "%d", getpid());
	if (write_file_at(AT_FDCWD, procs_file, s) < 0)
		return 2;
	c = mmap((void *)(uintptr_t)COLD_ADDR, COLD_SZ, PROT_READ,
		 MAP_PRIVATE | MAP_FIXED_NOREPLACE, data_fd, 0);
	h = mmap((void *)(uintptr_t)HOT_ADDR, HOT_SZ, PROT_READ, MAP_PRIVATE | MAP_FIXED_NOREPLACE,
		 data_fd, COLD_SZ);
	if (c == MAP_FAILED || h == MAP_FAILED)
		return 3;
	for (uint64_t o = 0; o < COLD_SZ; o += 4096)
		sink += c[o];
	for (uint64_t o = 0; o < HOT_SZ; o += 4096)
		sink += h[o];
	return 0;
}

static uint64_t cpu_us(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (uint64_t)ru.ru_utime.tv_sec * 1000000 + (uint64_t)ru.ru_utime.tv_usec +
	       (uint64_t)ru.ru_stime.tv_sec * 1000000 + (uint64_t)ru.ru_stime.tv_usec;
}

/* the emulator, with its own CPU time kept apart */
struct timed_io {
	struct damon_io inner;
	uint64_t emulator_us;
	unsigned n;
	struct fakedamon *f;
};

/* the kdamond's view: for each target index, its cold, hot and rest-of-address-space regions */
static void set_regions(struct timed_io *t)
{
	struct fakedamon *f = t->f;

	f->nvr = 0;
	for (unsigned i = 0; i < t->n && f->nvr + 3 <= FAKE_VREGIONS_MAX; i++) {
		char p[128];
		const char *v;

		snprintf(p, sizeof(p), "kdamonds/0/contexts/0/targets/%u/pid_target", i);
		v = fake_get(f, p);
		if (!v[0])
			break;
		f->vr[f->nvr++] =
			(struct fake_vregion){ i, COLD_ADDR, COLD_ADDR + COLD_SZ, 0, 400 };
		f->vr[f->nvr++] = (struct fake_vregion){ i, HOT_ADDR, HOT_ADDR + HOT_SZ, 18, 400 };
		f->vr[f->nvr++] =
			(struct fake_vregion){ i, 0x7fff00000000ULL, 0x7fff00100000ULL, 3, 40 };
	}
}

static ssize_t t_read(void *ctx, int dirfd, const char *path, char *buf, size_t len)
{
	struct timed_io *t = ctx;

	return t->inner.read(t->inner.ctx, dirfd, path, buf, len);
}

static int t_write(void *ctx, int dirfd, const char *path, const char *val)
{
	struct timed_io *t = ctx;
	uint64_t c0 = cpu_us();
	int r;

	if (!strcmp(val, "update_schemes_tried_regions"))
		set_regions(t);
	r = t->inner.write(t->inner.ctx, dirfd, path, val);
	/* DAMON's side of a write (directories, tried regions) is the kernel's, not pageoutd's:
	 * the emulator's bookkeeping for any write is excluded, the syscalls it stands for are
	 * about one open/write/close, which it also does */
	t->emulator_us += cpu_us() - c0;
	return r;
}

static struct cfg *load(const char *top, const char *state, const char *cgroup)
{
	char daemon[PATH_MAX + 64], policy[PATH_MAX + 128];

	snprintf(daemon, sizeof(daemon), "interval = 5s\nstate_dir = %s\n", state);
	/*
	 * the guest's bench scale policy, over file-backed memory (the host's swap is never used):
	 * the page cache the children share is mapped by all of them, so MADV_PAGEOUT leaves it,
	 * but every step up to and including the call is the same
	 */
	snprintf(policy, sizeof(policy),
		 "[policy]\ncgroup = %s\nengine = vaddr\nmin_age = 10s\nmax_access_rate = 0%%\n"
		 "memory = file\n",
		 cgroup);
	return cfgtext_load(top, daemon, policy);
}

static int one(const struct cgrp_root *cg, const char *mine, unsigned n)
{
	struct fakedamon *f = fake_new(FAKE_ABI_72);
	struct timed_io t = { .inner = fake_io(f), .n = n, .f = f };
	struct damon_io io = { .read = t_read, .write = t_write, .ctx = &t };
	pid_t *pids = calloc(n, sizeof(*pids));
	struct vaddr *v = NULL;
	struct damon d;
	struct cfg *cfg = load(f->top, f->state_dir, mine);
	unsigned long io0;
	uint64_t c0, e0;
	int r = 1;

	if (!pids || !cfg)
		goto out;
	for (unsigned k = 0; k < n; k++)
		if ((pids[k] = child_fork(child_setup, NULL, NULL)) < 0) {
			fprintf(stderr, "cycle: child %u failed\n", k);
			goto out;
		}
	if (damon_open(&d, f->admin, f->state_dir, &io) < 0 || damon_acquire(&d) < 0 ||
	    vaddr_new(&v, cfg, &d, cg) < 0)
		goto out;
	for (unsigned c = 0; c < SETTLE; c++)
		vaddr_cycle(v);
	c0 = cpu_us();
	e0 = t.emulator_us;
	io0 = d.nr_io;
	for (unsigned c = 0; c < CYCLES; c++)
		vaddr_cycle(v);
	{
		double total = (double)(cpu_us() - c0), emu = (double)(t.emulator_us - e0);
		double ms = (total - emu) / 1000.0 / CYCLES;

		printf("BENCH,host_scale,%u,%u,%.3f,%.4f,%.3f,%u,%lu\n", n, CYCLES, ms,
		       ms / 5000.0 * 100.0, emu / 1000.0 / CYCLES, f->nvr,
		       (d.nr_io - io0) / CYCLES);
	}
	if (vaddr_stats(v)->targets != n)
		fprintf(stderr, "cycle: %u targets of %u\n", (unsigned)vaddr_stats(v)->targets, n);
	r = vaddr_stats(v)->targets == n ? 0 : 1;
	vaddr_free(v);
	damon_release(&d);
	damon_close(&d);
out:
	for (unsigned k = 0; pids && k < n; k++)
		if (pids[k] > 0) {
			kill(pids[k], SIGKILL);
			waitpid(pids[k], NULL, 0);
		}
	free(pids);
	cfg_free(cfg);
	fake_free(f);
	return r;
}

int main(int argc, char **argv)
{
	struct cgrp_root cg;
	char own[PATH_MAX], mine[PATH_MAX + 64], dirp[PATH_MAX * 2];
	int r = 0;

	log_setup(LOG_TARGET_STDERR, LOG_ERR);
	if (argc < 2) {
		fprintf(stderr, "usage: cycle N...\n");
		return 2;
	}
	if (cgrp_init(&cg) < 0) {
		fprintf(stderr, "cycle: no memory cgroup hierarchy\n");
		return 1;
	}
	/* the root when libcgroup cannot say (a process in the cgroup2 root, as in the guest) */
	if (cgrp_of_pid(getpid(), own, sizeof(own)) < 0)
		str_copy(own, sizeof(own), "/");
	snprintf(mine, sizeof(mine), "%s/pageoutd-bench-%d", strcmp(own, "/") ? own : "",
		 (int)getpid());
	snprintf(dirp, sizeof(dirp), "%s%s", cg.mount, mine);
	if (mkdir(dirp, 0755) < 0) {
		fprintf(stderr, "cycle: cannot create %s: %s\n", dirp, strerror(errno));
		return 1;
	}
	snprintf(procs_file, sizeof(procs_file), "%s/cgroup.procs", dirp);
	{
		char path[64];
		static char buf[COLD_SZ + HOT_SZ];

		snprintf(path, sizeof(path), "/tmp/pageoutd-bench-%d.data", (int)getpid());
		data_fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		memset(buf, 1, sizeof(buf));
		if (data_fd < 0 || write(data_fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
			fprintf(stderr, "cycle: %s: %s\n", path, strerror(errno));
			rmdir(dirp);
			return 1;
		}
		unlink(path);
	}
	printf("BENCH,host_scale_head,procs,cycles,cpu_ms_per_cycle,cpu_pct_of_one,"
	       "emulator_ms_per_cycle,regions,io_per_cycle\n");
	for (int i = 1; i < argc; i++)
		r |= one(&cg, mine, (unsigned)atoi(argv[i]));
	usleep(100000);
	if (rmdir(dirp) < 0)
		fprintf(stderr, "cycle: rmdir %s: %s\n", dirp, strerror(errno));
	return r;
}
