// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The vaddr engine's cycle, as the daemon runs it, on the host: real child processes in a real
 * cgroup, real /proc, real pidfds and process_madvise, and the emulated DAMON tree (never the
 * host's) whose regions cover the children's file-backed MAP_SHARED mappings, which page out
 * without swap. Cold ranges leave the page cache, hot ones stay, a hole inside a region does
 * not stop the batch, an mlocked range is not counted as reclaimed, dry-run changes nothing,
 * and a child that exits mid-cycle is dropped cleanly; of three, the middle one exiting is
 * dropped in place with obsolete_target on the 7.2 tree (the others keep their index and
 * regions) and replaced by the last one on the 6.12 tree. Per cgroup, the bytes reclaimed, the time
 * frozen and the major faults after a thaw are kept, and an entry goes with its cgroup.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pageoutd/cgroup.h"
#include "pageoutd/cgstat.h"
#include "pageoutd/config.h"
#include "pageoutd/damon.h"
#include "pageoutd/log.h"
#include "pageoutd/report.h"
#include "pageoutd/util.h"
#include "pageoutd/vaddr.h"
#include "pageoutd/vma.h"
#include "../lib/fakedamon.h"
#include "../lib/cfgtext.h"
#include "../lib/child.h"
#include "../lib/tap.h"

#define MIB (1024ull * 1024)
#define NCHILD 2
#define NMIDDLE 3 /* children of middle_exit; the data file has 8 MiB for each */
#define BASE(k) (0x7e0000000000ull + (uint64_t)(k)*64 * MIB)
/* per child: cold [0, 2M) and [3M, 4M) of its 8 MiB of the file (a hole between), hot [4M, 8M) */

static char file[PATH_MAX];

struct child_args {
	unsigned k;
	const char *cgroup_procs;
	bool lock;
};

static int child_setup(void *arg)
{
	const struct child_args *c = arg;
	char s[32];
	volatile char sink = 0;
	char *a, *b;
	int fd = open(file, O_RDONLY);

	snprintf(s, sizeof(s), "%d", getpid());
	if (c->cgroup_procs[0])
		write_file_at(AT_FDCWD, c->cgroup_procs, s);
	a = mmap((void *)(uintptr_t)BASE(c->k), 2 * MIB, PROT_READ,
		 MAP_SHARED | MAP_FIXED_NOREPLACE, fd, (off_t)(c->k * 8 * MIB));
	b = mmap((void *)(uintptr_t)(BASE(c->k) + 3 * MIB), 5 * MIB, PROT_READ,
		 MAP_SHARED | MAP_FIXED_NOREPLACE, fd, (off_t)(c->k * 8 * MIB + 3 * MIB));
	if (a == MAP_FAILED || b == MAP_FAILED)
		return 3;
	for (uint64_t o = 0; o < 2 * MIB; o += 4096)
		sink += a[o];
	for (uint64_t o = 0; o < 5 * MIB; o += 4096)
		sink += b[o];
	/* the raw syscall: sanitizers turn mlock() into a no-op */
	if (c->lock && syscall(SYS_mlock, a, 1 * MIB) < 0)
		return 4;
	return 0;
}

static pid_t child(unsigned k, const char *cgroup_procs, bool lock)
{
	struct child_args c = { k, cgroup_procs, lock };

	return child_fork(child_setup, NULL, &c);
}

/* resident pages of file range [off, off+len) in the page cache */
static unsigned resident(int fd, uint64_t off, uint64_t len)
{
	unsigned char vec[2048];
	void *m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, (off_t)off);
	unsigned n = 0;

	if (m == MAP_FAILED || mincore(m, len, vec) < 0)
		return 9999;
	for (uint64_t i = 0; i < len / 4096; i++)
		n += vec[i] & 1;
	munmap(m, len);
	return n;
}

static void set_regions(struct fakedamon *f, const pid_t *pids)
{
	f->nvr = 0;
	for (unsigned t = 0; t < 8; t++) {
		char p[128];
		const char *v;
		pid_t pid;

		snprintf(p, sizeof(p), "kdamonds/0/contexts/0/targets/%u/pid_target", t);
		v = fake_get(f, p);
		if (!v[0])
			break;
		pid = atoi(v);
		for (unsigned k = 0; k < NCHILD; k++) {
			if (pids[k] != pid)
				continue;
			/* one cold region over both cold mappings and the hole, one hot region */
			f->vr[f->nvr++] =
				(struct fake_vregion){ t, BASE(k), BASE(k) + 4 * MIB, 0, 100 };
			f->vr[f->nvr++] = (struct fake_vregion){ t, BASE(k) + 4 * MIB,
								 BASE(k) + 8 * MIB, 15, 100 };
		}
	}
}

/* extra [daemon] lines of the next rig_up's config */
static const char *rig_daemon = "";

static struct cfg *load_policy(const char *top, const char *state, const char *policy)
{
	char daemon[PATH_MAX + 256];

	snprintf(daemon, sizeof(daemon), "interval = 1s\nstate_dir = %s\n%s", state, rig_daemon);
	return cfgtext_load(top, daemon, policy);
}

/* A second engine on a 7.2 tree for one child (child 0's mappings) and one policy. */
struct rig {
	struct fakedamon *f;
	struct damon_io io;
	struct damon d;
	struct vaddr *v;
	struct cfg *cfg;
	pid_t c;
};

/* rig_up: the tree, the policy over mine (rest: its lines after engine = vaddr), the child,
 * the engine; one test line named what. false (and nothing to take down) when it failed. */
static bool rig_up(struct rig *g, const struct cgrp_root *cg, const char *mine, const char *procs,
		   const char *rest, const char *what)
{
	char pol[PATH_MAX + 256];
	bool up;

	memset(g, 0, sizeof(*g));
	g->f = fake_new(FAKE_ABI_72);
	g->io = fake_io(g->f);
	snprintf(pol, sizeof(pol), "[policy]\ncgroup = %s\nengine = vaddr\n%s", mine, rest);
	g->cfg = load_policy(g->f->top, g->f->state_dir, pol);
	g->c = child(0, procs, false);
	up = g->cfg && g->c > 0 && damon_open(&g->d, g->f->admin, g->f->state_dir, &g->io) == 0 &&
	     damon_acquire(&g->d) == 0 && vaddr_new(&g->v, g->cfg, &g->d, cg) == 0;
	ok(up, "%s", what);
	return g->v != NULL;
}

static void rig_down(struct rig *g)
{
	kill(g->c, SIGKILL);
	waitpid(g->c, NULL, 0);
	vaddr_free(g->v);
	damon_release(&g->d);
	damon_close(&g->d);
	cfg_free(g->cfg);
	fake_free(g->f);
}

/* The pid of target t of the vaddr kdamond in the tree, 0 when there is none. */
static pid_t tree_pid(struct fakedamon *f, unsigned t)
{
	char p[128];

	snprintf(p, sizeof(p), "kdamonds/0/contexts/0/targets/%u/pid_target", t);
	return (pid_t)atoi(fake_get(f, p));
}

/*
 * Three children, the middle one exits. On the 7.2 tree the commit marks its target obsolete
 * (under the engine's own pid, which the kernel resolves first), writes no regions for the
 * others, and the tree is rewritten with the two that stay, in their order; a second exit is
 * dropped the same way (the emulated kernel refuses an obsolete target it does not run). On
 * the 6.12 tree the last target takes the middle one's index, with seed regions.
 */
static void middle_exit(const struct cgrp_root *cg, const char *mine, const char *procs,
			enum fake_abi abi)
{
	const bool obs = abi == FAKE_ABI_72;
	const char *tree = obs ? "7.2" : "6.12";
	char pol[PATH_MAX + 256];
	struct fakedamon *f = fake_new(abi);
	struct damon_io io = fake_io(f);
	struct damon d;
	struct vaddr *v = NULL;
	struct cfg *cfg;
	const struct vaddr_stats *s;
	pid_t c[NMIDDLE], t0, t1, t2;
	uint64_t restarts;
	unsigned mark;
	bool up;

