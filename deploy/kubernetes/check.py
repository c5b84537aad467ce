#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What deploy/kubernetes and README.md, "Running on a cluster", say holds, offline (TAP): the
YAML parses into the objects named; the DaemonSet has the node's PIDs, the capabilities the
systemd unit keeps but CAP_CHOWN and no others, no privileged mode, the host paths and the
mounts the configuration names, resources, the probe, the priority and tolerations; the
image tag is the package's version; the metrics port and path are the sidecar's; the
ConfigMaps, laid out as the kubelet does, are a configuration pageoutd --check-config
accepts, with every policy; kubectl kustomize builds the directory where kubectl runs
without a cluster. Run by make check (TESTS) and make check-deploy."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

srcdir = os.environ.get("top_srcdir") or os.path.join(os.path.dirname(__file__), "..", "..")
builddir = os.environ.get("top_builddir") or srcdir
here = os.path.join(srcdir, "deploy", "kubernetes")
sys.path.insert(0, here)
sys.dont_write_bytecode = True
import extract  # noqa: E402

n = 0
failed = 0


def ok(cond, what, diag=None):
    global n, failed
    n += 1
    print(("ok" if cond else "not ok") + f" {n} - {what}")
    if not cond:
        failed += 1
        if diag:
            print("\n".join("# " + line for line in str(diag).splitlines()))
    return cond


def version():
    """configure's version, from config.h (the package's and the image's)."""
    with open(os.path.join(builddir, "config.h")) as f:
        return re.search(r'#define PACKAGE_VERSION "([^"]*)"', f.read()).group(1)


def unit_caps():
    """The capabilities pageoutd.service keeps, without CAP_."""
    with open(os.path.join(srcdir, "systemd", "pageoutd.service.in")) as f:
        line = re.search(r"^CapabilityBoundingSet=(.*)$", f.read(), re.M).group(1)
    return {c.removeprefix("CAP_") for c in line.split()}


def ini(text):
    """key = value pairs of a pageoutd.conf text, comments dropped."""
    kv = {}
    for line in text.splitlines():
        line = re.split(r"(^|\s)[#;]", line)[0].strip()
        if "=" in line:
            k, v = line.split("=", 1)
            kv[k.strip()] = v.strip()
    return kv


with open(os.path.join(here, "pageoutd.yaml")) as f:
    docs = [d for d in yaml.safe_load_all(f) if d]
ok(all("apiVersion" in d and "kind" in d and d.get("metadata", {}).get("name") for d in docs),
   "pageoutd.yaml parses; every object has apiVersion, kind and a name")
kinds = sorted((d["kind"], d["metadata"]["name"]) for d in docs)
ok(kinds == [("ConfigMap", "pageoutd-config"), ("ConfigMap", "pageoutd-policies"),
             ("DaemonSet", "pageoutd"), ("Namespace", "pageoutd")],
   "a Namespace, two ConfigMaps and a DaemonSet", kinds)
ok(all(d["metadata"].get("namespace") == "pageoutd" for d in docs if d["kind"] != "Namespace"),
   "all in namespace pageoutd")
ns = next(d for d in docs if d["kind"] == "Namespace")
ok(ns["metadata"]["labels"].get("pod-security.kubernetes.io/enforce") == "privileged",
   "the namespace admits hostPID and hostPath pods (pod security level privileged)")
ds = next(d for d in docs if d["kind"] == "DaemonSet")
ok(ds["apiVersion"] == "apps/v1", "DaemonSet is apps/v1")
tmpl = ds["spec"]["template"]
spec = tmpl["spec"]
ok(ds["spec"]["selector"]["matchLabels"].items() <= tmpl["metadata"]["labels"].items(),
   "the selector matches the pod template's labels")
ok(spec.get("hostPID") is True, "hostPID: true")
ok(not spec.get("hostNetwork") and not spec.get("hostIPC"), "no hostNetwork, no hostIPC")
ok(spec.get("priorityClassName") == "system-node-critical", "priorityClassName system-node-critical")
ok({"operator": "Exists"} in spec.get("tolerations", []), "tolerates every taint")
ok(spec.get("automountServiceAccountToken") is False, "no service account token")
ctrs = {c["name"]: c for c in spec["containers"]}
ok(sorted(ctrs) == ["metrics", "pageoutd"], "containers pageoutd and metrics", sorted(ctrs))
p, m = ctrs["pageoutd"], ctrs["metrics"]
sc = p["securityContext"]
caps = sc["capabilities"]
ok(caps.get("drop") == ["ALL"], "pageoutd drops every capability")
want = unit_caps() - {"CHOWN"}
ok(set(caps.get("add", [])) == want and len(caps["add"]) == len(want),
   f"pageoutd adds {' '.join(sorted(want))}: the unit's but CHOWN", caps.get("add"))
