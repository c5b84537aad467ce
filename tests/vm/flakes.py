#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""flakes.py LABEL=LOG...: per-check failure counts over boots of make check-vm.

Each LOG is the output of tests/vm/check.sh (make check-vm or make check-matrix), LABEL what it
ran (a commit). Prints a Markdown table: per kernel, the boots, and for each check that failed
in any boot (its name with numbers blanked, so that one check keeps one name), the boots it
failed in; then the check retries and the boots again before the payload. The rows are what
tests/vm/flakes.md records."""
import collections
import re
import sys

boots = collections.Counter()  # kernel -> boots
fails = collections.Counter()  # (kernel, program, check) -> boots failed
retries = collections.Counter()
early = collections.Counter()
labels = collections.defaultdict(list)
for arg in sys.argv[1:]:
    label, path = arg.split("=", 1)
    prog = {}
    seen = set()
    summary = False  # check.sh's summary repeats the failures: not counted again
    for line in open(path, errors="replace"):
        if line.startswith("== check-vm failures"):
            summary = True
        elif line.startswith("== check-vm:"):
            summary = False
        if summary:
            continue
        m = re.match(r"== (\d[\w.]*): (\d+) checks", line)
        if m:
            boots[m.group(1)] += 1
            labels[m.group(1)].append(label)
            continue
        m = re.match(r"\[(\S+)\] (.*)", line.rstrip("\n"))
        if not m:
            continue
        k, rest = m.groups()
        g = re.match(r"# guest test: (.+?)( exit \d+ in \d+ s)?$", rest)
        if g:
            prog[k] = g.group(1) if not g.group(2) else prog.get(k, "")
            continue
        if rest.startswith("not ok "):
            name = re.sub(r"\d+(\.\d+)?", "N", re.sub(r"^not ok \d+ - ", "", rest))[:100]
            key = (k, prog.get(k, "?"), name)
            if key not in seen:  # once per boot
                seen.add(key)
                fails[key] += 1
        elif rest.startswith("# retry: "):
            retries[k] += 1
        elif rest.startswith("vm: the guest died before the payload started"):
            early[k] += 1
print("| kernel | boots (what each ran) | check retries | boots again before the payload |")
print("|---|---|---|---|")
for k in sorted(boots):
    print("| %s | %d (%s) | %d | %d |" % (k, boots[k], "; ".join(labels[k]), retries[k],
                                        early[k]))
print()
print("| kernel | program | check (numbers blanked) | boots it failed in |")
print("|---|---|---|---|")
if not fails:
    print("| - | - | no check failed in any boot | - |")
for (k, p, name), c in sorted(fails.items()):
    print("| %s | %s | %s | %d of %d |" % (k, p, name.replace("|", "\\|"), c, boots[k]))
