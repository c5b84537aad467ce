// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cgroup layer against real cgroups that the test creates and removes itself: the v1 memory
 * hierarchy on a development machine, cgroup v2 in the QEMU guest. Needs root; skips otherwise.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pageoutd/cgroup.h"
#include "pageoutd/log.h"
#include "pageoutd/policy.h"
#include "pageoutd/util.h"
#include "../lib/tap.h"

static struct cgrp_root root;
static char base[128];

static void mk(const char *rel)
{
	char p[PATH_MAX * 2];

	snprintf(p, sizeof(p), "%s%s%s", root.mount, base, rel);
	if (mkdir(p, 0755) < 0 && errno != EEXIST) {
		perror(p);
		exit(99);
	}
	/* v2: a child has memory.* files only if its parent delegates the controller */
	if (root.version == 2 && strrchr(p, '/')) {
		char q[PATH_MAX * 2 + 32];

		snprintf(q, sizeof(q), "%.*s/cgroup.subtree_control", (int)(strrchr(p, '/') - p),
			 p);
		write_file_at(AT_FDCWD, q, "+memory");
	}
}

static void rm(const char *rel)
{
	char p[PATH_MAX * 2];

	snprintf(p, sizeof(p), "%s%s%s", root.mount, base, rel);
	rmdir(p);
}

