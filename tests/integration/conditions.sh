#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Failures are visible, once: the real daemon at a 100 ms interval over an emulated DAMON tree.
# A condition that holds cycle after cycle (a policy that matches no cgroup, DAMON missing,
# another pageoutd on the same state_dir, a foreign kdamond, a context write the kernel
# refuses) is logged when it starts and when it clears, never each cycle, and shows in
# `pageoutctl status`, the JSON and the metrics (checked by promtool).
. "$top_srcdir/tests/lib/common.sh"
[ "$(id -u)" = 0 ] || skip_all "needs root (a memory cgroup of its own)"
if [ -e /sys/fs/cgroup/cgroup.controllers ]; then cgroot=/sys/fs/cgroup
elif [ -d /sys/fs/cgroup/memory ]; then cgroot=/sys/fs/cgroup/memory
else skip_all "no memory cgroup hierarchy"; fi
mktmp
CTL="$top_builddir/pageoutctl"
name=pageoutd-cond-$$
cg=$cgroot/$name
pid= pid2= sleeper=
admin=$("$top_builddir/tests/lib/faketree") || exit 1
cleanup() {
	for p in $pid $pid2 $sleeper; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rmdir "$cg" 2>/dev/null
	rm -rf "${admin%/fakesys/*}"
}
S=$T/run/sock
mkdir -p "$T/d" "$T/run"
conf() { # conf SYSFS_ROOT
	printf '[daemon]\ninterval = 100ms\nsocket = %s\nstate_dir = %s/run\n[damon]\nsysfs_root = %s\n' \
		"$S" "$T" "$1" > "$T/main.conf"
}
printf '[policy]\ncgroup = /%s\nengine = vaddr\n' "$name" > "$T/d/web.conf"
start() { # start LOG: a daemon on the configuration, its pid in $pid
	"$PAGEOUTD" --foreground -c "$T/main.conf" -d "$T/d" 2> "$1" &
	pid=$!
	wait_for_sock
}
wait_for_sock() {
	i=0; while [ ! -S "$S" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
}
stop() {
	kill -TERM "$pid"; wait "$pid"; pid=
}
# q EXPR: a Python expression over the stats JSON document d
q() {
	"$CTL" --socket "$S" stats --json 2>/dev/null |
		python3 -c "import json,sys; d=json.load(sys.stdin); p=d['policies'][0]; print($1)" 2>/dev/null
}
# until_q EXPR: wait (5 s at most) until q EXPR prints True
until_q() {
	i=0; while [ "$(q "$1")" != True ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	[ "$(q "$1")" = True ]
}
count() { grep -c -- "$2" "$1"; }
promcheck() {
	if command -v promtool > /dev/null; then
		"$CTL" --socket "$S" metrics | promtool check metrics > "$T/prom" 2>&1
		ok $? "$1: promtool check metrics passes"
		[ -s "$T/prom" ] && diag "$(cat "$T/prom")"
	else
		ok 0 "$1: promtool check metrics # SKIP promtool is not installed"
	fi
}

# 1. a policy whose cgroup matches nothing: DAMON is not taken, status says why
conf "$admin"
start "$T/log1"
sleep 1
[ "$(cat "$admin/kdamonds/nr_kdamonds")" = 0 ] && [ ! -e "$T/run/damon.state" ]
ok $? "no cgroup matched: DAMON is not taken (nr_kdamonds 0, no ownership record)"
[ "$(q "(d['state'], d['reason'], p['state'], p['reason']) == ('idle', 'no cgroup matched', 'idle', 'no cgroup matched')")" = True ]
ok $? "stats: state idle, reason 'no cgroup matched', for the daemon and the policy"
"$CTL" --socket "$S" status | grep -q "^web .*idle: no cgroup matched"
ok $? "pageoutctl status: the policy is idle: no cgroup matched"
mkdir "$cg"
until_q "d['damon_owned'] and p['cgroups'] == 1"
ok $? "once the cgroup exists DAMON is taken"
[ "$(cat "$admin/kdamonds/nr_kdamonds")" = 2 ]; ok $? "and nr_kdamonds written (2)"
stop

# 2. DAMON missing: one line however many cycles, one when it clears
conf "$T/admin-link"
start "$T/log2"
sleep 2
n=$(count "$T/log2" "DAMON sysfs not found")
[ "$n" = 1 ]; ok $? "DAMON missing for 2 s at 100 ms: logged once ($n lines)"
[ "$(q "d['state'] == 'waiting' and 'DAMON sysfs not found' in d['reason'] and p['state'] == 'waiting'")" = True ]
ok $? "stats: state waiting, the reason says DAMON sysfs is not found"
"$CTL" --socket "$S" status | grep -q "^web .*waiting: DAMON sysfs not found"
ok $? "pageoutctl status: the policy is waiting: DAMON sysfs not found"
"$CTL" --socket "$S" metrics | grep -q '^pageoutd_state{state="waiting"} 1$'
ok $? "metrics: pageoutd_state{state=\"waiting\"} 1"
ln -s "$admin" "$T/admin-link"
wait_for "$T/log2" "DAMON sysfs not found.*: cleared after [0-9]* cycle" 5
ok $? "DAMON back: the condition clears, with its count"
until_q "d['damon_owned'] and d['state'] == 'active' and d['reason'] is None"
ok $? "stats: state active, no reason"

# 3. a second pageoutd on the same configuration
"$PAGEOUTD" --foreground -c "$T/main.conf" -d "$T/d" 2> "$T/log3" &
pid2=$!
sleep 2
n=$(count "$T/log3" "another pageoutd (pid $pid) owns")
[ "$n" = 1 ]; ok $? "a second pageoutd: 'another pageoutd owns' logged once in 2 s ($n lines)"
kill -0 "$pid2"; ok $? "and it keeps running, waiting"
kill -TERM "$pid2"; wait "$pid2"; pid2=
stop

# 4. a foreign kdamond: one line, and status names it
echo 1 > "$admin/kdamonds/nr_kdamonds"
echo on > "$admin/kdamonds/0/state"
echo 4242 > "$admin/kdamonds/0/pid"
start "$T/log4"
sleep 2
n=$(count "$T/log4" "is not pageoutd's")
[ "$n" = 1 ]; ok $? "a foreign kdamond for 2 s: logged once ($n lines)"
[ "$(q "d['state'] == 'waiting' and 'kdamond 0 (pid 4242' in d['reason']")" = True ]
ok $? "stats: waiting, the reason names kdamond 0 and its pid"
"$CTL" --socket "$S" status | grep -q "^web .*waiting: kdamond 0 (pid 4242"
ok $? "pageoutctl status names the foreign kdamond"
promcheck "waiting"
echo off > "$admin/kdamonds/0/state"
echo -1 > "$admin/kdamonds/0/pid"
echo 0 > "$admin/kdamonds/nr_kdamonds"
wait_for "$T/log4" "is not pageoutd's.*: cleared after [0-9]* cycle" 5
ok $? "the foreign kdamond gone: the condition clears"
stop

# 5. the kernel refuses the context every cycle: one line, state error, a counter
sleep 60 &
sleeper=$!
echo "$sleeper" > "$cg/cgroup.procs"
ops=$admin/kdamonds/0/contexts/0/operations
rm -f "$ops"; mkdir "$ops" # a write to it fails (EISDIR)
start "$T/log5"
until_q "p['errors_total']['damon_write'] >= 10"
ok $? "the refused write is counted: errors_total.damon_write $(q "p['errors_total']['damon_write']")"
n=$(count "$T/log5" "writing the vaddr context")
[ "$n" = 1 ]; ok $? "refused for 10 cycles: logged once ($n lines)"
[ "$(q "p['state'] == 'error' and 'kdamonds/0/contexts/0/operations' in p['reason'] and d['state'] == 'error'")" = True ]
ok $? "stats: the policy's state is error, the reason names the file refused"
"$CTL" --socket "$S" status | grep -q "^web .*error: vaddr: kdamond 0: writing the vaddr context: kdamonds/0/contexts/0/operations"
ok $? "pageoutctl status says error and names the file"
"$CTL" --socket "$S" metrics > "$T/m5"
grep -Eq '^pageoutd_errors_total\{policy="web",kind="damon_write"\} [1-9][0-9]*$' "$T/m5"
ok $? "metrics: pageoutd_errors_total{policy=\"web\",kind=\"damon_write\"}"
grep -q '^pageoutd_policy_state{policy="web",state="error"} 1$' "$T/m5"
ok $? "metrics: pageoutd_policy_state{policy=\"web\",state=\"error\"} 1"
promcheck "error"
rmdir "$ops"; echo vaddr > "$ops"
wait_for "$T/log5" "writing the vaddr context.*: cleared after [0-9]* cycle" 5
ok $? "the write works again: the condition clears"
stop
[ "$(cat "$admin/kdamonds/nr_kdamonds")" = 0 ]; ok $? "the kdamonds were given back"
if [ "$tap_fail" -gt 0 ]; then
	for f in "$T"/log*; do diag "== $f" "$(grep -v "kdamond 0 started" "$f" | tail -20)"; done
fi
tap_end