ok(sc.get("privileged") is False, "pageoutd is not privileged")
ok(sc.get("readOnlyRootFilesystem") is True, "pageoutd's root is read-only")
ok(sc.get("runAsUser") == 0, "pageoutd runs as uid 0 (DAMON's files are root's, mode 0600)")
# the API refuses allowPrivilegeEscalation: false with CAP_SYS_ADMIN or privileged
ok(not ("SYS_ADMIN" in caps.get("add", []) and sc.get("allowPrivilegeEscalation") is False),
   "no allowPrivilegeEscalation: false beside SYS_ADMIN (the API refuses it)")
msc = m["securityContext"]
ok(msc["capabilities"] == {"drop": ["ALL"]} and msc.get("allowPrivilegeEscalation") is False
   and msc.get("readOnlyRootFilesystem") is True and not msc.get("privileged"),
   "the metrics sidecar has no capability, no escalation, a read-only root")
for c in ctrs.values():
    r = c.get("resources", {})
    ok({"cpu", "memory"} <= set(r.get("requests", {})) and "memory" in r.get("limits", {}),
       f"{c['name']}: cpu and memory requests, a memory limit")
    ok(c["image"] == f"pageoutd:{version()}", f"{c['name']}: image pageoutd:{version()}", c["image"])
for probe in ("livenessProbe", "readinessProbe"):
    ok(p.get(probe, {}).get("exec", {}).get("command") == ["/usr/bin/pageoutctl", "status"],
       f"pageoutd's {probe}: pageoutctl status")
with open(os.path.join(srcdir, "Makefile.am")) as f:
    ok(re.search(r"^bin_PROGRAMS = pageoutctl$", f.read(), re.M) is not None,
       "pageoutctl is installed in /usr/bin (bin_PROGRAMS)")

vols = {v["name"]: v for v in spec["volumes"]}
mounts = {mt["name"]: mt for mt in p["volumeMounts"]}
used = {mt["name"] for c in ctrs.values() for mt in c.get("volumeMounts", [])}
ok(used == set(vols), "every volume is mounted and every mount has a volume", (used, set(vols)))


def host_mount(name, host, path, ro):
    v, mt = vols.get(name, {}), mounts.get(name, {})
    ok(v.get("hostPath", {}).get("path") == host and mt.get("mountPath") == path
       and bool(mt.get("readOnly")) == ro,
       f"{host} mounted at {path}, {'read-only' if ro else 'read-write'}", (v, mt))


host_mount("damon", "/sys/kernel/mm/damon", "/sys/kernel/mm/damon", False)
host_mount("cgroup", "/sys/fs/cgroup", "/sys/fs/cgroup", True)
host_mount("run", "/run/pageoutd", "/run/pageoutd", False)
ok(all(v.get("hostPath", {}).get("path") in ("/sys/kernel/mm/damon", "/sys/fs/cgroup",
                                             "/run/pageoutd")
       for v in vols.values() if "hostPath" in v), "no other host path")
ok([mt for mt in m["volumeMounts"] if mt["name"] == "run"][0].get("readOnly") is True,
   "the sidecar mounts /run/pageoutd read-only")

# the configuration the DaemonSet names is the ConfigMaps'
args = dict(a.split("=", 1) for a in p["args"])
cms = {d["metadata"]["name"]: d["data"] for d in docs if d["kind"] == "ConfigMap"}
cmount = {mounts[k]["mountPath"]: vols[k]["configMap"]["name"] for k in mounts
          if "configMap" in vols[k]}
cfgdir, cfgfile = os.path.split(args.get("--config", ""))
ok(cfgdir in cmount and cfgfile in cms[cmount[cfgdir]],
   "--config is a key of a mounted ConfigMap", args)
ok(args.get("--config-dir") in cmount and args["--config-dir"] != cfgdir,
   "--config-dir is another mounted ConfigMap's directory", args)
policies = cms[cmount.get(args.get("--config-dir"), "")] if args.get("--config-dir") in cmount else {}
ok(policies and all(k.endswith(".conf") for k in policies), "every policy key ends in .conf",
   list(policies))
