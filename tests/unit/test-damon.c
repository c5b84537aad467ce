// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damon layer against emulated trees shaped like 6.2, 6.12 and 7.2: what it writes, in which
 * order, what it refuses, how it recovers, and faults at every write.
 */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <sys/mount.h>
#include <unistd.h>

#include "pageoutd/damon.h"
#include "pageoutd/log.h"
#include "pageoutd/util.h"
#include "../lib/damonctx.h"
#include "../lib/fakedamon.h"
#include "../lib/tap.h"

static char logbuf[16384];

static void capture(int prio, const char *msg)
{
	size_t n = strlen(logbuf);

	(void)prio;
	snprintf(logbuf + n, sizeof(logbuf) - n, "%s\n", msg);
}

static const char *abi_name(enum fake_abi a)
{
	return a == FAKE_ABI_62	   ? "6.2"
	       : a == FAKE_ABI_612 ? "6.12"
	       : a == FAKE_ABI_72  ? "7.2"
				   : "7.3";
}

static struct damon_scheme targets_schemes[3];
static struct damon_target targets[3];

/* A vaddr context with 3 targets (pids 100..102), one stat scheme per target. */
static void vaddr_ctx(struct damon_ctx *c)
{
	static const pid_t pids[3] = { 100, 101, 102 };

	test_vaddr_ctx(c, targets, targets_schemes, pids, 3);
}

static void features(enum fake_abi abi)
{
	struct fakedamon *f = fake_new(abi);
	struct damon_io io = fake_io(f);
	struct damon d;
	const char *a = abi_name(abi);

	is_int(damon_open(&d, f->admin, f->state_dir, &io), 0, "%s: open", a);
	is_int(damon_acquire(&d), 0, "%s: acquire on an empty tree", a);
	is_str(fake_get(f, "kdamonds/nr_kdamonds"), "2", "%s: two kdamonds created", a);
	ok(fake_log_index(f, 0, "kdamonds/nr_kdamonds", "2") == 0, "%s: nr_kdamonds written first",
	   a);
	ok(access(d.state_file, F_OK) == 0, "%s: ownership recorded in state_dir", a);
	ok(d.feat.ops_vaddr && d.feat.ops_paddr, "%s: vaddr and paddr available", a);
	is_int(d.feat.core_filters, abi == FAKE_ABI_72, "%s: core_filters detected", a);
	is_int(d.feat.filters_legacy, abi >= FAKE_ABI_612, "%s: legacy filters detected", a);
	is_int(d.feat.filter_target, abi >= FAKE_ABI_612, "%s: target filter detected", a);
	is_int(d.feat.filter_allow, abi == FAKE_ABI_72, "%s: allow detected", a);
	is_int(d.feat.sz_ops_filter_passed, abi == FAKE_ABI_72, "%s: sz_ops_filter_passed", a);
	is_int(d.feat.goal_metric, abi >= FAKE_ABI_612, "%s: quota goal metrics", a);
	is_int(d.feat.apply_interval, abi >= FAKE_ABI_612, "%s: apply_interval_us", a);
	is_int(d.feat.tried_total_bytes, abi >= FAKE_ABI_612, "%s: tried_regions/total_bytes", a);
	is_int(d.feat.obsolete_target, abi == FAKE_ABI_72, "%s: obsolete_target", a);
	is_int(d.feat.intervals_goal, abi == FAKE_ABI_72, "%s: intervals auto-tuning", a);
	is_int(d.feat.goal_memcg, abi == FAKE_ABI_72, "%s: per-cgroup quota goals (path)", a);
	{
		char fs[512], tiny[12];
		bool want_core = abi == FAKE_ABI_72;

		damon_features_str(&d.feat, fs, sizeof(fs));
		ok(!strncmp(fs, "vaddr ", 6) && strstr(fs, " paddr") &&
			   (strstr(fs, " core_filters") != NULL) == want_core &&
			   (strstr(fs, " obsolete_target") != NULL) == want_core,
		   "%s: the features as names: %s", a, fs);
		damon_features_str(&d.feat, tiny, sizeof(tiny));
		is_str(tiny, "vaddr", "%s: a short buffer holds whole names only", a);
	}
	is_int(damon_release(&d), 0, "%s: release", a);
	ok(access(d.state_file, F_OK) < 0, "%s: state file removed on release", a);
	is_str(fake_get(f, "kdamonds/nr_kdamonds"), "0",
	       "%s: the kdamonds are given back on release", a);
	is_int(damon_acquire(&d), 0, "%s: a second acquire after release", a);
	is_int(damon_release(&d), 0, "%s: and release", a);
	damon_close(&d);
	fake_free(f);
}

