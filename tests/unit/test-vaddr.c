// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The vaddr engine's pure parts (range sets, smaps parsing, VMA clipping), the shared policy
 * controller on recorded inputs, and madvise's partial-result contract against a scripted
 * process_madvise, plus one real call on a child.
 */
#include <config.h>

#include <errno.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/capability.h>

#include "pageoutd/madvise.h"
#include "pageoutd/policy.h"
#include "pageoutd/vaddr.h"
#include "../lib/tap.h"

#define K 4096ull

static struct vrange_list L(const uint64_t (*r)[2], size_t n) {
	struct vrange_list l = { 0 };

	for (size_t i = 0; i < n; i++)
		vrange_push(&l, r[i][0], r[i][1], (unsigned)i, 0);
	return l;
}

static void
ranges(void)
{
	const uint64_t a_[][2] = { { 0, 10 * K }, { 20 * K, 30 * K } };
	const uint64_t b_[][2] = { { 5 * K, 25 * K } };
	struct vrange_list a = L(a_, 2), b = L(b_, 1), o = { 0 };

	vrange_intersect(&a, &b, &o);
	ok(o.nr == 2 && o.r[0].start == 5 * K && o.r[0].end == 10 * K && o.r[1].start == 20 * K &&
		   o.r[1].end == 25 * K,
	   "intersection of two range sets");
	vrange_subtract(&a, &b, &o);
	ok(o.nr == 2 && o.r[0].end == 5 * K && o.r[1].start == 25 * K && o.r[1].end == 30 * K,
	   "difference of two range sets");
	is_u64(vrange_bytes(&o), 10 * K, "bytes of a set");
	vrange_subtract(&b, &a, &o);
	ok(o.nr == 1 && o.r[0].start == 10 * K && o.r[0].end == 20 * K, "the other difference");
	{
		struct vrange_list prev = { 0 }, cur = { 0 };
		uint64_t turned = 0;

		/* two regions cold in both snapshots 4 s apart: one aged on, one was reset */
		vrange_push(&prev, 0, 10 * K, 0, 5000000);
		vrange_push(&prev, 10 * K, 20 * K, 0, 5000000);
		vrange_push(&cur, 0, 10 * K, 0, 9000000);
		vrange_push(&cur, 10 * K, 20 * K, 0, 3500000);
		vrange_confirm(&cur, &prev, 1000000, &o, &turned);
		ok(o.nr == 1 && o.r[0].end == 10 * K && turned == 10 * K,
		   "two snapshots agree only where the age kept growing; a reset age turned hot");
		vrange_list_fini(&prev);
		vrange_list_fini(&cur);
	}
	vrange_list_fini(&a);
	vrange_list_fini(&b);
	vrange_list_fini(&o);
}

static const char smaps[] = "00400000-00401000 r-xp 00000000 08:01 1234 /usr/bin/app\n"
			    "Rss:                   4 kB\n"
			    "VmFlags: rd ex mr mw me\n"
			    "01000000-01100000 rw-p 00000000 00:00 0 [heap]\n"
			    "VmFlags: rd wr mr mw me ac\n"
			    "7f0000000000-7f0000100000 rw-p 00000000 00:00 0 \n"
			    "VmFlags: rd wr mr mw me ac\n"
			    "7f0000100000-7f0000200000 rw-p 00000000 00:00 0 \n"
			    "VmFlags: rd wr mr mw me lo ac\n"
			    "7f0000300000-7f0000400000 rw-s 00000000 08:01 99 /data/shared.db\n"
			    "VmFlags: rd wr sh mr mw me ms\n"
			    "7ffff7fc1000-7ffff7fc5000 r--p 00000000 00:00 0 [vvar]\n"
			    "VmFlags: rd mr pf io de dd\n"
			    "7ffff7fc5000-7ffff7fc7000 r-xp 00000000 00:00 0 [vdso]\n"
			    "VmFlags: rd ex mr mw me de\n";

