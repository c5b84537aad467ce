#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The systemd guest's machine setup: the zram modules (decompressed, in dependency order,
# tests/vm/modules.sh) and 512 MiB of zram swap, as tests/vm/boot.sh's /init does (a 512 MiB
# swap disk where the kernel has no zram); the marker the guest-only programs look for; and
# damon_stat off, as an operator of a 7.x kernel whose damon_stat holds DAMON would do
# (tests/vm/README).
d=/usr/local/lib/pageoutd-vm/modules
for m in $(cat $d/order); do insmod $d/$m.ko || echo "vm: insmod $m failed"; done
if [ "$(cat /usr/local/lib/pageoutd-vm/swap)" != zram ]; then
	# no zram in this kernel: the 512 MiB disk that systemd.sh attached (modules.sh), found
	# by its size as boot.sh's /init does
	for i in $(seq 100); do
		sd=$(for b in /sys/block/vd* /sys/block/nvme*; do
			[ "$(cat $b/size 2>/dev/null)" = 1048576 ] && echo /dev/${b##*/}
		done | head -n 1)
		[ -n "$sd" ] && break
		sleep 0.1
	done
	[ -n "$sd" ] && mkswap "$sd" >/dev/null && swapon "$sd" || echo "vm: no swap disk"
	# zswap in front of it where the kernel has it, as boot.sh's /init does
	z=/sys/module/zswap/parameters/enabled
	[ -w $z ] && echo Y >$z && echo 0 >/proc/sys/vm/page-cluster
elif [ -e /sys/block/zram0 ]; then
	echo lz4 >/sys/block/zram0/comp_algorithm
	echo 512M >/sys/block/zram0/disksize
	mkswap /dev/zram0 >/dev/null && swapon /dev/zram0
fi
p=/sys/module/damon_stat/parameters/enabled
[ -w $p ] && [ "$(cat $p)" = Y ] && echo N >$p
echo pageoutd-vm-guest >/run/pageoutd-vm-guest
