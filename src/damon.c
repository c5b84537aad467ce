// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damon: DAMON sysfs (mm/damon/sysfs.c, sysfs-schemes.c). Kernel facts used here, checked
 * against 6.12 and 7.2 guests:
 * - writing nr_kdamonds fails with EBUSY while any kdamond runs and recreates every
 *   kdamonds/N directory, so it is written only when no foreign kdamond exists;
 * - nr_* writes rebuild that child array with defaults: a context is always written whole;
 * - a fresh scheme's access pattern is min=max=0 (matches nothing): every bound is written;
 * - tried regions carry no target index: pageoutd writes one scheme per target with a target
 *   filter (damon_target_idx, 6.6+; in core_filters/ on 6.15+), so scheme k lists target k;
 * - update_schemes_tried_regions / update_schemes_stats need a running kdamond (EINVAL);
 * - DAMON_STAT (7.x default on Debian), DAMON_RECLAIM and DAMON_LRU_SORT hold DAMON
 *   exclusively: state=on then fails with EBUSY although nr_kdamonds reads 0.
 */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pageoutd/damon.h"
#include "pageoutd/dmodule.h"
#include "pageoutd/log.h"
#include "pageoutd/sampling.h"
#include "pageoutd/util.h"

/* --- I/O --- */

/*
 * Every DAMON sysfs user shares one mutex taken with trylock (state, pid, memcg_path and the
 * nr_* files): EBUSY is often transient. After the EBUSY of try i, wait and return true, or
 * return false when the tries are used up.
 */
static bool busy_backoff(size_t i)
{
	static const long backoff_ms[] = { 2, 10, 50, 200 };

	if (i >= ARRAY_SIZE(backoff_ms))
		return false;
	nanosleep(&(struct timespec){ .tv_nsec = backoff_ms[i] * 1000000L }, NULL);
	return true;
}

static ssize_t sys_read(void *ctx, int dirfd, const char *path, char *buf, size_t len)
{
	ssize_t r;

	(void)ctx;
	for (size_t i = 0;; i++) {
		r = read_file_at(dirfd, path, buf, len);
		if (r != -EBUSY || !busy_backoff(i))
			return r;
	}
}

static int sys_write(void *ctx, int dirfd, const char *path, const char *val)
{
	int r;

	(void)ctx;
	for (size_t i = 0;; i++) {
		r = write_file_beneath(dirfd, path, val);
		if (r != -EBUSY || !busy_backoff(i))
			return r;
	}
}

const struct damon_io damon_sysfs_io = { .read = sys_read, .write = sys_write };

__attribute__((format(printf, 3, 4))) static const char *mkpath(char *buf, size_t len,
								const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return buf;
}

/*
 * fail: describe a failure in d->err (for the caller to log once, see damon.h) and return r;
 * a negative r appends its strerror, 0 leaves the text as it is.
 */
__attribute__((format(printf, 3, 4))) static int fail(struct damon *d, int r, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(d->err, sizeof(d->err), fmt, ap);
	va_end(ap);
	if (r < 0 && n >= 0 && (size_t)n < sizeof(d->err))
		snprintf(d->err + n, sizeof(d->err) - (size_t)n, ": %s", strerror(-r));
	return r;
}

static int wr(struct damon *d, const char *path, const char *val)
{
	int r;

	if (!path_is_beneath(path))
		return -EPERM;
	d->nr_io++;
	r = d->io.write(d->io.ctx, d->rootfd, path, val);
	if (r < 0) {
		log_debug("damon: write %s = %s: %s", path, val, strerror(-r));
		str_copy(d->err_path, sizeof(d->err_path), path);
	}
	return r;
}

static int wr_u64(struct damon *d, const char *path, uint64_t v)
{
	char b[32];

	snprintf(b, sizeof(b), "%" PRIu64, v);
	return wr(d, path, b);
}

static ssize_t rd(struct damon *d, const char *path, char *buf, size_t len)
{
	if (!path_is_beneath(path))
		return -EPERM;
	d->nr_io++;
	return d->io.read(d->io.ctx, d->rootfd, path, buf, len);
}

int damon_parse_u64(const char *buf, size_t len, uint64_t *ret)
{
	char tmp[32];

	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		len--;
	if (!len || len >= sizeof(tmp))
		return -EINVAL;
	memcpy(tmp, buf, len);
	tmp[len] = '\0';
	if (tmp[0] != '-')
		return parse_u64(tmp, ret);
	if (strcmp(tmp, "-1")) /* pid reads -1 when off; no other figure is negative */
		return -EINVAL;
	*ret = UINT64_MAX;
	return 0;
}

static int rd_u64(struct damon *d, const char *path, uint64_t *ret)
{
	char b[32];
	ssize_t n = rd(d, path, b, sizeof(b));

	if (n < 0)
		return (int)n;
	return damon_parse_u64(b, (size_t)n, ret);
}

/* An optional figure: UINT64_MAX (unknown) when it cannot be read. */
static void rd_u64_or_unknown(struct damon *d, const char *path, uint64_t *ret)
{
	if (rd_u64(d, path, ret) < 0)
		*ret = UINT64_MAX;
}

static int rd_str(struct damon *d, const char *path, char *buf, size_t len)
{
	ssize_t n = rd(d, path, buf, len);

	if (n < 0)
		return (int)n;
	str_strip(buf);
	memmove(buf, str_strip(buf), strlen(str_strip(buf)) + 1);
	return 0;
}

static bool path_exists(struct damon *d, const char *path)
{
	struct stat st;

	d->nr_io++;
	return fstatat(d->rootfd, path, &st, 0) == 0;
}

/* --- open, ownership --- */

int damon_open(struct damon *d, const char *root, const char *state_dir, const struct damon_io *io)
{
	const char *suffix = "/kernel/mm/damon/admin";
	size_t n;

	memset(d, 0, sizeof(*d));
	d->rootfd = -1;
	d->io = io ? *io : damon_sysfs_io;
	for (unsigned i = 0; i < DAMON_MAX_KDAMONDS; i++)
		d->kpid[i] = -1;
	str_copy(d->root, sizeof(d->root), root);
	snprintf(d->state_file, sizeof(d->state_file), "%s/damon.state", state_dir);
	/* the module parameters live beside the tree: <sys>/kernel/mm/damon/admin -> <sys>/module */
	n = strlen(root);
	if (n > strlen(suffix) && !strcmp(root + n - strlen(suffix), suffix))
		snprintf(d->module_dir, sizeof(d->module_dir), "%.*s/module",
			 (int)(n - strlen(suffix)), root);
	d->rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (d->rootfd < 0) {
		int r = -errno;

		fail(d, 0,
		     "DAMON sysfs not found at %s: %s (the kernel needs CONFIG_DAMON_SYSFS, 5.18+)",
		     root, strerror(-r));
		return r == -ENOENT ? -ENODEV : r;
	}
	if (!path_exists(d, "kdamonds/nr_kdamonds")) {
		fail(d, 0, "%s has no kdamonds/nr_kdamonds: not a DAMON sysfs admin directory",
		     root);
		close(d->rootfd);
		d->rootfd = -1;
		return -ENODEV;
	}
	return 0;
}

