#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh -b BUILDDIR -s SRCDIR [-C CACHE] [-t SECS] [-o OPTS] [-1] [-i SHIFT] [KERNEL...]:
# bench/apps.
# Boot each kernel once with the Debian root file system of rootfs.sh (PostgreSQL 15 with
# pgbench, MariaDB 10.11 with sysbench, from Debian's packages) and run each application's
# driver there (BENCH_APPS, "pg my": pg.sh, my.sh) with OPTS and the methods of
# BENCH_APPS_METHODS; then write, per application APP, bench/results/apps-APP-KERNEL.csv
# (every second of every run), apps-APP_end-KERNEL.csv (one row per run), apps-APP-KERNEL.png
# and the tables of apps.md (report.py), for every kernel with results there. No kernel: only
# the report and plots from the CSVs already there.
#   -C DIR   kernels and root file systems (PAGEOUTD_VM_CACHE, else tests/vm/cache)
#   -t SECS  timeout of one boot (14400: both applications, seven methods three times with
#            -p 120, take about three hours under -icount)
#   -o OPTS  pg.sh's options (BENCH_APPS_OPTS; see pg.sh)
#   -1       single-threaded TCG (tests/vm/README)
#   -i SHIFT QEMU's -icount shift=SHIFT,sleep=off (BENCH_APPS_ICOUNT; implies -1): guest time
#            follows the instructions executed, not the host's load, so two runs of the same
#            work take the same guest time; the two vCPUs share one timeline, so a reclaimer's
#            CPU comes out of the application's throughput as on a server with no idle core
set -eu
b=. s=. cache="" timeout=14400 accel=tcg,thread=multi opts=${BENCH_APPS_OPTS:-}
icount=${BENCH_APPS_ICOUNT:-}
apps=${BENCH_APPS:-pg my}
methods=${BENCH_APPS_METHODS:-none pageoutd-databases pageoutd-vaddr damos-vaddr damos-paddr damon_reclaim memory.reclaim-2}
while getopts b:s:C:t:o:1i: o; do
	case $o in
	b) b=$OPTARG ;;
	s) s=$OPTARG ;;
	C) cache=$OPTARG ;;
	t) timeout=$OPTARG ;;
	o) opts=$OPTARG ;;
	1) accel=tcg,thread=single ;;
	i) icount=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
icount_args=""
if [ -n "$icount" ]; then
	accel=tcg,thread=single
	icount_args="-icount shift=$icount,sleep=off"
fi
[ -n "$cache" ] || cache=${PAGEOUTD_VM_CACHE:-$s/tests/vm/cache}
v=$s/tests/vm
out=$s/bench/results
mkdir -p "$out"
for t in qemu-system-x86_64 cpio xz; do
	command -v $t >/dev/null || { echo "bench/apps: $t missing (.ci/deps installs it)" >&2; exit 2; }
