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
# a key of one engine (VADDR_ONLY, PADDR_ONLY in the table) says so where it is documented
all_only=""
for e in vaddr paddr; do
	E=$(echo "$e" | tr a-z A-Z)
	only=$(sed -n "s/^\t{ \"\([a-z_]*\)\", K_.*, ${E}_ONLY },\$/\1/p" "$top_srcdir/src/config.c")
	all_only="$all_only$only"
	for k in $only; do
		grep -q "^\.BR $k \" (default [^,]*, $e only)\"\$" "$conf5"
		ok $? "pageoutd.conf(5) marks $k as $e only"
	done
done
[ -n "$all_only" ]; ok $? "config.c has keys of one engine only"
[ "$(grep -c '^\.BR [a-z_]* " (default [^,]*, [pv]addr only)"$' "$conf5")" = \
	"$(grep -c '^	{ "[a-z_]*", K_.*, [PV]ADDR_ONLY },$' "$top_srcdir/src/config.c")" ]
ok $? "pageoutd.conf(5) marks no other key as one engine's"
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
reqs=$(sed -n 's/^#define PROTO_REQ_\([A-Z]*\) "\([a-z]*\)".*/\1:\2/p' "$top_srcdir/include/pageoutd/proto.h")
[ -n "$reqs" ]; ok $? "request words found in proto.h"
for q in $reqs; do
	R=${q%%:*} r=${q#*:}
	grep -q "{ PROTO_REQ_$R," "$top_srcdir/src/control.c" && grep -q "^\.Li $r" "$ctl8"
	ok $? "request $r is served and documented in pageoutctl(8)"
done
tap_end
