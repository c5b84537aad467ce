// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * policy: quota bucket, gates and the refault controller shared by both engines. Like senpai
 * and TMO, it treats refaults as the cost signal; unlike them it tunes how sure pageoutd must be
 * (effective min_age) before it tunes how much it takes (quota).
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pageoutd/policy.h"
#include "pageoutd/util.h"

#define AGE_FACTOR_MAX 16.0
#define QUOTA_SCALE_MIN (1.0 / 16)
#define REFAULT_WINDOW_US (10 * USEC_PER_SEC) /* shortest window a rate is measured over */

const char *skip_reason_name(enum skip_reason r)
{
	static const char *const names[SKIP_MAX] = {
		"young",	   "unconfirmed", "turned_hot", "sparse",      "vma",
		"locked",	   "quota",	  "pressure",	"free_memory", "swap_reserve",
		"not_frozen",	   "vanished",	  "error",	"paused",      "swap_limit",
		"below_max_usage", "learned",	  "shared",	"kept",
	};

	return r < SKIP_MAX ? names[r] : "unknown";
}

const char *fail_kind_name(enum fail_kind k)
{
	static const char *const names[FAIL_MAX] = { "damon_write", "damon_read", "madvise" };

	return k < FAIL_MAX ? names[k] : "unknown";
}

void policy_state_init(struct policy_state *s)
{
	memset(s, 0, sizeof(*s));
	s->age_factor = 1.0;
	s->quota_scale = 1.0;
}

static void refill(const struct cfg_policy *p, unsigned gates, const struct policy_input *in,
		   struct policy_state *s)
{
	uint64_t cap, dt, add;

	if (!(gates & POLICY_GATE_QUOTA) || !p->quota_interval_us) {
		s->budget = UINT64_MAX;
		return;
	}
	cap = (uint64_t)((double)p->quota_bytes * s->quota_scale);
	if (!s->bucket_started) {
		s->bucket_started = true;
		s->tokens = cap;
		s->last_refill_us = in->now_us;
	}
	dt = in->now_us - s->last_refill_us;
	add = (uint64_t)((double)p->quota_bytes * s->quota_scale * (double)dt /
			 (double)p->quota_interval_us);
	s->tokens = s->tokens + add > cap ? cap : s->tokens + add;
	s->last_refill_us = in->now_us;
	s->budget = s->tokens;
}

/*
 * Refaults per minute in ppm of the working set (memory.current less inactive_file; the
 * memory where that is unknown); back off above the limit, relax below half.
 */
static void control(const struct cfg_policy *p, const struct policy_input *in,
		    struct policy_state *s)
{
	uint64_t dt, refaults, attributed, ws;
	double bytes;

	if (!in->refaults_known || !p->max_refault_rate)
		return;
	if (!s->have_refaults || in->refault_pages < s->last_refaults ||
	    in->attributed_pages < s->last_attributed) {
		s->have_refaults = true;
		s->last_refaults = in->refault_pages;
		s->last_attributed = in->attributed_pages;
		s->last_refault_us = in->now_us;
		return;
	}
	dt = in->now_us - s->last_refault_us;
	if (dt < REFAULT_WINDOW_US)
		return;
	refaults = in->refault_pages - s->last_refaults;
	attributed = in->attributed_pages - s->last_attributed;
	bytes = (double)(refaults > attributed ? refaults - attributed : 0) * (double)in->page_size;
	s->last_attributed = in->attributed_pages;
	ws = in->ws_bytes ? in->ws_bytes : in->memory_bytes;
	s->refault_rate = ws ? bytes * 60e6 / (double)dt / (double)ws * 1e6 : 0;
	s->last_refaults = in->refault_pages;
	s->last_refault_us = in->now_us;
	if (s->refault_rate > p->max_refault_rate) {
		s->age_factor =
			s->age_factor * 2 > AGE_FACTOR_MAX ? AGE_FACTOR_MAX : s->age_factor * 2;
		s->quota_scale =
			s->quota_scale / 2 < QUOTA_SCALE_MIN ? QUOTA_SCALE_MIN : s->quota_scale / 2;
		s->backoffs++;
	} else if (s->refault_rate < p->max_refault_rate / 2.0 &&
		   (s->age_factor > 1.0 || s->quota_scale < 1.0)) {
		s->age_factor = s->age_factor / 1.25 < 1.0 ? 1.0 : s->age_factor / 1.25;
		s->quota_scale = s->quota_scale * 1.25 > 1.0 ? 1.0 : s->quota_scale * 1.25;
		s->relaxes++;
	}
}