static void write_and_snapshot(enum fake_abi abi)
{
	struct fakedamon *f = fake_new(abi);
	struct damon_io io = fake_io(f);
	struct damon_snapshot snap;
	struct damon_ctx c;
	struct damon d;
	const char *a = abi_name(abi);
	const char *fdir = abi == FAKE_ABI_72 ? "core_filters" : "filters";
	char p[256];
	unsigned from;
	int i1, i2, i3, bad = 0;

	damon_open(&d, f->admin, f->state_dir, &io);
	damon_acquire(&d);
	vaddr_ctx(&c);
	from = f->nlog;
	is_int(damon_write_ctx(&d, DAMON_SLOT_VADDR, &c), 0, "%s: write a 3-target context", a);
	is_str(fake_get(f, "kdamonds/0/contexts/0/targets/nr_targets"), "3", "%s: 3 targets", a);
	is_str(fake_get(f, "kdamonds/0/contexts/0/targets/2/pid_target"), "102",
	       "%s: pid of target 2", a);
	is_str(fake_get(f, "kdamonds/0/contexts/0/monitoring_attrs/intervals/update_us"), "1000000",
	       "%s: update_us 1s (the kernel default is 60s)", a);
	i1 = fake_log_index(f, from, "targets/nr_targets", "3");
	i2 = fake_log_index(f, from, "targets/0/pid_target", NULL);
	i3 = fake_log_index(f, from, "schemes/nr_schemes", "3");
	ok(i1 >= 0 && i2 > i1 && i3 > i2, "%s: nr_targets, then pids, then nr_schemes", a);
	i1 = fake_log_index(f, from, "schemes/1/action", NULL);
	i2 = fake_log_index(f, from, "schemes/1/access_pattern/sz/max", NULL);
	i3 = fake_log_index(f, from, "schemes/1/access_pattern/sz/min", NULL);
	ok(i1 > 0 && i2 > i1 && i3 > i2, "%s: action, then pattern max before min", a);
	is_str(fake_get(f, "kdamonds/0/contexts/0/schemes/1/access_pattern/sz/max"),
	       "18446744073709551615", "%s: sz max written (defaults match nothing)", a);
	is_str(fake_get(f, "kdamonds/0/contexts/0/schemes/1/access_pattern/age/max"), "4294967295",
	       "%s: age max written", a);
	for (unsigned k = 0; k < 3; k++) {
		snprintf(p, sizeof(p), "kdamonds/0/contexts/0/schemes/%u/%s/0/type", k, fdir);
		if (strcmp(fake_get(f, p), "target"))
			bad++;
		snprintf(p, sizeof(p), "kdamonds/0/contexts/0/schemes/%u/%s/0/damon_target_idx", k,
			 fdir);
		if (strtoul(fake_get(f, p), NULL, 10) != k)
			bad++;
		snprintf(p, sizeof(p), "kdamonds/0/contexts/0/schemes/%u/%s/0/matching", k, fdir);
		if (strcmp(fake_get(f, p), "N"))
			bad++;
	}
	is_int(bad, 0, "%s: scheme k has a target filter for target k in %s/", a, fdir);
	if (abi == FAKE_ABI_72) {
		is_str(fake_get(f, "kdamonds/0/contexts/0/schemes/0/core_filters/0/allow"), "N",
		       "7.2: allow=N written");
		is_str(fake_get(f, "kdamonds/0/contexts/0/schemes/0/ops_filters/nr_filters"), "0",
		       "7.2: no ops filters");
	}
	is_int(damon_snapshot(&d, 0, &snap), -EINVAL, "%s: snapshot needs a running kdamond", a);
	is_int(damon_start(&d, 0), 0, "%s: start", a);
	ok(d.kpid[0] >= 4000, "%s: kernel thread pid recorded", a);
	/* three processes whose address ranges overlap */
	f->nvr = 0;
	for (unsigned t = 0; t < 3; t++) {
		f->vr[f->nvr++] =
			(struct fake_vregion){ t, 0x7f0000000000, 0x7f0004000000, 20, 10 };
		f->vr[f->nvr++] =
			(struct fake_vregion){ t, 0x7f0004000000, 0x7f0008000000, 0, 30 + t };
	}
	is_int(damon_snapshot(&d, 0, &snap), 0, "%s: snapshot", a);
	is_int(snap.nr_schemes, 3, "%s: one region list per scheme", a);
	bad = 0;
	for (unsigned s = 0; s < snap.nr_schemes; s++) {
		if (snap.schemes[s].nr != 2 || snap.schemes[s].regions[1].age != 30 + s ||
		    snap.schemes[s].regions[0].nr_accesses != 20)
			bad++;
	}
	is_int(bad, 0, "%s: each scheme holds exactly its own target's hot and cold region", a);
	is_u64(snap.schemes[0].total_bytes, 0x8000000, "%s: 128 MiB per target", a);
	printf("# %s: snapshot of 3 targets x 2 regions: %lu file operations\n", a, snap.syscalls);
	damon_snapshot_fini(&snap);
	{
		/*
		 * Region files that cannot be read. ENOENT: the kernel cleared the directory under
		 * the reader (another update): the regions read so far are kept. Any other error
		 * (EIO, EBUSY) fails the whole snapshot, nothing half-filled. The next one works.
		 * Checked on scheme 0, whose regions are 0 and 1 on every layout (before 6.14 the
		 * other schemes' numbers follow on).
		 */
		static const struct {
			const char *path;
			int err;
			int want; /* 0: snapshot kept with `nr` regions per scheme; else the error */
			unsigned nr;
		} rf[] = { { "tried_regions/1/age", -ENOENT, 0, 1 },
			   { "tried_regions/0/start", -ENOENT, 0, 0 },
			   { "tried_regions/0/nr_accesses", -EIO, -EIO, 0 },
			   { "tried_regions/1/end", -EBUSY, -EBUSY, 0 } };
		unsigned good = 0;

		for (unsigned i = 0; i < sizeof(rf) / sizeof(rf[0]); i++) {
			struct damon_snapshot s2 = { 0 };
			bool g;
			int r;

			f->fail_read_path = rf[i].path;
			f->fail_read_err = rf[i].err;
			r = damon_snapshot(&d, 0, &s2);
			g = r == rf[i].want &&
			    (r < 0 ? s2.nr_schemes == 0 && s2.schemes == NULL
				   : s2.nr_schemes == 3 && s2.schemes[0].nr == rf[i].nr);
			good += g;
			if (!g)
				printf("# %s: %s failing with %d: snapshot %d, %u schemes\n", a,
				       rf[i].path, rf[i].err, r, s2.nr_schemes);
			damon_snapshot_fini(&s2);
		}
		f->fail_read_path = NULL;
		is_int(good, 4,
		       "%s: region reads failing: ENOENT keeps the regions read so far, EIO and "
		       "EBUSY fail the snapshot cleanly",
		       a);
		is_int(damon_snapshot(&d, 0, &snap), 0, "%s: and the next snapshot works", a);
		damon_snapshot_fini(&snap);
	}
	is_int(damon_update_stats(&d, 0), 0, "%s: update stats", a);
	{
		struct damon_stats st;

		is_int(damon_read_stats(&d, 0, 1, &st), 0, "%s: read stats", a);
		is_u64(st.nr_tried, 2, "%s: nr_tried of scheme 1", a);
		ok((st.sz_ops_filter_passed != UINT64_MAX) == (abi == FAKE_ABI_72),
		   "%s: sz_ops_filter_passed only where the kernel has it", a);
	}
	is_int(damon_commit(&d, 0), 0, "%s: commit online", a);
	/* another tool turns our kdamond off */
	fake_set(f, "kdamonds/0/state", "off");
	is_int(damon_running(&d, 0), 0, "%s: a kdamond turned off by someone else is seen as off",
	       a);
	is_int(damon_snapshot(&d, 0, &snap), -EINVAL, "%s: snapshot then fails cleanly", a);
	damon_release(&d);
	damon_close(&d);
	fake_free(f);
}

