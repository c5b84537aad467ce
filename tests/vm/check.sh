#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# check.sh -b BUILDDIR -s SRCDIR SERIES...: boot each kernel once with pageoutd and the guest
# tests, print their TAP prefixed with the kernel, and fail if any test or guest failed.
set -u
b=. s=.
while getopts b:s: o; do
	case $o in
	b) b=$OPTARG ;;
	s) s=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- 6.12 7.2
cache=${PAGEOUTD_VM_CACHE:-$s/tests/vm/cache}
status=0 total=0 failed=0
summary=$(mktemp)
# one boot of kernel $1: its TAP prefixed with the kernel; sets rc n nf secs
boot_once() {
	log=$(mktemp)
	start=$(date +%s)
	"$s/tests/vm/boot.sh" -k "$1" -C "$cache" -t 900 \
		-f "$b/pageoutd" -f "$b/tests/vm/guest/vm-damon" -f "$b/tests/vm/guest/vm-vaddr" -f "$b/tests/vm/guest/vm-paddr" -f "$b/tests/vm/guest/vm-daemon" -f "$b/tests/vm/guest/vm-kube" -f "$s/conf/demo/app.conf" -f "$s/conf/conf.d/machines.conf" -f "$b/tests/unit/test-cgroup" \
		-f "$b/tests/vm/guest/vm-android" -f "$b/tests/vm/guest/android-init" -f "$b/pageoutctl" \
		-f "$b/build-android/pageoutd:pageoutd-android" -f "$s/conf/android/pageoutd.rc" \
		-f "$s/conf/android/cached-apps.conf" -f "$s/conf/pageoutd.conf:android-pageoutd.conf" \
		-f "$b/deb/pageoutd-image-root.tar.gz:pageoutd-image.tar.gz" \
		-f "$s/tests/vm/guest/run.sh" -- sh run.sh >"$log" 2>&1
	rc=$?
	secs=$(($(date +%s) - start))
	sed "s/^/[$1] /" "$log"
	n=$(grep -cE '^(not )?ok ' "$log")
	nf=$(grep -cE '^not ok ' "$log")
	# failures again at the end, with the diagnostics that follow them, so that the tail of
	# a long CI log says what failed
	awk -v k="$1" -v t="$2" '/^not ok / { n = 4 } n > 0 { print "[" k "]" t " " $0; n-- }' "$log" >>"$summary"
	[ "$rc" = 0 ] || echo "[$1]$2 guest exit $rc" >>"$summary"
	rm -f "$log"
	[ "$rc" = 0 ] && [ "$nf" = 0 ] && [ "$n" != 0 ]
}
flaky=0
for k in "$@"; do
	if ! boot_once "$k" ""; then
		# TCG guests are not deterministic (tests/vm/README): a kernel whose boot failed is
		# booted again, at most twice; it passes only if every check passes on one of those
		# boots, and the failed boots' failures stay in the summary, marked as such
		passed=no
		for again in 2 3; do
			echo "== $k: $n checks, $nf failed, guest exit $rc, $secs s; booting $k again"
			if boot_once "$k" " (boot $again)"; then
				passed=yes
				break
			fi
		done
		if [ $passed = yes ]; then
			flaky=$((flaky + 1))
			echo "[$k] the failures above were not repeated by boot $again" >>"$summary"
		else
			status=1
			failed=$((failed + nf))
		fi
	fi
	total=$((total + n))
	echo "== $k: $n checks, $nf failed, guest exit $rc, $secs s"
done
if [ -s "$summary" ]; then
	echo "== check-vm failures:"
	cat "$summary"
fi
rm -f "$summary"
echo "== check-vm: $total checks on kernels $*, $failed failed; $flaky kernels passed only on a later boot"
exit $status
