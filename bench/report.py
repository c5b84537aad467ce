#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""report.py OUT QUALITY_SECONDS KERNEL...: bench/results/README.md from the CSVs run.sh wrote,
with each of issue 8's targets marked met or not, per kernel."""
import csv
import os
import sys

MIN_AGE_S = 3
COLD_KB = 3 * 32 * 1024  # the cold set of /bq-a (bench/guest/bench.c)


def runs_of(end, m):
    """Every run of method m: bench quality names them "m", "m#2", ..."""
    return [r for n, r in end.items() if n == m or n.startswith(m + "#")]


def base_name(m):
    """A run's method: "NAME#2" is NAME's second run."""
    return m.split("#", 1)[0]


def spread(vals, fmt):
    """min / median / max of vals (the lower median for an even count), each through fmt."""
    v = sorted(vals)
    if not v:
        return "-"
    if len(v) == 1:
        return fmt(v[0])
    return " / ".join(fmt(x) for x in (v[0], v[(len(v) - 1) // 2], v[-1]))


def secs(t):
    return "never" if t == float("inf") else "%s s" % f(t, 0)


def provenance(out, k):
    """The commit, date and command that measured kernel k (bench/run.sh's provenance file)."""
    p = os.path.join(out, "provenance-%s.txt" % k)
    lines = []
    if os.path.exists(p):
        with open(p) as fh:
            lines = [line.rstrip("\n").split(None, 3) for line in fh if line.strip()]
    if not lines:
        return ["Provenance: not recorded (measured before bench/run.sh wrote it).", ""]
    return ["| step | commit | date | command |", "|---|---|---|---|"] + [
        "| %s | %s | %s | `%s` |" % tuple((w + ["?"] * 4)[:4]) for w in lines] + [""]


def rows(path):
    try:
        with open(path) as f:
            return list(csv.DictReader(f))
    except OSError:
        return []


def f(x, d=1):
    try:
        return ("%%.%df" % d) % float(x)
    except (TypeError, ValueError):
        return "-"


def step_pct(method):
    """memory.reclaim-5% -> 5.0 (the loop's step), 0 for a name without one"""
    try:
        return float(method.rsplit("-", 1)[1].rstrip("%"))
    except (IndexError, ValueError):
        return 0.0


def android(out, k):
    """The app lifecycle table of one kernel (bench android), if it ran."""
    rs = rows(os.path.join(out, "android-%s.csv" % k))
    if not rs:
        return []
    bound = [c for c in rs[0] if c.startswith("t90_within_")][0]
    md = ["", "### Android-like app lifecycle (bench android: 9 apps alive in /uid_U/pid_P, "
          "16 MiB cold + 4 MiB warm + 4 MiB hot each, frozen when cached; cached-apps.conf's "
          "min_age 10 s for both methods)", "",
          "| method | apps / thaws | cold out at the end of a freeze of 40 s or more (freezes) "
          "| time to 90%% after the freeze, mean / worst | within %s | taken from "
          "running apps | major faults in a thaw's first 2 s | zram orig / compressed / used "
          "of disksize | pageoutd CPU per cycle | kdamond CPU per s |" % bound.split("_")[-1],
          "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rs:
        md.append("| %s | %s / %s | %s%% (%s) | %s s / %s s | %s | %s kB | %s | %s / %s / %s MiB "
                  "of %s MiB | %s | %s ms |" % (
                      r["method"], r["apps"], r["thaws"], f(r["cold_out_pct"]), r["freezes"],
                      f(r["t90_mean_s"]), f(r["t90_worst_s"]), r[bound],
                      r["taken_running_kb"], f(r["thaw_majflt_2s"], 0),
                      int(r["zram_orig_kb"]) // 1024, int(r["zram_compr_kb"]) // 1024,
                      int(r["zram_used_kb"]) // 1024, int(r["zram_disksize_kb"]) // 1024,
                      "-" if float(r["daemon_cpu_ms_per_cycle"]) < 0
                      else f(r["daemon_cpu_ms_per_cycle"]) + " ms",
                      f(r["kdamond_cpu_ms_per_s"])))
    md.append("")
    return md


def warm(out, k):
    """The warm-set table of one kernel (bench warm), if it ran, with issue 25's figures."""
    end = rows(os.path.join(out, "warm_end-%s.csv" % k))
    if not end:
        return []
    secs = max((int(r["t"]) for r in rows(os.path.join(out, "warm-%s.csv" % k))), default=0)
    md = ["### Warm sets beside cold ones (bench warm: 3 processes in /bw, each 16 MiB hot, "
          "32 MiB warm read in one burst every 6 s, 48 MiB cold; min_age 3 s; %d s per run; "
          "warm-%s.png)" % (secs, k),
          "",
          "| method | cold reclaimed at the end | time to 90% of the cold sets | warm-set major "
          "faults per 30 s window | in the last 30 s | all major faults of the processes |",
          "|---|---|---|---|---|---|"]
    allflt = {}
    for r in rows(os.path.join(out, "warm-%s.csv" % k)):
        allflt[r["method"]] = r["majflt"]  # cumulative: the last second's
    for r in end:
        wins = [w for w in r["warm_majflt_per_30s"].split(";") if w]
        t90 = r["t90_s"]
        md.append("| %s | %s%% | %s | %s | %s | %s |" % (
            r["method"], f(r["cold_pct"]), (t90 + " s") if t90 not in ("-1", "") else "never",
            " / ".join(wins), wins[-1] if wins else "-", allflt.get(r["method"], "-")))
    md.append("")
    # the targets hold in every run of pageoutd-vaddr (bench warm runs each method 3 times)
    mine = [r for r in end if base_name(r["method"]) == "pageoutd-vaddr"]
    if mine:
        colds, warms = [], []
        for r in mine:
            wins = [int(w) for w in r["warm_majflt_per_30s"].split(";") if w]
            first = next((w for w in wins if w > 0), 0)
            colds.append(float(r["cold_pct"]))
            warms.append((wins[-1] if wins else None, first))
        ok_cold = min(colds) >= 90
        ok_warm = all(last is not None and first > 0 and last * 4 <= first
                      for last, first in warms)
        md += ["| target (pageoutd-vaddr, every run) | met | figure |", "|---|---|---|",
               "| cold sets at least 90%% reclaimed | %s | %s |" % (
                   "met" if ok_cold else "**not met**",
                   ", ".join(f(c) + "%" for c in colds)),
               "| warm-set faults in the last 30 s at most a quarter of the first window with "
               "faults | %s | %s |" % ("met" if ok_warm else "**not met**", ", ".join(
                   "%s of %s" % ("-" if last is None else last, first)
                   for last, first in warms)), ""]
    return md


def main():
    out, qsecs, kernels = sys.argv[1], sys.argv[2], sys.argv[3:]
    md = ["# pageoutd bench results", "",
          "Written by `make bench` (bench/run.sh); see bench/README.md for what each figure "
          "means. Every figure is a fraction or a ratio measured in the same guest run, except "
          "the native daemon cost at the end, measured on the host in the same make bench.", ""]
    for k in kernels:
        end = {r["method"]: r for r in rows(os.path.join(out, "quality_end-%s.csv" % k))}
        qual = rows(os.path.join(out, "quality-%s.csv" % k))
        apply = rows(os.path.join(out, "apply-%s.csv" % k))
        scale = rows(os.path.join(out, "scale-%s.csv" % k))
        md += ["## Linux %s" % k, ""] + provenance(out, k)
        md += ["### Quality (%s s per method, min_age %d s, 3 processes in /bq-a with 32 MiB "
               "cold + 8 MiB hot each, one with a skewed hot set; one more in /bq-b)" %
               (qsecs, MIN_AGE_S), "",
               "Each cell: minimum / median / maximum over the method's runs (interleaved "
               "rounds in one boot).", "",
               "| method | runs | cold reclaimed % | time to 95% | hot refaulted % "
               "| hot out at the end % | /bq-a saved MiB | /bq-b swapped kB |",
               "|---|---|---|---|---|---|---|---|"]
        for m in dict.fromkeys(base_name(n) for n in end):
            runs = runs_of(end, m)
            t95s = [float(r["t95_s"]) if r["t95_s"] not in ("-1", "") and
                    float(r["t95_s"]) > 0 else float("inf") for r in runs]
            col = lambda key, d=1, div=1: spread([float(r[key]) / div for r in runs],
                                                 lambda x: f(x, d))
            md.append("| %s | %d | %s | %s | %s | %s | %s | %s |" % (
                m, len(runs), col("cold_pct"), spread(t95s, secs),
                col("hot_refault_pct", 2), col("hot_out_pct", 2),
                col("saved_kb", 1, 1024), col("other_kb", 0)))
        md.append("")
        targets = []
        for m in ("pageoutd-vaddr", "pageoutd-paddr"):
            # every run of the method (bench quality runs pageoutd's methods several times:
            # "NAME", "NAME#2", ...); the target is judged on the median time to 95%
            runs = runs_of(end, m)
            if not runs:
                targets.append(("cold >= 95%% within 5 x min_age (%d s), %s" %
                                (5 * MIN_AGE_S, m), False, "not run"))
                continue
            t95s = [float(r["t95_s"]) if float(r["t95_s"]) > 0 else float("inf")
                    for r in runs]
            med = sorted(t95s)[len(t95s) // 2]
            each = ", ".join(("%s s" % f(t, 0)) if t != float("inf") else "never"
                             for t in t95s)
            targets.append(("cold >= 95%% within 5 x min_age (%d s), %s (median of %d runs)" %
                            (5 * MIN_AGE_S, m, len(runs)), med <= 5 * MIN_AGE_S,
                            ("median %s" % ("%s s" % f(med, 0) if med != float("inf")
                                            else "never")) +
                            " (runs: %s; at the end: %s)" % (
                                each, ", ".join(f(r["cold_pct"]) + "%" for r in runs))))
        vr = runs_of(end, "pageoutd-vaddr")
        v = end.get("pageoutd-vaddr")
        if vr:
            worst = max(float(r["hot_refault_pct"]) for r in vr)
            targets.append(("hot wrongly reclaimed <= 1%%, pageoutd-vaddr (worst of %d runs)" %
                            len(vr), worst <= 1,
                            "%s%% refaulted (runs: %s)" % (
                                f(worst, 2), ", ".join(f(r["hot_refault_pct"], 2) + "%"
                                                       for r in vr))))
        # the memory.reclaim loop at its gentlest step that saved at least as much as pageoutd
        loops = sorted((r for m, r in end.items() if m.startswith("memory.reclaim")),
                       key=lambda r: step_pct(r["method"]))
        if v and loops:
            # equal within 1% of the cold set (a few pages either way are the run's noise)
            eq = [r for r in loops if float(r["saved_kb"]) >= float(v["saved_kb"]) - 0.01 *
                  COLD_KB]
            if eq:
                mr = eq[0]
                targets.append(("fewer mistakes than the memory.reclaim loop at equal saving",
                                float(v["hot_refault_pct"]) < float(mr["hot_refault_pct"]),
                                "vaddr %s%% refaulted for %s MiB saved; %s (its gentlest step "
                                "saving as much, within 1%% of the cold set) %s%% for %s MiB" % (
                                    f(v["hot_refault_pct"], 2), f(float(v["saved_kb"]) / 1024),
                                    mr["method"], f(mr["hot_refault_pct"], 2),
                                    f(float(mr["saved_kb"]) / 1024))))
            else:
                best = max(loops, key=lambda r: float(r["saved_kb"]))
                targets.append(("fewer mistakes than the memory.reclaim loop at equal saving",
                                False, "no loop step saved as much as vaddr's %s MiB (best: %s, "
                                "%s MiB): not comparable in this run" % (
                                    f(float(v["saved_kb"]) / 1024), best["method"],
                                    f(float(best["saved_kb"]) / 1024))))
        md += ["### Apply cost (%s): pageoutd's madv_apply against raw process_madvise of the "
               "same 1024 ranges, 9 pairs in alternating order" % k, "",
               "The ratio is raw time / pageoutd time (throughput), median of the pairs with "
               "its quartiles; the raw-against-raw quartiles are this run's noise band.", "",
               "| advice | batch | raw | pageoutd | throughput ratio | quartiles "
               "| raw vs raw quartiles |", "|---|---|---|---|---|---|---|"]
        for r in apply:
            md.append("| %s | %s | %s us | %s us | %s | %s-%s | %s-%s |" % (
                r["advice"], r["batch"], r["raw_us"], r["pageoutd_us"], f(r["ratio"], 3),
                f(r.get("ratio_q1"), 3), f(r.get("ratio_q3"), 3), f(r.get("raw_raw_q1"), 3),
                f(r.get("raw_raw_q3"), 3)))
        md.append("")
        dflt = [r for r in apply if r["batch"] == "1024"]
        if dflt:
            worst = min(dflt, key=lambda r: float(r["ratio"]))
            targets.append(("apply throughput >= 0.95 x raw process_madvise (batch 1024, "
                            "pageoutd's)", float(worst["ratio"]) >= 0.95,
                            "worst median ratio %s (%s; raw vs raw %s-%s)" % (
                                f(worst["ratio"], 3), worst["advice"],
                                f(worst.get("raw_raw_q1"), 3), f(worst.get("raw_raw_q3"), 3))))
        md += ["### Daemon cost (%s): the real pageoutd, 5 s cycles, vaddr policy over N "
               "processes" % k, "",
               "| processes | CPU per cycle | % of one CPU | RSS | kdamond CPU per cycle "
               "| snapshot | regions | first cycles | their CPU per cycle | reclaimed in them |",
               "|---|---|---|---|---|---|---|---|---|---|"]
        for r in scale:
            md.append("| %s | %s ms | %s%% | %s kB | %s ms | %s ms | %s | %s | %s ms | %s kB |" % (
                r["procs"], r["cpu_ms_per_cycle"], f(r["cpu_pct_of_one"], 3), r["rss_kb"],
                r["kdamond_cpu_ms_per_cycle"], r["snapshot_ms"], r["regions"],
                r.get("first_cycles", "-"), r.get("first_cpu_ms_per_cycle", "-"),
                r.get("first_reclaimed_kb", "-")))
        md.append("")
        md.append("CPU per cycle is measured over 6 steady cycles, after the first cycles in "
                  "which pageoutd found the processes and paged their cold sets out (until a "
                  "whole cycle reclaimed nothing more): process_madvise does that reclaim work "
                  "in pageoutd's time, where the kernel's own methods do it in the kdamond or "
                  "kswapd. The first cycles' CPU, reclaim included, is shown next to it.")
        md.append("")
        by = {int(r["procs"]): r for r in scale}
        # the emulation factor: bench/host/cycle's CPU per cycle in this guest over the same
        # program's natively (run.sh runs it in both places)
        host = {int(r["procs"]): r for r in rows(os.path.join(out, "host_scale.csv"))}
        # every measurement of the boot (run.sh measures it three times): guest ms per size
        calib = {}
        for r in rows(os.path.join(out, "calib-%s.csv" % k)):
            n = int(r["procs"])
            if n in host and float(host[n]["cpu_ms_per_cycle"]) > 0:
                calib.setdefault(n, []).append(float(r["cpu_ms_per_cycle"]))
        if calib:
            md += ["Emulation factor: bench/host/cycle (pageoutd's vaddr cycle over the emulated "
                   "DAMON tree) run in this guest (each measurement of the boot) and natively in "
                   "the same make bench:", "",
                   "| processes | CPU per cycle in the guest | natively | factor (min - max) |",
                   "|---|---|---|---|"]
            for n in sorted(calib):
                h = float(host[n]["cpu_ms_per_cycle"])
                fs = [g / h for g in calib[n]]
                md.append("| %d | %s ms | %s ms | %s-%sx (%d) |" % (
                    n, " / ".join(f(g, 2) for g in calib[n]), f(h, 2), f(min(fs), 1),
                    f(max(fs), 1), len(fs)))
            md.append("")
        if 100 in by and calib:
            # the smallest factor of the boot: the most CPU the guest figure can mean natively
            n = max(calib)
            h = float(host[n]["cpu_ms_per_cycle"])
            lo, hi = min(calib[n]) / h, max(calib[n]) / h
            cpu = float(by[100]["cpu_ms_per_cycle"])
            est, best = cpu / lo, cpu / hi
            targets.append(("pageoutd CPU <= 1%% of one CPU at 100 processes, 5 s cycle "
                            "(the real daemon on the real kernel, guest CPU / the smallest "
                            "factor at %d of %d measurements)" % (n, len(calib[n])),
                            est / 5000 * 100 <= 1,
                            "%s ms / %s-%sx = %s-%s ms per cycle, %s-%s%% (estimate)" % (
                                by[100]["cpu_ms_per_cycle"], f(lo, 1), f(hi, 1), f(best, 1),
                                f(est, 1), f(best / 5000 * 100, 3), f(est / 5000 * 100, 3))))
        if 100 in by:
            pct = float(by[100]["cpu_pct_of_one"])
            kd = float(by[100]["kdamond_cpu_ms_per_cycle"])
            md.append("Guest CPU under TCG includes the emulation and host descheduling: at 100 "
                      "processes pageoutd used %s%% of one emulated CPU, %s x the kdamond's own "
                      "CPU in the same cycles. The target is judged on that figure divided by the "
                      "emulation factor, and on the native figure at the end (bench/host/cycle)." % (f(pct, 2), f(float(by[100]["cpu_ms_per_cycle"]) /
                                                           kd if kd else 0, 2)))
            md.append("")
        top = 300 if 300 in by else 100 if 100 in by else 0
        if 10 in by and top and float(by[10]["cpu_ms_per_cycle"]) > 0:
            g = float(by[top]["cpu_ms_per_cycle"]) / float(by[10]["cpu_ms_per_cycle"])
            targets.append(("growth in processes no worse than linear, guest (10 -> %d: <= %dx)"
                            % (top, top // 10), g <= top // 10, "%sx" % f(g, 1)))
        md += ["### Targets (%s)" % k, "", "| target | met | figure |", "|---|---|---|"]
        for name, met, fig in targets:
            md.append("| %s | %s | %s |" % (name, "met" if met else "**not met**", fig))
        md.append("")
        if not qual:
            md.append("(no per-second quality data for %s)" % k)
        md += android(out, k)
        md += warm(out, k)
    host = rows(os.path.join(out, "host_scale.csv"))
    md += ["## Daemon cost natively (bench/host/cycle on the machine that ran make bench)", "",
           "The vaddr engine's real cycle over N real processes in a real cgroup, three DAMON "
           "regions each (as the guest's kdamond gives them), against the emulated DAMON tree; "
           "the emulator's own work (the kernel's, on a real machine) is timed apart and left "
           "out. Mean over 20 cycles after 3 settling ones.", ""]
    if host:
        md += ["| processes | CPU per cycle | % of one CPU at a 5 s cycle | regions | DAMON "
               "file operations per cycle |", "|---|---|---|---|---|"]
        for r in host:
            md.append("| %s | %s ms | %s%% | %s | %s |" % (
                r["procs"], f(r["cpu_ms_per_cycle"], 2), f(r["cpu_pct_of_one"], 3),
                r["regions"], r["io_per_cycle"]))
        md.append("")
        hb = {int(r["procs"]): r for r in host}
        ht = []
        if 100 in hb:
            pct = float(hb[100]["cpu_pct_of_one"])
            ht.append(("pageoutd CPU <= 1% of one CPU at 100 processes, 5 s cycle (native)",
                       pct <= 1, "%s%%" % f(pct, 3)))
        top = max(hb)
        if 10 in hb and top > 10 and float(hb[10]["cpu_ms_per_cycle"]) > 0:
            g = float(hb[top]["cpu_ms_per_cycle"]) / float(hb[10]["cpu_ms_per_cycle"])
            ht.append(("growth in processes no worse than linear, native (10 -> %d: <= %dx)" %
                       (top, top // 10), g <= top // 10, "%sx" % f(g, 1)))
        md += ["| target | met | figure |", "|---|---|---|"]
        for name, met, fig in ht:
            md.append("| %s | %s | %s |" % (name, "met" if met else "**not met**", fig))
        md.append("")
    else:
        md += ["(not run: bench/host/cycle needs root and a memory cgroup)", ""]
    with open(os.path.join(out, "README.md"), "w") as fo:
        fo.write("\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    main()
