#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# --check-config on the shipped examples and on broken configurations, with exit codes.
. "$top_srcdir/tests/lib/common.sh"
mktmp
out=$("$PAGEOUTD" --check-config -c "$top_srcdir/conf/pageoutd.conf" -d "$top_srcdir/conf/conf.d" 2>&1); rc=$?
ok $rc "shipped pageoutd.conf + conf.d examples are valid"
echo "$out" | grep -q '^policy batch: cgroup=/batch.slice engine=vaddr'; ok $? "batch policy printed on one line"
echo "$out" | grep -q '^policy machines: cgroup=/machine.slice/\* engine=paddr'; ok $? "machines policy printed"
echo "$out" | grep '^policy batch: ' | grep -v -q 'quota_time=' && echo "$out" | grep '^policy machines: ' | grep -q ' frozen_only=no'
ok $? "each policy is printed with the keys of its engine (quota_time: paddr only; frozen_only: both)"
# the intervals each engine's kdamond gets from the shipped policies (pageoutd.conf(5), [damon])
echo "$out" | grep -q '^damon: sysfs_root=[^ ]* sample_interval=derived aggr_interval=derived '
ok $? "the shipped pageoutd.conf leaves the DAMON intervals to be derived"
echo "$out" | grep -qF 'damon vaddr: sample 30ms, aggregation 600ms (from min_age 30s of policy batch; where the kernel tunes intervals, up to 62500us, 1250ms)'
ok $? "batch.conf's min_age 30s gives the vaddr kdamond 30 ms samples and 600 ms aggregations"
echo "$out" | grep -qF 'damon paddr: sample 60ms, aggregation 3s (from min_age 1m of policy databases;'
ok $? "databases.conf's min_age 1m, the shortest of the paddr policies, gives the paddr kdamond 60 ms samples, 3 s aggregations"
echo "$out" | grep -q '^policy databases: cgroup=/system.slice/postgresql\*.service engine=vaddr (part of both) .* memory=anon ' &&
	echo "$out" | grep -q '^policy databases: cgroup=/system.slice/postgresql\*.service engine=paddr (part of both) .* memory=file '
ok $? "databases.conf (engine = both) is printed as its vaddr part (anon) and its paddr part (file)"
printf '[damon]\nsample_interval = 5ms\naggr_interval = 100ms\n' > "$T/fixed.conf"
"$PAGEOUTD" --check-config -c "$T/fixed.conf" -d "$top_srcdir/conf/conf.d" 2>&1 |
	grep -qF 'damon vaddr: sample 5ms, aggregation 100ms (set in [damon])'
ok $? "intervals set in [damon] win"
mkdir "$T/android" "$T/android-generic"
cp "$top_srcdir/conf/android/cached-apps.conf" "$T/android/"
cp "$top_srcdir/conf/android/cached-apps-generic.conf" "$T/android-generic/"
out=$("$PAGEOUTD" --check-config -c "$top_srcdir/conf/pageoutd.conf" -d "$T/android" 2>&1)
ok $? "android example is valid"
echo "$out" | grep -q '^policy cached-apps: cgroup=/uid_\*/pid_\* engine=vaddr'
ok $? "android example matches AOSP's /uid_UID/pid_PID cgroups"
"$PAGEOUTD" --check-config -c "$top_srcdir/conf/pageoutd.conf" -d "$T/android-generic" >/dev/null 2>&1
ok $? "generic android example (one cgroup per app) is valid"

mkdir "$T/d"
: > "$T/main-ok.conf"
printf '[daemon]\ninterval = 5\n' > "$T/main.conf"
printf '[policy]\nengine = vaddr\n' > "$T/d/x.conf"
printf '[policy]\ncgroup = /a\nquota = lots\n' > "$T/d/y.conf"
err=$("$PAGEOUTD" --check-config -c "$T/main.conf" -d "$T/d" 2>&1 >/dev/null); rc=$?
[ $rc -eq 78 ]; ok $? "broken config exits 78 (got $rc)"
echo "$err" | grep -qxF "$T/main.conf:2: interval: '5' is not a duration (a number and a unit us, ms, s, m or h: 500ms, 1.5s, 2m, 1h)"
ok $? "main file error names file:line: key and the accepted forms"
echo "$err" | grep -qx "$T/d/x.conf:1: cgroup: missing, required in \[policy\]"; ok $? "missing cgroup at the [policy] line"
echo "$err" | grep -qxF "$T/d/y.conf:3: quota: 'lots' is not SIZE/DURATION (like 256M/1s) or none"; ok $? "drop-in value error"
[ "$(echo "$err" | wc -l)" -eq 3 ]; ok $? "exactly the three errors"

