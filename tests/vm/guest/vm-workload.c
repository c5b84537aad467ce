// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vm-workload COLD_MIB HOT_MIB: a process for the systemd guest (tests/vm/systemd) to run as a
 * unit of its own: it maps COLD_MIB of anonymous memory at VM_WORKLOAD_COLD and HOT_MIB at
 * VM_WORKLOAD_HOT, writes both once, then keeps writing the hot area (vmtest.h: each pass
 * toggles its protection, as TCG needs) until it is killed. The checks read what was swapped
 * out of each area from /proc/PID/smaps, by the areas' fixed addresses; the workload writes
 * "ready" to stdout once every page is in.
 *
 * The hot area lies 256 MiB above the cold one, with a hole between them as in vm-vaddr. DAMON
 * may keep the cold area and the hole in one region, and the vaddr engine counts a mapped piece
 * only once that region's age has put VPLAN_SPARSE_MIN_SAMPLES samples on it: the hole is kept
 * small beside the cold area (COLD_MIB at most 128) so that what the checks time is the
 * engine's reclaim, not that rule over a hole a thousand times the area.
 */
#include <config.h>

#include "vmtest.h"

#define VM_WORKLOAD_COLD 0x7d0000000000ULL
#define VM_WORKLOAD_HOT 0x7d0010000000ULL
#define VM_WORKLOAD_COLD_MAX_MIB 128 /* at most half the span: a hole stays */

int main(int argc, char **argv)
{
	struct vm_area a[2];
	struct vm_spawn_args v = { a, 2, NULL, false };
	char *end;
	unsigned long cold, hot;
	int r;

	vm_require_guest();
	if (argc != 3) {
		fprintf(stderr, "usage: vm-workload COLD_MIB HOT_MIB\n");
		return 2;
	}
	cold = strtoul(argv[1], &end, 10);
	hot = *end ? 0 : strtoul(argv[2], &end, 10);
	if (*end || !cold || !hot || cold > VM_WORKLOAD_COLD_MAX_MIB) {
		fprintf(stderr, "vm-workload: sizes are MiB, both > 0, COLD_MIB <= %d\n",
			VM_WORKLOAD_COLD_MAX_MIB);
		return 2;
	}
	a[0] = (struct vm_area){ VM_WORKLOAD_COLD, cold * MIB, false };
	a[1] = (struct vm_area){ VM_WORKLOAD_HOT, hot * MIB, true };
	r = vm_spawn_setup(&v);
	if (r)
		return r;
	printf("ready\n");
	fflush(stdout);
	vm_spawn_run(&v);
	return 0;
}
