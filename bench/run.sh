#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh -b BUILDDIR -s SRCDIR [-q SECONDS] [-S STEPS] [KERNEL...]: boot each kernel once
# (tests/vm) and run bench/guest/bench there (STEPS, default "quality apply scale watch android
# warm"), then
# write bench/results/: the raw CSV per kernel, a markdown summary with each target marked met
# or not, and PNG plots (gnuplot). A step left out keeps its earlier CSVs.
set -eu
b=. s=. q=45 scale=${BENCH_SCALE:-1 10 100} host_scale=${BENCH_HOST_SCALE:-1 10 100 300}
watch=${BENCH_WATCH:-1 10 100 300}
# guest memory: room for 300 target processes beside the quality workload
mem=${BENCH_MEM:-2048}
steps="quality apply scale watch android warm" android_steps=${BENCH_ANDROID_STEPS:-21}
warm_secs=${BENCH_WARM_SECONDS:-120}
# the steps bench/host/cycle runs in the guest as well (each must be in host_scale)
calib="1 10"
while getopts b:s:q:S: o; do
	case $o in
	b) b=$OPTARG ;;
	s) s=$OPTARG ;;
	q) q=$OPTARG ;;
	S) steps=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- 6.12 7.2
out=$s/bench/results
mkdir -p "$out"
cache=${PAGEOUTD_VM_CACHE:-$s/tests/vm/cache}
# pageoutd's own CPU per cycle, natively on this machine (bench/host/cycle.c): the guest's CPU
# times include the emulation; this one is the figure a real machine sees
has() { case " $steps " in *" $1 "*) true ;; *) false ;; esac; }
# bench/host/cycle in the guest: the same code natively and under TCG gives the emulation
# factor the guest's CPU figures are divided by (report.py, watch.py); it is measured three
# times in the boot (at the start, after the first step, at the end), and each verdict takes
# the smallest of the three factors, the most CPU it could mean natively
cal="" tables=""
if has scale || has watch; then cal=" && ./cycle $calib" tables="host_scale"; fi
cmd="true$cal" mid=$cal
has quality && cmd="$cmd && ./bench quality $q$mid" tables="$tables quality quality_end" mid=""
has apply && cmd="$cmd && ./bench apply$mid" tables="$tables apply" mid=""
has scale && cmd="$cmd && ./bench scale $scale$mid" tables="$tables scale" mid=""
# what watching costs, derived intervals against fixed ones (bench/watch.py)
has watch && cmd="$cmd && ./bench watch $watch$mid" tables="$tables watch watch_speed" mid=""
# the app lifecycle of tests/vm/guest/vm-android with the shipped cached-apps.conf
has android && cmd="$cmd && ./bench android $android_steps" tables="$tables android"
# warm sets beside cold ones: the memory of mistakes against the back-off alone and DAMOS
has warm && cmd="$cmd && ./bench warm $warm_secs" tables="$tables warm warm_end"
cmd="$cmd$cal"
has scale && echo "bench: host cycle cost (scale $host_scale, native, emulated DAMON tree)"
# shellcheck disable=SC2086
if ! has scale; then
	:
elif "$b/bench/host/cycle" $host_scale >"$out/host.log" 2>&1; then
	{
		grep "^BENCH,host_scale_head," "$out/host.log" | cut -d, -f3-
		grep "^BENCH,host_scale," "$out/host.log" | cut -d, -f3-
	} >"$out/host_scale.csv"
else
	echo "bench: the host cycle bench failed (it needs root and a memory cgroup):" >&2
	cat "$out/host.log" >&2
	rm -f "$out/host_scale.csv"
