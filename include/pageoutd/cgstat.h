/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cgstat: the figures of each cgroup a policy matches (on a phone, one app): bytes reclaimed,
 * how long it was seen frozen and whether it is now, and the major faults of its processes in
 * the first CGSTAT_THAW_WINDOW_US after a thaw. The engines feed it (cgstat_get when they match
 * a cgroup, cgstat_frozen when they read its frozen state, cgstat_reclaimed when they reclaim
 * from it); an entry lives while the engine matches its cgroup: cgstat_mark before a pass
 * over an engine's cgroups and cgstat_sweep after it free the entries of cgroups that went
 * away. A thaw takes the cgroup's major fault count at once; the caller's timer calls
 * cgstat_run_due at cgstat_next_due to take it again, without blocking in between.
 */
#ifndef PAGEOUTD_CGSTAT_H
#define PAGEOUTD_CGSTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pageoutd/cgroup.h"
#include "pageoutd/config.h"
#include "pageoutd/util.h"

#define CGSTAT_THAW_WINDOW_US (2 * USEC_PER_SEC)
#define CGSTAT_NO_FAULTS UINT64_MAX /* no thaw measured yet */
/* the shortest window a refault rate is measured over */
#define CGSTAT_REFAULT_WINDOW_US (10 * USEC_PER_SEC)

/* A process's major faults when the window opened, told apart from a reused pid. */
struct cgstat_proc {
	pid_t pid;
	uint64_t start, majflt; /* /proc/PID/stat starttime and majflt */
};

struct cgstat_entry {
	enum cfg_engine engine;
	char policy[CFG_NAME_MAX];
	char *path;
	uint64_t reclaimed_bytes_total;
	bool watched;		  /* its frozen state is read (frozen_only) */
	int frozen;		  /* 1, 0, or -errno (no freezer) as last read */
	uint64_t frozen_since_us; /* when it was first seen frozen, while it is */
	uint64_t frozen_us_total; /* frozen periods that ended */
	uint64_t thaws_total;
	uint64_t thaw_faults_last; /* CGSTAT_NO_FAULTS until a window closed */
	uint64_t thaw_faults_total;
	/* the open window after a thaw: closes at thaw_due_us (0: none) */
	uint64_t thaw_due_us;
	bool thaw_memstat; /* the base is memory.stat pgmajfault, else the processes' majflt */
	uint64_t thaw_base;
	size_t nbase;
	struct cgstat_proc *base;
	/*
	 * refaults per minute over the last window as a ratio of the working set (-1 until
	 * measured): cgstat_refaults. ws_bytes the working set as last read (0: unknown).
	 */
	double refault_rate;
	uint64_t ws_bytes;
	uint64_t refault_base, refault_base_us; /* the window's start (refault_base_us 0: none) */
	bool seen;				/* matched since the last cgstat_mark */
};

struct cgstat;

/*
 * cgstat_new: an empty table; major faults are read from cg's memory.stat or from procfd
 * (the proc root, kept open by the caller). NULL on out of memory.
 */
struct cgstat *cgstat_new(const struct cgrp_root *cg, int procfd);
/* cgstat_free: free t and every entry (NULL is fine). Returns NULL. cg stays the caller's. */
struct cgstat *cgstat_free(struct cgstat *t);

/*
 * cgstat_refaults: cgroup e's cumulative workingset refaults (pages; CGRP_UNKNOWN where the
 * kernel does not count them) and its working set (bytes, engine_read_cgroup's ws_bytes) read
 * at now. Once a window of at least CGSTAT_REFAULT_WINDOW_US has passed, e->refault_rate is
 * the refaulted bytes per minute over it as a ratio of the working set, and a new window opens.
 * A counter that went back (a new cgroup of the same path) opens a new window. e NULL: nothing.
 */
void cgstat_refaults(const struct cgstat *t, struct cgstat_entry *e, uint64_t pages,
		     uint64_t ws_bytes, uint64_t now);

/* cgstat_mark: every entry of engine e counts as gone until cgstat_get finds it again. */
void cgstat_mark(struct cgstat *t, enum cfg_engine e);
/* cgstat_sweep: free the entries of e that were not got since cgstat_mark. Returns how many. */
unsigned cgstat_sweep(struct cgstat *t, enum cfg_engine e);
/*
 * cgstat_get: the entry of (engine e, policy, path), created if new (path copied), and marked
 * seen. The table owns it: valid until the cgstat_sweep that drops it. NULL: no memory.
 */
struct cgstat_entry *cgstat_get(struct cgstat *t, enum cfg_engine e, const char *policy,
				const char *path);
/*
 * cgstat_find: the entry of (engine e, policy, path), owned by the table, or NULL (the two parts
 * of an engine = both policy have an entry each).
 */
struct cgstat_entry *cgstat_find(const struct cgstat *t, enum cfg_engine e, const char *policy,
				 const char *path);
/*
 * cgstat_frozen: the frozen state read now (cgrp_frozen: 1, 0, -errno). A freeze starts the
 * frozen time; a thaw ends it and opens the fault window (the count now, the next at now +
 * CGSTAT_THAW_WINDOW_US; a window still open is started again).
 */
void cgstat_frozen(struct cgstat *t, struct cgstat_entry *e, int frozen, uint64_t now);
static inline void cgstat_reclaimed(struct cgstat_entry *e, uint64_t bytes)
{
	if (e)
		e->reclaimed_bytes_total += bytes;
}
/* cgstat_frozen_us: the time e was seen frozen, the current period included. */
uint64_t cgstat_frozen_us(const struct cgstat_entry *e, uint64_t now);
/* cgstat_next_due: when the first open fault window closes, 0 when none is open. */
uint64_t cgstat_next_due(const struct cgstat *t);
/* cgstat_run_due: close every window due by now: last and total thaw faults. Returns how many. */
unsigned cgstat_run_due(struct cgstat *t, uint64_t now);

/*
 * cgstat_at: the i-th entry (NULL past the end), in the order the cgroups were first seen;
 * owned by the table, valid until the next cgstat_sweep or cgstat_get.
 */
const struct cgstat_entry *cgstat_at(const struct cgstat *t, size_t i);
/* cgstat_count: the number of entries. */
size_t cgstat_count(const struct cgstat *t);

/*
 * cgstat_parse_stat: majflt (field 12) and starttime (field 22) of /proc/PID/stat text
 * (buf, len; the command may hold spaces and parentheses). Returns 0 or -EINVAL.
 */
int cgstat_parse_stat(const char *buf, size_t len, uint64_t *ret_majflt, uint64_t *ret_start);
/*
 * cgstat_proc_faults: the major faults of pids (n of them) under procfd since base (nbase
 * entries, sorted by pid; a process not in it, or whose pid was reused, counts from its
 * start). With ret_procs, each process's figures go there (n entries, sorted by pid), for the
 * next call's base. A process that exited is left out. Returns the sum.
 */
uint64_t cgstat_proc_faults(int procfd, const pid_t *pids, size_t n, const struct cgstat_proc *base,
			    size_t nbase, struct cgstat_proc *ret_procs, size_t *ret_nprocs);

#endif
