#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Every measured figure in README.md comes from a committed result.

In README.md's "How it compares" section each paragraph, and the table after it, names the
result files its figures come from (`bench/results/FILE`). Each figure there (a number with a
unit: %, s, ms, MiB, x, or a bare ratio like 0.89) must be found in those files, at the
precision the README gives it; a block with figures and no result file fails. So a figure
with no source, or one whose result was measured again and changed, fails make check."""
import os
import re
import sys

top = os.environ.get("top_srcdir", os.path.join(os.path.dirname(__file__), "..", ".."))
n = failed = 0


def ok(cond, what, diag=None):
    global n, failed
    n += 1
    print(("ok" if cond else "not ok") + " %d - %s" % (n, what))
    if not cond:
        failed += 1
        if diag:
            print("\n".join("# " + line for line in str(diag).splitlines()))
    return cond


NUM = r"\d[\d,]*(?:\.\d+)?"
# a figure: a number (or a range a-b) and its unit; ratios "at 0.89 of"
FIG = re.compile(r"(?<![\w.])(%s)(?:\s*[–-]\s*(%s))?\s*(%%|s\b|ms\b|MiB\b|KiB\b|kB\b|x\b|×)" %
                 (NUM, NUM))
RATIO = re.compile(r"(?<![\w.])(0\.\d+)(?![\w.])")


def numbers(text):
    """every number in a result file, as floats"""
    return [float(m.replace(",", "")) for m in re.findall(NUM, text)]


def found(fig, pool):
    """fig (a string as written) is in pool at its own precision"""
    v = float(fig.replace(",", ""))
    d = len(fig.split(".")[1]) if "." in fig else 0
    return any(round(x, d) == round(v, d) for x in pool)


readme = open(os.path.join(top, "README.md")).read()
sec = readme.split("\n## How it compares", 1)
ok(len(sec) == 2, "README.md has a section How it compares")
body = sec[1].split("\n## ", 1)[0] if len(sec) == 2 else ""
blocks = [b for b in re.split(r"\n\s*\n", body) if b.strip()]
cited = []
for b in blocks:
    files = re.findall(r"`(bench/results/[\w.-]+)`", b)
    # a table takes the files of the paragraph before it
    if files or not b.lstrip().startswith("|"):
        cited = files
    figs = [(m.group(0), [g for g in (m.group(1), m.group(2)) if g]) for m in FIG.finditer(b)]
    figs += [(m.group(1), [m.group(1)]) for m in RATIO.finditer(b)
             if not any(m.group(1) in f for f, _ in figs)]
    # the workload's own parameters are in the result files' descriptions too
    if not figs:
        continue
    head = b.strip().splitlines()[0][:60]
    if not ok(cited, "a result file is named for the figures of: %s" % head):
        continue
    pool = []
    missing = [p for p in cited if not os.path.exists(os.path.join(top, p))]
    ok(not missing, "the result files of '%s' are in the tree" % head, ", ".join(missing))
    for p in cited:
        if os.path.exists(os.path.join(top, p)):
            pool += numbers(open(os.path.join(top, p)).read())
    for fig, parts in figs:
        ok(all(found(x, pool) for x in parts), "%s (%s) is in %s" % (fig, head[:30],
                                                                  ", ".join(cited)))
print("1..%d" % n)
sys.exit(1 if failed else 0)
