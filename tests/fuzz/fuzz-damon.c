// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: what pageoutd reads from the kernel. A snapshot (update_schemes_tried_regions
 * and the region files) and the scheme stats are read from the emulated DAMON tree of the
 * tests (6.12 or 7.2 layout) whose reads of tried_regions/, stats/ and effective_bytes files
 * answer with pieces of the input, as a kernel in the middle of an update or a broken one
 * might; the rest of the input is given to the /proc and cgroup text parsers (smaps, iomem,
 * meminfo, PSI, /proc/PID/stat) and to the number parser.
 *
 * Input: byte 0 selects the layout, byte 1 the number of DAMON regions (0-15), then 8 bytes
 * per region (start page, size in pages, nr_accesses, age), then text: pieces separated by
 * '|' for the region and stats files, in the order they are read; the whole text for the
 * parsers.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pageoutd/cgroup.h"
#include "pageoutd/cgstat.h"
#include "pageoutd/damon.h"
#include "pageoutd/log.h"
#include "pageoutd/paddr.h"
#include "pageoutd/pscheme.h"
#include "pageoutd/policy.h"
#include "pageoutd/vaddr.h"
#include "pageoutd/vma.h"
#include "../lib/damonctx.h"
#include "../lib/fakedamon.h"

static struct fakedamon *fakes[2];
static struct damon_io real[2], io[2];
static struct damon damons[2];
static bool running[2];

/* the pieces of text that answer reads, consumed in order */
static const char *text, *text_end;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
static ssize_t fuzz_read(void *ctx, int dirfd, const char *path, char *buf, size_t len);
static int fuzz_write(void *ctx, int dirfd, const char *path, const char *val);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	log_setup(LOG_TARGET_STDERR, LOG_EMERG);
	fakes[0] = fake_new(FAKE_ABI_612);
	fakes[1] = fake_new(FAKE_ABI_72);
	/* one running kdamond per layout, as the daemon keeps it between cycles */
	for (unsigned k = 0; k < 2; k++) {
		struct damon_ctx c;
		struct damon_target t;
		struct damon_scheme s;
		pid_t pid = getpid();

		real[k] = fake_io(fakes[k]);
		io[k] = (struct damon_io){ .read = fuzz_read,
					   .write = fuzz_write,
					   .ctx = &real[k] };
		test_vaddr_ctx(&c, &t, &s, &pid, 1);
		running[k] =
			damon_open(&damons[k], fakes[k]->admin, fakes[k]->state_dir, &io[k]) == 0 &&
			damon_acquire(&damons[k]) == 0 && damon_write_ctx(&damons[k], 0, &c) == 0 &&
			damon_start(&damons[k], 0) == 0;
		if (!running[k])
			abort();
	}
	return 0;
}

static bool fuzzed(const char *path)
{
	return strstr(path, "tried_regions/") || strstr(path, "/stats/") ||
	       strstr(path, "effective_bytes");
}

static ssize_t fuzz_read(void *ctx, int dirfd, const char *path, char *buf, size_t len)
{
	struct damon_io *real = ctx;
	const char *bar;
	size_t n;

	if (!fuzzed(path) || text >= text_end)
		return real->read(real->ctx, dirfd, path, buf, len);
	bar = memchr(text, '|', (size_t)(text_end - text));
	n = (size_t)((bar ? bar : text_end) - text);
	if (n >= len)
		n = len - 1;
	memcpy(buf, text, n);
	buf[n] = '\0';
	text = bar ? bar + 1 : text_end;
	return (ssize_t)n;
}

static int fuzz_write(void *ctx, int dirfd, const char *path, const char *val)
{
	struct damon_io *real = ctx;

	return real->write(real->ctx, dirfd, path, val);
}

static void parsers(const char *s, size_t len)
{
	struct vma_list vl = { 0 };
	struct damon_range ram[4];
	struct policy_input in;
	struct cgrp_psi psi;
	uint64_t v, start;

	damon_parse_u64(s, len, &v);
	cgstat_parse_stat(s, len, &v, &start);
	cgrp_psi_parse(s, len, &psi);
	pscheme_ram_ranges(s, ram, 4);
	memset(&in, 0, sizeof(in));
	policy_parse_meminfo(s, &in);
	vma_parse_smaps(s, &vl);
	vma_list_fini(&vl);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct damon_snapshot snap = { 0 };
	struct damon_stats st;
	struct fakedamon *f;
	struct damon *d;
	unsigned nr;
	char *copy;

	if (size < 2)
		return 0;
	f = fakes[data[0] & 1];
	d = &damons[data[0] & 1];
	nr = data[1] % 16;
	data += 2;
	size -= 2;
	f->nvr = 0;
	for (; nr && size >= 8; nr--, data += 8, size -= 8) {
		uint64_t start = (uint64_t)(data[0] | data[1] << 8 | data[2] << 16) << 12;
		uint64_t sz = ((uint64_t)(data[3] | data[4] << 8) + 1) << 12;

		f->vr[f->nvr++] = (struct fake_vregion){ 0, start, start + sz, data[5], data[6] };
	}
	copy = malloc(size + 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	copy[size] = '\0';
	parsers(copy, size);
	text = copy;
	text_end = copy + size;
	if (damon_snapshot(d, 0, &snap) == 0)
		for (unsigned i = 0; i < snap.nr_schemes; i++)
			for (unsigned k = 0; k < snap.schemes[i].nr; k++)
				if (snap.schemes[i].regions[k].start >
				    snap.schemes[i].regions[k].end)
					abort();
	damon_snapshot_fini(&snap);
	if (damon_update_stats(d, 0) == 0)
		damon_read_stats(d, 0, 0, &st);
	/* a broken answer may have left it off: the daemon starts it again */
	if (damon_running(d, 0) != 1)
		damon_start(d, 0);
	text = text_end = NULL;
	free(copy);
	return 0;
}
