// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * server: the stats socket; see server.h.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#ifdef HAVE_SYSTEMD
#include <systemd/sd-daemon.h>
#endif

#include "pageoutd/log.h"
#include "pageoutd/server.h"

/* a reader that takes longer than this for a response is dropped too */
#define WRITE_DEADLINE_US (10 * USEC_PER_SEC)

struct client {
	struct server *srv;
	int fd;
	struct ucred peer;
	uint64_t since_us;
	char req[SERVER_REQUEST_MAX + 1];
	size_t len;
	struct sbuf out;
	size_t off;
	bool writing;
};

struct server {
	struct loop *loop;
	int fd, timer;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	bool own_path;
	server_fn fn;
	void *data;
	struct client *c[SERVER_CLIENTS_MAX];
	unsigned nc;
	unsigned long refused, dropped;
};

static void client_close(struct client *c)
{
	struct server *s = c->srv;

	loop_del_fd(s->loop, c->fd);
	close(c->fd);
	sbuf_fini(&c->out);
	for (unsigned i = 0; i < s->nc; i++)
		if (s->c[i] == c) {
			s->c[i] = s->c[--s->nc];
			break;
		}
	free(c);
}

static int on_client(struct loop *l, int fd, uint32_t events, void *data);

/* Write what is left; switch to EPOLLOUT when the socket is full. */
static void client_flush(struct client *c)
{
	while (c->off < c->out.len) {
		ssize_t n = write(c->fd, c->out.s + c->off, c->out.len - c->off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			if (!c->writing) {
				c->writing = true;
				loop_del_fd(c->srv->loop, c->fd);
				if (loop_add_fd(c->srv->loop, c->fd, EPOLLOUT, on_client, c) < 0)
					break;
			}
			return;
		}
		if (n <= 0)
			break;
		c->off += (size_t)n;
	}
	client_close(c);
}

char *server_request_line(char *buf, size_t len)
{
	char *nl = memchr(buf, '\n', len);

	if (nl)
		*nl = '\0';
	else
		buf[len] = '\0';
	if (nl && nl > buf && nl[-1] == '\r')
		nl[-1] = '\0';
	return buf;
}

static void client_answer(struct client *c)
{
	c->srv->fn(c->srv->data, server_request_line(c->req, c->len), &c->peer, &c->out);
	if (c->out.oom) {
		sbuf_fini(&c->out);
		sbuf_puts(&c->out, "error: out of memory\n");
	}
	c->off = 0;
	client_flush(c);
}

static int on_client(struct loop *l, int fd, uint32_t events, void *data)
{
	struct client *c = data;

	(void)l;
	(void)fd;
	if (c->writing) {
		if (events & (EPOLLERR | EPOLLHUP))
			client_close(c);
		else
			client_flush(c);
		return 0;
	}
	for (;;) {
		ssize_t n = read(c->fd, c->req + c->len, SERVER_REQUEST_MAX - c->len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n < 0) {
			client_close(c);
			return 0;
		}
		if (n == 0) {
			/* EOF: a request without its newline still counts, an empty one not */
			if (c->len)
				client_answer(c);
			else
				client_close(c);
			return 0;
		}
		c->len += (size_t)n;
		if (memchr(c->req + c->len - (size_t)n, '\n', (size_t)n)) {
			client_answer(c);
			return 0;
		}
		if (c->len >= SERVER_REQUEST_MAX) {
			sbuf_printf(&c->out, "error: request longer than %d bytes\n",
				    SERVER_REQUEST_MAX);
			client_flush(c);
			return 0;
		}
	}
}

static int on_accept(struct loop *l, int fd, uint32_t events, void *data)
{
	struct server *s = data;

	(void)l;
	(void)events;
	for (;;) {
		socklen_t len = sizeof(struct ucred);
		struct client *c;
		int cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (cfd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno != EAGAIN)
				log_rl(LOG_WARNING, "stats socket: accept: %s", strerror(errno));
			return 0;
		}
		if (s->nc >= SERVER_CLIENTS_MAX) {
			static const char busy[] = "error: too many clients, try again\n";

			s->refused++;
			if (write(cfd, busy, sizeof(busy) - 1) < 0) {
				/* the refusal is best effort */
			}
			close(cfd);
			continue;
		}
		c = calloc(1, sizeof(*c));
		if (!c) {
			close(cfd);
			continue;
		}
		c->srv = s;
		c->fd = cfd;
		c->since_us = now_usec();
		if (getsockopt(cfd, SOL_SOCKET, SO_PEERCRED, &c->peer, &len) < 0) {
			c->peer.uid = (uid_t)-1; /* unknown: never privileged */
			c->peer.gid = (gid_t)-1;
			c->peer.pid = 0;
		}
		if (loop_add_fd(s->loop, cfd, EPOLLIN, on_client, c) < 0) {
			close(cfd);
			free(c);
			continue;
		}
		s->c[s->nc++] = c;
	}
}

static int on_sweep(struct loop *l, int fd, uint32_t events, void *data)
{
	struct server *s = data;
	uint64_t now = now_usec();

	(void)l;
	(void)events;
	loop_timer_ack(fd);
	for (unsigned i = s->nc; i-- > 0;) {
		struct client *c = s->c[i];

		if (now - c->since_us > (c->writing ? WRITE_DEADLINE_US : SERVER_DEADLINE_US)) {
			s->dropped++;
			client_close(c);
		}
	}
	return 0;
}

/* Is a socket at path answering? Then another daemon serves it. */
static bool live(const struct sockaddr_un *sa)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool r;

	if (fd < 0)
		return false;
	r = connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == 0;
	close(fd);
	return r;
}

