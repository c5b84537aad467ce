// SPDX-License-Identifier: GPL-2.0-or-later
/* cfgwatch: the configuration's files watched with inotify; the rule is in cfgwatch.h. */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "pageoutd/cfgwatch.h"
#include "pageoutd/log.h"
#include "pageoutd/util.h"

#define WATCH_MASK                                                                                 \
	(IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF |   \
	 IN_MOVE_SELF | IN_ONLYDIR)

void cfgwatch_init(struct cfgwatch *w)
{
	*w = (struct cfgwatch){ .fd = -1, .timer = -1, .wd_file_dir = -1, .wd_dir = -1 };
}

bool cfgwatch_active(const struct cfgwatch *w)
{
	return w->fd >= 0;
}

static bool is_dotdot(const char *name)
{
	return name[0] == '.' && name[1] == '.';
}

bool cfgwatch_relevant(const struct cfgwatch *w, bool in_file_dir, const char *name)
{
	if (is_dotdot(name))
		return true;
	if (in_file_dir)
		return !strcmp(name, w->file_name) ||
		       (w->dir_name[0] && !strcmp(name, w->dir_name));
	return name[0] != '.' && str_has_suffix(name, ".conf");
}

/*
 * Watch path, replacing the watch *wd held before (unless the other one, `other`, is the same
 * watch). A missing directory leaves *wd at -1.
 */
static void rewatch(struct cfgwatch *w, const char *path, int *wd, int other)
{
	int n;

	if (!path[0])
		return;
	n = inotify_add_watch(w->fd, path, WATCH_MASK);
	if (*wd >= 0 && *wd != n && *wd != other)
		inotify_rm_watch(w->fd,
				 *wd); /* the directory was replaced; its IN_IGNORED is not ours */
	if (n < 0 && errno != ENOENT && errno != ENOTDIR)
		log_errno(LOG_WARNING, -errno, "cannot watch %s for configuration changes", path);
	*wd = n < 0 ? -1 : n;
}

static void rewatch_all(struct cfgwatch *w)
{
	rewatch(w, w->file_dir, &w->wd_file_dir, w->wd_dir);
	rewatch(w, w->dir, &w->wd_dir, w->wd_file_dir);
}

/* One event: does it concern the configuration? */
static bool event_relevant(const struct cfgwatch *w, const struct inotify_event *ev)
{
	bool ours = ev->wd == w->wd_file_dir || ev->wd == w->wd_dir;

	if (ev->mask & IN_Q_OVERFLOW)
		return true;
	if (!ours)
		return false; /* a watch replaced by rewatch */
	if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED))
		return true;
	if (!ev->len)
		return false;
	return (ev->wd == w->wd_file_dir && cfgwatch_relevant(w, true, ev->name)) ||
	       (ev->wd == w->wd_dir && cfgwatch_relevant(w, false, ev->name));
}

/* Read every queued event; returns whether one concerns the configuration. */
static bool drain(struct cfgwatch *w)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool changed = false;
	ssize_t n;

	while ((n = read(w->fd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;

			changed |= event_relevant(w, ev);
			p += sizeof(*ev) + ev->len;
		}
	}
	return changed;
}

static int on_inotify(struct loop *l, int fd, uint32_t events, void *data)
{
	struct cfgwatch *w = data;
	bool changed = drain(w);

	(void)l;
	(void)fd;
	(void)events;
	if (changed) {
		w->pending = true;
		loop_timer_set(w->timer, CFGWATCH_SETTLE_US,
			       0); /* from the last event of a burst */
	}
	return 0;
}

static int on_settled(struct loop *l, int fd, uint32_t events, void *data)
{
	struct cfgwatch *w = data;

	(void)l;
	(void)events;
	loop_timer_ack(fd);
	if (!w->pending)
		return 0;
	w->pending = false;
	w->changes++;
	rewatch_all(w); /* before the reload reads: a change after this is seen again */
	w->on_change(w->data);
	return 0;
}

void cfgwatch_reading(struct cfgwatch *w)
{
	if (!cfgwatch_active(w))
		return;
	if (drain(w) || w->pending)
		rewatch_all(w); /* a replaced directory is watched under its new inode */
	w->pending = false;	/* the settle timer, if armed, then reports nothing */
}

/* Split file into its directory and name; dir_name is dir's name when dir lies in that one. */
static void set_paths(struct cfgwatch *w, const char *file, const char *dir)
{
	const char *slash;

	if (file) {
		slash = strrchr(file, '/');
		if (!slash)
			str_copy(w->file_dir, sizeof(w->file_dir), ".");
		else
			snprintf(w->file_dir, sizeof(w->file_dir), "%.*s",
				 slash == file ? 1 : (int)(slash - file), file);
		str_copy(w->file_name, sizeof(w->file_name), slash ? slash + 1 : file);
	}
	if (dir) {
		size_t n = strlen(w->file_dir);

		str_copy(w->dir, sizeof(w->dir), dir);
		while (strlen(w->dir) > 1 && w->dir[strlen(w->dir) - 1] == '/')
			w->dir[strlen(w->dir) - 1] = '\0';
		slash = strrchr(w->dir, '/');
		if (n && slash && (size_t)(slash - w->dir) == n && !strncmp(w->dir, w->file_dir, n))
			str_copy(w->dir_name, sizeof(w->dir_name), slash + 1);
	}
}

int cfgwatch_start(struct cfgwatch *w, struct loop *l, const char *file, const char *dir,
		   cfgwatch_fn on_change, void *data)
{
	int r;

	cfgwatch_init(w);
	w->loop = l;
	w->on_change = on_change;
	w->data = data;
	set_paths(w, file, dir);
	w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (w->fd < 0)
		return -errno;
	w->timer = loop_add_timer(l, CFGWATCH_SETTLE_US, 0, on_settled, w);
	r = w->timer < 0 ? w->timer : loop_add_fd(l, w->fd, EPOLLIN, on_inotify, w);
	if (r < 0) {
		cfgwatch_stop(w);
		return r;
	}
	rewatch_all(w);
	return 0;
}

void cfgwatch_stop(struct cfgwatch *w)
{
	if (w->timer >= 0) {
		loop_del_fd(w->loop, w->timer);
		close(w->timer);
	}
	if (w->fd >= 0) {
		loop_del_fd(w->loop, w->fd);
		close(w->fd);
	}
	w->fd = w->timer = w->wd_file_dir = w->wd_dir = -1;
	w->pending = false;
}
