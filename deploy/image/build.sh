#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# build.sh -p PACKAGE.deb -o IMAGE.tar [-t TAG] [-k]: an OCI image of pageoutd, built from the
# Debian package and nothing else: mmdebstrap extracts into a bookworm root the libraries the
# package depends on, and busybox for the metrics sidecar, from the Debian mirror of this
# machine's apt sources; rootfs.sh adds the package and drops what a container never uses;
# umoci makes the image of it, one layer, saved as an OCI archive (a tar of an OCI layout:
# skopeo copy oci-archive:IMAGE.tar ..., podman load -i IMAGE.tar). No base image, no registry.
# Root, or mmdebstrap's unshare mode where unprivileged user namespaces work. -k keeps the
# unpacked image beside the archive, in IMAGE.tar.d/ (deploy/image/check.sh reads it).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
deb="" out="" tag="" keep=0
while getopts p:o:t:k o; do
	case $o in
	p) deb=$OPTARG ;;
	o) out=$OPTARG ;;
	t) tag=$OPTARG ;;
	k) keep=1 ;;
	*) exit 64 ;;
	esac
done
[ -f "$deb" ] && [ -n "$out" ] || {
	echo "usage: build.sh -p PACKAGE.deb -o IMAGE.tar [-t TAG] [-k]" >&2
	exit 64
}
for t in mmdebstrap umoci dpkg-deb; do
	command -v $t >/dev/null || { echo "build.sh: $t missing (.ci/deps installs it)" >&2; exit 2; }
done
deb=$(cd "$(dirname "$deb")" && pwd)/$(basename "$deb")
[ -n "$tag" ] || tag=$(dpkg-deb -f "$deb" Version)
arch=$(dpkg-deb -f "$deb" Architecture)
# the package's library dependencies, installed from the mirror before the package itself
deps=$(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed -n 's/^ *\(lib[^ |]*\).*/\1/p' | paste -sd, -)
. "$here/../../tests/vm/mirror.sh"
uri=$(debian_mirror | head -n 1)
[ -n "$uri" ] || { echo "build.sh: no Debian mirror in this machine's apt sources" >&2; exit 1; }
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
mode=root rootless=
[ "$(id -u)" = 0 ] || { mode=unshare; rootless=--rootless; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/pageoutd-image.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
root=$tmp/rootfs
# Only what pageoutd runs on: its libraries and their dependencies, and busybox (httpd and sh for
# the metrics sidecar, deploy/kubernetes), extracted (variant extract: no maintainer scripts,
# nothing else of Debian's Essential set, no shell but busybox's), then the package itself.
# Its maintainer scripts are for a host (the group pageoutd, the units): a container needs
# neither. /var/lib/dpkg/status lists what the image holds, for image scanners. Copyright
# files stay; documentation, locales and the units go.
echo "build.sh: bookworm root for $deb (mmdebstrap --mode=$mode)" >&2
mmdebstrap --mode=$mode --variant=extract --architectures="$arch" \
	--include="$deps,busybox" \
	--aptopt='APT::Install-Recommends "false"' \
	--dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
	--dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*' \
	--dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/lintian/*' \
	--skip=cleanup/apt/cache \
	bookworm "$root" "deb [signed-by=$keyring] $uri bookworm main" >&2
# variant extract runs no customize hook; the packages extracted are left in the apt cache
sh "$here/rootfs.sh" "$root" "$deb"

# The image: one layer of that root; pageoutd in the foreground (log lines on stderr, the
# socket and the kdamond record in /run/pageoutd), stopped with SIGTERM (its kdamonds off).
layout=$tmp/oci
umoci init --layout "$layout"
umoci new --image "$layout:$tag"
umoci insert $rootless --image "$layout:$tag" --history.created_by "build.sh: $(basename "$deb")" \
	"$root" /
umoci config --image "$layout:$tag" --os linux --architecture "$arch" \
	--config.entrypoint /usr/sbin/pageoutd --config.entrypoint --foreground \
	--config.workingdir / --config.stopsignal SIGTERM \
	--config.label org.opencontainers.image.title=pageoutd \
	--config.label org.opencontainers.image.version="$tag" \
	--config.label org.opencontainers.image.description="Proactive memory reclaim driven by DAMON, per cgroup" \
	--config.label org.opencontainers.image.licenses=GPL-2.0-or-later
umoci gc --layout "$layout"
mkdir -p "$(dirname "$out")"
tar -C "$layout" --sort=name --owner=0 --group=0 --numeric-owner -cf "$out.tmp" .
mv "$out.tmp" "$out"
if [ $keep = 1 ]; then
	rm -rf "$out.d"
	mv "$layout" "$out.d"
fi
echo "build.sh: $out, tag $tag, $(du -k "$out" | cut -f1) KiB (rootfs $(du -sk "$root" | cut -f1) KiB unpacked)" >&2