	snprintf(pol, sizeof(pol), "[policy]\ncgroup = %s\nengine = vaddr\nmemory = file\n", mine);
	cfg = load_policy(f->top, f->state_dir, pol);
	for (unsigned k = 0; k < NMIDDLE; k++)
		c[k] = child(k, procs, false);
	up = cfg && c[0] > 0 && c[1] > 0 && c[2] > 0 &&
	     damon_open(&d, f->admin, f->state_dir, &io) == 0 && damon_acquire(&d) == 0 &&
	     vaddr_new(&v, cfg, &d, cg) == 0 && vaddr_cycle(v) == 0 &&
	     vaddr_stats(v)->targets == NMIDDLE;
	ok(up, "%s tree: three children, three targets", tree);
	if (!up)
		goto out;
	s = vaddr_stats(v);
	t0 = tree_pid(f, 0);
	t1 = tree_pid(f, 1);
	t2 = tree_pid(f, 2);
	restarts = s->restarts;
	for (unsigned k = 0; k < NMIDDLE; k++)
		if (c[k] == t1) {
			kill(c[k], SIGKILL);
			waitpid(c[k], NULL, 0);
			c[k] = -1;
		}
	mark = f->nlog;
	is_int(vaddr_cycle(v), 0, "%s tree: the middle target's process exited, the cycle goes on",
	       tree);
	ok(s->restarts == restarts && s->targets == 2 &&
		   !strcmp(fake_get(f, "kdamonds/0/state"), "on"),
	   "%s tree: two targets, committed online", tree);
	ok(tree_pid(f, 0) == t0 && tree_pid(f, 1) == t2 && !tree_pid(f, 2) &&
		   !strcmp(fake_get(f, "kdamonds/0/contexts/0/targets/nr_targets"), "2"),
	   "%s tree: the first keeps index 0, the last is at index 1", tree);
	if (obs) {
		int at = fake_log_index(f, mark, "targets/1/obsolete_target", "Y");
		int pid1 = fake_log_index(f, mark, "targets/1/pid_target", NULL);

		ok(at >= 0 && pid1 >= 0 && atoi(f->log[pid1].val) == getpid() &&
			   fake_log_index(f, mark, "targets/0/obsolete_target", NULL) < 0 &&
			   fake_log_index(f, mark, "targets/2/obsolete_target", NULL) < 0,
		   "7.2 tree: the middle target was written obsolete, under the engine's pid");
		ok(fake_log_index(f, mark, "targets/2/regions/nr_regions", "0") > at &&
			   fake_log_index(f, mark, "targets/2/regions/0/start", NULL) < 0 &&
			   fake_log_index(f, mark, "state", "commit") > at,
		   "7.2 tree: no regions for the last one: DAMON keeps what it learned");
		ok(f->ktargets[0] == 2 && fake_log_index(f, mark, "targets/nr_targets", "2") > at,
		   "7.2 tree: the commit dropped one, then the tree was written with the two left");
		is_u64(s->targets_dropped_in_place, 1, "7.2 tree: counted as dropped in place");
		is_u64(s->targets_moved, 0, "7.2 tree: no target moved");
		for (unsigned k = 0; k < NMIDDLE; k++)
			if (c[k] == t0) {
				kill(c[k], SIGKILL);
				waitpid(c[k], NULL, 0);
				c[k] = -1;
			}
		is_int(vaddr_cycle(v), 0, "7.2 tree: the first exits too");
		ok(s->restarts == restarts && f->ktargets[0] == 1 && tree_pid(f, 0) == t2 &&
			   s->targets_dropped_in_place == 2,
		   "7.2 tree: dropped in place too, the last one is now the only target");
	} else {
		ok(fake_log_index(f, mark, "obsolete_target", NULL) < 0 &&
			   fake_log_index(f, mark, "targets/1/regions/0/start", NULL) >= 0,
		   "6.12 tree: no obsolete_target; the moved target starts from seed regions");
		is_u64(s->targets_moved, 1, "6.12 tree: counted as moved");
		is_u64(s->targets_dropped_in_place, 0, "6.12 tree: none dropped in place");
	}
out:
	for (unsigned k = 0; k < NMIDDLE; k++)
		if (c[k] > 0) {
			kill(c[k], SIGKILL);
			waitpid(c[k], NULL, 0);
		}
	vaddr_free(v);
	if (up) {
		damon_release(&d);
		damon_close(&d);
	}
	cfg_free(cfg);
	fake_free(f);
}

/* Quota order: three cold regions of one child, a quota of 1 MiB: the coldest goes first. */
static void quota_order(const struct cgrp_root *cg, const char *mine, const char *procs, int fd)
{
	struct rig g;
	struct fakedamon *f;
	struct vaddr *v;

	if (!rig_up(&g, cg, mine, procs,
		    "min_age = 1s\nmax_access_rate = 50%\nmemory = file\nquota = 1M/10m\n",
		    "a second engine (7.2 tree), quota 1 MiB, accesses up to 50% count as cold"))
		return;
	f = g.f;
	v = g.v;
	vaddr_cycle(v);
	f->nvr = 0;
	f->vr[f->nvr++] = (struct fake_vregion){ 0, BASE(0), BASE(0) + MIB, 2, 100 };
	f->vr[f->nvr++] = (struct fake_vregion){ 0, BASE(0) + MIB, BASE(0) + 2 * MIB, 0, 100 };
	f->vr[f->nvr++] = (struct fake_vregion){ 0, BASE(0) + 3 * MIB, BASE(0) + 4 * MIB, 5, 100 };
	/* 4 MiB mapped in a 64 MiB region watched for about a second: about 14 of DAMON's
	 * samples fell on the mapped part, too few for its "no access" to say much */
	f->vr[f->nvr++] = (struct fake_vregion){ 0, BASE(0) + 4 * MIB, BASE(0) + 68 * MIB, 0, 100 };
	usleep(1100000);
	vaddr_cycle(v);
	vaddr_cycle(v);
	{
		unsigned a = resident(fd, 0, MIB), b = resident(fd, MIB, MIB),
			 e = resident(fd, 3 * MIB, MIB);
		const struct vaddr_policy_stats *ps = vaddr_policy_stats(v, "host");

		printf("# resident after a 1 MiB quota: 2 accesses %u/256, 0 accesses %u/256, 5 "
		       "accesses %u/256\n",
		       a, b, e);
		ok(b == 0 && a == 256 && e == 256,
		   "the quota went to the coldest region; the others wait");
		ok(ps->skipped_total[SKIP_QUOTA] >= 2 * MIB, "and are counted under quota");
		ok(resident(fd, 4 * MIB, 4 * MIB) == 1024 &&
			   ps->skipped_total[SKIP_SPARSE] >= 4 * MIB,
		   "a mostly unmapped region's mapped part is left alone and counted as sparse");
	}
	rig_down(&g);
}

/*
 * Two cold snapshots before a range is advised, whatever the kernel's reference semantics:
 * with reference_semantics = recheck (a kernel before 6.9) a cold region seen once waits,
 * counted as unconfirmed; confirm_snapshots = 1 advises it at once.
 */
static unsigned first_cold_snapshot(const struct cgrp_root *cg, const char *mine, const char *procs,
				    int fd, const char *daemon, uint64_t *unconfirmed)
{
	struct rig g;
	unsigned left;

	rig_daemon = daemon;
	if (!rig_up(&g, cg, mine, procs,
		    "min_age = 1s\nmax_access_rate = 0%\nmemory = file\nquota = 1G/1s\n",
		    "a second engine (7.2 tree) with one more [daemon] line")) {
		rig_daemon = "";
		return 0;
	}
	rig_daemon = "";
	vaddr_cycle(g.v);
	g.f->nvr = 0;
	g.f->vr[g.f->nvr++] = (struct fake_vregion){ 0, BASE(0), BASE(0) + MIB, 0, 100 };
	usleep(1100000);
	vaddr_cycle(g.v);
	left = resident(fd, 0, MIB);
	*unconfirmed = vaddr_policy_stats(g.v, "host")->skipped_total[SKIP_UNCONFIRMED];
	rig_down(&g);
	return left;
}

static void confirm_snapshots(const struct cgrp_root *cg, const char *mine, const char *procs,
			      int fd)
{
	uint64_t unconfirmed = 0;
	unsigned left;

	left = first_cold_snapshot(cg, mine, procs, fd, "reference_semantics = recheck\n",
				   &unconfirmed);
	printf("# recheck, one cold snapshot: %u/256 pages resident, %" PRIu64
	       " bytes unconfirmed\n",
	       left, unconfirmed);
	ok(left == 256 && unconfirmed >= MIB,
	   "reference_semantics = recheck: a range seen cold once is not advised (unconfirmed)");
	left = first_cold_snapshot(cg, mine, procs, fd, "confirm_snapshots = 1\n", &unconfirmed);
	printf("# confirm_snapshots = 1, one cold snapshot: %u/256 pages resident\n", left);
	ok(left == 0 && unconfirmed == 0,
	   "confirm_snapshots = 1: advised at the first cold snapshot");
}

/*
 * A region that DAMON never split: the end of one mapping, the hole after it and the first
 * 64 KiB of the next one (a hot set's edge beside a cold area). Its "no access" holds for the
 * first mapping's piece, on which about half of DAMON's samples fell, not for the 64 KiB that
 * got one in thirty: that piece waits, counted as sparse.
 */
