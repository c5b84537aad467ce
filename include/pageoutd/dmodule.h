/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PAGEOUTD_DMODULE_H
#define PAGEOUTD_DMODULE_H
/*
 * dmodule: the kernel modules that hold DAMON exclusively while enabled (damon_stat,
 * damon_reclaim, damon_lru_sort). While one runs, every sysfs kdamond's state=on fails with
 * EBUSY. Each module has a boolean parameter `enabled` under <module_dir>/<name>/parameters/
 * that turns it off (N) and on (Y) at run time.
 */
#include <stdbool.h>
#include <stddef.h>

#define DMODULE_NR 3

/* dmodule_name: the name of module i (0 <= i < DMODULE_NR). */
const char *dmodule_name(unsigned i);

/*
 * dmodule_holder: the index of the first module whose `enabled` parameter under module_dir
 * reads Y, with that parameter's path in path (len bytes); -ENOENT when none does (or
 * module_dir is empty). Reads only.
 */
int dmodule_holder(const char *module_dir, char *path, size_t len);

/*
 * dmodule_set: write `enabled` of module i under module_dir: "Y" when on, "N" otherwise.
 * Returns 0 or -errno (-ENOENT: the kernel has no such module).
 */
int dmodule_set(const char *module_dir, unsigned i, bool on);

#endif
