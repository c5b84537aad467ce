#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Every #include "pageoutd/x.h" in src/ and include/pageoutd/ must respect the layer matrix of
# STYLE.md. The daemon (its state and cycle) sits above the engines and the reports; control
# (the socket's requests) asks the daemon, never the other way round; main wires them all. The
# vaddr engine's target registry (vtarget) never sees the engine. config includes nothing of
# its own layer but sampling, the intervals it derives from the policies it read.
. "$top_srcdir/tests/lib/common.sh"
layer() {
	case $1 in
	util|log) echo 0 ;; config|sampling|proto|vrange|kpod) echo 1 ;;
	cgroup|cgstat|cfgwatch|damon|dmodule|madvise|stats|loop|vma|vmemo|vplan) echo 2 ;;
	policy|pscheme|engine|vtarget|vaddr|paddr) echo 3 ;;
	server|ctl|report) echo 4 ;; daemon) echo 5 ;; control) echo 6 ;; main) echo 7 ;;
	*) echo 9 ;;
	esac
}
for f in "$top_srcdir"/src/*.c "$top_srcdir"/include/pageoutd/*.h; do
	m=$(basename "$f"); m=${m%.[ch]}; lm=$(layer "$m")
	bad=""
	for inc in $(sed -n 's/^#include "pageoutd\/\(.*\)\.h"/\1/p' "$f"); do
		li=$(layer "$inc")
		[ "$inc" = "$m" ] && continue
		# a module may include its own layer or lower ones; server never DAMON
		if [ "$li" -gt "$lm" ] || { [ "$m" = server ] && [ "$inc" = damon ]; } ||
		   { [ "$m" = config ] && [ "$li" -ge 1 ] && [ "$inc" != sampling ]; } ||
		   { [ "$m" = vtarget ] && [ "$inc" = vaddr ]; }; then bad="$bad $inc"; fi
	done
	[ -z "$bad" ]; ok $? "${f#"$top_srcdir"/} includes only allowed layers${bad:+ (violations:$bad)}"
done
tap_end
