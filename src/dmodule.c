// SPDX-License-Identifier: GPL-2.0-or-later
/* dmodule: the DAMON kernel modules that hold DAMON exclusively (dmodule.h). */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>

#include "pageoutd/dmodule.h"
#include "pageoutd/util.h"

static const char *const names[DMODULE_NR] = { "damon_stat", "damon_reclaim", "damon_lru_sort" };

const char *dmodule_name(unsigned i)
{
	return i < DMODULE_NR ? names[i] : "?";
}

static void enabled_path(const char *module_dir, unsigned i, char *path, size_t len)
{
	snprintf(path, len, "%s/%s/parameters/enabled", module_dir, names[i]);
}

int dmodule_holder(const char *module_dir, char *path, size_t len)
{
	char v[16];

	for (unsigned i = 0; module_dir[0] && i < DMODULE_NR; i++) {
		enabled_path(module_dir, i, path, len);
		if (read_file_at(AT_FDCWD, path, v, sizeof(v)) > 0 && str_strip(v)[0] == 'Y')
			return (int)i;
	}
	return -ENOENT;
}

int dmodule_set(const char *module_dir, unsigned i, bool on)
{
	char path[PATH_MAX + 64];

	if (i >= DMODULE_NR || !module_dir[0])
		return -ENOENT;
	enabled_path(module_dir, i, path, sizeof(path));
	return write_file_at(AT_FDCWD, path, on ? "Y" : "N");
}
