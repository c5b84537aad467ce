/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * server: the stats socket. A Unix stream socket (a path, or a descriptor handed over by
 * socket activation), served from the event loop: non-blocking, one request line of at most
 * SERVER_REQUEST_MAX bytes, one response, then close. A client that does not finish its
 * request within SERVER_DEADLINE_US is dropped, and at most SERVER_CLIENTS_MAX are served at
 * once (more are told so and closed). The peer's credentials (SO_PEERCRED) go to the handler,
 * which decides what a request may do.
 */
#ifndef PAGEOUTD_SERVER_H
#define PAGEOUTD_SERVER_H

#include <stdbool.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "pageoutd/loop.h"
#include "pageoutd/proto.h"
#include "pageoutd/util.h"

#define SERVER_REQUEST_MAX PROTO_REQUEST_MAX
#define SERVER_CLIENTS_MAX 32
#define SERVER_DEADLINE_US (2 * USEC_PER_SEC)

/*
 * server_request_line: the request line in buf's len bytes (buf has room for len + 1): cut at
 * the first newline (and a CR before it), NUL-terminated in place. Fuzzed.
 */
char *server_request_line(char *buf, size_t len);

/* handler: answer one request line (without its newline) into out. */
typedef void (*server_fn)(void *data, const char *line, const struct ucred *peer, struct sbuf *out);

struct server;

/*
 * server_inherited_fd: the socket the service manager handed over, or -1: systemd's first
 * LISTEN_FDS descriptor if it is a listening Unix stream socket (else logged and ignored;
 * the LISTEN_* variables are unset), or Android init's ANDROID_SOCKET_pageoutd (bound, maybe
 * not listening). Call once, before server_new.
 */
int server_inherited_fd(void);

/*
 * server_new: listen on fd (>= 0: handed over and bound; listen() is called unless it already
 * listens, as Android's init leaves it) or on path (created with mode 0660 and group `group`
 * if not empty, in a directory created if missing; a stale socket is replaced, a live one is
 * -EADDRINUSE). Each request line goes to fn with data. Returns 0 or -errno, logged.
 */
int server_new(struct server **ret, struct loop *l, int fd, const char *path, const char *group,
	       server_fn fn, void *data);
/* server_free: close every client and the socket; a socket pageoutd created is removed. */
void server_free(struct server *s);
unsigned server_clients(const struct server *s);

#endif