/* A child that joins cgroup rel, then touches `mib` MiB of anonymous memory and waits. */
static pid_t child_in(const char *rel, size_t mib)
{
	int go[2], ready[2];
	char c = 0, p[PATH_MAX * 2];
	pid_t pid;

	if (pipe(go) < 0 || pipe(ready) < 0)
		exit(99);
	pid = fork();
	if (pid == 0) {
		char *m;

		if (read(go[0], &c, 1) != 1)
			_exit(1);
		m = mmap(NULL, mib << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
			 0);
		if (m == MAP_FAILED)
			_exit(1);
		memset(m, 0x5a, mib << 20);
		if (write(ready[1], &c, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	snprintf(p, sizeof(p), "%s%s%s/cgroup.procs", root.mount, base, rel);
	{
		char s[32];
		int dfd = open("/", O_PATH);

		snprintf(s, sizeof(s), "%d", pid);
		if (write_file_at(dfd, p + 1, s) < 0) {
			perror(p);
			exit(99);
		}
		close(dfd);
	}
	if (write(go[1], &c, 1) != 1 || read(ready[0], &c, 1) != 1)
		exit(99);
	close(go[0]);
	close(go[1]);
	close(ready[0]);
	close(ready[1]);
	return pid;
}

static void expand(void)
{
	struct cgrp_list l = { 0 };
	char pat[256];

	snprintf(pat, sizeof(pat), "%s/a", base);
	is_int(cgrp_expand(&root, pat, false, &l), 1, "literal path that exists");
	snprintf(pat, sizeof(pat), "%s/zz", base);
	is_int(cgrp_expand(&root, pat, false, &l), 0, "literal path that does not exist");
	cgrp_list_fini(&l);
	snprintf(pat, sizeof(pat), "%s/*", base);
	is_int(cgrp_expand(&root, pat, true, &l), 2, "glob %s matches a and b only", pat);
	cgrp_list_fini(&l);
	snprintf(pat, sizeof(pat), "%s/*/*", base);
	is_int(cgrp_expand(&root, pat, true, &l), 1, "glob */* matches b/c");
	if (l.nr == 1) {
		snprintf(pat, sizeof(pat), "%s/b/c", base);
		is_str(l.paths[0], pat, "the match is b/c");
	}
	cgrp_list_fini(&l);
	snprintf(pat, sizeof(pat), "%s/[ab]", base);
	is_int(cgrp_expand(&root, pat, true, &l), 2, "bracket glob");
	cgrp_list_fini(&l);
	snprintf(pat, sizeof(pat), "/pageoutd-nonexistent-*/x");
	is_int(cgrp_expand(&root, pat, true, &l), 0, "glob below a missing base: no match");
	cgrp_list_fini(&l);
	is_int(cgrp_descendants(&root, base, &l), 4, "base and its 3 descendants");
	cgrp_list_fini(&l);
}

static void pids(pid_t pa, pid_t pc)
{
	char p[256];
	pid_t *v = NULL;
	int n;

	n = cgrp_pids(&root, base, true, &v);
	is_int(n, 2, "recursive pids of base");
	ok(n == 2 && ((v[0] == pa && v[1] == pc) || (v[0] == pc && v[1] == pa)),
	   "they are the two children");
	free(v);
	snprintf(p, sizeof(p), "%s/b", base);
	is_int(cgrp_pids(&root, p, false, &v), 0, "no process directly in b");
	free(v);
	n = cgrp_pids(&root, p, true, &v);
	is_int(n, 1, "one process below b");
	ok(n == 1 && v[0] == pc, "it is the child in b/c");
	free(v);
	snprintf(p, sizeof(p), "%s/gone", base);
	is_int(cgrp_pids(&root, p, true, &v), -ENOENT, "pids of a missing cgroup: ENOENT");
}

static void stats(void)
{
	struct cgrp_memstat ms;
	struct cgrp_psi psi;
	uint64_t cur = 0;
	char p[256];

	snprintf(p, sizeof(p), "%s/a", base);
	is_int(cgrp_memstat(&root, p, &ms), 0, "memory.stat of a");
	ok(ms.anon >= (7u << 20), "anon of a >= 7 MiB (%llu)", (unsigned long long)ms.anon);
	ok(ms.refault_anon != CGRP_UNKNOWN, "workingset_refault_anon present");
	is_int(cgrp_current(&root, p, &cur), 0, "memory usage of a");
	ok(cur >= (7u << 20), "usage of a >= 7 MiB (%llu)", (unsigned long long)cur);
	is_int(cgrp_pressure(&root, p, &psi), 0, "memory.pressure of a");
	if (root.version == 2)
		ok(psi.known, "v2: PSI known");
	else
		ok(!psi.known, "v1: PSI reported as unknown, not zero");
	snprintf(p, sizeof(p), "%s/gone", base);
	ok(cgrp_memstat(&root, p, &ms) < 0, "memory.stat of a missing cgroup fails");
	ok(cgrp_current(&root, p, &cur) < 0, "usage of a missing cgroup fails");
	if (root.version == 2 || root.freezer[0])
		is_int(cgrp_frozen(&root, base), 0, "base is not frozen");
	else
		is_int(cgrp_frozen(&root, base), -EOPNOTSUPP, "v1 without a freezer: unknown");
}

/* The frozen state: both parsers, and the v1 lookup on a freezer tree in a temp directory. */
static void frozen(void)
{
	struct cgrp_root v1 = { .version = 1 };
	char tmp[] = "/tmp/pageoutd-freezer-XXXXXX", p[PATH_MAX];
	static const char ev[] = "populated 1\nfrozen 1\n";

	is_int(cgrp_frozen_parse(2, ev, sizeof(ev) - 1), 1, "cgroup.events: frozen 1");
	is_int(cgrp_frozen_parse(2, "populated 0\nfrozen 0\n", 22), 0, "cgroup.events: frozen 0");
	is_int(cgrp_frozen_parse(2, "populated 1\n", 12), -EOPNOTSUPP,
	       "cgroup.events without frozen (before 5.2): no freezer");
	is_int(cgrp_frozen_parse(1, "FROZEN\n", 7), 1, "freezer.state FROZEN");
	is_int(cgrp_frozen_parse(1, "FREEZING\n", 9), 0, "freezer.state FREEZING: not yet");
	is_int(cgrp_frozen_parse(1, "THAWED\n", 7), 0, "freezer.state THAWED");
	is_int(cgrp_frozen_parse(1, "what", 4), -EINVAL, "freezer.state garbage");
	is_int(cgrp_frozen(&v1, "/apps/a"), -EOPNOTSUPP, "v1 without a freezer hierarchy");
	if (!mkdtemp(tmp))
		exit(99);
	str_copy(v1.freezer, sizeof(v1.freezer), tmp);
	snprintf(p, sizeof(p), "%s/apps", tmp);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/apps/a", tmp);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/apps/freezer.state", tmp);
	{
		FILE *f = fopen(p, "w");

		fputs("FROZEN\n", f);
		fclose(f);
	}
	is_int(cgrp_frozen(&v1, "/apps/a"), 1, "v1: a cgroup without its own state: its parent's");
	is_int(cgrp_frozen(&v1, "/apps/b/c"), 1,
	       "v1: a path not in the freezer tree: an ancestor's");
	is_int(cgrp_frozen(&v1, "/other"), 0, "v1: the root of the hierarchy is never frozen");
	snprintf(p, sizeof(p), "%s/apps/a/freezer.state", tmp);
	{
		FILE *f = fopen(p, "w");

		fputs("THAWED\n", f);
		fclose(f);
	}
	is_int(cgrp_frozen(&v1, "/apps/a"), 0, "v1: its own state first");
	unlink(p);
	snprintf(p, sizeof(p), "%s/apps/freezer.state", tmp);
	unlink(p);
	snprintf(p, sizeof(p), "%s/apps/a", tmp);
	rmdir(p);
	snprintf(p, sizeof(p), "%s/apps", tmp);
	rmdir(p);
	rmdir(tmp);
}

/* Write `text` to tmp/rel/name, creating rel; NULL text removes the file. */
static void put(const char *tmp, const char *rel, const char *name, const char *text)
{
	char p[PATH_MAX * 2];
	FILE *f;

	snprintf(p, sizeof(p), "mkdir -p '%s%s'", tmp, rel);
	if (system(p) != 0)
		exit(99);
	snprintf(p, sizeof(p), "%s%s/%s", tmp, rel, name);
	if (!text) {
		unlink(p);
		return;
	}
	f = fopen(p, "w");
	if (!f)
		exit(99);
	fprintf(f, "%s\n", text);
	fclose(f);
}

/* cgrp_swap_room of rel in the fake tree, UINT64_MAX - 1 when it fails */
static uint64_t room(const struct cgrp_root *v2, const char *rel)
{
	uint64_t r;

	return cgrp_swap_room(v2, rel, &r) < 0 ? UINT64_MAX - 1 : r;
}

/*
 * A container below pod (whose own room is 63 MiB): its limits folded onto the pod's
 * (cgrp_swap_limits with top) give its room without reading the pod again; a root without
 * swap files (cgroup v1) limits nothing.
 */
static void swap_fold(const struct cgrp_root *v2, const char *tmp, const char *pod)
{
	struct cgrp_swap_limits lim = CGRP_SWAP_LIMITS_NONE, c;
	struct cgrp_root v1 = { .version = 1 };
	char ctr[PATH_MAX];
	uint64_t r = 0;

	snprintf(ctr, sizeof(ctr), "%s/ctr", pod);
	put(tmp, ctr, "memory.swap.max", "0");
	put(tmp, ctr, "memory.swap.current", "0");
	is_u64(room(v2, ctr), 0, "LimitedSwap's swap.max 0 on a container: no room for it");
	is_u64(room(v2, pod), 63 << 20, "but its pod's room stays 63 MiB");
	ok(cgrp_swap_limits(v2, pod, NULL, &lim) == 0 && cgrp_swap_limits_room(&lim) == 63 << 20,
	   "the pod's limits, folded up to the root: 63 MiB");
	put(tmp, pod, "memory.swap.max", "lots");
	c = lim;
	ok(cgrp_swap_limits(v2, ctr, pod, &c) == 0 && cgrp_swap_limits_room(&c) == 0,
	   "the container's folded onto them: 0, the pod not read again");
	put(tmp, pod, "memory.swap.max", "67108864");
	put(tmp, ctr, "memory.swap.max", "max");
	put(tmp, ctr, "memory.zswap.max", "1048576");
	put(tmp, ctr, "memory.zswap.current", "0");
	put(tmp, ctr, "memory.zswap.writeback", "0");
	c = lim;
	ok(cgrp_swap_limits(v2, ctr, pod, &c) == 0 && cgrp_swap_limits_room(&c) == 1 << 20 &&
		   room(v2, ctr) == 1 << 20,
	   "writeback 0 on the container: its 1 MiB of zswap, folded or read whole");
	str_copy(v1.mount, sizeof(v1.mount), tmp);
	ok(cgrp_swap_room(&v1, ctr, &r) == 0 && r == UINT64_MAX,
	   "a root without swap files (v1): unlimited");
}

/*
 * The swap a cgroup may still use (swap_limit), on a cgroup v2 tree of plain files in a temp
 * directory: memory.swap.max over the cgroup and its ancestors and, where
 * memory.zswap.writeback is 0 on the way up, memory.zswap.max as well.
 */
static void swap_room(void)
{
	struct cgrp_root v2 = { .version = 2 };
	char tmp[] = "/tmp/pageoutd-swaproom-XXXXXX", p[PATH_MAX + 16];
	static const char *const lv[] = { "/kubepods", "/kubepods/burstable",
					  "/kubepods/burstable/pod1" };
	const char *pod = lv[2];

	if (!mkdtemp(tmp))
		exit(99);
	str_copy(v2.mount, sizeof(v2.mount), tmp);
	str_copy(v2.swap, sizeof(v2.swap), tmp);
	/* a 6.12 node: every level has the files, nothing limited */
	for (size_t i = 0; i < 3; i++) {
		put(tmp, lv[i], "memory.swap.max", "max");
		put(tmp, lv[i], "memory.swap.current", "0");
		put(tmp, lv[i], "memory.zswap.max", "max");
		put(tmp, lv[i], "memory.zswap.current", "0");
		put(tmp, lv[i], "memory.zswap.writeback", "1");
	}
	is_u64(room(&v2, pod), UINT64_MAX, "max everywhere: unlimited");
	put(tmp, "/kubepods", "memory.swap.max", "1073741824");
	put(tmp, "/kubepods", "memory.swap.current", "1073217536");
	is_u64(room(&v2, pod), 512 << 10, "an ancestor's swap.max bounds it: 512 KiB left");
	ok(policy_swap_limited(room(&v2, pod)), "512 KiB is below the minimum: swap_limit");
	put(tmp, "/kubepods", "memory.swap.max", "max");
	put(tmp, pod, "memory.swap.max", "0");
	is_u64(room(&v2, pod), 0, "LimitedSwap's memory.swap.max = 0: no room");
	put(tmp, pod, "memory.swap.max", "67108864");
	put(tmp, pod, "memory.swap.current", "1048576");
	put(tmp, pod, "memory.zswap.max", "0");
	is_u64(room(&v2, pod), 63 << 20, "writeback on: zswap.max 0 does not bound the room");

	/* writeback off: zswap's room is all there is */
	put(tmp, "/kubepods/burstable", "memory.zswap.writeback", "0");
	is_u64(room(&v2, pod), 0, "an ancestor's writeback 0 and zswap.max 0: no room");
	ok(policy_swap_limited(room(&v2, pod)), "which is swap_limit");
	put(tmp, pod, "memory.zswap.max", "max");
	is_u64(room(&v2, pod), 63 << 20, "writeback 0, zswap.max max: swap.max still bounds it");
	put(tmp, pod, "memory.zswap.max", "16777216");
	put(tmp, pod, "memory.zswap.current", "4194304");
	is_u64(room(&v2, pod), 12 << 20, "writeback 0: zswap.max - zswap.current (12 MiB)");
	ok(!policy_swap_limited(room(&v2, pod)), "12 MiB is room enough");
	put(tmp, "/kubepods", "memory.zswap.max", "8388608");
	put(tmp, "/kubepods", "memory.zswap.current", "7864320");
	is_u64(room(&v2, pod), 512 << 10, "the least over the ancestors: 512 KiB at /kubepods");
	ok(policy_swap_limited(room(&v2, pod)), "too little zswap left: swap_limit");
	put(tmp, "/kubepods", "memory.zswap.current", "9437184");
	is_u64(room(&v2, pod), 0, "zswap.current above zswap.max: 0, not a wrap");
	put(tmp, "/kubepods", "memory.zswap.max", "max");
	put(tmp, "/kubepods/burstable", "memory.zswap.writeback", "1");
	put(tmp, pod, "memory.zswap.writeback", "0");
	is_u64(room(&v2, pod), 12 << 20, "the cgroup's own writeback 0 counts too");
	put(tmp, pod, "memory.zswap.writeback", "1");
	is_u64(room(&v2, pod), 63 << 20, "writeback back on: the swap room again");

	/* before 6.8 (or no zswap): no zswap files at all */
	for (size_t i = 0; i < 3; i++) {
		put(tmp, lv[i], "memory.zswap.max", NULL);
		put(tmp, lv[i], "memory.zswap.current", NULL);
		put(tmp, lv[i], "memory.zswap.writeback", NULL);
	}
	is_u64(room(&v2, pod), 63 << 20, "no zswap files: memory.swap.max alone");
	put(tmp, pod, "memory.zswap.writeback", "garbage");
	is_u64(room(&v2, pod), 63 << 20, "a writeback that is not 0 is on");
	swap_fold(&v2, tmp, pod);
	ok(cgrp_swap_room(&v2, "/kubepods/burstable/gone", &(uint64_t){ 0 }) == -ENOENT,
	   "a cgroup that is gone: -ENOENT");
	put(tmp, pod, "memory.swap.max", "lots");
	ok(cgrp_swap_room(&v2, pod, &(uint64_t){ 0 }) == -EINVAL,
	   "a swap.max that is not a number");
	snprintf(p, sizeof(p), "rm -rf '%s'", tmp);
	if (system(p) != 0)
		exit(99);
}

static void psi_parse(void)
{
	static const char txt[] = "some avg10=1.50 avg60=0.20 avg300=0.00 total=12345\n"
				  "full avg10=0.50 avg60=0.10 avg300=0.00 total=678\n";
	struct cgrp_psi psi;

	is_int(cgrp_psi_parse(txt, sizeof(txt) - 1, &psi), 0, "parse PSI text");
	ok(psi.known && psi.some_avg10 > 1.49 && psi.some_avg10 < 1.51, "some avg10 1.50");
	is_u64(psi.full_total_us, 678, "full total");
	is_int(cgrp_psi_parse("garbage", 7, &psi), -EINVAL, "garbage PSI refused");
}

/* Cgroups created and removed underneath while the layer walks: only ENOENT, no crash. */
static void churn(void)
{
	pid_t pid = fork();
	int bad = 0, walks = 0;

	if (pid == 0) {
		/* fresh names each round: a removed cgroup never comes back under its name */
		for (unsigned g = 0;; g++) {
			char n[32];

			for (int i = 0; i < 20; i++) {
				snprintf(n, sizeof(n), "/churn%u-%d", g, i);
				mk(n);
			}
			for (int i = 0; i < 20; i++) {
				snprintf(n, sizeof(n), "/churn%u-%d", g, i);
				rm(n);
			}
		}
	}
	for (int i = 0; i < 300; i++) {
		struct cgrp_list l = { 0 };
		pid_t *v = NULL;
		int r = cgrp_descendants(&root, base, &l), k;

		if (r < 4 && bad++ < 3)
			printf("# walk returned %d\n", r);
		for (size_t j = 0; j < l.nr; j++) {
			struct cgrp_memstat ms;

			k = cgrp_memstat(&root, l.paths[j], &ms);
			if (k < 0 && k != -ENOENT && bad++ < 6)
				printf("# memstat %s: %d\n", l.paths[j], k);
		}
		k = cgrp_pids(&root, base, true, &v);
		if (k != 2 && bad++ < 9)
			printf("# pids: %d\n", k);
		free(v);
		cgrp_list_fini(&l);
		walks++;
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	{
		struct cgrp_list l = { 0 };

		cgrp_descendants(&root, base, &l);
		for (size_t j = 0; j < l.nr; j++)
			if (strstr(l.paths[j], "/churn")) {
				char p[PATH_MAX * 2];

				snprintf(p, sizeof(p), "%s%s", root.mount, l.paths[j]);
				rmdir(p);
			}
		cgrp_list_fini(&l);
	}
	is_int(bad, 0, "%d walks while 20 cgroups come and go: no failure but ENOENT", walks);
}

int main(void)
{
	pid_t pa, pc;
	int r;

	swap_room(); /* needs no cgroup */
	if (geteuid() != 0) {
		frozen(); /* needs no cgroup */
		skip("cgroups created, matched, read and removed",
		     "not root: the tests that create cgroups need root (make check-vm runs them "
		     "in the guest)");
		return tap_exit();
	}
	log_setup(LOG_TARGET_STDERR, LOG_ERR);
	r = cgrp_init(&root);
	if (r == -ENODEV)
		tap_skip_all("no memory cgroup hierarchy mounted");
	is_int(r, 0, "cgrp_init");
	printf("# memory hierarchy at %s, cgroup v%d\n", root.mount, root.version);
	psi_parse();
	frozen();
	snprintf(base, sizeof(base), "/pageoutd-test-%d", (int)getpid());
	mk("");
	mk("/a");
	mk("/b");
	mk("/b/c");
	pa = child_in("/a", 8);
	pc = child_in("/b/c", 4);
	expand();
	pids(pa, pc);
	stats();
	churn();
	kill(pa, SIGKILL);
	kill(pc, SIGKILL);
	waitpid(pa, NULL, 0);
	waitpid(pc, NULL, 0);
	rm("/b/c");
	rm("/b");
	rm("/a");
	rm("");
	return tap_exit();
}
