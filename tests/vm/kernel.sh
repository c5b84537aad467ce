#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# kernel.sh SERIES CACHE: make CACHE/SERIES/{vmlinuz,config,modules/,kver} from Debian's cloud
# kernel packages, once. SERIES is 6.12 (trixie) or 7.2 (sid). The mirror is read from this
# machine's apt sources at run time; apt runs with a private state under CACHE, so the host's
# apt state is left alone. The tested version is tried first, then the suite's current one.
set -eu
series=$1
cache=$(mkdir -p "$2" && cd "$2" && pwd)
out=$cache/$series
[ -s "$out/kver" ] && [ -s "$out/vmlinuz" ] && exit 0

case $series in
6.12) suite=trixie want=6.12.117+deb13-cloud-amd64 ;;
7.2) suite=sid want=7.2.13+deb14-cloud-amd64 ;;
*) echo "kernel.sh: unknown series $series (6.12 or 7.2)" >&2; exit 2 ;;
esac

. "$(dirname "$0")/mirror.sh"
uri=$(debian_mirror | head -n 1)
[ -n "$uri" ] || { echo "kernel.sh: no Debian mirror in this machine's apt sources" >&2; exit 1; }
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -r "$keyring" ] || { echo "kernel.sh: $keyring missing (apt-get install debian-archive-keyring)" >&2; exit 1; }

apt=$cache/apt-$suite
mkdir -p "$apt/state/lists/partial" "$apt/cache/archives/partial" "$apt/parts" "$out"
: >"$apt/status"
echo "deb [signed-by=$keyring] $uri $suite main" >"$apt/sources.list"
set -- -o Dir::Etc::sourcelist="$apt/sources.list" -o Dir::Etc::sourceparts="$apt/parts" \
	-o Dir::State="$apt/state" -o Dir::State::status="$apt/status" -o Dir::Cache="$apt/cache" \
	-o APT::Architecture=amd64 -o APT::Sandbox::User=root -o Debug::NoLocking=1 -q
echo "kernel.sh: fetching the $series kernel ($suite) from the machine's Debian mirror" >&2
apt-get "$@" update >&2
kver=$want
if ! apt-cache "$@" show "linux-image-$kver" >/dev/null 2>&1; then
	kver=$(apt-cache "$@" depends linux-image-cloud-amd64 2>/dev/null |
		sed -n 's/.*Depends: linux-image-\(.*-cloud-amd64\)$/\1/p' | head -n 1)
	[ -n "$kver" ] || { echo "kernel.sh: no cloud kernel in $suite" >&2; exit 1; }
	echo "kernel.sh: $want is gone from the mirror; using $kver" >&2
fi
list="linux-image-$kver"
for p in linux-binary-$kver linux-modules-$kver linux-base-$kver; do
	apt-cache "$@" show "$p" >/dev/null 2>&1 && list="$list $p"
done
tmp=$(mktemp -d "$cache/dl.XXXXXX")
(cd "$tmp" && apt-get "$@" download $list >&2)
for deb in "$tmp"/*.deb; do dpkg-deb -x "$deb" "$tmp/root"; done
root=$tmp/root
vmlinuz=$(ls "$root/boot/vmlinuz-$kver" "$root/usr/lib/modules/$kver/vmlinuz" 2>/dev/null | head -n 1)
config=$(ls "$root/boot/config-$kver" "$root/usr/lib/modules/$kver/config" 2>/dev/null | head -n 1)
[ -n "$vmlinuz" ] || { echo "kernel.sh: no vmlinuz in $list" >&2; exit 1; }
rm -rf "$out/modules"
mkdir -p "$out/modules"
cp "$vmlinuz" "$out/vmlinuz"
[ -n "$config" ] && cp "$config" "$out/config"
mods=$(ls -d "$root/lib/modules/$kver" "$root/usr/lib/modules/$kver" 2>/dev/null | head -n 1)
# only what the guest loads: zram and what it depends on
for m in zram zsmalloc lz4_compress lz4hc_compress; do
	f=$(find "$mods" -name "$m.ko*" | head -n 1)
	[ -n "$f" ] && cp "$f" "$out/modules/"
done
echo "$kver" >"$out/kver"
rm -rf "$tmp"
echo "kernel.sh: $series kernel $kver ready" >&2
