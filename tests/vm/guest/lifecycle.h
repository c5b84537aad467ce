/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lifecycle: an Android-like app lifecycle for guest programs (tests/vm vm-android, bench
 * android). Apps are processes in AOSP's cgroup v2 layout /uid_<UID>/pid_<PID> (no memory
 * controller there, as on devices whose memcg is v1), each with hot, warm and cold anonymous
 * memory. lc_run() acts as ActivityManager does: every step one app comes to the foreground
 * (cgroup.freeze 0; it writes its hot area on every pass and its warm area on every fourth),
 * the previous one goes to the cached list (cgroup.freeze 1), new apps are launched and the
 * least recently used cached app is killed so that LC_ALIVE apps are alive. Meanwhile it reads
 * each app's areas (smaps) every LC_POLL_MS and counts into lc: how soon after its freeze a
 * cached app's cold memory was 90% out, what was swapped out of an app while it ran, the major
 * faults of a thaw's first 2 s, whether every app made progress in the foreground.
 * Include once per program.
 */
#ifndef PAGEOUTD_LIFECYCLE_H
#define PAGEOUTD_LIFECYCLE_H

#include "vmtest.h"

#define LC_ALIVE 8	/* cached apps alive at any time, besides the foreground one */
#define LC_NSLOT 64	/* apps launched in one run, at most */
#define LC_STEP_MS 4000 /* one foreground switch */
#define LC_POLL_MS 250	/* how often the areas are read */
#define LC_BOUND_S 40	/* cold memory of a frozen app is out within this */
#define LC_COLD_A 0x7e0000000000ULL
#define LC_WARM_A (LC_COLD_A + 64 * MIB)
#define LC_HOT_A (LC_COLD_A + 128 * MIB)
#define LC_COLD_SZ (16 * MIB)
#define LC_WARM_SZ (4 * MIB)
#define LC_HOT_SZ (4 * MIB)

enum lc_state { LC_GONE, LC_FOREGROUND, LC_CACHED };

struct lc_app {
	pid_t pid;
	unsigned uid;
	enum lc_state st;
	uint64_t used_ms;  /* when it last left the foreground (LRU order) */
	uint64_t froze_ms; /* when this freeze began */
	long reclaim_ms;   /* after this freeze: when 90% of cold was out, -1 not yet */
	bool freeze_ended; /* lc_freeze_end counted this freeze */
	uint64_t thaw_ms;
	uint64_t progress0; /* pass counter at the thaw */
	bool settled;	    /* thawed and one full pass made: the baselines are set */
	long hw0, cold0;    /* swap (kB) of hot+warm and of cold when it settled */
	long majflt0;	    /* at the thaw */
	long thaw_faults;   /* major faults in the first 2 s after the thaw, -1 pending */
};

static struct lc_app lc_apps[LC_NSLOT];
static volatile uint64_t *lc_progress; /* shared with the apps: passes made, per slot */
static unsigned lc_napps;
static uint64_t lc_t0;

/* what a run found */
struct lc_result {
	unsigned thaws;		/* cached apps brought back to the foreground */
	unsigned judged;	/* freezes that reached 90% of cold out, or lasted LC_BOUND_S */
	unsigned reclaimed_ok;	/* of those, 90% out within LC_BOUND_S */
	long reclaim_ms_sum;	/* over reclaimed_ok: time from the freeze to 90% out */
	long worst_reclaim_ms;	/* -1: none */
	unsigned freezes_ended; /* freezes of LC_BOUND_S or more that ended (thaw, kill, end) */
	long cold_out_kb_sum;	/* cold kB swapped when they ended */
	unsigned fg_periods;	/* foreground periods that ended */
	unsigned fg_progress;	/* of those, with passes made */
	unsigned settled;	/* foreground periods watched for what was taken */
	long taken_hw_kb;	/* hot+warm swapped out of an app while it ran */
	long taken_cold_kb;	/* cold swapped out of an app while it ran */
	long thaw_faults_sum;	/* major faults in the first 2 s after a thaw */
	long thaw_faults_n;
};
static struct lc_result lc = { .worst_reclaim_ms = -1 };
/* called after every launch and kill, when set (a method whose targets are pids) */
static void (*lc_changed)(void);

static inline uint64_t lc_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000 - lc_t0;
}