/*
 * obsolete_target (7.2 tree): a commit with the middle target obsolete drops it from the
 * running targets; the targets written again alone leave two, and the kernel refuses an
 * obsolete target it does not run. The 6.12 tree has no such file: refused before any write.
 */
static void obsolete(enum fake_abi abi)
{
	struct fakedamon *f = fake_new(abi);
	struct damon_io io = fake_io(f);
	struct damon_ctx c;
	struct damon d;
	const char *a = abi_name(abi);
	const char *t = "kdamonds/0/contexts/0/targets";
	char p[128];
	unsigned from;

	damon_open(&d, f->admin, f->state_dir, &io);
	damon_acquire(&d);
	vaddr_ctx(&c);
	damon_write_ctx(&d, DAMON_SLOT_VADDR, &c);
	damon_start(&d, DAMON_SLOT_VADDR);
	targets[1].obsolete = true;
	from = f->nlog;
	if (abi != FAKE_ABI_72) {
		is_int(damon_write_ctx(&d, DAMON_SLOT_VADDR, &c), -EOPNOTSUPP,
		       "%s: an obsolete target is refused without obsolete_target", a);
		ok(f->nlog == from && strstr(d.err, "obsolete_target"),
		   "%s: before any write, and the error names the file", a);
		goto out;
	}
	is_int(damon_write_ctx(&d, DAMON_SLOT_VADDR, &c), 0, "%s: obsolete target written", a);
	snprintf(p, sizeof(p), "%s/1/obsolete_target", t);
	is_str(fake_get(f, p), "Y", "%s: target 1 obsolete", a);
	ok(fake_log_index(f, from, "targets/0/obsolete_target", NULL) < 0 &&
		   fake_log_index(f, from, "targets/2/obsolete_target", NULL) < 0,
	   "%s: only the obsolete one's file is written", a);
	is_int(damon_commit(&d, DAMON_SLOT_VADDR), 0, "%s: the commit drops it", a);
	is_int(f->ktargets[0], 2, "%s: two targets run", a);
	targets[1] = targets[2];
	c.nr_targets = 2;
	is_int(damon_write_targets(&d, DAMON_SLOT_VADDR, &c), 0, "%s: the targets alone", a);
	snprintf(p, sizeof(p), "%s/1/pid_target", t);
	is_str(fake_get(f, p), "102", "%s: the last one at index 1", a);
	snprintf(p, sizeof(p), "%s/1/obsolete_target", t);
	ok(!strcmp(fake_get(f, p), "N") && !strcmp(fake_get(f, "kdamonds/0/contexts/0/targets/"
							       "nr_targets"),
						   "2"),
	   "%s: two targets in the tree, none obsolete", a);
	is_int(damon_commit(&d, DAMON_SLOT_VADDR), 0, "%s: committed again: nothing dropped", a);
	is_int(f->ktargets[0], 2, "%s: still two", a);
	targets[2].obsolete = true;
	c.nr_targets = 3;
	damon_write_ctx(&d, DAMON_SLOT_VADDR, &c);
	is_int(damon_commit(&d, DAMON_SLOT_VADDR), -EINVAL,
	       "%s: an obsolete target past the running ones is refused", a);
out:
	memset(targets, 0, sizeof(targets));
	damon_release(&d);
	damon_close(&d);
	fake_free(f);
}

