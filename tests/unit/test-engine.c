// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * engine: the policy table both engines keep, across reloads (an entry keeps its place and
 * state by name, a new name is initialised once, a policy of the other engine is not taken,
 * a dropped one stays inactive and cannot be found), and the system figures from a proc root.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pageoutd/engine.h"
#include "pageoutd/log.h"
#include "pageoutd/util.h"
#include "../lib/tap.h"

struct entry {
	ENGINE_POLICY_HEAD;
	int state;
	unsigned inits;
};

static void entry_init(struct engine_policy *e)
{
	struct entry *x = (struct entry *)e;

	x->inits++;
	x->state = 7;
}

static struct entry *find(struct entry *t, size_t n, const char *name)
{
	return (struct entry *)engine_find_policy(t, n, sizeof(*t), name);
}

static void table(void)
{
	struct cfg_policy p[3] = { 0 };
	struct cfg cfg = { .nr_policies = 3, .policies = p };
	struct entry *t = NULL;
	void *pol = NULL;
	size_t n = 0;

	str_copy(p[0].name, sizeof(p[0].name), "a");
	str_copy(p[1].name, sizeof(p[1].name), "other");
	p[1].engine = ENGINE_PADDR;
	str_copy(p[2].name, sizeof(p[2].name), "b");
	is_int(engine_set_policies(&pol, &n, sizeof(*t), &cfg, ENGINE_VADDR, entry_init), 0,
	       "first config");
	t = pol;
	ok(n == 2 && !strcmp(t[0].name, "a") && !strcmp(t[1].name, "b"),
	   "the engine's two policies, in config order");
	ok(t[0].cfg == &p[0] && t[1].cfg == &p[2] && t[0].active && t[1].active,
	   "each points at its cfg_policy and is active");
	ok(t[0].inits == 1 && t[0].state == 7 && &t[0].head == (struct engine_policy *)&t[0],
	   "a new entry is initialised once; the head shares the entry's storage");
	ok(find(t, n, "b") == &t[1] && !find(t, n, "other") && !find(t, n, "c"),
	   "found by name; another engine's policy and an unknown name are not");
	t[1].state = 42;

	/* reload: b first, a dropped, c new */
	{
		struct cfg_policy q[2] = { 0 };
		struct cfg cfg2 = { .nr_policies = 2, .policies = q };

		str_copy(q[0].name, sizeof(q[0].name), "b");
		str_copy(q[1].name, sizeof(q[1].name), "c");
		is_int(engine_set_policies(&pol, &n, sizeof(*t), &cfg2, ENGINE_VADDR, entry_init),
		       0, "reload");
		t = pol;
		ok(n == 3 && !strcmp(t[1].name, "b") && t[1].state == 42 && t[1].inits == 1 &&
			   t[1].cfg == &q[0],
		   "a kept policy keeps its place and state, with the new cfg_policy");
		ok(!t[0].active && !find(t, n, "a"), "a dropped policy is inactive, not found");
		ok(t[2].active && t[2].inits == 1 && t[2].cfg == &q[1],
		   "a new one goes at the end");
	}
	free(pol);
}

static void sys(void)
{
	char dir[] = "/tmp/pageoutd-test-engine.XXXXXX", path[64];
	struct policy_input in;
	FILE *f;
	int fd;

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return;
	}
	snprintf(path, sizeof(path), "%s/meminfo", dir);
	f = fopen(path, "w");
	fputs("MemTotal: 1000 kB\nMemFree: 250 kB\nSwapTotal: 100 kB\nSwapFree: 50 kB\n", f);
	fclose(f);
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	is_int(engine_read_sys(fd, 4096, &in), 0, "meminfo read");
	ok(in.mem_total == 1024000 && in.swap_free == 51200 && in.page_size == 4096 && in.now_us &&
		   !in.refaults_known && !in.psi_known,
	   "system figures, with no cgroup's yet");
	remove(path);
	is_int(engine_read_sys(fd, 4096, &in), -ENOENT, "no meminfo: the reader's -ENOENT");
	ok(in.page_size == 4096 && in.now_us && !in.mem_total, "still the time and page size");
	close(fd);
	remove(dir);
}

int main(void)
{
	log_setup(LOG_TARGET_STDERR, LOG_WARNING);
	table();
	sys();
	return tap_exit();
}
