#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The systemd units: systemd-analyze verify passes, and the hardening's exposure score.
. "$top_srcdir/tests/lib/common.sh"
command -v systemd-analyze >/dev/null || skip_all "systemd-analyze missing"
mktmp
sed -e "s|@sbindir@|$top_builddir|g" "$top_srcdir/systemd/pageoutd.service.in" > "$T/pageoutd.service"
cp "$top_srcdir/systemd/pageoutd.socket" "$T/"
systemd-analyze verify --man=no "$T/pageoutd.service" "$T/pageoutd.socket" > "$T/out" 2>&1
rc=$?; [ $rc = 0 ] || diag "$(cat "$T/out")"
ok $rc "systemd-analyze verify pageoutd.service pageoutd.socket"
grep -q '^Type=notify' "$T/pageoutd.service" && grep -q '^WatchdogSec=' "$T/pageoutd.service" &&
	grep -q '^ExecReload=' "$T/pageoutd.service"; ok $? "Type=notify, WatchdogSec, ExecReload"
if systemd-analyze security --offline=yes "$T/pageoutd.service" > "$T/sec" 2>&1; then
	score=$(sed -n 's/.*Overall exposure level for pageoutd.service: \([0-9.]*\).*/\1/p' "$T/sec")
	diag "systemd-analyze security: exposure $score"
	awk -v s="$score" 'BEGIN { exit !(s != "" && s + 0 <= 3.0) }'
	ok $? "exposure level at most 3.0 (OK): $score"
else
	ok 0 "systemd-analyze security --offline not supported here # SKIP"
fi
for f in tmpfiles/pageoutd.conf sysusers/pageoutd.conf; do
	[ -s "$top_srcdir/systemd/$f" ]; ok $? "systemd/$f"
done
grep -q '^service pageoutd ' "$top_srcdir/conf/android/pageoutd.rc" &&
	grep -q '^    socket pageoutd stream 0660' "$top_srcdir/conf/android/pageoutd.rc"
ok $? "conf/android/pageoutd.rc: an init service with its socket"
tap_end
