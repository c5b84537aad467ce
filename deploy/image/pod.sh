#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pod.sh ROOT PORT OUT DS_GID SIDECAR_UID: check.sh's pod without Kubernetes, run in a mount namespace of its own
# (unshare -m): in the image's root ROOT, what the DaemonSet (deploy/kubernetes) runs, as it
# runs it. The root read-only, the ConfigMaps (check.sh laid them out) and /run/pageoutd
# writable mounts of their own, the node's /proc, its cgroup tree read-only, and no DAMON tree
# (on a machine without Kubernetes pods no policy matches: pageoutd stays idle and never looks
# for DAMON). pageoutd with the DaemonSet's args, as uid 0 in group DS_GID (its runAsGroup)
# without CAP_CHOWN (dropped from the bounding set, as the DaemonSet drops it); the liveness
# probe; the metrics sidecar's busybox httpd on 127.0.0.1:PORT as uid and group SIDECAR_UID (its
# runAsUser, runAsGroup); then a policy added to the ConfigMap as the kubelet would.
# Writes OUT/status.out, OUT/probe.rc, OUT/metrics.http (the HTTP answer), OUT/sock.ids (the
# socket's mode and group), OUT/httpd.ids (the sidecar's Uid: and Gid: lines), OUT/reload.out
# (status after the edit) and OUT/pageoutd.log; ends what it started.
set -u
root=$1 port=$2 out=$3 ds_gid=$4 side_id=$5
mkdir -p "$root/proc" "$root/sys/fs/cgroup" "$out/vol/run"
# readOnlyRootFilesystem: what pageoutd writes goes to its volumes, or fails
mount --bind "$root" "$root" || exit 1
for v in etc/pageoutd/config etc/pageoutd/conf.d; do
	mkdir -p "$out/vol/$v" && cp -a "$root/$v/." "$out/vol/$v/" &&
		mount --bind "$out/vol/$v" "$root/$v" || exit 1
done
mount --bind "$out/vol/run" "$root/run/pageoutd" || exit 1
mount -o remount,bind,ro "$root" || exit 1
mount -t proc proc "$root/proc" || exit 1
mount --rbind /sys/fs/cgroup "$root/sys/fs/cgroup" &&
	mount -o remount,bind,ro "$root/sys/fs/cgroup" || exit 1
setpriv --bounding-set=-chown chroot --userspec="0:$ds_gid" "$root" /usr/sbin/pageoutd --foreground --config=/etc/pageoutd/config/pageoutd.conf \
	--config-dir=/etc/pageoutd/conf.d >"$out/pageoutd.log" 2>&1 &
daemon=$!
i=0
while [ ! -S "$root/run/pageoutd/pageoutd.sock" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
chroot "$root" /usr/bin/pageoutctl status >"$out/status.out" 2>&1
echo $? >"$out/probe.rc"
stat -c '%a %g' "$root/run/pageoutd/pageoutd.sock" >"$out/sock.ids" 2>&1
chroot --userspec="$side_id:$side_id" "$root" /bin/busybox httpd -f -p "127.0.0.1:$port" \
	-h /usr/share/pageoutd/metrics &
httpd=$!
python3 - "$port" >"$out/metrics.http" 2>&1 <<'PY'
import sys, time, urllib.error, urllib.request
for _ in range(50):
    try:
        r = urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/cgi-bin/metrics", timeout=5)
        print(r.status, r.headers.get("Content-Type"))
        print(r.read().decode())
        break
    except urllib.error.HTTPError as e:
        print(e.code)
        break
    except OSError:
        time.sleep(0.1)
PY
grep -E '^(Uid|Gid):' "/proc/$httpd/status" >"$out/httpd.ids" 2>&1
# kubectl apply of an edited policies ConfigMap, as the kubelet writes it: a new timestamped
# directory, ..data swapped over to it, a link for the new key; pageoutd reloads by itself
d=$root/etc/pageoutd/conf.d
new=..2026_01_01_00_01_00.000000000
mkdir "$d/$new"
cp "$d"/..data/*.conf "$d/$new/"
printf '[policy]\ncgroup = /kubepods.slice/kubepods-pod*.slice\nmemory = file\n' >"$d/$new/guaranteed.conf"
ln -s "$new" "$d/..data_tmp" && mv -T "$d/..data_tmp" "$d/..data"
ln -s ..data/guaranteed.conf "$d/guaranteed.conf"
i=0
while [ $i -lt 50 ]; do
	chroot "$root" /usr/bin/pageoutctl status >"$out/reload.out" 2>&1
	grep -q '^guaranteed ' "$out/reload.out" && break
	sleep 0.1
	i=$((i + 1))
done
kill "$httpd" "$daemon"
wait "$httpd" "$daemon" 2>/dev/null
exit 0
