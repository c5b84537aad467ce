# SPDX-License-Identifier: GPL-2.0-or-later
# mirror.sh, sourced by kernel.sh and rootfs.sh: debian_mirror prints the URI of the first
# non-security Debian source in this machine's apt sources (deb822 .sources first, then the
# one-line .list files), so that no mirror host is written into the harness.
debian_mirror() {
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		awk 'BEGIN { RS = ""; FS = "\n" }
		     { uri = ""; suites = ""
		       for (i = 1; i <= NF; i++) {
			 if ($i ~ /^URIs:/) { sub(/^URIs:[ \t]*/, "", $i); split($i, u, " "); uri = u[1] }
			 if ($i ~ /^Suites:/) suites = $i }
		       if (uri != "" && suites !~ /security/) { print uri; exit } }' "$f"
	done
	cat /etc/apt/sources.list.d/*.list /etc/apt/sources.list 2>/dev/null |
		sed -n 's/^deb \(\[[^]]*\] \)\{0,1\}\([^ ]*\) \([^ ]*\).*/\2 \3/p' |
		grep -v security | awk '{ print $1 }'
}
