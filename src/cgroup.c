// SPDX-License-Identifier: GPL-2.0-or-later
/* cgroup: libcgroup behind cgrp_*; ECG* codes are translated to -errno here. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libcgroup.h>

#include "pageoutd/cgroup.h"
#include "pageoutd/log.h"
#include "pageoutd/util.h"

static const char controller[] = "memory";

/* Translate a libcgroup return code into -errno. */
static int ecg_to_errno(int r)
{
	int e;

	switch (r) {
	case 0:
		return 0;
	case ECGEOF:
		return -ENODATA;
	case ECGROUPNOTEXIST:
	case ECGROUPSUBSYSNOTMOUNTED:
		return -ENOENT;
	case ECGROUPNOTALLOWED:
		return -EACCES;
	case ECGROUPNOTINITIALIZED:
	case ECGROUPNOTMOUNTED:
		return -ENODEV;
	case ECGINVAL:
		return -EINVAL;
	case ECGOTHER:
	default:
		e = cgroup_get_last_errno();
		return e > 0 ? -e : -EIO;
	}
}

/*
 * libcgroup reports a file that cannot be opened as ECGINVAL or ECGOTHER: when the cgroup
 * itself is gone, say so (-ENOENT), the normal race with a cgroup being removed. `file` is the
 * file that was read (NULL: cgroup.procs).
 */
static int enoent_if_gone(const struct cgrp_root *root, const char *path, const char *file, int r)
{
	char full[PATH_MAX * 2];
	struct stat st;

	if (r >= 0)
		return r;
	snprintf(full, sizeof(full), "%s%s", root->mount, path);
	if (stat(full, &st) < 0 && errno == ENOENT)
		return -ENOENT;
	/*
	 * rmdir kills the controllers' css first: their files (memory.*) go away while the
	 * directory and cgroup.procs are still there (seen on v1 with cgroups coming and going).
	 */
	if (file) {
		snprintf(full, sizeof(full), "%s%s/%s", root->mount, path, file);
		if (stat(full, &st) < 0 && (errno == ENOENT || errno == ENODEV))
			return -ENOENT;
	}
	/*
	 * Being removed: the directory is still there but kernfs already refuses to open its
	 * files (ENODEV), and libcgroup reports that as a generic error.
	 */
	snprintf(full, sizeof(full), "%s%s/cgroup.procs", root->mount, path);
	{
		int fd = open(full, O_RDONLY | O_CLOEXEC);

		if (fd >= 0)
			close(fd);
		else if (errno == ENOENT || errno == ENODEV)
			return -ENOENT;
	}
	return r;
}

static void libcgroup_log(void *userdata, int level, const char *fmt, va_list ap)
{
	char buf[512];
	size_t n;

	(void)userdata;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	n = strlen(buf);
	while (n && buf[n - 1] == '\n')
		buf[--n] = '\0';
	/* libcgroup's own errors are expected races (a cgroup vanished): debug only */
	log_rl(level <= CGROUP_LOG_WARNING ? LOG_DEBUG : LOG_DEBUG, "libcgroup: %s", buf);
}

int cgrp_init(struct cgrp_root *ret)
{
	char *mnt = NULL, probe[PATH_MAX + 32];
	struct stat st;
	int r;

	memset(ret, 0, sizeof(*ret));
	cgroup_set_logger(libcgroup_log, CGROUP_LOG_WARNING, NULL);
	r = ecg_to_errno(cgroup_init());
	if (r < 0)
		return r == -ENOENT ? -ENODEV : r;
	r = ecg_to_errno(cgroup_get_subsys_mount_point(controller, &mnt));
	if (r < 0)
		return r == -ENOENT ? -ENODEV : r;
	str_copy(ret->mount, sizeof(ret->mount), mnt);
	free(mnt);
	snprintf(probe, sizeof(probe), "%s/cgroup.controllers", ret->mount);
	ret->version = stat(probe, &st) == 0 ? 2 : 1;
	if (ret->version == 2)
		str_copy(ret->swap, sizeof(ret->swap), ret->mount);
	if (ret->version == 1 && cgroup_get_subsys_mount_point("freezer", &mnt) == 0) {
		str_copy(ret->freezer, sizeof(ret->freezer), mnt);
		free(mnt);
	}
	return 0;
}

void cgrp_list_fini(struct cgrp_list *list)
{
	for (size_t i = 0; i < list->nr; i++)
		free(list->paths[i]);
	free(list->paths);
	list->paths = NULL;
	list->nr = 0;
}

