/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cgroup: everything pageoutd needs from the cgroup tree, through libcgroup: the memory
 * hierarchy (cgroup v2, or the v1 memory controller where v2 has none), path and glob
 * expansion, pids of a cgroup and its descendants, memory.stat, memory.pressure, the current
 * usage and the frozen state. Paths are relative to the hierarchy root and start with '/'.
 * A cgroup that disappears mid-read is -ENOENT, never logged here.
 */
#ifndef PAGEOUTD_CGROUP_H
#define PAGEOUTD_CGROUP_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define CGRP_UNKNOWN UINT64_MAX /* a figure the hierarchy does not provide */

struct cgrp_root {
	int version;	      /* 1 or 2 */
	char mount[PATH_MAX]; /* where the memory hierarchy is mounted */
	/* v1: where the freezer hierarchy is mounted (may equal mount), "" when it is not */
	char freezer[PATH_MAX];
	/* where memory.swap.* and memory.zswap.* are read: mount on v2, "" on v1 (no such limits) */
	char swap[PATH_MAX];
};

struct cgrp_list {
	size_t nr;
	char **paths;
};

struct cgrp_memstat {
	uint64_t anon, file; /* bytes */
	uint64_t shmem; /* bytes of file that are shared memory (swap-backed), or CGRP_UNKNOWN */
	uint64_t inactive_file; /* bytes of file on the inactive LRU, or CGRP_UNKNOWN */
	uint64_t refault_anon, refault_file; /* pages, or CGRP_UNKNOWN */
	uint64_t pgmajfault;		     /* or CGRP_UNKNOWN */
};

struct cgrp_psi {
	bool known; /* false on v1 or without PSI: not zero, unknown */
	double some_avg10, some_avg60, some_avg300;
	double full_avg10, full_avg60, full_avg300;
	uint64_t some_total_us, full_total_us;
};

/*
 * cgrp_init: initialise libcgroup and find the memory hierarchy (and, on v1, the freezer's)
 * into *ret. Returns 0, -ENODEV when none is mounted, or -errno.
 */
int cgrp_init(struct cgrp_root *ret);

/*
 * cgrp_expand: every existing cgroup that a policy's `cgroup =` names: the path itself, or
 * every cgroup matching the fnmatch(FNM_PATHNAME) glob, in walk order. Appends to list.
 * Returns the number appended or -errno (-ENOMEM; a missing base is 0 matches).
 */
int cgrp_expand(const struct cgrp_root *root, const char *pattern, bool is_glob,
		struct cgrp_list *list);
/*
 * cgrp_descendants: append path and every cgroup below it to list. Returns the number
 * appended (0 when path is gone) or -errno.
 */
int cgrp_descendants(const struct cgrp_root *root, const char *path, struct cgrp_list *list);
/* cgrp_list_fini: free the paths the list owns and empty it; an empty list is fine. */
void cgrp_list_fini(struct cgrp_list *list);

/*
 * cgrp_pids: processes (cgroup.procs) of path, and of its descendants when recursive, in
 * *ret_pids (caller frees). Returns the count, -ENOENT if path is gone, or -errno.
 */
int cgrp_pids(const struct cgrp_root *root, const char *path, bool recursive, pid_t **ret_pids);

/*
 * cgrp_memstat: path's memory.stat into *ret (v1: rss and cache as anon and file); a key the
 * kernel does not have stays CGRP_UNKNOWN. Returns 0, -ENOENT if path is gone, or -errno.
 */
int cgrp_memstat(const struct cgrp_root *root, const char *path, struct cgrp_memstat *ret);
/*
 * cgrp_pressure: path's memory.pressure into *ret; ret->known stays false on v1 and where PSI
 * is disabled. Returns 0, -ENOENT if path is gone, -EINVAL for text it cannot parse, or -errno.
 */
int cgrp_pressure(const struct cgrp_root *root, const char *path, struct cgrp_psi *ret);
/* cgrp_psi_parse: parse memory.pressure text (buf, len). Returns 0 or -EINVAL. */
int cgrp_psi_parse(const char *buf, size_t len, struct cgrp_psi *ret);
/*
 * cgrp_current: memory.current (v2) or memory.usage_in_bytes (v1) of path in bytes. Returns 0,
 * -ENOENT if path is gone, or -errno.
 */
