#!/usr/bin/python3
"""Numba per-chain FedAvg samplers: what a researcher would write to make a Python chain fast.

The same samplers as bench/numpy_reference.py (THEORY F0, §6), written chain by chain with
explicit loops and compiled by Numba (Debian python3-numba); the chains run in parallel with
numba.prange over chains, numba.set_num_threads(threads) threads:
  quadratic: stochastic gradient A_c (y − b_c) + R_c z, z ~ N(0, I) (np.random in nopython mode);
  logistic:  batch 1, index uniform over the client's n_c samples,
             gradient φ'(y aᵀx) y a + λx with φ'(s) = −1/(1 + e^s).
Each chain seeds Numba's per-thread generator with seed + chain at the start of a run.
Run: /usr/bin/python3 bench/numba_reference.py [--seconds S] (or through bench/throughput.py).
"""
import argparse
import time

import numba
import numpy as np
from numba import njit, prange


@njit
def quadratic_local_steps(y, c, problem, gamma, local_steps, z, g):
    """H local steps of client c on y (in place): y ← y − γ(A_c (y − b_c) + R_c z)."""
    a, b, r = problem
    d = y.shape[0]
    for _h in range(local_steps):
        for i in range(d):
            z[i] = np.random.standard_normal()
        for i in range(d):
            s = 0.0
            for j in range(d):
                s += a[c, i, j] * (y[j] - b[c, j]) + r[c, i, j] * z[j]
            g[i] = s
        for i in range(d):
            y[i] -= gamma * g[i]


@njit
def logistic_local_steps(y, c, problem, gamma, local_steps, z, g):
    """H batch-1 local steps of client c on y (in place); z, g unused."""
    feats, labels, lam = problem
    d = y.shape[0]
    n_samples = labels.shape[1]
    for _h in range(local_steps):
        j = np.random.randint(0, n_samples)
        lab = labels[c, j]
        s = 0.0
        for i in range(d):
            s += feats[c, j, i] * y[i]
        coef = -lab / (1.0 + np.exp(lab * s))
        for i in range(d):
            y[i] -= gamma * (coef * feats[c, j, i] + lam * y[i])


@njit(parallel=True)
def fedavg(local_steps_fn, problem, n_clients, x0, gamma, local_steps, rounds, seed):
    """rounds FedAvg rounds of every chain (rows of x0, K×d), chain by chain in parallel;
    local_steps_fn is quadratic_local_steps or logistic_local_steps. Returns the final states."""
    k_chains, d = x0.shape
    out = np.empty_like(x0)
    for k in prange(k_chains):
        np.random.seed(seed + k)
        x = x0[k].copy()
        y = np.empty(d)
        z = np.empty(d)
        g = np.empty(d)
        total = np.empty(d)
        for _ in range(rounds):
            total[:] = 0.0
            for c in range(n_clients):
                y[:] = x
                local_steps_fn(y, c, problem, gamma, local_steps, z, g)
                total += y
            x[:] = total / n_clients
        out[k] = x
    return out


def quadratic_fedavg(x0, a, b, r, gamma, local_steps, rounds, seed):
    return fedavg(quadratic_local_steps, (a, b, r), a.shape[0], x0, gamma, local_steps, rounds,
                  seed)


def logistic_fedavg(x0, feats, labels, lam, gamma, local_steps, rounds, seed):
    return fedavg(logistic_local_steps, (feats, labels, lam), labels.shape[0], x0, gamma,
                  local_steps, rounds, seed)


def rate(run, chain_steps_per_round, seconds):
    """Chain-steps per second of run(rounds), after a compile-and-warm-up call."""
    run(1)
    rounds = 1
    while True:
        start = time.perf_counter()
        run(rounds)
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return rounds * chain_steps_per_round / elapsed
        rounds *= 2


def main():
    import numpy_reference as ref  # the same problems as the NumPy peer

    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=1.0)
    args = parser.parse_args()
    rng = np.random.default_rng(1)
    n_clients, local_steps, gamma, k = 10, 10, 0.01, 4096
    for threads in (1, 2):
        numba.set_num_threads(threads)
        for d in (10, 100):
            chains = k if d == 10 else 256  # a round of 4096 chains at d = 100 takes ~20 s
            a, b, r = (np.array(m) for m in ref.quadratic_problem(rng, d, n_clients))
            x0 = np.zeros((chains, d))
            per_round = chains * n_clients * local_steps
            value = rate(lambda t: quadratic_fedavg(x0, a, b, r, gamma, local_steps, t, 1),
                         per_round, args.seconds)
            print(f"quadratic/d={d}/K={chains}/threads={threads} chain_steps_per_s={value:.4g}")
        feats, labels = (np.array(m) for m in ref.logistic_problem(rng, 10, n_clients, 50))
        x0 = np.zeros((k, 10))
        value = rate(lambda t: logistic_fedavg(x0, feats, labels, 0.1, gamma, local_steps, t, 1),
                     k * n_clients * local_steps, args.seconds)
        print(f"logistic/d=10/K={k}/batch=1/threads={threads} chain_steps_per_s={value:.4g}")


if __name__ == "__main__":
    main()
