#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# matrix.sh -b BUILDDIR -s SRCDIR [-o FILE] [SERIES...]: the kernel matrix. Boots each series
# given, or every series the mirror offers (kernel.sh --list), with check.sh (one boot each),
# and writes a Markdown table to FILE (default SRCDIR/tests/vm/matrix.md): the kernel, the
# DAMON features its guest detected (vm-damon's "# damon features:" line), the checks passed,
# skipped and retried, and the time. The whole file is written from this run alone: every row
# ran the same test set, of the commit the header names (a row of an earlier run is not
# kept). Exits 1 if any kernel failed; the table says which either way.
set -u
b=. s=. out=
while getopts b:s:o: o; do
	case $o in
	b) b=$OPTARG ;;
	s) s=$OPTARG ;;
	o) out=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
cache=${PAGEOUTD_VM_CACHE:-$s/tests/vm/cache}
out=${out:-$s/tests/vm/matrix.md}
if [ $# = 0 ]; then
	set -- $("$s/tests/vm/kernel.sh" --list "$cache") || exit 1
	[ $# -gt 0 ] || { echo "matrix.sh: the mirror offers no cloud kernel" >&2; exit 1; }
fi
. "$s/tests/vm/modules.sh"
rows=$(mktemp)
status=0
for k in "$@"; do
	log=$(mktemp)
	start=$(date +%s)
	PAGEOUTD_VM_CACHE=$cache "$s/tests/vm/check.sh" -b "$b" -s "$s" "$k" >"$log" 2>&1
	rc=$?
	secs=$(($(date +%s) - start))
	cat "$log"
	kver=$(cat "$cache/$k/kver" 2>/dev/null || echo "not fetched")
	# a kernel without zram swaps on a disk (modules.sh): the row says so
	case $(swap_kind "$cache/$k" 2>/dev/null) in
	virtio) kver="$kver, swap on a virtio disk (no zram)" ;;
	nvme) kver="$kver, swap on an NVMe disk (no zram)" ;;
	esac
	case $(sed -n "s/^\[$k\] vm: payload start: .* on [^ ]*\( behind zswap\).*/\1/p" "$log" | tail -n 1) in
	" behind zswap") kver="$kver behind zswap" ;;
	esac
	feats=$(sed -n "s/^\[$k\] # damon features: //p" "$log" | tail -n 1)
	# check.sh's "== K: N checks, F failed, S skipped, R check retries, B early reboots" line
	last=$(grep "^== $k: " "$log" | tail -n 1)
	n=$(echo "$last" | sed -n 's/^== [^:]*: \([0-9]*\) checks.*/\1/p')
	nf=$(echo "$last" | sed -n 's/.* checks, \([0-9]*\) failed.*/\1/p')
	ns=$(echo "$last" | sed -n 's/.* failed, \([0-9]*\) skipped.*/\1/p')
	nr=$(echo "$last" | sed -n 's/.* skipped, \([0-9]*\) check retries.*/\1/p')
	nb=$(echo "$last" | sed -n 's/.* retries, \([0-9]*\) early reboots.*/\1/p')
	if [ "$rc" = 0 ]; then
		verdict="passed: $((${n:-0} - ${nf:-0}))/${n:-0}"
	else
		status=1
		# the checks as the boot printed them, not again from check.sh's summary at the end
		failed=$(awk '/^== check-vm failures/ { exit } { print }' "$log" |
			grep "^\[$k\] not ok " | sed 's/^\[[^]]*\] not ok //' | cut -c1-60 |
			tr '\n' ';' | sed 's/;$//; s/|/\\|/g')
		verdict="**failed**: $((${n:-0} - ${nf:-0}))/${n:-0} (${failed:-the guest did not finish})"
	fi
	[ "${ns:-0}" -gt 0 ] && verdict="$verdict; ${ns} TAP SKIPs"
	[ "${nr:-0}" -gt 0 ] && verdict="$verdict; ${nr} check retries"
	[ "${nb:-0}" -gt 0 ] && verdict="$verdict; booted again before the payload"
	printf '| %s | %s | %s | %s | %s s | %s |\n' "$k" "$kver" "${feats:-not reached}" \
		"$verdict" "$secs" "$(date -u +%Y-%m-%d)" >>"$rows"
	rm -f "$log"
done
commit=$(git -C "$s" describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)
{
	echo "# Kernel matrix"
	echo
	echo "Written by \`make check-matrix\` (tests/vm/matrix.sh): every guest test of \`make"
	echo "check-vm\` on each Debian cloud kernel series, under QEMU (TCG). The features are those"
	echo "pageoutd's DAMON layer detected in that guest's sysfs tree. The guest swaps on 512 MiB"
	echo "of zram; where the mirror's packages of a kernel hold no zram module, it swaps on a"
	echo "512 MiB raw disk image instead, virtio or NVMe, whichever driver the kernel has (and"
	echo "vm-paddr's page cache is on a second such disk), behind zswap where the kernel has it:"
	echo "the kernel column says so. On a bare disk five checks report a TAP SKIP (tests/vm/README)."
	echo
	echo "Test set: commit $commit, each series booted once (\`make check-matrix"
	echo "MATRIX_KERNELS=\"$*\"\`)."
	echo
	echo "| series | kernel | DAMON features detected | checks | time | booted |"
	echo "|---|---|---|---|---|---|"
	sort -t '|' -k2,2V "$rows"
} >"$out"
rm -f "$rows"
echo "== check-matrix: table in $out"
exit $status