int cgrp_current(const struct cgrp_root *root, const char *path, uint64_t *ret);
/*
 * cgrp_swap_room: the swap path may still use, in bytes: the least, over path and its
 * ancestors below the root, of memory.swap.max - memory.swap.current (0 when used up), or
 * UINT64_MAX when none limits it ("max" everywhere, cgroup v1, or no swap accounting:
 * no memory.swap.max file). Kubernetes' LimitedSwap writes memory.swap.max = 0 for the
 * containers that may not swap. Where memory.zswap.writeback is 0 on path or an ancestor
 * (Linux 6.8+), anon can only go to zswap: the room is also at most the least
 * memory.zswap.max - memory.zswap.current over the same cgroups ("max" does not bound it).
 * The files are read under root->swap ("": none). Returns 0, -ENOENT if path is gone, or
 * -errno (*ret is then UINT64_MAX).
 */
int cgrp_swap_room(const struct cgrp_root *root, const char *path, uint64_t *ret);

/* What cgrp_swap_limits gathers over a cgroup and its ancestors. */
struct cgrp_swap_limits {
	uint64_t swap;	   /* the least memory.swap.max - memory.swap.current seen */
	uint64_t zswap;	   /* the least memory.zswap.max - memory.zswap.current seen */
	bool no_writeback; /* memory.zswap.writeback 0 on one of them */
};
#define CGRP_SWAP_LIMITS_NONE ((struct cgrp_swap_limits){ UINT64_MAX, UINT64_MAX, false })
/*
 * cgrp_swap_limits: fold into *lim the limits of path and of its ancestors, up to but not
 * including `top` (an ancestor of path whose limits, and its ancestors', lim already holds;
 * NULL: up to the root). Folding is a minimum, so the limits of a cgroup below one already
 * read cost only the levels between them. Returns 0, -ENOENT if path is gone, or -errno (lim
 * may then hold some of the levels).
 */
int cgrp_swap_limits(const struct cgrp_root *root, const char *path, const char *top,
		     struct cgrp_swap_limits *lim);
/* cgrp_swap_limits_room: the room lim leaves, as cgrp_swap_room gives it. */
uint64_t cgrp_swap_limits_room(const struct cgrp_swap_limits *lim);
/*
 * cgrp_frozen: whether path (or an ancestor) is frozen: 1 frozen, 0 not, -EOPNOTSUPP when no
 * freezer is available (v1 without a freezer hierarchy, v2 before Linux 5.2), -ENOENT if gone
 * (also when its cgroup.events reads empty, as a cgroup being removed may).
 * v2 reads cgroup.events `frozen`, which the kernel sets on every descendant of a frozen cgroup
 * once its tasks stopped [kernel/cgroup/freezer.c cgroup_freeze]. v1 reads freezer.state of the
 * same path in the freezer hierarchy, or of its nearest ancestor there (FROZEN also covers a
 * frozen parent [kernel/cgroup/legacy_freezer.c]); its root cannot be frozen.
 */
int cgrp_frozen(const struct cgrp_root *root, const char *path);
/*
 * cgrp_frozen_parse: the frozen state in (buf, len): cgroup.events text for version 2 (1, 0,
 * -EOPNOTSUPP without a `frozen` key), freezer.state text for 1 (1 for FROZEN, 0 for THAWED or
 * FREEZING, -EINVAL otherwise).
 */
int cgrp_frozen_parse(int version, const char *buf, size_t len);
/*
 * Change notification of the frozen state: cgroup.events (v2) raises a modify event when its
 * values change [Documentation/admin-guide/cgroup-v2.rst]; v1's freezer.state raises none.
 * cgrp_watch_new: a non-blocking inotify fd (caller closes) or -errno. cgrp_watch_add: watch
 * path's cgroup.events (adding it again is harmless; a removed cgroup drops its watch).
 * Returns 0, -EOPNOTSUPP on v1, or -errno. cgrp_watch_drain: read every pending event; returns
 * how many, or -errno.
 */
int cgrp_watch_new(void);
int cgrp_watch_add(const struct cgrp_root *root, int fd, const char *path);
int cgrp_watch_drain(int fd);
/* cgrp_of_pid: the memory cgroup path of pid into buf. Returns 0 or -errno. */
int cgrp_of_pid(pid_t pid, char *buf, size_t len);

#endif
