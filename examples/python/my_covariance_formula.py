#!/usr/bin/env python3
"""Worked example (docs/PYTHON.md): checking MY first-order covariance formula for FedAvg under
client sampling against fedverify's exact stationary moments.

The formula (a researcher's, written in NumPy/SciPy; THEORY.md (O5) derives it): with S of N
clients sampled per round without replacement, H local steps of size γ,

    Σ ≈ (γ/S) 𝒜[C̄ + H (N − S)/(N − 1) · G],   𝐇X + X𝐇 = Y  ⇔  X = 𝒜Y,

𝐇 = (1/N) Σ_c A_c, C̄ = (1/N) Σ_c S_c, G = (1/N) Σ_c ∇f_c(x*) ∇f_c(x*)ᵀ. A first-order formula
is right when its error against the exact covariance is of higher order: Σ is O(γ), so the
remainder must be O(γ²), i.e. a log–log slope of the error against γ above 1.5. The claim
checks that over a grid of (H, S); a planted variant that forgets the sampling term G (the
formula of full participation) has a first-order remainder, slope ≈ 1, and must FAIL.

Run:  PYTHONPATH=build/python /usr/bin/python3 examples/python/my_covariance_formula.py --out DIR
"""

import argparse
import sys

import numpy as np
from scipy.linalg import solve_continuous_lyapunov

import fedverify

# The clients' arrays, as a user would have them (three clients in two dimensions).
HESSIANS = [np.array([[2.0, 0.3], [0.3, 1.0]]), np.array([[1.0, -0.2], [-0.2, 3.0]]),
            np.array([[1.5, 0.0], [0.0, 0.5]])]
OPTIMA = [np.array([1.0, -0.5]), np.array([-1.0, 0.5]), np.array([0.5, 1.5])]
NOISE = [np.array([[0.5, 0.1], [0.1, 0.4]]), np.array([[0.3, 0.0], [0.0, 0.6]]),
         np.array([[0.2, 0.05], [0.05, 0.2]])]


def my_covariance(problem, *, gamma, local_steps, participating, with_sampling=True, **_):
    """My first-order stationary covariance of FedAvg with S of N clients sampled per round."""
    n, s, h = len(HESSIANS), participating, local_steps
    hbar = sum(HESSIANS) / n
    x_star = np.linalg.solve(sum(HESSIANS), sum(a @ b for a, b in zip(HESSIANS, OPTIMA)))
    grads = [a @ (x_star - b) for a, b in zip(HESSIANS, OPTIMA)]
    g = sum(np.outer(v, v) for v in grads) / n
    c = sum(NOISE) / n
    y = c + (h * (n - s) / (n - 1) * g if with_sampling else 0)
    return gamma / s * solve_continuous_lyapunov(hbar, y)


def claim(claim_id, predict, statement):
    return fedverify.Claim(
        claim_id,
        statement,
        problem=PROBLEM,
        problem_name="three-clients",
        # FedAvg with client sampling is fedverify's fedopt with the default SGD server (lr 1)
        # and SGD clients, S = participating of N.
        grid={"algo": ["fedopt"], "local_steps": [1, 3], "participating": [1, 2],
              "gamma": [0.0025, 0.005, 0.01, 0.02]},
        predict=predict,
        measure="exact_cov",
        rule="remainder_order",
        order=1.5,
        alpha=0.01,
        formula="Σ ≈ (γ/S) 𝒜[C̄ + H (N − S)/(N − 1) G]",
        theory="(O5), user formula",
    )


PROBLEM = fedverify.quadratic_problem(HESSIANS, OPTIMA, NOISE)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="reports/my-covariance")
    args = parser.parse_args()

    mine = claim("mine.fedavg-sampling-cov", my_covariance,
                 "My first-order covariance of FedAvg under client sampling is right to first "
                 "order (remainder O(γ²)).")
    planted = claim("mine.planted-no-sampling-term",
                    lambda p, **s: my_covariance(p, with_sampling=False, **s),
                    "Planted error: the same formula without the client-sampling term G.")
    results = fedverify.report([mine, planted], out=args.out)  # fedverify.Results

    verdicts = {c.id: c.passed for c in results.claims}
    for c in results.claims:
        for row in c.rows:
            print(f"{c.id:32} {row['setting']:58} {row['measured']:34} "
                  f"{'holds' if row['passed'] else 'FAILS'}")
    # The formula holds on every (H, S); the planted one fails where sampling matters (S < N).
    ok = verdicts == {"mine.fedavg-sampling-cov": True, "mine.planted-no-sampling-term": False}
    print(f"report: {args.out}/REPORT.md (exit code {results.exit_code}); "
          f"{'as expected' if ok else 'UNEXPECTED verdicts: ' + str(verdicts)}")
    return 0 if ok and results.exit_code == 1 else 1


if __name__ == "__main__":
    sys.exit(main())
