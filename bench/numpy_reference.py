#!/usr/bin/python3
"""Straightforward vectorised NumPy FedAvg samplers: the speed reference for bench/engine_bench.

The same samplers as estimators/chains (THEORY F0, §6), K chains advanced at once:
  quadratic: stochastic gradient A_c (x − b_c) + R_c z, z ~ N(0, I);
  logistic:  batch 1, index uniform over the client's n_c samples,
             gradient φ'(y aᵀx) y a + λx with φ'(s) = −1/(1 + e^s).
Prints one line per case: "<case> chain_steps_per_s=<value>" (one local step of one client in
one chain = one chain-step). Run: /usr/bin/python3 bench/numpy_reference.py [--seconds S]
"""
import argparse
import time

import numpy as np


def quadratic_problem(rng, d, n_clients):
    a, b, r = [], [], []
    for _ in range(n_clients):
        q, _ = np.linalg.qr(rng.standard_normal((d, d)))
        a.append((q * rng.uniform(0.5, 2.0, d)) @ q.T)
        b.append(rng.standard_normal(d))
        g = rng.standard_normal((d, d)) / np.sqrt(d)
        r.append(g)  # noise factor R_c, covariance R_c R_cᵀ
    return a, b, r


def fedavg_quadratic_round(x, a, b, r, gamma, local_steps, rng):
    d, k = x.shape
    total = np.zeros_like(x)
    for ac, bc, rc in zip(a, b, r):
        y = x.copy()
        for _ in range(local_steps):
            z = rng.standard_normal((d, k))
            y -= gamma * (ac @ (y - bc[:, None]) + rc @ z)
        total += y
    return total / len(a)


def logistic_problem(rng, d, n_clients, n_samples):
    feats, labels = [], []
    for _ in range(n_clients):
        f = rng.standard_normal((n_samples, d))
        w = rng.standard_normal(d)
        y = np.where(f @ w + 0.5 * rng.standard_normal(n_samples) > 0, 1.0, -1.0)
        feats.append(f)
        labels.append(y)
    return feats, labels


def fedavg_logistic_round(x, feats, labels, lam, gamma, local_steps, rng):
    k, d = x.shape  # row = chain: gathers of feature rows are contiguous
    total = np.zeros_like(x)
    for f, lab in zip(feats, labels):
        y = x.copy()
        n = f.shape[0]
        for _ in range(local_steps):
            idx = rng.integers(0, n, size=k)
            a = f[idx]
            yl = lab[idx]
            s = yl * np.einsum("kd,kd->k", a, y)
            coef = -yl / (1.0 + np.exp(s))  # φ'(s) y
            y -= gamma * (coef[:, None] * a + lam * y)
        total += y
    return total / len(feats)


def time_rounds(step, chain_steps_per_round, seconds):
    step()  # warm-up
    rounds, start = 0, time.perf_counter()
    while True:
        step()
        rounds += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return rounds * chain_steps_per_round / elapsed


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=1.0)
    args = parser.parse_args()
    rng = np.random.default_rng(1)
    n_clients, local_steps, gamma = 10, 10, 0.01
    for d in (10, 100):
        a, b, r = quadratic_problem(rng, d, n_clients)
        for k in (1, 256, 4096):
            state = {"x": np.zeros((d, k))}

            def step():
                state["x"] = fedavg_quadratic_round(state["x"], a, b, r, gamma, local_steps, rng)

            rate = time_rounds(step, k * n_clients * local_steps, args.seconds)
            print(f"quadratic/d={d}/K={k} chain_steps_per_s={rate:.4g}", flush=True)
    d, k = 10, 4096
    feats, labels = logistic_problem(rng, d, n_clients, 50)
    state = {"x": np.zeros((k, d))}

    def step_logistic():
        state["x"] = fedavg_logistic_round(state["x"], feats, labels, 0.1, gamma, local_steps, rng)

    rate = time_rounds(step_logistic, k * n_clients * local_steps, args.seconds)
    print(f"logistic/d={d}/K={k}/batch=1 chain_steps_per_s={rate:.4g}", flush=True)


if __name__ == "__main__":
    main()
