/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loop: a single-threaded epoll loop with timerfd timers and a signalfd for SIGTERM, SIGINT and
 * SIGHUP (blocked from loop_new on; SIGPIPE is ignored).
 */
#ifndef PAGEOUTD_LOOP_H
#define PAGEOUTD_LOOP_H

#include <stdint.h>

struct loop;
/* A handler returns 0 to go on or -errno to end the loop with that error. */
typedef int (*loop_fd_fn)(struct loop *l, int fd, uint32_t events, void *data);
typedef int (*loop_signal_fn)(struct loop *l, int signo, void *data);

/*
 * loop_new: create the loop in *ret (free with loop_free) and block the handled signals;
 * on_signal and data are borrowed for the loop's life. Returns 0 or -errno.
 */
int loop_new(struct loop **ret, loop_signal_fn on_signal, void *data);
/* loop_free: close the loop's own fds (not the watched ones) and free it. NULL ok; returns NULL. */
struct loop *loop_free(struct loop *l);
/*
 * loop_add_fd: call fn(l, fd, events, data) when fd is ready for events. fd stays the caller's,
 * to close after loop_del_fd. Returns 0, -EMFILE past LOOP_MAX_FDS watches, or -errno.
 */
int loop_add_fd(struct loop *l, int fd, uint32_t events, loop_fd_fn fn, void *data);
/* loop_del_fd: stop watching fd (it stays open). Returns 0 or -ENOENT when not watched. */
int loop_del_fd(struct loop *l, int fd);
/*
 * loop_add_timer: a periodic timer every interval_us (first expiry after first_us); the
 * handler runs once per wakeup whatever the overrun. Returns the timerfd, which the caller
 * closes after loop_del_fd, or -errno.
 */
int loop_add_timer(struct loop *l, uint64_t first_us, uint64_t interval_us, loop_fd_fn fn,
		   void *data);
/* loop_timer_set: rearm timer tfd (first_us 0: at once). Returns 0 or -errno. */
int loop_timer_set(int tfd, uint64_t first_us, uint64_t interval_us);
/* loop_timer_ack: consume a timer expiry; returns the number of expiries (0 if none). */
uint64_t loop_timer_ack(int tfd);
/* loop_run: dispatch until loop_quit() or a handler error. Returns the exit code or -errno. */
int loop_run(struct loop *l);
/* loop_quit: make loop_run return code after the handler that calls it. */
void loop_quit(struct loop *l, int code);

#endif