static void foreign(bool running)
{
	struct fakedamon *f = fake_new(FAKE_ABI_612);
	struct damon_io io = fake_io(f);
	struct damon d;
	struct damon_ctx c;

	fake_foreign(f, 1, running);
	logbuf[0] = '\0';
	damon_open(&d, f->admin, f->state_dir, &io);
	is_int(damon_acquire(&d), -EBUSY, "foreign %s kdamond: refused",
	       running ? "running" : "idle");
	is_int(f->nlog, 0, "foreign %s kdamond: nothing written at all",
	       running ? "running" : "idle");
	has_str(d.err, "kdamond 0 (pid", "error names the kdamond");
	has_str(d.err,
		running ? "(pid 777, state on, operations paddr)"
			: "(pid -1, state off, operations paddr)",
		"error names pid, state and operations");
	has_str(d.err, "is not pageoutd's", "error says it is not ours");
	has_str(d.err, "nr_kdamonds", "error says what to do");
	ok(!strchr(d.err, '\n'), "error is one line");
	is_str(fake_get(f, "kdamonds/0/state"), running ? "on" : "off", "foreign state unchanged");
	vaddr_ctx(&c);
	is_int(damon_write_ctx(&d, 0, &c), -EPERM, "writing a kdamond we do not own: EPERM");
	is_int(damon_stop(&d, 0), -EPERM, "stopping a kdamond we do not own: EPERM");
	is_int(f->nlog, 0, "still nothing written");
	damon_close(&d);
	fake_free(f);
}

static void recover(void)
{
	struct fakedamon *f = fake_new(FAKE_ABI_72);
	struct damon_io io = fake_io(f);
	struct damon d, d2;
	struct damon_ctx c;
	char rec[512];
	unsigned from;

	damon_open(&d, f->admin, f->state_dir, &io);
	damon_acquire(&d);
	vaddr_ctx(&c);
	damon_write_ctx(&d, 0, &c);
	damon_start(&d, 0);
	/* kill -9: no release; a new instance starts with the same state_dir */
	read_file_at(AT_FDCWD, d.state_file, rec, sizeof(rec));
	has_str(rec, "nr_kdamonds=2", "state file records the kdamonds");
	from = f->nlog;
	logbuf[0] = '\0';
	damon_open(&d2, f->admin, f->state_dir, &io);
	is_int(damon_acquire(&d2), 0, "restart after a crash recognises its kdamonds");
	has_str(logbuf, "recovering 2 kdamonds", "recovery logged");
	ok(fake_log_index(f, from, "nr_kdamonds", NULL) < 0,
	   "recovery does not rewrite nr_kdamonds");
	is_str(fake_get(f, "kdamonds/0/state"), "off", "the stale running kdamond is turned off");
	damon_close(&d);
	damon_close(&d2);
	/* the same tree, but kdamond 0 now runs a different kernel thread: someone else's */
	damon_open(&d, f->admin, f->state_dir, &io);
	fake_set(f, "kdamonds/0/state", "on");
	fake_set(f, "kdamonds/0/pid", "99999");
	is_int(damon_acquire(&d), -EBUSY, "a running kdamond with another pid is not ours");
	damon_close(&d);
	fake_free(f);
}

static void exclusive(void)
{
	struct fakedamon *f = fake_new(FAKE_ABI_72);
	struct damon_io io = fake_io(f);
	struct damon d;
	struct damon_ctx c;
	char first[sizeof(d.err)];

	fake_module(f, "damon_reclaim", "N");
	fake_module(f, "damon_stat", "Y");
	damon_open(&d, f->admin, f->state_dir, &io);
	damon_acquire(&d);
	vaddr_ctx(&c);
	damon_write_ctx(&d, 0, &c);
	logbuf[0] = '\0';
	is_int(damon_start(&d, 0), -EBUSY, "DAMON held by a kernel module: EBUSY");
	has_str(d.err, "held exclusively by the kernel module damon_stat", "names damon_stat");
	has_str(d.err, "damon_stat/parameters/enabled = Y", "names the parameter");
	has_str(d.err, "damon_stat.enabled=N", "says how to release it");
	str_copy(first, sizeof(first), d.err);
	is_int(damon_start(&d, 0), -EBUSY, "still held: EBUSY again");
	is_str(d.err, first, "the same text each retry (the caller logs it once)");
	ok(!strstr(logbuf, "held exclusively"), "the DAMON layer itself logs nothing of it");
	has_str(first, "release_modules = yes", "and the setting that lets pageoutd do it");
	fake_module(f, "damon_stat", "N");
	is_int(damon_start(&d, 0), 0, "released by the operator: the start works");
	damon_release(&d);
	damon_close(&d);
	fake_free(f);
}

