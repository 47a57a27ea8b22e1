#!/usr/bin/python3
"""Test of bench/scaling's command line on tiny ResNet chains (a second each):
--repeat K runs every size K times, the sizes in turn within each repeat, and
the CSV lists every run with its `run` index; the Markdown says the fits take
each size's least value, and its seed-time exponent is the fit of the least
seed times of the CSV; bad arguments exit 2 with a one-line error and write
nothing.

Usage: scaling_tool_test.py path/to/scaling"""

import csv
import math
import os
import re
import subprocess
import sys
import tempfile

scaling = sys.argv[1]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


with tempfile.TemporaryDirectory() as tmp:
    out_csv = os.path.join(tmp, "s.csv")
    out_md = os.path.join(tmp, "s.md")
    args = [scaling, "--families", "resnet", "--strategies", "eqsat-dag", "--sizes", "300,1000",
            "--repeat", "3", "--clock", "cpu", "--verify-max-nodes", "0", "--csv", out_csv,
            "--markdown", out_md]
    p = subprocess.run(args, capture_output=True, text=True, timeout=300)
    check(p.returncode == 0, f"scaling exited {p.returncode}: {p.stderr}")
    rows = list(csv.DictReader(open(out_csv)))
    check([(r["nodes"], r["run"]) for r in rows] ==
          [("311", "0"), ("993", "0"), ("311", "1"), ("993", "1"), ("311", "2"), ("993", "2")],
          f"runs in the CSV: {[(r['nodes'], r['run']) for r in rows]}")
    check(all(r["status"] == "ok" for r in rows), "a run did not finish")
    check(len(re.findall(r"run \d of 3", p.stderr)) == 6, f"progress lines: {p.stderr}")
    md = open(out_md).read()
    check("Every size ran 3 times" in md, "the Markdown does not say how the runs are reduced")
    m = re.search(r"\| resnet \| eqsat-dag \| seed time \| ([0-9.-]+) ", md)
    check(m is not None, "no seed-time exponent in the Markdown")
    if m and len(rows) == 6:
        least = {}
        for r in rows:
            n, t = int(r["nodes"]), float(r["seed_cpu_ms"])
            least[n] = min(least.get(n, t), t)
        # The CSV rounds to 0.1 ms, the Markdown to two decimals.
        def exponent(small, large):
            return math.log(large / small) / math.log(993 / 311)
        lo = exponent(least[311] + 0.05, least[993] - 0.05) - 0.005
        hi = exponent(least[311] - 0.05, least[993] + 0.05) + 0.005
        check(lo <= float(m.group(1)) <= hi,
              f"seed exponent {m.group(1)}, the least seed times give {lo:.3f}-{hi:.3f}")

    for bad in (["--repeat", "0"], ["--repeat", "x"], ["--repeat"]):
        q = subprocess.run([scaling] + bad + ["--csv", os.path.join(tmp, "bad.csv")],
                           capture_output=True, text=True, timeout=60)
        check(q.returncode == 2, f"{bad}: exit {q.returncode}")
        check(q.stderr.startswith("scaling: error: ") and q.stderr.count("\n") == 1,
              f"{bad}: {q.stderr!r}")
        check(not os.path.exists(os.path.join(tmp, "bad.csv")), f"{bad}: wrote the CSV")

for f in failures:
    print("FAIL:", f)
print("ok" if not failures else f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
