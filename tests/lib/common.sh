# SPDX-License-Identifier: GPL-2.0-or-later
# Shared helpers for the shell tests: TAP output, temp dirs, and the built binaries.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
PAGEOUTD="$top_builddir/pageoutd"
tap_n=0
tap_fail=0
ok() { # ok COND-STATUS DESCRIPTION
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $tap_n - $2"; else echo "not ok $tap_n - $2"; tap_fail=$((tap_fail + 1)); fi
}
diag() { printf '%s\n' "$@" | sed 's/^/# /'; }
skip_all() { echo "1..0 # SKIP $*"; exit 0; }
tap_end() { echo "1..$tap_n"; [ "$tap_fail" -eq 0 ]; }
mktmp() { T=$(mktemp -d /tmp/pageoutd-test.XXXXXX); trap 'cleanup; rm -rf "$T"' EXIT; }
cleanup() { :; }
# wait_for FILE PATTERN [SECONDS]: wait until FILE contains PATTERN
wait_for() {
	i=0; max=$(( ${3:-10} * 10 ))
	while [ $i -lt $max ]; do grep -q -- "$2" "$1" 2>/dev/null && return 0; sleep 0.1; i=$((i + 1)); done
	return 1
}
# fake_daemon_test: $admin, a fake DAMON tree (tests/lib/faketree), and a cleanup that stops
# the daemon started as $pid and removes the tree
fake_daemon_test() {
	pid=
	admin=$("$top_builddir/tests/lib/faketree") || exit 1
	cleanup() {
		[ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null
		rm -rf "${admin%/fakesys/*}"
	}
}
# fake_main_conf FILE: a main configuration for the host tests: 200 ms cycles, the socket and
# state in $T/run, DAMON at the fake tree $admin (tests/lib/faketree)
fake_main_conf() {
	printf '[daemon]\ninterval = 200ms\nsocket = %s\nstate_dir = %s\n[damon]\nsysfs_root = %s\n' \
		"$T/run/sock" "$T/run" "$admin" > "$1"
}