void damon_close(struct damon *d)
{
	if (d->rootfd >= 0)
		close(d->rootfd);
	d->rootfd = -1;
}

int damon_list(struct damon *d, struct damon_kdamond_info *ret, unsigned max)
{
	char p[128], st[16];
	uint64_t n, v;
	int r;

	r = rd_u64(d, "kdamonds/nr_kdamonds", &n);
	if (r < 0)
		return r;
	for (unsigned i = 0; i < n && i < max; i++) {
		struct damon_kdamond_info *k = &ret[i];

		memset(k, 0, sizeof(*k));
		k->idx = i;
		k->pid = -1;
		if (rd_str(d, mkpath(p, sizeof(p), "kdamonds/%u/state", i), st, sizeof(st)) == 0)
			k->running = !strcmp(st, "on");
		if (rd_u64(d, mkpath(p, sizeof(p), "kdamonds/%u/pid", i), &v) == 0 &&
		    v != UINT64_MAX)
			k->pid = (pid_t)v;
		if (rd_u64(d, mkpath(p, sizeof(p), "kdamonds/%u/contexts/nr_contexts", i), &v) ==
			    0 &&
		    v > 0 &&
		    rd_str(d, mkpath(p, sizeof(p), "kdamonds/%u/contexts/0/operations", i), k->ops,
			   sizeof(k->ops)) < 0)
			k->ops[0] = '\0';
		if (!k->ops[0])
			str_copy(k->ops, sizeof(k->ops), "none");
	}
	return (int)(n < max ? n : max);
}

/*
 * The state file: "pageoutd_pid=P\nnr_kdamonds=N\nkdamond=I kpid=K\n...", then one
 * "released_module=NAME" line per kernel module pageoutd turned off.
 */
struct owned_record {
	bool valid;
	pid_t daemon_pid;
	unsigned nr_kdamonds;
	int kpid[DAMON_MAX_KDAMONDS];
	unsigned released; /* bit i: dmodule i */
};

static void read_record(struct damon *d, struct owned_record *rec)
{
	char buf[512], *line, *save;
	ssize_t n = read_file_at(AT_FDCWD, d->state_file, buf, sizeof(buf));

	memset(rec, 0, sizeof(*rec));
	for (unsigned i = 0; i < DAMON_MAX_KDAMONDS; i++)
		rec->kpid[i] = -1;
	if (n <= 0)
		return;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned idx;
		int pid;

		for (unsigned i = 0; i < DMODULE_NR; i++)
			if (!strncmp(line, "released_module=", 16) &&
			    !strcmp(line + 16, dmodule_name(i)))
				rec->released |= 1u << i;

		if (sscanf(line, "pageoutd_pid=%d", &pid) == 1)
			rec->daemon_pid = pid;
		else if (sscanf(line, "nr_kdamonds=%u", &rec->nr_kdamonds) == 1)
			rec->valid = true;
		else if (sscanf(line, "kdamond=%u kpid=%d", &idx, &pid) == 2 &&
			 idx < DAMON_MAX_KDAMONDS)
			rec->kpid[idx] = pid;
	}
}

static int write_record(struct damon *d)
{
	char buf[1024], tmp[PATH_MAX + 8];
	int len, fd, r = 0;

	len = snprintf(buf, sizeof(buf),
		       "# kdamonds owned by pageoutd; read at start to recover them\n"
		       "pageoutd_pid=%d\nnr_kdamonds=%u\n",
		       (int)getpid(), d->nr_kdamonds);
	for (unsigned i = 0; i < DAMON_MAX_KDAMONDS; i++)
		len += snprintf(buf + len, sizeof(buf) - (size_t)len, "kdamond=%u kpid=%d\n", i,
				d->kpid[i]);
	for (unsigned i = 0; i < DMODULE_NR; i++)
		if (d->released & (1u << i))
			len += snprintf(buf + len, sizeof(buf) - (size_t)len,
					"released_module=%s\n", dmodule_name(i));
	snprintf(tmp, sizeof(tmp), "%s.tmp", d->state_file);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return fail(d, -errno, "state file %s", tmp);
	{
		ssize_t w = write(fd, buf, (size_t)len);

		if (w != len)
			r = w < 0 ? -errno : -ENOSPC;
		else if (fsync(fd) < 0)
			r = -errno;
	}
	close(fd);
	if (r == 0 && rename(tmp, d->state_file) < 0)
		r = -errno;
	if (r < 0) {
		unlink(tmp); /* no partial file left in a full directory */
		return fail(d, r, "state file %s", d->state_file);
	}
	log_cond_clear(&d->record_cond);
	return 0;
}

/*
 * after a kdamond started or stopped: the record follows, or says once why it cannot.
 * Returns 0 or the -errno of the write.
 */
static int record_after_change(struct damon *d)
{
	int r = write_record(d);

	if (r < 0)
		log_cond_set(
			&d->record_cond, LOG_ERR,
			"%s: the kdamonds pageoutd owns are not recorded, so a pageoutd "
			"restarted after a crash would not take them back (retried each cycle)",
			d->err);
	return r;
}

int damon_sync_record(struct damon *d)
{
	return d->owned && log_cond_text(&d->record_cond) ? record_after_change(d) : 0;
}

const char *damon_record_error(const struct damon *d)
{
	return log_cond_text(&d->record_cond);
}

static bool pid_is_other_pageoutd(pid_t pid)
{
	char p[64], comm[32] = "";
	ssize_t n;

	if (pid <= 0 || pid == getpid() || kill(pid, 0) < 0)
		return false;
	snprintf(p, sizeof(p), "/proc/%d/comm", (int)pid);
	n = read_file_at(AT_FDCWD, p, comm, sizeof(comm));
	return n > 0 && !strcmp(str_strip(comm), "pageoutd");
}

/* One line: the first foreign kdamond, how many there are, and what to do. */
static int explain_foreign(struct damon *d, const struct damon_kdamond_info *k, unsigned n)
{
	char more[32] = "";

	if (n > 1)
		snprintf(more, sizeof(more), " and %u more", n - 1);
	return fail(d, 0,
		    "kdamond %u (pid %d, state %s, operations %s)%s under %s is not pageoutd's: "
		    "pageoutd does not turn off, rewrite or renumber it; stop the tool that owns "
		    "it (damo stop, its service) or write 0 to kdamonds/nr_kdamonds if it is stale",
		    k[0].idx, (int)k[0].pid, k[0].running ? "on" : "off", k[0].ops, more, d->root),
	       -EBUSY;
}

/* Are the kdamonds in the tree the ones the record says we own? */
static bool record_matches(struct damon *d, const struct owned_record *rec,
			   const struct damon_kdamond_info *k, unsigned n)
{
	if (!rec->valid || rec->nr_kdamonds != n || n != DAMON_MAX_KDAMONDS)
		return false;
	for (unsigned i = 0; i < n; i++) {
		/* a running kdamond must be the very kernel thread we started */
		if (k[i].running && (rec->kpid[i] < 0 || k[i].pid != rec->kpid[i]))
			return false;
	}
	(void)d;
	return true;
}

