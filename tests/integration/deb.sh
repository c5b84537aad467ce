#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The Debian package as make deb left it (DEB=FILE to check another): every file an operator
# needs is in it, the configuration is a conffile, the installed units are what systemd will
# load (systemd-analyze verify on the unit extracted from the package, not on a copy of the
# template), the maintainer scripts create the group and /run/pageoutd before they start the
# socket, and lintian reports no error or warning. Run by make check-deb; installs nothing.
. "$top_srcdir/tests/lib/common.sh"
changes=
if [ -z "${DEB:-}" ]; then
	DEB=$top_builddir/deb/pageoutd.deb
	# the .changes make deb left beside the package lists the .deb, dbgsym and .buildinfo
	changes=$(find "$top_builddir/deb-build" -maxdepth 1 -name '*.changes' 2>/dev/null | head -n1)
fi
for t in dpkg-deb lintian systemd-analyze; do
	command -v $t >/dev/null || { echo "Bail out! $t missing (.ci/deps installs it)"; exit 1; }
done
[ -f "$DEB" ] || { echo "Bail out! no $DEB: run make deb"; exit 1; }
mktmp
# where dh_auto_configure put the units: systemd.pc's directory, as configure read it
unitdir=$(pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null)
unitdir=${unitdir:-/usr/lib/systemd/system}

dpkg-deb -c "$DEB" | awk '{ print $NF }' | sed 's|^\./|/|' > "$T/files"
for f in /usr/sbin/pageoutd /usr/bin/pageoutctl "$unitdir/pageoutd.service" \
	"$unitdir/pageoutd.socket" /usr/lib/tmpfiles.d/pageoutd.conf \
	/usr/lib/sysusers.d/pageoutd.conf /usr/share/man/man8/pageoutd.8.gz \
	/usr/share/man/man8/pageoutctl.8.gz /usr/share/man/man5/pageoutd.conf.5.gz \
	/etc/pageoutd/pageoutd.conf /etc/pageoutd/conf.d/ /usr/share/doc/pageoutd/copyright \
	/usr/share/doc/pageoutd/examples/batch.conf /usr/share/doc/pageoutd/examples/machines.conf \
	/usr/share/doc/pageoutd/examples/databases.conf \
	/usr/share/doc/pageoutd/examples/cached-apps.conf \
	/usr/share/doc/pageoutd/examples/cached-apps-generic.conf \
	/usr/share/doc/pageoutd/examples/app.conf; do
	grep -qx -- "$f" "$T/files"; ok $? "in the package: $f"
done
! grep -q -e '^/usr/local/' -e '^/var/run/' "$T/files"
ok $? "nothing under /usr/local or /var/run"

dpkg-deb -e "$DEB" "$T/control"
grep -qx /etc/pageoutd/pageoutd.conf "$T/control/conffiles"
ok $? "conffiles: /etc/pageoutd/pageoutd.conf"
depends=$(dpkg-deb -f "$DEB" Depends)
diag "Depends: $depends"
for lib in libinih libcgroup libsystemd0; do
	echo "$depends" | grep -q "$lib"; ok $? "Depends names $lib (shlibs)"
done

# postinst: the group (sysusers) and /run/pageoutd (tmpfiles) exist before the socket starts;
# the units are enabled and started; prerm stops them so that no kdamond is left to pageoutd
p="$T/control/postinst"
line() { grep -n -m1 -- "$1" "$2" | cut -d: -f1; }
sysusers=$(line 'systemd-sysusers.*pageoutd.conf' "$p")
tmpfiles=$(line 'systemd-tmpfiles.*--create.*pageoutd.conf' "$p")
enable=$(line "deb-systemd-helper .*enable 'pageoutd.service'" "$p")
start=$(line "deb-systemd-invoke .*'pageoutd.socket'" "$p")
diag "postinst lines: sysusers ${sysusers:-none}, tmpfiles ${tmpfiles:-none}," \
	"enable ${enable:-none}, start ${start:-none}"
[ -n "$sysusers" ] && [ -n "$start" ] && [ "$sysusers" -lt "$start" ]
ok $? "postinst: systemd-sysusers pageoutd.conf before the socket starts"
[ -n "$tmpfiles" ] && [ -n "$start" ] && [ "$tmpfiles" -lt "$start" ]
ok $? "postinst: systemd-tmpfiles --create pageoutd.conf before the socket starts"
[ -n "$enable" ] && grep -q "deb-systemd-helper .*enable 'pageoutd.socket'" "$p"
ok $? "postinst: pageoutd.service and pageoutd.socket enabled"
grep -q "deb-systemd-invoke stop 'pageoutd.service' 'pageoutd.socket'" "$T/control/prerm"
ok $? "prerm: stops pageoutd.service and pageoutd.socket"
grep -q 'deb-systemd-helper purge' "$T/control/postrm"
ok $? "postrm: purge forgets the units' enablement"

# the installed files, from the package itself
R="$T/root"
dpkg-deb -x "$DEB" "$R"
u="$R$unitdir/pageoutd.service"
grep -qx 'ExecStart=/usr/sbin/pageoutd --foreground' "$u"
ok $? "installed pageoutd.service: ExecStart=/usr/sbin/pageoutd --foreground"
! grep -l '@[a-z_]*@' "$u" "$R$unitdir/pageoutd.socket" "$R/etc/pageoutd/pageoutd.conf" \
	"$R/usr/lib/tmpfiles.d/pageoutd.conf" "$R/usr/lib/sysusers.d/pageoutd.conf"
ok $? "no @variable@ left unsubstituted in the installed units and snippets"
# verify checks that ExecStart's /usr/sbin/pageoutd is executable: in a mount namespace of its
# own (private: nothing propagates back to this host), the package's /usr/sbin is mounted over
# the host's for it. verify --root would look every target and /bin/kill up in the package too.
if unshare --mount --propagation private true 2>/dev/null; then
	unshare --mount --propagation private sh -c 'mount --bind "$1/usr/sbin" /usr/sbin &&
		exec systemd-analyze verify --man=no --generators=no "$2" "$3"' sh \
		"$R" "$u" "$R$unitdir/pageoutd.socket" > "$T/verify" 2>&1
	rc=$?; [ $rc = 0 ] || diag "$(cat "$T/verify")"
	ok $rc "systemd-analyze verify of the installed pageoutd.service and pageoutd.socket"
else
	ok 0 "systemd-analyze verify of the installed units # SKIP no mount namespace here"
fi
"$R/usr/sbin/pageoutd" --check-config -c "$R/etc/pageoutd/pageoutd.conf" \
	-d "$R/etc/pageoutd/conf.d" > "$T/check" 2>&1
rc=$?; [ $rc = 0 ] || diag "$(cat "$T/check")"
ok $rc "the installed pageoutd accepts the installed configuration (--check-config)"

# lintian on the package, and on what make deb's .changes lists
lintian --fail-on error,warning "$DEB" ${changes:+"$changes"} > "$T/lintian" 2>&1
rc=$?; [ -s "$T/lintian" ] && diag "$(cat "$T/lintian")"
! grep -q '^[EW]: ' "$T/lintian" && [ $rc = 0 ]
ok $? "lintian: no error or warning on $(basename "$DEB")${changes:+ and $(basename "$changes")}"
tap_end