static bool module_is(struct fakedamon *f, const char *module, char want)
{
	char p[PATH_MAX * 2], v[8] = "";

	snprintf(p, sizeof(p), "%s/fakesys/module/%s/parameters/enabled", f->top, module);
	return read_file_at(AT_FDCWD, p, v, sizeof(v)) > 0 && v[0] == want;
}

/* release_modules: pageoutd turns the holder off for its run and back on at its release */
static void release_modules(void)
{
	struct fakedamon *f = fake_new(FAKE_ABI_72);
	struct damon_io io = fake_io(f);
	struct damon d, d2;
	struct damon_ctx c;
	char rec[1024] = "";

	fake_module(f, "damon_reclaim", "N");
	fake_module(f, "damon_stat", "Y");
	damon_open(&d, f->admin, f->state_dir, &io);
	damon_acquire(&d);
	d.release_modules = true;
	vaddr_ctx(&c);
	damon_write_ctx(&d, 0, &c);
	logbuf[0] = '\0';
	is_int(damon_start(&d, 0), 0,
	       "release_modules: the start works although damon_stat held DAMON");
	ok(module_is(f, "damon_stat", 'N'), "damon_stat is off while pageoutd runs");
	ok(module_is(f, "damon_reclaim", 'N'), "a module that was off stays off");
	has_str(logbuf, "turned off the kernel module damon_stat", "the log says so");
	read_file_at(AT_FDCWD, d.state_file, rec, sizeof(rec));
	has_str(rec, "released_module=damon_stat", "the state file records it");
	/* a crash: a second instance recovers the record and turns the module back on */
	damon_open(&d2, f->admin, f->state_dir, &io);
	is_int(damon_acquire(&d2), 0, "a restart after a crash recovers the kdamonds");
	is_int((int)d2.released, 1, "and the module the first instance turned off");
	logbuf[0] = '\0';
	is_int(damon_release(&d2), 0, "release");
	ok(module_is(f, "damon_stat", 'Y'), "damon_stat is on again after the release");
	has_str(logbuf, "turned the kernel module damon_stat back on", "the log says so");
	ok(module_is(f, "damon_reclaim", 'N'), "damon_reclaim, never turned off, is left alone");
	damon_close(&d2);
	damon_close(&d);
	fake_free(f);
}

/*
 * release_modules where the module's parameters are read-only (a sandbox's /sys): the start is
 * refused as EBUSY with a reason that names the parameter and what makes it writable. The
 * parameters directory is bound read-only in a mount namespace of this process's own (root).
 */
static void release_read_only(void)
{
	static const char *const names[] = {
		"read-only module parameters: the start is refused (EBUSY)",
		"the reason names the parameter, says it is not writable here and what opens it",
		"damon_stat is left on",
	};
	struct fakedamon *f = fake_new(FAKE_ABI_72);
	struct damon_io io = fake_io(f);
	char dir[PATH_MAX + 64];
	struct damon d;
	struct damon_ctx c;

	fake_module(f, "damon_stat", "Y");
	snprintf(dir, sizeof(dir), "%s/fakesys/module/damon_stat/parameters", f->top);
	if (geteuid() != 0 || unshare(CLONE_NEWNS) < 0 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount(dir, dir, NULL, MS_BIND, NULL) < 0 ||
	    mount(NULL, dir, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY, NULL) < 0) {
		skip_each(names, ARRAY_SIZE(names),
			  "needs root for a read-only bind mount in a mount namespace");
		fake_free(f);
		return;
	}
	damon_open(&d, f->admin, f->state_dir, &io);
	damon_acquire(&d);
	d.release_modules = true;
	vaddr_ctx(&c);
	damon_write_ctx(&d, 0, &c);
	ok(damon_start(&d, 0) == -EBUSY, "%s", names[0]);
	if (!ok(strstr(d.err, "damon_stat/parameters/enabled is not writable here") &&
			strstr(d.err, "ReadWritePaths"),
		"%s", names[1]))
		printf("#   %s\n", d.err);
	ok(module_is(f, "damon_stat", 'Y'), "%s", names[2]);
	umount(dir);
	damon_release(&d);
	damon_close(&d);
	fake_free(f);
}

