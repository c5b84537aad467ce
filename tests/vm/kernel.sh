#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# kernel.sh SERIES CACHE: make CACHE/SERIES/{vmlinuz,config,modules/,kver} from Debian's cloud
# kernel packages, once. SERIES is a kernel series (6.12, 6.18, 7.3, ...) that trixie,
# trixie-backports, sid or experimental has a cloud kernel of; the newest version of it is
# taken, except for the CI boots, whose tested versions are tried first (6.12.117+deb13,
# 7.3.4+deb13; 7.2.13+deb14, the bench's). kernel.sh --list CACHE prints every series the mirror offers, oldest first.
# The guest swaps on zram; a kernel whose packages hold no zram module gets a swap disk instead
# (modules.sh), and kernel.sh says which.
# The mirror is read from this machine's apt sources at run time; apt runs with a private
# state under CACHE, so the host's apt state is left alone.
set -eu
list_only=no
if [ "$1" = --list ]; then
	list_only=yes
	shift
	set -- - "$1"
fi
series=$1
cache=$(mkdir -p "$2" && cd "$2" && pwd)
out=$cache/$series
[ $list_only = no ] && [ -s "$out/kver" ] && [ -s "$out/vmlinuz" ] && exit 0

case $series in
6.12) want=6.12.117+deb13-cloud-amd64 ;;
7.2) want=7.2.13+deb14-cloud-amd64 ;;
7.3) want=7.3.4+deb13-cloud-amd64 ;;
-) want= ;;
[0-9]*.[0-9]*) want= ;;
*) echo "kernel.sh: '$series' is not a kernel series (6.12, 7.2, ...)" >&2; exit 2 ;;
esac

. "$(dirname "$0")/mirror.sh"
uri=$(debian_mirror | head -n 1)
[ -n "$uri" ] || { echo "kernel.sh: no Debian mirror in this machine's apt sources" >&2; exit 1; }
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -r "$keyring" ] || { echo "kernel.sh: $keyring missing (apt-get install debian-archive-keyring)" >&2; exit 1; }

apt=$cache/apt-all
mkdir -p "$apt/state/lists/partial" "$apt/cache/archives/partial" "$apt/parts"
[ $list_only = no ] && mkdir -p "$out"
: >"$apt/status"
for suite in trixie trixie-backports sid experimental; do
	echo "deb [signed-by=$keyring] $uri $suite main"
done >"$apt/sources.list"
set -- -o Dir::Etc::sourcelist="$apt/sources.list" -o Dir::Etc::sourceparts="$apt/parts" \
	-o Dir::State="$apt/state" -o Dir::State::status="$apt/status" -o Dir::Cache="$apt/cache" \
	-o APT::Architecture=amd64 -o APT::Sandbox::User=root -o Debug::NoLocking=1 -q
# every versioned cloud kernel image of the four suites, oldest first
images() {
	apt-cache "$@" search --names-only '^linux-image-[0-9].*-cloud-amd64$' |
		sed -n 's/^linux-image-\([0-9][^ ]*-cloud-amd64\) .*/\1/p' | sort -uV
}
# the lists are fetched at most once an hour
stamp=$apt/updated
if [ ! -e "$stamp" ] || [ -n "$(find "$stamp" -mmin +60)" ]; then
	echo "kernel.sh: reading the cloud kernels of the machine's Debian mirror" >&2
	apt-get "$@" update >&2
	touch "$stamp"
fi
if [ $list_only = yes ]; then
	images "$@" | sed -n 's/^\([0-9]*\.[0-9]*\)[.-].*/\1/p' | sort -uV
	exit 0
fi
kver=$want
if [ -z "$kver" ] || ! apt-cache "$@" show "linux-image-$kver" >/dev/null 2>&1; then
	# a release (SERIES.N+debNN) before a release candidate of experimental (SERIES-cloud)
	re=$(echo "$series" | sed 's/\./\\./')
	kver=$(images "$@" | grep "^$re\.[0-9]" | tail -n 1)
	[ -n "$kver" ] || kver=$(images "$@" | grep "^$re-" | tail -n 1)
	[ -n "$kver" ] || { echo "kernel.sh: no $series cloud kernel on the mirror" >&2; exit 1; }
	[ -n "$want" ] && echo "kernel.sh: $want is gone from the mirror; using $kver" >&2
fi
echo "kernel.sh: fetching the $series kernel $kver" >&2
list="linux-image-$kver"
for p in linux-binary-$kver linux-modules-$kver linux-base-$kver; do
	apt-cache "$@" show "$p" 2>/dev/null | grep -q "^Filename:" && list="$list $p"
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
# only what the guest loads: zram and what it depends on, and virtio_blk for a swap disk where
# there is no zram (modules.sh)
for m in zram zsmalloc lz4_compress lz4hc_compress virtio_blk; do
	f=$([ -z "$mods" ] || find "$mods" -name "$m.ko*" | head -n 1)
	[ -n "$f" ] && cp "$f" "$out/modules/"
done
# the guest's swap: zram where the kernel has it (built in, or as a module here); else a disk,
# virtio or NVMe. A kernel with neither cannot run the tests, and must not look as if it had.
. "$(dirname "$0")/modules.sh"
swap=$(swap_kind "$out")
case $swap in
zram) ;;
virtio) echo "kernel.sh: no zram in $kver's packages ($list): the guest swaps on a virtio disk" >&2 ;;
nvme)
	if [ -s "$out/config" ]; then
		echo "kernel.sh: no zram nor virtio_blk in $kver's packages ($list): the guest swaps on an NVMe disk (built in)" >&2
	else
		echo "kernel.sh: no modules and no config in $kver's packages ($list): the guest swaps on an NVMe disk, which Debian's cloud kernels build in" >&2
	fi
	;;
*)
	rm -rf "$tmp" "$out"
	echo "kernel.sh: no zram, virtio_blk or NVMe in $kver's packages on the mirror ($list): no swap in the guest" >&2
	exit 1
	;;
esac
echo "$kver" >"$out/kver"
rm -rf "$tmp"
echo "kernel.sh: $series kernel $kver ready" >&2
