#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# SIGHUP reload: a bad new configuration is logged and the old one stays in force.
. "$top_srcdir/tests/lib/common.sh"
mktmp
fake_daemon_test
mkdir -p "$T/d" "$T/run"
fake_main_conf "$T/main.conf"
printf '[policy]\ncgroup = /pageoutd-reload-test\n' > "$T/d/one.conf"
"$PAGEOUTD" --foreground --log-level debug -c "$T/main.conf" -d "$T/d" 2> "$T/log" &
pid=$!
wait_for "$T/log" "started: 1 policies"; ok $? "daemon started with one policy"
printf '[policy]\ncgroup = relative\n' > "$T/d/two.conf"
kill -HUP $pid
wait_for "$T/log" "reload failed: keeping the current configuration (1 policies)"; ok $? "bad reload keeps the old configuration"
grep -q "two.conf:2: cgroup: invalid value 'relative'" "$T/log"; ok $? "the error names file:line: key"
kill -0 $pid; ok $? "daemon still running after a bad reload"
status_has() { "$top_builddir/pageoutctl" --socket "$T/run/sock" status > "$T/status" 2>&1; grep -q "$1" "$T/status"; }
# the status follows a cycle after the reload: ask until it shows (10 s at most)
status_shows() { i=0; while [ $i -lt 100 ]; do status_has "$1" && return 0; sleep 0.1; i=$((i + 1)); done; return 1; }
status_shows "^one .*idle: no cgroup matched"; ok $? "old policy still evaluated (status: idle, no cgroup matched)"
printf '[policy]\ncgroup = /pageoutd-reload-test2\n' > "$T/d/two.conf"
kill -HUP $pid
wait_for "$T/log" "reloaded configuration: 2 policies"; ok $? "good reload applies"
status_shows "^two .*idle: no cgroup matched"; ok $? "new policy evaluated (status: idle, no cgroup matched)"
# the reload request (pageoutctl reload) answers with the file:line errors, and a key that needs
# a restart is named in the answer and the log while its old value stays in force
printf '[policy]\ncgroup = relative\n' > "$T/d/three.conf"
ans=$("$top_builddir/pageoutctl" -s "$T/run/sock" reload 2>&1); rc=$?
[ $rc = 1 ]; ok $? "pageoutctl reload of a broken drop-in exits 1 (got $rc)"
echo "$ans" | grep -qx "error: $T/d/three.conf:2: cgroup: invalid value 'relative': .*"
ok $? "pageoutctl reload answers with the file:line error"
diag "$ans"
rm "$T/d/three.conf"
sed -i "s|^socket = .*|socket = $T/run/sock2|" "$T/main.conf"
ans=$("$top_builddir/pageoutctl" -s "$T/run/sock" reload 2>&1); rc=$?
[ $rc = 0 ]; ok $? "a reload that changes socket succeeds (got $rc)"
echo "$ans" | grep -q "^restart needed: socket changed"; ok $? "the answer names the key that needs a restart"
grep -q "reload: socket changed; the new value takes effect at the next start" "$T/log"
ok $? "and so does the log"
"$top_builddir/pageoutctl" -s "$T/run/sock" version >/dev/null && [ ! -e "$T/run/sock2" ]
ok $? "the old socket stays in force"
sed -i "s|^socket = .*|socket = $T/run/sock|" "$T/main.conf"
kill -HUP $pid
wait_for "$T/log" "reloaded configuration: 2 policies"
# the drop-in directory gone at reload (an operator's mv, a failed deploy): logged, old config kept
mv "$T/d" "$T/d.away"
kill -HUP $pid
wait_for "$T/log" "reload failed: keeping the current configuration (2 policies)"; ok $? "reload with the directory gone keeps the configuration"
grep -q "$T/d:0: directory: cannot read" "$T/log"; ok $? "the error names the directory and why"
# the main file replaced by something that is not a file
mv "$T/d.away" "$T/d"
mv "$T/main.conf" "$T/main.conf.away"; mkdir "$T/main.conf"
kill -HUP $pid
wait_for "$T/log" "main.conf:0: file: not a regular file"; ok $? "a main file that is a directory: named, refused"
kill -0 $pid; ok $? "daemon still running after both"
rmdir "$T/main.conf"; mv "$T/main.conf.away" "$T/main.conf"
before=$(grep -c "reloaded configuration: 2 policies" "$T/log")
kill -HUP $pid
n=0
while [ "$(grep -c "reloaded configuration: 2 policies" "$T/log")" -le "$before" ] && [ $n -lt 100 ]; do
	sleep 0.1; n=$((n + 1))
done
[ "$(grep -c "reloaded configuration: 2 policies" "$T/log")" -gt "$before" ]; ok $? "and reloads again once they are back"
# every policy removed: pageoutctl policies answers an empty list
mkdir "$T/aside"; mv "$T/d/"*.conf "$T/aside/"
ans=$("$top_builddir/pageoutctl" -s "$T/run/sock" reload 2>&1)
echo "$ans" | grep -q "^ok: reloaded, 0 policies"; ok $? "reload to no policy"
ans=$("$top_builddir/pageoutctl" -s "$T/run/sock" policies 2>&1); rc=$?
[ $rc = 0 ] && [ "$ans" = "no policies" ]; ok $? "pageoutctl policies with no policy: 'no policies', exit 0 (got $rc: $ans)"
kill -TERM $pid; wait $pid; rc=$?; pid=
ok $rc "SIGTERM exits 0"
grep -q "received Terminated, exiting" "$T/log"; ok $? "exit logged"
[ "$(cat "$admin/kdamonds/nr_kdamonds")" = 0 ]; ok $? "the kdamonds were given back (nr_kdamonds 0)"
[ ! -e "$T/run/damon.state" ]; ok $? "the ownership record is removed"
tap_end
