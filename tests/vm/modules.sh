# SPDX-License-Identifier: GPL-2.0-or-later
# modules.sh, sourced by boot.sh and systemd.sh: zram_modules KDIR DEST puts the zram module
# and the modules it needs from KDIR/modules (kernel.sh), decompressed, into DEST, and their
# names in load order into DEST/order. The order comes from each module's own depends= field:
# Debian's packages ship no modules.dep. A module absent from KDIR is built in.
zram_modules() {
	_zk=$1 _zd=$2 _zorder=""
	mkdir -p "$_zd"
	_zram_add zram
	echo "$_zorder" >"$_zd/order"
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
