/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * policy: the decisions both engines share. A quota as a token bucket (SIZE per DURATION), the
 * gates that pause a policy or one kind of memory (PSI above pressure_limit, free memory above
 * min_free, free swap below swap_reserve), the per-cgroup gate of frozen_only, and the refault
 * controller: refaults per minute above max_refault_rate make the policy more conservative
 * (a longer effective min_age and a smaller quota), a quiet cgroup relaxes it back. Refaults
 * the engine attributed to ranges it learned (policy_input.attributed_pages) are left out of
 * the rate: the controller is the safety net for what no range answers for. A policy
 * that may take only anonymous memory is paused (swap_reserve) while free swap is at its
 * reserve, and the anon bytes of a cycle are bounded by anon_room. Pure: the
 * caller passes what it read, so recorded inputs replay exactly in tests.
 */
#ifndef PAGEOUTD_POLICY_H
#define PAGEOUTD_POLICY_H

#include <stdbool.h>
#include <stdint.h>

#include "pageoutd/config.h"

/* Why a byte was not reclaimed. */
enum skip_reason {
	SKIP_YOUNG,	  /* cold, but younger than min_age */
	SKIP_UNCONFIRMED, /* cold in this snapshot only: waits for the next */
	SKIP_TURNED_HOT,  /* was a candidate, accessed since */
	SKIP_SPARSE,	  /* in a DAMON region mostly unmapped: its access count says little */
	SKIP_VMA,	  /* not in a VMA of a selected kind (or a hole, or special) */
	SKIP_LOCKED,	  /* mlocked, hugetlb or PFN-mapped VMA */
	SKIP_QUOTA,
	SKIP_PRESSURE,
	SKIP_FREE_MEMORY, /* free memory above min_free */
	SKIP_SWAP_RESERVE,
	SKIP_NOT_FROZEN,
	SKIP_VANISHED,	 /* the process exited between snapshot and apply */
	SKIP_ERROR,	 /* the kernel refused the range */
	SKIP_PAUSED,	 /* an operator paused the policy (pageoutctl pause) */
	SKIP_SWAP_LIMIT, /* anon of a cgroup that may not swap (memory.swap.max 0 or used up) */
	SKIP_BELOW_MAX_USAGE, /* paddr: the cgroup is at or below max_usage (pageoutd's gate) */
	SKIP_LEARNED, /* vaddr: found back soon after an earlier advice, not idle long enough since */
	SKIP_SHARED, /* vaddr: advised, nothing left: another process maps its pages too */
	SKIP_KEPT,   /* vaddr: advised, nothing left: the kernel kept its pages (pinned, no swap
		       * slot, a file the daemon may not write) */
	SKIP_MAX
};

const char *skip_reason_name(enum skip_reason r);

/* What failed, for the per-policy error counters of both engines (pageoutd_errors_total). */
enum fail_kind {
	FAIL_DAMON_WRITE, /* writing or committing the kdamond's context, or state=on */
	FAIL_DAMON_READ,  /* a snapshot or the scheme stats */
	FAIL_MADVISE,	  /* a process_madvise call (vaddr; by errno in madvise_errors_total) */
	FAIL_MAX
};
const char *fail_kind_name(enum fail_kind k);

/* What the caller observed this cycle, for one policy (all its cgroups together). */
struct policy_input {
	uint64_t now_us;
	bool psi_known;
	double psi_some_avg10;	/* percent, the highest of the policy's cgroups */
	uint64_t refault_pages; /* cumulative workingset_refault_anon + _file, summed */
	bool refaults_known;	/* false on kernels without workingset_refault_* */
	/*
	 * cumulative pages the engine found back in ranges it had advised and has learned
	 * (vaddr, vmemo.h): those refaults are answered per range, not by the controller
	 */
	uint64_t attributed_pages;
	uint64_t memory_bytes;	      /* summed memory.current */
	uint64_t ws_bytes;	      /* summed working sets (engine_read_cgroup), 0: unknown */
	uint64_t shmem_bytes;	      /* summed memory.stat shmem (swap-backed page cache) */
	uint64_t mem_total, mem_free; /* /proc/meminfo MemTotal, MemFree (bytes) */
	uint64_t swap_total, swap_free;
	uint64_t page_size;
};

