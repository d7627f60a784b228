#!/usr/bin/python3
"""Independent NumPy reference for `linear-sa` and `least-squares` problem files: x* and FedAvg's
stationary mean (THEORY (L0), (L1); docs/problem-formats-linear-sa.md).

Reads a problem file (as written by theory/problems/garnet.hpp or diabetes_data.hpp, or by hand)
and prints one JSON object, so that the C++ exact moments can be cross-checked after merging.
Nothing here comes from theory/*.cpp; the formulas are those of docs/THEORY.md §11:

  * client means, with the sample weights normalised per client (a step draws samples with
    probabilities ∝ weight): Ā_c = Σ_k w_k A_k / Σ_k w_k, b̄_c likewise; a least-squares client is
    the samples A_j = a_j a_jᵀ + λI, b_j = y_j a_j with equal weights, so Ā_c = AᵀA/n_c + λI and
    b̄_c = Aᵀy/n_c (formed directly from the table);
  * client weights p_c ("weight" of a client, else 1), normalised to sum 1;
  * x* solves (Σ_c p_c Ā_c) x = Σ_c p_c b̄_c;
  * FedAvg's stationary mean, (L1): SCAFFLSA's closed form (Mangold et al. 2024, the
    `compute_bias` of pmangold/scafflsa, here with weights p_c instead of 1/N):
        x_lim + (Σ_c p_c M_c)⁻¹ Σ_c p_c M_c (θ_c − x_lim),  M_c = I − (I − γĀ_c)^H,
        θ_c = Ā_c⁻¹ b̄_c,  x_lim = x*;
    and, as a second computation that needs neither θ_c nor x*, the fixed point of the mean round
        x ↦ Σ_c p_c [(I − γĀ_c)^H x + γ Σ_{k<H} (I − γĀ_c)^k b̄_c],
    solved as (Σ_c p_c M_c) x = γ Σ_c p_c S_c b̄_c, S_c = Σ_{k<H} (I − γĀ_c)^k (by H steps of the
    mean recursion, no matrix power). Their relative difference is printed (`closed_form_vs_solve`,
    expect ~1e-13: it checks the closed form's derivation on the file at hand).
  * stability: min_c min Re λ(Ā_c) (> 0 is the DESIGN requirement), whether Ā_c is symmetric,
    and the spectral radius of the mean round's linear part Σ_c p_c (I − γĀ_c)^H (< 1: the mean
    converges; the second moment needs more, see THEORY (L1)).

Usage:  linear_sa_fixed_point.py PROBLEM.json --gamma 0.05 --local-steps 4
Prints: {"kind", "dim", "clients", "gamma", "local_steps", "x_star", "fedavg_mean",
         "fedavg_mean_solve", "closed_form_vs_solve", "fedavg_bias", "fedavg_bias_norm",
         "theta_clients", "min_real_eigenvalue", "clients_symmetric", "round_spectral_radius"}
"""
import argparse
import json
import sys

import numpy as np


def client_means(problem):
    """[(Ā_c, b̄_c)] and the normalised client weights p_c."""
    kind = problem.get("kind")
    means = []
    for c, client in enumerate(problem["clients"]):
        if kind == "linear-sa":
            w = np.array([s["weight"] for s in client["samples"]], dtype=float)
            a = np.array([s["A"] for s in client["samples"]], dtype=float)
            b = np.array([s["b"] for s in client["samples"]], dtype=float)
            if w.sum() <= 0:
                raise ValueError(f"clients[{c}].samples: weights sum to {w.sum()}")
            w = w / w.sum()
            means.append((np.einsum("k,kij->ij", w, a), w @ b))
        elif kind == "least-squares":
            x = np.array(client["features"], dtype=float)
            y = np.array(client["targets"], dtype=float)
            lam = float(problem.get("l2", 0.0))
            n = x.shape[0]
            means.append((x.T @ x / n + lam * np.eye(x.shape[1]), x.T @ y / n))
        else:
            raise ValueError(f"kind: expected linear-sa or least-squares, got {kind!r}")
    p = np.array([float(cl.get("weight", 1.0)) for cl in problem["clients"]])
    return means, p / p.sum()


def fedavg_mean(means, p, gamma, local_steps):
    d = means[0][0].shape[0]
    eye = np.eye(d)
    abar = sum(pc * a for pc, (a, _) in zip(p, means))
    bbar = sum(pc * b for pc, (_, b) in zip(p, means))
    x_star = np.linalg.solve(abar, bbar)

    # Closed form (SCAFFLSA): M_c = I − (I − γĀ_c)^H.
    m = [eye - np.linalg.matrix_power(eye - gamma * a, local_steps) for a, _ in means]
    theta = [np.linalg.solve(a, b) for a, b in means]
    m_bar = sum(pc * mc for pc, mc in zip(p, m))
    rhs = sum(pc * mc @ (th - x_star) for pc, mc, th in zip(p, m, theta))
    closed = x_star + np.linalg.solve(m_bar, rhs)

    # Fixed point of the mean round, by H steps of the recursion u ← (I − γĀ_c) u + γ b̄_c from 0
    # (which gives γ S_c b̄_c) and of U ← (I − γĀ_c) U from I (which gives (I − γĀ_c)^H).
    drift = np.zeros(d)
    contraction = np.zeros((d, d))
    for pc, (a, b) in zip(p, means):
        u = np.zeros(d)
        big_u = eye.copy()
        for _ in range(local_steps):
            u = u - gamma * (a @ u) + gamma * b
            big_u = big_u - gamma * (a @ big_u)
        drift += pc * u
        contraction += pc * big_u
    solve = np.linalg.solve(eye - contraction, drift)
    radius = float(np.max(np.abs(np.linalg.eigvals(contraction))))
    return x_star, closed, solve, theta, radius


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("problem", help="problem file (JSON, kind linear-sa or least-squares)")
    parser.add_argument("--gamma", type=float, required=True, help="step size γ > 0")
    parser.add_argument("--local-steps", type=int, default=1, help="local steps H ≥ 1")
    args = parser.parse_args(argv)
    if not (args.gamma > 0) or args.local_steps < 1:
        parser.error("need --gamma > 0 and --local-steps >= 1")
    with open(args.problem, encoding="utf-8") as f:
        problem = json.load(f)
    means, p = client_means(problem)
    x_star, closed, solve, theta, radius = fedavg_mean(means, p, args.gamma, args.local_steps)
    eig = [np.linalg.eigvals(a) for a, _ in means]
    out = {
        "kind": problem["kind"],
        "dim": int(x_star.size),
        "clients": len(means),
        "gamma": args.gamma,
        "local_steps": args.local_steps,
        "x_star": x_star.tolist(),
        "fedavg_mean": closed.tolist(),
        "fedavg_mean_solve": solve.tolist(),
        "closed_form_vs_solve": float(np.linalg.norm(closed - solve) / np.linalg.norm(solve)),
        "fedavg_bias": (closed - x_star).tolist(),
        "fedavg_bias_norm": float(np.linalg.norm(closed - x_star)),
        "theta_clients": [t.tolist() for t in theta],
        "min_real_eigenvalue": float(min(e.real.min() for e in eig)),
        "clients_symmetric": [bool(np.array_equal(a, a.T)) for a, _ in means],
        "round_spectral_radius": radius,
    }
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
