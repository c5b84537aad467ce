#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh -s SRCDIR -b BUILDDIR -t SECONDS [TARGET...]: build the libFuzzer targets with clang
# (ASan + UBSan, any report fatal) and run each for SECONDS from its seed corpus in
# tests/fuzz/corpus/TARGET, all side by side. Exits non-zero when a target crashes, leaks or
# trips a sanitizer; the input that did it is kept as BUILDDIR/tests/fuzz/crash-TARGET-*.
set -eu
s=. b=. t=60
while getopts s:b:t: o; do
	case $o in
	s) s=$OPTARG ;;
	b) b=$OPTARG ;;
	t) t=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- config request damon
CC=${FUZZ_CC:-clang}
command -v "$CC" >/dev/null || { echo "fuzz: $CC not found (Debian: clang libclang-rt-14-dev)" >&2; exit 1; }
libs="inih libcgroup"
grep -q '^#define HAVE_SYSTEMD 1' "$b/config.h" && libs="$libs libsystemd"
# the library's sources, as Makefile.am lists them for src/libpageoutd.a
srcs=$(sed -n '/^src_libpageoutd_a_SOURCES/,/[^\\]$/p' "$s/Makefile.am" | tr ' \t\\' '\n\n\n' |
	sed -n 's|^src/\(.*\)\.c$|\1|p' | tr '\n' ' ')
[ -n "$srcs" ] || { echo "fuzz: no sources found in Makefile.am" >&2; exit 1; }
out="$b/tests/fuzz"
mkdir -p "$out"
for target in "$@"; do
	case $target in
	*[!a-z0-9_]* | "") echo "fuzz: bad target name '$target'" >&2; exit 2 ;;
	esac
done
# pageoutd's sources and the fake DAMON tree, compiled once for every target (one job per core,
# instrumented as -fsanitize=fuzzer instruments them), then each target linked with them;
# then the targets run side by side: each gets SECONDS of wall time
# shellcheck disable=SC2086
cflags="-std=gnu11 -g -O1 -fno-sanitize-recover=all -Wall -Wextra -Werror -Wno-unused-parameter
	-Wno-missing-field-initializers -I$b -I$s/include ${FUZZ_CPPFLAGS:-} $(pkg-config --cflags $libs)"
obj="$out/obj"
mkdir -p "$obj"
jobs=$(nproc 2>/dev/null || echo 1)
objs="" pids="" n=0 failed=0
for f in $srcs lib/fakedamon; do
	case $f in
	lib/*) src="$s/tests/$f.c" ;;
	*) src="$s/src/$f.c" ;;
	esac
	o="$obj/$(basename "$f").o"
	objs="$objs $o"
	# shellcheck disable=SC2086
	"$CC" $cflags -fsanitize=fuzzer-no-link,address,undefined -c -o "$o" "$src" &
	pids="$pids $!"
	n=$((n + 1))
	if [ $n -ge "$jobs" ]; then
		for p in $pids; do wait "$p" || failed=1; done
		pids="" n=0
	fi
done
for p in $pids; do wait "$p" || failed=1; done
[ $failed = 0 ] || { echo "fuzz: compiling pageoutd's sources failed" >&2; exit 1; }
for target in "$@"; do
	# shellcheck disable=SC2046,SC2086
	"$CC" $cflags -fsanitize=fuzzer,address,undefined -o "$out/fuzz-$target" \
		"$s/tests/fuzz/fuzz-$target.c" $objs $(pkg-config --libs $libs)
done
for target in "$@"; do
	work="$out/corpus-$target"
	mkdir -p "$work"
	echo "fuzz: $target for ${t}s (seeds: $(ls "$s/tests/fuzz/corpus/$target" | wc -l))"
	"$out/fuzz-$target" -max_total_time="$t" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$out/crash-$target-" "$work" "$s/tests/fuzz/corpus/$target" \
		>"$out/fuzz-$target.log" 2>&1 &
	eval "pid_$target=$!"
done
status=0
for target in "$@"; do
	if eval wait "\$pid_$target"; then
		echo "fuzz: $target: $(grep -E '^stat::number_of_executed_units' "$out/fuzz-$target.log")"
	else
		status=1
		echo "fuzz: $target FAILED; the input is in $out/crash-$target-*; the report:"
		grep -A40 -E '^==[0-9]+==|runtime error|SUMMARY' "$out/fuzz-$target.log" | head -60
	fi
done
exit $status