static void vmas(void)
{
	struct vma_list v = { 0 };
	struct vrange_list in = { 0 }, out = { 0 };
	uint64_t sk[SKIP_MAX] = { 0 };

	is_int(vma_parse_smaps(smaps, &v), 0, "smaps parses");
	is_int(v.nr, 7, "7 VMAs");
	ok(v.v[0].cls == VMA_FILE && v.v[1].cls == VMA_ANON && v.v[2].cls == VMA_ANON &&
		   v.v[3].cls == VMA_LOCKED && v.v[4].cls == VMA_FILE && v.v[5].cls == VMA_LOCKED &&
		   v.v[6].cls == VMA_SPECIAL,
	   "classes: file, [heap] anon, anon, locked (lo), shared file, [vvar] pf, [vdso] special");
	/* one DAMON region over anon, locked, a hole and the shared file */
	vrange_push(&in, 0x7f0000000000, 0x7f0000400000, 0, 60000000);
	is_int(vrange_clip(&in, &v, MEMORY_ANON | MEMORY_FILE, 0, K, &out, sk), 0, "clip");
	ok(out.nr == 2 && out.r[0].start == 0x7f0000000000 && out.r[0].end == 0x7f0000100000 &&
		   out.r[1].start == 0x7f0000300000 && out.r[1].end == 0x7f0000400000,
	   "split at VMA boundaries: the anon and the file VMA, not the locked one nor the hole");
	is_u64(sk[SKIP_LOCKED], 0x100000, "the locked VMA's bytes are counted as locked");
	is_u64(sk[SKIP_VMA], 0x100000, "the hole is counted as not a VMA of a selected kind");
	memset(sk, 0, sizeof(sk));
	vrange_clip(&in, &v, MEMORY_ANON, 0, K, &out, sk);
	ok(out.nr == 1 && out.r[0].end == 0x7f0000100000, "memory = anon: only the anon VMA");
	is_u64(sk[SKIP_VMA], 0x200000, "file VMA and hole not taken");
	memset(sk, 0, sizeof(sk));
	vrange_clip(&in, &v, MEMORY_ANON | MEMORY_FILE, MEMORY_ANON, K, &out, sk);
	ok(out.nr == 1 && out.r[0].start == 0x7f0000300000,
	   "swap reserve hit: anon stops, file goes on");
	is_u64(sk[SKIP_SWAP_RESERVE], 0x100000, "the anon bytes are counted under swap_reserve");
	vrange_list_fini(&in);
	vrange_list_fini(&out);
	vma_list_fini(&v);
}

