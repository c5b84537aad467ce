// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The per-cgroup figures' refault rate (cgstat_refaults): refaulted bytes per minute as a
 * ratio of the working set, over windows of at least CGSTAT_REFAULT_WINDOW_US, unknown until
 * one has passed and wherever the kernel or the working set gives nothing to divide.
 */
#include <config.h>

#include <unistd.h>

#include "pageoutd/cgstat.h"
#include "../lib/tap.h"

#define S 1000000ull /* µs */

int main(void)
{
	struct cgstat *t = cgstat_new(NULL, -1);
	struct cgstat_entry *e = t ? cgstat_get(t, ENGINE_PADDR, "db", "/db") : NULL;
	/* a working set of 3000 pages: 0.2% of it is 6 pages */
	uint64_t ws = 3000 * (uint64_t)sysconf(_SC_PAGESIZE), slo = 6;

	if (!ok(e != NULL, "an entry"))
		return tap_exit();
	ok(e->refault_rate < 0 && e->ws_bytes == 0, "unknown before anything was read");
	cgstat_refaults(t, e, 1000, ws, 1 * S);
	ok(e->refault_rate < 0 && e->ws_bytes == ws,
	   "the first read opens a window: still unknown");
	cgstat_refaults(t, e, 1000 + slo, ws, 6 * S);
	ok(e->refault_rate < 0, "5 s later: the window is too short to say");
	cgstat_refaults(t, e, 1000 + slo, ws, 61 * S);
	ok(e->refault_rate > 0.00199 && e->refault_rate < 0.00201,
	   "0.2%% of the working set refaulted in a minute: 0.002/min (%.5f)", e->refault_rate);
	cgstat_refaults(t, e, 1000 + slo + slo / 6, ws, 71 * S);
	ok(e->refault_rate > 0.00199 && e->refault_rate < 0.00201,
	   "a sixth of it in the next 10 s: the same rate per minute (%.5f)", e->refault_rate);
	cgstat_refaults(t, e, 5, ws, 81 * S);
	ok(e->refault_rate > 0.00199, "the counter went back (a new cgroup): a new window, the "
				      "last rate kept");
	cgstat_refaults(t, e, 5, ws, 91 * S);
	ok(e->refault_rate == 0, "nothing refaulted since: 0");
	cgstat_refaults(t, e, CGRP_UNKNOWN, ws, 101 * S);
	ok(e->refault_rate == 0, "a kernel without the counters changes nothing");
	cgstat_refaults(t, e, 100, 0, 111 * S);
	ok(e->refault_rate < 0, "no working set read: unknown, not a made-up ratio");
	cgstat_refaults(t, NULL, 1, ws, 121 * S);
	ok(1, "a NULL entry is ignored");
	cgstat_free(t);
	return tap_exit();
}
