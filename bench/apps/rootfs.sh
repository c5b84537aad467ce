#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# rootfs.sh CACHE: make CACHE/rootfs-apps-bookworm.cpio, once: a minimal Debian 12 root file
# system with the real applications bench/apps runs (PostgreSQL 15 and its pgbench; MariaDB
# 10.11 and sysbench) and
# pageoutd's runtime libraries, as an uncompressed newc archive the kernel unpacks as its
# initramfs (run.sh boots it with its own /init, no service manager). mmdebstrap fetches the
# packages from the Debian mirror of this machine's apt sources (tests/vm/mirror.sh); later
# runs need no network. The stamp holds a hash of this script: a changed recipe rebuilds it.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cache=$(mkdir -p "$1" && cd "$1" && pwd)
out=$cache/rootfs-apps-bookworm.cpio
recipe=$(sha256sum <"$here/rootfs.sh" | cut -c1-16)
[ -s "$out" ] && [ "$(cat "$out.stamp" 2>/dev/null)" = "$recipe" ] && exit 0

command -v mmdebstrap >/dev/null || { echo "rootfs.sh: mmdebstrap missing (.ci/deps installs it)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "rootfs.sh: run as root (mmdebstrap --mode=root)" >&2; exit 2; }
. "$here/../../tests/vm/mirror.sh"
uri=$(debian_mirror | head -n 1)
[ -n "$uri" ] || { echo "rootfs.sh: no Debian mirror in this machine's apt sources" >&2; exit 1; }
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

# the applications and their load generators (pgbench is in postgresql-client-15; MariaDB's
# server and client cores without the server package's Galera, Perl and rsync); what the
# guest script calls (ps, taskset, mkfs.ext4, swapon, insmod); pageoutd's own libraries, which
# are the ones the host build links against (bookworm)
pkgs=postgresql-15,postgresql-client-15,mariadb-server-core,mariadb-client-core,sysbench,procps,util-linux,mount,kmod,e2fsprogs,gawk
pkgs=$pkgs,libinih1,libcgroup2,libsystemd0
tmp=$(mktemp -d "$cache/rootfs-apps.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
echo "rootfs.sh: building a bookworm root file system with PostgreSQL and MariaDB from the machine's Debian mirror" >&2
# docs, man pages and locales are left out; no service is started while the packages install
# (mmdebstrap's policy-rc.d), and postgresql-common's default cluster is not made: the guest
# makes its own with initdb in the bench's data directory
mmdebstrap --mode=root --variant=minbase --include="$pkgs" \
	--aptopt='APT::Install-Recommends "false"' \
	--dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
	--dpkgopt='path-exclude=/usr/share/info/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
	--dpkgopt='path-exclude=/usr/share/lintian/*' \
	--essential-hook='mkdir -p "$1/etc/postgresql-common/createcluster.d" && echo "create_main_cluster = false" >"$1/etc/postgresql-common/createcluster.d/bench.conf"' \
	--customize-hook='rm -rf "$1"/var/cache/apt/* "$1"/var/lib/apt/lists/* "$1"/var/log/*' \
	bookworm "$tmp/root" "deb [signed-by=$keyring] $uri bookworm main" >&2
root=$tmp/root
# the archive is the guest's root in RAM: leave out what the bench never runs. PostgreSQL's JIT
# (llvmjit with LLVM and z3, 130 MiB; the guest sets jit = off), its bitcode, headers and locale
# sources
rm -rf "$root"/usr/lib/x86_64-linux-gnu/libLLVM-* "$root"/usr/lib/x86_64-linux-gnu/libz3.so* \
	"$root"/usr/lib/postgresql/15/lib/llvmjit* "$root"/usr/lib/postgresql/15/lib/bitcode \
	"$root"/usr/include "$root"/usr/share/i18n "$root"/usr/lib/x86_64-linux-gnu/perl/5.*/CORE
echo pageoutd-apps >"$root/etc/hostname"
: >"$root/etc/fstab"
[ -e "$root/dev/console" ] || mknod -m 600 "$root/dev/console" c 5 1
[ -e "$root/dev/null" ] || mknod -m 666 "$root/dev/null" c 1 3
(cd "$root" && find . | cpio -o -H newc -R 0:0 --quiet) >"$tmp/rootfs.cpio"
mv "$tmp/rootfs.cpio" "$out"
echo "$recipe" >"$out.stamp"
echo "rootfs.sh: $out ready ($(du -m "$out" | cut -f1) MiB)" >&2
