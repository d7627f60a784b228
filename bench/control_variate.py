#!/usr/bin/python3
"""The linearised control variate (docs/THEORY.md (L3), simulate --control-variate linearised):
variance reduction, mean(x − y)/γ against b_s, and the CPU seconds to confirm b_s within 5 %.

On one logistic problem (default: d = 3, N = 4 clients of 30 samples, H = 2, B = 1, FedAvg; the
issue's setting) and for each γL of --gamma-l, in ONE invocation (same machine load):

  1. `fedverify predict` gives x*, L and b_s = bias_stochastic/γ (THEORY (F3)).
  2. `fedverify simulate` without and with `--control-variate linearised` (same K, T, B, seed), each
     timed by its CPU seconds (user + system of the child).
  3. Variance-reduction factor Var(chain averages of x) / Var(chain averages of x − y) per
     coordinate = (mean_mcse / mean_cv_mcse)² (with K ≥ 32 chains the batch-means MCSE has one
     batch per chain, so MCSE² = Var(chain average)/K for both).
  4. b_s estimates: (mean − m_lin)/γ (plain) and (mean_cv − m_lin)/γ = mean(x − y)/γ (control
     variate), m_lin = linearised_mean_exact; their standard errors are the MCSEs over γ.
  5. CPU seconds to confirm b_s within 5 %: the run's standard error scales like 1/√K at a
     fixed number of rounds, and its CPU time like K, so the CPU needed for
     max_i SE_i ≤ 0.05·‖b_s‖/z is cpu·(max_i SE_i / target)², with z = z_{1−α/2} + z_{power}
     (α = 0.01, power 0.9: z = 2.576 + 1.282 = 3.857), the SE at which a 5 % error is detected
     with power 0.9 by a two-sided test at level α, and equivalence within 5 % is confirmed when
     the estimate is exact.
  6. --richardson: b_s by Richardson extrapolation of mean(x − y)/γ over the γ's (see
     richardson()), with its standard error.

Writes a markdown table on stdout and, with --json FILE, every number.
Usage: bench/control_variate.py --fedverify build/fedverify [--gamma-l 0.1 0.03 0.01]
"""
import argparse
import json
import math
import os
import resource
import subprocess
import sys
import tempfile

import numpy as np

Z_ALPHA = 2.5758293035489004  # z_{1 − 0.01/2}
Z_POWER = 1.2815515655446004  # z_{0.9}
Z = Z_ALPHA + Z_POWER


