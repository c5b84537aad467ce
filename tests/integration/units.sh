#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The systemd units as `make install` installs them (into a DESTDIR): ExecStart names the
# installed daemon, systemd-analyze verify passes, the hardening's exposure score; and the
# run-state paths agree everywhere (daemon, pageoutctl, units, tmpfiles, shipped config, man).
. "$top_srcdir/tests/lib/common.sh"
mktmp
D=$T/inst
# a make of its own: the test harness's jobserver and flags are not for it
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL ${MAKE:-make} -s -C "$top_builddir" install DESTDIR="$D" \
	>"$T/install.log" 2>&1
rc=$?; [ $rc = 0 ] || diag "$(tail -n 20 "$T/install.log")"
ok $rc "make install DESTDIR=..."
verify_units() {
	exe=$(sed -n 's/^ExecStart=\([^ ]*\) .*/\1/p' "$svc")
	[ -n "$exe" ] && [ -x "$D$exe" ] && [ "$(basename "$exe")" = pageoutd ]
	ok $? "installed ExecStart names the installed daemon: $exe"
	# verify what was installed, ExecStart pointed into DESTDIR (verify checks that it runs)
	mkdir "$T/units"
	sed "s|^ExecStart=$exe|ExecStart=$D$exe|" "$svc" >"$T/units/pageoutd.service"
	cp "$sock" "$T/units/"
	command -v systemd-analyze >/dev/null || { ok 0 "systemd-analyze # SKIP missing"; return; }
	systemd-analyze verify --man=no "$T/units/pageoutd.service" "$T/units/pageoutd.socket" \
		>"$T/out" 2>&1
	rc=$?; [ $rc = 0 ] || diag "$(cat "$T/out")"
	ok $rc "systemd-analyze verify of the installed pageoutd.service and pageoutd.socket"
	grep -q '^Type=notify' "$svc" && grep -q '^WatchdogSec=' "$svc" && grep -q '^ExecReload=' "$svc"
	ok $? "Type=notify, WatchdogSec, ExecReload"
	if systemd-analyze security --offline=yes "$T/units/pageoutd.service" >"$T/sec" 2>&1; then
		score=$(sed -n 's/.*Overall exposure level for pageoutd.service: \([0-9.]*\).*/\1/p' "$T/sec")
		diag "systemd-analyze security: exposure $score"
		awk -v s="$score" 'BEGIN { exit !(s != "" && s + 0 <= 3.0) }'
		ok $? "exposure level at most 3.0 (OK): $score"
	else
		ok 0 "systemd-analyze security --offline not supported here # SKIP"
	fi
	for f in tmpfiles.d/pageoutd.conf sysusers.d/pageoutd.conf; do
		[ -n "$(find "$D" -path "*/$f" -type f)" ]; ok $? "installed $f"
	done
}
svc=$(find "$D" -name pageoutd.service -type f | head -n 1)
sock=$(find "$D" -name pageoutd.socket -type f | head -n 1)
if [ -n "$svc" ] && [ -n "$sock" ]; then
	verify_units
else
	# built --without-systemd: no units installed; the paths below are checked in the sources
	ok 0 "units installed and verified # SKIP built without systemd"
	svc=$top_srcdir/systemd/pageoutd.service.in sock=$top_srcdir/systemd/pageoutd.socket
fi

# one run-state path: pageoutctl's default socket is the daemon's, the socket unit's, the
# shipped config's, and lives in the directory the units and tmpfiles.d create
ctl_sock=$("$top_builddir/pageoutctl" --help | sed -n 's/.*the daemon.s socket (default \(.*\)).*/\1/p')
: >"$T/empty.conf"
"$PAGEOUTD" --check-config -c "$T/empty.conf" >"$T/defaults" 2>&1
d_sock=$(sed -n 's/.* socket=\([^ ]*\) .*/\1/p' "$T/defaults")
d_state=$(sed -n 's/.* state_dir=\([^ ]*\) .*/\1/p' "$T/defaults")
diag "pageoutctl: $ctl_sock; pageoutd: socket $d_sock, state_dir $d_state"
[ -n "$ctl_sock" ] && [ "$ctl_sock" = "$d_sock" ]; ok $? "pageoutctl and pageoutd default to one socket"
[ "$(sed -n 's/^ListenStream=//p' "$sock")" = "$d_sock" ]; ok $? "pageoutd.socket listens there"
[ "$(dirname "$d_sock")" = "$d_state" ] && [ "$d_state" = /run/pageoutd ]
ok $? "the socket is in state_dir, /run/pageoutd whatever the prefix"
grep -q '^RuntimeDirectory=pageoutd$' "$svc"; ok $? "the service's RuntimeDirectory is /run/pageoutd"
grep -q "^d $d_state " "$top_srcdir/systemd/tmpfiles/pageoutd.conf"; ok $? "tmpfiles.d creates $d_state"
conf=$(find "$D" -path '*/pageoutd/pageoutd.conf' -type f | head -n 1)
grep -qx "socket = $d_sock" "$conf" && grep -qx "state_dir = $d_state" "$conf"
ok $? "the installed pageoutd.conf shows the same defaults"
grep -q "default $d_sock" "$top_srcdir/man/pageoutd.conf.5" &&
	grep -q "default $d_state)" "$top_srcdir/man/pageoutd.conf.5" &&
	grep -q "^\.Pa $d_sock" "$top_srcdir/man/pageoutctl.8" && grep -q "^\.I $d_state/" "$top_srcdir/man/pageoutd.8"
ok $? "the man pages name the same paths"

grep -q '^service pageoutd ' "$top_srcdir/conf/android/pageoutd.rc" &&
	grep -q '^    socket pageoutd stream 0660' "$top_srcdir/conf/android/pageoutd.rc"
ok $? "conf/android/pageoutd.rc: an init service with its socket"
tap_end
