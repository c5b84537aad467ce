/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cfgwatch: notice by itself that the configuration changed on disk, and say so once the
 * change has settled.
 *
 * It watches (inotify) the directory of the main file and the drop-in directory, and counts
 * as a change: the main file, a `*.conf` drop-in, the drop-in directory itself, and any
 * `..`-name in either (a Kubernetes ConfigMap volume updates by writing a new `..<timestamp>`
 * directory and renaming a `..data` symlink over the old one, so every file changes at once).
 * Other files beside the main file (/etc holds many) are not looked at.
 *
 * A change is reported CFGWATCH_SETTLE_US after the last event of a burst, so that an editor's
 * or a deploy tool's writes are read whole. Before the report, the watches are added again: a
 * watched directory that was replaced (a symlink to a ConfigMap's new `..<timestamp>`
 * directory, a conf.d moved back) is then watched under its new inode. A directory that does
 * not exist (yet) is not watched; it is tried again at each change reported.
 *
 * Ownership: the watch owns its inotify fd and its timer, both in the loop given to
 * cfgwatch_start until cfgwatch_stop. Single-threaded, from the loop.
 */
#ifndef PAGEOUTD_CFGWATCH_H
#define PAGEOUTD_CFGWATCH_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "pageoutd/loop.h"

#define CFGWATCH_SETTLE_US (500 * 1000ULL)

/* on_change: the configuration changed and settled; the handler reloads. */
typedef void (*cfgwatch_fn)(void *data);

struct cfgwatch {
	int fd;	   /* inotify, -1: not started */
	int timer; /* the settle timer (one-shot), -1: none */
	int wd_file_dir, wd_dir;
	struct loop *loop;
	cfgwatch_fn on_change;
	void *data;
	char file_dir[PATH_MAX]; /* the main file's directory */
	char file_name[NAME_MAX + 1];
	char dir[PATH_MAX];	     /* the drop-in directory */
	char dir_name[NAME_MAX + 1]; /* its name, when it lies in file_dir; else "" */
	bool pending;		     /* an event seen, its report not yet made */
	uint64_t changes;	     /* reported, since start */
};

/* cfgwatch_init: a watch that is not started (cfgwatch_stop is a no-op on it). */
void cfgwatch_init(struct cfgwatch *w);
/*
 * cfgwatch_start: watch the main file `file` and the drop-in directory `dir` (either may be
 * NULL) and call on_change(data) from l after each settled change. Returns 0, or -errno when
 * there is no inotify or timer (nothing is watched then); directories that do not exist are
 * not an error.
 */
int cfgwatch_start(struct cfgwatch *w, struct loop *l, const char *file, const char *dir,
		   cfgwatch_fn on_change, void *data);
/* cfgwatch_stop: stop watching and close what it holds. */
void cfgwatch_stop(struct cfgwatch *w);
/*
 * cfgwatch_reading: the caller is about to read the configuration (any reload: SIGHUP,
 * `pageoutctl reload`, or on_change itself). The changes seen so far are taken as read: their
 * report, pending or queued, is not made. A change after this call is reported as usual.
 */
void cfgwatch_reading(struct cfgwatch *w);
/* cfgwatch_active: whether it was started and not stopped. */
bool cfgwatch_active(const struct cfgwatch *w);

/*
 * cfgwatch_relevant: whether an event for name in the main file's directory (in_file_dir) or
 * in the drop-in directory concerns the configuration (the rule above). Pure.
 */
bool cfgwatch_relevant(const struct cfgwatch *w, bool in_file_dir, const char *name);

#endif
