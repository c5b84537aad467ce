// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * faketree [6.2|6.12|7.2]: build a DAMON admin tree in a new temporary directory for the
 * daemon's host tests, print its admin path, and leave it there (the caller removes the
 * directory two levels above "fakesys"). The tree is static: the two kdamonds pageoutd asks for
 * are laid out in advance and nr_kdamonds reads 0, so the daemon acquires them as on a fresh
 * kernel; nothing runs, no region is ever tried. Host tests never touch the real DAMON tree.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakedamon.h"

int main(int argc, char **argv)
{
	enum fake_abi abi = FAKE_ABI_612;
	struct fakedamon *f;
	struct damon_io io;

	if (argc > 1 && !strcmp(argv[1], "7.2"))
		abi = FAKE_ABI_72;
	else if (argc > 1 && !strcmp(argv[1], "6.2"))
		abi = FAKE_ABI_62;
	f = fake_new(abi);
	io = fake_io(f);
	if (io.write(io.ctx, -1, "kdamonds/nr_kdamonds", "2") < 0 ||
	    io.write(io.ctx, -1, "kdamonds/0/contexts/nr_contexts", "1") < 0 ||
	    io.write(io.ctx, -1, "kdamonds/1/contexts/nr_contexts", "1") < 0 ||
	    io.write(io.ctx, -1, "kdamonds/0/contexts/0/targets/nr_targets", "1") < 0 ||
	    io.write(io.ctx, -1, "kdamonds/0/contexts/0/schemes/nr_schemes", "1") < 0 ||
	    /* room for the monitoring regions pageoutd seeds for one target */
	    io.write(io.ctx, -1, "kdamonds/0/contexts/0/targets/0/regions/nr_regions", "16") < 0) {
		fprintf(stderr, "faketree: cannot build the tree in %s\n", f->top);
		return 1;
	}
	/* feature detection looks at scheme 0's files, as on a kernel that has them */
	if (abi >= FAKE_ABI_612)
		io.write(io.ctx, -1, "kdamonds/0/contexts/0/schemes/0/quotas/goals/nr_goals", "1");
	if (abi == FAKE_ABI_612)
		io.write(io.ctx, -1, "kdamonds/0/contexts/0/schemes/0/filters/nr_filters", "1");
	if (abi == FAKE_ABI_72)
		io.write(io.ctx, -1, "kdamonds/0/contexts/0/schemes/0/core_filters/nr_filters",
			 "1");
	fake_set(f, "kdamonds/nr_kdamonds", "0");
	printf("%s\n", f->admin);
	free(f); /* the tree stays for the caller */
	return 0;
}
