// SPDX-License-Identifier: GPL-2.0-or-later
/* loop: epoll + timerfd + signalfd, as chrony's sched.c keeps main.c thin. */
#include <config.h>

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "pageoutd/loop.h"
#include "pageoutd/util.h"

#define LOOP_MAX_FDS 512

struct watch {
	int fd;
	loop_fd_fn fn;
	void *data;
};

struct loop {
	int epfd;
	int sigfd;
	loop_signal_fn on_signal;
	void *sig_data;
	bool quit;
	int code;
	unsigned nr;
	struct watch watches[LOOP_MAX_FDS];
};

static int on_sigfd(struct loop *l, int fd, uint32_t events, void *data)
{
	struct signalfd_siginfo si;
	ssize_t n;

	(void)events;
	(void)data;
	while ((n = read(fd, &si, sizeof(si))) == sizeof(si)) {
		int r = l->on_signal ? l->on_signal(l, (int)si.ssi_signo, l->sig_data) : 0;

		if (r < 0)
			return r;
	}
	return 0;
}

int loop_new(struct loop **ret, loop_signal_fn on_signal, void *data)
{
	struct loop *l = calloc(1, sizeof(*l));
	sigset_t set;
	int r;

	if (!l)
		return -ENOMEM;
	l->sigfd = -1;
	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (l->epfd < 0) {
		r = -errno;
		free(l);
		return r;
	}
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	l->on_signal = on_signal;
	l->sig_data = data;
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0 ||
	    (l->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC)) < 0)
		r = -errno;
	else
		r = loop_add_fd(l, l->sigfd, EPOLLIN, on_sigfd, NULL);
	if (r < 0) {
		loop_free(l);
		return r;
	}
	*ret = l;
	return 0;
}

struct loop *loop_free(struct loop *l)
{
	if (!l)
		return NULL;
	if (l->sigfd >= 0)
		close(l->sigfd);
	close(l->epfd);
	free(l);
	return NULL;
}

int loop_add_fd(struct loop *l, int fd, uint32_t events, loop_fd_fn fn, void *data)
{
	struct epoll_event ev = { .events = events };
	unsigned i;

	for (i = 0; i < LOOP_MAX_FDS && l->watches[i].fn; i++)
		;
	if (i == LOOP_MAX_FDS)
		return -EMFILE;
	ev.data.u32 = i;
	if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
		return -errno;
	l->watches[i] = (struct watch){ .fd = fd, .fn = fn, .data = data };
	l->nr++;
	return 0;
}

int loop_del_fd(struct loop *l, int fd)
{
	for (unsigned i = 0; i < LOOP_MAX_FDS; i++) {
		if (l->watches[i].fn && l->watches[i].fd == fd) {
			/* the caller may have closed fd already, which removed it: not an error */
			(void)epoll_ctl(l->epfd, EPOLL_CTL_DEL, fd, NULL);
			l->watches[i].fn = NULL;
			l->nr--;
			return 0;
		}
	}
	return -ENOENT;
}

int loop_timer_set(int tfd, uint64_t first_us, uint64_t interval_us)
{
	struct itimerspec its = {
		.it_value = { .tv_sec = (time_t)(first_us / USEC_PER_SEC),
			      .tv_nsec = (long)(first_us % USEC_PER_SEC) * 1000 },
		.it_interval = { .tv_sec = (time_t)(interval_us / USEC_PER_SEC),
				 .tv_nsec = (long)(interval_us % USEC_PER_SEC) * 1000 },
	};

	if (!first_us)
		its.it_value.tv_nsec = 1; /* 0 would disarm */
	return timerfd_settime(tfd, 0, &its, NULL) < 0 ? -errno : 0;
}

int loop_add_timer(struct loop *l, uint64_t first_us, uint64_t interval_us, loop_fd_fn fn,
		   void *data)
{
	int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	int r;

	if (tfd < 0)
		return -errno;
	r = loop_timer_set(tfd, first_us, interval_us);
	if (r >= 0)
		r = loop_add_fd(l, tfd, EPOLLIN, fn, data);
	if (r < 0) {
		close(tfd);
		return r;
	}
	return tfd;
}

uint64_t loop_timer_ack(int tfd)
{
	uint64_t exp = 0;

	if (read(tfd, &exp, sizeof(exp)) != sizeof(exp))
		return 0;
	return exp;
}

int loop_run(struct loop *l)
{
	struct epoll_event evs[16];

	while (!l->quit) {
		int n = epoll_wait(l->epfd, evs, 16, -1);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (int i = 0; i < n && !l->quit; i++) {
			struct watch *w = &l->watches[evs[i].data.u32];
			int r;

			if (!w->fn)
				continue;
			r = w->fn(l, w->fd, evs[i].events, w->data);
			if (r < 0)
				return r;
		}
	}
	return l->code;
}

void loop_quit(struct loop *l, int code)
{
	l->quit = true;
	l->code = code;
}
