#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Man pages lint clean and pageoutd.conf(5) documents every key of the key tables.
. "$top_srcdir/tests/lib/common.sh"
command -v mandoc >/dev/null || skip_all "mandoc not installed"
for m in "$top_srcdir"/man/*.[0-9]; do
	out=$(mandoc -Tlint -Wwarning "$m" 2>&1); ok $? "mandoc -Tlint $(basename "$m")"
	[ -n "$out" ] && diag "$out"
done
conf5="$top_srcdir/man/pageoutd.conf.5"
keys=$(sed -n 's/^\t{ "\([a-z_]*\)", K_.*/\1/p' "$top_srcdir/src/config.c")
[ -n "$keys" ]; ok $? "key tables found in config.c"
for k in $keys; do
	grep -Eq "^\.BR? (.*[ \"])?$k([ \"]|\$)" "$conf5"; ok $? "pageoutd.conf(5) documents $k"
done
for k in $keys; do
	grep -q "^#\?$k = \|^$k = " "$top_srcdir"/conf/pageoutd.conf "$top_srcdir"/conf/conf.d/*.conf "$top_srcdir"/conf/android/*.conf
	ok $? "an example in conf/ shows $k"
done
ctl8="$top_srcdir/man/pageoutctl.8"
cmds=$(sed -n 's/^\t{ "\([a-z-]*\)", "[^"]*", .*/\1/p' "$top_srcdir/src/ctl.c")
[ -n "$cmds" ]; ok $? "command table found in ctl.c"
for c in $cmds; do
	grep -q "^\.It Cm $c\( \|\$\)" "$ctl8"; ok $? "pageoutctl(8) documents $c"
done
for r in stats metrics status detail policies version help reload pause resume; do
	R=$(echo "$r" | tr a-z A-Z)
	grep -q "\] = \"$r\"" "$top_srcdir/src/report.c" &&
		grep -q "case REQ_$R:" "$top_srcdir/src/main.c" &&
		grep -q "^\.Li $r" "$ctl8"
	ok $? "request $r is served and documented in pageoutctl(8)"
done
tap_end
