#!/usr/bin/python3
"""Throughput table of bench/README.md: NumPy, Numba and `fedverify simulate` on the same problems.

FedAvg, N = 10 clients, H = 10 local steps, γ = 0.01, K = 4096 chains (the Python peers: 256 at
d = 100, see PEER_CHAINS); quadratic d = 10 and
d = 100 (the problems of bench/numpy_reference.py, noise covariance R_c R_cᵀ), logistic d = 10,
50 samples per client, λ = 0.1, batch 1. One chain-step = one local step of one client in one
chain. The problems are written as JSON for fedverify (docs/PROBLEM_FORMATS.md); `simulate` is
timed as a whole process (start, sampling, moments, JSON output), at 1 and 2 threads, for each
binary given. NumPy runs its vectorised sampler on one thread (reference BLAS); Numba its
per-chain sampler (bench/numba_reference.py) on 1 and 2 threads.

Run: /usr/bin/python3 bench/throughput.py --fedverify build/fedverify [--fedverify OTHER ...]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numba  # noqa: E402
import numba_reference  # noqa: E402
import numpy_reference  # noqa: E402

N_CLIENTS, LOCAL_STEPS, GAMMA, CHAINS, L2 = 10, 10, 0.01, 4096, 0.1
PER_ROUND = CHAINS * N_CLIENTS * LOCAL_STEPS
# Rounds of one `simulate` run per case (half of them burn-in), about a second each.
SIMULATE_ROUNDS = {"quadratic d=10": 200, "quadratic d=100": 12, "logistic d=10": 600}
# Chains of the Python peers: at d = 100 one round of 4096 chains takes NumPy and Numba 10–30 s,
# so they run 256 chains there (their per-chain-step cost does not fall with K beyond that:
# bench/README.md run 1, NumPy 33.0 k/s at K = 256 and 33.9 k/s at K = 4096).
PEER_CHAINS = {"quadratic d=100": 256}


def problems():
    rng = np.random.default_rng(1)
    out = {}
    for d in (10, 100):
        a, b, r = numpy_reference.quadratic_problem(rng, d, N_CLIENTS)
        out[f"quadratic d={d}"] = ("quadratic", (a, b, r))
    feats, labels = numpy_reference.logistic_problem(rng, 10, N_CLIENTS, 50)
    out["logistic d=10"] = ("logistic", (feats, labels))
    return out


def problem_json(kind, data):
    if kind == "quadratic":
        a, b, r = data
        clients = [{"hessian": ac.tolist(), "optimum": bc.tolist(), "noise_cov": (rc @ rc.T).tolist()}
                   for ac, bc, rc in zip(a, b, r)]
        return {"kind": "quadratic", "clients": clients}
    feats, labels = data
    clients = [{"features": f.tolist(), "labels": y.tolist()} for f, y in zip(feats, labels)]
    return {"kind": "logistic", "l2": L2, "batch_size": 1, "clients": clients}


def numpy_rate(kind, data, chains, seconds):
    rng = np.random.default_rng(2)
    if kind == "quadratic":
        a, b, r = data
        state = {"x": np.zeros((a[0].shape[0], chains))}

        def step():
            state["x"] = numpy_reference.fedavg_quadratic_round(state["x"], a, b, r, GAMMA,
                                                                LOCAL_STEPS, rng)
    else:
        feats, labels = data
        state = {"x": np.zeros((chains, feats[0].shape[1]))}

        def step():
            state["x"] = numpy_reference.fedavg_logistic_round(state["x"], feats, labels, L2, GAMMA,
                                                               LOCAL_STEPS, rng)
    return numpy_reference.time_rounds(step, chains * N_CLIENTS * LOCAL_STEPS, seconds)


def numba_rate(kind, data, chains, threads, seconds):
    numba.set_num_threads(threads)
    if kind == "quadratic":
        a, b, r = (np.array(m) for m in data)
        x0 = np.zeros((chains, a.shape[1]))
        run = lambda t: numba_reference.quadratic_fedavg(x0, a, b, r, GAMMA, LOCAL_STEPS, t, 1)
    else:
        feats, labels = (np.array(m) for m in data)
        x0 = np.zeros((chains, feats.shape[2]))
        run = lambda t: numba_reference.logistic_fedavg(x0, feats, labels, L2, GAMMA, LOCAL_STEPS,
                                                        t, 1)
    return numba_reference.rate(run, chains * N_CLIENTS * LOCAL_STEPS, seconds)


def simulate_rate(binary, path, rounds, threads):
    cmd = [binary, "simulate", "--problem", path, "--algo", "fedavg", "--gamma", str(GAMMA),
           "--local-steps", str(LOCAL_STEPS), "--chains", str(CHAINS), "--rounds", str(rounds),
           "--burn-in", str(rounds // 2), "--seed", "1", "--threads", str(threads)]
    start = time.perf_counter()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    elapsed = time.perf_counter() - start
    steps = json.loads(out)["chain_steps"]
    assert steps == rounds * PER_ROUND, (steps, rounds * PER_ROUND)
    return steps / elapsed


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--fedverify", action="append", required=True,
                        help="a fedverify binary (repeat to compare binaries in the same run)")
    parser.add_argument("--seconds", type=float, default=1.0, help="NumPy / Numba timing length")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for case, (kind, data) in problems().items():
            path = os.path.join(tmp, case.replace(" ", "_") + ".json")
            with open(path, "w") as f:
                json.dump(problem_json(kind, data), f)
            peers = PEER_CHAINS.get(case, CHAINS)
            row = {"case": case, "peer_chains": peers,
                   "numpy": numpy_rate(kind, data, peers, args.seconds)}
            for threads in (1, 2):
                row[f"numba/{threads}"] = numba_rate(kind, data, peers, threads, args.seconds)
                for i, binary in enumerate(args.fedverify):
                    row[f"fedverify{i}/{threads}"] = simulate_rate(binary, path,
                                                                   SIMULATE_ROUNDS[case], threads)
            rows.append(row)
            print(json.dumps(row), flush=True)
    print()
    names = " | ".join(f"fedverify {b} (1 / 2 thr)" for b in args.fedverify)
    print(f"| case | NumPy | Numba (1 / 2 thr) | {names} | "
          "fedverify[0] / Numba (1 / 2 thr) | fedverify[0] / NumPy (1 / 2 thr) |")
    print("|---" * (5 + len(args.fedverify)) + "|")
    for row in rows:
        cells = [f"{row['case']} (peers K = {row['peer_chains']})", f"{row['numpy']:.3g}", f"{row['numba/1']:.3g} / {row['numba/2']:.3g}"]
        for i in range(len(args.fedverify)):
            cells.append(f"{row[f'fedverify{i}/1']:.3g} / {row[f'fedverify{i}/2']:.3g}")
        f1, f2 = row["fedverify0/1"], row["fedverify0/2"]
        cells.append(f"{f1 / row['numba/1']:.1f}× / {f2 / row['numba/2']:.1f}×")
        cells.append(f"{f1 / row['numpy']:.1f}× / {f2 / row['numpy']:.1f}×")
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
