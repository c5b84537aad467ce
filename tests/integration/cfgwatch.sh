#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# watch_config: a change of the configuration's files on disk reloads by itself, once per
# settled burst, with the usual rule (a bad new configuration is logged, the old one stays).
# Two layouts: Kubernetes ConfigMap volumes (a `..data` symlink swapped over a new
# `..<timestamp>` directory, the visible files symlinks through it) and /etc/pageoutd with
# conf.d beside the main file.
. "$top_srcdir/tests/lib/common.sh"
mktmp
fake_daemon_test
reloads() { grep -c "the configuration changed on disk: reloading" "$T/log"; }
# wait_count N: until the log has N change-reloads (10 s at most)
wait_count() { i=0; while [ "$(reloads)" -lt "$1" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done; [ "$(reloads)" -ge "$1" ]; }
status_has() { "$top_builddir/pageoutctl" --socket "$T/run/sock" status > "$T/status" 2>&1; grep -q "$1" "$T/status"; }
status_shows() { i=0; while [ $i -lt 100 ]; do status_has "$1" && return 0; sleep 0.1; i=$((i + 1)); done; return 1; }
# cm_update DIR FILE...: publish FILEs (from $T/src) into the ConfigMap volume DIR as the
# kubelet's atomic writer does: new timestamped dir, ..data_tmp renamed over ..data, new
# visible symlinks, old ones and the old dir removed
cm_n=0
cm_update() {
	dir=$1; shift; cm_n=$((cm_n + 1)); ts="..2026_12_06_00_00_0$cm_n.$$"
	old=$(readlink "$dir/..data" 2>/dev/null)
	mkdir "$dir/$ts"
	for f in "$@"; do cp "$T/src/$f" "$dir/$ts/$f"; done
	ln -s "$ts" "$dir/..data_tmp" && mv -T "$dir/..data_tmp" "$dir/..data"
	for f in "$@"; do [ -L "$dir/$f" ] || ln -s "..data/$f" "$dir/$f"; done
	for l in "$dir"/*; do [ -L "$l" ] && [ ! -e "$l" ] && rm "$l"; done
	[ -n "$old" ] && rm -rf "${dir:?}/$old"
	return 0
}
mkdir -p "$T/src" "$T/cm" "$T/pol" "$T/run"
fake_main_conf "$T/src/pageoutd.conf"
printf '[policy]\ncgroup = /pageoutd-cfgwatch-one\n' > "$T/src/one.conf"
printf '[policy]\ncgroup = /pageoutd-cfgwatch-two\n' > "$T/src/two.conf"
printf '[policy]\ncgroup = relative\n' > "$T/src/bad.conf"
cm_update "$T/cm" pageoutd.conf
cm_update "$T/pol" one.conf
"$PAGEOUTD" --foreground --log-level debug -c "$T/cm/pageoutd.conf" -d "$T/pol" 2> "$T/log" &
pid=$!
wait_for "$T/log" "started: 1 policies"; ok $? "daemon started with one policy from a ConfigMap volume"
grep -q "watching $T/cm/pageoutd.conf and $T/pol/\*.conf" "$T/log"; ok $? "the log says what is watched"

cm_update "$T/pol" one.conf two.conf
wait_count 1; ok $? "a ConfigMap update of the policies reloads by itself"
wait_for "$T/log" "reloaded configuration: 2 policies"; ok $? "and puts both policies in force"
status_shows "^two .*idle: no cgroup matched"; ok $? "the new policy is evaluated"
sleep 1.5
[ "$(reloads)" -eq 1 ]; ok $? "one reload for the whole update (got $(reloads))"

cp "$T/src/bad.conf" "$T/src/two.conf"
cm_update "$T/pol" one.conf two.conf
wait_for "$T/log" "reload failed: keeping the current configuration (2 policies)"
ok $? "a broken update is refused and the old configuration stays"
grep -q "$T/pol/two.conf:2: cgroup: invalid value 'relative'" "$T/log"; ok $? "its error names file:line"
status_shows "^two .*idle: no cgroup matched"; ok $? "the old policy two is still evaluated"
kill -0 $pid; ok $? "the daemon still runs"

printf '[policy]\ncgroup = /pageoutd-cfgwatch-two\n' > "$T/src/two.conf"
cm_update "$T/pol" one.conf
wait_for "$T/log" "reloaded configuration: 1 policies"; ok $? "a policy removed from the ConfigMap is dropped"

n=$(reloads)
echo "# not configuration" > "$T/cm/notes.txt"; echo x > "$T/pol/README"
mkdir "$T/pol/.hidden"; echo x > "$T/pol/.one.conf.swp"
sleep 1.5
[ "$(reloads)" -eq "$n" ]; ok $? "files that are not configuration do not reload (reloads $n -> $(reloads))"

# the main file's own change: watch_config = no takes effect at once
sed 's/^interval = 200ms/interval = 200ms\nwatch_config = no/' "$T/src/pageoutd.conf" > "$T/src/p2" && mv "$T/src/p2" "$T/src/pageoutd.conf"
cm_update "$T/cm" pageoutd.conf
wait_for "$T/log" "configuration files no longer watched (watch_config = no)"; ok $? "watch_config = no stops the watch"
n=$(reloads)
cm_update "$T/pol" one.conf two.conf
sleep 1.5
[ "$(reloads)" -eq "$n" ]; ok $? "and a later change does not reload"
kill -HUP $pid
wait_for "$T/log" "reloaded configuration: 2 policies"; ok $? "SIGHUP still does"
kill $pid; wait $pid; pid=

# /etc/pageoutd layout: conf.d beside the main file, edited in place and moved away and back
mkdir -p "$T/etc/conf.d"
cp "$T/src/one.conf" "$T/etc/conf.d/"
sed '/watch_config/d' "$T/src/pageoutd.conf" > "$T/etc/pageoutd.conf"
: > "$T/log"
"$PAGEOUTD" --foreground --log-level debug -c "$T/etc/pageoutd.conf" -d "$T/etc/conf.d" 2> "$T/log" &
pid=$!
wait_for "$T/log" "started: 1 policies"; ok $? "daemon started from /etc-style files"
{ printf '[policy]\n'; sleep 0.2; printf 'cgroup = /pageoutd-cfgwatch-two\n'; } > "$T/etc/conf.d/two.conf"
wait_for "$T/log" "reloaded configuration: 2 policies"; ok $? "a drop-in written in two steps is read whole"
grep -q "two.conf:.*missing\|two.conf:.*cgroup" "$T/log"; [ $? -ne 0 ]; ok $? "no reload saw it half-written"
# a file written, then `pageoutctl reload` at once: that reload reads it, the watch adds none
sleep 1
n=$(grep -c "reloaded configuration" "$T/log"); c=$(reloads)
printf '[policy]\ncgroup = /pageoutd-cfgwatch-three\n' > "$T/etc/conf.d/three.conf"
"$top_builddir/pageoutctl" --socket "$T/run/sock" reload > "$T/ctl" 2>&1; ok $? "pageoutctl reload right after a write"
wait_for "$T/log" "reloaded configuration: 3 policies"; ok $? "puts the new file in force"
sleep 1.5
[ "$(grep -c "reloaded configuration" "$T/log")" -eq $((n + 1)) ] && [ "$(reloads)" -eq "$c" ]
ok $? "one reload, not a second one from the watch (reloads $n -> $(grep -c "reloaded configuration" "$T/log"), by the watch $c -> $(reloads))"
rm "$T/etc/conf.d/three.conf"
i=0; while [ "$(grep -c "reloaded configuration" "$T/log")" -lt $((n + 2)) ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
grep "reloaded configuration" "$T/log" | tail -1 | grep -q "2 policies"; ok $? "the file removed: back to two policies, by the watch"
mv "$T/etc/conf.d" "$T/etc/conf.d.away"
wait_for "$T/log" "$T/etc/conf.d:0: directory: cannot read"; ok $? "the drop-in directory moved away: a failed reload, named"
mv "$T/etc/conf.d.away" "$T/etc/conf.d"
n=$(grep -c "reloaded configuration: 2 policies" "$T/log")
i=0; while [ "$(grep -c "reloaded configuration: 2 policies" "$T/log")" -le "$n" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ "$(grep -c "reloaded configuration: 2 policies" "$T/log")" -gt "$n" ]; ok $? "and moved back: reloaded"
rm "$T/etc/conf.d/two.conf"
wait_for "$T/log" "reloaded configuration: 1 policies"; ok $? "the watch follows the directory moved back"
kill -0 $pid; ok $? "the daemon still runs"
tap_end
