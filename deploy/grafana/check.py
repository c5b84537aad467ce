#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""deploy/grafana/pageoutd.json against the code (TAP): it parses; its panels have unique ids and
queries on the dashboard's Prometheus data source; every pageoutd_* metric it queries is one
src/report.c writes, rate() and increase() are taken of counters only, and every label it
selects or groups by is one report.c writes (or the scrape's instance and job). A metric or
label renamed in report.c fails here. promtool, where installed, parses every query (the
dashboard's variables replaced by a match-all). Run by make check (TESTS) and make
check-deploy."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

srcdir = os.environ.get("top_srcdir") or os.path.join(os.path.dirname(__file__), "..", "..")
n = failed = 0


def ok(cond, what, diag=None):
    global n, failed
    n += 1
    print(("ok" if cond else "not ok") + f" {n} - {what}")
    if not cond:
        failed += 1
        if diag:
            print("\n".join("# " + line for line in str(diag).splitlines()))


def code_metrics():
    """{metric name: type} and the label names of src/report.c's Prometheus text."""
    with open(os.path.join(srcdir, "src", "report.c")) as f:
        c = f.read()
    types = {f"pageoutd_{m}": t for m, t in
             re.findall(r'metric_header\(\s*b,\s*"(\w+)",\s*"(gauge|counter)"', c)}
    types.update({f"pageoutd_{m}": t for m, t in
                  re.findall(r'\{\s*"(\w+)",\s*"(gauge|counter)",', c)})
    labels = set(re.findall(r'[{,](\w+)=(?:\\"|")', c))
    labels |= set(re.findall(r'metric_(?:part_)?sample\(\s*b,[^;]*?,\s*"(\w+)",', c, re.S))
    return types, labels


types, labels = code_metrics()
ok(len(types) >= 30 and "pageoutd_info" in types and "pageoutd_reclaimed_bytes_total" in types,
   f"src/report.c: {len(types)} metrics found", sorted(types))
ok({"policy", "cgroup", "state", "reason", "qos", "pod_uid"} <= labels,
   f"src/report.c: labels {' '.join(sorted(labels))}")
labels |= {"instance", "job"}

with open(os.path.join(srcdir, "deploy", "grafana", "pageoutd.json")) as f:
    try:
        dash = json.load(f)
        ok(True, "pageoutd.json parses")
    except ValueError as e:
        ok(False, "pageoutd.json parses", e)
        print(f"1..{n}")
        sys.exit(1)
ok(dash.get("uid") == "pageoutd" and dash.get("title") and isinstance(dash.get("schemaVersion"), int),
   "a title, uid pageoutd and a schema version")
panels = dash["panels"]
ids = [p["id"] for p in panels]
ok(len(ids) == len(set(ids)), "panel ids are unique")
data = [p for p in panels if p["type"] != "row"]
ok(all(p.get("targets") and all(t.get("expr") for t in p["targets"]) for p in data),
   f"each of the {len(data)} panels queries something")
ok(all(p["datasource"]["uid"] == "${datasource}" and
       all(t["datasource"]["uid"] == "${datasource}" for t in p["targets"]) for p in data),
   "every query goes to the data source variable")
vars_ = {v["name"]: v for v in dash["templating"]["list"]}
ok(vars_.get("datasource", {}).get("query") == "prometheus", "the data source variable is Prometheus")

exprs = [t["expr"] for p in data for t in p["targets"]]
exprs += [v["query"]["query"] for v in vars_.values() if isinstance(v.get("query"), dict)]
used = set()
for e in exprs:
    used |= set(re.findall(r"\bpageoutd_\w+", e))
for m in sorted(used):
    ok(m in types, f"{m} is a metric of src/report.c")
rated, selected, grouped = set(), set(), set()
for e in exprs:
    rated |= set(re.findall(r"\b(rate|increase)\(\s*(pageoutd_\w+)", e))
    for m, sel in re.findall(r"\b(pageoutd_\w+)\{([^}]*)\}", e):
        selected |= {(m, lab) for lab in re.findall(r"(\w+)\s*(?:=~|!~|!=|=)", sel)}
    for grp in re.findall(r"\bby\s*\(([^)]*)\)", e):
        grouped |= set(re.split(r"\s*,\s*", grp.strip()))
for fn, m in sorted(rated):
    ok(types.get(m) == "counter", f"{fn}() of {m}, a counter", types.get(m))
for m, lab in sorted(selected):
    ok(lab in labels, f"{m}{{{lab}=...}}: a label of pageoutd's series")
for lab in sorted(grouped):
    ok(lab in labels, f"by ({lab}): a label of pageoutd's series")
promtool = shutil.which("promtool")
if promtool:
    # every query as a recording rule: promtool check rules parses its PromQL
    with tempfile.NamedTemporaryFile("w", suffix=".yml") as f:
        rules = [{"record": f"pageoutd:dashboard_{i}", "expr": re.sub(r"\$\w+", ".*", e)}
                 for i, e in enumerate(exprs) if not e.startswith("label_values(")]
        json.dump({"groups": [{"name": "dashboard", "rules": rules}]}, f)
        f.flush()
        r = subprocess.run([promtool, "check", "rules", f.name], capture_output=True, text=True)
    ok(r.returncode == 0, f"promtool parses the {len(rules)} queries", r.stdout + r.stderr)
else:
    n += 1
    print(f"ok {n} - # SKIP no promtool")
missing = sorted(set(types) - used)
print("# not on the dashboard: " + " ".join(missing))
print(f"1..{n}")
sys.exit(1 if failed else 0)
