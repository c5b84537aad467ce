/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fakedamon: a DAMON sysfs tree in a temporary directory, with an I/O table that answers writes
 * the way mm/damon/sysfs.c does (nr_* rebuild child directories with defaults, nr_kdamonds is
 * EBUSY while any kdamond runs, state keywords, tried regions from virtual regions), records
 * every write in order, and injects faults. Shapes: 6.2-like (no filters), 6.12, 7.2 and 7.3
 * (7.2 plus the context's pause and the quotas' fail_charge_num and fail_charge_denom). A
 * commit drops the running targets marked obsolete_target, and is refused (EINVAL) for one
 * that has no running target at its index, as damon_commit_targets() does. A nr_schemes write
 * leaves the stats files at 0 while the kdamond keeps the counters of the schemes that stay;
 * update_schemes_stats shows them again (a test writes the files itself for a refresh_ms
 * refresh).
 */
#ifndef PAGEOUTD_FAKEDAMON_H
#define PAGEOUTD_FAKEDAMON_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "pageoutd/damon.h"

enum fake_abi { FAKE_ABI_62, FAKE_ABI_612, FAKE_ABI_72, FAKE_ABI_73 };

struct fake_vregion {
	unsigned target;
	uint64_t start, end;
	unsigned nr_accesses, age;
};

#define FAKE_LOG_MAX 8192
#define FAKE_VREGIONS_MAX 2048 /* bench/host/cycle: 3 regions for each of 300 processes */

struct fakedamon {
	char top[PATH_MAX];   /* the temporary directory */
	char admin[PATH_MAX]; /* top/fakesys/kernel/mm/damon/admin */
	char state_dir[PATH_MAX];
	enum fake_abi abi;
	unsigned nlog;
	struct {
		char path[192];
		char val[48];
	} log[FAKE_LOG_MAX];
	unsigned nwrites;      /* accepted or not */
	unsigned fail_at;      /* fail the Nth write (1-based), 0 = never */
	int fail_err;	       /* with this -errno */
	const char *fail_path; /* or fail writes whose path ends with this */
	bool exclusive; /* a kernel module holds DAMON: state=on -> EBUSY (also: fake_module "Y") */
	const char *fail_read_path; /* reads of paths containing this fail, */
	int fail_read_err;	    /* with this -errno (a directory vanishing mid-read: ENOENT) */
	unsigned nvr;
	struct fake_vregion vr[FAKE_VREGIONS_MAX];
	int next_kpid;
	/* the targets each kdamond runs with, as its commits (obsolete_target) leave them */
	unsigned ktargets[DAMON_MAX_KDAMONDS];
	/*
	 * each kdamond's scheme counters (nr_tried, sz_tried, nr_applied, sz_applied,
	 * qt_exceeds) that a nr_schemes write took out of the stats files: the kernel keeps
	 * them, and update_schemes_stats shows them again
	 */
	char kstats[DAMON_MAX_KDAMONDS][64][5][24];
	unsigned nkstats[DAMON_MAX_KDAMONDS];
	/* memcg_path P resolves when memcg_root/P is a directory (any path when empty) */
	char memcg_root[PATH_MAX];
};

/* fake_new: build the empty tree (nr_kdamonds 0). Exits the test on failure. */
struct fakedamon *fake_new(enum fake_abi abi);
void fake_free(struct fakedamon *f);
struct damon_io fake_io(struct fakedamon *f);
/* fake_set: write a file directly, as another tool or the kernel would (no emulation). */
void fake_set(struct fakedamon *f, const char *path, const char *val);
/* fake_get: read a file of the tree into a static buffer ("" if missing). */
const char *fake_get(struct fakedamon *f, const char *path);
/* fake_foreign: as another tool: create n kdamonds, kdamond 0 with one paddr context, on/off. */
void fake_foreign(struct fakedamon *f, unsigned n, bool running);
/* fake_log_index: index of the first logged write to a path ending in suffix (with val if not
 * NULL) at or after `from`, or -1. */
int fake_log_index(struct fakedamon *f, unsigned from, const char *suffix, const char *val);
void fake_module(struct fakedamon *f, const char *module, const char *enabled);

#endif
