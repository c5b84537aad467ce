#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""report.py OUT KERNEL...: bench/apps' tables, OUT/apps.md, from OUT/apps-APP_end-KERNEL.csv.

Every figure of a run is divided by the "none" phase of the same application in the same boot
(the median of its runs when there are several): memory saved is none's memory.current of
/APP at the end of the phase minus the run's; throughput and p99 latency are ratios. A method's repeated runs ("NAME#2")
are summarised as min/median/max. The target, per kernel: pageoutd with a shipped example
policy takes at least as much memory in the phase as the best other method whose median
throughput stays at or above 0.98 and median p99 at or below 1.10 times none's.
"""
import csv
import os
import statistics
import sys

TPS_MIN = 0.98
P99_MAX = 1.10
# conf/conf.d/batch.conf, machines.conf and databases.conf (the server policy)
SHIPPED = ("pageoutd-vaddr", "pageoutd-paddr", "pageoutd-databases")
APPS = ("pg", "my")
# what the target compares: the memory a method took from the application during its phase
# (its first sample less its last, less what none's memory did meanwhile). Runs start from the
# same steps, not from the same bytes (PostgreSQL's two none runs ended 150 MiB apart on 6.12:
# WAL and history in the page cache), so the end against none's end says less.
SAVED = "drop_kb"


def describe(app, r0, ref_mem, ref_tps, ref_p99):
    if app == "pg":
        what = ("PostgreSQL 15, pgbench scale %d (database %.0f MiB), shared_buffers 128 MiB"
                % (r0["scale"], r0["db_kb"] / 1024))
    else:
        what = ("MariaDB 10.11, sysbench oltp_read_only over %d rows (table and index %.0f MiB), "
                "buffer pool 320 MiB, O_DIRECT" % (r0["scale"] * 100000, r0["db_kb"] / 1024))
    return ("%s; %.0f s per phase. none: %.0f MiB in /%s at the end of its phase "
            "(memory.current), %.1f tps, p99 %.1f ms.\n" % (what, r0["phase_s"], ref_mem / 1024,
                                                        app, ref_tps, ref_p99))


def base(run):
    return run.split("#", 1)[0]


def mmm(vals, fmt):
    vals = sorted(vals)
    if len(vals) == 1:
        return fmt % vals[0]
    return (fmt + " (" + fmt + "-" + fmt + ")") % (statistics.median(vals), vals[0], vals[-1])


def app_section(out, k, app):
    with open(os.path.join(out, "apps-%s_end-%s.csv" % (app, k))) as f:
        rows = list(csv.DictReader(f))
    title = "### %s on Linux %s\n" % ({"pg": "PostgreSQL", "my": "MariaDB"}[app], k)
    if not rows:
        return [title, "No runs.\n"]
    for r in rows:
        for key in r:
            if key not in ("method", "kernel"):
                r[key] = float(r[key])
    none = [r for r in rows if base(r["method"]) == "none"]
    if not none:
        return [title, "No none phase: no ratios.\n"]
    ref_mem = statistics.median(r["mem_kb"] for r in none)
    ref_tps = statistics.median(r["tps"] for r in none)
    ref_p99 = statistics.median(r["p99_ms"] for r in none)
    ref_tps_after = statistics.median(r["tps_after"] for r in none)
    ref_p99_after = statistics.median(r["p99_after_ms"] for r in none)
    # the first sample of each run's phase: runs start from the same steps, not from the same
    # bytes (the page cache of the WAL, autovacuum), so what a method took during its own phase
    # is its first sample less its last, less what none's memory did in the same time
    first = {}
    with open(os.path.join(out, "apps-%s-%s.csv" % (app, k))) as f:
        for s in csv.DictReader(f):
            first.setdefault(s["method"], float(s["mem_kb"]))
    none_drift = statistics.median(first.get(r["method"], r["mem_kb"]) - r["mem_kb"] for r in none)
    for r in rows:
        r["drop_kb"] = first.get(r["method"], r["mem_kb"]) - r["mem_kb"] - none_drift
        r["saved_kb"] = ref_mem - r["mem_kb"]
        r["saved_pct"] = 100.0 * r["saved_kb"] / ref_mem if ref_mem else 0.0
        r["tps_ratio"] = r["tps"] / ref_tps if ref_tps else 0.0
        r["p99_ratio"] = r["p99_ms"] / ref_p99 if ref_p99 else 0.0
        r["cpu_pct"] = (r["reclaimer_cpu_ms"] + r["kdamond_cpu_ms"]) / (10.0 * r["phase_s"])
    lines = [
        title,
        describe(app, rows[0], ref_mem, ref_tps, ref_p99),
        "| run | saved | of none's | taken in the phase | in swap | zram compressed | tps ratio | p99 ratio | "
        "major faults during / after | refaults during / after | after: tps, p99 ratio (to none's after) | "
        "reclaimer CPU | kdamond CPU | THP of /%s start / end | THP split / swapped whole |" % app,
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            "| %s | %.1f MiB | %.1f%% | %.1f MiB | %.1f MiB | %.1f MiB | %.3f | %.2f | %d / %d | %d / %d | "
            "%.3f, %.2f | %.0f ms | %.0f ms | %.0f / %.0f MiB | %d / %d |"
            % (r["method"], r["saved_kb"] / 1024, r["saved_pct"], r["drop_kb"] / 1024,
               r["swap_kb"] / 1024,
               r["zram_compr_kb"] / 1024, r["tps_ratio"], r["p99_ratio"], r["majflt"],
               r["majflt_after"], r["refaults"], r["refaults_after"], r["tps_after"] / ref_tps_after if ref_tps_after else 0,
               r["p99_after_ms"] / ref_p99_after if ref_p99_after else 0, r["reclaimer_cpu_ms"],
               r["kdamond_cpu_ms"], r["anon_thp_start_kb"] / 1024, r["anon_thp_kb"] / 1024,
               r["thp_split"], r["thp_swpout"]))
    lines.append("")
    methods = []
    for r in rows:
        if base(r["method"]) not in methods:
            methods.append(base(r["method"]))
    summary = {}
    if any(len([r for r in rows if base(r["method"]) == m]) > 1 for m in methods):
        lines += ["Median (min-max) over the runs of each method:\n",
                  "| method | runs | saved (MiB) | taken in the phase (MiB) | tps ratio | p99 ratio | major faults during |",
                  "|---|---|---|---|---|---|---|"]
    for m in methods:
        rs = [r for r in rows if base(r["method"]) == m]
        summary[m] = {key: statistics.median(r[key] for r in rs)
                      for key in ("saved_kb", "drop_kb", "tps_ratio", "p99_ratio")}
        if len(rs) > 1:
            lines.append("| %s | %d | %s | %s | %s | %s | %s |" % (
                m, len(rs), mmm([r["saved_kb"] / 1024 for r in rs], "%.1f"),
                mmm([r["drop_kb"] / 1024 for r in rs], "%.1f"),
                mmm([r["tps_ratio"] for r in rs], "%.3f"), mmm([r["p99_ratio"] for r in rs], "%.2f"),
                mmm([r["majflt"] for r in rs], "%d")))
    lines.append("")
    if len(none) < 2:
        lines.append("One none run only: this boot has no noise band.\n")
    else:
        lines.append("The none runs against their median: throughput %s, p99 %s (the noise "
                     "band of this boot).\n" % (
                         ", ".join("%.3f" % r["tps_ratio"] for r in none),
                         ", ".join("%.2f" % r["p99_ratio"] for r in none)))
    others = [m for m in methods if m != "none" and not m.startswith("pageoutd")]
    if not others:
        lines.append("Target: not judged, no method other than pageoutd ran in "
                     "this boot.\n")
        return lines
    # a method that took less than a MiB saved nothing to compare with
    ok = [m for m in others
          if summary[m]["tps_ratio"] >= TPS_MIN and summary[m]["p99_ratio"] <= P99_MAX
          and summary[m][SAVED] >= 1024]
    best = max(ok, key=lambda m: summary[m][SAVED]) if ok else None
    lines.append("Target: pageoutd with a shipped example policy (pageoutd-vaddr: batch.conf, "
                 "pageoutd-paddr: machines.conf, pageoutd-databases: databases.conf) takes at "
                 "least as much memory in the phase as the best other method with throughput "
                 ">= %.2f and p99 <= %.2f times none's (medians)." % (TPS_MIN, P99_MAX))
    if best:
        lines.append("The best such method here: %s, %.1f MiB taken (tps %.3f, p99 %.2f)." % (
            best, summary[best][SAVED] / 1024, summary[best]["tps_ratio"],
            summary[best]["p99_ratio"]))
    else:
        lines.append("No other method kept within those bounds and saved anything.")
    ref = summary[best][SAVED] if best else 0.0
    verdict = []
    for m in [m for m in methods if m.startswith("pageoutd")]:
        s = summary[m]
        within = s["tps_ratio"] >= TPS_MIN and s["p99_ratio"] <= P99_MAX
        met = within and s[SAVED] >= ref and s[SAVED] >= 1024
        if met and m in SHIPPED:
            verdict.append(m)
        lines.append("- %s%s: %.1f MiB taken, tps %.3f, p99 %.2f: %s%s" % (
            m, "" if m in SHIPPED else " (tuned, not the target's)", s[SAVED] / 1024,
            s["tps_ratio"], s["p99_ratio"], "**met**" if met else "not met",
            "" if within else " (outside the throughput/latency bounds)"))
    if len(none) > 1:
        band = max(abs(1 - r["tps_ratio"]) for r in none)
        if band > 1 - TPS_MIN:
            lines.append("\nThe none runs differ by %.1f%% in throughput, more than the %.0f%% "
                         "the bounds allow: a method inside or outside them by less than that "
                         "is within this boot's noise." % (100 * band, 100 * (1 - TPS_MIN)))
    lines.append("\n**Target for %s on %s: %s.**\n" % (
        app, k, ("met, with the shipped " + " and ".join(verdict)) if verdict else "not met"))
    if len(none) > 1:
        # the same comparison with the bounds widened by the none runs' own spread: what this
        # boot can tell apart at all
        lo = min(r["tps_ratio"] for r in none) * TPS_MIN
        hi = max(r["p99_ratio"] for r in none) * P99_MAX
        inb = [m for m in methods if m != "none" and summary[m]["tps_ratio"] >= lo
               and summary[m]["p99_ratio"] <= hi]
        if inb:
            lines.append("Read within this boot's noise (throughput >= %.3f, p99 <= %.2f: the "
                         "bounds times the none runs' worst ratios), the methods inside are, by "
                         "memory taken: %s.\n" % (lo, hi, ", ".join(
                             "%s %.1f MiB" % (m, summary[m][SAVED] / 1024)
                             for m in sorted(inb, key=lambda m: -summary[m][SAVED]))))
        else:
            lines.append("Read within this boot's noise (throughput >= %.3f, p99 <= %.2f), no "
                         "method is inside.\n" % (lo, hi))
    return lines


def main():
    out, kernels = sys.argv[1], sys.argv[2:]
    lines = ["# bench/apps: pageoutd on real applications\n",
             "Written by `make bench-apps` (bench/apps/run.sh); bench/apps/README.md says how the "
             "runs are made and what each column means. Every figure is measured in the QEMU "
             "guest under TCG (no KVM) on a 2-core machine: throughput, latency and CPU are "
             "only comparable as ratios within one boot, and the phases are short.\n"]
    for k in kernels:
        lines.append("## Linux %s\n" % k)
        prov = os.path.join(out, "apps-provenance-%s.txt" % k)
        if os.path.exists(prov):
            with open(prov) as f:
                rows = [ln.rstrip("\n").split(None, 3) for ln in f if ln.strip()]
            lines.append("| application | commit | date | command |\n|---|---|---|---|\n" +
                         "".join("| %s | %s | %s | `%s` |\n" % tuple((w + ["?"] * 4)[:4])
                                 for w in rows))
        else:
            lines.append("Provenance: not recorded (measured before bench/apps/run.sh wrote "
                         "it).\n")
        for app in APPS:
            if not os.path.exists(os.path.join(out, "apps-%s_end-%s.csv" % (app, k))):
                continue
            lines += app_section(out, k, app)
            if os.path.exists(os.path.join(out, "apps-%s-%s.png" % (app, k))):
                lines.append("![%s on %s](apps-%s-%s.png)\n" % (app, k, app, k))
        # what a boot's figures need said that the CSVs cannot say, written by hand
        notes = os.path.join(out, "apps-notes-%s.md" % k)
        if os.path.exists(notes):
            with open(notes) as f:
                lines.append(f.read())
    with open(os.path.join(out, "apps.md"), "w") as f:
        f.write("\n".join(lines))


if __name__ == "__main__":
    main()
