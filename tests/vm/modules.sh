# SPDX-License-Identifier: GPL-2.0-or-later
# modules.sh, sourced by kernel.sh, boot.sh and systemd.sh: the guest's swap and its modules.
#
# swap_kind KDIR prints the swap the guest of the kernel in KDIR (kernel.sh) gets, or nothing:
#   zram    zram (a module in KDIR/modules, or built in): the default, wherever it exists
#   virtio  no zram: a raw disk image on a virtio disk (virtio_blk a module here, or built in)
#   nvme    neither: a raw disk image on an NVMe disk (built into Debian's cloud kernels, which
#           boot from NVMe in the clouds); also when the packages hold no config to tell
# swap_modules KDIR DEST puts the modules that swap needs from KDIR/modules, decompressed, into
# DEST, and their names in load order into DEST/order. The order comes from each module's own
# depends= field: Debian's packages ship no modules.dep. A module absent from KDIR is built in.
# zram_modules KDIR DEST is the same (the older name).
swap_kind() {
	if ls "$1/modules"/zram.ko* >/dev/null 2>&1 || grep -q '^CONFIG_ZRAM=y' "$1/config" 2>/dev/null; then
		echo zram
	elif ls "$1/modules"/virtio_blk.ko* >/dev/null 2>&1 ||
		grep -q '^CONFIG_VIRTIO_BLK=y' "$1/config" 2>/dev/null; then
		echo virtio
	elif [ ! -s "$1/config" ] || grep -q '^CONFIG_BLK_DEV_NVME=y' "$1/config"; then
		echo nvme
	fi
}
swap_modules() {
	_zk=$1 _zd=$2 _zorder=""
	mkdir -p "$_zd"
	case $(swap_kind "$_zk") in
	zram) _zram_add zram ;;
	virtio) _zram_add virtio_blk ;;
	esac
	echo "$_zorder" >"$_zd/order"
}
zram_modules() {
	swap_modules "$@"
}
_zram_add() {
	case " $_zorder " in *" $1 "*) return 0 ;; esac
	_zf=$(ls "$_zk/modules/$1.ko"* 2>/dev/null | head -n 1)
	[ -n "$_zf" ] || return 0
	xz -dcf "$_zf" >"$_zd/$1.ko"
	for _zdep in $(tr '\0' '\n' <"$_zd/$1.ko" | sed -n 's/^depends=//p' | tr , ' '); do
		_zram_add "$_zdep"
	done
	_zorder="$_zorder $1"
}
# swap_qemu_args KIND DIR prints QEMU's options for the guest's disks of KIND (none for zram),
# after making their sparse raw images in DIR: a 512 MiB swap disk (serial pageoutd-swap) and a
# 192 MiB one for vm-paddr's page-cache file system (serial pageoutd-pcache), which has a second
# zram device where there is zram. The guest finds them by serial (swap_disk_setup).
swap_qemu_args() {
	[ "$1" = zram ] && return 0
	truncate -s 512M "$2/swap.img"
	truncate -s 192M "$2/pcache.img"
	for _d in swap pcache; do
		printf ' -drive file=%s,if=none,id=%s,format=raw,cache=unsafe' "$2/$_d.img" "$_d"
		case $1 in
		virtio) printf ' -device virtio-blk-pci,drive=%s,serial=pageoutd-%s' "$_d" "$_d" ;;
		nvme) printf ' -device nvme,drive=%s,serial=pageoutd-%s' "$_d" "$_d" ;;
		esac
	done
}
