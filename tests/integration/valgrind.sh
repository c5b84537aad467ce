#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The real daemon under valgrind memcheck for tens of cycles: the fake DAMON tree, real child
# processes in a real cgroup, real socket clients asking every request, a reload and a pause:
# no memcheck error, nothing definitely or indirectly lost, exit 0.
. "$top_srcdir/tests/lib/common.sh"
[ "$(id -u)" = 0 ] || skip_all "needs root (a cgroup of its own)"
command -v valgrind >/dev/null || skip_all "valgrind not installed"
ldd "$PAGEOUTD" | grep -q libasan && skip_all "built with ASan"
mktmp
pid= kids= cg=/pageoutd-valgrind-$$
# the memory hierarchy: v1's memory controller when mounted (a hybrid host also has a
# controller-less cgroup2), else cgroup2
mnt=$(awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ { print $2; exit }' /proc/mounts)
[ -n "$mnt" ] || mnt=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
admin=$("$top_builddir/tests/lib/faketree") || exit 1
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	for k in $kids; do kill "$k" 2>/dev/null; done
	wait 2>/dev/null
	rmdir "$mnt$cg" "$mnt$cg-vms/a" "$mnt$cg-vms" 2>/dev/null
	rm -rf "${admin%/fakesys/*}"
}
mkdir -p "$T/d" "$T/run" "$mnt$cg" "$mnt$cg-vms/a"
# each child joins its cgroup, then execs: the new image's memory is charged there (memory
# charged before a move stays where it was, and an idle sleep may charge nothing after it)
for i in 1 2 3 4; do
	if [ $i = 4 ]; then dst=$mnt$cg-vms/a; else dst=$mnt$cg; fi
	sh -c 'echo $$ > "$1/cgroup.procs" && exec sleep 600' sh "$dst" &
	kids="$kids $!"
done
fake_main_conf "$T/main.conf"
printf '[policy]\ncgroup = %s\n' "$cg" > "$T/d/app.conf"
printf '[policy]\ncgroup = %s-vms/*\nengine = paddr\n' "$cg" > "$T/d/vms.conf"
valgrind --tool=memcheck --leak-check=full --errors-for-leak-kinds=definite,indirect \
	--show-leak-kinds=definite,indirect --error-exitcode=9 --log-file="$T/vg" \
	"$PAGEOUTD" --foreground --log-level debug -c "$T/main.conf" -d "$T/d" 2> "$T/log" &
pid=$!
wait_for "$T/log" "started: 2 policies" 60; ok $? "pageoutd started under valgrind"
ctl() { "$top_builddir/pageoutctl" --socket "$T/run/sock" "$@" > /dev/null 2>&1; }
i=0 served=0
while [ $i -lt 15 ]; do
	for r in status "status --cgroups" "stats --json" metrics policies version; do
		# shellcheck disable=SC2086
		ctl $r && served=$((served + 1))
	done
	[ $i = 5 ] && kill -HUP $pid
	[ $i = 8 ] && ctl pause app
	[ $i = 10 ] && ctl resume app
	i=$((i + 1))
	sleep 0.5
done
[ $served -ge 60 ]; ok $? "socket clients served meanwhile ($served requests)"
"$top_builddir/pageoutctl" --socket "$T/run/sock" stats --json > "$T/stats" 2>&1
grep -q '"resident_bytes":[1-9]' "$T/stats"; ok $? "the paddr engine follows its cgroup under memcheck (its memory measured; the static tree runs no scheme)"
cycles=$(grep -c "policy app: 1 cgroups, 3 processes" "$T/log"); grep -m2 "policy app:" "$T/log" > "$T/sample"
kill -TERM $pid; wait $pid; rc=$?; pid=
diag "$(grep -E 'ERROR SUMMARY|definitely lost|indirectly lost|All heap blocks|in use at exit' "$T/vg")"
ok $rc "exit 0 under memcheck (valgrind exits 9 on an error or a leak)"
grep -q "ERROR SUMMARY: 0 errors" "$T/vg"; ok $? "no memcheck error"
! grep -qE "(definitely|indirectly) lost: [1-9]" "$T/vg"; ok $? "nothing definitely or indirectly lost"
[ "$(cat "$admin/kdamonds/nr_kdamonds")" = 0 ]; ok $? "DAMON given back"
grep -q "reloaded configuration" "$T/log"; ok $? "a reload happened under memcheck"
diag "$(cat "$T/sample")"
# valgrind 3.19 (Debian 12) answers ENOSYS to pidfd_open and process_madvise: there the
# per-process path cannot run under memcheck (ASan and UBSan cover it in test-vaddr-host)
if valgrind -q /usr/bin/python3 -c 'import os; os.pidfd_open(os.getpid())' >/dev/null 2>&1; then
	[ "$cycles" -ge 10 ]; ok $? "the engine saw the 3 processes in $cycles cycles under memcheck"
else
	echo "ok $((tap_n = tap_n + 1)) - the engine's per-process path under memcheck # SKIP this valgrind has no pidfd_open"
fi
tap_end
