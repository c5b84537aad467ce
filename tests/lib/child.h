/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * child.h: the test processes that hold memory. child_fork() forks a child that never
 * outlives the test (PR_SET_PDEATHSIG), runs setup(arg) and, when it returns 0, tells the
 * parent it is ready; then it runs after(arg) if given, and waits for signals for ever. A
 * non-zero return from setup is the child's exit status. Returns the pid once the child is
 * ready, -1 (child reaped) when it failed before.
 */
#ifndef PAGEOUTD_TESTS_CHILD_H
#define PAGEOUTD_TESTS_CHILD_H

#include <signal.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static inline pid_t child_fork(int (*setup)(void *), void (*after)(void *), void *arg)
{
	int fds[2], r;
	char c = 0;
	pid_t pid;

	if (pipe(fds) < 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		close(fds[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		r = setup(arg);
		if (r)
			_exit(r);
		c = 1;
		if (write(fds[1], &c, 1) != 1)
			_exit(99);
		close(fds[1]);
		if (after)
			after(arg);
		for (;;)
			pause();
	}
	close(fds[1]);
	if (read(fds[0], &c, 1) != 1 || c != 1) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		pid = -1;
	}
	close(fds[0]);
	return pid;
}

#endif