static inline void lc_cg_path(char *buf, size_t len, const struct lc_app *a, const char *file)
{
	snprintf(buf, len, VM_CGROOT "/uid_%u/pid_%d%s%s", a->uid, a->pid, file ? "/" : "",
		 file ? file : "");
}

static inline int lc_set_frozen(struct lc_app *a, bool frozen)
{
	char p[256];

	lc_cg_path(p, sizeof(p), a, "cgroup.freeze");
	return write_file_at(AT_FDCWD, p, frozen ? "1" : "0");
}

/* the app's own process: as libprocessgroup does at fork, it goes to /uid_U/pid_P */
static inline int lc_app_setup(void *arg)
{
	const struct lc_app *a = arg;
	const uint64_t addr[3] = { LC_COLD_A, LC_WARM_A, LC_HOT_A },
		       size[3] = { LC_COLD_SZ, LC_WARM_SZ, LC_HOT_SZ };
	char p[256], s[32];

	snprintf(p, sizeof(p), VM_CGROOT "/uid_%u", a->uid);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), VM_CGROOT "/uid_%u/pid_%d", a->uid, getpid());
	if (mkdir(p, 0755) < 0)
		return 2;
	snprintf(p, sizeof(p), VM_CGROOT "/uid_%u/pid_%d/cgroup.procs", a->uid, getpid());
	snprintf(s, sizeof(s), "%d", getpid());
	if (write_file_at(AT_FDCWD, p, s) < 0)
		return 2;
	for (unsigned i = 0; i < 3; i++) {
		void *m = mmap((void *)(uintptr_t)addr[i], size[i], PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

		if (m == MAP_FAILED)
			return 3;
		madvise(m, size[i], MADV_NOHUGEPAGE); /* count pages, not THPs */
		vm_touch(m, size[i], true);
	}
	vm_lock_code();
	return 0;
}

/* One pass writes the hot area, every fourth the warm one too; each area's protection is
 * toggled first so that QEMU's TLB does not hide the accesses (vmtest.h). */
static inline void lc_app_run(void *arg)
{
	const struct lc_app *a = arg;
	unsigned slot = (unsigned)(a - lc_apps);

	for (uint64_t pass = 0;; pass++) {
		mprotect((void *)(uintptr_t)LC_HOT_A, LC_HOT_SZ, PROT_READ);
		mprotect((void *)(uintptr_t)LC_HOT_A, LC_HOT_SZ, PROT_READ | PROT_WRITE);
		vm_touch((char *)(uintptr_t)LC_HOT_A, LC_HOT_SZ, true);
		if (pass % 4 == 0) {
			mprotect((void *)(uintptr_t)LC_WARM_A, LC_WARM_SZ, PROT_READ);
			mprotect((void *)(uintptr_t)LC_WARM_A, LC_WARM_SZ, PROT_READ | PROT_WRITE);
			vm_touch((char *)(uintptr_t)LC_WARM_A, LC_WARM_SZ, true);
		}
		lc_progress[slot]++;
		vm_sleep_ms(2);
	}
}

/* the swap of the app's three areas, in kB, from one read of smaps */
static inline int lc_area_swap(pid_t pid, long *cold, long *warm, long *hot)
{
	char p[64], line[512];
	FILE *f;
	long *cur = NULL;

	*cold = *warm = *hot = -1;
	snprintf(p, sizeof(p), "/proc/%d/smaps", pid);
	f = fopen(p, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e;

		if (sscanf(line, "%llx-%llx ", &s, &e) == 2 &&
		    strchr(line, '-') < strchr(line, ' '))
			cur = s == LC_COLD_A   ? cold
			      : s == LC_WARM_A ? warm
			      : s == LC_HOT_A  ? hot
					       : NULL;
		else if (cur && !strncmp(line, "Swap:", 5))
			*cur = strtol(line + 5, NULL, 10);
	}
	fclose(f);
	return *cold >= 0 && *warm >= 0 && *hot >= 0 ? 0 : -ENOENT;
}

