// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * engine: the policy table and the cgroup figures both engines use; see engine.h.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "pageoutd/engine.h"
#include "pageoutd/log.h"
#include "pageoutd/sampling.h"
#include "pageoutd/util.h"

static struct engine_policy *entry(const void *pol, size_t size, size_t i)
{
	return (struct engine_policy *)((const char *)pol + i * size);
}

static struct engine_policy *find_named(const void *pol, size_t nr, size_t size, const char *name)
{
	for (size_t i = 0; i < nr; i++)
		if (!strcmp(entry(pol, size, i)->name, name))
			return entry(pol, size, i);
	return NULL;
}

int engine_set_policies(void **pol, size_t *nr, size_t size, const struct cfg *cfg,
			enum cfg_engine engine, void (*init)(struct engine_policy *e))
{
	for (size_t i = 0; i < *nr; i++)
		entry(*pol, size, i)->active = false;
	for (unsigned i = 0; i < cfg->nr_policies; i++) {
		const struct cfg_policy *cp = &cfg->policies[i];
		struct engine_policy *e;

		if (cp->engine != engine)
			continue;
		e = find_named(*pol, *nr, size, cp->name);
		if (!e) {
			void *n = reallocarray(*pol, *nr + 1, size);

			if (!n)
				return -ENOMEM;
			*pol = n;
			e = entry(n, size, (*nr)++);
			memset(e, 0, size);
			str_copy(e->name, sizeof(e->name), cp->name);
			if (init)
				init(e);
		}
		e->cfg = cp;
		e->active = true;
	}
	return 0;
}

struct engine_policy *engine_find_policy(const void *pol, size_t nr, size_t size, const char *name)
{
	struct engine_policy *e = find_named(pol, nr, size, name);

	return e && e->active ? e : NULL;
}

int engine_open_proc(const struct cfg *cfg, const char *who)
{
	int fd = open(cfg->daemon.proc_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return log_errno(LOG_DEBUG, -errno, "%s: cannot open %s", who,
				 cfg->daemon.proc_root);
	return fd;
}

int engine_read_sys(int procfd, uint64_t page_size, struct policy_input *ret)
{
	char *buf = NULL;
	ssize_t n;
	int r;

	memset(ret, 0, sizeof(*ret));
	ret->now_us = now_usec();
	ret->page_size = page_size;
	n = read_file_alloc_at(procfd, "meminfo", &buf);
	if (n < 0)
		return (int)n;
	r = policy_parse_meminfo(buf, ret);
	free(buf);
	return r;
}

int engine_read_cgroup(const struct cgrp_root *cg, const char *path, struct policy_input *in,
		       struct engine_cgroup *ret)
{
	struct cgrp_memstat ms;
	struct cgrp_psi psi;
	uint64_t cur;
	int r;

	ret->resident = ret->ws_bytes = 0;
	ret->refault_pages = CGRP_UNKNOWN;
	r = cgrp_memstat(cg, path, &ms);
	if (r == 0) {
		ret->resident = ms.anon + ms.file;
		if (ms.shmem != CGRP_UNKNOWN)
			in->shmem_bytes += ms.shmem;
		if (ms.refault_anon != CGRP_UNKNOWN) {
			ret->refault_pages =
				ms.refault_anon +
				(ms.refault_file != CGRP_UNKNOWN ? ms.refault_file : 0);
			in->refaults_known = true;
			in->refault_pages += ret->refault_pages;
		}
	}
	if (cgrp_pressure(cg, path, &psi) == 0 && psi.known) {
		in->psi_known = true;
		if (psi.some_avg10 > in->psi_some_avg10)
			in->psi_some_avg10 = psi.some_avg10;
	}
	if (cgrp_current(cg, path, &cur) == 0) {
		in->memory_bytes += cur;
		ret->ws_bytes = cur;
		if (r == 0 && ms.inactive_file != CGRP_UNKNOWN)
			ret->ws_bytes = cur > ms.inactive_file ? cur - ms.inactive_file : 0;
		in->ws_bytes += ret->ws_bytes;
	}
	return r;
}

uint64_t engine_intervals_tune_max(const struct cfg *cfg, enum cfg_engine e,
				   const struct damon_features *f)
{
	return f->intervals_goal ? cfg->sampling[e].tune_max_sample_us : 0;
}

void engine_intervals_config(struct engine_intervals *iv, const struct cfg *cfg, enum cfg_engine e,
			     const struct damon_features *f)
{
	const struct cfg_sampling *s = &cfg->sampling[e];
	struct cfg_sampling shown = *s;
	char buf[sizeof(iv->said)];

	iv->sample_us = s->sample_us;
	iv->aggr_us = s->aggr_us;
	iv->tuned = engine_intervals_tune_max(cfg, e, f) != 0;
	/* the tuner's range is said only where this kernel has one */
	if (!iv->tuned)
		shown.tune_max_sample_us = 0;
	sampling_describe(&shown, buf, sizeof(buf));
	if (strcmp(buf, iv->said)) {
		log_msg(LOG_NOTICE, "%s: DAMON %s", cfg_engine_name(e), buf);
		str_copy(iv->said, sizeof(iv->said), buf);
	}
}

int engine_intervals_read(struct engine_intervals *iv, struct damon *d, unsigned slot)
{
	uint64_t sample, aggr;
	int r;

	if (!iv->tuned)
		return 0;
	r = damon_read_intervals(d, slot, &sample, &aggr);
	if (r < 0)
		return r;
	iv->sample_us = sample;
	iv->aggr_us = aggr;
	return 0;
}
