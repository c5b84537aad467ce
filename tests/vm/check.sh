#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# check.sh -b BUILDDIR -s SRCDIR SERIES...: boot each kernel once with pageoutd and the guest
# tests, print their TAP prefixed with the kernel, and fail if any check or guest failed.
#
# One boot per kernel, never booted again for a failed check: a check that fails fails the run.
# Two kinds of repetition are allowed, both counted on the last line:
#  - boot.sh boots once more a guest that died before its payload started (nothing was
#    tested yet: a QEMU TCG race during the kernel's boot), and says so;
#  - a guest check whose flakiness has a named cause outside pageoutd retries that one check
#    inside the boot, printing "# retry: CHECK (CAUSE)" each time.
# Each guest program declares its TAP plan before its first check; a program that ran fewer
# or more checks than it planned fails here, so a lost subtest shows.
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
[ $# -gt 0 ] || set -- 6.12 7.3
cache=${PAGEOUTD_VM_CACHE:-$s/tests/vm/cache}
status=0 total=0 failed=0 reboots=0 retries=0 skipped=0
summary=$(mktemp)
# the TAP of one guest's console: per "# guest test: NAME" section, the plan it declared
# against the checks it printed; prints one line per section whose count differs
plan_mismatches() {
	awk '
	function close_section() {
		if (name != "" && plan != n)
			printf "not ok - %s planned %s checks, ran %d\n", name, plan == "" ? "no" : plan, n
	}
	/^# guest test: / && !/ exit [0-9]+ in / { close_section(); name = substr($0, 15); plan = ""; n = 0; next }
	/^# guest test: / { close_section(); name = ""; next }
	name != "" && /^1\.\.[0-9]+/ { plan = substr($1, 4) + 0; if ($0 ~ /# SKIP/) n = plan; next }
	name != "" && /^(not )?ok / { n++ }
	END { close_section() }' "$1"
}
# one boot of kernel $1: its TAP prefixed with the kernel; sets rc n nf secs
boot_once() {
	log=$(mktemp)
	start=$(date +%s)
	"$s/tests/vm/boot.sh" -k "$1" -C "$cache" -t 900 \
		-f "$b/pageoutd" -f "$b/tests/vm/guest/vm-damon" -f "$b/tests/vm/guest/vm-vaddr" -f "$b/tests/vm/guest/vm-paddr" -f "$b/tests/vm/guest/vm-daemon" -f "$b/tests/vm/guest/vm-kube" -f "$s/conf/demo/app.conf" -f "$s/conf/conf.d/machines.conf" -f "$s/conf/conf.d/databases.conf" -f "$b/tests/unit/test-cgroup" \
		-f "$b/tests/vm/guest/vm-android" -f "$b/tests/vm/guest/android-init" -f "$b/pageoutctl" \
		-f "$b/build-android/pageoutd:pageoutd-android" -f "$s/conf/android/pageoutd.rc" \
		-f "$s/conf/android/cached-apps.conf" -f "$s/conf/pageoutd.conf:android-pageoutd.conf" \
		-f "$b/deb/pageoutd-image-root.tar.gz:pageoutd-image.tar.gz" \
		-f "$s/tests/vm/guest/run.sh" -- sh run.sh >"$log" 2>&1
	rc=$?
	secs=$(($(date +%s) - start))
	plan_mismatches "$log" >>"$log"
	sed "s/^/[$1] /" "$log"
	n=$(grep -cE '^(not )?ok ' "$log")
	nf=$(grep -cE '^not ok ' "$log")
	ns=$(grep -cE '^ok .*# SKIP' "$log")
	nr=$(grep -c '^# retry: ' "$log")
	nb=$(grep -c '^vm: the guest died before the payload started' "$log")
	# failures again at the end, with the diagnostics that follow them, so that the tail of
	# a long CI log says what failed; retries and early reboots too, so that they are seen
	awk -v k="$1" '/^not ok / { n = 4 } /^# retry: / || /^vm: the guest died before/ { print "[" k "] " $0 }
		n > 0 { print "[" k "] " $0; n-- }' "$log" >>"$summary"
	[ "$rc" = 0 ] || echo "[$1] guest exit $rc" >>"$summary"
	rm -f "$log"
	[ "$rc" = 0 ] && [ "$nf" = 0 ] && [ "$n" != 0 ]
}
for k in "$@"; do
	boot_once "$k" || { status=1; [ "$nf" = 0 ] && nf=1; }
	total=$((total + n)) failed=$((failed + nf)) skipped=$((skipped + ns))
	retries=$((retries + nr)) reboots=$((reboots + nb))
	echo "== $k: $n checks, $nf failed, $ns skipped, $nr check retries, $nb early reboots, guest exit $rc, $secs s"
done
if [ -s "$summary" ]; then
	echo "== check-vm failures, retries and early reboots:"
	cat "$summary"
fi
rm -f "$summary"
echo "== check-vm: $total checks on kernels $*, $failed failed, $skipped skipped;" \
	"$retries check retries, $reboots boots again before the payload"
exit $status
