#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# init.sh: PID 1 of the bench/apps guest (run.sh boots the Debian root of rootfs.sh with
# rdinit=/bench/init.sh). Mounts, cgroup v2 with the memory controller, zram swap (zram0, lz4,
# 1 GiB) and a second zram device with ext4 for the applications' data (their files are a
# disk's page cache, as on a real machine, and zram's own memory is no cgroup's), the 1 ms
# ticker on every vCPU (ticker.c), damon_stat off as an operator would (it holds DAMON on
# 7.x); then /bench/.cmd, its exit status on the second serial port, and power off.
export PATH=/bench:/usr/sbin:/usr/bin:/sbin:/bin TMPDIR=/tmp LC_ALL=C
mount -t devtmpfs dev /dev 2>/dev/null
exec </dev/null >/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sys /sys
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmp /tmp
mount -t tmpfs run /run
mount -t tmpfs shm /dev/shm
mount -t cgroup2 cgroup2 /sys/fs/cgroup
echo "+memory +cpu +io +pids" >/sys/fs/cgroup/cgroup.subtree_control
ip link set lo up 2>/dev/null || ifconfig lo up 2>/dev/null
hostname pageoutd-apps
for m in $(cat /bench/modules/order); do insmod /bench/modules/$m.ko || echo "vm: insmod $m failed"; done
echo lz4 >/sys/block/zram0/comp_algorithm
echo 1G >/sys/block/zram0/disksize
mkswap /dev/zram0 >/dev/null && swapon /dev/zram0
d=$(cat /sys/class/zram-control/hot_add)
echo lz4 >/sys/block/zram$d/comp_algorithm
# 2 GiB: PostgreSQL's data directory (about 600 MiB with its WAL) and the copy each run starts
# from (pg.sh); zram holds only what is written, compressed
echo 2G >/sys/block/zram$d/disksize
mkdir -p /data
mkfs.ext4 -q -E nodiscard /dev/zram$d && mount -o noatime /dev/zram$d /data || echo "vm: no data disk"
z=/sys/module/damon_stat/parameters/enabled
[ "$(cat $z 2>/dev/null)" = Y ] && echo N >$z
mkdir /sys/fs/cgroup/ticker
echo $$ >/sys/fs/cgroup/ticker/cgroup.procs
ticker &
echo $$ >/sys/fs/cgroup/cgroup.procs
echo "pageoutd-vm-guest" >/run/pageoutd-vm-guest
echo "vm: payload start: $(uname -r) swap=$(awk 'NR==2 { print $3 }' /proc/swaps)kB on $(awk 'NR==2 { print $1 }' /proc/swaps), data on zram$d, THP $(cat /sys/kernel/mm/transparent_hugepage/enabled), $(nproc) vCPUs each with a 1 ms ticker"
cd /bench || exit 1
sh -c "$(cat /bench/.cmd)"
rc=$?
echo "vm: payload exit $rc"
echo "$rc" >/dev/ttyS1
sync
echo o >/proc/sysrq-trigger
sleep 10