/* The controller's state and this cycle's verdict. */
struct policy_state {
	/* token bucket */
	uint64_t tokens, last_refill_us;
	bool bucket_started;
	/* refault controller: effective min_age = min_age * age_factor, quota * quota_scale */
	double age_factor, quota_scale;
	uint64_t last_refaults, last_refault_us, last_attributed;
	bool have_refaults;
	double refault_rate;  /* ppm of ws_bytes per minute, last measured, less attributed */
	bool operator_paused; /* set by the caller: pause/resume from the control socket */
	/* verdict */
	bool paused; /* nothing this cycle */
	enum skip_reason paused_why;
	bool anon_allowed, file_allowed;
	uint64_t budget; /* bytes this cycle may advise (UINT64_MAX: no quota) */
	/*
	 * anonymous bytes that may go to swap before free swap, as read for this cycle, falls to
	 * swap_reserve; 0 when the policy takes no anon or there is no swap. The caller charges
	 * every anonymous byte it advises this cycle against it as a new swap slot, pages
	 * already in swap included, so the reserve is never eaten into.
	 */
	uint64_t anon_room;
	uint64_t swap_room;  /* free swap above swap_reserve, whatever memory allows */
	uint64_t min_age_us; /* effective */
	unsigned backoffs, relaxes;
};

/*
 * The gates policy_decide applies, as flags. An engine leaves out a gate that the kernel applies
 * for it (paddr: DAMOS quotas and free-memory watermarks). The operator's pause and the swap
 * reserve always apply.
 */
enum policy_gate {
	POLICY_GATE_QUOTA = 1u << 0,	   /* the token bucket sets the budget; else UINT64_MAX */
	POLICY_GATE_PRESSURE = 1u << 1,	   /* pause while PSI is above pressure_limit */
	POLICY_GATE_FREE_MEMORY = 1u << 2, /* pause while free memory is above min_free */
};
#define POLICY_GATES_ALL (POLICY_GATE_QUOTA | POLICY_GATE_PRESSURE | POLICY_GATE_FREE_MEMORY)

void policy_state_init(struct policy_state *s);
/*
 * policy_decide: update the refault controller with `in` and set this cycle's verdict in s
 * (paused and why, the kinds allowed, budget, anon_room, the effective min_age), applying the
 * gates in `gates` (enum policy_gate flags) and no others. Cannot fail.
 */
void policy_decide(const struct cfg_policy *p, unsigned gates, const struct policy_input *in,
		   struct policy_state *s);
/*
 * policy_cgroup_gate: whether one cgroup of p whose frozen state is `frozen` (cgrp_frozen: 1,
 * 0 or -errno) may be reclaimed now: SKIP_MAX when it may, SKIP_NOT_FROZEN when frozen_only
 * holds it back (not frozen, or no freezer to tell). Each cgroup is gated on its own: its
 * memory is neither reclaimed nor charged to the policy's quota while the gate is closed.
 */
enum skip_reason policy_cgroup_gate(const struct cfg_policy *p, int frozen);

/*
 * A cgroup with less swap room than this (cgrp_swap_room) gets no anonymous pageout: its anon
 * pages could not be swapped out (Kubernetes' LimitedSwap gives pods other than Burstable
 * memory.swap.max = 0), so advising them only costs CPU. File pageout goes on. Its cold anon
 * is counted as SKIP_SWAP_LIMIT.
 */
#define POLICY_SWAP_ROOM_MIN (1ULL << 20)
static inline bool policy_swap_limited(uint64_t swap_room)
{
	return swap_room < POLICY_SWAP_ROOM_MIN;
}
/* policy_consume: `bytes` were advised; take them from the bucket and the budget (not below 0). */
void policy_consume(struct policy_state *s, uint64_t bytes);

/*
 * policy_parse_meminfo: MemTotal, MemFree, SwapTotal and SwapFree (bytes) from /proc/meminfo
 * text into in; other fields are untouched. Returns 0, or -EINVAL without MemTotal and MemFree.
 */
int policy_parse_meminfo(const char *buf, struct policy_input *in);

#endif
