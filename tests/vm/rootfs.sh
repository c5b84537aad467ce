#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# rootfs.sh CACHE: make CACHE/rootfs-bookworm.cpio, once: a minimal Debian 12 root filesystem
# with systemd as PID 1 and pageoutd's runtime libraries, as an uncompressed newc archive that
# the kernel unpacks as its initramfs (systemd.sh boots it). mmdebstrap fetches the packages
# from the Debian mirror of this machine's apt sources; later runs need no network. The stamp
# holds a hash of this script: changing the recipe rebuilds the archive.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cache=$(mkdir -p "$1" && cd "$1" && pwd)
out=$cache/rootfs-bookworm.cpio
recipe=$(sha256sum <"$here/rootfs.sh" | cut -c1-16)
[ -s "$out" ] && [ "$(cat "$out.stamp" 2>/dev/null)" = "$recipe" ] && exit 0

command -v mmdebstrap >/dev/null || { echo "rootfs.sh: mmdebstrap missing (.ci/deps installs it)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "rootfs.sh: run as root (mmdebstrap --mode=root)" >&2; exit 2; }
. "$here/mirror.sh"
uri=$(debian_mirror | head -n 1)
[ -n "$uri" ] || { echo "rootfs.sh: no Debian mirror in this machine's apt sources" >&2; exit 1; }
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

# systemd as PID 1 and what the guest checks call (ps, pidof, setpriv, swapon, insmod);
# pageoutd's own libraries, so that dpkg -i finds its dependencies installed; dbus, without
# which systemd-run cannot start a transient unit (systemctl alone would do without).
pkgs=systemd,systemd-sysv,dbus,procps,util-linux,mount,kmod,libinih1,libcgroup2,libsystemd0
tmp=$(mktemp -d "$cache/rootfs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
echo "rootfs.sh: building a bookworm root filesystem with systemd from the machine's Debian mirror" >&2
# docs, man pages and locales are left out, now and for what dpkg installs in the guest
mmdebstrap --mode=root --variant=minbase --include="$pkgs" \
	--aptopt='APT::Install-Recommends "false"' \
	--dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
	--dpkgopt='path-exclude=/usr/share/info/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
	--dpkgopt='path-exclude=/usr/share/lintian/*' \
	--customize-hook='rm -rf "$1"/var/cache/apt/* "$1"/var/lib/apt/lists/* "$1"/var/log/*' \
	bookworm "$tmp/root" "deb [signed-by=$keyring] $uri bookworm main" >&2
root=$tmp/root
echo pageoutd-vm >"$root/etc/hostname"
: >"$root/etc/fstab"
# the console belongs to the test unit's TAP: no getty on it; nothing else the guest needs
# would start (no logins, no clock to sync, no timers to run)
for u in getty@.service serial-getty@.service console-getty.service getty-static.service \
	systemd-logind.service \
	systemd-timesyncd.service apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer \
	e2scrub_all.timer fstrim.timer systemd-tmpfiles-clean.timer; do
	ln -sf /dev/null "$root/etc/systemd/system/$u"
done
[ -e "$root/dev/console" ] || mknod -m 600 "$root/dev/console" c 5 1
(cd "$root" && find . | cpio -o -H newc -R 0:0 --quiet) >"$tmp/rootfs.cpio"
mv "$tmp/rootfs.cpio" "$out"
echo "$recipe" >"$out.stamp"
echo "rootfs.sh: $out ready ($(du -m "$out" | cut -f1) MiB)" >&2