static int detect_features(struct damon *d);
static int restore_modules(struct damon *d);

int damon_acquire(struct damon *d)
{
	struct damon_kdamond_info k[16];
	struct owned_record rec;
	char p[64];
	int n, r;

	read_record(d, &rec);
	if (pid_is_other_pageoutd(rec.daemon_pid)) {
		return fail(d, 0, "another pageoutd (pid %d) owns the kdamonds recorded in %s",
			    (int)rec.daemon_pid, d->state_file),
		       -EEXIST;
	}
	n = damon_list(d, k, ARRAY_SIZE(k));
	if (n < 0)
		return fail(d, n, "reading %s/kdamonds/nr_kdamonds", d->root);
	/* modules an earlier pageoutd turned off are turned back on by this one's release */
	d->released = rec.released;
	if (n > 0 && record_matches(d, &rec, k, (unsigned)n)) {
		log_notice("recovering %d kdamonds left by pageoutd pid %d (recorded in %s)", n,
			   (int)rec.daemon_pid, d->state_file);
		d->nr_kdamonds = (unsigned)n;
		d->owned = true;
		for (int i = 0; i < n; i++) {
			d->kpid[i] = k[i].running ? k[i].pid : -1;
			if (k[i].running) {
				r = damon_stop(d, (unsigned)i);
				if (r < 0)
					return r;
			}
		}
	} else if (n > 0) {
		return explain_foreign(d, k, (unsigned)n);
	} else {
		r = wr(d, "kdamonds/nr_kdamonds", "2");
		if (r < 0)
			return fail(d, r, "creating kdamonds under %s: writing %s", d->root,
				    d->err_path);
		d->nr_kdamonds = DAMON_MAX_KDAMONDS;
		d->owned = true;
	}
	r = write_record(d);
	if (r < 0)
		return r;
	for (unsigned i = 0; i < DAMON_MAX_KDAMONDS; i++) {
		r = wr(d, mkpath(p, sizeof(p), "kdamonds/%u/contexts/nr_contexts", i), "1");
		if (r < 0)
			return fail(d, r, "kdamond %u: writing %s", i, d->err_path);
	}
	return detect_features(d);
}

int damon_release(struct damon *d)
{
	int r = 0;

	if (!d->owned)
		return 0;
	memset(d->refresh_ms, 0, sizeof(d->refresh_ms));
	for (unsigned i = 0; i < d->nr_kdamonds; i++) {
		int k = damon_running(d, i);

		if (k >= 0)
			k = damon_stop(d, i);
		if (k < 0 && k != -ENOENT && r == 0)
			r = k;
	}
	/* give the slots back so that the next start (or another tool) finds an empty tree;
	 * every kdamond there is ours: acquire refused to share the tree */
	if (r == 0)
		r = wr(d, "kdamonds/nr_kdamonds", "0");
	/* a module can take DAMON again only once no kdamond of ours runs */
	if (r == 0)
		r = restore_modules(d);
	if (r == 0 && unlink(d->state_file) < 0 && errno != ENOENT)
		log_errno(LOG_WARNING, -errno, "removing %s", d->state_file);
	else if (r < 0)
		log_errno(LOG_ERR, r, "releasing the kdamonds under %s (the record in %s stays)",
			  d->root, d->state_file);
	d->owned = false;
	return r;
}

/* --- features --- */

static int detect_features(struct damon *d)
{
	struct damon_features *f = &d->feat;
	const char *c = "kdamonds/0/contexts/0";
	char p[192], ops[128];
	int r;

	memset(f, 0, sizeof(*f));
	d->err_path[0] = '\0'; /* a probe that fails on a read names no file */
	if (rd_str(d, mkpath(p, sizeof(p), "%s/avail_operations", c), ops, sizeof(ops)) == 0) {
		f->ops_vaddr = strstr(ops, "vaddr") != NULL;
		f->ops_fvaddr = strstr(ops, "fvaddr") != NULL;
		f->ops_paddr = strstr(ops, "paddr") != NULL;
	} else {
		/* 5.18 has no avail_operations: it has vaddr and paddr if DAMON_VADDR/PADDR */
		f->ops_vaddr = f->ops_paddr = true;
	}
	f->intervals_goal = path_exists(
		d, mkpath(p, sizeof(p), "%s/monitoring_attrs/intervals/intervals_goal", c));
	f->refresh_ms = path_exists(d, "kdamonds/0/refresh_ms");
	f->pause = path_exists(d, mkpath(p, sizeof(p), "%s/pause", c));
	f->commit_keeps_clock = path_exists(d, mkpath(p, sizeof(p), "%s/addr_unit", c));
	/* stage one target, scheme, filter and goal to see their files; rewritten before use */
	r = wr(d, mkpath(p, sizeof(p), "%s/targets/nr_targets", c), "1");
	if (r == 0)
		f->obsolete_target =
			path_exists(d, mkpath(p, sizeof(p), "%s/targets/0/obsolete_target", c));
	r = r ?: wr(d, mkpath(p, sizeof(p), "%s/schemes/nr_schemes", c), "1");
	if (r < 0)
		return fail(d, r, "probing DAMON features under %s: %s", d->root, d->err_path);
	c = "kdamonds/0/contexts/0/schemes/0";
	f->apply_interval = path_exists(d, mkpath(p, sizeof(p), "%s/apply_interval_us", c));
	f->tried_total_bytes =
		path_exists(d, mkpath(p, sizeof(p), "%s/tried_regions/total_bytes", c));
	f->sz_ops_filter_passed =
		path_exists(d, mkpath(p, sizeof(p), "%s/stats/sz_ops_filter_passed", c));
	f->effective_bytes = path_exists(d, mkpath(p, sizeof(p), "%s/quotas/effective_bytes", c));
	f->core_filters = path_exists(d, mkpath(p, sizeof(p), "%s/core_filters", c));
	f->filters_legacy = path_exists(d, mkpath(p, sizeof(p), "%s/filters", c));
	f->quota_goals = path_exists(d, mkpath(p, sizeof(p), "%s/quotas/goals", c));
	f->goal_tuner = path_exists(d, mkpath(p, sizeof(p), "%s/quotas/goal_tuner", c));
	f->fail_charge = path_exists(d, mkpath(p, sizeof(p), "%s/quotas/fail_charge_denom", c));
	if (f->core_filters || f->filters_legacy) {
		const char *dir = f->core_filters ? "core_filters" : "filters";

		r = wr(d, mkpath(p, sizeof(p), "%s/%s/nr_filters", c, dir), "1");
		if (r < 0)
			return fail(d, r, "probing DAMON scheme filters under %s: %s", d->root,
				    d->err_path);
		f->filter_target =
			path_exists(d, mkpath(p, sizeof(p), "%s/%s/0/damon_target_idx", c, dir));
		f->filter_allow = path_exists(d, mkpath(p, sizeof(p), "%s/%s/0/allow", c, dir));
		r = wr(d, mkpath(p, sizeof(p), "%s/%s/nr_filters", c, dir), "0");
		if (r < 0)
			return fail(d, r, "probing DAMON scheme filters under %s: %s", d->root,
				    d->err_path);
	}
	if (f->quota_goals) {
		r = wr(d, mkpath(p, sizeof(p), "%s/quotas/goals/nr_goals", c), "1");
		if (r == 0)
			f->goal_metric = path_exists(
				d, mkpath(p, sizeof(p), "%s/quotas/goals/0/target_metric", c));
		if (r == 0)
			f->goal_memcg =
				path_exists(d, mkpath(p, sizeof(p), "%s/quotas/goals/0/path", c));
		r = r ?: wr(d, mkpath(p, sizeof(p), "%s/quotas/goals/nr_goals", c), "0");
		if (r < 0)
			return fail(d, r, "probing DAMON quota goals under %s: %s", d->root,
				    d->err_path);
	}
	f->detected = true;
	log_info("DAMON at %s: operations%s%s%s, filters %s%s%s, quota goals %s%s, apply_interval "
		 "%s, "
		 "total_bytes %s, sz_ops_filter_passed %s, intervals tuning %s, obsolete_target %s",
		 d->root, f->ops_vaddr ? " vaddr" : "", f->ops_fvaddr ? " fvaddr" : "",
		 f->ops_paddr ? " paddr" : "",
		 f->core_filters     ? "core_filters+ops_filters"
		 : f->filters_legacy ? "filters"
				     : "none",
		 f->filter_target ? " (target)" : "", f->filter_allow ? " (allow)" : "",
		 f->goal_metric	  ? "with metrics"
		 : f->quota_goals ? "user feedback only"
				  : "no",
		 f->goal_tuner ? " and tuners" : "", f->apply_interval ? "yes" : "no",
		 f->tried_total_bytes ? "yes" : "no", f->sz_ops_filter_passed ? "yes" : "no",
		 f->intervals_goal ? "yes" : "no", f->obsolete_target ? "yes" : "no");
	log_info("DAMON at %s: failed-region charge ratio %s, context pause %s", d->root,
		 f->fail_charge ? "yes" : "no", f->pause ? "yes" : "no");
	return 0;
}

