/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * config: the user-facing contract, pageoutd.conf(5): the keys, their defaults and what each
 * engine accepts. Pure: text in, an immutable struct out, no kernel access. Errors are collected, one line each: "file:line: key: why".
 */
#ifndef PAGEOUTD_CONFIG_H
#define PAGEOUTD_CONFIG_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define CFG_DEFAULT_FILE SYSCONFDIR "/pageoutd/pageoutd.conf"
#define CFG_DEFAULT_DIR SYSCONFDIR "/pageoutd/conf.d"
/*
 * The run-state directory and the stats socket, whatever the prefix: the service manager's
 * units (RuntimeDirectory=, ListenStream=), tmpfiles.d, the shipped pageoutd.conf and the man
 * pages name these same paths (tests/integration/paths.sh holds them together).
 */
#define CFG_RUN_DIR "/run/pageoutd"
#define CFG_DEFAULT_SOCKET CFG_RUN_DIR "/pageoutd.sock"
#define CFG_NAME_MAX 64
#define CFG_MAX_POLICIES 256
#define CFG_LINE_MAX 1024
/* max_access_rate of a paddr policy that does not set it: 50% of the samples */
#define CFG_PADDR_MAX_ACCESS_RATE 500000u

/*
 * ENGINE_BOTH is what a [policy] may say; the loader turns such a policy into two of the same
 * name, its vaddr part (memory = anon) and its paddr part (memory = file): engines and the
 * loaded configuration only ever see ENGINE_VADDR and ENGINE_PADDR.
 */
enum cfg_engine { ENGINE_VADDR, ENGINE_PADDR, ENGINE_BOTH };
enum cfg_refsem { REFSEM_AUTO, REFSEM_IGNORE, REFSEM_RECHECK };
/*
 * What a policy's memory = names: MEMORY_ANON and MEMORY_FILE. MEMORY_SHMEM is the vaddr
 * engine's own kind for shared memory (tmpfs, SysV, memfd, shared anonymous): swap-backed,
 * so it goes with anon, except in the vaddr part of an engine = both policy, whose paddr part
 * reaches it (MADV_PAGEOUT skips a folio more than one process maps; DAMOS paddr does not).
 */
enum { MEMORY_ANON = 1, MEMORY_FILE = 2, MEMORY_SHMEM = 4 };
#define MEMORY_SWAP_BACKED (MEMORY_ANON | MEMORY_SHMEM)

struct cfg_daemon {
	uint64_t interval_us;
	char socket[PATH_MAX];
	char socket_group[CFG_NAME_MAX];
	char state_dir[PATH_MAX];
	char proc_root[PATH_MAX];
	int log_level; /* LOG_ERR..LOG_DEBUG */
	bool dry_run;
	/* what MADV_PAGEOUT does with page references here: reported, never relied on */
	enum cfg_refsem reference_semantics;
	/* vaddr: consecutive cold snapshots a range needs before it is advised (1 or 2) */
	uint64_t confirm_snapshots;
	bool watch_config; /* reload by itself when the configuration changes on disk */
};

struct cfg_damon {
	char sysfs_root[PATH_MAX];
	uint64_t sample_us;
	uint64_t aggr_us;
	uint64_t update_us;
	uint64_t min_regions;
	uint64_t max_regions;
	bool release_modules;	   /* turn off a DAMON kernel module that holds DAMON (dmodule.h) */
	bool sample_set, aggr_set; /* sample_interval, aggr_interval given in the file */
};

/* The intervals one engine's kdamond runs with (sampling.h: how they are derived). */
struct cfg_sampling {
	uint64_t sample_us, aggr_us;
	/* 6.15+: the kernel may lengthen the sample interval up to this, the aggregation interval
	 * in proportion; 0: no tuning */
	uint64_t tune_max_sample_us;
	uint64_t min_age_us;	   /* the shortest min_age of the engine's policies, 0: none */
	char policy[CFG_NAME_MAX]; /* the policy it is from */
	bool configured;	   /* [damon] set sample_interval or aggr_interval */
};

struct cfg_policy {
	char name[CFG_NAME_MAX];
	char file[PATH_MAX];
	unsigned line; /* of the [policy] header */
	unsigned cgroup_line;
	char cgroup[PATH_MAX];
	bool cgroup_is_glob;
	enum cfg_engine engine;
	bool both; /* a part of an engine = both policy: the other part has the same name */
	uint64_t min_age_us;
	uint32_t max_access_rate; /* ppm of samples per aggregation interval (paddr: 50%) */
	unsigned memory;	  /* MEMORY_ANON | MEMORY_FILE */
	uint64_t quota_bytes;	  /* 0 with quota_interval_us 0: no quota */
	uint64_t quota_interval_us;
	uint64_t quota_time_us;
	uint32_t pressure_limit;   /* ppm, PSI some avg10 */
	uint32_t min_free;	   /* ppm of total memory */
	uint32_t swap_reserve;	   /* ppm of swap */
	uint32_t max_refault_rate; /* ppm of the cgroups' working set per minute */
	bool frozen_only;
	/* vaddr: learn the ranges found in use again soon after their advice (vmemo.h) */
	bool learn;
	/*
	 * paddr: reclaim a cgroup only while its memory (anon + file) is above this share of
	 * memory (ppm of MemTotal; 0: no ceiling)
	 */
	uint32_t max_usage;
};

struct cfg {
	char file[PATH_MAX];
	char dir[PATH_MAX];
	struct cfg_daemon daemon;
	struct cfg_damon damon;
	struct cfg_sampling sampling[2]; /* by enum cfg_engine */
	unsigned nr_policies;
	struct cfg_policy *policies;
};

struct cfg_errors {
	unsigned nr;
	char **msgs;
};

/*
 * cfg_load: read main file `file` and every "*.conf" in `dir` (lexical order; dir may be NULL).
 * `dir_required`: a missing directory is an error rather than "no policies".
 * On success returns 0 and a new config in *ret (free with cfg_free). On config errors returns
 * -EINVAL and appends every message to errs (free with cfg_errors_fini); -ENOMEM on allocation.
 */
int cfg_load(const char *file, const char *dir, bool dir_required, struct cfg **ret,
	     struct cfg_errors *errs);

/* cfg_defaults: set the [daemon] and [damon] sections to their defaults. */
void cfg_defaults(struct cfg *cfg);
/* cfg_free: free cfg and its policies (NULL is fine). Returns NULL. */
struct cfg *cfg_free(struct cfg *cfg);
/* cfg_errors_fini: free every message and empty errs. */
void cfg_errors_fini(struct cfg_errors *errs);

/* cfg_print: the effective daemon settings and one line per policy (for --check-config). */
void cfg_print(const struct cfg *cfg, FILE *f);
/*
 * cfg_policy_describe: one-line "key=value ..." text of a policy into buf: every key that applies
 * to the policy's engine, in the value grammar of pageoutd.conf(5).
 */
const char *cfg_policy_describe(const struct cfg_policy *p, char *buf, size_t len);
/* cfg_find_policy: the policy called name, borrowed from cfg, or NULL. */
const struct cfg_policy *cfg_find_policy(const struct cfg *cfg, const char *name);

/*
 * cfg_section_keys: every key of a section ("daemon", "damon", "policy"), NULL-terminated, for
 * documentation tests; a static array. NULL for an unknown section.
 */
const char *const *cfg_section_keys(const char *section);

/* The names of the config grammar, static strings. */
const char *cfg_engine_name(enum cfg_engine e);
const char *cfg_refsem_name(enum cfg_refsem r);

#endif
