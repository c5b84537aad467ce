#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# check.sh -i IMAGE.tar [-t TAG]: the OCI archive build.sh made, as a runtime would take it:
# its layout and config (the entry point runs pageoutd in the foreground), then its root
# unpacked with umoci, in which pageoutd and pageoutctl run (chroot; unshare -r chroot without
# root): --version, --check-config on the shipped configuration and on the Kubernetes
# ConfigMaps' (deploy/kubernetes), the metrics CGI answering 503 with no daemon; then, as root,
# the DaemonSet's containers in that root (pod.sh): pageoutd with the ConfigMaps on a read-only
# root, no DAMON tree and no pod cgroup to match, its liveness probe, the sidecar's httpd serving the metrics,
# a ConfigMap edit reloading it. Needs no DAMON, no registry and no container runtime. Run by
# make check-image.
. "$top_srcdir/tests/lib/common.sh"
image="" tag=""
while getopts i:t: o; do
	case $o in
	i) image=$OPTARG ;;
	t) tag=$OPTARG ;;
	*) exit 64 ;;
	esac
done
[ -f "$image" ] || { echo "Bail out! no image $image: run make image"; exit 1; }
command -v umoci >/dev/null || { echo "Bail out! umoci missing (.ci/deps installs it)"; exit 1; }
mktmp
in_root() { # in_root COMMAND...: run COMMAND in the image's root
	if [ "$(id -u)" = 0 ]; then chroot "$T/bundle/rootfs" "$@"; else unshare -r chroot "$T/bundle/rootfs" "$@"; fi
}

mkdir "$T/oci"
tar -C "$T/oci" -xf "$image"; ok $? "the archive is a tar"
[ -n "$tag" ] || tag=$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["manifests"][0]["annotations"]["org.opencontainers.image.ref.name"])' \
	"$T/oci/index.json")
diag "tag $tag"
# the image's config, read from the layout as a runtime would: index, manifest, config
python3 - "$T/oci" "$tag" >"$T/config.out" 2>&1 <<'PY'
import json, sys
d, tag = sys.argv[1], sys.argv[2]
def blob(digest):
    a, h = digest.split(":")
    return json.load(open(f"{d}/blobs/{a}/{h}"))
assert json.load(open(f"{d}/oci-layout"))["imageLayoutVersion"] == "1.0.0", "oci-layout"
m = [m for m in json.load(open(f"{d}/index.json"))["manifests"]
     if m["annotations"]["org.opencontainers.image.ref.name"] == tag]
assert len(m) == 1, f"one manifest tagged {tag}"
man = blob(m[0]["digest"])
assert len(man["layers"]) == 1, "one layer"
cfg = blob(man["config"]["digest"])
c = cfg["config"]
assert cfg["os"] == "linux", cfg["os"]
assert c["Entrypoint"] == ["/usr/sbin/pageoutd", "--foreground"], c["Entrypoint"]
assert not c.get("Cmd"), c.get("Cmd")
assert c["Labels"]["org.opencontainers.image.version"] == tag, c["Labels"]
print("entrypoint", c["Entrypoint"], "architecture", cfg["architecture"])
PY
ok $? "image config: entry point pageoutd --foreground, one layer, tagged $tag"
diag "$(cat "$T/config.out")"

rootless=
[ "$(id -u)" = 0 ] || rootless=--rootless
umoci unpack $rootless --image "$T/oci:$tag" "$T/bundle" >"$T/unpack.out" 2>&1
ok $? "umoci unpack"
[ -s "$T/unpack.out" ] && diag "$(cat "$T/unpack.out")"
python3 -c 'import json, sys
a = json.load(open(sys.argv[1]))["process"]["args"]
assert a == ["/usr/sbin/pageoutd", "--foreground"], a' "$T/bundle/config.json"
ok $? "runtime config: the process is pageoutd --foreground"
for f in /usr/sbin/pageoutd /usr/bin/pageoutctl /bin/busybox /usr/share/pageoutd/metrics/cgi-bin/metrics; do
	[ -x "$T/bundle/rootfs$f" ]; ok $? "in the image: $f"
done
for f in /etc/pageoutd/pageoutd.conf /var/lib/dpkg/status /usr/share/doc/pageoutd/copyright; do
	[ -f "$T/bundle/rootfs$f" ]; ok $? "in the image: $f"
done
[ -d "$T/bundle/rootfs/run/pageoutd" ]; ok $? "in the image: /run/pageoutd/"
grep -qx 'Package: pageoutd' "$T/bundle/rootfs/var/lib/dpkg/status"
ok $? "the image's dpkg status lists pageoutd"
[ ! -e "$T/bundle/rootfs/lib/systemd/system/pageoutd.service" ]; ok $? "no units in the image"

