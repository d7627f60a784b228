#!/usr/bin/python3
"""False alarms of `fedverify conformance` at the smallest accepted sizes (issue 28 item 4): the
correct reference implementations (reference_fl.py) checked with --one-round-chains 16 and
--chains 2 (the minima), seeds 1..R. The four tests of a run share α = 0.01, so a calibrated check
flags at most α of the runs; the script fails when the flagged count exceeds αR + 3√(Rα(1 − α))
(R = 200: 6), the band of a binomial count at the nominal rate (one-sided, ≈ 0.1 % false alarm
of this check itself). Prints the count per implementation and the checks that failed.

Usage: false_alarms.py FEDVERIFY SOURCE_DIR [--runs 200]
"""
import argparse
import collections
import json
import math
import pathlib
import subprocess
import sys

ALPHA = 0.01  # fedverify conformance's default --alpha
CASES = [  # (name, fedverify options)
    ("fedavg", ["--algo", "fedavg"]),
    ("scaffold", ["--algo", "scaffold"]),
]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("fedverify")
    parser.add_argument("source")
    parser.add_argument("--runs", type=int, default=200)
    a = parser.parse_args()
    here = pathlib.Path(a.source) / "verify" / "conformance"
    ref = f"/usr/bin/python3 {here / 'reference_fl.py'}"
    limit = ALPHA * a.runs + 3 * math.sqrt(a.runs * ALPHA * (1 - ALPHA))
    ok = True
    for name, options in CASES:
        flagged, failing = 0, collections.Counter()
        for seed in range(1, a.runs + 1):
            cmd = [a.fedverify, "conformance", "--problem", str(here / "problem.json"), "--gamma",
                   "0.05", "--local-steps", "10", "--one-round-chains", "16", "--chains", "2",
                   "--seed", str(seed), *options, "--exec", ref]
            p = subprocess.run(cmd, capture_output=True, text=True, check=False)
            if p.returncode not in (0, 1):
                print(f"{name}, seed {seed}: exit {p.returncode}: {p.stderr.strip()}",
                      file=sys.stderr)
                return 1
            out = json.loads(p.stdout)
            if not out["conforms"]:
                flagged += 1
                failing.update(c["name"] for c in out["checks"] if not c["passed"])
        verdict = "ok" if flagged <= limit else "TOO MANY"
        ok = ok and flagged <= limit
        print(f"{name}: {flagged} of {a.runs} flagged (limit {limit:.1f}) {verdict}; "
              f"failing checks: {dict(failing)}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