const char *damon_features_str(const struct damon_features *f, char *buf, size_t len)
{
	const struct {
		bool on;
		const char *name;
	} t[] = {
		{ f->ops_vaddr, "vaddr" },
		{ f->ops_fvaddr, "fvaddr" },
		{ f->ops_paddr, "paddr" },
		{ f->filters_legacy, "filters" },
		{ f->filter_target, "target_filter" },
		{ f->core_filters, "core_filters" },
		{ f->filter_allow, "allow" },
		{ f->quota_goals, "quota_goals" },
		{ f->goal_metric, "goal_metric" },
		{ f->effective_bytes, "effective_bytes" },
		{ f->apply_interval, "apply_interval" },
		{ f->tried_total_bytes, "total_bytes" },
		{ f->sz_ops_filter_passed, "sz_ops_filter_passed" },
		{ f->intervals_goal, "intervals_goal" },
		{ f->obsolete_target, "obsolete_target" },
		{ f->refresh_ms, "refresh_ms" },
		{ f->goal_tuner, "goal_tuner" },
		{ f->goal_memcg, "goal_memcg" },
		{ f->fail_charge, "fail_charge" },
		{ f->pause, "pause" },
		{ f->commit_keeps_clock, "commit_keeps_clock" },
	};
	size_t n = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		int w;

		if (!t[i].on)
			continue;
		w = snprintf(buf + n, len - n, "%s%s", n ? " " : "", t[i].name);
		if (w < 0 || (size_t)w >= len - n) {
			buf[n] = '\0'; /* whole names only */
			break;
		}
		n += (size_t)w;
	}
	if (!n)
		snprintf(buf, len, "none");
	return buf;
}

/* --- writing a context --- */

static const char *filter_type_name(enum damon_filter_type t)
{
	switch (t) {
	case DAMON_FILTER_TARGET:
		return "target";
	case DAMON_FILTER_MEMCG:
		return "memcg";
	case DAMON_FILTER_ANON:
		return "anon";
	case DAMON_FILTER_ADDR:
	default:
		return "addr";
	}
}

static bool filter_is_core(enum damon_filter_type t)
{
	return t == DAMON_FILTER_TARGET || t == DAMON_FILTER_ADDR;
}

/* Write the filters of one layer ("core" or "ops") into dir; legacy: all into filters/. */
static int write_filters(struct damon *d, const char *s, const char *dir,
			 const struct damon_scheme *sc, int layer)
{
	char p[256];
	unsigned n = 0;
	int r;

	for (unsigned i = 0; i < sc->nr_filters; i++)
		if (layer < 0 || filter_is_core(sc->filters[i].type) == (layer == 1))
			n++;
	r = wr_u64(d, mkpath(p, sizeof(p), "%s/%s/nr_filters", s, dir), n);
	for (unsigned i = 0, j = 0; r == 0 && i < sc->nr_filters; i++) {
		const struct damon_filter *f = &sc->filters[i];
		char fp[224];

		if (!(layer < 0 || filter_is_core(f->type) == (layer == 1)))
			continue;
		mkpath(fp, sizeof(fp), "%s/%s/%u", s, dir, j++);
		r = wr(d, mkpath(p, sizeof(p), "%s/type", fp), filter_type_name(f->type));
		r = r ?: wr(d, mkpath(p, sizeof(p), "%s/matching", fp), f->matching ? "Y" : "N");
		if (r == 0 && d->feat.filter_allow)
			r = wr(d, mkpath(p, sizeof(p), "%s/allow", fp), f->allow ? "Y" : "N");
		if (r == 0 && f->type == DAMON_FILTER_TARGET)
			r = wr_u64(d, mkpath(p, sizeof(p), "%s/damon_target_idx", fp),
				   f->target_idx);
		if (r == 0 && f->type == DAMON_FILTER_MEMCG)
			r = wr(d, mkpath(p, sizeof(p), "%s/memcg_path", fp), f->memcg_path);
		if (r == 0 && f->type == DAMON_FILTER_ADDR) {
			r = wr_u64(d, mkpath(p, sizeof(p), "%s/addr_start", fp), f->addr_start);
			r = r ?: wr_u64(d, mkpath(p, sizeof(p), "%s/addr_end", fp), f->addr_end);
		}
	}
	return r;
}

