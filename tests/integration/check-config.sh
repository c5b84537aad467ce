#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# --check-config on the shipped examples and on broken configurations, with exit codes.
. "$top_srcdir/tests/lib/common.sh"
mktmp
out=$("$PAGEOUTD" --check-config -c "$top_srcdir/conf/pageoutd.conf" -d "$top_srcdir/conf/conf.d" 2>&1); rc=$?
ok $rc "shipped pageoutd.conf + conf.d examples are valid"
echo "$out" | grep -q '^policy batch: cgroup=/batch.slice engine=vaddr'; ok $? "batch policy printed on one line"
echo "$out" | grep -q '^policy machines: cgroup=/machine.slice/\* engine=paddr'; ok $? "machines policy printed"
mkdir "$T/android"; cp "$top_srcdir/conf/android/cached-apps.conf" "$T/android/"
"$PAGEOUTD" --check-config -c "$top_srcdir/conf/pageoutd.conf" -d "$T/android" >/dev/null 2>&1; ok $? "android example is valid"

mkdir "$T/d"
printf '[daemon]\ninterval = 5\n' > "$T/main.conf"
printf '[policy]\nengine = vaddr\n' > "$T/d/x.conf"
printf '[policy]\ncgroup = /a\nquota = lots\n' > "$T/d/y.conf"
err=$("$PAGEOUTD" --check-config -c "$T/main.conf" -d "$T/d" 2>&1 >/dev/null); rc=$?
[ $rc -eq 78 ]; ok $? "broken config exits 78 (got $rc)"
echo "$err" | grep -qx "$T/main.conf:2: interval: invalid value '5': .*"; ok $? "main file error names file:line: key"
echo "$err" | grep -qx "$T/d/x.conf:1: cgroup: missing, required in \[policy\]"; ok $? "missing cgroup at the [policy] line"
echo "$err" | grep -qx "$T/d/y.conf:3: quota: invalid value 'lots': .*"; ok $? "drop-in value error"
[ "$(echo "$err" | wc -l)" -eq 3 ]; ok $? "exactly the three errors"
"$PAGEOUTD" --check-config -c "$T/nope.conf" -d "$T/d" >/dev/null 2>&1; [ $? -eq 78 ]; ok $? "missing main file exits 78"
"$PAGEOUTD" --bogus >/dev/null 2>&1; [ $? -eq 64 ]; ok $? "unknown option exits 64"
"$PAGEOUTD" --version | grep -q '^pageoutd [0-9]'; ok $? "--version"
"$PAGEOUTD" --help | grep -q -- '--check-config'; ok $? "--help lists --check-config"
# pageoutctl check-config runs the same check as pageoutd --check-config: same exit status with
# the default conf.d directory missing (make install creates none), and with one given
printf '[daemon]\ninterval = 1s\n' > "$T/plain.conf"
"$PAGEOUTD" --check-config -c "$T/plain.conf" >/dev/null 2>&1; rc1=$?
"$top_builddir/pageoutctl" check-config -c "$T/plain.conf" >/dev/null 2>&1; rc2=$?
[ $rc1 = 0 ] && [ $rc2 = 0 ]; ok $? "check-config without -d: pageoutd $rc1, pageoutctl $rc2 (both 0)"
"$PAGEOUTD" --check-config -c "$T/plain.conf" -d "$T/none" >/dev/null 2>&1; rc1=$?
"$top_builddir/pageoutctl" check-config -c "$T/plain.conf" -d "$T/none" >/dev/null 2>&1; rc2=$?
[ $rc1 = 78 ] && [ $rc2 = 78 ]; ok $? "a -d directory that does not exist: pageoutd $rc1, pageoutctl $rc2 (both 78)"
# a policy whose cgroup matches nothing on this machine: a warning naming file:line, exit 0
mkdir "$T/nomatch"
printf '[policy]\nengine = vaddr\ncgroup = /pageoutd-no-such-cgroup-%s\n' $$ > "$T/nomatch/lost.conf"
err=$("$PAGEOUTD" --check-config -c "$T/plain.conf" -d "$T/nomatch" 2>&1 >/dev/null); rc=$?
[ $rc = 0 ]; ok $? "a policy matching no cgroup is valid (exit $rc)"
echo "$err" | grep -q "^$T/nomatch/lost.conf:3: warning: cgroup = /pageoutd-no-such-cgroup-$$ matches no cgroup"
ok $? "and draws a warning naming file:line"
diag "$err"
tap_end