static int list_add(struct cgrp_list *list, const char *path)
{
	char **n = realloc(list->paths, (list->nr + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	list->paths = n;
	n[list->nr] = strdup(path);
	if (!n[list->nr])
		return -ENOMEM;
	list->nr++;
	return 0;
}

/* The relative cgroup path ("/a/b") of full into buf; returns buf, or NULL when full is not
 * under the mount. */
static const char *rel_path(const struct cgrp_root *root, const char *full, char *buf, size_t len)
{
	size_t m = strlen(root->mount);

	if (strncmp(full, root->mount, m))
		return NULL;
	full += m;
	snprintf(buf, len, "%s", *full ? full : "/");
	return buf;
}

/*
 * Append to list base and each of its descendants (at most `depth` levels below base, 0: all)
 * whose relative path matches glob (every one when glob is NULL). A directory removed mid-walk
 * ends that branch; a missing base is no match. Returns the number appended or -errno.
 */
static int walk_append(const struct cgrp_root *root, const char *base, int depth, const char *glob,
		       struct cgrp_list *list)
{
	struct cgroup_file_info info;
	void *handle = NULL;
	int level, r, n = 0;
	char rel[PATH_MAX];

	r = cgroup_walk_tree_begin(controller, base, depth, &handle, &info, &level);
	if (r != 0) {
		if (handle)
			cgroup_walk_tree_end(&handle);
		r = ecg_to_errno(r);
		return r == -ENODATA || r == -ENOENT ? 0 : r;
	}
	cgroup_walk_tree_set_flags(&handle, CGROUP_WALK_TYPE_PRE_DIR);
	do {
		if (info.type != CGROUP_FILE_TYPE_DIR)
			continue;
		if (!rel_path(root, info.full_path, rel, sizeof(rel)))
			continue;
		/* fts gives "/a/b/" for the base: normalise */
		if (strlen(rel) > 1 && rel[strlen(rel) - 1] == '/')
			rel[strlen(rel) - 1] = '\0';
		if (glob && fnmatch(glob, rel, FNM_PATHNAME))
			continue;
		if (list_add(list, rel) < 0) {
			n = -ENOMEM;
			break;
		}
		n++;
	} while ((r = cgroup_walk_tree_next(depth, &handle, &info, level)) == 0);
	cgroup_walk_tree_end(&handle);
	return n;
}

int cgrp_expand(const struct cgrp_root *root, const char *pattern, bool is_glob,
		struct cgrp_list *list)
{
	char base[PATH_MAX], full[PATH_MAX * 2];
	int depth = 0;
	char *p;
	struct stat st;

	if (!is_glob) {
		snprintf(full, sizeof(full), "%s%s", root->mount, pattern);
		if (stat(full, &st) < 0 || !S_ISDIR(st.st_mode))
			return 0;
		return list_add(list, pattern) < 0 ? -ENOMEM : 1;
	}
	/* walk from the deepest literal directory, as deep as the pattern's components */
	str_copy(base, sizeof(base), pattern);
	p = strpbrk(base, "*?[");
	while (p > base && *p != '/')
		p--;
	*p = '\0';
	if (!base[0])
		str_copy(base, sizeof(base), "/");
	for (const char *c = pattern + strlen(base); *c; c++)
		if (*c == '/')
			depth++;
	return walk_append(root, base, depth + 1, pattern, list);
}

int cgrp_descendants(const struct cgrp_root *root, const char *path, struct cgrp_list *list)
{
	return walk_append(root, path, 0, NULL, list);
}

static int pids_of(const struct cgrp_root *root, const char *path, pid_t **acc, int *nacc)
{
	pid_t *p = NULL, *n;
	int size = 0, r;

	r = enoent_if_gone(
		root, path, NULL,
		ecg_to_errno(cgroup_get_procs((char *)path, (char *)controller, &p, &size)));
	if (r < 0) {
		free(p);
		return r;
	}
	if (size) {
		n = realloc(*acc, (size_t)(*nacc + size) * sizeof(*n));
		if (!n) {
			free(p);
			return -ENOMEM;
		}
		memcpy(n + *nacc, p, (size_t)size * sizeof(*n));
		*acc = n;
		*nacc += size;
	}
	free(p);
	return 0;
}

int cgrp_pids(const struct cgrp_root *root, const char *path, bool recursive, pid_t **ret_pids)
{
	struct cgrp_list l = { 0 };
	pid_t *acc = NULL;
	int nacc = 0, r;

	*ret_pids = NULL;
	if (!recursive) {
		r = pids_of(root, path, &acc, &nacc);
		goto out;
	}
	r = cgrp_descendants(root, path, &l);
	if (r == 0)
		r = -ENOENT;
	for (size_t i = 0; r > 0 && i < l.nr; i++) {
		int k = pids_of(root, l.paths[i], &acc, &nacc);

		/*
		 * A descendant that vanished mid-walk is normal; the base vanishing is ENOENT. A
		 * cgroup being removed can also answer ENODEV (kernfs: node deactivated; seen on
		 * 7.2 with cgroups coming and going).
		 */
		if (k < 0 && !((k == -ENOENT || k == -ENODEV) && i > 0))
			r = k;
	}
	cgrp_list_fini(&l);
out:
	if (r < 0) {
		free(acc);
		return r;
	}
	*ret_pids = acc;
	return nacc;
}

int cgrp_memstat(const struct cgrp_root *root, const char *path, struct cgrp_memstat *ret)
{
	struct cgroup_stat st;
	void *h = NULL;
	int r;
	uint64_t v;

	ret->anon = ret->file = 0;
	ret->shmem = ret->inactive_file = CGRP_UNKNOWN;
	ret->refault_anon = ret->refault_file = ret->pgmajfault = CGRP_UNKNOWN;
	r = cgroup_read_stats_begin(controller, path, &h, &st);
	if (r != 0) {
		if (h)
			cgroup_read_stats_end(&h);
		r = enoent_if_gone(root, path, "memory.stat", ecg_to_errno(r));
		return r == -ENODATA ? 0 : r;
	}
	do {
		if (parse_u64(str_strip(st.value), &v) < 0)
			continue;
		if (!strcmp(st.name, root->version == 2 ? "anon" : "rss"))
			ret->anon = v;
		else if (!strcmp(st.name, root->version == 2 ? "file" : "cache"))
			ret->file = v;
		else if (!strcmp(st.name, "shmem"))
			ret->shmem = v;
		else if (!strcmp(st.name, "inactive_file"))
			ret->inactive_file = v;
		else if (!strcmp(st.name, "workingset_refault_anon"))
			ret->refault_anon = v;
		else if (!strcmp(st.name, "workingset_refault_file"))
			ret->refault_file = v;
		else if (!strcmp(st.name, "pgmajfault"))
			ret->pgmajfault = v;
	} while (cgroup_read_stats_next(&h, &st) == 0);
	cgroup_read_stats_end(&h);
	return 0;
}

/* Read a whole small cgroup file through libcgroup's value iterator. */
static int read_value(const struct cgrp_root *root, const char *path, const char *name, char *buf,
		      size_t len)
{
	char line[256];
	void *h = NULL;
	size_t used = 0;
	int r;

	buf[0] = '\0';
	r = cgroup_read_value_begin(controller, path, (char *)name, &h, line, sizeof(line));
	if (r != 0 && r != ECGEOF) {
		if (h)
			cgroup_read_value_end(&h);
		return enoent_if_gone(root, path, name, ecg_to_errno(r));
	}
	while (r == 0) {
		size_t n = strlen(line);

		if (used + n + 1 < len) {
			memcpy(buf + used, line, n + 1);
			used += n;
		}
		r = cgroup_read_value_next(&h, line, sizeof(line));
	}
	cgroup_read_value_end(&h);
	return (int)used;
}

int cgrp_psi_parse(const char *buf, size_t len, struct cgrp_psi *ret)
{
	char tmp[512];
	const char *some, *full;
	unsigned long long st = 0, ft = 0;

	memset(ret, 0, sizeof(*ret));
	if (len >= sizeof(tmp))
		len = sizeof(tmp) - 1;
	memcpy(tmp, buf, len);
	tmp[len] = '\0';
	some = strstr(tmp, "some ");
	full = strstr(tmp, "full ");
	if (!some || sscanf(some, "some avg10=%lf avg60=%lf avg300=%lf total=%llu",
			    &ret->some_avg10, &ret->some_avg60, &ret->some_avg300, &st) != 4)
		return -EINVAL;
	if (full && sscanf(full, "full avg10=%lf avg60=%lf avg300=%lf total=%llu", &ret->full_avg10,
			   &ret->full_avg60, &ret->full_avg300, &ft) != 4)
		return -EINVAL;
	ret->some_total_us = st;
	ret->full_total_us = ft;
	ret->known = true;
	return 0;
}

int cgrp_pressure(const struct cgrp_root *root, const char *path, struct cgrp_psi *ret)
{
	char buf[512];
	int r;

	memset(ret, 0, sizeof(*ret));
	if (root->version == 1)
		return 0; /* v1 has no memory.pressure: unknown */
	r = read_value(root, path, "memory.pressure", buf, sizeof(buf));
	if (r == -ENOENT || r == -EOPNOTSUPP) {
		char full[PATH_MAX * 2];
		struct stat sb;

		/* PSI disabled (psi=0) leaves the cgroup in place but no file */
		snprintf(full, sizeof(full), "%s%s", root->mount, path);
		return stat(full, &sb) == 0 ? 0 : -ENOENT;
	}
	if (r < 0)
		return r;
	return cgrp_psi_parse(buf, (size_t)r, ret);
}

int cgrp_current(const struct cgrp_root *root, const char *path, uint64_t *ret)
{
	char buf[64];
	int r;

	r = read_value(root, path, root->version == 2 ? "memory.current" : "memory.usage_in_bytes",
		       buf, sizeof(buf));
	if (r < 0)
		return r;
	return parse_u64(str_strip(buf), ret);
}

/*
 * One memory.swap.* or memory.zswap.* file of path read straight from root->swap (not through
 * libcgroup): these are plain cgroup v2 files, and a test can lay them out in a directory of
 * its own. Returns the length read, -ENOENT when the file (or the cgroup) is missing, or
 * -errno.
 */
static int read_knob(const struct cgrp_root *root, const char *path, const char *name, char *buf,
		     size_t len)
{
	char full[PATH_MAX * 2 + 64];
	ssize_t n;

	snprintf(full, sizeof(full), "%s%s/%s", root->swap, path, name);
	n = read_file_at(AT_FDCWD, full, buf, len);
	return n == -ENODEV ? -ENOENT : (int)n; /* kernfs: a cgroup being removed */
}

/*
 * The room one cgroup leaves under a limit: `max_name` - `cur_name` (0 when used up) in *ret,
 * UINT64_MAX for "max" or when the cgroup has no `max_name` file (no swap accounting, a kernel
 * without the file). Returns 0, -ENOENT when the cgroup is gone, or -errno.
 */
static int room_of(const struct cgrp_root *root, const char *path, const char *max_name,
		   const char *cur_name, uint64_t *ret)
{
	char buf[64];
	uint64_t max, cur;
	int r;

	*ret = UINT64_MAX;
	r = read_knob(root, path, max_name, buf, sizeof(buf));
	if (r == -ENOENT) {
		struct stat sb;
		char full[PATH_MAX * 2];

		snprintf(full, sizeof(full), "%s%s", root->swap, path);
		return stat(full, &sb) == 0 ? 0 : -ENOENT;
	}
	if (r < 0)
		return r;
	if (!strcmp(str_strip(buf), "max"))
		return 0;
	if (parse_u64(buf, &max) < 0)
		return -EINVAL;
	r = read_knob(root, path, cur_name, buf, sizeof(buf));
	if (r < 0)
		return r;
	if (parse_u64(str_strip(buf), &cur) < 0)
		return -EINVAL;
	*ret = max > cur ? max - cur : 0;
	return 0;
}

/* Fold one level's limits into *lim. Returns 0, -ENOENT when path is gone, or -errno. */
static int swap_limits_of(const struct cgrp_root *root, const char *path,
			  struct cgrp_swap_limits *lim)
{
	uint64_t room;
	char buf[16];
	int r;

	r = room_of(root, path, "memory.swap.max", "memory.swap.current", &room);
	if (r < 0)
		return r;
	if (room < lim->swap)
		lim->swap = room;
	r = room_of(root, path, "memory.zswap.max", "memory.zswap.current", &room);
	if (r < 0)
		return r;
	if (room < lim->zswap)
		lim->zswap = room;
	/* 6.8+; before, or without zswap, there is no file and writeback always happens */
	r = read_knob(root, path, "memory.zswap.writeback", buf, sizeof(buf));
	if (r > 0 && !strcmp(str_strip(buf), "0"))
		lim->no_writeback = true;
	return r < 0 && r != -ENOENT ? r : 0;
}

int cgrp_swap_limits(const struct cgrp_root *root, const char *path, const char *top,
		     struct cgrp_swap_limits *lim)
{
	char p[PATH_MAX];
	int r;

	if (!root->swap[0])
		return 0;
	if (str_copy(p, sizeof(p), path) < 0)
		return -ENAMETOOLONG;
	for (bool first = true; p[0] && strcmp(p, "/"); first = false) {
		char *slash;

		if (top && !strcmp(p, top))
			break; /* lim holds top's and its ancestors' limits */
		r = swap_limits_of(root, p, lim);
		if (r == -ENOENT && !first)
			break; /* an ancestor outside what libcgroup sees */
		if (r < 0)
			return r;
		slash = strrchr(p, '/');
		if (!slash)
			break;
		*slash = '\0';
	}
	return 0;
}

uint64_t cgrp_swap_limits_room(const struct cgrp_swap_limits *lim)
{
	/*
	 * Without writeback a folio zswap cannot store is not written to the swap device but
	 * activated again [6.12 mm/page_io.c swap_writepage]: zswap's room is all there is.
	 */
	return lim->no_writeback && lim->zswap < lim->swap ? lim->zswap : lim->swap;
}

int cgrp_swap_room(const struct cgrp_root *root, const char *path, uint64_t *ret)
{
	struct cgrp_swap_limits lim = CGRP_SWAP_LIMITS_NONE;
	int r = cgrp_swap_limits(root, path, NULL, &lim);

	*ret = r < 0 ? UINT64_MAX : cgrp_swap_limits_room(&lim);
	return r < 0 ? r : 0;
}

int cgrp_frozen_parse(int version, const char *buf, size_t len)
{
	char tmp[256];
	const char *f;

	if (len >= sizeof(tmp))
		len = sizeof(tmp) - 1;
	memcpy(tmp, buf, len);
	tmp[len] = '\0';
	if (version == 1) {
		const char *t = str_strip(tmp);

		if (!strcmp(t, "FROZEN"))
			return 1;
		return !strcmp(t, "THAWED") || !strcmp(t, "FREEZING") ? 0 : -EINVAL;
	}
	for (f = tmp; (f = strstr(f, "frozen ")); f++)
		if (f == tmp || f[-1] == '\n')
			return f[7] == '1';
	return -EOPNOTSUPP;
}

/* v1: freezer.state of path in the freezer hierarchy, or of its nearest ancestor there. */
static int frozen_v1(const struct cgrp_root *root, const char *path)
{
	char p[PATH_MAX], full[PATH_MAX * 2 + 16], buf[32];
	ssize_t n;
	char *slash;

	if (!root->freezer[0])
		return -EOPNOTSUPP;
	str_copy(p, sizeof(p), path);
	for (;;) {
		/* the root of a v1 hierarchy has no freezer.state: it is never frozen */
		if (!p[0] || !strcmp(p, "/"))
			return 0;
		snprintf(full, sizeof(full), "%s%s/freezer.state", root->freezer, p);
		n = read_file_at(AT_FDCWD, full, buf, sizeof(buf));
		if (n >= 0)
			return cgrp_frozen_parse(1, buf, (size_t)n);
		if (n != -ENOENT && n != -ENODEV)
			return (int)n;
		slash = strrchr(p, '/');
		*slash = '\0';
	}
}

int cgrp_frozen(const struct cgrp_root *root, const char *path)
{
	char buf[256];
	int r;

	if (root->version == 1)
		return frozen_v1(root, path);
	r = read_value(root, path, "cgroup.events", buf, sizeof(buf));
	if (r < 0)
		return r;
	/* every live cgroup's events hold "populated"; one being removed may read empty */
	if (r == 0)
		return -ENOENT;
	return cgrp_frozen_parse(2, buf, (size_t)r);
}

int cgrp_watch_new(void)
{
	int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int cgrp_watch_add(const struct cgrp_root *root, int fd, const char *path)
{
	char full[PATH_MAX * 2 + 16];

	if (root->version == 1)
		return -EOPNOTSUPP;
	snprintf(full, sizeof(full), "%s%s/cgroup.events", root->mount, path);
	return inotify_add_watch(fd, full, IN_MODIFY) < 0 ? -errno : 0;
}

int cgrp_watch_drain(int fd)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	int n = 0;

	for (;;) {
		ssize_t len = read(fd, buf, sizeof(buf));

		if (len < 0)
			return errno == EAGAIN ? n : -errno;
		if (len == 0)
			return n;
		for (char *p = buf; p < buf + len;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;

			n++;
			p += sizeof(*ev) + ev->len;
		}
	}
}

int cgrp_of_pid(pid_t pid, char *buf, size_t len)
{
	char *p = NULL;
	int r;

	r = ecg_to_errno(cgroup_get_current_controller_path(pid, controller, &p));
	if (r < 0)
		return r;
	r = str_copy(buf, len, p);
	free(p);
	return r;
}