def logistic_problem(dim, clients, samples, l2, batch, seed):
    """N(0, I) features, labels sign(aᵀw_c + N(0, 1)) with a per-client w_c ~ N(0, I)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(clients):
        a = rng.standard_normal((samples, dim))
        w = rng.standard_normal(dim)
        y = np.where(a @ w + rng.standard_normal(samples) > 0, 1, -1)
        out.append({"features": a.tolist(), "labels": y.tolist()})
    return {"kind": "logistic", "l2": l2, "batch_size": batch, "clients": out}


def run(cmd):
    """Runs a fedverify command; returns (its JSON, the child's CPU seconds)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(cmd, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: exit {done.returncode}: {done.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return json.loads(done.stdout), cpu


def richardson(gammas, values, ses, order=1.0):
    """b_s from v(γ) = b_s + c·γ^order (+ o(γ^order)) measured at two or three γ.

    Two γ: b = (r·v₁ − v₂)/(r − 1), r = (γ₂/γ₁)^order (γ₁ < γ₂). Three γ: the weighted least-squares
    fit of v = b + cγ^order (weights 1/SE²). Independent estimates: SE(b)² = Σ_k w_k² SE_k² for the
    linear combination b = Σ_k w_k v_k. Returns (b, SE(b), weights)."""
    g = np.asarray(gammas, float)
    v = np.asarray(values, float)
    s = np.asarray(ses, float)
    x = np.column_stack([np.ones_like(g), g ** order])
    w = 1.0 / s ** 2
    # b = first row of (XᵀWX)⁻¹XᵀW applied to v: for two points the exact two-point formula.
    coef = np.linalg.solve(x.T @ (w[:, None] * x), (x * w[:, None]).T)[0]
    return float(coef @ v), float(math.sqrt(np.sum(coef ** 2 * s ** 2))), coef.tolist()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fedverify", default="build/fedverify")
    ap.add_argument("--algo", default="fedavg")
    ap.add_argument("--gamma-l", type=float, nargs="+", default=[0.1, 0.03, 0.01])
    ap.add_argument("--local-steps", type=int, default=2)
    ap.add_argument("--dim", type=int, default=3)
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--samples", type=int, default=30)
    ap.add_argument("--l2", type=float, default=0.1)
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--problem-seed", type=int, default=1)
    ap.add_argument("--chains", type=int, default=1024)
    ap.add_argument("--mixing-rounds", type=float, default=8.0,
                    help="burn-in and recorded rounds in units of 1/(γ μ_lin H)")
    ap.add_argument("--seed", type=int, default=20261127)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--richardson", action="store_true")
    ap.add_argument("--json")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "problem.json")
        with open(path, "w") as f:
            json.dump(logistic_problem(args.dim, args.clients, args.samples, args.l2, args.batch,
                                       args.problem_seed), f)
        base = [args.fedverify]
        common = ["--problem", path, "--algo", args.algo, "--local-steps", str(args.local_steps)]
        probe, _ = run(base + ["predict"] + common + ["--gamma", "0.01"])
        lip = probe["constants"]["L"]
        mu_local = probe["constants"]["mu_local"]
        rows = []
        for gl in args.gamma_l:
            gamma = gl / lip
            pred, _ = run(base + ["predict"] + common + ["--gamma", repr(gamma)])
            b_s = np.asarray(pred["bias_stochastic"]) / gamma
            # Rounds: the slowest mode of the linearised round contracts by ≈ 1 − γμH per round.
            tau = 1.0 / (gamma * mu_local * args.local_steps)
            burn = int(math.ceil(args.mixing_rounds * tau))
            rounds = burn + int(math.ceil(2 * args.mixing_rounds * tau))
            sim = common + ["--gamma", repr(gamma), "--chains", str(args.chains), "--rounds",
                            str(rounds), "--burn-in", str(burn), "--seed", str(args.seed),
                            "--threads", str(args.threads)]
            plain, cpu_plain = run(base + ["simulate"] + sim)
            cv, cpu_cv = run(base + ["simulate"] + sim + ["--control-variate", "linearised"])
            if plain["mean"] != cv["mean"] or plain["mean_mcse"] != cv["mean_mcse"]:
                sys.exit("the control variate changed mean or mean_mcse: a bug")
            m_lin = np.asarray(cv["linearised_mean_exact"])
            se_plain = np.asarray(cv["mean_mcse"]) / gamma
            se_cv = np.asarray(cv["mean_cv_mcse"]) / gamma
            est_plain = (np.asarray(cv["mean"]) - m_lin) / gamma
            est_cv = (np.asarray(cv["mean_cv"]) - m_lin) / gamma
            target = 0.05 * np.linalg.norm(b_s) / Z
            need_plain = cpu_plain * (se_plain.max() / target) ** 2
            need_cv = cpu_cv * (se_cv.max() / target) ** 2
            rows.append({
                "gamma_l": gl, "gamma": gamma, "rounds": rounds, "burn_in": burn,
                "chains": args.chains, "b_s": b_s.tolist(),
                "variance_reduction": ((se_plain / se_cv) ** 2).tolist(),
                "b_s_plain": est_plain.tolist(), "se_plain": se_plain.tolist(),
                "b_s_cv": est_cv.tolist(), "se_cv": se_cv.tolist(),
                "remainder": (est_cv - b_s).tolist(),
                "cpu_plain": cpu_plain, "cpu_cv": cpu_cv, "target_se": target,
                "cpu_to_5pct_plain": need_plain, "cpu_to_5pct_cv": need_cv,
                "cpu_ratio": need_plain / need_cv})
    print(f"problem: logistic d={args.dim} N={args.clients} n_c={args.samples} "
          f"l2={args.l2} B={args.batch} (seed {args.problem_seed}), {args.algo} H={args.local_steps}, "
          f"L={lip:.4g}, mu_local={mu_local:.4g}, K={args.chains}")
    print(f"b_s (F3) = {np.array2string(np.asarray(rows[0]['b_s']), precision=5)}")
    print()
    print("| γL | rounds (burn-in) | Var ratio x / (x − y), per coordinate | mean(x−y)/γ − b_s (±SE), coord 1 "
          "| plain b_s SE / cv SE (coord 1) | CPU s plain / cv (run) | CPU s to 5 %: plain / cv | ratio |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        vr = ", ".join(f"{v:.0f}" for v in r["variance_reduction"])
        print(f"| {r['gamma_l']} | {r['rounds']} ({r['burn_in']}) | {vr} | "
              f"{r['remainder'][0]:+.5f} ± {r['se_cv'][0]:.5f} | "
              f"{r['se_plain'][0]:.4g} / {r['se_cv'][0]:.3g} | {r['cpu_plain']:.2f} / {r['cpu_cv']:.2f} | "
              f"{r['cpu_to_5pct_plain']:.4g} / {r['cpu_to_5pct_cv']:.3g} | {r['cpu_ratio']:.0f}× |")
    # Remainder order: log–log slope of |mean(x − y)/γ − b_s| (coordinate with the largest b_s).
    i = int(np.argmax(np.abs(rows[0]["b_s"])))
    g = np.array([r["gamma"] for r in rows])
    rem = np.array([abs(r["remainder"][i]) for r in rows])
    if len(rows) >= 2 and np.all(rem > 0):
        slope = np.polyfit(np.log(g), np.log(rem), 1)[0]
        print(f"\nremainder order (coordinate {i}): log–log slope of |mean(x−y)/γ − b_s| "
              f"against γ = {slope:.2f}")
    out = {"rows": rows, "L": lip, "mu_local": mu_local, "args": vars(args)}
    if args.richardson and len(rows) >= 2:
        print()
        for order in (0.5, 1.0):
            vals = [r["b_s_cv"][i] for r in rows]
            ses = [r["se_cv"][i] for r in rows]
            b, se, w = richardson([r["gamma"] for r in rows], vals, ses, order)
            print(f"Richardson (remainder ∝ γ^{order}) coordinate {i}: b_s ≈ {b:.5f} ± {se:.5f} "
                  f"(predicted {rows[0]['b_s'][i]:.5f})")
            out[f"richardson_order_{order}"] = {"b_s": b, "se": se, "weights": w}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
