#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# systemd.sh -b BUILDDIR -s SRCDIR -p PKG.deb [-C CACHE] [-t SECS] [-1] SERIES...: boot each
# kernel once with a Debian 12 root filesystem whose PID 1 is systemd (rootfs.sh), install
# PKG.deb in it with dpkg and run the TAP checks of systemd/checks.sh as a systemd unit; print
# their TAP prefixed with the kernel and fail if any check or guest failed.
#   -C DIR   cache of kernels and the root filesystem (PAGEOUTD_VM_CACHE, else tests/vm/cache)
#   -t SECS  timeout of one boot (600)
#   -1       single-threaded TCG (tests/vm/README)
set -u
b=. s=. deb="" cache="" timeout=600 accel=tcg,thread=multi
while getopts b:s:p:C:t:1 o; do
	case $o in
	b) b=$OPTARG ;;
	s) s=$OPTARG ;;
	p) deb=$OPTARG ;;
	C) cache=$OPTARG ;;
	t) timeout=$OPTARG ;;
	1) accel=tcg,thread=single ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- 6.12 7.2
[ -n "$deb" ] && [ -f "$deb" ] || { echo "systemd.sh: -p PKG.deb: no package '$deb'" >&2; exit 2; }
[ -n "$cache" ] || cache=${PAGEOUTD_VM_CACHE:-$s/tests/vm/cache}
v=$s/tests/vm
for t in qemu-system-x86_64 cpio xz; do
	command -v $t >/dev/null || { echo "systemd.sh: $t missing (.ci/deps installs it)" >&2; exit 2; }
done
"$v/rootfs.sh" "$cache" || exit 2
. "$v/modules.sh"

work=$(mktemp -d "${TMPDIR:-/tmp}/pageoutd-vm-systemd.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

# the files of this run, appended to the cached root filesystem as a second cpio archive (the
# kernel unpacks both): the checks, the workload, the package, the swap's modules (zram, or a
# disk where the kernel has no zram: modules.sh), and the units
# that run them, enabled
initrd() {
	ov=$work/overlay lib=$work/overlay/usr/local/lib/pageoutd-vm
	units=$work/overlay/etc/systemd/system
	rm -rf "$ov"
	mkdir -p "$lib" "$units/multi-user.target.wants"
	cp "$v/systemd/checks.sh" "$v/systemd/setup.sh" "$b/tests/vm/guest/vm-workload" "$lib/"
	cp "$deb" "$lib/pageoutd.deb"
	swap_modules "$cache/$1" "$lib/modules"
	swap_kind "$cache/$1" >"$lib/swap"
	for u in pageoutd-vm-setup.service pageoutd-vm-test.service; do
		cp "$v/systemd/$u" "$units/"
		ln -s "../$u" "$units/multi-user.target.wants/$u"
	done
	(cd "$ov" && find . | cpio -o -H newc -R 0:0 --quiet) >"$work/overlay.cpio"
	cat "$cache/rootfs-bookworm.cpio" "$work/overlay.cpio" >"$work/initrd"
}

# one boot: the console on stdout, CRs and escapes stripped, the boot time (QEMU start to the
# test unit) added to the test unit's first line
boot() {
	: >"$work/status"
	: >"$work/console"
	t0=$(date +%s)
	timeout "$timeout" qemu-system-x86_64 -accel "$accel" -cpu max -m 2048 -smp 2 \
		-nodefaults -no-user-config -display none -vga none -no-reboot \
		-serial "file:$work/console" -serial "file:$work/status" \
		-kernel "$cache/$1/vmlinuz" -initrd "$work/initrd" $(swap_qemu_args "$(swap_kind "$cache/$1")" "$work") \
		-append "console=ttyS0 panic=-1 oops=panic quiet rdinit=/sbin/init pageoutd.vmtest=1" \
		</dev/null &
	qpid=$!
	tail -n +1 -f --pid=$qpid "$work/console" | sed -u 's/\r$//; s/\x1b\[[0-9;?]*[A-Za-z]//g' |
		while IFS= read -r line; do
			case $line in
			"vm: test unit start"*) echo "$line, $(($(date +%s) - t0)) s after QEMU started" ;;
			*) printf '%s\n' "$line" ;;
			esac
		done
	wait $qpid || true
}

status=0 total=0 failed=0
summary=$work/summary
: >"$summary"
for k in "$@"; do
	"$v/kernel.sh" "$k" "$cache" || exit 2
	initrd "$k"
	log=$work/log
	start=$(date +%s)
	boot "$k" >"$log" 2>&1
	if ! grep -q '^vm: test unit start' "$log" && ! grep -q . "$work/status"; then
		echo "vm: the guest died before the test unit started; booting once more" >>"$log"
		boot "$k" >>"$log" 2>&1
	fi
	secs=$(($(date +%s) - start))
	rc=$(tr -dc 0-9 <"$work/status")
	[ -n "$rc" ] || { rc=125; echo "vm: no exit status from the guest (crash or timeout)" >>"$log"; }
	sed "s/^/[$k] /" "$log"
	n=$(grep -cE '^(not )?ok ' "$log")
	nf=$(grep -cE '^not ok ' "$log")
	awk -v k="$k" '/^not ok / { n = 6 } n > 0 { print "[" k "] " $0; n-- }' "$log" >>"$summary"
	[ "$rc" = 0 ] || echo "[$k] guest exit $rc" >>"$summary"
	if [ "$rc" != 0 ] || [ "$nf" != 0 ] || [ "$n" = 0 ]; then
		status=1
	fi
	total=$((total + n))
	failed=$((failed + nf))
	echo "== $k: $n checks, $nf failed, guest exit $rc, $secs s"
done
if [ -s "$summary" ]; then
	echo "== check-vm-systemd failures:"
	cat "$summary"
fi
echo "== check-vm-systemd: $total checks on kernels $*, $failed failed"
exit $status