# a key of the other engine: an error at the key's line, though engine comes after it
mkdir "$T/e"
printf '[policy]\nquota_time = 10ms\ncgroup = /e\nengine = vaddr\n' > "$T/e/e.conf"
err=$("$PAGEOUTD" --check-config -c "$T/main-ok.conf" -d "$T/e" 2>&1 >/dev/null); rc=$?
[ $rc -eq 78 ] && [ "$err" = "$T/e/e.conf:2: quota_time: applies to engine = paddr policies only (this policy: engine = vaddr, line 4)" ]
ok $? "quota_time on a vaddr policy is the one error, at its line (got $rc: $err)"

# one grammar for sizes and durations: fractions are exact, ambiguous forms are refused
mkdir "$T/g" "$T/h"
printf '[policy]\ncgroup = /g\nengine = paddr\nmin_age = 1.5s\nquota = 1.5G/0.5s\nquota_time = 0s\n' > "$T/g/g.conf"
out=$("$PAGEOUTD" --check-config -c "$T/main-ok.conf" -d "$T/g" 2>&1); rc=$?
[ $rc -eq 0 ] && echo "$out" | grep -q '^policy g: .* min_age=1500ms .* quota=1536M/500ms quota_time=none '
ok $? "1.5s, 1.5G/0.5s and quota_time 0s are valid and printed in whole units (0s as none) (got $rc: $out)"
# what --check-config prints reads back as the same policies (but the two parts of an
# engine = both policy, which print as two lines of its name that are not drop-ins of their own)
mkdir "$T/rt"
cp "$top_srcdir"/conf/conf.d/*.conf "$T/g/g.conf" "$T/rt/"
"$PAGEOUTD" --check-config -c "$T/main-ok.conf" -d "$T/rt" | grep '^policy ' |
	grep -v ' (part of both) ' > "$T/rt.1"
rm "$T"/rt/*.conf
while read -r _ name rest; do
	{ echo '[policy]'; echo "$rest" | tr ' ' '\n' | sed 's/=/ = /'; } > "$T/rt/${name%:}.conf"
done < "$T/rt.1"
"$PAGEOUTD" --check-config -c "$T/main-ok.conf" -d "$T/rt" | grep '^policy ' > "$T/rt.2"
[ -s "$T/rt.1" ] && cmp -s "$T/rt.1" "$T/rt.2"
ok $? "the printed policies, written back as drop-ins, print the same ($(wc -l < "$T/rt.2") policies)"
printf '[policy]\ncgroup = /h\nmin_age = 0\nquota = 64MB/1s\n' > "$T/h/h.conf"
err=$("$PAGEOUTD" --check-config -c "$T/main-ok.conf" -d "$T/h" 2>&1 >/dev/null); rc=$?
[ $rc -eq 78 ] && [ "$err" = "$T/h/h.conf:3: min_age: '0' is not a duration (a number and a unit us, ms, s, m or h: 500ms, 1.5s, 2m, 1h)
$T/h/h.conf:4: quota: '64MB' is not a size (a number and a unit B, K, M, G or T, powers of 1024 also written KiB, MiB, GiB, TiB: 4096B, 64M, 1.5G)" ]
ok $? "a bare 0 and 64MB are refused with the accepted forms (got $rc: $err)"
mkdir "$T/x"
printf '[policy]\ncgroup = /x\nmin_age = 5x\n' > "$T/x/x.conf"
err=$("$PAGEOUTD" --check-config -c "$T/main-ok.conf" -d "$T/x" 2>&1 >/dev/null)
grep -qxF "pageoutd.conf:3: ${err#"$T/x/x.conf:3: "}" "$top_srcdir/man/pageoutd.conf.5"
ok $? "the error shown under VALUES in pageoutd.conf(5) is the one pageoutd prints ($err)"

# a UTF-8 byte order mark, as some editors write it: skipped at the start of a file only
mkdir "$T/b"
printf '\357\273\277[daemon]\ninterval = 2s\n' > "$T/bom.conf"
printf '\357\273\277[policy]\ncgroup = /b\n' > "$T/b/b.conf"
out=$("$PAGEOUTD" --check-config -c "$T/bom.conf" -d "$T/b" 2>&1); rc=$?
[ $rc -eq 0 ] && echo "$out" | grep -q '^daemon: interval=2s ' && echo "$out" | grep -q '^policy b: cgroup=/b '
ok $? "files that start with a byte order mark are read as without (got $rc: $out)"
printf '[daemon]\n\357\273\277interval = 2s\n' > "$T/bom2.conf"
err=$("$PAGEOUTD" --check-config -c "$T/bom2.conf" -d "$T/b" 2>&1 >/dev/null); rc=$?
[ $rc -eq 78 ] && [ "$err" = "$T/bom2.conf:2: line: a UTF-8 byte order mark belongs only at the start of a file" ]
ok $? "a byte order mark elsewhere is one error at its line (got $rc: $err)"
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