conf = ini(cms[cmount[cfgdir]][cfgfile]) if cfgdir in cmount else {}
ok(conf.get("socket", "/run/pageoutd/pageoutd.sock") == "/run/pageoutd/pageoutd.sock",
   "the socket is where pageoutctl looks (/run/pageoutd/pageoutd.sock), in the run mount")
ok(conf.get("state_dir", "/run/pageoutd") == mounts["run"]["mountPath"],
   "state_dir is the run mount (the kdamond record outlives the pod)")
ok(conf.get("sysfs_root", "/sys/kernel/mm/damon/admin").startswith(
    mounts["damon"]["mountPath"] + "/"), "sysfs_root lies in the DAMON mount")
# the sidecar reads the socket without root: socket_group is its group, which pageoutd runs
# in, so that handing the socket to it needs no CAP_CHOWN
msc_ids = (msc.get("runAsUser"), msc.get("runAsGroup"))
ok(msc.get("runAsNonRoot") is True and msc_ids[0] not in (None, 0) and msc_ids[1] not in (None, 0),
   "the metrics sidecar runs as a non-root uid and group", msc_ids)
ok(conf.get("socket_group") == str(msc_ids[1]) and sc.get("runAsGroup") == msc_ids[1],
   "socket_group is the sidecar's runAsGroup and pageoutd's (no CAP_CHOWN needed)",
   (conf.get("socket_group"), sc.get("runAsGroup"), msc_ids[1]))

# the metrics sidecar: port and path of the annotations, the CGI build.sh installs
ann = tmpl["metadata"]["annotations"]
port = next(pt for pt in m["ports"] if pt["name"] == "metrics")["containerPort"]
ok(ann.get("prometheus.io/scrape") == "true" and ann.get("prometheus.io/port") == str(port),
   f"the scrape annotations name the sidecar's port {port}")
cmd = m["command"]
home = cmd[cmd.index("-h") + 1]
ok(cmd[:2] == ["/bin/busybox", "httpd"] and "-f" in cmd and cmd[cmd.index("-p") + 1] == str(port),
   "the sidecar runs busybox httpd in the foreground on that port", cmd)
with open(os.path.join(srcdir, "deploy", "image", "rootfs.sh")) as f:
    ok(f'"$root{home}{ann["prometheus.io/path"]}"' in f.read(),
       f"the image installs the CGI at {home}{ann['prometheus.io/path']}")

# pageoutd --check-config on the ConfigMaps, laid out as the kubelet does
pageoutd = os.path.join(builddir, "pageoutd")
with tempfile.TemporaryDirectory() as t:
    for path, data in extract.configmap_mounts(docs):
        extract.write_volume(t, path, data)
    r = subprocess.run([pageoutd, "--check-config", "-c", t + args["--config"],
                        "-d", t + args["--config-dir"]], capture_output=True, text=True)
    ok(r.returncode == 0, "pageoutd --check-config accepts the ConfigMaps' configuration",
       r.stdout + r.stderr)
    for name in policies:
        pol = name.removesuffix(".conf")
        ok(re.search(rf"^policy {re.escape(pol)}: ", r.stdout, re.M) is not None,
           f"and reads policy {pol}", r.stdout)

# README.md says what the DaemonSet is given
with open(os.path.join(srcdir, "README.md")) as f:
    readme = f.read()
sec = readme.split("## Running on a cluster", 1)[1].split("\n## ", 1)[0] if \
    "## Running on a cluster" in readme else ""
ok(sec != "", "README.md has a section Running on a cluster")
for c in sorted(want):
    ok(f"CAP_{c}" in sec, f"which names CAP_{c}")
ok("hostPID" in sec and "system-node-critical" in sec, "and hostPID and the priority class")

kubectl = shutil.which("kubectl")
if kubectl:
    r = subprocess.run([kubectl, "kustomize", here], capture_output=True, text=True)
    if r.returncode == 0:
        built = [d for d in yaml.safe_load_all(r.stdout) if d]
        ok(sorted((d["kind"], d["metadata"]["name"]) for d in built) == kinds,
           "kubectl kustomize builds the same objects")
    else:
        ok(False, f"kubectl kustomize builds the directory: {r.stderr.strip()[:200]}")
else:
    n += 1
    print(f"ok {n} - # SKIP no kubectl")
print(f"1..{n}")
sys.exit(1 if failed else 0)
