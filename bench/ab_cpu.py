#!/usr/bin/python3
"""CPU-time A/B of two (or more) builds, interleaved, for a machine whose real time is not reliable.

Each repetition runs every binary once, one after the other, so that all see the same load:
- engine_bench (--engine-bench, repeatable) with --benchmark_filter: CPU nanoseconds per
  chain-step (CPU time per iteration / chain-steps per iteration);
- `fedverify simulate` (--fedverify, repeatable) on bench/throughput.py's problems (FedAvg,
  N = 10, H = 10, γ = 0.01, K = 4096, its rounds, one thread), timed by `/usr/bin/time -f %U`:
  user nanoseconds per chain-step of the whole process.
Prints the median over the repetitions, min–max, and the speed-up of the first binary over each
other one (their median / its median; > 1: the first is faster). Also checks that every binary prints the same `simulate` JSON.

Run: /usr/bin/python3 bench/ab_cpu.py --reps 5 \\
       --engine-bench build/engine_bench --engine-bench OLD/engine_bench \\
       --fedverify build/fedverify --fedverify OLD/fedverify
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import throughput  # noqa: E402

FILTER = "quadratic_fedavg/K:4096/threads:1|logistic_fedavg/K:4096/threads:1"


def engine_bench(binary, flt):
    out = subprocess.run([binary, "--benchmark_min_time=0.5", "--benchmark_format=json",
                          f"--benchmark_filter={flt}"], check=True, capture_output=True,
                         text=True).stdout
    rows = {}
    for bm in json.loads(out)["benchmarks"]:
        steps_per_iteration = bm["chain_steps"] * bm["real_time"] * 1e-3  # real_time in ms
        rows[bm["name"]] = bm["cpu_time"] * 1e6 / steps_per_iteration
    return rows


def simulate(binary, path, rounds):
    cmd = ["/usr/bin/time", "-f", "%U", binary, "simulate", "--problem", path, "--algo", "fedavg",
           "--gamma", str(throughput.GAMMA), "--local-steps", str(throughput.LOCAL_STEPS),
           "--chains", str(throughput.CHAINS), "--rounds", str(rounds), "--burn-in",
           str(rounds // 2), "--seed", "1", "--threads", "1"]
    p = subprocess.run(cmd, check=True, capture_output=True, text=True)
    user = float(p.stderr.strip().splitlines()[-1])
    return user * 1e9 / (rounds * throughput.PER_ROUND), p.stdout


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--engine-bench", action="append", default=[])
    parser.add_argument("--fedverify", action="append", default=[])
    parser.add_argument("--filter", default=FILTER)
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    samples = {}  # (case, binary index) -> [ns per chain-step]
    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        for case, (kind, data) in throughput.problems().items():
            paths[case] = os.path.join(tmp, case.replace(" ", "_") + ".json")
            with open(paths[case], "w") as f:
                json.dump(throughput.problem_json(kind, data), f)
        for _ in range(args.reps):
            for i, binary in enumerate(args.engine_bench):
                for name, ns in engine_bench(binary, args.filter).items():
                    samples.setdefault(("engine_bench " + name, i), []).append(ns)
            for case, path in paths.items():
                outputs = []
                for i, binary in enumerate(args.fedverify):
                    ns, out = simulate(binary, path, throughput.SIMULATE_ROUNDS[case])
                    samples.setdefault(("simulate " + case, i), []).append(ns)
                    outputs.append(out)
                if any(out != outputs[0] for out in outputs):
                    print(f"simulate {case}: the binaries' JSON differ", flush=True)
    cases = list(dict.fromkeys(case for case, _ in samples))
    print("| case | " + " | ".join(f"binary {i}: median (min–max) ns/chain-step"
                                    for i in range(max(i for _, i in samples) + 1))
          + " | speed-up of binary 0 |")
    for case in cases:
        count = max(i for c, i in samples if c == case) + 1
        meds = [statistics.median(samples[(case, i)]) for i in range(count)]
        cells = [f"{m:.3g} ({min(samples[(case, i)]):.3g}–{max(samples[(case, i)]):.3g})"
                 for i, m in enumerate(meds)]
        ratios = ", ".join(f"{m / meds[0]:.3f}" for m in meds[1:])
        print(f"| {case} | " + " | ".join(cells) + f" | {ratios} |")


if __name__ == "__main__":
    main()