static void policy(void)
{
	struct cfg_policy p = { .min_age_us = 30000000,
				.quota_bytes = 100 << 20,
				.quota_interval_us = 1000000,
				.pressure_limit = 100000,
				.swap_reserve = 200000,
				.max_refault_rate = 2000,
				.memory = MEMORY_ANON | MEMORY_FILE };
	struct policy_input in = { .now_us = 1000000,
				   .refaults_known = true,
				   .memory_bytes = 1ull << 30,
				   .mem_total = 4ull << 30,
				   .mem_free = 1ull << 30,
				   .swap_total = 1ull << 30,
				   .swap_free = 1ull << 30,
				   .page_size = 4096 };
	struct policy_state s;

	policy_state_init(&s);
	policy_decide(&p, POLICY_GATES_ALL, &in, &s);
	ok(!s.paused && s.anon_allowed && s.file_allowed && s.min_age_us == 30000000 &&
		   s.budget == 100 << 20,
	   "quiet start: configured min_age and the full quota");
	policy_consume(&s, 60 << 20);
	in.now_us += 200000;
	policy_decide(&p, POLICY_GATES_ALL, &in, &s);
	is_u64(s.budget, 60 << 20, "token bucket: 40M left + 20M refilled in 200 ms");
	/* a refault spike: 1% of 1 GiB in 10 s = 6% per minute */
	in.now_us += 10000000;
	in.refault_pages += (1 << 30) / 100 / 4096;
	policy_decide(&p, POLICY_GATES_ALL, &in, &s);
	ok(s.age_factor == 2.0 && s.quota_scale == 0.5 && s.min_age_us == 60000000 &&
		   s.budget <= 50 << 20 && s.backoffs == 1,
	   "refault spike: min_age doubles, quota halves (rate %.0f ppm/min)", s.refault_rate);
	in.now_us += 10000000;
	in.refault_pages += (1 << 30) / 100 / 4096;
	policy_decide(&p, POLICY_GATES_ALL, &in, &s);
	ok(s.age_factor == 4.0 && s.backoffs == 2, "a second spike backs off further");
	for (int i = 0; i < 20; i++) {
		in.now_us += 10000000;
		policy_decide(&p, POLICY_GATES_ALL, &in, &s);
	}
	ok(s.age_factor == 1.0 && s.quota_scale == 1.0 && s.relaxes > 0,
	   "quiet minutes relax back to the configured values");
	in.swap_free = in.swap_total / 4;
	policy_decide(&p, POLICY_GATES_ALL, &in, &s);
	/* the reserve, 20% of 1 GiB, rounded up to a whole byte */
	ok(s.anon_allowed && s.anon_room == in.swap_free - (in.swap_total / 5 + 1),
	   "25%% of swap free, reserve 20%%: anon room is the 5%% above the reserve (%" PRIu64 ")",
	   s.anon_room);
	in.swap_free = in.swap_total / 10;
	policy_decide(&p, POLICY_GATES_ALL, &in, &s);
	ok(!s.anon_allowed && s.file_allowed && !s.anon_room && !s.paused,
	   "swap reserve (10%% free < 20%%): anon stops, file goes on");
	p.memory = MEMORY_ANON;
	policy_decide(&p, POLICY_GATES_ALL, &in, &s);
	ok(s.paused && s.paused_why == SKIP_SWAP_RESERVE,
	   "an anon-only policy at its swap reserve is paused (swap_reserve)");
	p.memory = MEMORY_ANON | MEMORY_FILE;
	in.swap_total = in.swap_free = 0;
	policy_decide(&p, POLICY_GATES_ALL, &in, &s);
	ok(!s.anon_allowed, "no swap at all: no anon pageout");
	in.psi_known = true;
	in.psi_some_avg10 = 12.5;
	policy_decide(&p, POLICY_GATES_ALL, &in, &s);
	ok(s.paused && s.paused_why == SKIP_PRESSURE, "PSI some avg10 12.5%% > 10%%: paused");
	in.psi_known = false;
	policy_decide(&p, POLICY_GATES_ALL, &in, &s);
	ok(!s.paused, "unknown PSI (cgroup v1) does not pause");
	is_int(policy_cgroup_gate(&p, 0), SKIP_MAX, "without frozen_only a running cgroup goes");
	is_int(policy_cgroup_gate(&p, -EOPNOTSUPP), SKIP_MAX, "... and one without a freezer");
	p.frozen_only = true;
	policy_decide(&p, POLICY_GATES_ALL, &in, &s);
	ok(!s.paused, "frozen_only does not pause the policy: each cgroup is gated");
	is_int(policy_cgroup_gate(&p, 0), SKIP_NOT_FROZEN, "frozen_only: a running cgroup waits");
	is_int(policy_cgroup_gate(&p, 1), SKIP_MAX, "frozen_only: a frozen cgroup goes");
	is_int(policy_cgroup_gate(&p, -EOPNOTSUPP), SKIP_NOT_FROZEN,
	       "frozen_only without a freezer: never reclaimed");
	is_int(policy_cgroup_gate(&p, -ENOENT), SKIP_NOT_FROZEN, "frozen_only, cgroup gone: waits");
	p.min_free = 100000;
	policy_decide(&p, POLICY_GATES_ALL, &in, &s);
	ok(s.paused && s.paused_why == SKIP_FREE_MEMORY, "25%% free >= min_free 10%%: paused");
	policy_decide(&p, POLICY_GATES_ALL & ~POLICY_GATE_FREE_MEMORY, &in, &s);
	ok(!s.paused, "without the free-memory gate (the kernel's watermarks): not paused");
	in.psi_known = true;
	policy_decide(&p, POLICY_GATES_ALL & ~POLICY_GATE_FREE_MEMORY, &in, &s);
	ok(s.paused && s.paused_why == SKIP_PRESSURE, "... the pressure gate still applies");
	policy_decide(&p, POLICY_GATES_ALL & ~(POLICY_GATE_FREE_MEMORY | POLICY_GATE_PRESSURE), &in,
		      &s);
	ok(!s.paused, "without the pressure gate: not paused at 12.5%% PSI");
	in.psi_known = false;
	p.min_free = 0;
	s.operator_paused = true;
	policy_decide(&p, 0, &in, &s);
	ok(s.paused && s.paused_why == SKIP_PAUSED, "no gates: the operator's pause still holds");
	s.operator_paused = false;
	policy_consume(&s, UINT64_MAX / 2);
	policy_decide(&p, POLICY_GATES_ALL, &in, &s);
	ok(s.budget < 100 << 20, "quota gate: the bucket emptied by advice limits the budget");
	policy_decide(&p, POLICY_GATES_ALL & ~POLICY_GATE_QUOTA, &in, &s);
	is_u64(s.budget, UINT64_MAX, "without the quota gate (the kernel's quota): no budget");
	in.swap_total = 1ull << 30;
	in.swap_free = in.swap_total / 10;
	p.memory = MEMORY_ANON;
	policy_decide(&p, 0, &in, &s);
	ok(s.paused && s.paused_why == SKIP_SWAP_RESERVE, "no gates: the swap reserve still holds");
	p.memory = MEMORY_ANON | MEMORY_FILE;
	{
		struct policy_input m = { 0 };

		is_int(policy_parse_meminfo("MemTotal:  1000 kB\nMemFree:  250 kB\nSwapTotal: 0 "
					    "kB\nSwapFree: 0 kB\n",
					    &m),
		       0, "meminfo parses");
		ok(m.mem_total == 1024000 && m.mem_free == 256000 && m.swap_total == 0,
		   "meminfo values in bytes");
	}
}