fi
rm -f "$out/host.log"
# provenance: each step's figures of a kernel name the commit (-dirty: with uncommitted
# changes), the date and the command that measured them, one line per step in
# provenance-KERNEL.txt (a step left out keeps its line); report.py prints them
commit=$(git -C "$s" describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)
for k in "$@"; do
	pf=$out/provenance-$k.txt
	touch "$pf"
	for st in $steps; do
		grep -v "^$st " "$pf" >"$pf.tmp" || true
		echo "$st $commit $(date -u +%Y-%m-%d) bench/run.sh -q $q -S $st $k" \
			"(BENCH_SCALE='$scale' BENCH_WATCH='$watch')" >>"$pf.tmp"
		mv "$pf.tmp" "$pf"
	done
	log=$out/guest-$k.log
	[ "$steps" = android ] && log=$out/guest-android-$k.log
	echo "bench: booting $k ($steps; quality ${q} s per method, scale $scale, watch $watch)"
	"$s/tests/vm/boot.sh" -k "$k" -C "$cache" -t 3000 -m "$mem" -f "$b/pageoutd" -f "$b/bench/guest/bench" \
		-f "$b/bench/host/cycle" -f "$s/conf/android/cached-apps.conf" \
		-- "$cmd" >"$log" 2>&1 ||
		{ echo "bench: the $k guest failed; see $log" >&2; tail -20 "$log" >&2; exit 1; }
	for t in $tables; do
		{
			grep "^BENCH,${t}_head," "$log" | head -1 | cut -d, -f3-
			grep "^BENCH,$t," "$log" | cut -d, -f3-
		} >"$out/$t-$k.csv"
	done
	# the emulation factor of this boot, for each step that judges by it
	has watch && cp "$out/host_scale-$k.csv" "$out/calib_watch-$k.csv"
	if has scale || has watch; then
		has scale && mv "$out/host_scale-$k.csv" "$out/calib-$k.csv"
		rm -f "$out/host_scale-$k.csv"
	fi
	# quality_end has no head line of its own
	has quality && {
		echo "method,cold_pct,hot_out_pct,hot_refault_pct,saved_kb,other_kb,t95_s"
		grep "^BENCH,quality_end," "$log" | cut -d, -f3-
	} >"$out/quality_end-$k.csv"
done
# the summary covers every kernel with results in $out, not only the ones booted now: a run of
# some steps or kernels keeps the others' figures
kernels=$(cd "$out" && for c in quality_end-*.csv android-*.csv warm_end-*.csv; do
	[ -f "$c" ] && c=${c%.csv} && echo "${c##*-}"
done | sort -u)
# shellcheck disable=SC2086
python3 "$s/bench/report.py" "$out" "$q" $kernels
# shellcheck disable=SC2086
python3 "$s/bench/watch.py" "$out" $(cd "$out" && for c in watch-*.csv; do
	[ -f "$c" ] && c=${c%.csv} && echo "${c#watch-}"
done)
if command -v gnuplot >/dev/null; then
	for k in "$@"; do
		has quality || continue
		gnuplot -e "dir='$s/bench'; csv='$out/quality-$k.csv'; png='$out/quality-cold-$k.png'; col=3; ttl='cold memory reclaimed (%), $k'" "$s/bench/quality.gp"
		gnuplot -e "dir='$s/bench'; csv='$out/quality-$k.csv'; png='$out/quality-hot-$k.png'; col=5; ttl='hot set refaulted (% of hot pages), $k'" "$s/bench/quality.gp"
	done
	for k in "$@"; do
		has warm || continue
		gnuplot -e "dir='$s/bench'; csv='$out/warm-$k.csv'; png='$out/warm-$k.png'; ttl='warm sets (32 MiB read every 6 s) beside cold ones, min_age 3 s, $k'" "$s/bench/warm.gp"
	done
	for k in "$@"; do
		has scale || continue
		gnuplot -e "dir='$s/bench'; csv='$out/scale-$k.csv'; png='$out/scale-$k.png'; ttl='pageoutd CPU per 5 s cycle, $k guest (TCG)'" "$s/bench/scale.gp"
	done
	for k in "$@"; do
		has watch || continue
		gnuplot -e "dir='$s/bench'; csv='$out/watch_plot-$k.csv'; png='$out/watch-$k.png'; ttl='kdamond + pageoutd CPU per 5 s cycle, $k guest (TCG), vaddr'" "$s/bench/watch.gp"
	done
	has scale && [ -f "$out/host_scale.csv" ] &&
		gnuplot -e "dir='$s/bench'; csv='$out/host_scale.csv'; png='$out/host_scale.png'; host=1; ttl='pageoutd CPU per cycle, natively on the bench host'" "$s/bench/scale.gp"
else
	echo "bench: gnuplot not found (Debian: gnuplot-nox): no plots" >&2
fi
echo "bench: results in $out/README.md"