static inline struct lc_app *lc_launch(void)
{
	struct lc_app *a;

	if (lc_napps == LC_NSLOT)
		return NULL;
	a = &lc_apps[lc_napps];
	a->uid = 10000 + lc_napps;
	a->reclaim_ms = -1;
	a->thaw_faults = 0; /* a launch: its faults are not a thaw's */
	a->pid = child_fork(lc_app_setup, lc_app_run, a);
	if (a->pid < 0)
		return NULL;
	lc_napps++;
	a->st = LC_FOREGROUND;
	a->thaw_ms = lc_now_ms();
	a->progress0 = lc_progress[a - lc_apps];
	a->majflt0 = vm_majflt(a->pid);
	return a;
}

/*
 * The end of a freeze (a thaw, a kill, the end of the run): what of the cold area is out; a
 * freeze that lasted the bound and is not 90% out yet is judged, and failed.
 */
static inline void lc_freeze_end(struct lc_app *a)
{
	long c, w, h;

	if (a->st != LC_CACHED || a->freeze_ended || lc_area_swap(a->pid, &c, &w, &h) < 0)
		return;
	a->freeze_ended = true;
	if (lc_now_ms() - a->froze_ms < LC_BOUND_S * 1000)
		return;
	lc.freezes_ended++;
	lc.cold_out_kb_sum += c;
	if (a->reclaim_ms >= 0)
		return;
	lc.judged++;
	printf("# app %u: only %ld of %llu kB of cold out %.1f s after its freeze\n", a->uid, c,
	       LC_COLD_SZ / 1024, (double)(lc_now_ms() - a->froze_ms) / 1000);
}

/* as ActivityManager kills a cached app: the process, then its cgroups */
static inline void lc_kill_app(struct lc_app *a)
{
	char p[256];

	lc_freeze_end(a);
	kill(a->pid, SIGKILL);
	waitpid(a->pid, NULL, 0);
	lc_cg_path(p, sizeof(p), a, NULL);
	rmdir(p);
	snprintf(p, sizeof(p), VM_CGROOT "/uid_%u", a->uid);
	rmdir(p);
	a->st = LC_GONE;
}

/* the foreground app goes to the cached list: frozen */
static inline void lc_to_cached(struct lc_app *a)
{
	if (lc_progress[a - lc_apps] <= a->progress0)
		printf("# app %u made no progress while in the foreground\n", a->uid);
	lc.fg_periods++;
	lc.fg_progress += lc_progress[a - lc_apps] > a->progress0;
	lc_set_frozen(a, true);
	a->st = LC_CACHED;
	a->used_ms = a->froze_ms = lc_now_ms();
	a->reclaim_ms = -1;
	a->freeze_ended = false;
	a->settled = false;
}

static inline void lc_to_foreground(struct lc_app *a)
{
	lc_freeze_end(a);
	lc_set_frozen(a, false);
	lc.thaws++;
	a->st = LC_FOREGROUND;
	a->thaw_ms = lc_now_ms();
	a->progress0 = lc_progress[a - lc_apps];
	a->majflt0 = vm_majflt(a->pid);
	a->thaw_faults = -1;
}

static inline struct lc_app *lc_pick_cached(bool lru)
{
	struct lc_app *best = NULL;

	for (unsigned i = 0; i < lc_napps; i++) {
		struct lc_app *a = &lc_apps[i];

		if (a->st == LC_CACHED &&
		    (!best || (lru ? a->used_ms < best->used_ms : a->used_ms > best->used_ms)))
			best = a;
	}
	return best;
}

static inline unsigned lc_alive(void)
{
	unsigned n = 0;

	for (unsigned i = 0; i < lc_napps; i++)
		n += lc_apps[i].st != LC_GONE;
	return n;
}

