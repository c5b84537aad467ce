// SPDX-License-Identifier: GPL-2.0-or-later
/* vtarget: the processes the vaddr engine watches, and those it may not advise (vtarget.h). */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pageoutd/log.h"
#include "pageoutd/madvise.h"
#include "pageoutd/util.h"
#include "pageoutd/vtarget.h"

#define PF_KTHREAD 0x00200000u

void vtarget_close(struct vtarget *t)
{
	if (t->pidfd >= 0)
		close(t->pidfd);
	if (t->procfd >= 0)
		close(t->procfd);
	t->pidfd = t->procfd = -1;
	vplan_target_fini(&t->plan);
}

void vtarget_forget(struct vtarget *t)
{
	vplan_target_forget(&t->plan, now_usec());
}

uint64_t vtarget_rss(const struct vtarget *t, uint64_t page_size)
{
	char buf[128] = "";
	unsigned long long size, res;

	if (read_file_at(t->procfd, "statm", buf, sizeof(buf)) <= 0 ||
	    sscanf(buf, "%llu %llu", &size, &res) != 2)
		return 0;
	return (uint64_t)res * page_size;
}

#define PM_PRESENT (1ULL << 63)
#define PM_EXCLUSIVE (1ULL << 56)

int vtarget_pagemap_open(const struct vtarget *t)
{
	int fd = openat(t->procfd, "pagemap", O_RDONLY | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

#define PAGEMAP_CHUNK 512 /* entries read per pread */

/*
 * pagemap_chunk: up to PAGEMAP_CHUNK entries of the pagemap open on fd, from page-aligned
 * addr up to end, into buf. Returns how many, or -errno (-EIO for an empty read).
 */
static ssize_t pagemap_chunk(int fd, uint64_t addr, uint64_t end, uint64_t page_size, uint64_t *buf)
{
	uint64_t pages = (end - addr) / page_size;
	ssize_t n;

	if (pages > PAGEMAP_CHUNK)
		pages = PAGEMAP_CHUNK;
	n = pread(fd, buf, pages * sizeof(buf[0]), (off_t)(addr / page_size * sizeof(buf[0])));
	if (n <= 0)
		return n < 0 ? -errno : -EIO;
	return n / (ssize_t)sizeof(buf[0]);
}

int vtarget_census(int fd, uint64_t start, uint64_t end, uint64_t page_size, uint64_t *present,
		   uint64_t *shared, struct vrange_list *alone)
{
	uint64_t buf[PAGEMAP_CHUNK];
	int r = 0;

	*present = *shared = 0;
	for (uint64_t addr = start; addr < end && r == 0;) {
		ssize_t n = pagemap_chunk(fd, addr, end, page_size, buf);

		if (n < 0)
			return (int)n;
		for (ssize_t k = 0; k < n && r == 0; k++, addr += page_size) {
			if (!(buf[k] & PM_PRESENT))
				continue;
			(*present)++;
			if (!(buf[k] & PM_EXCLUSIVE))
				(*shared)++;
			else if (alone)
				r = vrange_push(alone, addr, addr + page_size, 0, 0);
		}
	}
	return r;
}

int64_t vtarget_present(int fd, uint64_t start, uint64_t end, uint64_t page_size,
			struct vrange_list *ret)
{
	uint64_t present, shared;
	int r = vtarget_census(fd, start, end, page_size, &present, &shared, ret);

	return r < 0 ? r : (int64_t)((end - start) / page_size);
}

bool vtargets_skipped(const struct vtargets *ts, pid_t pid)
{
	for (size_t i = 0; i < ts->nskip; i++)
		if (ts->skip[i].pid == pid)
			return true;
	return false;
}

int vtargets_skip(struct vtargets *ts, pid_t pid, int pidfd)
{
	struct vskip *n = reallocarray(ts->skip, ts->nskip + 1, sizeof(*n));

	if (!n) {
		close(pidfd);
		return -ENOMEM;
	}
	ts->skip = n;
	ts->skip[ts->nskip++] = (struct vskip){ pid, pidfd };
	ts->skipped_total++;
	return 0;
}

/* Whether the process behind its /proc/PID directory procfd is a kernel thread (no user memory). */
static bool is_kthread(int procfd)
{
	char stat[1024] = "";
	unsigned long flags = 0;
	char *p;

	/* /proc/PID/stat flags has PF_KTHREAD */
	return read_file_at(procfd, "stat", stat, sizeof(stat)) > 0 && (p = strrchr(stat, ')')) &&
	       sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %lu", &flags) == 1 && (flags & PF_KTHREAD);
}

int vtargets_add(struct vtargets *ts, int proc, pid_t pid, unsigned policy, size_t cgroup,
		 const char *name)
{
	char dir[32];
	int pidfd, procfd, r;
	struct vtarget *t;

	pidfd = madv_pidfd_open(pid);
	if (pidfd < 0)
		return pidfd;
	snprintf(dir, sizeof(dir), "%d", (int)pid);
	procfd = openat(proc, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (procfd < 0 || madv_pidfd_alive(pidfd) < 0) {
		if (procfd >= 0)
			close(procfd);
		close(pidfd);
		return -ESRCH;
	}
	if (is_kthread(procfd)) {
		log_info("vaddr: policy %s: pid %d is a kernel thread; skipped", name, (int)pid);
		close(procfd);
		(void)vtargets_skip(ts, pid, pidfd);
		return -EPERM;
	}
	r = madv_probe(pidfd, MADV_PAGEOUT);
	if (r == -EPERM || r == -EACCES) {
		log_warn("vaddr: policy %s: pid %d cannot be advised (%s: %s); skipped while it "
			 "lives",
			 name, (int)pid, r == -EPERM ? "EPERM" : "EACCES",
			 r == -EPERM ? "CAP_SYS_NICE is missing" : "ptrace read access denied");
		close(procfd);
		(void)vtargets_skip(ts, pid, pidfd);
		return r;
	}
	if (r == -ESRCH) {
		close(procfd);
		close(pidfd);
		return r;
	}
	if (ts->n == ts->cap) {
		size_t cap = ts->cap ? ts->cap * 2 : 16;
		struct vtarget *n = reallocarray(ts->t, cap, sizeof(*n));

		if (!n) {
			close(procfd);
			close(pidfd);
			return -ENOMEM;
		}
		ts->t = n;
		ts->cap = cap;
	}
	t = &ts->t[ts->n++];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->pidfd = pidfd;
	t->procfd = procfd;
	t->policy = policy;
	t->cgroup = cgroup;
	t->swap_room = UINT64_MAX; /* until the engine says */
	t->plan.since_us = now_usec();
	log_debug("vaddr: policy %s: target pid %d", name, (int)pid);
	return 0;
}

/* Drop the dead target i: the last target moves into its index and is watched afresh. */
static void drop_swap_last(struct vtargets *ts, size_t i)
{
	struct vtarget *t = &ts->t[i];

	if (i != ts->n - 1 && !ts->t[ts->n - 1].dead) {
		/* rate-limited: under churn processes exit every cycle */
		log_rl(LOG_INFO,
		       "vaddr: target %zu (pid %d) dropped; pid %d moves from target %zu into its "
		       "index and is watched afresh (no obsolete_target: Linux before 6.19)",
		       i, (int)t->pid, (int)ts->t[ts->n - 1].pid, ts->n - 1);
		*t = ts->t[ts->n - 1];
		/* its regions carry another process's history until DAMON updates them */
		vtarget_forget(t);
		t->seeded = false;
		ts->moved_total++;
	} else if (i != ts->n - 1) {
		*t = ts->t[ts->n - 1]; /* dead too: dropped next */
	}
	ts->n--;
}

/* Remove target i, the ones after it moving down one index each. */
static void remove_keep_order(struct vtargets *ts, size_t i)
{
	memmove(&ts->t[i], &ts->t[i + 1], (ts->n - i - 1) * sizeof(*ts->t));
	ts->n--;
}

size_t vtargets_compact(struct vtargets *ts, bool in_place)
{
	size_t dropped = 0;

	for (size_t i = 0; i < ts->n;) {
		struct vtarget *t = &ts->t[i];

		if (!t->dead || t->gone) {
			i++;
			continue;
		}
		vtarget_close(t);
		dropped++;
		if (in_place && t->seeded) {
			t->gone = true; /* DAMON drops it at the next commit */
			i++;
		} else if (in_place) {
			remove_keep_order(ts, i);
		} else {
			drop_swap_last(ts, i);
		}
	}
	for (size_t i = 0; i < ts->nskip;) {
		if (madv_pidfd_alive(ts->skip[i].pidfd) < 0) {
			close(ts->skip[i].pidfd);
			ts->skip[i] = ts->skip[--ts->nskip];
		} else {
			i++;
		}
	}
	return dropped;
}

size_t vtargets_drop_gone(struct vtargets *ts)
{
	size_t dropped = 0;

	for (size_t i = 0; i < ts->n;) {
		if (ts->t[i].gone) {
			remove_keep_order(ts, i);
			dropped++;
		} else {
			i++;
		}
	}
	return dropped;
}

size_t vtargets_live(const struct vtargets *ts)
{
	size_t n = 0;

	for (size_t i = 0; i < ts->n; i++)
		n += !ts->t[i].gone;
	return n;
}

void vtargets_fini(struct vtargets *ts)
{
	for (size_t i = 0; i < ts->n; i++)
		vtarget_close(&ts->t[i]);
	for (size_t i = 0; i < ts->nskip; i++)
		close(ts->skip[i].pidfd);
	free(ts->t);
	free(ts->skip);
	*ts = (struct vtargets){ 0 };
}