static void edge_piece(const struct cgrp_root *cg, const char *mine, const char *procs, int fd)
{
	struct rig g;
	struct fakedamon *f;
	struct vaddr *v;

	if (!rig_up(&g, cg, mine, procs,
		    "min_age = 1s\nmax_access_rate = 0%\nmemory = file\nquota = none\n",
		    "an engine for the edge of a mapping"))
		return;
	f = g.f;
	v = g.v;
	vaddr_cycle(v);
	{
		unsigned n = (unsigned)atoi(
			fake_get(f, "kdamonds/0/contexts/0/targets/0/regions/nr_regions"));
		struct damon_range want[DAMON_TARGET_REGIONS_MAX];
		struct vma_list vmas = { 0 };
		char mp[64], *maps = NULL;
		unsigned nw = 0;
		bool a = false, b = false, same;

		snprintf(mp, sizeof(mp), "/proc/%d/maps", (int)g.c);
		if (read_file_alloc_at(AT_FDCWD, mp, &maps) >= 0 &&
		    vma_parse_smaps(maps, &vmas) == 0)
			nw = vma_seed_regions(&vmas, want, DAMON_TARGET_REGIONS_MAX);
		free(maps);
		vma_list_fini(&vmas);
		same = n == nw && n >= 2;
		for (unsigned k = 0; k < n && same; k++) {
			char p[128];
			unsigned long long s0, e0;

			snprintf(p, sizeof(p), "kdamonds/0/contexts/0/targets/0/regions/%u/start",
				 k);
			s0 = strtoull(fake_get(f, p), NULL, 10);
			snprintf(p, sizeof(p), "kdamonds/0/contexts/0/targets/0/regions/%u/end", k);
			e0 = strtoull(fake_get(f, p), NULL, 10);
			same = s0 == want[k].start && e0 == want[k].end;
			a = a || (s0 == BASE(0) && e0 == BASE(0) + 2 * MIB);
			b = b || (s0 == BASE(0) + 3 * MIB && e0 == BASE(0) + 8 * MIB);
		}
		ok(same,
		   "the new target starts with a DAMON region per large mapping of its maps "
		   "(%u regions)",
		   n);
#ifndef __SANITIZE_ADDRESS__
		/* (under ASan the largest mappings are the sanitizer's shadow reservations) */
		ok(a && b, "both of its data mappings are among them");
#endif
	}
	f->nvr = 0;
	f->vr[f->nvr++] =
		(struct fake_vregion){ 0, BASE(0) + MIB, BASE(0) + 3 * MIB + 64 * 1024, 0, 100 };
	usleep(1100000);
	vaddr_cycle(v);
	vaddr_cycle(v);
	{
		unsigned a = resident(fd, MIB, MIB), e = resident(fd, 3 * MIB, 64 * 1024);
		const struct vaddr_policy_stats *ps = vaddr_policy_stats(v, "host");

		printf("# resident: the first mapping's piece %u/256, the next one's 64 KiB "
		       "%u/16\n",
		       a, e);
		/* what the kernel then keeps (pages still in another CPU's LRU batch: 30 of 256
		 * once under load) is its business: the advice is pageoutd's */
		ok(ps->advised_bytes_total == MIB && a < 256,
		   "the piece most samples fell on, and only it, is advised (%" PRIu64 " bytes)",
		   ps->advised_bytes_total);
		ok(e == 16 && ps->skipped_total[SKIP_SPARSE] >= 64 * 1024,
		   "the next mapping's 64 KiB in the same region is left alone, counted as sparse");
	}
	rig_down(&g);
}

static int mkdir_p(const char *path)
{
	char p[PATH_MAX * 3];

	str_copy(p, sizeof(p), path);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			return -errno;
		*s = '/';
	}
	return mkdir(p, 0755) < 0 && errno != EEXIST ? -errno : 0;
}

static void put_state(const char *dir, const char *state)
{
	char p[PATH_MAX * 2];
	FILE *f;

	snprintf(p, sizeof(p), "%s/freezer.state", dir);
	f = fopen(p, "w");
	if (f) {
		fputs(state, f);
		fclose(f);
	}
}

/*
 * frozen_only on cgroup v1 with a freezer tree in a temp directory (never a host cgroup
 * frozen): no freezer, or a thawed cgroup, advises nothing and takes nothing from the quota;
 * the cycle after the freeze advises its cold memory (the books were kept while it ran); a
 * thaw stops it again.
 */
static void frozen_gate(const struct cgrp_root *cg, const char *mine, const char *procs, int fd)
{
	struct cgrp_root fcg = *cg;
	char dir[PATH_MAX * 3];
	const struct vaddr_policy_stats *ps;
	const struct policy_state *st;
	struct rig g;

	if (cg->version != 1) {
		printf("# frozen_only: the v1 freezer tree test needs a v1 memory hierarchy\n");
		return;
	}
	fcg.freezer[0] = '\0';
	if (!rig_up(&g, &fcg, mine, procs,
		    "min_age = 1s\nmax_access_rate = 0%\nmemory = file\nquota = 2M/10m\n"
		    "frozen_only = yes\n",
		    "frozen_only: an engine, a quota of 2 MiB"))
		return;
	vaddr_cycle(g.v);
	g.f->nvr = 0;
	g.f->vr[g.f->nvr++] = (struct fake_vregion){ 0, BASE(0), BASE(0) + 2 * MIB, 0, 100 };
	usleep(1100000);
	vaddr_cycle(g.v);
	vaddr_cycle(g.v);
	ps = vaddr_policy_stats(g.v, "host");
	st = vaddr_policy_state(g.v, "host");
	ok(ps->freezer_missing && ps->advised_bytes_total == 0 &&
		   ps->skipped_total[SKIP_NOT_FROZEN] >= 2 * MIB,
	   "no freezer: reported, nothing advised, the cold 2 MiB counted as not frozen");
	snprintf(dir, sizeof(dir), "%s/freezer%s", g.f->top, mine);
	if (mkdir_p(dir) < 0) {
		ok(false, "a freezer tree at %s", dir);
		rig_down(&g);
		return;
	}
	str_copy(fcg.freezer, sizeof(fcg.freezer), g.f->top);
	str_copy(fcg.freezer + strlen(fcg.freezer), sizeof(fcg.freezer) - strlen(fcg.freezer),
		 "/freezer");
	put_state(dir, "THAWED\n");
	vaddr_cycle(g.v);
	vaddr_cycle(g.v);
	ok(!ps->freezer_missing && ps->frozen_cgroups == 0 && ps->advised_bytes_total == 0 &&
		   resident(fd, 0, 2 * MIB) == 512,
	   "thawed: nothing advised, the cold pages stay");
	ok(st->tokens == 2 * MIB, "and the quota is untouched (%" PRIu64 " bytes of tokens)",
	   st->tokens);
	put_state(dir, "FROZEN\n");
	is_int((int)vaddr_frozen_changed(g.v), 1, "the freeze is seen between cycles");
	vaddr_cycle(g.v);
	ok(ps->frozen_cgroups == 1 && ps->advised_bytes_total == 2 * MIB &&
		   resident(fd, 0, 2 * MIB) == 0,
	   "frozen: the first cycle after the freeze advises its cold 2 MiB (%" PRIu64 " bytes)",
	   ps->advised_bytes_total);
	put_state(dir, "THAWED\n");
	is_int((int)vaddr_frozen_changed(g.v), 0, "a thaw needs no early cycle");
	g.f->vr[g.f->nvr++] =
		(struct fake_vregion){ 0, BASE(0) + 3 * MIB, BASE(0) + 4 * MIB, 0, 100 };
	vaddr_cycle(g.v);
	vaddr_cycle(g.v);
	ok(ps->advised_bytes_total == 2 * MIB && resident(fd, 3 * MIB, MIB) == 256,
	   "thawed again: its newly cold MiB is not advised");
	put_state(dir, "");
	rig_down(&g);
}

/* A child whose SIGUSR1 reads back its cold 2 MiB: major faults once they were paged out. */
static volatile uint64_t touch_base;

static void touch(int sig)
{
	volatile char sink = 0;

	(void)sig;
	for (uint64_t o = 0; o < 2 * MIB; o += 4096)
		sink += ((volatile char *)(uintptr_t)touch_base)[o];
}

static int toucher_setup(void *arg)
{
	const struct child_args *c = arg;
	struct sigaction sa = { .sa_handler = touch };

	touch_base = BASE(c->k);
	return sigaction(SIGUSR1, &sa, NULL) < 0 ? 5 : child_setup(arg);
}

/* The metrics text of a report of table cs with cfg's policies and no engine. */
static char *metrics_of(const struct cfg *cfg, const struct cgstat *cs)
{
	struct report_src rs = { .cfg = cfg, .cgstat = cs, .status = "test" };
	struct sbuf b = { 0 };

	report_metrics(&rs, &b);
	return b.s;
}

