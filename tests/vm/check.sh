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
for k in "$@"; do
	log=$(mktemp)
	start=$(date +%s)
	"$s/tests/vm/boot.sh" -k "$k" -C "$cache" -t 900 \
		-f "$b/pageoutd" -f "$b/tests/vm/guest/vm-damon" -f "$b/tests/vm/guest/vm-vaddr" -f "$b/tests/vm/guest/vm-paddr" -f "$s/conf/demo/app.conf" -f "$b/tests/unit/test-cgroup" \
		-f "$s/tests/vm/guest/run.sh" -- sh run.sh >"$log" 2>&1
	rc=$?
	end=$(date +%s)
	sed "s/^/[$k] /" "$log"
	n=$(grep -cE '^(not )?ok ' "$log")
	nf=$(grep -cE '^not ok ' "$log")
	total=$((total + n))
	failed=$((failed + nf))
	echo "== $k: $n checks, $nf failed, guest exit $rc, $((end - start)) s"
	if [ "$rc" != 0 ] || [ "$nf" != 0 ] || [ "$n" = 0 ]; then
		status=1
	fi
	# failures again at the end, with the diagnostics that follow them, so that the tail of
	# a long CI log says what failed
	awk -v k="$k" '/^not ok / { n = 4 } n > 0 { print "[" k "] " $0; n-- }' "$log" >>"$summary"
	[ "$rc" = 0 ] || echo "[$k] guest exit $rc" >>"$summary"
	rm -f "$log"
done
if [ -s "$summary" ]; then
	echo "== check-vm failures:"
	cat "$summary"
fi
rm -f "$summary"
echo "== check-vm: $total checks on kernels $*, $failed failed"
exit $status