static int check_scheme_features(struct damon *d, const struct damon_scheme *sc)
{
	for (unsigned i = 0; i < sc->nr_filters; i++) {
		enum damon_filter_type t = sc->filters[i].type;

		if (!d->feat.core_filters && !d->feat.filters_legacy) {
			return fail(d, 0,
				    "this kernel's DAMON has no scheme filters (Linux 6.3+ "
				    "needed)"),
			       -EOPNOTSUPP;
		}
		if (filter_is_core(t) && !d->feat.filter_target) {
			return fail(d, 0,
				    "this kernel's DAMON has no %s filter (damon_target_idx, Linux "
				    "6.6+ needed to attribute regions to processes)",
				    filter_type_name(t)),
			       -EOPNOTSUPP;
		}
		if (!d->feat.filter_allow && sc->filters[i].allow) {
			return fail(d, 0,
				    "this kernel's DAMON filters cannot allow, only exclude "
				    "(Linux 6.14+)"),
			       -EOPNOTSUPP;
		}
	}
	if (sc->nr_goals && !d->feat.goal_metric) {
		return fail(d, 0, "this kernel's DAMON has no quota goal metrics (Linux 6.9+)"),
		       -EOPNOTSUPP;
	}
	for (unsigned g = 0; g < sc->nr_goals; g++)
		if (sc->goals[g].path[0] && !d->feat.goal_memcg)
			return fail(d, 0,
				    "this kernel's DAMON has no per-cgroup quota goals "
				    "(node_memcg_free_bp, Linux 6.19+)"),
			       -EOPNOTSUPP;
	return 0;
}

static int write_pattern(struct damon *d, const char *s, const struct damon_access_pattern *ap)
{
	char p[256];
	int r;

	/* max first: the kernel validates only at commit, but keep min <= max at every step */
	r = wr_u64(d, mkpath(p, sizeof(p), "%s/access_pattern/sz/max", s), ap->sz_max);
	r = r ?: wr_u64(d, mkpath(p, sizeof(p), "%s/access_pattern/sz/min", s), ap->sz_min);
	r = r
		    ?: wr_u64(d, mkpath(p, sizeof(p), "%s/access_pattern/nr_accesses/max", s),
			      ap->nr_accesses_max);
	r = r
		    ?: wr_u64(d, mkpath(p, sizeof(p), "%s/access_pattern/nr_accesses/min", s),
			      ap->nr_accesses_min);
	r = r ?: wr_u64(d, mkpath(p, sizeof(p), "%s/access_pattern/age/max", s), ap->age_max);
	r = r ?: wr_u64(d, mkpath(p, sizeof(p), "%s/access_pattern/age/min", s), ap->age_min);
	return r;
}

/* The node and memcg of a node_memcg_* goal (6.19): only goals with a path have them. */
static int write_goal_memcg(struct damon *d, const char *s, unsigned g,
			    const struct damon_goal *goal)
{
	char p[256], nid[16];
	int r;

	if (!goal->path[0])
		return 0;
	snprintf(nid, sizeof(nid), "%d", goal->nid);
	r = wr(d, mkpath(p, sizeof(p), "%s/quotas/goals/%u/nid", s, g), nid);
	return r ?: wr(d, mkpath(p, sizeof(p), "%s/quotas/goals/%u/path", s, g), goal->path);
}

static int write_quotas(struct damon *d, const char *s, const struct damon_scheme *sc)
{
	char p[256];
	int r;

	r = wr_u64(d, mkpath(p, sizeof(p), "%s/quotas/ms", s), sc->quota_ms);
	r = r ?: wr_u64(d, mkpath(p, sizeof(p), "%s/quotas/bytes", s), sc->quota_bytes);
	r = r
		    ?: wr_u64(d, mkpath(p, sizeof(p), "%s/quotas/reset_interval_ms", s),
			      sc->quota_reset_ms);
	r = r ?: wr_u64(d, mkpath(p, sizeof(p), "%s/quotas/weights/sz_permil", s), sc->weight_sz);
	r = r
		    ?: wr_u64(d, mkpath(p, sizeof(p), "%s/quotas/weights/nr_accesses_permil", s),
			      sc->weight_nr_accesses);
	r = r ?: wr_u64(d, mkpath(p, sizeof(p), "%s/quotas/weights/age_permil", s), sc->weight_age);
	if (r == 0 && d->feat.goal_tuner && sc->goal_tuner[0])
		r = wr(d, mkpath(p, sizeof(p), "%s/quotas/goal_tuner", s), sc->goal_tuner);
	if (r == 0 && d->feat.quota_goals)
		r = wr_u64(d, mkpath(p, sizeof(p), "%s/quotas/goals/nr_goals", s), sc->nr_goals);
	for (unsigned g = 0; r == 0 && g < sc->nr_goals; g++) {
		r = wr(d, mkpath(p, sizeof(p), "%s/quotas/goals/%u/target_metric", s, g),
		       sc->goals[g].metric);
		r = r
			    ?: wr_u64(d,
				      mkpath(p, sizeof(p), "%s/quotas/goals/%u/target_value", s, g),
				      sc->goals[g].target_value);
		r = r
			    ?: wr_u64(d,
				      mkpath(p, sizeof(p), "%s/quotas/goals/%u/current_value", s,
					     g),
				      sc->goals[g].current_value);
		r = r ?: write_goal_memcg(d, s, g, &sc->goals[g]);
	}
	return r;
}

/* 7.3: the charge ratio of the bytes the action failed on; nothing where the kernel lacks it */
static int write_fail_charge(struct damon *d, const char *s, const struct damon_scheme *sc)
{
	char p[256];
	int r;

	if (!d->feat.fail_charge)
		return 0;
	/* denominator first: a numerator over a 0 denominator is ignored by the kernel anyway */
	r = wr_u64(d, mkpath(p, sizeof(p), "%s/quotas/fail_charge_denom", s),
		   sc->fail_charge_denom);
	r = r
		    ?: wr_u64(d, mkpath(p, sizeof(p), "%s/quotas/fail_charge_num", s),
			      sc->fail_charge_num);
	return r;
}

static int write_watermarks(struct damon *d, const char *s, const struct damon_scheme *sc)
{
	char p[256];
	int r;

	r = wr(d, mkpath(p, sizeof(p), "%s/watermarks/metric", s),
	       sc->wmark_free_mem_rate ? "free_mem_rate" : "none");
	r = r
		    ?: wr_u64(d, mkpath(p, sizeof(p), "%s/watermarks/interval_us", s),
			      sc->wmark_interval_us);
	r = r ?: wr_u64(d, mkpath(p, sizeof(p), "%s/watermarks/high", s), sc->wmark_high);
	r = r ?: wr_u64(d, mkpath(p, sizeof(p), "%s/watermarks/mid", s), sc->wmark_mid);
	r = r ?: wr_u64(d, mkpath(p, sizeof(p), "%s/watermarks/low", s), sc->wmark_low);
	return r;
}

