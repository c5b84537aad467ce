// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * madvise: batched process_madvise(2) with the kernel's partial-result contract: the return
 * value is the length of the iovecs that completed, and processing stops at the first iovec
 * that fails (without saying which errno, when some completed). We resume at that iovec alone
 * to learn its errno, skip it, and go on with the rest [K73 mm/madvise.c vector_madvise].
 */
#include <config.h>

#include <errno.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pageoutd/madvise.h"

static ssize_t sys_process_madvise(int pidfd, const struct iovec *iov, size_t vlen, int advice,
				   unsigned int flags)
{
	return syscall(SYS_process_madvise, pidfd, iov, vlen, advice, flags);
}

static madv_syscall_fn call = sys_process_madvise;

void madv_set_syscall(madv_syscall_fn fn)
{
	call = fn ? fn : sys_process_madvise;
}

enum madv_err madv_err_of(int err)
{
	switch (err) {
	case EACCES:
		return MADV_ERR_EACCES;
	case EPERM:
		return MADV_ERR_EPERM;
	case EINVAL:
		return MADV_ERR_EINVAL;
	case ENOMEM:
		return MADV_ERR_ENOMEM;
	case ESRCH:
		return MADV_ERR_ESRCH;
	case EINTR:
		return MADV_ERR_EINTR;
	default:
		return MADV_ERR_OTHER;
	}
}

const char *madv_err_name(enum madv_err e)
{
	static const char *const names[MADV_ERR_MAX] = { "eacces", "eperm", "einval", "enomem",
							 "esrch",  "eintr", "other" };

	return e < MADV_ERR_MAX ? names[e] : "other";
}

int madv_pidfd_open(pid_t pid)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);

	return fd < 0 ? -errno : fd;
}

int madv_pidfd_alive(int pidfd)
{
	/*
	 * Signal 0 checks existence, then permission: EPERM (another user's process, and no
	 * CAP_KILL, which pageoutd does not need otherwise) means it is alive; only ESRCH says
	 * it has exited.
	 */
	if (syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) < 0 && errno != EPERM)
		return -errno;
	return 0;
}

int madv_probe(int pidfd, int advice)
{
	/* no iovec: the kernel still checks the pidfd, ptrace access and CAP_SYS_NICE */
	return call(pidfd, NULL, 0, advice, 0) < 0 ? -errno : 0;
}

/* Range r was refused with errno err: count it as failed under its errno. */
static void record_refused(struct madv_range *r, int err, struct madv_stats *st)
{
	r->err = err;
	st->bytes_failed += r->end - r->start;
	st->err[madv_err_of(err)]++;
}

int madv_apply(int pidfd, struct madv_range *r, size_t n, int advice, unsigned batch, bool dry_run,
	       struct madv_stats *st)
{
	struct iovec iov[MADV_BATCH_MAX];
	size_t i = 0;
	unsigned eintr = 0;

	if (batch == 0 || batch > MADV_BATCH_MAX)
		batch = MADV_BATCH_MAX;
	for (size_t k = 0; k < n; k++) {
		r[k].done = false;
		r[k].err = 0;
	}
	while (i < n) {
		size_t m = n - i < batch ? n - i : batch, k = 0;
		ssize_t ret;

		for (size_t j = 0; j < m; j++) {
			iov[j].iov_base = (void *)(uintptr_t)r[i + j].start;
			iov[j].iov_len = (size_t)(r[i + j].end - r[i + j].start);
		}
		if (dry_run) {
			ret = 0;
			for (size_t j = 0; j < m; j++)
				ret += (ssize_t)iov[j].iov_len;
		} else {
			st->calls++;
			ret = call(pidfd, iov, m, advice, 0);
		}
		if (ret < 0) {
			int err = errno;

			if (err == EINTR && ++eintr < 3)
				continue; /* a signal during the lock retry: try once more */
			eintr = 0;
			if (err == ESRCH || err == EBADF) {
				st->err[madv_err_of(err)]++;
				return -err;
			}
			/* nothing completed: the first range failed; skip exactly it */
			record_refused(&r[i], err, st);
			i++;
			continue;
		}
		/* ret covers whole completed iovecs, in order */
		for (size_t left = (size_t)ret; k < m && left >= iov[k].iov_len; k++) {
			left -= iov[k].iov_len;
			r[i + k].done = true;
			st->bytes_advised += iov[k].iov_len;
			st->ranges_advised++;
		}
		/* k < m: range i + k stopped the batch; the next call starts with it alone first */
		i += k;
		if (k < m && k == 0) {
			/* cannot happen per the contract (it would have returned -1): do not spin */
			record_refused(&r[i], EIO, st);
			i++;
		}
	}
	return 0;
}
