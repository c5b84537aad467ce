#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The guest payload: run every guest test program; each prints TAP. Exit 1 if any failed.
# Each program's end line gives its guest time, for keeping make check-vm's time in bounds.
cd /payload || exit 1
failed=0
# "vm-kube image": the OCI image's root run as the Kubernetes DaemonSet runs it
for t in vm-damon vm-vaddr vm-paddr vm-daemon vm-kube "vm-kube image" test-cgroup vm-android; do
	echo "# guest test: $t"
	t0=$(cut -d. -f1 /proc/uptime)
	./$t
	rc=$?
	echo "# guest test: $t exit $rc in $(($(cut -d. -f1 /proc/uptime) - t0)) s"
	[ $rc = 0 ] || failed=1
done
exit $failed