/*
 * The socket's directory (0755), when it is not there: without a service manager to make
 * it, as RuntimeDirectory= does. A failure is only warned about: bind() then says why.
 */
/*
 * socket_group's gid: a group name from the group database, or a number as it stands (a
 * container image has no entry for the group its pod runs under). 0 or -ENOENT.
 */
static int socket_gid(const char *group, gid_t *ret)
{
	struct group *g;
	uint64_t n;

	if (parse_u64(group, &n) == 0 && n < (gid_t)-1) {
		*ret = (gid_t)n;
		return 0;
	}
	g = getgrnam(group);
	if (!g)
		return -ENOENT;
	*ret = g->gr_gid;
	return 0;
}

static void make_socket_dir(const char *path)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char *slash;

	str_copy(dir, sizeof(dir), path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return;
	*slash = '\0';
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		log_errno(LOG_WARNING, -errno, "stats socket directory %s", dir);
}

static int listen_path(struct server *s, const char *path, const char *group)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	mode_t old;
	int r;

	if (str_copy(sa.sun_path, sizeof(sa.sun_path), path) < 0)
		return log_errno(LOG_ERR, -ENAMETOOLONG, "stats socket %s", path);
	make_socket_dir(path);
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			log_err("stats socket %s: exists and is not a socket; not replacing it",
				path);
			return -EEXIST;
		}
		if (live(&sa)) {
			log_err("stats socket %s: another pageoutd answers on it", path);
			return -EADDRINUSE;
		}
		unlink(path);
	}
	s->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->fd < 0)
		return log_errno(LOG_ERR, -errno, "stats socket");
	old = umask(0117);
	r = bind(s->fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (r < 0)
		return log_errno(LOG_ERR, -errno, "stats socket %s: bind", path);
	s->own_path = true;
	str_copy(s->path, sizeof(s->path), path);
	if (chmod(path, 0660) < 0)
		return log_errno(LOG_ERR, -errno, "stats socket %s: chmod", path);
	if (group && group[0]) {
		gid_t gid;

		r = socket_gid(group, &gid);
		if (r < 0) {
			log_err("stats socket %s: socket_group %s does not exist", path, group);
			return r;
		}
		if (chown(path, (uid_t)-1, gid) < 0)
			return log_errno(LOG_ERR, -errno, "stats socket %s: chown to group %s",
					 path, group);
	}
	if (listen(s->fd, 64) < 0)
		return log_errno(LOG_ERR, -errno, "stats socket %s: listen", path);
	return 0;
}

int server_inherited_fd(void)
{
	const char *android = getenv("ANDROID_SOCKET_pageoutd");
	uint64_t fd;

#ifdef HAVE_SYSTEMD
	int n = sd_listen_fds(1);

	if (n > 1)
		log_warn("socket activation passed %d sockets; serving the first", n);
	if (n >= 1 && sd_is_socket_unix(SD_LISTEN_FDS_START, SOCK_STREAM, 1, NULL, 0) > 0)
		return SD_LISTEN_FDS_START;
	if (n >= 1)
		log_err("socket activation: descriptor %d is not a listening Unix stream socket; "
			"ignoring it",
			SD_LISTEN_FDS_START);
#endif
	if (android && parse_u64(android, &fd) == 0 && fd <= 65535)
		return (int)fd;
	return -1;
}

/*
 * A socket handed over: systemd's listens already; Android's init only binds it (its daemons
 * call listen() themselves, as lmkd and vold do), so listen unless it does. Returns 0 or -errno,
 * logged.
 */
static int handed_over(int fd)
{
	int acc = 0;
	socklen_t len = sizeof(acc);

	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &len) < 0)
		return log_errno(LOG_ERR, -errno, "stats socket handed over (fd %d)", fd);
	if (!acc && listen(fd, 64) < 0)
		return log_errno(LOG_ERR, -errno, "stats socket handed over (fd %d): listen", fd);
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0 ||
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0)
		return log_errno(LOG_ERR, -errno, "stats socket handed over (fd %d)", fd);
	return 0;
}

int server_new(struct server **ret, struct loop *l, int fd, const char *path, const char *group,
	       server_fn fn, void *data)
{
	struct server *s = calloc(1, sizeof(*s));
	int r;

	if (!s)
		return -ENOMEM;
	s->loop = l;
	s->fn = fn;
	s->data = data;
	s->timer = -1;
	s->fd = -1;
	if (fd >= 0) {
		s->fd = fd;
		r = handed_over(fd);
	} else {
		r = listen_path(s, path, group);
	}
	if (r == 0)
		r = loop_add_fd(l, s->fd, EPOLLIN, on_accept, s);
	if (r == 0) {
		s->timer = loop_add_timer(l, USEC_PER_SEC / 2, USEC_PER_SEC / 2, on_sweep, s);
		r = s->timer < 0 ? s->timer : 0;
	}
	if (r < 0) {
		server_free(s);
		return r;
	}
	*ret = s;
	return 0;
}

void server_free(struct server *s)
{
	if (!s)
		return;
	while (s->nc)
		client_close(s->c[0]);
	if (s->timer >= 0) {
		loop_del_fd(s->loop, s->timer);
		close(s->timer);
	}
	if (s->fd >= 0) {
		loop_del_fd(s->loop, s->fd);
		close(s->fd);
	}
	if (s->own_path)
		unlink(s->path);
	free(s);
}

unsigned server_clients(const struct server *s)
{
	return s->nc;
}