/* refresh_ms (6.17+): the kernel refreshes the stats; no state command, which waits */
static void refresh(enum fake_abi abi)
{
	struct fakedamon *f = fake_new(abi);
	struct damon_io io = fake_io(f);
	struct damon d;
	struct damon_ctx c;
	const char *a = abi_name(abi);
	unsigned w;

	damon_open(&d, f->admin, f->state_dir, &io);
	damon_acquire(&d);
	vaddr_ctx(&c);
	damon_write_ctx(&d, 0, &c);
	damon_start(&d, 0);
	if (abi == FAKE_ABI_72) {
		is_int(damon_set_refresh(&d, 0, 1000), 0, "%s: refresh_ms written", a);
		is_str(fake_get(f, "kdamonds/0/refresh_ms"), "1000", "%s: 1000 ms", a);
		w = f->nwrites;
		is_int(damon_update_stats(&d, 0), 0, "%s: stats up to date", a);
		is_int((int)(f->nwrites - w), 0, "%s: without a state command", a);
		w = f->nwrites;
		is_int(damon_update_stats_now(&d, 0), 0, "%s: stats up to date now", a);
		ok(f->nwrites - w >= 1, "%s: through state commands even so (%u)", a,
		   f->nwrites - w);
	} else {
		is_int(damon_set_refresh(&d, 0, 1000), -EOPNOTSUPP, "%s: no refresh_ms", a);
		w = f->nwrites;
		is_int(damon_update_stats(&d, 0), 0, "%s: stats up to date", a);
		ok(f->nwrites - w >= 1, "%s: through state commands (%u)", a, f->nwrites - w);
	}
	is_int(damon_set_refresh(&d, DAMON_MAX_KDAMONDS, 1000), -EPERM, "%s: only owned kdamonds",
	       a);
	damon_release(&d);
	damon_close(&d);
	fake_free(f);
}

static void old_kernel(void)
{
	struct fakedamon *f = fake_new(FAKE_ABI_62);
	struct damon_io io = fake_io(f);
	struct damon d;
	struct damon_ctx c;

	damon_open(&d, f->admin, f->state_dir, &io);
	damon_acquire(&d);
	vaddr_ctx(&c);
	logbuf[0] = '\0';
	is_int(damon_write_ctx(&d, 0, &c), -EOPNOTSUPP, "6.2: target filters unsupported");
	has_str(d.err, "no scheme filters", "the error names the missing feature");
	damon_release(&d);
	damon_close(&d);
	fake_free(f);
}

static void missing_root(void)
{
	struct damon d;

	is_int(damon_open(&d, "/nonexistent/damon-admin", "/tmp", NULL), -ENODEV,
	       "no DAMON sysfs: ENODEV");
	has_str(d.err, "CONFIG_DAMON_SYSFS", "the error names the kernel option");
	is_int(damon_open(&d, "/tmp", "/tmp", NULL), -ENODEV, "a directory that is not DAMON");
}

/* Fail each write of acquire + write_ctx + start in turn: a clean error every time. */
static void faults(enum fake_abi abi, int err)
{
	unsigned total, bad = 0, unnamed = 0, n;
	struct damon_ctx c;

	{
		struct fakedamon *f = fake_new(abi);
		struct damon_io io = fake_io(f);
		struct damon d;

		damon_open(&d, f->admin, f->state_dir, &io);
		damon_acquire(&d);
		vaddr_ctx(&c);
		damon_write_ctx(&d, 0, &c);
		damon_start(&d, 0);
		total = f->nwrites;
		damon_close(&d);
		fake_free(f);
	}
	for (n = 1; n <= total; n++) {
		struct fakedamon *f = fake_new(abi);
		struct damon_io io = fake_io(f);
		struct damon d;
		int r;

		f->fail_at = n;
		f->fail_err = err;
		damon_open(&d, f->admin, f->state_dir, &io);
		r = damon_acquire(&d);
		if (r == 0) {
			vaddr_ctx(&c);
			r = damon_write_ctx(&d, 0, &c);
		}
		if (r == 0)
			r = damon_start(&d, 0);
		/* feature probing tolerates its own optional writes failing */
		if (r != err && !(r == 0 && f->nwrites >= n)) {
			printf("# write %u (%s = %s) failing gave %d\n", n,
			       n <= f->nlog ? f->log[n - 1].path : "?",
			       n <= f->nlog ? f->log[n - 1].val : "?", r);
			bad++;
		}
		/* the error the caller logs and shows names the file the kernel refused */
		if (r == err && n <= f->nlog && !strstr(d.err, f->log[n - 1].path)) {
			printf("# write %u (%s) failing: d->err '%s' does not name it\n", n,
			       f->log[n - 1].path, d.err);
			unnamed++;
		}
		damon_release(&d);
		damon_close(&d);
		fake_free(f);
	}
	is_int(bad, 0, "%s: each of %u writes failing with %s gives that error or a handled one",
	       abi_name(abi), total, strerror(-err));
	is_int(unnamed, 0, "%s: and each such error names the file written", abi_name(abi));
}

/*
 * 7.3: the failed-region charge ratio and the context's pause are detected and written; on
 * 7.2 the ratio is not written (the caller scales the quota instead) and a pause is refused.
 */