/* scripted process_madvise: range 1 of each call fails with script_err after range 0 */
static int script_err, script_calls, script_vanish_at;
static uint64_t script_fail_start;

static ssize_t script(int pidfd, const struct iovec *iov, size_t n, int advice, unsigned flags)
{
	ssize_t done = 0;

	(void)pidfd;
	(void)advice;
	(void)flags;
	script_calls++;
	if (script_vanish_at && script_calls >= script_vanish_at)
		return errno = ESRCH, -1;
	for (size_t i = 0; i < n; i++) {
		if ((uint64_t)(uintptr_t)iov[i].iov_base == script_fail_start) {
			if (!done)
				return errno = script_err, -1;
			return done;
		}
		done += (ssize_t)iov[i].iov_len;
	}
	return done;
}

static void madvise_contract(void)
{
	struct madv_range r[5];
	struct madv_stats st = { 0 };

	for (int i = 0; i < 5; i++)
		r[i] = (struct madv_range){ (uint64_t)(i + 1) * 16 * K,
					    (uint64_t)(i + 1) * 16 * K + 4 * K, false, 0 };
	madv_set_syscall(script);
	script_err = EINVAL;
	script_fail_start = r[2].start;
	is_int(madv_apply(3, r, 5, MADV_PAGEOUT, 0, false, &st), 0, "a refused range mid-batch");
	ok(r[0].done && r[1].done && !r[2].done && r[3].done && r[4].done && r[2].err == EINVAL,
	   "exactly the failing range is skipped, the rest is advised");
	is_int(script_calls, 3, "3 calls: partial, the failing range alone, the rest");
	ok(st.bytes_advised == 16 * K && st.err[MADV_ERR_EINVAL] == 1 && st.ranges_advised == 4,
	   "only completed ranges count; the errno is counted");
	memset(&st, 0, sizeof(st));
	script_calls = 0;
	script_vanish_at = 2;
	is_int(madv_apply(3, r, 5, MADV_PAGEOUT, 0, false, &st), -ESRCH, "ESRCH ends the target");
	ok(r[0].done && r[1].done && !r[3].done, "what completed before stays counted");
	script_vanish_at = 0;
	memset(&st, 0, sizeof(st));
	script_calls = 0;
	script_fail_start = 0;
	is_int(madv_apply(3, r, 5, MADV_PAGEOUT, 2, false, &st), 0, "batch of 2");
	is_int(script_calls, 3, "5 ranges in batches of 2: 3 calls");
	script_calls = 0;
	madv_apply(3, r, 5, MADV_PAGEOUT, 0, true, &st);
	is_int(script_calls, 0, "dry run: no call");
	madv_set_syscall(NULL);
	{
		/* the real syscall on a child: a probe, then a page of its file-backed memory */
		int fds[2], pidfd;
		pid_t c;
		char b = 0;

		if (pipe(fds) < 0)
			return;
		c = fork();
		if (c == 0) {
			pause();
			_exit(0);
		}
		pidfd = madv_pidfd_open(c);
		ok(pidfd >= 0, "pidfd_open of a child");
		is_int(madv_probe(pidfd, MADV_PAGEOUT), 0, "the child can be advised");
		is_int(madv_pidfd_alive(pidfd), 0, "alive");
		kill(c, SIGKILL);
		waitpid(c, NULL, 0);
		is_int(madv_pidfd_alive(pidfd), -ESRCH, "after it exited: ESRCH, never a new pid");
		memset(&st, 0, sizeof(st));
		is_int(madv_apply(pidfd, r, 1, MADV_PAGEOUT, 0, false, &st), -ESRCH,
		       "advising an exited process: ESRCH");
		close(pidfd);
		close(fds[0]);
		close(fds[1]);
		(void)b;
	}
	if (geteuid() == 0) {
		/*
		 * Another user's process, seen without CAP_KILL (the unit does not grant it):
		 * signal 0 answers EPERM, and that still means alive (found in the guest: every
		 * such process was dropped as gone).
		 */
		int sync[2], st2 = 0;
		pid_t other, checker;
		char c = 0;

		if (pipe(sync) < 0)
			return;
		other = fork();
		if (other == 0) {
			/* the checker starts once this process is another user's */
			if (setgid(65534) < 0 || setuid(65534) < 0)
				_exit(1);
			if (write(sync[1], "u", 1) != 1)
				_exit(1);
			pause();
			_exit(0);
		}
		close(sync[1]);
		if (read(sync[0], &c, 1) != 1)
			c = 0;
		close(sync[0]);
		checker = fork();
		if (checker == 0) {
			struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
			struct __user_cap_data_struct d[2];
			int fd = madv_pidfd_open(other);

			if (syscall(SYS_capget, &h, d) < 0)
				_exit(3);
			d[0].effective &= ~(1U << CAP_KILL);
			if (syscall(SYS_capset, &h, d) < 0 || fd < 0)
				_exit(3);
			if (kill(other, 0) == 0 || errno != EPERM)
				_exit(4); /* CAP_KILL still in effect: the check would prove nothing */
			_exit(madv_pidfd_alive(fd) == 0 ? 0 : 2);
		}
		waitpid(checker, &st2, 0);
		ok(c == 'u' && WIFEXITED(st2) && WEXITSTATUS(st2) == 0,
		   "another user's process without CAP_KILL: alive (EPERM is not gone)");
		if (c != 'u' || !WIFEXITED(st2) || WEXITSTATUS(st2))
			printf("# setuid child %s, checker status %#x (2: taken as gone, 3: "
			       "capset, "
			       "4: CAP_KILL in effect)\n",
			       c == 'u' ? "ready" : "failed", st2);
		kill(other, SIGKILL);
		waitpid(other, NULL, 0);
	} else {
		skip("another user's process without CAP_KILL", "needs root");
	}
}