/* Frozen time and the thaw window on a clock of the test's own (a cgroup that does not exist). */
static void frozen_clock(void)
{
	const uint64_t sec = USEC_PER_SEC;
	struct cgrp_root none = { 0 };
	struct cgstat *cs = cgstat_new(&none, -1);
	struct cgstat_entry *x = cgstat_get(cs, ENGINE_VADDR, "host", "/pageoutd-no-such-app");

	cgstat_frozen(cs, x, 0, 1 * sec);
	cgstat_frozen(cs, x, 1, 10 * sec);
	cgstat_frozen(cs, x, 1, 12 * sec);
	ok(cgstat_frozen_us(x, 14 * sec) == 4 * sec && x->thaws_total == 0 && !cgstat_next_due(cs),
	   "running, then frozen at 10 s: 4 s frozen at 14 s, no thaw, no window");
	cgstat_frozen(cs, x, 0, 25 * sec);
	ok(x->frozen_us_total == 15 * sec && cgstat_frozen_us(x, 40 * sec) == 15 * sec &&
		   x->thaws_total == 1 && cgstat_next_due(cs) == 27 * sec,
	   "thawed at 25 s: 15 s frozen, one thaw, the window closes at 27 s");
	is_int(cgstat_run_due(cs, 27 * sec - 1), 0, "the window stays open until then");
	is_int(cgstat_run_due(cs, 27 * sec), 1, "and closes at 27 s");
	ok(x->thaw_faults_last == 0 && !cgstat_next_due(cs), "no process, no fault");
	cgstat_frozen(cs, x, 1, 30 * sec);
	cgstat_frozen(cs, x, -ENOENT, 31 * sec);
	ok(x->frozen_us_total == 16 * sec && x->thaws_total == 1 && !cgstat_next_due(cs),
	   "a cgroup gone while frozen ends its frozen time (16 s), without a thaw");
	cgstat_free(cs);
}

/* The parts of cgstat that need no cgroup: /proc/PID/stat, label escaping, mark and sweep. */
static void cgstat_pure(const struct cfg *cfg)
{
	static const char odd[] = "42 (a) b (c)) S 1 42 42 0 -1 4194560 100 0 7 0 1 2 0 0 20 0 1 0 "
				  "12345 1000 10\n";
	struct cgstat *cs = cgstat_new(NULL, -1);
	struct cgstat_entry *e;
	uint64_t maj = 0, start = 0;
	char *m;

	is_int(cgstat_parse_stat(odd, sizeof(odd) - 1, &maj, &start), 0,
	       "/proc/PID/stat with parentheses and spaces in the command parses");
	ok(maj == 7 && start == 12345, "majflt %" PRIu64 " and starttime %" PRIu64, maj, start);
	is_int(cgstat_parse_stat("42 (x", 5, &maj, &start), -EINVAL, "a cut stat is refused");
	e = cgstat_get(cs, ENGINE_VADDR, "host", "/apps/uid_1\"x\\y\nz");
	cgstat_reclaimed(e, 4096);
	cgstat_get(cs, ENGINE_PADDR, "host", "/apps/uid_2");
	m = metrics_of(cfg, cs);
	has_str(m,
		"pageoutd_cgroup_reclaimed_bytes_total{policy=\"host\",cgroup=\"/apps/uid_1\\\"x"
		"\\\\y\\nz\"} 4096\n",
		"metrics: a cgroup label has its quote, backslash and newline escaped");
	ok(m && !strstr(m, "pageoutd_cgroup_frozen{"),
	   "and no frozen figure for a cgroup whose policy does not watch it");
	free(m);
	cgstat_mark(cs, ENGINE_VADDR);
	is_int(cgstat_sweep(cs, ENGINE_VADDR), 1, "a vaddr cgroup not matched again is freed");
	ok(cgstat_count(cs) == 1 && cgstat_find(cs, ENGINE_PADDR, "host", "/apps/uid_2"),
	   "and the paddr one stays");
	cgstat_free(cs);
	frozen_clock();
}

/* Wait until the file range's 512 pages are back in the page cache (the child read them). */
static bool back_in(int fd, uint64_t off)
{
	for (int i = 0; i < 100; i++) {
		if (resident(fd, off, 2 * MIB) == 512)
			return true;
		usleep(20000);
	}
	return false;
}

/*
 * effective_dac: of CAP_DAC_OVERRIDE and CAP_FOWNER, only those in `keep` (capability bits)
 * in this process's effective set; both stay permitted. Returns 0 or -errno.
 */
static int effective_dac(uint32_t keep)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	const uint32_t bits = 1u << CAP_DAC_OVERRIDE | 1u << CAP_FOWNER;

	if (syscall(SYS_capget, &h, d) < 0)
		return -errno;
	d[0].effective = (d[0].effective & ~bits) | (keep & bits & d[0].permitted);
	return syscall(SYS_capset, &h, d) < 0 ? -errno : 0;
}

/*
 * Advice that cannot act: child 0's cold file pages [0, 2M) are mapped by this process too
 * (MADV_PAGEOUT leaves a page another process maps), and as root, [3M, 4M) belong to a file of
 * another user that this process, without CAP_DAC_OVERRIDE and CAP_FOWNER, may not write (the
 * kernel pages out no page of a shared mapping of such a file). Both ranges are advised once,
 * found with every page in place, counted as shared and kept rather than advised or
 * reclaimed, and not offered again. With CAP_FOWNER alone (the shipped unit's), the file's
 * pages go.
 */
static void cannot_act(const struct cgrp_root *cg, const char *mine, const char *procs, int fd)
{
	const bool root = geteuid() == 0;
	const struct vaddr_policy_stats *ps;
	struct stat st0;
	struct rig g;
	volatile char sink = 0;
	uint64_t sh, kept;
	bool dropped = false;
	char *m;

	m = mmap(NULL, 2 * MIB, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED || fstat(fd, &st0) < 0) {
		skip_each((const char *[]){ "up", "shared", "kept", "again", "fowner" }, 5,
			  "cannot map the file");
		return;
	}
	for (uint64_t o = 0; o < 2 * MIB; o += 4096)
		sink += m[o];
	if (!rig_up(&g, cg, mine, procs, "min_age = 1s\nmemory = file\nquota = none\n",
		    "advice that cannot act: child 0's first 2 MiB are mapped here too"))
		goto out;
	ps = vaddr_policy_stats(g.v, "host");
	vaddr_cycle(g.v);
	set_regions(g.f, &g.c);
	g.f->nvr = 1; /* the cold region only */
	dropped = root && fchown(fd, 65534, 65534) == 0 && fchmod(fd, 0444) == 0 &&
		  effective_dac(0) == 0;
	usleep(1100000);
	vaddr_cycle(g.v);
	vaddr_cycle(g.v);
	sh = ps->skipped_total[SKIP_SHARED];
	kept = ps->skipped_total[SKIP_KEPT];
	printf("# shared %" PRIu64 ", kept %" PRIu64 ", advised %" PRIu64 ", freed %" PRIu64
	       "; resident %u/512 and %u/256\n",
	       sh, kept, ps->advised_bytes_total, ps->freed_bytes_total, resident(fd, 0, 2 * MIB),
	       resident(fd, 3 * MIB, MIB));
	ok(sh == 2 * MIB && resident(fd, 0, 2 * MIB) == 512,
	   "the shared 2 MiB stayed, counted as shared, not as advised or reclaimed");
	if (dropped)
		ok(kept == MIB && ps->advised_bytes_total == 0 && ps->freed_bytes_total == 0 &&
			   resident(fd, 3 * MIB, MIB) == 256,
		   "another user's file, no CAP_DAC_OVERRIDE or CAP_FOWNER: its 1 MiB stayed, "
		   "counted as kept; nothing counted advised or reclaimed");
	else
		skip_each((const char *[]){ "kept" }, 1,
			  "not root: this process may write its own file");
	usleep(1100000);
	vaddr_cycle(g.v);
	vaddr_cycle(g.v);
	ok(ps->skipped_total[SKIP_SHARED] == sh && ps->skipped_total[SKIP_KEPT] == kept &&
		   ps->advised_bytes_total == (dropped ? 0 : ps->advised_bytes_total),
	   "two cycles later neither range was offered again");
	rig_down(&g);
	if (!dropped) {
		skip_each((const char *[]){ "up", "fowner" }, 2,
			  "not root: this process owns its file");
		goto out;
	}
	/* a new engine: nothing refused yet; CAP_FOWNER makes it the file's owner for the check */
	effective_dac(1u << CAP_FOWNER);
	if (rig_up(&g, cg, mine, procs, "min_age = 1s\nmemory = file\nquota = none\n",
		   "the same with CAP_FOWNER alone")) {
		ps = vaddr_policy_stats(g.v, "host");
		vaddr_cycle(g.v);
		set_regions(g.f, &g.c);
		g.f->nvr = 1;
		usleep(1100000);
		vaddr_cycle(g.v);
		vaddr_cycle(g.v);
		ok(ps->freed_bytes_total == MIB && ps->skipped_total[SKIP_KEPT] == 0 &&
			   resident(fd, 3 * MIB, MIB) == 0,
		   "with CAP_FOWNER the other user's file pages are paged out and counted (%" PRIu64
		   " bytes freed)",
		   ps->freed_bytes_total);
		rig_down(&g);
	}
out:
	if (dropped)
		effective_dac(1u << CAP_DAC_OVERRIDE | 1u << CAP_FOWNER);
	if (root && (fchmod(fd, st0.st_mode & 07777) < 0 || fchown(fd, st0.st_uid, st0.st_gid) < 0))
		printf("# cannot give the data file back its owner and mode: %s\n",
		       strerror(errno));
	munmap(m, 2 * MIB);
}