done
[ $# -eq 0 ] || "$s/bench/apps/rootfs.sh" "$cache"
. "$v/modules.sh"

work=$(mktemp -d "${TMPDIR:-/tmp}/pageoutd-apps.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

# the files of this run, appended to the cached root file system as a second cpio archive (the
# kernel unpacks both) under /bench: init.sh, the drivers and lib.sh, the ticker, pageoutd and
# pageoutctl (their libraries are the root's: rootfs.sh installs them), the shipped
# configuration, zram's modules
initrd() {
	ov=$work/overlay
	rm -rf "$ov"
	mkdir -p "$ov/bench/conf"
	cp "$s/bench/apps/init.sh" "$s/bench/apps/lib.sh" "$s/bench/apps/pg.sh" "$s/bench/apps/my.sh" \
		"$b/bench/apps/ticker" "$b/pageoutd" "$b/pageoutctl" "$ov/bench/"
	cp "$s/conf/pageoutd.conf" "$s"/conf/conf.d/*.conf "$ov/bench/conf/"
	[ -d "$s/bench/apps/conf" ] && cp "$s"/bench/apps/conf/*.conf "$ov/bench/conf/"
	[ "$(swap_kind "$cache/$1")" = zram ] ||
		{ echo "bench/apps: $1 has no zram; the bench needs it" >&2; return 1; }
	swap_modules "$cache/$1" "$ov/bench/modules"
	echo "$2" >"$ov/bench/.cmd"
	(cd "$ov" && find . | cpio -o -H newc -R 0:0 --quiet) >"$work/overlay.cpio"
	cat "$cache/rootfs-apps-bookworm.cpio" "$work/overlay.cpio" >"$work/initrd"
}

# one boot: the console on stdout, CRs and escapes stripped
boot() {
	: >"$work/status"
	: >"$work/console"
	# shellcheck disable=SC2086
	timeout "$timeout" qemu-system-x86_64 -accel "$accel" $icount_args -cpu max -m 3072 -smp 2 \
		-nodefaults -no-user-config -display none -vga none -no-reboot \
		-serial "file:$work/console" -serial "file:$work/status" \
		-kernel "$cache/$1/vmlinuz" -initrd "$work/initrd" \
		-append "console=ttyS0 panic=-1 oops=panic quiet rdinit=/bench/init.sh pageoutd.vmtest=1" \
		</dev/null &
	qpid=$!
	tail -n +1 -f --pid=$qpid "$work/console" | sed -u 's/\r$//; s/\x1b\[[0-9;?]*[A-Za-z]//g'
	wait $qpid || true
}

for k in "$@"; do
	"$v/kernel.sh" "$k" "$cache"
	cmd=""
	for a in $apps; do cmd="$cmd${cmd:+ && }./$a.sh $opts $methods"; done
	initrd "$k" "$cmd"
	log=$out/apps-guest-$k.log
	echo "bench/apps: booting $k ($cmd)${icount:+, -icount shift=$icount,sleep=off}"
	boot "$k" >"$log" 2>&1
	if ! grep -q '^vm: payload start' "$log" && ! grep -q . "$work/status"; then
		echo "bench/apps: the guest died before its payload started; booting once more" | tee -a "$log"
		boot "$k" >>"$log" 2>&1
	fi
	rc=$(tr -dc 0-9 <"$work/status")
	if [ "$rc" != 0 ]; then
		echo "bench/apps: the $k guest failed (exit ${rc:-none}); see $log" >&2
		tail -n 30 "$log" >&2
		exit 1
	fi
	# provenance: one line per application, replaced when it is measured again
	pf=$out/apps-provenance-$k.txt
	touch "$pf"
	for a in $apps; do
		grep -v "^$a " "$pf" >"$pf.tmp" || true
		echo "$a $(git -C "$s" describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)" \
			"$(date -u +%Y-%m-%d) bench/apps/run.sh -o '$opts'${icount:+ -i $icount} $k" \
			"(BENCH_APPS_METHODS='$methods')" >>"$pf.tmp"
		mv "$pf.tmp" "$pf"
	done
	for a in $apps; do
		{
			echo "method,t,mem_kb,swap_kb,anon_kb,file_kb,shmem_kb,majflt,anon_thp_kb,tps,tps_5s"
			# the samples, with the load's tps of the same second of the same run and its
			# mean over the 5 s ending there
			awk -F, -v app="$a" '$1 == "APPS_TPS" && $2 == app { tps[$3 "," $4] = $5 }
				$1 == "APPS" && $2 == app { s[++n] = $0; r[n] = $3; t[n] = $4 }
				END { for (i = 1; i <= n; i++) {
					line = s[i]; sub(/^APPS,[^,]*,/, "", line)
					k = r[i] "," t[i]; sum = 0; c = 0
					for (j = t[i] - 4; j <= t[i]; j++)
						if ((r[i] "," j) in tps) { sum += tps[r[i] "," j]; c++ }
					print line "," (k in tps ? tps[k] : "") "," (c ? sprintf("%.1f", sum / c) : "") } }' "$log"
		} >"$out/apps-$a-$k.csv"
		{
			grep "^APPS_HEAD,$a," "$log" | head -n 1 | cut -d, -f3-
			grep "^APPS_END,$a," "$log" | cut -d, -f3-
		} >"$out/apps-${a}_end-$k.csv"
	done
done
kernels=$(cd "$out" && for c in apps-*_end-*.csv; do
	[ -f "$c" ] && c=${c%.csv} && echo "${c##*-}"
done | sort -u)
[ -n "$kernels" ] || { echo "bench/apps: no results in $out" >&2; exit 1; }
# shellcheck disable=SC2086
python3 "$s/bench/apps/report.py" "$out" $kernels
if command -v gnuplot >/dev/null; then
	for k in $kernels; do
		for a in pg my; do
			[ -f "$out/apps-$a-$k.csv" ] || continue
			case $a in
			pg) ttl="PostgreSQL 15 + pgbench (zipfian), $k guest" ;;
			my) ttl="MariaDB 10.11 + sysbench oltp_read_only (99% of draws on 5% of rows), $k guest" ;;
			esac
			gnuplot -e "dir='$s/bench'; app='$a'; csv='$out/apps-$a-$k.csv'; png='$out/apps-$a-$k.png'; ttl='$ttl'" \
				"$s/bench/apps/apps.gp"
		done
	done
else
	echo "bench/apps: gnuplot not found (Debian: gnuplot-nox): no plots" >&2
fi
echo "bench/apps: results in $out/apps.md"
