#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# rootfs.sh ROOT PACKAGE.deb: build.sh's last step on the extracted root: the package, the
# files a root made of extracted packages lacks, the metrics CGI, and nothing a container
# does not use.
set -eu
root=$1 deb=$2
here=$(cd "$(dirname "$0")" && pwd)
dpkg-deb -x "$deb" "$root"
# the dpkg database of an image: what it holds, for scanners (no maintainer script ran)
mkdir -p "$root/var/lib/dpkg"
: >"$root/var/lib/dpkg/status"
for p in "$root"/var/cache/apt/archives/*.deb "$deb"; do
	{ dpkg-deb -f "$p" Package Version Architecture Multi-Arch Source Depends Pre-Depends |
		sed '1a Status: install ok installed'; echo; } >>"$root/var/lib/dpkg/status"
done
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n' \
	>"$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
# busybox is the shell and the metrics sidecar's httpd
mkdir -p "$root/usr/bin" "$root/usr/sbin"
ln -sf busybox "$root/bin/sh"
mkdir -p "$root/tmp" "$root/run/pageoutd" "$root/etc/pageoutd/conf.d" "$root/root"
chmod 1777 "$root/tmp"
install -D -m 0755 "$here/metrics.cgi" "$root/usr/share/pageoutd/metrics/cgi-bin/metrics"
rm -rf "$root/lib/systemd" "$root/usr/lib/systemd" "$root/usr/lib/tmpfiles.d" \
	"$root/usr/lib/sysusers.d" "$root/usr/share/man" "$root/usr/share/bug" \
	"$root/usr/share/lintian" "$root/var/log"/*
rm -rf "$root"/var/cache/apt/* "$root"/var/lib/apt/lists/*