/* The kdamond's clock read off two snapshots of one target's regions. */
static void rescale(void)
{
	struct vrange r[] = { { 0, 4096, 0, 7000000, 0 }, { 8192, 12288, 0, 1000000, 0 } };
	struct vrange_list l = { 2, 2, r };

	/* 70 and 10 intervals of 100 ms, counted in the 350 ms the kdamond was found to keep */
	vrange_rescale(&l, 100000, 350000, 20000000);
	ok(r[0].age_us == 20000000 && r[1].age_us == 3500000,
	   "rescale: ages follow the clock, capped at how long the process was watched");
	vrange_rescale(&l, 350000, 100000, UINT64_MAX);
	ok(r[0].age_us == 5714285 && r[1].age_us == 1000000, "rescale: and back down");
	vrange_rescale(&l, 0, 100000, 0);
	ok(r[0].age_us == 5714285, "rescale: no earlier clock, nothing to do");
}

static void clock(void)
{
	struct vrange_list prev = { 0 };
	/* 0-10K and 30-40K kept their bounds; 10-30K split since */
	const struct damon_region cur[] = { { 0, 10 * K, 0, 25 },
					    { 10 * K, 20 * K, 0, 40 },
					    { 20 * K, 30 * K, 0, 40 },
					    { 30 * K, 40 * K, 3, 2 } };

	vrange_push(&prev, 0, 10 * K, 0, 11);
	vrange_push(&prev, 10 * K, 30 * K, 0, 20);
	vrange_push(&prev, 30 * K, 40 * K, 0, 30);
	is_u64(vaddr_age_gain(&prev, cur, 4), 14,
	       "the gain is the most intervals a region with unchanged bounds aged (a reset one "
	       "and split ones do not count)");
	is_u64(vaddr_age_gain(&prev, cur, 0), 0, "no regions: no gain");
	/* 14 intervals in 5.6 s: 350 ms each; the bound allows a late snapshot either side */
	is_u64(vaddr_interval_estimate(5600000, 14, 100000), 350000,
	       "a stretched interval is measured as a lower bound: 5.6 s / (14 + 2)");
	is_u64(vaddr_interval_estimate(4000000, 40, 100000), 100000,
	       "never shorter than aggr_interval");
	is_u64(vaddr_interval_estimate(4000000, VADDR_CLOCK_MIN_GAIN - 1, 100000), 0,
	       "too little ageing to tell: no estimate");
	vrange_list_fini(&prev);
}

