#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The real daemon and its real stats socket on the host, over an emulated DAMON tree:
every request and pageoutctl command, JSON parsed by a JSON parser, metrics checked by
promtool, control refused to a non-root peer, hostile clients (1 MiB, no newline, 200 at
once) that neither stall cycles nor grow memory, sd_notify (READY after the first cycle,
WATCHDOG, STATUS) and socket activation (LISTEN_FDS)."""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

top_src = os.environ.get("top_srcdir", os.path.join(os.path.dirname(__file__), "..", ".."))
top_build = os.environ.get("top_builddir", top_src)
PAGEOUTD = os.path.join(top_build, "pageoutd")
CTL = os.path.join(top_build, "pageoutctl")
n = 0
failed = 0


def ok(cond, what):
    global n, failed
    n += 1
    print(("ok %d - %s" if cond else "not ok %d - %s") % (n, what))
    if not cond:
        failed += 1
    sys.stdout.flush()
    return cond


def skip(what, why):
    global n
    n += 1
    print("ok %d - %s # SKIP %s" % (n, what, why))


def diag(text):
    for line in str(text).splitlines():
        print("# " + line)


def ask(path, req, timeout=5.0):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect(path)
    try:
        s.sendall(req.encode() + b"\n")
    except (BrokenPipeError, ConnectionResetError):
        pass  # a refusal is written before the request is read
    out = b""
    while True:
        try:
            b = s.recv(65536)
        except ConnectionResetError:
            break
        if not b:
            break
        out += b
    s.close()
    return out.decode()


def try_ask(path, req):
    try:
        return ask(path, req, timeout=2)
    except OSError:
        return ""


def ctl(sock, *args):
    p = subprocess.run([CTL, "--socket", sock] + list(args), capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def vm_kb(pid, field):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(field):
                return int(line.split()[1])
    return -1


def rss_kb(pid):
    return vm_kb(pid, "VmRSS:")


def nfds(pid):
    return len(os.listdir("/proc/%d/fd" % pid))


def wait_for(pred, secs=10.0):
    end = time.time() + secs
    while time.time() < end:
        if pred():
            return True
        time.sleep(0.05)
    return False


def main():
    if os.geteuid() != 0:
        print("1..0 # SKIP needs root (socket groups, a non-root peer)")
        return 0
    with_systemd = "+systemd" in subprocess.run([PAGEOUTD, "--version"], capture_output=True,
                                                text=True).stdout
    T = tempfile.mkdtemp(prefix="pageoutd-socket.")
    admin = subprocess.run([os.path.join(top_build, "tests/lib/faketree")], capture_output=True,
                           text=True).stdout.strip()
    procs = []
    # a cgroup for each policy, so that DAMON is taken (a policy that matches nothing does not)
    cgroot = "/sys/fs/cgroup" if os.path.exists("/sys/fs/cgroup/cgroup.controllers") \
        else "/sys/fs/cgroup/memory"
    # the web policy's cgroup is shaped as a Kubernetes pod's (systemd driver): its figures
    # carry the pod UID and QoS class
    pod_uid = "0c9ad4a8-3f5e-4b8e-9d5c-%012d" % os.getpid()
    web_parent = "/pageoutd-socket-test-%d" % os.getpid()
    web_cg = web_parent + "/kubepods-burstable-pod%s.slice" % pod_uid.replace("-", "_")
    vm_cg = "/pageoutd-socket-test-vm-%d" % os.getpid()
    made = []
    try:
        for c in (web_parent, web_cg, vm_cg, vm_cg + "/a"):
            os.mkdir(cgroot + c)
            made.insert(0, cgroot + c)
        # a process that allocates 8 MiB once in vms' cgroup (paddr: its scheme goes to the
        # fake tree, nothing is reclaimed on this host): a working set to report
        worker = subprocess.Popen([sys.executable, "-c", "import sys, time\n"
                                   "sys.stdin.readline()\nx = bytearray(8 << 20)\n"
                                   "print('ready', flush=True)\ntime.sleep(600)"],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        procs.append(worker)
        with open(cgroot + vm_cg + "/a/cgroup.procs", "w") as f:
            f.write(str(worker.pid))
        worker.stdin.write("go\n")
        worker.stdin.flush()
        worker.stdout.readline()
        os.makedirs(T + "/d")
        os.makedirs(T + "/run")
        os.chmod(T, 0o755)
        sock = T + "/run/pageoutd.sock"
        with open(T + "/main.conf", "w") as f:
            f.write("[daemon]\ninterval = 200ms\nsocket = %s\nsocket_group = nogroup\n"
                    "state_dir = %s/run\nreference_semantics = recheck\n[damon]\n"
                    "sysfs_root = %s\n" % (sock, T, admin))
        with open(T + "/d/web.conf", "w") as f:
            f.write("[policy]\ncgroup = %s\nengine = vaddr\n" % web_cg)
        with open(T + "/d/vms.conf", "w") as f:
            f.write("[policy]\ncgroup = %s/*\nengine = paddr\n" % vm_cg)
        # sd_notify: a datagram socket the daemon reports to
        nsock_path = T + "/notify"
        ns = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        ns.bind(nsock_path)
        ns.settimeout(0.2)
        env = dict(os.environ, NOTIFY_SOCKET=nsock_path, WATCHDOG_USEC="400000")
        log = open(T + "/log", "w")
        d = subprocess.Popen([PAGEOUTD, "--foreground", "--log-level", "debug", "-c",
                              T + "/main.conf", "-d", T + "/d"], stderr=log, env=env)
        procs.append(d)
        msgs = []
        end = time.time() + 3
        while time.time() < end:
            try:
                msgs.append(ns.recv(4096).decode())
            except socket.timeout:
                pass
        ns.close()
        text = open(T + "/log").read()
        if with_systemd:
            ready = [i for i, m in enumerate(msgs) if "READY=1" in m]
            ok(ready, "sd_notify: READY=1 is sent")
            status_before = [m for m in msgs[:ready[0] + 1]] if ready else []
            ok(ready and any("STATUS=starting" in m for m in status_before),
               "READY=1 comes after the first cycle (STATUS said it was starting)")
            ok(sum("WATCHDOG=1" in m for m in msgs) >= 3,
               "WATCHDOG=1 keeps coming (%d in 3 s with WatchdogSec 0.4 s)"
               % sum("WATCHDOG=1" in m for m in msgs))
            st = [m for m in msgs if "STATUS=" in m and "policies" in m]
            ok(st, "STATUS= says what it does: %s" % (st[-1].strip() if st else "-"))
        else:
            for w in ("READY", "READY order", "WATCHDOG", "STATUS"):
                skip("sd_notify " + w, "built without systemd")
        asan = "libasan" in subprocess.run(["ldd", PAGEOUTD], capture_output=True,
                                           text=True).stdout
        if asan:
            skip("pageoutd locks its own pages", "ASan turns mlockall into a no-op")
        else:
            ok(wait_for(lambda: vm_kb(d.pid, "VmLck:") > 0, 3),
               "pageoutd locks its own pages (VmLck %d kB)" % vm_kb(d.pid, "VmLck:"))
        ok(os.path.exists(sock), "the socket exists")
        stt = os.stat(sock)
        ok(stt.st_mode & 0o777 == 0o660, "socket mode 0660 (%o)" % (stt.st_mode & 0o777))
        ok(stt.st_gid == 65534, "socket group nogroup (socket_group)")

        # every request
        v = ask(sock, "version")
        ok(v.startswith("pageoutd "), "version: %s" % v.strip())
        pol = ask(sock, "policies")
        ok("web: cgroup=%s engine=vaddr" % web_cg in pol and "vms: " in pol,
           "policies: one line per policy")
        doc = None
        try:
            doc = json.loads(ask(sock, "stats"))
        except ValueError as e:
            diag(e)
        ok(doc is not None, "stats is JSON")
        ok(doc and [p["name"] for p in doc["policies"]] == ["vms", "web"] and
           "skipped_bytes_total" in doc["policies"][1] and "schemes" in doc["policies"][0],
           "stats: both policies, skip reasons (vaddr), schemes (paddr)")
        ok(doc and doc["cycles"] >= 1 and doc["damon_owned"] is True,
           "stats: cycles run, DAMON owned")
        m = ask(sock, "metrics")
        promtool = shutil.which("promtool")
        if ok(promtool is not None, "promtool is installed (Debian package prometheus)"):
            p = subprocess.run([promtool, "check", "metrics"], input=m, capture_output=True,
                               text=True)
            ok(p.returncode == 0, "promtool check metrics passes")
            if p.returncode:
                diag(p.stdout + p.stderr)
        pols = {p["name"]: p for p in doc["policies"]} if doc else {}
        ok(pols and pols["vms"]["processes"] is None and pols["vms"]["cold_bytes"] is None and
           pols["web"]["refaults_total"] is None,
           "stats: what an engine does not know is null (paddr processes, cold bytes; vaddr "
           "refaults)")
        ok(pols and all(p[k] is None or 0 <= p[k] <= 1 for p in pols.values()
                        for k in ("psi_some_avg10_ratio", "refault_rate_ratio")),
           "stats: PSI and refault rate are ratios from 0 to 1, or null")
        ok(pols and (pols["web"]["psi_some_avg10_ratio"] is None) ==
           (pols["vms"]["psi_some_avg10_ratio"] is None),
           "stats: PSI known or null alike for both engines (%s, %s)" %
           (pols.get("web", {}).get("psi_some_avg10_ratio"),
            pols.get("vms", {}).get("psi_some_avg10_ratio")))
        ok('pageoutd_policy_processes{policy="vms"' not in m and
           'pageoutd_cold_bytes{policy="vms"' not in m,
           "metrics: no sample for a figure the engine does not know")
        ok(all((('pageoutd_psi_some_avg10_ratio{policy="%s"' % n) in m) ==
               (pols[n]["psi_some_avg10_ratio"] is not None) for n in pols),
           "metrics: a PSI sample exactly where the JSON has a value")
        vms = pols.get("vms", {})
        ok("binding_limit" in vms and vms["binding_limit"] in (None, "quota_time",
                                                               "pressure_limit",
                                                               "quota_time,pressure_limit") and
           isinstance(vms.get("binding_limit_known"), bool) and
           sorted(vms.get("limit_bound_cycles_total", {})) == ["max_usage", "pressure_limit",
                                                               "quota_time"],
           "stats: the paddr policy's binding limit, known or not, and its cycles per limit")
        ok(vms.get("max_usage_ratio") == 0 and "max_usage_ratio" not in pols.get("web", {}),
           "stats: the paddr policy's max_usage (none), the vaddr policy has none")
        ok('pageoutd_paddr_limit_bound_cycles_total{policy="vms",limit="quota_time"}' in m and
           'pageoutd_paddr_limit_bound_cycles_total{policy="vms",limit="pressure_limit"}' in m and
           'pageoutd_paddr_limit_bound_cycles_total{policy="vms",limit="max_usage"}' in m and
           "pageoutd_paddr_limit_bound_cycles_total{policy=\"web\"" not in m,
           "metrics: the cycles each limit bound, per paddr policy")
        ok("percent" not in m and "ppm" not in m and "_percent" not in m,
           "metrics: ratios, not percent or ppm")
        ok('pageoutd_reclaimed_bytes_total{policy="web",engine="vaddr"}' in m and
           'pageoutd_skipped_bytes_total{policy="web",reason="young"}' in m,
           "metrics: labelled series per policy and reason")
        ok("POLICY" in ask(sock, "status") and "web" in ask(sock, "status"),
           "status: a table")
        ok(doc and doc["reference_semantics"] == "recheck" and
           doc["reference_semantics_from"] == "configured" and doc["confirm_snapshots"] == 2,
           "stats: the reference semantics reported, two snapshots on every kernel")
        ok('pageoutd_info{version="' in m and 'reference_semantics="recheck"' in m and
           'confirm_snapshots="2"' in m,
           "metrics: pageoutd_info labels the reference semantics and snapshots")
        ok("MADV_PAGEOUT re-checks accesses made during the call here (reference_semantics "
           "recheck, configured); ranges are advised after 2 cold snapshots"
           in ask(sock, "status"), "status: says what the kernel does and the snapshots")
        # min_age 30s (the default) on 200 ms cycles: 10 ms samples, 50 ms aggregations (vaddr)
        iv = (doc or {}).get("vaddr", {})
        ok(iv.get("sample_us") == 10000 and iv.get("aggr_us") == 50000 and
           iv.get("intervals_tuned") is False and
           isinstance((doc or {}).get("paddr", {}).get("sample_us"), int),
           "stats: each engine's DAMON intervals in force (%r)" % (
               {k: iv.get(k) for k in ("sample_us", "aggr_us", "intervals_tuned")},))
        ok('pageoutd_damon_sample_seconds{engine="vaddr"} 0.010000' in m and
           'pageoutd_damon_aggregation_interval_seconds{engine="vaddr"} 0.050000' in m and
           'pageoutd_damon_sample_seconds{engine="paddr"}' in m,
           "metrics: each engine's DAMON intervals in force")
        ok("vaddr kdamond: sample 10ms, aggregation 50ms" in ask(sock, "detail"),
           "detail (pageoutctl stats): each kdamond's intervals")
        ok(ask(sock, "bogus").startswith("error: unknown request"), "an unknown request is an error")
        # per cgroup: the web policy's cgroup (not frozen_only: no frozen figures)
        cgs = [c for c in doc["cgroups"] if c["policy"] == "web"] if doc else []
        ok(len(cgs) == 1 and cgs[0]["cgroup"] == web_cg and cgs[0]["engine"] == "vaddr" and
           cgs[0]["reclaimed_bytes_total"] == 0 and cgs[0]["state"] is None and
           cgs[0]["frozen_seconds_total"] is None and cgs[0]["thaw_major_faults_total"] is None,
           "stats: a cgroups entry for the web cgroup; no frozen figures without frozen_only")
        ok(len(cgs) == 1 and cgs[0]["kubernetes"] == {"qos": "burstable", "pod_uid": pod_uid,
                                                      "container_id": None},
           "stats: a pod's cgroup names its pod UID and QoS class")
        ok(('pageoutd_cgroup_reclaimed_bytes_total{policy="web",cgroup="%s",qos="burstable",'
            'pod_uid="%s"} 0' % (web_cg, pod_uid)) in m
           and 'pageoutd_cgroup_frozen{policy="web"' not in m,
           "metrics: its reclaimed bytes, labelled policy, cgroup, qos and pod_uid; no frozen "
           "sample")
        vms = [c for c in doc["cgroups"] if c["policy"] == "vms"] if doc else []
        if not ok(len(vms) == 1 and (vms[0]["working_set_bytes"] or 0) >= 8 << 20,
                  "stats: the vms cgroup's working set holds its process's 8 MiB"):
            diag(vms)
        ok(('pageoutd_cgroup_working_set_bytes{policy="vms",cgroup="%s/a"}' % vm_cg) in m,
           "metrics: the cgroup's working set")
        t = ask(sock, "cgroups")
        ok(t.startswith("POLICY") and "WORKSET" in t and "REFAULTS" in t and
           "THAW-FAULTS" in t and
           any(line.split()[0] == "web" and line.split()[-1] == web_cg
               for line in t.splitlines()[1:]),
           "cgroups: a table, a line per cgroup")

        # pageoutctl
        rc, out, err = ctl(sock, "status")
        ok(rc == 0 and "vms" in out and "paddr" in out, "pageoutctl status")
        rc, out, err = ctl(sock, "stats", "--json")
        ok(rc == 0 and json.loads(out)["version"], "pageoutctl stats --json")
        rc, out, err = ctl(sock, "status", "--cgroups")
        ok(rc == 0 and out == ask(sock, "cgroups"), "pageoutctl status --cgroups")
        rc, out, err = ctl(sock, "stats")
        ok(rc == 0 and "policy web (vaddr" in out, "pageoutctl stats")
        rc, out, err = ctl(sock, "metrics")
        ok(rc == 0 and "# TYPE pageoutd_cycles_total counter" in out, "pageoutctl metrics")
        rc, out, err = ctl(sock, "pause", "web")
        ok(rc == 0 and "ok: web paused" in out, "pageoutctl pause web")
        ok(wait_for(lambda: json.loads(ask(sock, "stats"))["policies"][1]["paused"]),
           "stats shows web paused")
        ok(json.loads(ask(sock, "stats"))["policies"][1]["paused_why"] == "paused",
           "paused_why: paused (by an operator)")
        rc, out, err = ctl(sock, "resume", "web")
        ok(rc == 0 and not json.loads(ask(sock, "stats"))["policies"][1]["paused"],
           "pageoutctl resume web")
        rc, out, err = ctl(sock, "pause", "nosuch")
        ok(rc == 1 and "no policy 'nosuch'" in err, "pause of an unknown policy: exit 1")
        rc, out, err = ctl(sock, "reload")
        ok(rc == 0 and "reloaded, 2 policies" in out, "pageoutctl reload")
        rc, out, err = ctl(T + "/nosock", "status")
        ok(rc == 1 and T + "/nosock" in err, "daemon unreachable: exit 1, the path in the message")
        rc, out, err = ctl(sock, "pause")
        ok(rc == 2, "usage error: exit 2")
        rc, out, err = ctl(sock, "frobnicate")
        ok(rc == 2, "unknown command: exit 2")
        rc, out, err = ctl(sock, "pause", "--help")
        ok(rc == 0 and "POLICY" in out, "pageoutctl pause --help")
        rc, out, err = ctl(sock, "check-config", "-c", T + "/main.conf", "-d", T + "/d")
        ok(rc == 0 and "policy web:" in out, "pageoutctl check-config")

        # a non-root peer in the socket's group: reads yes, control no
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            try:
                os.setgroups([])
                os.setgid(65534)
                os.setuid(65534)
                res = [ask(sock, "version"), ask(sock, "reload"), ask(sock, "pause web")]
                os.write(w, json.dumps(res).encode())
            except Exception as e:  # noqa: BLE001 - reported to the parent
                os.write(w, json.dumps([str(e)]).encode())
            os._exit(0)
        os.close(w)
        res = json.loads(os.read(r, 65536).decode() or "[]")
        os.waitpid(pid, 0)
        ok(len(res) == 3 and res[0].startswith("pageoutd"), "uid 65534 may read (version)")
        ok(len(res) == 3 and "permission denied" in res[1] and "permission denied" in res[2],
           "uid 65534 may not reload or pause")
        ok(not json.loads(ask(sock, "stats"))["policies"][1]["paused"],
           "and nothing was paused")

        # hostile clients
        c0 = json.loads(ask(sock, "stats"))["cycles"]
        t0 = time.time()
        rss0, fd0 = rss_kb(d.pid), nfds(d.pid)
        big = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        big.connect(sock)
        big.settimeout(5)
        sent = 0
        try:
            while sent < (1 << 20):
                sent += big.send(b"x" * 65536)
        except (BrokenPipeError, ConnectionResetError, socket.timeout):
            pass
        reply = b""
        try:
            reply = big.recv(4096)
        except (ConnectionResetError, socket.timeout):
            pass
        big.close()
        ok(b"request longer than 4096 bytes" in reply, "1 MiB without a newline: refused")
        mute = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        mute.connect(sock)
        mute.settimeout(6)
        tm = time.time()
        try:
            gone = mute.recv(16) == b""
        except socket.timeout:
            gone = False
        ok(gone and time.time() - tm < 5, "a client that never sends a newline is dropped "
           "after its deadline (%.1f s)" % (time.time() - tm))
        mute.close()
        for rnd in range(3):
            many = []
            for i in range(200):
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.setblocking(False)
                try:
                    s.connect(sock)
                except (BlockingIOError, OSError):
                    pass
                many.append(s)
            time.sleep(0.5)
            try:
                answer = ask(sock, "version", timeout=3)
            except OSError:
                answer = ""
            if rnd == 0:
                diag("answer with 200 idle clients: %r" % answer[:60])
                ok("too many clients" in answer or answer.startswith("pageoutd"),
                   "with 200 idle clients a new one is told to retry or served")
            for s in many:
                s.close()
        wait_for(lambda: ask(sock, "version").startswith("pageoutd"), 5)
        c1 = json.loads(ask(sock, "stats"))["cycles"]
        dt = time.time() - t0
        ok(c1 - c0 >= dt / 0.2 * 0.5,
           "cycles went on meanwhile (%d cycles in %.1f s at 200 ms)" % (c1 - c0, dt))
        rss1, fd1 = rss_kb(d.pid), nfds(d.pid)
        if asan:
            skip("RSS did not grow (%d -> %d kB)" % (rss0, rss1),
                 "ASan's quarantine keeps what is freed")
        else:
            ok(rss1 - rss0 < 4096, "RSS did not grow (%d -> %d kB)" % (rss0, rss1))
        ok(wait_for(lambda: nfds(d.pid) <= fd0, 5), "descriptors back to %d (%d)" % (fd0, nfds(d.pid)))

        # engine = both: one policy, two parts of its name, each shown, paused together
        db_cg = "/pageoutd-socket-test-db-%d" % os.getpid()
        os.mkdir(cgroot + db_cg)
        made.insert(0, cgroot + db_cg)
        # a process that holds 8 MiB in it: the paddr part gives a cgroup with memory a scheme
        holder = subprocess.Popen(
            [sys.executable, "-c",
             "import sys, time\nopen(sys.argv[1], 'w').write('0')\n"
             "b = bytearray(8 << 20)\nb[::4096] = b'x' * (len(b) // 4096)\ntime.sleep(60)",
             cgroot + db_cg + "/cgroup.procs"])
        procs.append(holder)
        with open(T + "/d/db.conf", "w") as f:
            f.write("[policy]\ncgroup = %s\nengine = both\n" % db_cg)
        rc, out, err = ctl(sock, "reload")
        ok(rc == 0 and "reloaded, 4 policies" in out,
           "engine = both: reloaded, the db policy counts as its two parts (%s)" % out.strip())

        def db_parts():
            return [p for p in json.loads(ask(sock, "stats"))["policies"] if p["name"] == "db"]
        ok(wait_for(lambda: sorted(p["engine"] for p in db_parts()) == ["paddr", "vaddr"] and
                    all(p["cgroups"] == 1 for p in db_parts()), 10),
           "stats: the db policy twice, its vaddr and its paddr part, each over its cgroup")
        rows = [line.split() for line in ask(sock, "status").splitlines()
                if line.startswith("db ")]
        ok(sorted(r[1] for r in rows) == ["paddr", "vaddr"], "status: a row for each part")
        m = ask(sock, "metrics")
        ok('pageoutd_reclaimed_bytes_total{policy="db",engine="vaddr"}' in m and
           'pageoutd_reclaimed_bytes_total{policy="db",engine="paddr"}' in m and
           ('pageoutd_cgroup_reclaimed_bytes_total{policy="db",engine="vaddr",cgroup="%s"}'
            % db_cg) in m and
           ('pageoutd_cgroup_reclaimed_bytes_total{policy="db",engine="paddr",cgroup="%s"}'
            % db_cg) in m,
           "metrics: each part's series, per policy and per cgroup, labelled by engine")
        if failed:
            diag("\n".join(line for line in m.splitlines() if 'policy="db"' in line))
            diag(ask(sock, "cgroups"))
        if promtool:
            p = subprocess.run([promtool, "check", "metrics"], input=m, capture_output=True,
                               text=True)
            ok(p.returncode == 0, "promtool check metrics passes with both parts")
        else:
            skip("promtool check metrics with both parts", "no promtool")
        t = ask(sock, "cgroups")
        ok(("db/vaddr" in t and "db/paddr" in t), "cgroups: a line per part of the cgroup")
        rc, out, err = ctl(sock, "pause", "db")
        # (this host may have no swap: the vaddr part is paused for swap_reserve meanwhile)
        ok(rc == 0 and wait_for(lambda: all(p["paused_why"] == "paused" for p in db_parts()), 5),
           "pageoutctl pause db pauses both parts")
        rc, out, err = ctl(sock, "resume", "db")
        ok(rc == 0 and wait_for(lambda: not any(p["paused_why"] == "paused"
                                                for p in db_parts()), 5),
           "and resume resumes both")
        holder.kill()
        holder.wait()
        os.unlink(T + "/d/db.conf")
        rc, out, err = ctl(sock, "reload")
        ok(rc == 0 and "reloaded, 2 policies" in out and not db_parts(),
           "db.conf removed: reloaded, no db policy")

        # its refaults over 10 s or more, as a ratio of the working set: nothing refaulted
        def vms_rate():
            c = [c for c in json.loads(ask(sock, "stats"))["cgroups"] if c["policy"] == "vms"]
            return c[0]["refault_rate_ratio"] if c else None
        if not ok(wait_for(lambda: vms_rate() is not None, 15) and vms_rate() == 0,
                  "stats: the vms cgroup's refault rate, after a window of 10 s: 0"):
            diag(vms_rate())
        ok(('pageoutd_cgroup_refault_rate_ratio{policy="vms",cgroup="%s/a"} 0' % vm_cg) in
           ask(sock, "metrics"), "metrics: the cgroup's refault rate")

        # an app gone: its cgroup's entry goes with it
        os.rmdir(cgroot + web_cg)
        ok(wait_for(lambda: not any(c["cgroup"] == web_cg
                                    for c in json.loads(ask(sock, "stats"))["cgroups"]), 5),
           "the web cgroup removed: its cgroups entry is freed")

        d.send_signal(signal.SIGTERM)
        rc = d.wait(10)
        ok(rc == 0 and not os.path.exists(sock), "SIGTERM: exit 0, socket removed")
        log.close()

        # socket activation: the service manager passes a listening socket as fd 3
        if with_systemd:
            act = T + "/run/activated.sock"
            ls = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            ls.bind(act)
            ls.listen(16)
            fd = ls.fileno()
            log = open(T + "/log2", "w")

            def child():
                os.dup2(fd, 3)
                os.environ["LISTEN_FDS"] = "1"
                os.environ["LISTEN_PID"] = str(os.getpid())

            d2 = subprocess.Popen([PAGEOUTD, "--foreground", "-c", T + "/main.conf", "-d",
                                   T + "/d"], stderr=log, preexec_fn=child, close_fds=False)
            procs.append(d2)
            ls.close()
            ok(wait_for(lambda: try_ask(act, "version").startswith("pageoutd"), 10),
               "socket activation: pageoutd serves the socket it was handed (LISTEN_FDS)")
            ok(not os.path.exists(sock), "and does not create its configured one")
            d2.send_signal(signal.SIGTERM)
            d2.wait(10)
            log.close()
            if failed:
                diag(open(T + "/log2").read()[-2000:])
        else:
            skip("socket activation", "built without systemd")
            skip("socket activation, configured socket", "built without systemd")
        # Android's init: the socket in ANDROID_SOCKET_pageoutd (any build), bound but not
        # listening: init leaves listen() to the daemon
        act = T + "/run/android.sock"
        ls = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        ls.bind(act)
        ls.set_inheritable(True)
        log = open(T + "/log3", "w")
        d3 = subprocess.Popen([PAGEOUTD, "--foreground", "-c", T + "/main.conf", "-d", T + "/d"],
                              stderr=log, close_fds=False,
                              env=dict(os.environ, ANDROID_SOCKET_pageoutd=str(ls.fileno())))
        procs.append(d3)
        ls.close()
        ok(wait_for(lambda: try_ask(act, "version").startswith("pageoutd"), 10),
           "Android init: pageoutd serves the socket in ANDROID_SOCKET_pageoutd")
        d3.send_signal(signal.SIGTERM)
        ok(d3.wait(10) == 0 and not os.path.exists(sock), "and exits cleanly without its own socket")
        log.close()
        if failed:
            diag(open(T + "/log").read()[-3000:])
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        shutil.rmtree(T, ignore_errors=True)
        for p in procs:
            p.wait()
        for c in made:
            try:
                os.rmdir(c)
            except OSError:
                pass
        if admin:
            shutil.rmtree(admin.split("/fakesys/")[0], ignore_errors=True)
    print("1..%d" % n)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