out=$(in_root /usr/sbin/pageoutd --version 2>&1)
ok $? "pageoutd --version runs in the image"
diag "$out"
echo "$out" | grep -q "^pageoutd $tag "; ok $? "and says $tag"
in_root /usr/bin/pageoutctl --help >/dev/null 2>&1; ok $? "pageoutctl --help runs in the image"
in_root /usr/sbin/pageoutd --check-config >"$T/check.out" 2>&1
ok $? "pageoutd --check-config accepts the image's own configuration"
[ -s "$T/check.out" ] || diag "$(cat "$T/check.out")"
# the metrics CGI without a daemon: 503, not an empty 200
out=$(in_root /usr/share/pageoutd/metrics/cgi-bin/metrics 2>&1)
echo "$out" | head -n1 | grep -q '^Status: 503'; ok $? "metrics CGI answers 503 while pageoutd is not there"
diag "$(echo "$out" | head -n1)"
# the ConfigMaps' files, where the DaemonSet mounts them
if python3 "$top_srcdir/deploy/kubernetes/extract.py" "$top_srcdir/deploy/kubernetes/pageoutd.yaml" \
	"$T/bundle/rootfs" >"$T/extract.out" 2>&1; then
	in_root /usr/sbin/pageoutd --check-config -c /etc/pageoutd/config/pageoutd.conf \
		-d /etc/pageoutd/conf.d >"$T/check.out" 2>&1
	ok $? "pageoutd --check-config in the image accepts the ConfigMaps' configuration"
	grep -E '^(error|pageoutd: err)' "$T/check.out" && diag "$(cat "$T/check.out")"
else
	ok 1 "the ConfigMaps' files extracted"; diag "$(cat "$T/extract.out")"
fi
# the DaemonSet's two containers in the image's root, without Kubernetes (root: mounts)
if [ "$(id -u)" != 0 ]; then
	ok 0 "# SKIP the pod in the image's root: not root"
else
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	# the containers' groups and the sidecar's uid, as the DaemonSet gives them
	ids=$(python3 -c 'import sys, yaml
ds = next(d for d in yaml.safe_load_all(open(sys.argv[1])) if d and d["kind"] == "DaemonSet")
c = {x["name"]: x["securityContext"] for x in ds["spec"]["template"]["spec"]["containers"]}
print(c["pageoutd"]["runAsGroup"], c["metrics"]["runAsUser"], c["metrics"]["runAsGroup"])' \
		"$top_srcdir/deploy/kubernetes/pageoutd.yaml")
	set -- $ids
	ds_gid=$1 side_uid=$2
	[ "$side_uid" != 0 ] && [ "$3" = "$side_uid" ] && [ "$ds_gid" = "$side_uid" ]
	ok $? "the DaemonSet: the sidecar is uid and group $side_uid, pageoutd's group is the same"
	unshare -m --propagation private sh "$top_srcdir/deploy/image/pod.sh" "$T/bundle/rootfs" \
		"$port" "$T" "$ds_gid" "$side_uid"
	[ "$(cat "$T/probe.rc" 2>/dev/null)" = 0 ]
	ok $? "pod: pageoutd runs with the ConfigMaps, on a read-only root; pageoutctl status answers"
	diag "$(head -n 3 "$T/status.out" 2>/dev/null)"
	[ "$(cat "$T/sock.ids" 2>/dev/null)" = "660 $ds_gid" ]
	ok $? "pod: the socket is mode 0660, group $ds_gid (socket_group), made without CAP_CHOWN"
	diag "socket: $(cat "$T/sock.ids" 2>/dev/null)"
	awk -v u="$side_uid" '$2 != u || $3 != u || $4 != u || $5 != u { bad = 1 } END { exit bad || NR != 2 }' \
		"$T/httpd.ids" 2>/dev/null
	ok $? "pod: the sidecar runs as uid and group $side_uid, not root"
	head -n 1 "$T/metrics.http" | grep -q '^200 text/plain; version=0.0.4'
	ok $? "pod: the sidecar's GET /cgi-bin/metrics is 200, Prometheus text"
	grep -q '^pageoutd_info{version="'"$tag"'"' "$T/metrics.http"
	ok $? "pod: the metrics are pageoutd's"
	grep -q '^pageoutd_policy_state{policy="burstable",state="[a-z]*"} 1' "$T/metrics.http"
	ok $? "pod: with the ConfigMaps' policies"
	grep -q '^pageoutd_state{state="idle"} 1' "$T/metrics.http"
	ok $? "pod: no pod cgroup here: pageoutd is idle and leaves DAMON alone"
	grep -q '^guaranteed ' "$T/reload.out"
	ok $? "pod: a policy added to the ConfigMap (..data swapped) is read without a signal"
	if [ "$tap_fail" -gt 0 ]; then
		diag "$(head -n 20 "$T/metrics.http")" "$(cat "$T/pageoutd.log")"
	fi
fi
tap_end
