/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * engine: what the vaddr and paddr engines share: the table of their policies, kept by name
 * across reloads, and the figures each reads for policy_decide (the system's memory, and per
 * cgroup its memory, refaults and PSI).
 *
 * An engine keeps pointers into the struct cfg it was last given (each entry's cfg): the
 * caller owns that cfg and keeps it alive until the engine has been given the next one or
 * freed. An inactive entry's cfg still points into the config it came from, which may be
 * gone: it is read only while the entry is active.
 */
#ifndef PAGEOUTD_ENGINE_H
#define PAGEOUTD_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pageoutd/cgroup.h"
#include "pageoutd/config.h"
#include "pageoutd/damon.h"
#include "pageoutd/policy.h"

#define ENGINE_POLICY_FIELDS                                                                       \
	char name[CFG_NAME_MAX];      /* kept across reloads: the entry's identity */              \
	const struct cfg_policy *cfg; /* borrowed; read it only while active */                    \
	bool active		      /* in the current cfg; an inactive entry keeps its figures */

struct engine_policy {
	ENGINE_POLICY_FIELDS;
};

/*
 * The first member of an engine's policy entry: the fields by their own names (vp->cfg), and
 * the same storage as a struct engine_policy (vp->head) for the functions below.
 */
#define ENGINE_POLICY_HEAD                                                                         \
	union {                                                                                    \
		struct engine_policy head;                                                         \
		struct {                                                                           \
			ENGINE_POLICY_FIELDS;                                                      \
		};                                                                                 \
	}

/*
 * engine_set_policies: map cfg's policies of `engine` onto the table *pol of *nr entries of
 * `size` bytes, each starting with ENGINE_POLICY_HEAD. An entry whose name is in cfg stays
 * where it is with its state and gets the new cfg_policy; a new name gets a zeroed entry at the
 * end, passed to init (if not NULL); every other entry becomes inactive. Entries are never
 * removed, so indices stay valid across reloads. The table may move (*pol is updated).
 * Returns 0, or -ENOMEM: the table is then valid and the entries mapped so far active.
 */
int engine_set_policies(void **pol, size_t *nr, size_t size, const struct cfg *cfg,
			enum cfg_engine engine, void (*init)(struct engine_policy *e));

/* engine_find_policy: the active entry named `name` in a table as above, or NULL. */
struct engine_policy *engine_find_policy(const void *pol, size_t nr, size_t size, const char *name);

/*
 * engine_open_proc: a directory fd (O_CLOEXEC) on cfg's proc_root, owned by the caller.
 * Returns it or -errno (logged at debug level, prefixed with `who`).
 */
int engine_open_proc(const struct cfg *cfg, const char *who);

/*
 * engine_read_sys: this cycle's system-wide figures into ret, which is zeroed first: the time,
 * page_size, and MemTotal, MemFree, SwapTotal and SwapFree from meminfo beneath procfd.
 * Returns 0, or -errno from reading meminfo, -EINVAL from parsing it (ret still has the time
 * and page size).
 */
int engine_read_sys(int procfd, uint64_t page_size, struct policy_input *ret);

/* One cgroup's figures as engine_read_cgroup read them. */
struct engine_cgroup {
	uint64_t resident;	/* anon + file bytes (memory.stat) */
	uint64_t refault_pages; /* cumulative workingset refaults, or CGRP_UNKNOWN */
	uint64_t ws_bytes;	/* working set: memory.current less inactive_file, 0: unread */
};

/*
 * engine_read_cgroup: add cgroup `path`'s figures to in: its workingset refaults (anon + file)
 * to refault_pages, setting refaults_known, where the kernel counts them; memory.current to
 * memory_bytes; its working set (memory.current less inactive_file, as Kubernetes counts it;
 * memory.current where inactive_file is not known) to ws_bytes; its PSI some avg10, setting
 * psi_known, when it is above in's. The same figures of this cgroup alone into *ret. Returns
 * 0, or the -errno of reading memory.stat: then ret->resident is 0, ret->refault_pages
 * CGRP_UNKNOWN and no refaults are added, but memory.current and PSI are, as they could be read.
 */
int engine_read_cgroup(const struct cgrp_root *cg, const char *path, struct policy_input *in,
		       struct engine_cgroup *ret);

/*
 * The DAMON intervals of an engine's kdamond: derived from its policies or set in [damon]
 * (cfg->sampling, sampling.h), and where the kernel tunes them (6.15+), as it left them.
 */
struct engine_intervals {
	uint64_t sample_us, aggr_us; /* in force */
	bool tuned;		     /* the kernel's tuner is on (intervals_goal) */
	char said[256];		     /* what was last logged of them */
};

/*
 * engine_intervals_config: iv from engine e's cfg->sampling as the kdamond is written with
 * them, the tuner on where f has it and they allow it. Says them in the log (notice) when they
 * differ from what was last said.
 */
void engine_intervals_config(struct engine_intervals *iv, const struct cfg *cfg, enum cfg_engine e,
			     const struct damon_features *f);
/* The tuner's ceiling of engine e's sample interval where f has a tuner and e tunes; 0: off. */
uint64_t engine_intervals_tune_max(const struct cfg *cfg, enum cfg_engine e,
				   const struct damon_features *f);
/*
 * engine_intervals_read: where the kernel tunes them, the intervals kdamond slot of d runs with
 * now into iv (damon_read_intervals). Returns 0 (also where nothing is tuned) or -errno; on
 * failure iv keeps the last ones.
 */
int engine_intervals_read(struct engine_intervals *iv, struct damon *d, unsigned slot);

#endif
