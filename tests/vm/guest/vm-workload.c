// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vm-workload COLD_MIB HOT_MIB: a process for the systemd guest (tests/vm/systemd) to run as a
 * unit of its own: it maps COLD_MIB of anonymous memory at VM_WORKLOAD_COLD and HOT_MIB at
 * VM_WORKLOAD_HOT, writes both once, then keeps writing the hot area (vmtest.h: each pass
 * toggles its protection, as TCG needs) until it is killed. The checks read what was swapped
 * out of each area from /proc/PID/smaps, by the areas' fixed addresses; the workload writes
 * "ready" to stdout once every page is in.
 */
#include <config.h>

#include "vmtest.h"

#define VM_WORKLOAD_COLD 0x7d0000000000ULL
#define VM_WORKLOAD_HOT 0x7d1000000000ULL

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
	if (*end || !cold || !hot) {
		fprintf(stderr, "vm-workload: sizes are MiB, both > 0\n");
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