/*
 * The memory of mistakes on a real process and its real pagemap: child 0's cold file pages
 * are advised; the child reads 2 MiB of them back; the next cycle learns exactly those pages
 * (the rest stays out), holds them back while DAMON's age is below its hold (four times the
 * interval seen),
 * advises them again once older, and forgives them when they stay out for their watch. The
 * status JSON and the metrics show it.
 */
static void learn_host(const struct cgrp_root *cg, const char *mine, const char *procs, int fd)
{
	struct fakedamon *f = fake_new(FAKE_ABI_72);
	struct damon_io io = fake_io(f);
	struct child_args ca = { 0, procs, false };
	char pol[PATH_MAX * 3 + 256];
	const struct vaddr_policy_stats *ps;
	struct vaddr *v = NULL;
	struct damon d;
	struct cfg *cfg;
	pid_t pid[NCHILD] = { -1, -1 };
	uint64_t adv, held, learned, t_back, hold_us = 0;
	unsigned left0, left;
	bool up;

	snprintf(pol, sizeof(pol),
		 "[policy]\ncgroup = %s\nengine = vaddr\nmin_age = 250ms\nmax_access_rate = 0%%\n"
		 "memory = file\nquota = none\nlearn = yes\nmax_refault_rate = 0%%\n",
		 mine);
	cfg = load_policy(f->top, f->state_dir, pol);
	pid[0] = child_fork(toucher_setup, NULL, &ca);
	up = cfg && pid[0] > 0 && damon_open(&d, f->admin, f->state_dir, &io) == 0 &&
	     damon_acquire(&d) == 0 && vaddr_new(&v, cfg, &d, cg) == 0;
	/*
	 * max_refault_rate 0: the controller stays out, so that the watch is 8 x 250 ms. Its
	 * found-back pages are this cgroup's refaults; in a cgroup of file pages, most of them
	 * inactive, those are a large share of the working set, and the controller would
	 * stretch min_age (and the watch with it) by the host's timing.
	 */
	ok(up, "learn: a child with cold and hot file pages, min_age 250ms, learn = yes");
	if (!up)
		goto out;
	vaddr_cycle(v);
	set_regions(f, pid);
	usleep(1100000);
	vaddr_cycle(v);
	vaddr_cycle(v);
	ps = vaddr_policy_stats(v, "host");
	/*
	 * MADV_PAGEOUT takes only folios on the LRU: a page faulted in on another CPU moments
	 * before may still wait in that CPU's batch and stay; such pages are not watched
	 */
	left0 = resident(fd, 0, 2 * MIB);
	left = left0 + resident(fd, 3 * MIB, MIB);
	ok(ps->advised_bytes_total == 3 * MIB && left <= 64,
	   "learn: its 3 MiB of cold pages are advised and out (%u pages left in)", left);
	ok(ps->watched_bytes == 3 * MIB - left * 4096ull && ps->pagemap_pages_total >= 768,
	   "learn: and watched but for those (%" PRIu64 " bytes), their pagemap read after the "
	   "advice",
	   ps->watched_bytes);
	kill(pid[0], SIGUSR1);
	ok(back_in(fd, 0), "learn: the child reads 2 MiB of them back");
	vaddr_cycle(v);
	t_back = now_usec();
	ps = vaddr_policy_stats(v, "host");
	learned = ps->learned_bytes;
	/* the hold: four times the interval measured, which a busy host stretches */
	hold_us = 4 * ps->learned_interval_max_us;
	ok(ps->learned_ranges >= 1 && learned >= (512 - left0) * 4096ull && learned <= 2 * MIB &&
		   ps->learned_total == ps->learned_ranges,
	   "learn: the pages back are learned, nothing else (%" PRIu64 " ranges, %" PRIu64
	   " bytes)",
	   ps->learned_ranges, learned);
	is_u64(ps->back_pages_total, 512 - left0,
	       "learn: the pages back count as attributed refaults");
	ok(ps->watched_bytes == MIB - (left - left0) * 4096ull,
	   "learn: the MiB that stayed out is still watched");
	ok(ps->learned_interval_max_us >= 1000000 && ps->learned_interval_max_us < 10000000,
	   "learn: the interval is the idle time before the advice and the time out (%" PRIu64
	   " us)",
	   ps->learned_interval_max_us);
	{
		struct report_src rs = {
			.cfg = cfg, .vaddr = v, .status = "test", .damon_owned = true
		};
		struct sbuf b = { 0 };
		char want[160];

		report_stats_json(&rs, &b);
		snprintf(want, sizeof(want),
			 "\"learned\":{\"enabled\":true,\"ranges\":%" PRIu64 ",\"bytes\":%" PRIu64
			 ",",
			 ps->learned_ranges, learned);
		ok(b.s && strstr(b.s, want), "learn: the status JSON shows the learned ranges");
		free(b.s);
		b = (struct sbuf){ 0 };
		report_metrics(&rs, &b);
		snprintf(want, sizeof(want),
			 "pageoutd_refaults_attributed_total{policy=\"host\",engine=\"vaddr\"} "
			 "%u\n",
			 512 - left0);
		ok(b.s && strstr(b.s, want) &&
			   strstr(b.s,
				  "pageoutd_learned_ranges{policy=\"host\",engine=\"vaddr\"} "),
		   "learn: and the metrics");
		free(b.s);
		b = (struct sbuf){ 0 };
		report_detail(&rs, &b);
		snprintf(want, sizeof(want), "  learned: %" PRIu64 " ranges, ", ps->learned_ranges);
		ok(b.s && strstr(b.s, want) && strstr(b.s, " 1 learned, 0 forgiven, "),
		   "learn: and pageoutctl stats");
		free(b.s);
	}
	/* DAMON sees it idle again, but for less than its hold: held back */
	held = ps->skipped_total[SKIP_LEARNED];
	adv = ps->advised_bytes_total;
	f->vr[0].age = 5;
	vaddr_cycle(v);
	usleep(500000);
	f->vr[0].age = 10;
	vaddr_cycle(v);
	ps = vaddr_policy_stats(v, "host");
	ok(ps->skipped_total[SKIP_LEARNED] - held >= learned && ps->advised_bytes_total == adv,
	   "learn: idle 1 s, it is held back (%" PRIu64 " bytes counted as learned)",
	   ps->skipped_total[SKIP_LEARNED] - held);
	/* idle long enough: advised again, then forgiven once out for its whole watch */
	f->vr[0].age = 100;
	if (now_usec() < t_back + hold_us + 300000)
		usleep((useconds_t)(t_back + hold_us + 300000 - now_usec()));
	vaddr_cycle(v);
	vaddr_cycle(v);
	ps = vaddr_policy_stats(v, "host");
	ok(ps->advised_bytes_total - adv == learned,
	   "learn: idle for its hold (%" PRIu64 " ms), it is advised again (%" PRIu64 " bytes)",
	   hold_us / 1000, ps->advised_bytes_total - adv);
	usleep(4800000);
	vaddr_cycle(v);
	ps = vaddr_policy_stats(v, "host");
	ok(ps->learned_ranges == 0 && ps->forgiven_total >= 1 &&
		   ps->forgiven_bytes_total == learned,
	   "learn: out for its whole watch, it is forgiven (%" PRIu64 " ranges learned, %" PRIu64
	   " forgiven)",
	   ps->learned_ranges, ps->forgiven_total);
out:
	if (pid[0] > 0) {
		kill(pid[0], SIGKILL);
		waitpid(pid[0], NULL, 0);
	}
	vaddr_free(v);
	if (up) {
		damon_release(&d);
		damon_close(&d);
	}
	cfg_free(cfg);
	fake_free(f);
}