/* The first regions of a new target: the largest VMAs, each its own region, in address order. */
static void seeds(void)
{
	struct vma v[] = { { 0x1000, 0x3000, VMA_ANON },
			   { 0x3000, 0x103000, VMA_ANON },   /* 1 MiB, cold, beside ... */
			   { 0x103000, 0x123000, VMA_ANON }, /* ... 128 KiB hot */
			   { 0x200000, 0x201000, VMA_FILE },
			   { 0x7e0000000000ULL, 0x7e0002000000ULL, VMA_ANON }, /* 32 MiB */
			   { 0x7ffd00000000ULL, 0x7ffd00011000ULL, VMA_ANON }, /* 68 KiB stack */
			   { 0xffffffffff600000ULL, 0xffffffffff601000ULL, VMA_FILE } };
	struct vma_list l = { sizeof(v) / sizeof(v[0]), sizeof(v) / sizeof(v[0]), v };
	struct damon_range r[DAMON_TARGET_REGIONS_MAX];
	unsigned n = vaddr_seed_regions(&l, r, 3);

	is_int(n, 3, "seeds: three of seven VMAs");
	ok(n == 3 && r[0].start == 0x3000 && r[0].end == 0x103000 && r[1].start == 0x103000 &&
		   r[1].end == 0x123000 && r[2].start == 0x7e0000000000ULL,
	   "seeds: the three largest (1 MiB, 128 KiB, 32 MiB) in address order, the two "
	   "adjacent ones apart");
	n = vaddr_seed_regions(&l, r, DAMON_TARGET_REGIONS_MAX);
	is_int(n, 6, "seeds: every VMA of the user half when they fit ([vsyscall] never)");
	for (unsigned i = 1; i < n; i++)
		if (r[i - 1].end > r[i].start)
			ok(false, "seeds: sorted and apart at %u", i);
	is_int(vaddr_seed_regions(&l, r, 0), 0, "seeds: none asked, none given");
}

int main(void)
{
	ranges();
	seeds();
	rescale();
	clock();
	vmas();
	policy();
	madvise_contract();
	is_int(vaddr_refsem_of_release("6.8.12-amd64"), REFSEM_RECHECK,
	       "6.8: references re-checked");
	is_int(vaddr_refsem_of_release("6.9.0"), REFSEM_IGNORE, "6.9: references ignored");
	is_int(vaddr_refsem_of_release("7.2.13+deb14-cloud-amd64"), REFSEM_IGNORE, "7.2: ignored");
	return tap_exit();
}