static void charge_and_pause(enum fake_abi abi)
{
	struct fakedamon *f = fake_new(abi);
	struct damon_io io = fake_io(f);
	const char *a = abi_name(abi);
	bool has = abi >= FAKE_ABI_73;
	struct damon_ctx c;
	struct damon d;
	char fs[512];

	vaddr_ctx(&c);
	targets_schemes[1].fail_charge_num = 1;
	targets_schemes[1].fail_charge_denom = 1024;
	is_int(damon_open(&d, f->admin, f->state_dir, &io), 0, "%s: open", a);
	is_int(damon_acquire(&d), 0, "%s: acquire", a);
	is_int(d.feat.fail_charge, has, "%s: fail_charge detected", a);
	is_int(d.feat.pause, has, "%s: pause detected", a);
	damon_features_str(&d.feat, fs, sizeof(fs));
	ok((strstr(fs, " fail_charge pause") != NULL) == has, "%s: named in the features: %s", a,
	   fs);
	is_int(damon_write_ctx(&d, 0, &c), 0, "%s: a context with a charge ratio", a);
	if (has) {
		is_str(fake_get(f, "kdamonds/0/contexts/0/schemes/1/quotas/fail_charge_num"), "1",
		       "%s: fail_charge_num written", a);
		is_str(fake_get(f, "kdamonds/0/contexts/0/schemes/1/quotas/fail_charge_denom"),
		       "1024", "%s: fail_charge_denom written", a);
		is_str(fake_get(f, "kdamonds/0/contexts/0/schemes/0/quotas/fail_charge_denom"), "0",
		       "%s: 0 (every byte charged) where the scheme has none", a);
		is_str(fake_get(f, "kdamonds/0/contexts/0/pause"), "N", "%s: not paused", a);
	}
	c.pause = true;
	is_int(damon_write_ctx(&d, 0, &c), has ? 0 : -EOPNOTSUPP, "%s: a paused context %s", a,
	       has ? "is written" : "is refused");
	if (has)
		is_str(fake_get(f, "kdamonds/0/contexts/0/pause"), "Y", "%s: pause written", a);
	else
		ok(strstr(d.err, "pause") != NULL, "%s: and the error says why: %s", a, d.err);
	memset(targets_schemes, 0, sizeof(targets_schemes));
	is_int(damon_release(&d), 0, "%s: release", a);
	damon_close(&d);
	fake_free(f);
}

/*
 * The kernel's interval tuner (intervals_goal, 6.15+): on between the context's sample
 * interval and tune_max_sample_us, off (aggrs 0) when that is 0 - also over a goal written
 * before; damon_read_intervals reads what the kernel left; a kernel without it is not written.
 */
static void tuner(enum fake_abi abi)
{
	struct fakedamon *f = fake_new(abi);
	struct damon_io io = fake_io(f);
	struct damon_ctx c;
	struct damon d;
	const char *a = abi_name(abi);
	const char *g = "kdamonds/0/contexts/0/monitoring_attrs/intervals/intervals_goal";
	char p[256];
	uint64_t sample = 0, aggr = 0;

	damon_open(&d, f->admin, f->state_dir, &io);
	damon_acquire(&d);
	vaddr_ctx(&c);
	c.sample_us = 30000;
	c.aggr_us = 600000;
	c.tune_max_sample_us = 75000;
	is_int(damon_write_ctx(&d, DAMON_SLOT_VADDR, &c), 0, "%s: a context with a tuner", a);
	if (abi < FAKE_ABI_72) {
		snprintf(p, sizeof(p), "%s/aggrs", g);
		is_str(fake_get(f, p), "", "%s: no intervals_goal: nothing written there", a);
		is_int(damon_read_intervals(&d, DAMON_SLOT_VADDR, &sample, &aggr), -EOPNOTSUPP,
		       "%s: no tuner to read", a);
		damon_close(&d);
		fake_free(f);
		return;
	}
	snprintf(p, sizeof(p), "%s/min_sample_us", g);
	is_str(fake_get(f, p), "30000", "%s: the tuner's floor is the sample interval", a);
	snprintf(p, sizeof(p), "%s/max_sample_us", g);
	is_str(fake_get(f, p), "75000", "%s: its ceiling tune_max_sample_us", a);
	snprintf(p, sizeof(p), "%s/access_bp", g);
	is_str(fake_get(f, p), "400", "%s: access goal 4%%", a);
	snprintf(p, sizeof(p), "%s/aggrs", g);
	is_str(fake_get(f, p), "3", "%s: tuned every 3 aggregations", a);
	is_int(damon_start(&d, DAMON_SLOT_VADDR), 0, "%s: started", a);
	fake_set(f, "kdamonds/0/contexts/0/monitoring_attrs/intervals/sample_us", "50000");
	fake_set(f, "kdamonds/0/contexts/0/monitoring_attrs/intervals/aggr_us", "1000000");
	is_int(damon_read_intervals(&d, DAMON_SLOT_VADDR, &sample, &aggr), 0,
	       "%s: read the tuned intervals", a);
	ok(sample == 50000 && aggr == 1000000,
	   "%s: as the kernel left them (%" PRIu64 ", %" PRIu64 ")", a, sample, aggr);
	ok(fake_log_index(f, 0, "state", "update_tuned_intervals") >= 0,
	   "%s: after update_tuned_intervals", a);
	c.tune_max_sample_us = 0;
	is_int(damon_write_ctx(&d, DAMON_SLOT_VADDR, &c), 0, "%s: the same without a tuner", a);
	snprintf(p, sizeof(p), "%s/aggrs", g);
	is_str(fake_get(f, p), "0", "%s: the goal written before is turned off", a);
	damon_close(&d);
	fake_free(f);
}

