// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: the stats socket's request handling. The input's first byte picks the
 * peer (odd: root, even: uid 65534); the rest is what that client sends (at most
 * SERVER_REQUEST_MAX bytes, as the server reads): framed into its request line and answered by
 * control_answer(), from a daemon with two policies read from files (so that root's reload
 * reads them again) and no engines running (the state before the first cycle) but a frozen
 * cgroup and a running one in the per-cgroup figures. A root-only request must be refused to
 * the other peer, and never refused to root as a matter of permission.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pageoutd/cgstat.h"
#include "pageoutd/config.h"
#include "pageoutd/control.h"
#include "pageoutd/log.h"
#include "pageoutd/proto.h"
#include "pageoutd/server.h"

static struct daemon_args args = { .log_level = -1, .dir_given = true };
static char conf_file[128], conf_dir[128];
static struct daemon daemon_state;
static struct cgstat *cgs;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0)
		abort();
	fclose(f);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char top[64] = "/tmp/pageoutd-fuzz-request-XXXXXX", p[128], d[128];
	struct cfg_errors errs = { 0 };
	struct cfg *cfg = NULL;

	(void)argc;
	(void)argv;
	log_setup(LOG_TARGET_STDERR, LOG_EMERG);
	if (!mkdtemp(top))
		abort();
	snprintf(d, sizeof(d), "%s/conf.d", top);
	if (mkdir(d, 0700) < 0)
		abort();
	snprintf(p, sizeof(p), "%s/web.conf", d);
	put(p, "[policy]\ncgroup = /system.slice/web*.service\nmin_age = 2m\n");
	snprintf(p, sizeof(p), "%s/batch.conf", d);
	put(p, "[policy]\ncgroup = /batch\nengine = paddr\nquota = 64M/1s\n");
	snprintf(p, sizeof(p), "%s/pageoutd.conf", top);
	put(p, "[daemon]\ninterval = 5s\n");
	if (cfg_load(p, d, true, &cfg, &errs) < 0)
		abort();
	snprintf(conf_file, sizeof(conf_file), "%s", p);
	snprintf(conf_dir, sizeof(conf_dir), "%s", d);
	args.file = conf_file;
	args.dir = conf_dir;
	/* no cgroup root: nothing here thaws, which would read one */
	cgs = cgstat_new(NULL, -1);
	if (!cgs || !cgstat_get(cgs, ENGINE_PADDR, "batch", "/batch"))
		abort();
	cgstat_frozen(cgs, cgstat_get(cgs, ENGINE_VADDR, "web", "/system.slice/web\"1\".service"),
		      1, now_usec());
	daemon_init(&daemon_state, &args, cfg);
	daemon_state.cgstat = cgs;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct ucred nobody = { .pid = 1, .uid = 65534, .gid = 65534 };
	static const struct ucred root = { .pid = 1, .uid = 0, .gid = 0 };
	static char buf[SERVER_REQUEST_MAX + 1];
	const struct control_request *q;
	const struct ucred *peer;
	struct sbuf out = { 0 };
	const char *line;

	if (!size)
		return 0;
	peer = data[0] & 1 ? &root : &nobody;
	data++;
	size--;
	if (size > SERVER_REQUEST_MAX)
		size = SERVER_REQUEST_MAX;
	memcpy(buf, data, size);
	line = server_request_line(buf, size);
	q = control_find(line, strcspn(line, " "));
	control_answer(&daemon_state, line, peer, &out);
	if (q && q->needs_root && peer->uid &&
	    !(out.s && !strncmp(out.s, PROTO_ERROR, strlen(PROTO_ERROR))))
		abort();
	/* the refusal control_answer() gives a peer that is not root, and never gives root */
	if (q && q->needs_root && !peer->uid && out.s &&
	    !strncmp(out.s, PROTO_ERROR " permission denied:", strlen(PROTO_ERROR) + 19))
		abort();
	sbuf_fini(&out);
	return 0;
}