static int write_scheme(struct damon *d, const char *c, unsigned i, const struct damon_scheme *sc)
{
	char s[160], p[256];
	int r;

	mkpath(s, sizeof(s), "%s/schemes/%u", c, i);
	r = wr(d, mkpath(p, sizeof(p), "%s/action", s), sc->action);
	if (r == 0 && d->feat.apply_interval)
		r = wr_u64(d, mkpath(p, sizeof(p), "%s/apply_interval_us", s),
			   sc->apply_interval_us);
	r = r ?: write_pattern(d, s, &sc->pattern);
	r = r ?: write_quotas(d, s, sc);
	r = r ?: write_fail_charge(d, s, sc);
	r = r ?: write_watermarks(d, s, sc);
	if (r == 0 && d->feat.core_filters) {
		r = write_filters(d, s, "core_filters", sc, 1);
		r = r ?: write_filters(d, s, "ops_filters", sc, 0);
	} else if (r == 0 && d->feat.filters_legacy) {
		r = write_filters(d, s, "filters", sc, -1);
	}
	return r;
}

static int write_targets(struct damon *d, const char *c, const struct damon_ctx *ctx)
{
	char p[256];
	int r;

	r = wr_u64(d, mkpath(p, sizeof(p), "%s/targets/nr_targets", c), ctx->nr_targets);
	for (unsigned t = 0; r == 0 && t < ctx->nr_targets; t++) {
		const struct damon_target *tg = &ctx->targets[t];

		if (strcmp(ctx->ops, "paddr"))
			r = wr_u64(d, mkpath(p, sizeof(p), "%s/targets/%u/pid_target", c, t),
				   (uint64_t)tg->pid);
		/* the default after nr_targets is N: only an obsolete target is written */
		if (r == 0 && tg->obsolete)
			r = wr(d, mkpath(p, sizeof(p), "%s/targets/%u/obsolete_target", c, t), "Y");
		r = r
			    ?: wr_u64(d,
				      mkpath(p, sizeof(p), "%s/targets/%u/regions/nr_regions", c,
					     t),
				      tg->nr_regions);
		for (unsigned k = 0; r == 0 && k < tg->nr_regions; k++) {
			r = wr_u64(d,
				   mkpath(p, sizeof(p), "%s/targets/%u/regions/%u/start", c, t, k),
				   tg->regions[k].start);
			r = r
				    ?: wr_u64(d,
					      mkpath(p, sizeof(p), "%s/targets/%u/regions/%u/end",
						     c, t, k),
					      tg->regions[k].end);
		}
	}
	return r;
}

/* -EOPNOTSUPP (d->err says why) for an obsolete target on a kernel without obsolete_target. */
static int check_target_features(struct damon *d, const struct damon_ctx *ctx)
{
	for (unsigned t = 0; t < ctx->nr_targets; t++)
		if (ctx->targets[t].obsolete && !d->feat.obsolete_target)
			return fail(d, 0,
				    "this kernel's DAMON cannot drop a target in place "
				    "(obsolete_target, Linux 6.19+)"),
			       -EOPNOTSUPP;
	return 0;
}

int damon_write_targets(struct damon *d, unsigned slot, const struct damon_ctx *ctx)
{
	char c[64];
	int r;

	if (!d->owned || slot >= d->nr_kdamonds)
		return -EPERM; /* never write a kdamond we do not own */
	r = check_target_features(d, ctx);
	if (r < 0)
		return r;
	mkpath(c, sizeof(c), "kdamonds/%u/contexts/0", slot);
	r = write_targets(d, c, ctx);
	if (r < 0)
		return fail(d, r, "kdamond %u: writing the %s targets: %s", slot, ctx->ops,
			    d->err_path);
	return 0;
}

/*
 * The kernel's interval tuner of context c (6.15+): on between ctx->sample_us and
 * ctx->tune_max_sample_us, or off (aggrs 0) where that is 0. Written every time: a kdamond
 * pageoutd took over may hold another owner's goal.
 */
static int write_intervals_goal(struct damon *d, const char *c, const struct damon_ctx *ctx)
{
	bool on = ctx->tune_max_sample_us > ctx->sample_us;
	char p[PATH_MAX], g[PATH_MAX];

	mkpath(g, sizeof(g), "%s/monitoring_attrs/intervals/intervals_goal", c);
	return wr_u64(d, mkpath(p, sizeof(p), "%s/access_bp", g), on ? SAMPLING_TUNE_ACCESS_BP : 0)
		       ?: wr_u64(d, mkpath(p, sizeof(p), "%s/aggrs", g), on ? SAMPLING_TUNE_AGGRS : 0)
		       ?: wr_u64(d, mkpath(p, sizeof(p), "%s/min_sample_us", g),
				 on ? ctx->sample_us : 0)
		       ?: wr_u64(d, mkpath(p, sizeof(p), "%s/max_sample_us", g),
				 on ? ctx->tune_max_sample_us : 0);
}

int damon_write_ctx(struct damon *d, unsigned slot, const struct damon_ctx *ctx)
{
	char c[64], p[256];
	int r;

	if (!d->owned || slot >= d->nr_kdamonds)
		return -EPERM; /* never write a kdamond we do not own */
	if ((!strcmp(ctx->ops, "vaddr") && !d->feat.ops_vaddr) ||
	    (!strcmp(ctx->ops, "paddr") && !d->feat.ops_paddr)) {
		return fail(d, 0, "this kernel's DAMON has no %s operations set (CONFIG_DAMON_%s)",
			    ctx->ops, !strcmp(ctx->ops, "vaddr") ? "VADDR" : "PADDR"),
		       -EOPNOTSUPP;
	}
	for (unsigned i = 0; i < ctx->nr_schemes; i++) {
		r = check_scheme_features(d, &ctx->schemes[i]);
		if (r < 0)
			return r;
	}
	r = check_target_features(d, ctx);
	if (r < 0)
		return r;
	if (ctx->pause && !d->feat.pause)
		return fail(d, 0, "this kernel's DAMON cannot pause a context (Linux 7.3+)"),
		       -EOPNOTSUPP;
	mkpath(c, sizeof(c), "kdamonds/%u/contexts/0", slot);
	r = wr(d, mkpath(p, sizeof(p), "%s/operations", c), ctx->ops);
	r = r
		    ?: wr_u64(d, mkpath(p, sizeof(p), "%s/monitoring_attrs/intervals/sample_us", c),
			      ctx->sample_us);
	r = r
		    ?: wr_u64(d, mkpath(p, sizeof(p), "%s/monitoring_attrs/intervals/aggr_us", c),
			      ctx->aggr_us);
	r = r
		    ?: wr_u64(d, mkpath(p, sizeof(p), "%s/monitoring_attrs/intervals/update_us", c),
			      ctx->update_us);
	if (d->feat.intervals_goal)
		r = r ?: write_intervals_goal(d, c, ctx);
	r = r
		    ?: wr_u64(d, mkpath(p, sizeof(p), "%s/monitoring_attrs/nr_regions/max", c),
			      ctx->max_regions);
	r = r
		    ?: wr_u64(d, mkpath(p, sizeof(p), "%s/monitoring_attrs/nr_regions/min", c),
			      ctx->min_regions);
	r = r ?: write_targets(d, c, ctx);
	r = r ?: wr_u64(d, mkpath(p, sizeof(p), "%s/schemes/nr_schemes", c), ctx->nr_schemes);
	for (unsigned i = 0; r == 0 && i < ctx->nr_schemes; i++)
		r = write_scheme(d, c, i, &ctx->schemes[i]);
	if (r == 0 && d->feat.pause)
		r = wr(d, mkpath(p, sizeof(p), "%s/pause", c), ctx->pause ? "Y" : "N");
	if (r < 0)
		return fail(d, r, "kdamond %u: writing the %s context: %s", slot, ctx->ops,
			    d->err_path);
	return 0;
}

