/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * control: the daemon's answers on the stats socket. One table holds every request of
 * proto.h: its word, whether it is for root only, and its handler. A request line is looked
 * up there, a root-only request from any other peer (its SO_PEERCRED uid) is refused, and only
 * then does the handler run. Control asks the daemon (daemon.h); the daemon knows nothing of
 * control.
 */
#ifndef PAGEOUTD_CONTROL_H
#define PAGEOUTD_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#include "pageoutd/daemon.h"
#include "pageoutd/util.h"

struct control_request {
	const char *name; /* a PROTO_REQ_ word */
	const char *arg;  /* the argument, as `help` names it; NULL: takes none */
	bool needs_root;
	/* answer into out; arg is "" when the line has none */
	void (*handler)(struct daemon *d, const char *arg, const struct ucred *peer,
			struct sbuf *out);
};

/* control_find: the entry of the request word (len bytes, need not end in NUL), or NULL. */
const struct control_request *control_find(const char *word, size_t len);

/*
 * control_answer: answer one request line (without its newline) from peer into out, with the
 * daemon as data (a server_fn). Unknown requests and root-only ones from a peer whose uid is
 * not 0 get an error line and never reach a handler, and neither they, nor `help`, `version`
 * or a missing argument read the daemon.
 */
void control_answer(void *daemon, const char *line, const struct ucred *peer, struct sbuf *out);

#endif
