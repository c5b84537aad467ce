#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""watch.py OUT KERNEL...: bench/results/watch.md and watch_plot-KERNEL.csv from the CSVs of
bench watch (what watching costs: kdamond + pageoutd CPU per 5 s cycle with the DAMON intervals
derived from min_age against the fixed 5 ms / 100 ms, and the reclaim speed both ways), with
issue 28's targets marked met or not."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report import f, rows  # noqa: E402  (bench/report.py, beside this file)

AGES = [3, 30, 120]


def factor(out, k):
    """The emulation factor of kernel k's boot: bench/host/cycle in the guest over natively,
    at the most processes both ran, the smallest of the boot's measurements (the most CPU a
    guest figure can mean natively; bench/report.py does the same); None when unknown."""
    host = {int(r["procs"]): float(r["cpu_ms_per_cycle"])
            for r in rows(os.path.join(out, "host_scale.csv"))}
    calib = {}
    for r in rows(os.path.join(out, "calib_watch-%s.csv" % k)):
        calib.setdefault(int(r["procs"]), []).append(float(r["cpu_ms_per_cycle"]))
    common = [n for n in calib if n in host and host[n] > 0]
    if not common:
        return None, None
    n = max(common)
    return min(calib[n]) / host[n], n


def age_name(a):
    return "2 min" if a == 120 else "%d s" % a


