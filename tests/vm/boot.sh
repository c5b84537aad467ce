#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# boot.sh [options] -- GUEST-COMMAND...: boot a Debian kernel under QEMU with a busybox
# initramfs holding FILES, run GUEST-COMMAND as the guest's payload, print the guest console
# on stdout and exit with the payload's exit status (125: the guest died, 124: timeout).
#   -k SERIES   kernel series (6.12, 6.18, 7.3, ...: any that kernel.sh finds); default 6.12
#   -C DIR      kernel cache (default tests/vm/cache beside this script)
#   -f SRC[:DST] copy a file (and the shared libraries it needs) into the guest; repeatable
#   -a ARGS     extra kernel command line
#   -m MIB      guest memory (1024)
#   -t SECS     timeout (600)
#   -1          single-threaded TCG (avoids a rare QEMU 7.2 MTTCG boot crash; ~10% slower)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
series=6.12 cache=$here/cache files="" append="" mem=1024 timeout=600 accel=tcg,thread=multi
while getopts k:C:f:a:m:t:1 o; do
	case $o in
	k) series=$OPTARG ;;
	C) cache=$OPTARG ;;
	f) files="$files $OPTARG" ;;
	a) append="$append $OPTARG" ;;
	m) mem=$OPTARG ;;
	t) timeout=$OPTARG ;;
	1) accel=tcg,thread=single ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "usage: boot.sh [-k SERIES] [-f FILE]... -- COMMAND..." >&2; exit 2; }
for t in qemu-system-x86_64 cpio xz; do
	command -v $t >/dev/null || { echo "boot.sh: $t missing (.ci/deps installs it)" >&2; exit 2; }
done
bb=$(command -v busybox || true)
[ -n "$bb" ] && ldd "$bb" 2>&1 | grep -q 'not a dynamic' ||
	{ echo "boot.sh: a static busybox is needed (apt-get install busybox-static)" >&2; exit 2; }
"$here/kernel.sh" "$series" "$cache"
k=$cache/$series

