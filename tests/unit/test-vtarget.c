// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The vaddr target set: compaction order (the last target into each hole, or gone targets kept
 * in place for obsolete_target), the skip list, opening a live and an exited process.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pageoutd/madvise.h"
#include "pageoutd/vtarget.h"
#include "../lib/tap.h"

/* A set of n targets with pids 1..n and no fds, every one seeded. */
static void fake(struct vtargets *ts, size_t n)
{
	*ts = (struct vtargets){ 0 };
	ts->t = calloc(n, sizeof(*ts->t));
	ts->n = ts->cap = n;
	for (size_t i = 0; i < n; i++)
		ts->t[i] = (struct vtarget){
			.pid = (pid_t)(i + 1), .pidfd = -1, .procfd = -1, .seeded = true
		};
}

static void compaction(void)
{
	struct vtargets ts;

	fake(&ts, 5);
	ts.t[1].dead = ts.t[4].dead = true;
	is_int(vtargets_compact(&ts, false), 2, "compact: two dead targets dropped");
	ok(ts.n == 3 && ts.t[0].pid == 1 && ts.t[1].pid == 4 && ts.t[2].pid == 3,
	   "compact: the last live target moved into the hole, the others kept their index");
	ok(ts.t[0].seeded && !ts.t[1].seeded && ts.t[2].seeded,
	   "compact: only the moved target is no longer seeded");
	ok(ts.t[1].plan.since_us > 0 && ts.t[0].plan.since_us == 0 && ts.t[2].plan.since_us == 0,
	   "compact: only the moved target is watched afresh");
	is_int(vtargets_compact(&ts, false), 0, "compact: nothing dead, nothing dropped");
	ts.t[0].dead = ts.t[1].dead = ts.t[2].dead = true;
	is_int(vtargets_compact(&ts, false), 3, "compact: every target dead");
	ok(ts.n == 0, "compact: the set is empty");
	vtargets_fini(&ts);
	ok(!ts.t && !ts.n && !ts.cap, "fini: the set is empty again");
}

/* obsolete_target: a dead target DAMON has stays at its index until the commit drops it */
static void in_place(void)
{
	struct vtargets ts;

	fake(&ts, 5);
	ts.t[4].seeded = false; /* added after the last commit: DAMON does not have it */
	ts.t[1].dead = ts.t[4].dead = true;
	is_int(vtargets_compact(&ts, true), 2, "in place: two dead targets dropped");
	ok(ts.n == 4 && ts.t[1].gone && ts.t[1].pid == 2 && ts.t[1].pidfd < 0,
	   "in place: the one DAMON has stays at its index, gone, its fds closed");
	ok(ts.t[0].pid == 1 && ts.t[2].pid == 3 && ts.t[3].pid == 4,
	   "in place: the one DAMON does not have is removed, no other moves");
	ok(ts.t[0].seeded && ts.t[2].seeded && ts.t[3].seeded && !ts.t[3].plan.since_us,
	   "in place: the others stay seeded and keep what they learned");
	is_u64(vtargets_live(&ts), 3, "in place: three live targets");
	is_int(vtargets_compact(&ts, true), 0, "in place: a gone target is not dropped twice");
	ts.t[3].dead = true;
	is_int(vtargets_compact(&ts, true), 1, "in place: a second one, before the commit");
	is_int(vtargets_drop_gone(&ts), 2, "drop gone: both removed once DAMON dropped them");
	ok(ts.n == 2 && ts.t[0].pid == 1 && ts.t[1].pid == 3 && ts.t[1].seeded,
	   "drop gone: the survivors in their order, the kdamond's after the commit");
	is_u64(ts.moved_total, 0, "in place: no target moved");
	vtargets_fini(&ts);
	fake(&ts, 3);
	ts.t[0].dead = true;
	vtargets_compact(&ts, false);
	is_u64(ts.moved_total, 1, "swap last: the moved target is counted");
	vtargets_fini(&ts);
}

static void skips(void)
{
	struct vtargets ts = { 0 };
	int self;

	ok(vtargets_skip(&ts, 7, -1) == 0 && vtargets_skipped(&ts, 7) && !vtargets_skipped(&ts, 8),
	   "skip: a skipped pid is known, another is not");
	is_u64(ts.skipped_total, 1, "skip: counted");
	vtargets_compact(&ts, false);
	ok(!vtargets_skipped(&ts, 7) && ts.nskip == 0,
	   "skip: a process without a live pidfd pruned");
	self = madv_pidfd_open(getpid());
	if (self < 0) {
		skip("skip: a live process stays skipped", "no pidfd_open");
	} else {
		vtargets_skip(&ts, getpid(), self);
		vtargets_compact(&ts, false);
		ok(vtargets_skipped(&ts, getpid()), "skip: a live process stays skipped");
	}
	is_u64(ts.skipped_total, self < 0 ? 1 : 2, "skip: the total is kept across pruning");
	vtargets_fini(&ts);
	ok(!ts.skip && !ts.nskip, "fini: the skip list is empty again");
}

static void adding(void)
{
	struct vtargets ts = { 0 };
	int proc = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	pid_t gone = fork();
	int r;

	if (gone == 0)
		_exit(0);
	waitpid(gone, NULL, 0);
	r = vtargets_add(&ts, proc, getpid(), 3, 2, "test");
	if (r == -ENOSYS) {
		skip("add: this process", "no pidfd_open");
		close(proc);
		return;
	}
	is_int(r, 0, "add: this process");
	ok(ts.n == 1 && ts.t[0].pid == getpid() && ts.t[0].pidfd >= 0 && ts.t[0].procfd >= 0 &&
		   ts.t[0].policy == 3 && ts.t[0].cgroup == 2 && !ts.t[0].dead && !ts.t[0].seeded &&
		   ts.t[0].plan.since_us > 0,
	   "add: its pidfd, /proc directory, policy, cgroup and watch start");
	ok(vtarget_rss(&ts.t[0], (uint64_t)sysconf(_SC_PAGESIZE)) > 0, "rss: of this process");
	is_int(vtargets_add(&ts, proc, gone, 0, 0, "test"), -ESRCH, "add: an exited process");
	ok(ts.n == 1 && ts.nskip == 0, "add: an exited process is neither target nor skipped");
	vtargets_fini(&ts);
	close(proc);
}

int main(void)
{
	compaction();
	in_place();
	skips();
	adding();
	return tap_exit();
}