void policy_decide(const struct cfg_policy *p, unsigned gates, const struct policy_input *in,
		   struct policy_state *s)
{
	control(p, in, s);
	refill(p, gates, in, s);
	s->min_age_us = (uint64_t)((double)p->min_age_us * s->age_factor);
	s->paused = false;
	s->anon_allowed = (p->memory & MEMORY_ANON) != 0;
	s->file_allowed = (p->memory & MEMORY_FILE) != 0;
	/* unknown PSI (cgroup v1, no PSI): the gate cannot close; refaults still steer */
	if (s->operator_paused) {
		s->paused = true;
		s->paused_why = SKIP_PAUSED;
	} else if ((gates & POLICY_GATE_PRESSURE) && in->psi_known &&
		   in->psi_some_avg10 * 10000.0 > (double)p->pressure_limit) {
		s->paused = true;
		s->paused_why = SKIP_PRESSURE;
	} else if ((gates & POLICY_GATE_FREE_MEMORY) && p->min_free && in->mem_total &&
		   (double)in->mem_free / (double)in->mem_total * PPM_ONE >= p->min_free) {
		s->paused = true;
		s->paused_why = SKIP_FREE_MEMORY;
	}
	/*
	 * anonymous pageout needs free swap, and must stop before the reserve: on a device whose
	 * only swap is zram, the low-memory killer kills cached apps when free swap runs low
	 */
	s->swap_room = 0;
	if (in->swap_total) {
		uint64_t reserve =
			(uint64_t)(((double)in->swap_total * p->swap_reserve + PPM_ONE - 1) /
				   PPM_ONE);

		s->swap_room = in->swap_free > reserve ? in->swap_free - reserve : 0;
	}
	s->anon_room = s->anon_allowed ? s->swap_room : 0;
	s->anon_allowed = s->anon_room > 0;
	if (!s->paused && !s->file_allowed && (p->memory & MEMORY_ANON) && !s->anon_allowed) {
		s->paused = true;
		s->paused_why = SKIP_SWAP_RESERVE;
	}
}

enum skip_reason policy_cgroup_gate(const struct cfg_policy *p, int frozen)
{
	return p->frozen_only && frozen != 1 ? SKIP_NOT_FROZEN : SKIP_MAX;
}

void policy_consume(struct policy_state *s, uint64_t bytes)
{
	if (s->budget != UINT64_MAX)
		s->budget = bytes > s->budget ? 0 : s->budget - bytes;
	s->tokens = bytes > s->tokens ? 0 : s->tokens - bytes;
}

int policy_parse_meminfo(const char *buf, struct policy_input *in)
{
	static const struct {
		const char *key;
		size_t off;
	} keys[] = {
		{ "MemTotal:", offsetof(struct policy_input, mem_total) },
		{ "MemFree:", offsetof(struct policy_input, mem_free) },
		{ "SwapTotal:", offsetof(struct policy_input, swap_total) },
		{ "SwapFree:", offsetof(struct policy_input, swap_free) },
	};
	unsigned found = 0;

	for (const char *l = buf; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		for (unsigned k = 0; k < ARRAY_SIZE(keys); k++) {
			size_t n = strlen(keys[k].key);
			unsigned long long v;

			if (!strncmp(l, keys[k].key, n) && sscanf(l + n, "%llu", &v) == 1) {
				*(uint64_t *)((char *)in + keys[k].off) = (uint64_t)v * 1024;
				found |= 1u << k;
			}
		}
	}
	return (found & 3) == 3 ? 0 : -EINVAL;
}