work=$(mktemp -d "${TMPDIR:-/tmp}/pageoutd-vm.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
root=$work/root
mkdir -p "$root/bin" "$root/dev" "$root/proc" "$root/sys" "$root/tmp" "$root/run" "$root/etc" \
	"$root/lib/modules" "$root/payload"
cp "$bb" "$root/bin/busybox"
ln -s busybox "$root/bin/sh"
for d in sbin usr/bin usr/sbin; do
	mkdir -p "$root/$(dirname $d)"
	ln -s /bin "$root/$d"
done
if [ "$(id -u)" = 0 ]; then
	mknod -m 600 "$root/dev/console" c 5 1
	mknod -m 666 "$root/dev/null" c 1 3
fi

# the guest's swap (modules.sh): zram where the kernel has it, else a swap disk; its modules in
# dependency order, from each module's own depends= (the .debs ship no modules.dep)
. "$here/modules.sh"
swap=$(swap_kind "$k")
[ -n "$swap" ] || { echo "boot.sh: $series has neither zram nor a disk driver for swap" >&2; exit 2; }
swap_modules "$k" "$root/lib/modules"
echo "$swap" >"$root/etc/pageoutd-vm-swap"
disks=$(swap_qemu_args "$swap" "$work")

copy_libs() {
	ldd "$1" 2>/dev/null | awk '/=>/ { print $3 } /^[ \t]*\// { print $1 }' | while read -r lib; do
		[ -f "$lib" ] || continue
		mkdir -p "$root$(dirname "$lib")"
		[ -e "$root$lib" ] || cp -L "$lib" "$root$lib"
	done
}
for spec in $files; do
	src=${spec%%:*}
	dst=$(basename "$src")
	case $spec in *:*) dst=${spec#*:} ;; esac
	mkdir -p "$(dirname "$root/payload/$dst")"
	cp -L "$src" "$root/payload/$dst"
	[ -x "$src" ] && copy_libs "$src"
done
[ -d "$root/lib64" ] || ln -s lib "$root/lib64" 2>/dev/null || true

printf '%s\n' "$@" >"$root/payload/.cmd"
cat >"$root/init" <<'INIT'
#!/bin/sh
/bin/busybox --install -s /bin
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
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
ip link set lo up 2>/dev/null
for m in $(cat /lib/modules/order); do insmod /lib/modules/$m.ko || echo "vm: insmod $m failed"; done
if [ "$(cat /etc/pageoutd-vm-swap)" = zram ]; then
	if [ -e /sys/block/zram0 ]; then
		echo lz4 >/sys/block/zram0/comp_algorithm
		echo 512M >/sys/block/zram0/disksize
		mkswap /dev/zram0 >/dev/null && swapon /dev/zram0
	fi
else
	# no zram in this kernel: swap on the 512 MiB disk, and the 192 MiB one for vm-paddr's
	# page cache named in /run/pageoutd-vm-pcdisk; told apart by size (NVMe probes
	# asynchronously: wait for them)
	disk() {
		for d in /sys/block/vd* /sys/block/nvme*; do
			[ "$(cat $d/size 2>/dev/null)" = "$1" ] && echo /dev/${d##*/} && return 0
		done
		return 1
	}
	i=0
	while ! disk 1048576 >/dev/null || ! disk 393216 >/dev/null; do
		i=$((i + 1))
		[ $i -gt 100 ] && break
		sleep 0.1
	done
	sd=$(disk 1048576) pd=$(disk 393216)
	[ -n "$sd" ] && mkswap "$sd" >/dev/null && swapon "$sd" || echo "vm: no swap disk"
	[ -n "$pd" ] && echo "$pd" >/run/pageoutd-vm-pcdisk
	# zswap, where the kernel has it, in front of the disk: pages are compressed into memory
	# when paged out and freed at once, as with zram, instead of waiting in the swap cache
	# for their write (tests/vm/README)
	z=/sys/module/zswap/parameters/enabled
	[ -w $z ] && echo Y >$z 2>/dev/null
	if [ "$(cat $z 2>/dev/null)" = Y ]; then
		zswap=" behind zswap ($(cat /sys/module/zswap/parameters/compressor))"
		# and no swap readahead, which zram does not do either: a fault reads back its page
		# alone, so a page comes back by a major fault of its own, not a minor one after a
		# neighbour's read (7.1 with page-cluster 3: 13% of the hot pages by major fault)
		echo 0 >/proc/sys/vm/page-cluster
	fi
fi
echo "pageoutd-vm-guest" >/run/pageoutd-vm-guest
export PATH=/payload:/bin TMPDIR=/tmp
cd /payload
echo "vm: payload start: $(uname -r) swap=$(awk 'NR==2 { print $3 }' /proc/swaps)kB on $(awk 'NR==2 { print $1 }' /proc/swaps)${zswap:-}"
sh -c "$(cat /payload/.cmd | tr '\n' ' ')"
rc=$?
echo "vm: payload exit $rc"
echo "$rc" >/dev/ttyS1
sync
poweroff -f
INIT
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc -R 0:0 --quiet) >"$work/initrd"

boot() {
	: >"$work/status"
	: >"$work/console"
	timeout "$timeout" qemu-system-x86_64 -accel "$accel" -cpu max -m "$mem" -smp 2 \
		-nodefaults -no-user-config -display none -vga none -no-reboot \
		-serial "file:$work/console" -serial "file:$work/status" \
		-kernel "$k/vmlinuz" -initrd "$work/initrd" $disks \
		-append "console=ttyS0 panic=-1 oops=panic quiet pageoutd.vmtest=1$append" </dev/null &
	qpid=$!
	# stream the console while qemu runs
	tail -n +1 -f --pid=$qpid "$work/console" | sed -u 's/\r$//; s/\x1b\[[0-9;?]*[A-Za-z]//g'
	wait $qpid || true
}
boot
if ! grep -q '^vm: payload start' "$work/console" && ! grep -q . "$work/status"; then
	echo "vm: the guest died before the payload started; booting once more"
	boot
fi
rc=$(tr -dc 0-9 <"$work/status")
if [ -z "$rc" ]; then
	grep -q '^vm: payload start' "$work/console" && rc=125
	[ -n "$rc" ] || rc=125
	echo "vm: no exit status from the guest (crash or timeout)"
fi
exit "$rc"
