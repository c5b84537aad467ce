#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Every #include "pageoutd/x.h" in src/ must respect the layer matrix of STYLE.md.
. "$top_srcdir/tests/lib/common.sh"
layer() {
	case $1 in
	util|log) echo 0 ;; config|proto) echo 1 ;;
	cgroup|cgstat|damon|madvise|stats|loop) echo 2 ;; policy|pscheme|engine|vaddr|paddr) echo 3 ;;
	server|ctl|report) echo 4 ;; main) echo 5 ;; *) echo 9 ;;
	esac
}
for f in "$top_srcdir"/src/*.c; do
	m=$(basename "$f" .c); lm=$(layer "$m")
	bad=""
	for inc in $(sed -n 's/^#include "pageoutd\/\(.*\)\.h"/\1/p' "$f"); do
		li=$(layer "$inc")
		[ "$inc" = "$m" ] && continue
		# a module may include its own layer or lower ones; server never DAMON
		if [ "$li" -gt "$lm" ] || { [ "$m" = server ] && [ "$inc" = damon ]; } ||
		   { [ "$m" = config ] && [ "$li" -ge 1 ]; }; then bad="$bad $inc"; fi
	done
	[ -z "$bad" ]; ok $? "src/$m.c includes only allowed layers${bad:+ (violations:$bad)}"
done
tap_end