/*
 * Per-cgroup figures under a frozen_only policy over two apps (mine/app0 frozen, mine/app1
 * running), on the v1 freezer tree in a temp directory: only the frozen app's cold memory is
 * reclaimed and counted to it; its frozen time grows; a thaw opens the major fault window,
 * which counts the faults of its cold pages read back; an app whose cgroup is removed loses
 * its entry at the next cycle.
 */
static void per_cgroup(const struct cgrp_root *cg, const char *mine, int fd)
{
	struct cgrp_root fcg = *cg;
	char pol[PATH_MAX * 3 + 256], app[2][PATH_MAX * 3], dir[2][PATH_MAX * 4],
		procs[PATH_MAX * 4 + 16];
	struct cgstat_entry *e[2];
	struct fakedamon *f;
	struct damon_io io;
	struct damon d;
	struct vaddr *v = NULL;
	struct cfg *cfg;
	struct cgstat *cs;
	pid_t pid[2] = { -1, -1 };
	int procfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	uint64_t t0, base;
	bool up;

	if (cg->version != 1) {
		printf("# per-cgroup figures: the v1 freezer tree test needs a v1 memory "
		       "hierarchy\n");
		return;
	}
	f = fake_new(FAKE_ABI_72);
	io = fake_io(f);
	snprintf(pol, sizeof(pol),
		 "[policy]\ncgroup = %s/app*\nengine = vaddr\nmin_age = 1s\n"
		 "max_access_rate = 0%%\nmemory = file\nquota = none\nfrozen_only = yes\n",
		 mine);
	cfg = load_policy(f->top, f->state_dir, pol);
	cgstat_pure(cfg);
	snprintf(fcg.freezer, sizeof(fcg.freezer), "%s/freezer", f->top);
	cs = cgstat_new(&fcg, procfd);
	for (unsigned k = 0; k < 2; k++) {
		struct child_args ca = { k, procs, false };

		snprintf(app[k], sizeof(app[k]), "%s/app%u", mine, k);
		snprintf(dir[k], sizeof(dir[k]), "%s%s", cg->mount, app[k]);
		mkdir(dir[k], 0755);
		snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir[k]);
		pid[k] = child_fork(toucher_setup, NULL, &ca);
		snprintf(dir[k], sizeof(dir[k]), "%s%s", fcg.freezer, app[k]);
		mkdir_p(dir[k]);
		put_state(dir[k], k ? "THAWED\n" : "FROZEN\n");
	}
	up = cfg && cs && pid[0] > 0 && pid[1] > 0 &&
	     damon_open(&d, f->admin, f->state_dir, &io) == 0 && damon_acquire(&d) == 0 &&
	     vaddr_new(&v, cfg, &d, &fcg) == 0;
	ok(up, "per cgroup: two apps in cgroups of their own, app0 frozen, app1 running");
	if (!up)
		goto out;
	vaddr_cgstat(v, cs);
	vaddr_cycle(v);
	t0 = now_usec();
	set_regions(f, pid);
	for (unsigned i = 0; i < f->nvr; i++)
		f->vr[i].nr_accesses = 0;
	usleep(1100000);
	vaddr_cycle(v);
	vaddr_cycle(v);
	e[0] = cgstat_find(cs, ENGINE_VADDR, "host", app[0]);
	e[1] = cgstat_find(cs, ENGINE_VADDR, "host", app[1]);
	ok(e[0] && e[1] && cgstat_count(cs) == 2, "an entry for each matched cgroup");
	if (!e[0] || !e[1])
		goto out;
	is_u64(e[0]->reclaimed_bytes_total, 7 * MIB,
	       "the frozen app's cold mappings are reclaimed and counted to its cgroup");
	is_u64(e[1]->reclaimed_bytes_total, 0, "the running app's are not: 0 bytes");
	ok(e[0]->frozen == 1 && e[1]->frozen == 0, "states: app0 frozen, app1 running");
	ok(cgstat_frozen_us(e[0], now_usec()) >= 1000000 && cgstat_frozen_us(e[1], now_usec()) == 0,
	   "app0 was frozen %" PRIu64 " us of the %" PRIu64 " us watched, app1 none",
	   cgstat_frozen_us(e[0], now_usec()), now_usec() - t0);
	/* the thaw: the count now, the window open until 2 s from now */
	put_state(dir[0], "THAWED\n");
	vaddr_frozen_changed(v);
	base = e[0]->frozen_us_total;
	ok(e[0]->frozen == 0 && e[0]->thaws_total == 1 && base >= 1000000 &&
		   cgstat_frozen_us(e[0], now_usec() + 5000000) == base,
	   "thawed: one thaw, the frozen time stops growing (%" PRIu64 " us)", base);
	ok(cgstat_next_due(cs) > now_usec() && cgstat_run_due(cs, now_usec()) == 0,
	   "the fault window is open, due in the future, and not closed before");
	kill(pid[0], SIGUSR1);
	ok(back_in(fd, 0), "the thawed app reads its paged-out cold pages back");
	is_int(cgstat_run_due(cs, now_usec() + CGSTAT_THAW_WINDOW_US), 1,
	       "the window closes at its due time");
	ok(e[0]->thaw_faults_last > 0 && e[0]->thaw_faults_last != CGSTAT_NO_FAULTS &&
		   e[0]->thaw_faults_total == e[0]->thaw_faults_last && !cgstat_next_due(cs),
	   "its major faults after the thaw are counted: last %" PRIu64 ", total %" PRIu64,
	   e[0]->thaw_faults_last, e[0]->thaw_faults_total);
	{
		/* the same through /proc, as on a cgroup without the memory controller */
		struct cgstat_proc b[1];
		size_t nb = 0;
		uint64_t all = cgstat_proc_faults(procfd, &pid[0], 1, NULL, 0, b, &nb);

		ok(nb == 1 && all > 0 && all == b[0].majflt,
		   "through /proc: the process's majflt (%" PRIu64 ")", all);
		is_u64(cgstat_proc_faults(procfd, &pid[0], 1, b, nb, NULL, NULL), 0,
		       "and none since that base");
		b[0].start++;
		is_u64(cgstat_proc_faults(procfd, &pid[0], 1, b, nb, NULL, NULL), all,
		       "a base of another process with that pid counts it from its start");
	}
	{
		char *m = metrics_of(cfg, cs);
		char want[PATH_MAX * 4];

		snprintf(want, sizeof(want),
			 "pageoutd_cgroup_reclaimed_bytes_total{policy=\"host\",cgroup=\"%s\"} "
			 "%llu\n",
			 app[0], 7 * MIB);
		has_str(m, want, "metrics: the frozen app's reclaimed bytes");
		snprintf(want, sizeof(want),
			 "pageoutd_cgroup_thaw_major_faults_total{policy=\"host\",cgroup=\"%s\"} "
			 "%" PRIu64 "\n",
			 app[0], e[0]->thaw_faults_total);
		has_str(m, want, "metrics: its thaw major faults");
		snprintf(want, sizeof(want),
			 "pageoutd_cgroup_frozen{policy=\"host\",cgroup=\"%s\"} 0\n", app[1]);
		has_str(m, want, "metrics: the running app is not frozen");
		free(m);
	}
	/* app1 dies and its cgroup goes: its entry goes at the next cycle */
	kill(pid[1], SIGKILL);
	waitpid(pid[1], NULL, 0);
	pid[1] = -1;
	snprintf(procs, sizeof(procs), "%s%s", cg->mount, app[1]);
	is_int(rmdir(procs), 0, "app1's cgroup is removed");
	vaddr_cycle(v);
	ok(!cgstat_find(cs, ENGINE_VADDR, "host", app[1]) && cgstat_count(cs) == 1 &&
		   cgstat_find(cs, ENGINE_VADDR, "host", app[0]) == e[0],
	   "its entry is freed at the next cycle; app0's stays");
out:
	for (unsigned k = 0; k < 2; k++) {
		if (pid[k] > 0) {
			kill(pid[k], SIGKILL);
			waitpid(pid[k], NULL, 0);
		}
		snprintf(procs, sizeof(procs), "%s%s", cg->mount, app[k]);
		rmdir(procs);
	}
	vaddr_free(v);
	if (up) {
		damon_release(&d);
		damon_close(&d);
	}
	cgstat_free(cs);
	cfg_free(cfg);
	fake_free(f);
	close(procfd);
}

/* Write text to dir/name. */
static void put_in(const char *dir, const char *name, const char *text)
{
	char p[PATH_MAX * 4];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	if (f) {
		fprintf(f, "%s\n", text);
		fclose(f);
	}
}