/* --- state --- */

static int state_cmd(struct damon *d, unsigned slot, const char *cmd)
{
	char p[64];

	if (!d->owned || slot >= d->nr_kdamonds)
		return -EPERM;
	return wr(d, mkpath(p, sizeof(p), "kdamonds/%u/state", slot), cmd);
}

/*
 * When state=on gets EBUSY and a kernel module holds DAMON: with release_modules, turn the
 * module off, record it and return 0 (the caller tries again); otherwise, or when that fails,
 * -EBUSY with d->err naming the module and how to release it.
 */
static int release_or_explain(struct damon *d, unsigned slot)
{
	char p[PATH_MAX + 64];
	int m = dmodule_holder(d->module_dir, p, sizeof(p)), r;
	const char *name = dmodule_name((unsigned)m);

	if (m < 0) {
		fail(d, 0,
		     "kdamond %u: %s = on refused (EBUSY): another DAMON user holds DAMON "
		     "exclusively or the sysfs lock (a kernel-internal DAMON module?)",
		     slot, d->err_path);
		return -EBUSY;
	}
	if (!d->release_modules) {
		fail(d, 0,
		     "kdamond %u: %s = on refused (EBUSY): DAMON is held exclusively by the kernel "
		     "module %s (%s = Y); release it with 'echo N > %s', boot with %s.enabled=N, "
		     "or set release_modules = yes in [damon]",
		     slot, d->err_path, name, p, p, name);
		return -EBUSY;
	}
	r = dmodule_set(d->module_dir, (unsigned)m, false);
	if (r == -EROFS || r == -EACCES || r == -EPERM) {
		/* a sandbox: the unit's ProtectKernelTunables, a container's read-only /sys */
		fail(d, r,
		     "kdamond %u: release_modules = yes cannot turn off the kernel module %s: %s "
		     "is not writable here (a read-only /sys: the systemd unit lists it in "
		     "ReadWritePaths, a container must mount it read-write)",
		     slot, name, p);
		return -EBUSY;
	}
	if (r < 0) {
		fail(d, r, "kdamond %u: turning off the kernel module %s (%s = N)", slot, name, p);
		return -EBUSY;
	}
	d->released |= 1u << m;
	log_notice("turned off the kernel module %s, which held DAMON (%s = N, release_modules = "
		   "yes); pageoutd turns it back on when it exits",
		   name, p);
	r = write_record(d);
	return r < 0 ? r : 0;
}

/* Turn back on every module pageoutd turned off. Returns 0 or the first -errno. */
static int restore_modules(struct damon *d)
{
	int ret = 0;

	for (unsigned i = 0; i < DMODULE_NR; i++) {
		int r;

		if (!(d->released & (1u << i)))
			continue;
		r = dmodule_set(d->module_dir, i, true);
		if (r < 0) {
			log_errno(LOG_ERR, r, "turning the kernel module %s back on",
				  dmodule_name(i));
			if (!ret)
				ret = r;
			continue;
		}
		d->released &= ~(1u << i);
		log_notice("turned the kernel module %s back on", dmodule_name(i));
	}
	return ret;
}

int damon_start(struct damon *d, unsigned slot)
{
	char p[64];
	uint64_t pid;
	int r = state_cmd(d, slot, "on");

	/* each refusal releases at most one module that holds DAMON, or explains it */
	for (unsigned i = 0; r == -EBUSY && i <= DMODULE_NR; i++) {
		int e = release_or_explain(d, slot);

		if (e < 0)
			return e;
		r = state_cmd(d, slot, "on");
	}
	if (r < 0)
		return fail(d, r, "kdamond %u: writing %s = on", slot, d->err_path);
	if (rd_u64(d, mkpath(p, sizeof(p), "kdamonds/%u/pid", slot), &pid) == 0 &&
	    pid != UINT64_MAX)
		d->kpid[slot] = (int)pid;
	record_after_change(d);
	log_info("kdamond %u started (kernel thread pid %d)", slot, d->kpid[slot]);
	return 0;
}

int damon_commit(struct damon *d, unsigned slot)
{
	int r = state_cmd(d, slot, "commit");

	if (r < 0)
		return fail(d, r, "kdamond %u: writing %s = commit", slot, d->err_path);
	return 0;
}

int damon_stop(struct damon *d, unsigned slot)
{
	int r;

	if (!d->owned || slot >= d->nr_kdamonds)
		return -EPERM;
	/* the kernel refuses off on a stopped kdamond (EINVAL or EPERM): look first */
	r = damon_running(d, slot);
	if (r > 0)
		r = state_cmd(d, slot, "off");
	if (r < 0 && (r == -EINVAL || r == -EPERM) && damon_running(d, slot) == 0)
		r = 0;
	if (r < 0) {
		fail(d, r, "kdamond %u: state=off", slot);
		return log_errno(LOG_ERR, r, "kdamond %u", slot);
	}
	d->kpid[slot] = -1;
	if (d->owned)
		record_after_change(d);
	return 0;
}

int damon_running(struct damon *d, unsigned slot)
{
	char p[64], st[16];
	int r;

	r = rd_str(d, mkpath(p, sizeof(p), "kdamonds/%u/state", slot), st, sizeof(st));
	if (r < 0)
		return r;
	return !strcmp(st, "on");
}

/* --- snapshots --- */

