#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""extract.py MANIFEST ROOT: write the ConfigMaps that the DaemonSet of MANIFEST mounts into
its pageoutd container under ROOT, at their mount paths, as the kubelet lays out a ConfigMap
volume: a timestamped directory, a ..data symlink to it, one symlink per key through ..data.
Prints the mount paths. pageoutd --check-config is then run on them (check.py, and
deploy/image/check.sh inside the image)."""
import os
import sys

import yaml


def configmap_mounts(docs):
    """(mount path, ConfigMap data) for each ConfigMap volume of the pageoutd container."""
    maps = {d["metadata"]["name"]: d.get("data", {}) for d in docs if d["kind"] == "ConfigMap"}
    ds = next(d for d in docs if d["kind"] == "DaemonSet")
    spec = ds["spec"]["template"]["spec"]
    vols = {v["name"]: v["configMap"]["name"] for v in spec["volumes"] if "configMap" in v}
    ctr = next(c for c in spec["containers"] if c["name"] == "pageoutd")
    return [(m["mountPath"], maps[vols[m["name"]]]) for m in ctr["volumeMounts"]
            if m["name"] in vols]


def write_volume(root, path, data):
    """The kubelet's atomic writer: ..TIMESTAMP/KEY, ..data -> ..TIMESTAMP, KEY -> ..data/KEY."""
    d = os.path.join(root, path.lstrip("/"))
    os.makedirs(d, exist_ok=True)
    ts = "..2026_01_01_00_00_00.000000000"
    os.makedirs(os.path.join(d, ts))
    for k, v in data.items():
        with open(os.path.join(d, ts, k), "w") as f:
            f.write(v)
    os.symlink(ts, os.path.join(d, "..data"))
    for k in data:
        os.symlink(os.path.join("..data", k), os.path.join(d, k))


def main():
    with open(sys.argv[1]) as f:
        docs = [d for d in yaml.safe_load_all(f) if d]
    for path, data in configmap_mounts(docs):
        write_volume(sys.argv[2], path, data)
        print(path)


if __name__ == "__main__":
    main()
