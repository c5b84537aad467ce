// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ticker: one process pinned to each online CPU that wakes every millisecond and does nothing
 * else, until killed. bench/apps runs it in the QEMU guest for every method alike: under TCG,
 * a process alone on a vCPU keeps its translations in QEMU's software TLB, which is flushed
 * only on CR3 writes and invlpg, so once DAMON has cleared a hot page's accessed bit the page
 * never looks accessed again (16,114 major faults of 8,192 hot pages without the ticker, 0
 * with it; bench/apps/README.md). Each wake-up of the ticker
 * switches address spaces twice on its vCPU, as a real CPU's small TLB would evict those
 * entries; a real application cannot toggle its own page protections as the guest tests'
 * workloads do. The parent waits for its children and kills them when it gets SIGTERM.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static pid_t kids[1024];
static long nkids;

static void stop(int sig)
{
	(void)sig;
	for (long i = 0; i < nkids; i++)
		kill(kids[i], SIGKILL);
	_exit(0);
}

int main(void)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	if (ncpu < 1 || ncpu > 1024) {
		fprintf(stderr, "ticker: %ld CPUs\n", ncpu);
		return 1;
	}
	for (long c = 0; c < ncpu; c++) {
		pid_t p = fork();

		if (p < 0) {
			perror("ticker: fork");
			stop(0);
		}
		if (p == 0) {
			const struct timespec ms = { 0, 1000000 };
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET(c, &set);
			if (sched_setaffinity(0, sizeof(set), &set) < 0) {
				perror("ticker: sched_setaffinity");
				_exit(1);
			}
			for (;;)
				nanosleep(&ms, NULL);
		}
		kids[nkids++] = p;
	}
	signal(SIGTERM, stop);
	signal(SIGINT, stop);
	while (wait(NULL) > 0 || errno == EINTR)
		;
	return 0;
}
