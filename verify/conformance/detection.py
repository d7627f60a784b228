#!/usr/bin/python3
"""Detection rates of `fedverify conformance` over seeds: every planted bug of reference_fl.py and
the correct implementations, each run with seeds 1..S; prints a markdown table (bug, algorithm,
runs flagged as not conforming, the checks that failed most) and exits 1 when a bug is detected
in fewer than --min-detection of its runs or a correct implementation is flagged in more than
--max-false of its runs (the four tests of a run share α = 0.01, so ≈ 1 % false alarms).

Usage: detection.py FEDVERIFY SOURCE_DIR [--seeds 20]
"""
import argparse
import collections
import json
import pathlib
import subprocess
import sys

CASES = [  # (name, fedverify options, reference_fl.py --bug, is a bug)
    ("fedavg correct", ["--algo", "fedavg"], "none", False),
    ("scaffold correct", ["--algo", "scaffold"], "none", False),
    ("fedprox correct", ["--algo", "fedopt", "--client", "fedprox:mu=0.5"], "none", False),
    ("fedavg S=2/3 correct", ["--algo", "fedopt", "--participating", "2"], "none", False),
    ("scaffold S=2/3 correct", ["--algo", "scaffold", "--participating", "2"], "none", False),
    ("scaffold: correction sign", ["--algo", "scaffold"], "correction_sign", True),
    ("scaffold: server adds c_i", ["--algo", "scaffold"], "server_adds_ci", True),
    ("scaffold: local-step count", ["--algo", "scaffold"], "cv_step_count", True),
    ("scaffold: random c init", ["--algo", "scaffold"], "random_cv_init", True),
    ("fedprox: square missing", ["--algo", "fedopt", "--client", "fedprox:mu=0.5"],
     "prox_no_square", True),
    ("fedavg: weights sum 1.05", ["--algo", "fedavg"], "weights_not_one", True),
    ("fedavg S=2/3: N for S", ["--algo", "fedopt", "--participating", "2"], "n_for_s", True),
    ("scaffold S=2/3: |S| for N", ["--algo", "scaffold", "--participating", "2"], "cv_s_for_n",
     True),
    ("scaffold: correction never applied", ["--algo", "scaffold"], "no_correction", True),
    ("fedavg: one client per round", ["--algo", "fedavg"], "one_client", True),
    ("fedavg: server step 1.5", ["--algo", "fedavg"], "server_step", True),
    ("fedavg: stale gradient", ["--algo", "fedavg"], "stale_gradient", True),
    # Server rules (issue 28): FedAvgM, FedAdam (the simulated reference), Scaffold's η_g (S9).
    ("fedavgm correct", ["--algo", "fedopt", "--server", "sgd:lr=0.7,momentum=0.5"], "none",
     False),
    ("fedavgm: momentum buffer reset", ["--algo", "fedopt", "--server", "sgd:lr=0.7,momentum=0.5"],
     "momentum_reset", True),
    ("fedavgm: server rule ignored", ["--algo", "fedopt", "--server", "sgd:lr=0.7,momentum=0.5"],
     "server_lr_ignored", True),
    ("fedadam correct", ["--algo", "fedopt", "--server", "adam:lr=0.05"], "none", False),
    ("fedadam: no bias correction", ["--algo", "fedopt", "--server", "adam:lr=0.05"],
     "adam_no_bias_correction", True),
    ("scaffold eta_g=0.7 correct", ["--algo", "scaffold", "--server-lr", "0.7"], "none", False),
    ("scaffold eta_g=0.7: eta_g ignored", ["--algo", "scaffold", "--server-lr", "0.7"],
     "server_lr_ignored", True),
]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("fedverify")
    parser.add_argument("source")
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--min-detection", type=float, default=0.9)
    parser.add_argument("--max-false", type=float, default=0.1)
    parser.add_argument("--match", default="", help="run only the cases whose name contains this")
    a = parser.parse_args()
    here = pathlib.Path(a.source) / "verify" / "conformance"
    ref = f"/usr/bin/python3 {here / 'reference_fl.py'}"
    print("| implementation | flagged | failing checks (count over runs) |")
    print("|---|---|---|")
    ok = True
    for name, options, bug, is_bug in CASES:
        if a.match not in name and not (a.match == "bugs" and is_bug):
            continue
        flagged, failing = 0, collections.Counter()
        for seed in range(1, a.seeds + 1):
            cmd = [a.fedverify, "conformance", "--problem", str(here / "problem.json"), "--gamma",
                   "0.05", "--local-steps", "10", "--rounds", "300", "--burn-in", "50", "--seed", str(seed), *options, "--exec",
                   f"{ref} --bug {bug}"]
            p = subprocess.run(cmd, capture_output=True, text=True, check=False)
            if p.returncode not in (0, 1):
                print(f"{name}, seed {seed}: exit {p.returncode}: {p.stderr.strip()}", file=sys.stderr)
                ok = False
                continue
            out = json.loads(p.stdout)
            if not out["conforms"]:
                flagged += 1
                failing.update(c["name"] for c in out["checks"] if not c["passed"])
        rate = flagged / a.seeds
        checks = ", ".join(f"{k} {v}" for k, v in failing.most_common())
        print(f"| {name} | {flagged}/{a.seeds} | {checks or '—'} |")
        if is_bug and rate < a.min_detection or not is_bug and rate > a.max_false:
            ok = False
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
