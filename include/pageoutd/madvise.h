/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * madvise: apply advice to ranges of another process through its pidfd with batched
 * process_madvise(2). The kernel counts only iovecs that completed and stops at the first one
 * that fails; this module resumes after the failing range, learns its errno, skips exactly that
 * range and goes on. ESRCH/EBADF end the target. Every errno is counted.
 */
#ifndef PAGEOUTD_MADVISE_H
#define PAGEOUTD_MADVISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#define MADV_BATCH_MAX 1024 /* UIO_MAXIOV */

enum madv_err {
	MADV_ERR_EACCES, /* ptrace-mode check failed */
	MADV_ERR_EPERM,	 /* CAP_SYS_NICE missing */
	MADV_ERR_EINVAL, /* locked, hugetlb or PFN-mapped VMA, or a bad range */
	MADV_ERR_ENOMEM, /* a hole in the range */
	MADV_ERR_ESRCH,	 /* the process is gone */
	MADV_ERR_EINTR,
	MADV_ERR_OTHER,
	MADV_ERR_MAX
};

struct madv_range {
	uint64_t start, end; /* page aligned */
	bool done;	     /* out: the kernel completed this range */
	int err;	     /* out: its errno when it failed, else 0 */
};

struct madv_stats {
	uint64_t calls;		 /* process_madvise(2) calls */
	uint64_t bytes_advised;	 /* of completed ranges */
	uint64_t bytes_failed;	 /* of ranges the kernel refused */
	uint64_t ranges_advised; /* completed ranges */
	uint64_t err[MADV_ERR_MAX];
};

/* The syscall seam, for tests: same contract as process_madvise(2), -1 and errno on failure. */
typedef ssize_t (*madv_syscall_fn)(int pidfd, const struct iovec *iov, size_t vlen, int advice,
				   unsigned int flags);
void madv_set_syscall(madv_syscall_fn fn); /* NULL: the real syscall */

/*
 * madv_apply: advise ranges r[0..n) of the process behind pidfd, at most MADV_BATCH_MAX per
 * call (batch, 0 for the maximum). Sets r[i].done / r[i].err and adds to st. dry_run does
 * everything but the call and marks every range done. Returns 0, or -ESRCH when the process is
 * gone (the remaining ranges are left undone), or -EBADF.
 */
int madv_apply(int pidfd, struct madv_range *r, size_t n, int advice, unsigned batch, bool dry_run,
	       struct madv_stats *st);

/* madv_probe: can this process be advised at all? 0, -EPERM, -EACCES, -ESRCH, ... */
int madv_probe(int pidfd, int advice);

/* madv_err_name: the lowercase errno name of e ("einval"), a static string. */
const char *madv_err_name(enum madv_err e);
/* madv_err_of: the counter of errno err (positive), MADV_ERR_OTHER when it has none. */
enum madv_err madv_err_of(int err);

/* pidfd_open(2); -errno on failure. */
int madv_pidfd_open(pid_t pid);
/* pidfd_send_signal(pidfd, 0): 0 while the process lives, -ESRCH once it exited. */
int madv_pidfd_alive(int pidfd);

#endif