def kernel(out, k):
    ws = rows(os.path.join(out, "watch-%s.csv" % k))
    sp = rows(os.path.join(out, "watch_speed-%s.csv" % k))
    if not ws:
        return []
    fac, fn = factor(out, k)
    by = {}
    for r in ws:
        by[(int(r["procs"]), r["engine"], int(r["min_age_s"]), r["intervals"])] = r
    procs = sorted({n for n, _, _, _ in by})
    md = ["## Linux %s" % k, ""]
    if fac:
        md += ["Emulation factor of this boot: %sx (bench/host/cycle at %d processes, in the "
               "guest over natively). \"Real\" below is the guest's CPU divided by it: an "
               "estimate, since the kdamond's kernel code and pageoutd's user code need not "
               "slow down alike under TCG." % (f(fac, 1), fn), ""]
    md += ["| processes | engine | min_age | intervals | sample / aggregation in force | "
           "pageoutd ms per cycle | kdamond ms per cycle | total ms per cycle | total, % of one "
           "guest CPU | total, % of one real CPU (estimate) | derived / fixed |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for (n, e, a, iv), r in sorted(by.items(), key=lambda x: (x[0][0], x[0][1] != "vaddr",
                                                                 x[0][2], x[0][3] != "fixed")):
        tot = float(r["total_ms_per_cycle"])
        fx = by.get((n, e, a, "fixed"))
        ratio = tot / float(fx["total_ms_per_cycle"]) if iv == "derived" and fx and \
            float(fx["total_ms_per_cycle"]) > 0 else None
        # 0: the stats socket did not answer within its 10 s (pageoutd busy)
        ivs = ("%s ms / %s ms" % (f(int(r["sample_us"]) / 1000.0, 1),
                                  f(int(r["aggr_us"]) / 1000.0, 0))
               if int(r["sample_us"]) else "(no answer)")
        md.append("| %d | %s | %s | %s | %s | %s | %s | %s | %s%% | %s | %s |" % (
            n, e, age_name(a), iv, ivs, r["pageoutd_ms_per_cycle"],
            r["kdamond_ms_per_cycle"], r["total_ms_per_cycle"], f(tot / 50.0, 2),
            f(tot / 50.0 / fac, 2) + "%" if fac else "-", f(ratio, 2) if ratio else ""))
    md.append("")
    if sp:
        md += ["Reclaim speed at min_age 30 s, 5 s cycles (the quality workload: 3 processes "
               "with 32 MiB cold and 8 MiB hot each, pageoutd-vaddr):", "",
               "| run | cold out at the end | hot refaulted | time to 95% | in multiples of "
               "min_age |", "|---|---|---|---|---|"]
        for r in sp:
            md.append("| %s | %s%% | %s%% | %s | %s |" % (
                r["run"], f(r["cold_pct"]), f(r["hot_refault_pct"], 2),
                (r["t95_s"] + " s") if float(r["t95_s"]) > 0 else "never",
                f(r["t95_in_min_age"], 2) if float(r["t95_in_min_age"]) > 0 else "-"))
        md.append("")
    t = []
    r30 = by.get((100, "vaddr", 30, "derived"))
    if r30 and fac:
        pct = float(r30["total_ms_per_cycle"]) / 50.0 / fac
        t.append(("total CPU at 100 processes, min_age 30 s, <= 2% of one CPU after the "
                  "emulation factor", pct <= 2, "%s%%" % f(pct, 2)))
    for e in ("vaddr", "paddr"):
        d2, f2 = by.get((100, e, 120, "derived")), by.get((100, e, 120, "fixed"))
        if d2 and f2 and float(f2["total_ms_per_cycle"]) > 0:
            q = float(d2["total_ms_per_cycle"]) / float(f2["total_ms_per_cycle"])
            t.append(("total CPU at 100 processes, min_age 2 min (%s), <= a tenth of the fixed "
                      "intervals'" % e, q <= 0.1, "%s of it (%s ms against %s ms)" % (
                          f(q, 3), d2["total_ms_per_cycle"], f2["total_ms_per_cycle"])))
    sd = {r["intervals"]: r for r in sp}
    if "derived" in sd:
        m = float(sd["derived"]["t95_in_min_age"])
        t.append(("time to 95% of the cold set within 3 x min_age (30 s, derived)",
                  0 < m <= 3, "%s x" % f(m, 2) if m > 0 else "never"))
    if "derived" in sd and "fixed" in sd:
        hd, hf = float(sd["derived"]["hot_refault_pct"]), float(sd["fixed"]["hot_refault_pct"])
        t.append(("no more hot refaults than the fixed intervals (30 s)", hd <= hf,
                  "%s%% against %s%%" % (f(hd, 2), f(hf, 2))))
    if t:
        md += ["| target (issue 28) | met | figure |", "|---|---|---|"]
        for name, met, fig in t:
            md.append("| %s | %s | %s |" % (name, "met" if met else "**not met**", fig))
        md.append("")
    # the plot's table: total vaddr CPU per cycle by processes, a column per setting
    with open(os.path.join(out, "watch_plot-%s.csv" % k), "w") as fo:
        fo.write("procs," + ",".join("%ds-%s" % (a, iv) for a in AGES
                                     for iv in ("fixed", "derived")) + "\n")
        for n in procs:
            fo.write("%d," % n + ",".join(
                by[(n, "vaddr", a, iv)]["total_ms_per_cycle"] if (n, "vaddr", a, iv) in by
                else "" for a in AGES for iv in ("fixed", "derived")) + "\n")
    md += ["![total CPU, %s](watch-%s.png)" % (k, k), ""]
    return md


def main():
    out, kernels = sys.argv[1], sys.argv[2:]
    md = ["# What watching costs (bench watch)", "",
          "Written by bench/watch.py from `make bench` (step watch). pageoutd runs in dry-run "
          "mode (it watches and decides everything, advises nothing: the reclaim itself is the "
          "same work whatever the intervals) with one vaddr policy over N processes of 1 MiB "
          "cold and 256 KiB hot memory each (the scale step's), 5 s cycles, 10 s to start, then "
          "3 cycles measured; CPU is the guest's, under TCG. \"fixed\" is the 5 ms / 100 ms "
          "pageoutd gave every kdamond before its intervals followed the policies ([damon] "
          "sample_interval and aggr_interval set); \"derived\" leaves them to pageoutd "
          "(pageoutd.conf(5), [damon]). min_age 30 s is the shipped batch.conf's, 2 min the "
          "shipped machines.conf's (paddr, at 100 processes).", ""]
    for k in kernels:
        md += kernel(out, k)
    with open(os.path.join(out, "watch.md"), "w") as fo:
        fo.write("\n".join(md) + "\n")


if __name__ == "__main__":
    main()