/* fill the file system of dir: a file of zeros until ENOSPC; returns its path's length */
static void fill(const char *dir, char *path, size_t len)
{
	char zero[4096] = { 0 };
	int fd;

	snprintf(path, len, "%s/filler", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	while (fd >= 0 && write(fd, zero, sizeof(zero)) > 0)
		;
	if (fd >= 0)
		close(fd);
}

/*
 * A state_dir that fills up or turns read-only while pageoutd owns DAMON: the kdamonds keep
 * working, the stale record is said once (and again when it clears), damon_sync_record()
 * writes it once there is room again, and no partial file is left. On a 64 KiB tmpfs in a
 * mount namespace of this process's own (root only).
 */
static void state_dir_full(void)
{
	static const char *const names[] = {
		"state_dir full: the kdamond starts all the same",
		"and the stale record is one log line naming the file and the consequence",
		"damon_record_error says so while it lasts",
		"a second try while still full logs nothing more",
		"no partial temporary file left in the full directory",
		"room again: the record is written at the next sync, the error clears",
		"and it records the kdamond started while the directory was full",
		"read-only: a stop still works, the record is stale (EROFS)",
		"writable again: the next sync writes the record",
	};
	struct fakedamon *f = fake_new(FAKE_ABI_72);
	struct damon_io io = fake_io(f);
	char dir[] = "/tmp/pageoutd-test-state.XXXXXX", filler[PATH_MAX], tmp[PATH_MAX],
	     rec[512] = "";
	struct damon d;
	struct damon_ctx c;
	size_t mark;

	if (geteuid() != 0 || !mkdtemp(dir) || unshare(CLONE_NEWNS) < 0 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("tmpfs", dir, "tmpfs", 0, "size=64k,mode=0700") < 0) {
		skip_each(names, ARRAY_SIZE(names),
			  "needs root for a small tmpfs in a mount namespace of its own");
		rmdir(dir);
		fake_free(f);
		return;
	}
	damon_open(&d, f->admin, dir, &io);
	damon_acquire(&d);
	vaddr_ctx(&c);
	damon_write_ctx(&d, 0, &c);
	fill(dir, filler, sizeof(filler));
	mark = strlen(logbuf);
	ok(damon_start(&d, 0) == 0 && !strcmp(fake_get(f, "kdamonds/0/state"), "on"), "%s",
	   names[0]);
	ok(strstr(logbuf + mark, "damon.state") && strstr(logbuf + mark, "not recorded") &&
		   strstr(logbuf + mark, "No space left"),
	   "%s", names[1]);
	ok(damon_record_error(&d) != NULL, "%s", names[2]);
	mark = strlen(logbuf);
	ok(damon_sync_record(&d) < 0 && strlen(logbuf) == mark, "%s", names[3]);
	snprintf(tmp, sizeof(tmp), "%s/damon.state.tmp", dir);
	ok(access(tmp, F_OK) < 0, "%s", names[4]);
	unlink(filler);
	ok(damon_sync_record(&d) == 0 && damon_record_error(&d) == NULL, "%s", names[5]);
	read_file_at(AT_FDCWD, d.state_file, rec, sizeof(rec));
	ok(strstr(rec, "kdamond=0 kpid=") && !strstr(rec, "kdamond=0 kpid=-1"), "%s", names[6]);
	mount(NULL, dir, NULL, MS_REMOUNT | MS_RDONLY, NULL);
	ok(damon_stop(&d, 0) == 0 && damon_record_error(&d) != NULL, "%s", names[7]);
	mount(NULL, dir, NULL, MS_REMOUNT, "size=64k");
	ok(damon_sync_record(&d) == 0 && damon_record_error(&d) == NULL, "%s", names[8]);
	damon_release(&d);
	damon_close(&d);
	umount(dir);
	rmdir(dir);
	fake_free(f);
}

int main(void)
{
	log_setup(LOG_TARGET_STDERR, LOG_CRIT);
	log_set_capture(capture);
	missing_root();
	features(FAKE_ABI_612);
	features(FAKE_ABI_72);
	features(FAKE_ABI_62);
	write_and_snapshot(FAKE_ABI_612);
	write_and_snapshot(FAKE_ABI_72);
	obsolete(FAKE_ABI_72);
	obsolete(FAKE_ABI_612);
	charge_and_pause(FAKE_ABI_72);
	charge_and_pause(FAKE_ABI_73);
	foreign(true);
	foreign(false);
	recover();
	state_dir_full();
	exclusive();
	refresh(FAKE_ABI_612);
	refresh(FAKE_ABI_72);
	release_modules();
	release_read_only();
	tuner(FAKE_ABI_612);
	tuner(FAKE_ABI_72);
	old_kernel();
	faults(FAKE_ABI_612, -EBUSY);
	faults(FAKE_ABI_72, -ENOENT);
	faults(FAKE_ABI_72, -EIO);
	faults(FAKE_ABI_612, -EINVAL);
	return tap_exit();
}