/* one poll: reclaim of the frozen lc_apps, nothing taken from the running one */
static inline void lc_poll_apps(void)
{
	for (unsigned i = 0; i < lc_napps; i++) {
		struct lc_app *a = &lc_apps[i];
		uint64_t t = lc_now_ms();
		long c, w, h;

		if (a->st == LC_GONE || lc_area_swap(a->pid, &c, &w, &h) < 0)
			continue;
		if (a->st == LC_CACHED && a->reclaim_ms < 0 &&
		    c >= (long)(LC_COLD_SZ / 1024) * 9 / 10) {
			a->reclaim_ms = (long)(t - a->froze_ms);
			lc.judged++;
			lc.reclaimed_ok += a->reclaim_ms <= LC_BOUND_S * 1000;
			lc.reclaim_ms_sum += a->reclaim_ms;
			if (a->reclaim_ms > lc.worst_reclaim_ms)
				lc.worst_reclaim_ms = a->reclaim_ms;
		}
		if (a->st != LC_FOREGROUND)
			continue;
		if (a->thaw_faults < 0 && t - a->thaw_ms >= 2000) {
			/* a thaw's first 2 s: what the app faulted back from zram */
			a->thaw_faults = vm_majflt(a->pid) - a->majflt0;
			lc.thaw_faults_sum += a->thaw_faults;
			lc.thaw_faults_n++;
		}
		/* settled: four passes since the thaw, so hot and warm were both written once */
		if (!a->settled && lc_progress[i] >= a->progress0 + 5 && t - a->thaw_ms >= 1000) {
			a->settled = true;
			a->hw0 = h + w;
			a->cold0 = c;
			lc.settled++;
		} else if (a->settled) {
			if (h + w > a->hw0) {
				printf("# app %u: %ld kB of hot+warm swapped out while it ran\n",
				       a->uid, h + w - a->hw0);
				lc.taken_hw_kb += h + w - a->hw0;
				a->hw0 = h + w;
			}
			if (c > a->cold0) {
				printf("# app %u: %ld kB of cold swapped out while it ran\n",
				       a->uid, c - a->cold0);
				lc.taken_cold_kb += c - a->cold0;
				a->cold0 = c;
			}
		}
	}
}

/* poll every LC_POLL_MS until the clock reads end: reading smaps takes time under TCG */
static inline void lc_poll_until(uint64_t end)
{
	while (lc_now_ms() < end) {
		vm_sleep_ms(LC_POLL_MS);
		lc_poll_apps();
	}
}

/*
 * lc_run: LC_ALIVE + 1 launches a second apart, then nstep steps of LC_STEP_MS in the order a
 * launch (the least recently used cached app killed first), a switch back to the last app, a
 * switch to the least recently used one. first, if set, is called once the first app runs.
 */
static inline void lc_run(unsigned nstep, void (*first)(struct lc_app *))
{
	struct lc_app *fg = NULL;

	for (unsigned i = 0; i <= LC_ALIVE; i++) {
		if (fg)
			lc_to_cached(fg);
		fg = lc_launch();
		if (!fg)
			break;
		if (lc_changed)
			lc_changed();
		if (i == 0 && first)
			first(fg);
		lc_poll_until(lc_now_ms() + 1000);
	}
	for (unsigned s = 0; fg && s < nstep; s++) {
		struct lc_app *next;

		/* a launch, a switch back to the last app, a switch to an old one */
		if (s % 3 == 0) {
			while (lc_alive() > LC_ALIVE)
				lc_kill_app(lc_pick_cached(true));
			lc_to_cached(fg);
			next = lc_launch();
			if (lc_changed)
				lc_changed();
		} else {
			next = lc_pick_cached(s % 3 == 2);
			lc_to_cached(fg);
			lc_to_foreground(next);
		}
		if (!next)
			break;
		fg = next;
		lc_poll_until(lc_now_ms() + LC_STEP_MS);
	}
	if (fg)
		lc_to_cached(fg);
	for (unsigned i = 0; i < lc_napps; i++)
		lc_freeze_end(&lc_apps[i]);
}

/* lc_end: every app still alive thawed and killed, its cgroups removed */
static inline void lc_end(void)
{
	for (unsigned i = 0; i < lc_napps; i++)
		if (lc_apps[i].st != LC_GONE) {
			lc_set_frozen(&lc_apps[i], false);
			lc_kill_app(&lc_apps[i]);
		}
}

/* lc_reset: for another run in the same program, after lc_end */
static inline void lc_reset(void)
{
	memset(lc_apps, 0, sizeof(lc_apps));
	memset((void *)lc_progress, 0, LC_NSLOT * sizeof(*lc_progress));
	lc_napps = 0;
	memset(&lc, 0, sizeof(lc));
	lc.worst_reclaim_ms = -1;
}

/* lc_init: the shared pass counters; call before lc_run. Returns 0 or -errno. */
static inline int lc_init(void)
{
	lc_t0 = 0;
	lc_t0 = lc_now_ms();
	lc_progress = mmap(NULL, LC_NSLOT * sizeof(*lc_progress), PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	return lc_progress == MAP_FAILED ? -errno : 0;
}

#endif