/* A child joining the cgroup whose cgroup.procs is arg, with 2 MiB of anonymous memory. */
static int anon_setup(void *arg)
{
	char s[32], *m;

	snprintf(s, sizeof(s), "%d", getpid());
	if (write_file_at(AT_FDCWD, arg, s) < 0)
		return 3;
	m = mmap((void *)(uintptr_t)BASE(0), 2 * MIB, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (m == MAP_FAILED)
		return 4;
	memset(m, 0x5a, 2 * MIB);
	return 0;
}

/* LimitedSwap's cgroups below a matched pod: the pod's own, and one of each kind of container. */
enum { LS_POD, LS_LIMITED, LS_FREE, LS_N };
static const char *const ls_rel[LS_N] = { "/pod1", "/pod1/limited", "/pod1/free" };

/* Lay out the swap files of ls_rel under mine in the tree at swap: limited's swap.max is 0. */
static bool ls_tree(const char *swap, const char *mine, char dir[LS_N][PATH_MAX * 3])
{
	for (unsigned k = 0; k < LS_N; k++) {
		snprintf(dir[k], sizeof(dir[k]), "%s%s%s", swap, mine, ls_rel[k]);
		if (mkdir_p(dir[k]) < 0)
			return false;
		put_in(dir[k], "memory.swap.max", k == LS_LIMITED ? "0" : "max");
		put_in(dir[k], "memory.swap.current", "0");
	}
	return true;
}

/*
 * The swap room that gates a process's anonymous pageout is that of the cgroup it is in:
 * Kubernetes' LimitedSwap writes memory.swap.max = 0 on the container cgroups below the pod
 * cgroup a policy matches. Real cgroups below this test's own (pod1 matched by a glob, a
 * container in it that may not swap and one that may), each container with a process holding
 * 2 MiB of cold anonymous memory, and the swap files in a v2 tree of plain files in a temp
 * directory. Only the limited container's bytes count as swap_limit, none of them is advised;
 * when its limit goes, the next cycle no longer holds it back.
 */
static void leaf_swap_limit(const struct cgrp_root *cg, const char *mine)
{
	struct cgrp_root fcg = *cg;
	char pol[PATH_MAX * 3 + 256], cgdir[LS_N][PATH_MAX * 3], swdir[LS_N][PATH_MAX * 3],
		procs[PATH_MAX * 3 + 16];
	struct fakedamon *f = fake_new(FAKE_ABI_72);
	struct damon_io io = fake_io(f);
	const struct vaddr_policy_stats *ps;
	uint64_t lim0, adv0;
	struct vaddr *v = NULL;
	struct damon d;
	struct cfg *cfg;
	pid_t pid[LS_N] = { -1, -1, -1 };
	bool up = true;

	snprintf(fcg.swap, sizeof(fcg.swap), "%s/swap", f->top);
	snprintf(pol, sizeof(pol),
		 "[policy]\ncgroup = %s/pod*\nengine = vaddr\nmin_age = 1s\n"
		 "max_access_rate = 0%%\nmemory = anon,file\nquota = none\n",
		 mine);
	rig_daemon = "dry_run = yes\n";
	cfg = load_policy(f->top, f->state_dir, pol);
	rig_daemon = "";
	for (unsigned k = 0; k < LS_N; k++) {
		snprintf(cgdir[k], sizeof(cgdir[k]), "%s%s%s", cg->mount, mine, ls_rel[k]);
		up = up && mkdir(cgdir[k], 0755) == 0;
		snprintf(procs, sizeof(procs), "%s/cgroup.procs", cgdir[k]);
		if (up && k != LS_POD)
			pid[k] = child_fork(anon_setup, NULL, procs);
	}
	up = up && cfg && pid[LS_LIMITED] > 0 && pid[LS_FREE] > 0 &&
	     ls_tree(fcg.swap, mine, swdir) && damon_open(&d, f->admin, f->state_dir, &io) == 0 &&
	     damon_acquire(&d) == 0 && vaddr_new(&v, cfg, &d, &fcg) == 0;
	ok(up, "LimitedSwap: a pod matched, a container with swap.max 0 and one with max below it");
	if (!up)
		goto out;
	vaddr_cycle(v);
	ps = vaddr_policy_stats(v, "host");
	is_u64(ps->procs, 2, "both containers' processes are targets of the pod's policy");
	f->nvr = 0;
	for (unsigned t = 0; t < 2; t++)
		f->vr[f->nvr++] = (struct fake_vregion){ t, BASE(0), BASE(0) + 2 * MIB, 0, 100 };
	usleep(1100000);
	vaddr_cycle(v);
	vaddr_cycle(v);
	lim0 = ps->skipped_total[SKIP_SWAP_LIMIT];
	adv0 = ps->advised_bytes_total;
	vaddr_cycle(v);
	printf("# swap_limit %" PRIu64 " bytes, then +%" PRIu64 " in a cycle; swap_reserve %" PRIu64
	       "; advised %" PRIu64 "\n",
	       lim0, ps->skipped_total[SKIP_SWAP_LIMIT] - lim0,
	       ps->skipped_total[SKIP_SWAP_RESERVE], ps->advised_bytes_total);
	ok(lim0 >= 2 * MIB && lim0 % (2 * MIB) == 0 &&
		   ps->skipped_total[SKIP_SWAP_LIMIT] - lim0 == 2 * MIB,
	   "the limited container's cold 2 MiB count as swap_limit, each cycle; the other's not");
	ok(ps->advised_bytes_total <= 2 * MIB && ps->advised_bytes_total - adv0 <= 2 * MIB,
	   "and are never advised (%" PRIu64 " bytes advised: the other container's at most)",
	   ps->advised_bytes_total);
	put_in(swdir[LS_LIMITED], "memory.swap.max", "max");
	lim0 = ps->skipped_total[SKIP_SWAP_LIMIT];
	vaddr_cycle(v);
	is_u64(ps->skipped_total[SKIP_SWAP_LIMIT] - lim0, 0,
	       "its swap.max back to max: the next cycle no longer holds it back");
	put_in(swdir[LS_POD], "memory.swap.max", "0");
	vaddr_cycle(v);
	lim0 = ps->skipped_total[SKIP_SWAP_LIMIT];
	vaddr_cycle(v);
	is_u64(ps->skipped_total[SKIP_SWAP_LIMIT] - lim0, 4 * MIB,
	       "the pod's own swap.max 0 holds back both containers");
out:
	for (unsigned k = LS_N; k-- > 0;) {
		if (pid[k] > 0) {
			kill(pid[k], SIGKILL);
			waitpid(pid[k], NULL, 0);
		}
		rmdir(cgdir[k]);
	}
	vaddr_free(v);
	if (up) {
		damon_release(&d);
		damon_close(&d);
	}
	cfg_free(cfg);
	fake_free(f);
}

int main(void)
{
	struct fakedamon *f = fake_new(FAKE_ABI_612);
	struct damon_io io = fake_io(f);
	struct cgrp_root cg;
	struct damon d;
	struct vaddr *v = NULL;
	struct cfg *cfg = NULL;
	struct cfg_errors errs = { 0 };
	char own[PATH_MAX], mine[PATH_MAX * 2], procs[PATH_MAX * 3] = "", conf[PATH_MAX],
								 dir[PATH_MAX], buf[PATH_MAX * 3];
	pid_t pids[NCHILD];
	int fd, r;
	const struct vaddr_policy_stats *ps;
	bool made = false;

	log_setup(LOG_TARGET_STDERR, LOG_WARNING);
	if (cgrp_init(&cg) < 0 || cgrp_of_pid(getpid(), own, sizeof(own)) < 0)
		tap_skip_all("no memory cgroup hierarchy");
	/* a child cgroup of our own, or our own cgroup where we may not create one */
	snprintf(mine, sizeof(mine), "%s/pageoutd-host-%d", strcmp(own, "/") ? own : "",
		 (int)getpid());
	snprintf(buf, sizeof(buf), "%s%s", cg.mount, mine);
	if (mkdir(buf, 0755) == 0) {
		made = true;
		snprintf(procs, sizeof(procs), "%s/cgroup.procs", buf);
	} else {
		printf("# cannot create %s (%s): the children stay in %s with this test\n", buf,
		       strerror(errno), own);
		str_copy(mine, sizeof(mine), own);
	}
	/* the file on the build directory's file system: clean page cache pages, no swap needed */
	snprintf(file, sizeof(file), "vaddr-host-%d.data", (int)getpid());
	fd = open(file, O_RDWR | O_CREAT | O_TRUNC, 0600);
	for (unsigned i = 0; i < NMIDDLE * 8; i++) {
		static char mb[MIB];

		memset(mb, (int)i + 1, sizeof(mb));
		if (write(fd, mb, sizeof(mb)) != (ssize_t)sizeof(mb))
			break;
	}
	fsync(fd);
	for (unsigned k = 0; k < NCHILD; k++)
		pids[k] = child(k, procs, k == 1);
	ok(pids[0] > 0 && pids[1] > 0,
	   "two children map their 8 MiB of a file, child 1 mlocks 1 MiB");

	snprintf(dir, sizeof(dir), "%s/conf.d", f->top);
	mkdir(dir, 0755);
	snprintf(conf, sizeof(conf), "%s/pageoutd.conf", f->top);
	snprintf(buf, sizeof(buf), "[daemon]\ninterval = 1s\nstate_dir = %s\ndry_run = yes\n",
		 f->state_dir);
	{
		FILE *c = fopen(conf, "w");

		fputs(buf, c);
		fclose(c);
		snprintf(buf, sizeof(buf), "%s/host.conf", dir);
		c = fopen(buf, "w");
		fprintf(c,
			"[policy]\ncgroup = %s\nengine = vaddr\nmin_age = 1s\nmemory = file\n"
			"quota = none\n",
			mine);
		fclose(c);
	}
	r = cfg_load(conf, dir, true, &cfg, &errs);
	for (unsigned i = 0; i < errs.nr; i++)
		printf("# %s\n", errs.msgs[i]);
	cfg_errors_fini(&errs);
	is_int(r, 0, "configuration");
	if (r < 0)
		return tap_exit();
	is_int(damon_open(&d, f->admin, f->state_dir, &io) ?: damon_acquire(&d), 0,
	       "the emulated DAMON tree is acquired");
	is_int(vaddr_new(&v, cfg, &d, &cg), 0, "engine");
	is_int(vaddr_cycle(v), 0, "cycle 1: targets registered, kdamond started");
	is_u64(vaddr_policy_stats(v, "host")->procs, NCHILD, "both children are targets");
	set_regions(f, pids);
	usleep(1100000);
	vaddr_cycle(v);
	{
		/* 6.12 answers some updates without any region: that snapshot is no news */
		unsigned nvr = f->nvr;
		uint64_t empty = vaddr_stats(v)->empty_snapshots;

		f->nvr = 0;
		vaddr_cycle(v);
		f->nvr = nvr;
		ok(vaddr_stats(v)->empty_snapshots > empty,
		   "a snapshot without a target's regions is counted as empty (%" PRIu64 ")",
		   vaddr_stats(v)->empty_snapshots - empty);
	}
	vaddr_cycle(v); /* agrees with the snapshot before the empty one: advised (dry run) */
	ps = vaddr_policy_stats(v, "host");
	is_u64(ps->advised_bytes_total, 7 * MIB,
	       "the next snapshot agrees with the one before the empty one: every cold range of "
	       "both targets is advised (dry run)");
	ok(ps->advised_bytes_total > 0 && resident(fd, 0, 2 * MIB) == 512,
	   "dry run: %" PRIu64 " bytes would be advised, the page cache is untouched",
	   ps->advised_bytes_total);
	cfg->daemon.dry_run = false;
	vaddr_cycle(v);
	ps = vaddr_policy_stats(v, "host");
	{
		unsigned c0 = resident(fd, 0, 2 * MIB) + resident(fd, 3 * MIB, MIB);
		unsigned h0 = resident(fd, 4 * MIB, 4 * MIB);
		unsigned c1 = resident(fd, 8 * MIB + MIB, MIB) + resident(fd, 11 * MIB, MIB);
		unsigned l1 = resident(fd, 8 * MIB, MIB);
		unsigned h1 = resident(fd, 12 * MIB, 4 * MIB);

		printf("# resident pages after pageout: child 0 cold %u/768 hot %u/1024; child 1 "
		       "cold %u/512 locked %u/256 hot %u/1024\n",
		       c0, h0, c1, l1, h1);
		ok(c0 == 0 && c1 == 0, "the cold ranges left the page cache, on both sides of the "
				       "hole");
		ok(h0 == 1024 && h1 == 1024, "the hot ranges stayed");
		ok(l1 == 256, "the mlocked range stayed");
		ok(ps->skipped_total[SKIP_LOCKED] >= MIB,
		   "and is counted as locked, not reclaimed (%" PRIu64 " bytes)",
		   ps->skipped_total[SKIP_LOCKED]);
		is_u64(ps->last_advised, 5 * MIB,
		       "exactly the mapped, unlocked cold bytes were advised: the hole is not");
		ok(ps->rss_drop_bytes_total > 0, "an RSS drop was observed (%" PRIu64 " bytes)",
		   ps->rss_drop_bytes_total);
	}
	{
		/* the kernel refused the locked range once: it is not asked again */
		uint64_t einval = ps->errors_total[MADV_ERR_EINVAL],
			 locked = ps->skipped_total[SKIP_LOCKED];

		uint64_t reads = vaddr_stats(v)->maps_reads, kept = vaddr_stats(v)->maps_kept;

		ok(einval >= 1, "the locked range was refused by the kernel (%" PRIu64 " EINVAL)",
		   einval);
		vaddr_cycle(v);
		vaddr_cycle(v);
		ps = vaddr_policy_stats(v, "host");
		ok(ps->errors_total[MADV_ERR_EINVAL] == einval &&
			   ps->skipped_total[SKIP_LOCKED] == locked,
		   "two cycles later it was not offered again (%" PRIu64 " EINVAL)",
		   ps->errors_total[MADV_ERR_EINVAL]);
		/* every cold piece advised or refused: nothing to advise, maps need not be read */
		is_u64(vaddr_stats(v)->maps_reads - reads, 0,
		       "with every cold piece advised or refused, maps is not read again");
		is_u64(vaddr_stats(v)->maps_kept - kept, 2 * NCHILD,
		       "both targets were settled in both cycles");
	}
	{
		/* the hot half of the first target turns cold: it has something to advise, maps is read */
		uint64_t reads = vaddr_stats(v)->maps_reads, adv = ps->advised_bytes_total;

		f->vr[1].nr_accesses = 0;
		vaddr_cycle(v);
		vaddr_cycle(v);
		ps = vaddr_policy_stats(v, "host");
		is_u64(vaddr_stats(v)->maps_reads - reads, 2,
		       "a target with a new cold region has its maps read in each cycle until "
		       "advised");
		is_u64(ps->advised_bytes_total - adv, 4 * MIB,
		       "and its 4 MiB turned cold are advised once two snapshots agree");
	}
	{
		/*
		 * memory = anon: the hot half of the other target turns cold, but it is a file
		 * mapping, which this policy never advises: still nothing to advise, maps unread
		 */
		uint64_t reads = vaddr_stats(v)->maps_reads, adv = ps->advised_bytes_total;

		cfg->policies[0].memory = MEMORY_ANON;
		f->vr[3].nr_accesses = 0;
		vaddr_cycle(v);
		vaddr_cycle(v);
		ps = vaddr_policy_stats(v, "host");
		is_u64(vaddr_stats(v)->maps_reads - reads, 0,
		       "cold file pages under a memory = anon policy: maps is not read for them");
		is_u64(ps->advised_bytes_total - adv, 0, "and nothing is advised");
		cfg->policies[0].memory = MEMORY_FILE;
	}
	kill(pids[0], SIGKILL);
	waitpid(pids[0], NULL, 0);
	is_int(vaddr_cycle(v), 0, "a child exited: the cycle goes on");
	is_u64(vaddr_policy_stats(v, "host")->procs, 1, "and it is no longer a target");
	vaddr_free(v);
	is_int(damon_release(&d), 0, "release");
	damon_close(&d);
	kill(pids[1], SIGKILL);
	waitpid(pids[1], NULL, 0);
	quota_order(&cg, mine, procs, fd);
	middle_exit(&cg, mine, procs, FAKE_ABI_72);
	middle_exit(&cg, mine, procs, FAKE_ABI_612);
	confirm_snapshots(&cg, mine, procs, fd);
	edge_piece(&cg, mine, procs, fd);
	frozen_gate(&cg, mine, procs, fd);
	learn_host(&cg, mine, procs, fd);
	cannot_act(&cg, mine, procs, fd);
	if (made)
		per_cgroup(&cg, mine, fd);
	else
		printf("# per-cgroup figures: need a cgroup of the test's own\n");
	if (made)
		leaf_swap_limit(&cg, mine);
	else
		printf("# swap room of the cgroup a process is in: need a cgroup of the test's "
		       "own\n");
	close(fd);
	unlink(file);
	if (made) {
		snprintf(buf, sizeof(buf), "%s%s", cg.mount, mine);
		rmdir(buf);
	}
	cfg_free(cfg);
	fake_free(f);
	return tap_exit();
}
