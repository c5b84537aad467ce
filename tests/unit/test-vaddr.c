// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The shared policy controller on recorded inputs, madvise's partial-result contract against a
 * scripted process_madvise plus one real call on a child, and the reference semantics vaddr
 * takes for a kernel release. The vaddr plan's pure modules have their own tests (test-vrange,
 * test-vma, test-vplan).
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

/* max_refault_rate is of the working set where it is known, of memory.current where not */
static void policy_ws(void)
{
	struct cfg_policy p = { .min_age_us = 30000000,
				.quota_bytes = 100 << 20,
				.quota_interval_us = 1000000,
				.pressure_limit = 1000000,
				.max_refault_rate = 2000,
				.memory = MEMORY_FILE };
	struct policy_input in = { .now_us = 1000000,
				   .refaults_known = true,
				   .memory_bytes = 1ull << 30,
				   .ws_bytes = 256ull << 20,
				   .page_size = 4096 };
	struct policy_state s;

	policy_state_init(&s);
	policy_decide(&p, POLICY_GATES_ALL, &in, &s);
	/* 44 pages in 10 s: 0.1% of 1 GiB per minute, 0.4% of its 256 MiB working set */
	in.now_us += 10000000;
	in.refault_pages += 44;
	policy_decide(&p, POLICY_GATES_ALL, &in, &s);
	ok(s.refault_rate > 3900 && s.refault_rate < 4100 && s.backoffs == 1,
	   "0.1%%/min of the memory is 0.4%%/min of a quarter-size working set: above 0.2%%, "
	   "backs off (%.0f ppm/min)",
	   s.refault_rate);
	policy_state_init(&s);
	in.ws_bytes = 0;
	policy_decide(&p, POLICY_GATES_ALL, &in, &s);
	in.now_us += 10000000;
	in.refault_pages += 44;
	policy_decide(&p, POLICY_GATES_ALL, &in, &s);
	ok(s.refault_rate > 900 && s.refault_rate < 1100 && s.backoffs == 0,
	   "no working set read: the rate is of memory.current, 0.1%%/min, below 0.2%% "
	   "(%.0f ppm/min)",
	   s.refault_rate);
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

int main(void)
{
	policy();
	policy_ws();
	madvise_contract();
	is_int(vaddr_refsem_of_release("6.8.12-amd64"), REFSEM_RECHECK,
	       "6.8: references re-checked");
	is_int(vaddr_refsem_of_release("6.9.0"), REFSEM_IGNORE, "6.9: references ignored");
	is_int(vaddr_refsem_of_release("7.2.13+deb14-cloud-amd64"), REFSEM_IGNORE, "7.2: ignored");
	return tap_exit();
}
