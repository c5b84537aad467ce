/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vtarget: the processes the vaddr engine watches. A target is a live process opened through a
 * pidfd and its /proc/PID directory, with the policy and matched cgroup it came from, the swap
 * room of the cgroup it is in, and what the plan keeps of it between snapshots. The set keeps
 * the targets in an array whose index is the target's index in the kdamond (a gone target
 * keeps its index until the commit that drops it), and a skip list of processes that may not
 * be advised.
 */
#ifndef PAGEOUTD_VTARGET_H
#define PAGEOUTD_VTARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pageoutd/vplan.h"

struct vtarget {
	pid_t pid;
	int pidfd, procfd;	  /* owned by the set; -1 once closed */
	unsigned policy;	  /* the engine's policy index */
	size_t cgroup;		  /* the policy's matched cgroup (index in its list) it came from */
	uint64_t swap_room;	  /* of the cgroup it is in (set by the engine; UINT64_MAX: none) */
	bool dead;		  /* to be dropped by vtargets_compact */
	bool gone;		  /* dead, fds closed, kept at its index until vtargets_drop_gone */
	bool seeded;		  /* DAMON has it at this index (seed regions given once) */
	struct vplan_target plan; /* what the plan keeps of it between snapshots */
};

/* a process that cannot be advised: reported once, skipped while it lives */
struct vskip {
	pid_t pid;
	int pidfd; /* owned by the set */
};

/* Zero-initialised is empty. Every fd in it is owned by it and closed by vtargets_fini. */
struct vtargets {
	struct vtarget *t; /* t[i] is the kdamond's target i */
	size_t n, cap;
	struct vskip *skip;
	size_t nskip;
	uint64_t skipped_total; /* processes put on the skip list, ever */
	uint64_t moved_total;	/* targets moved into a dropped target's index, ever */
};

/*
 * vtargets_add: open process pid as a new last target of policy and its matched cgroup: its
 * pidfd, then its /proc/PID directory under the /proc fd proc, then check the pidfd's process
 * is still alive (the directory was then opened while the pid was still that process's).
 * Returns 0 (added), -ESRCH (the process exited), -EPERM (a kernel thread) or -EACCES / -EPERM
 * (process_madvise refused: no CAP_SYS_NICE or no ptrace read access), -ENOMEM or another
 * -errno of pidfd_open. On -EPERM and -EACCES the process is put on the skip list (logged
 * once, naming policy `name`); on every failure nothing is added.
 */
int vtargets_add(struct vtargets *ts, int proc, pid_t pid, unsigned policy, size_t cgroup,
		 const char *name);
/*
 * vtargets_compact: drop the dead targets, closing their fds, then drop the skipped processes
 * that exited. With in_place (DAMON can drop a target without moving the others: the kernel
 * has obsolete_target), a dead target DAMON has (seeded) stays at its index, marked
 * gone, until vtargets_drop_gone; any other dead target is removed and the rest keep their
 * order. Without in_place, the last target moves into each hole, so only it changes index; a
 * moved target is forgotten (vtarget_forget), no longer seeded, counted in moved_total and
 * logged. Returns how many targets were dropped or newly marked gone.
 */
size_t vtargets_compact(struct vtargets *ts, bool in_place);
/*
 * vtargets_drop_gone: remove the gone targets, the others keeping their order (as DAMON keeps
 * them when a commit drops obsolete targets). Returns how many were removed.
 */
size_t vtargets_drop_gone(struct vtargets *ts);
/* vtargets_live: how many targets of ts are not gone. */
size_t vtargets_live(const struct vtargets *ts);
/* vtargets_fini: close every fd of ts and free it; ts is empty again. */
void vtargets_fini(struct vtargets *ts);
/*
 * vtargets_skip: put process pid, behind pidfd (given to ts), on the skip list. Returns 0, or
 * -ENOMEM: pidfd is closed and pid is not skipped.
 */
int vtargets_skip(struct vtargets *ts, pid_t pid, int pidfd);
/* vtargets_skipped: whether pid is on the skip list. */
bool vtargets_skipped(const struct vtargets *ts, pid_t pid);

/* vtarget_close: close t's fds and free its plan state. */
void vtarget_close(struct vtarget *t);
/* vtarget_forget: what DAMON said of t's regions no longer holds: watch it afresh from now. */
void vtarget_forget(struct vtarget *t);
/* vtarget_rss: the resident bytes of t's process (its statm, pages of page_size), or 0. */
uint64_t vtarget_rss(const struct vtarget *t, uint64_t page_size);
/* vtarget_pagemap_open: t's /proc/PID/pagemap, opened for reading: an fd or -errno. */
int vtarget_pagemap_open(const struct vtarget *t);
/*
 * vtarget_present: the pages of [start, end) (page-aligned) that the process whose pagemap is
 * open on fd has present and maps alone (bit 63 present, bit 56 exclusively mapped:
 * MADV_PAGEOUT leaves a page another process maps where it is), appended to *ret as sorted
 * runs. Returns the pages read, or -errno: pagemap cannot be read (the process exited), or
 * -ENOMEM.
 */
int64_t vtarget_present(int fd, uint64_t start, uint64_t end, uint64_t page_size,
			struct vrange_list *ret);
/*
 * vtarget_census: of the pages of [start, end) (page-aligned) in the pagemap open on fd, how
 * many are present (*present) and how many of those another process maps too (*shared: bit 56
 * clear); the others, present and mapped by this process alone, are appended to *alone as
 * sorted runs unless alone is NULL. Returns 0 or -errno: pagemap cannot be read (the process
 * exited), or -ENOMEM. vtarget_present is the same with the count of pages read returned.
 */
int vtarget_census(int fd, uint64_t start, uint64_t end, uint64_t page_size, uint64_t *present,
		   uint64_t *shared, struct vrange_list *alone);

#endif