static int cmp_uint(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

/*
 * The numbered entries of a tried_regions directory, sorted. Not always 0..N-1: before 6.14
 * the kernel numbered region directories with one counter shared by every scheme, so scheme
 * 1's regions may be 6..13 (seen on 6.12). *ret is malloc'd; returns the count or -errno.
 */
static int list_entries(struct damon *d, const char *path, unsigned **ret)
{
	size_t n = 0, cap = 16;
	unsigned *v = malloc(cap * sizeof(*v));
	struct dirent *e;
	DIR *dir;
	int fd;

	*ret = NULL;
	if (!v)
		return -ENOMEM;
	d->nr_io++;
	fd = openat(d->rootfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || !(dir = fdopendir(fd))) {
		int r = -errno;

		if (fd >= 0)
			close(fd);
		free(v);
		return r;
	}
	while ((e = readdir(dir))) {
		uint64_t x;

		if (parse_u64(e->d_name, &x) < 0 || x > UINT32_MAX)
			continue;
		if (n == cap) {
			unsigned *nv = realloc(v, 2 * cap * sizeof(*v));

			if (!nv) {
				closedir(dir);
				free(v);
				return -ENOMEM;
			}
			v = nv;
			cap *= 2;
		}
		v[n++] = (unsigned)x;
	}
	closedir(dir);
	qsort(v, n, sizeof(*v), cmp_uint);
	*ret = v;
	return (int)n;
}

static int read_region(struct damon *d, const char *base, unsigned i, struct damon_region *r)
{
	char p[256];
	uint64_t v;
	int k;

	k = rd_u64(d, mkpath(p, sizeof(p), "%s/%u/start", base, i), &r->start);
	k = k ?: rd_u64(d, mkpath(p, sizeof(p), "%s/%u/end", base, i), &r->end);
	k = k ?: rd_u64(d, mkpath(p, sizeof(p), "%s/%u/nr_accesses", base, i), &v);
	r->nr_accesses = (uint32_t)(v > DAMON_U32_MAX ? DAMON_U32_MAX : v);
	k = k ?: rd_u64(d, mkpath(p, sizeof(p), "%s/%u/age", base, i), &v);
	r->age = (uint32_t)(v > DAMON_U32_MAX ? DAMON_U32_MAX : v);
	if (k < 0)
		return k;
	return r->end > r->start ? 0 : -EINVAL;
}

static int read_scheme_regions(struct damon *d, unsigned slot, unsigned s,
			       struct damon_scheme_regions *out)
{
	_cleanup_free_ unsigned *idx = NULL;
	char base[128];
	int n, k;

	mkpath(base, sizeof(base), "kdamonds/%u/contexts/0/schemes/%u/tried_regions", slot, s);
	n = list_entries(d, base, &idx);
	if (n < 0)
		return n;
	out->regions = calloc((size_t)(n ? n : 1), sizeof(*out->regions));
	if (!out->regions)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		k = read_region(d, base, idx[i], &out->regions[out->nr]);
		if (k == -ENOENT)
			break; /* cleared under us by another update: keep what we have */
		if (k < 0)
			return k;
		out->total_bytes += out->regions[out->nr].end - out->regions[out->nr].start;
		out->nr++;
	}
	return 0;
}

int damon_snapshot(struct damon *d, unsigned slot, struct damon_snapshot *ret)
{
	uint64_t t0 = now_usec(), ns;
	unsigned long io0 = d->nr_io;
	char p[96];
	int r;

	memset(ret, 0, sizeof(*ret));
	r = state_cmd(d, slot, "update_schemes_tried_regions");
	if (r < 0)
		return r;
	r = rd_u64(d, mkpath(p, sizeof(p), "kdamonds/%u/contexts/0/schemes/nr_schemes", slot), &ns);
	if (r < 0)
		return r;
	ret->taken_us = now_usec();
	ret->schemes = calloc(ns ? ns : 1, sizeof(*ret->schemes));
	if (!ret->schemes)
		return -ENOMEM;
	ret->nr_schemes = (unsigned)ns;
	for (unsigned s = 0; s < ns; s++) {
		r = read_scheme_regions(d, slot, s, &ret->schemes[s]);
		if (r < 0) {
			damon_snapshot_fini(ret);
			return r;
		}
	}
	ret->cost_us = now_usec() - t0;
	ret->syscalls = d->nr_io - io0;
	return 0;
}

void damon_snapshot_fini(struct damon_snapshot *s)
{
	for (unsigned i = 0; s->schemes && i < s->nr_schemes; i++)
		free(s->schemes[i].regions);
	free(s->schemes);
	memset(s, 0, sizeof(*s));
}

/* --- stats --- */

int damon_set_refresh(struct damon *d, unsigned slot, uint64_t ms)
{
	char p[64];
	int r;

	if (!d->owned || slot >= d->nr_kdamonds)
		return -EPERM;
	if (!d->feat.refresh_ms)
		return -EOPNOTSUPP;
	r = wr_u64(d, mkpath(p, sizeof(p), "kdamonds/%u/refresh_ms", slot), ms);
	if (r < 0)
		return fail(d, r, "kdamond %u: writing %s", slot, d->err_path);
	d->refresh_ms[slot] = ms;
	return 0;
}

int damon_update_stats(struct damon *d, unsigned slot)
{
	if (slot < DAMON_MAX_KDAMONDS && d->refresh_ms[slot])
		return d->owned && slot < d->nr_kdamonds ? 0 : -EPERM;
	return damon_update_stats_now(d, slot);
}

int damon_update_stats_now(struct damon *d, unsigned slot)
{
	int r = state_cmd(d, slot, "update_schemes_stats");

	if (r == 0 && d->feat.effective_bytes)
		r = state_cmd(d, slot, "update_schemes_effective_quotas");
	return r;
}

int damon_read_stats(struct damon *d, unsigned slot, unsigned scheme, struct damon_stats *ret)
{
	static const char *const names[] = { "nr_tried", "sz_tried", "nr_applied", "sz_applied",
					     "qt_exceeds" };
	uint64_t *vals[] = { &ret->nr_tried, &ret->sz_tried, &ret->nr_applied, &ret->sz_applied,
			     &ret->qt_exceeds };
	char s[96], p[160];
	int r;

	mkpath(s, sizeof(s), "kdamonds/%u/contexts/0/schemes/%u", slot, scheme);
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		r = rd_u64(d, mkpath(p, sizeof(p), "%s/stats/%s", s, names[i]), vals[i]);
		if (r < 0)
			return r;
	}
	ret->sz_ops_filter_passed = UINT64_MAX;
	ret->effective_bytes = UINT64_MAX;
	if (d->feat.sz_ops_filter_passed)
		rd_u64_or_unknown(d, mkpath(p, sizeof(p), "%s/stats/sz_ops_filter_passed", s),
				  &ret->sz_ops_filter_passed);
	if (d->feat.effective_bytes)
		rd_u64_or_unknown(d, mkpath(p, sizeof(p), "%s/quotas/effective_bytes", s),
				  &ret->effective_bytes);
	return 0;
}

void damon_pattern_all(struct damon_access_pattern *p)
{
	p->sz_min = 0;
	p->sz_max = UINT64_MAX;
	p->nr_accesses_min = 0;
	p->nr_accesses_max = DAMON_U32_MAX;
	p->age_min = 0;
	p->age_max = DAMON_U32_MAX;
}

int damon_read_intervals(struct damon *d, unsigned slot, uint64_t *sample_us, uint64_t *aggr_us)
{
	char iv[96], p[PATH_MAX];
	int r;

	if (!d->owned || slot >= d->nr_kdamonds)
		return -EPERM;
	if (!d->feat.intervals_goal)
		return -EOPNOTSUPP;
	/* with refresh_ms the kernel copies them itself (6.17+) */
	r = slot < DAMON_MAX_KDAMONDS && d->refresh_ms[slot]
		    ? 0
		    : state_cmd(d, slot, "update_tuned_intervals");
	mkpath(iv, sizeof(iv), "kdamonds/%u/contexts/0/monitoring_attrs/intervals", slot);
	r = r ?: rd_u64(d, mkpath(p, sizeof(p), "%s/sample_us", iv), sample_us);
	return r ?: rd_u64(d, mkpath(p, sizeof(p), "%s/aggr_us", iv), aggr_us);
}
