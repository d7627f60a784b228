#!/usr/bin/python3
"""Independent NumPy check of `fedverify predict` on logistic problems.

Claim checked: on logistic problems it has never seen, `fedverify predict` agrees with an
independent implementation to 1e-6 relative, field by field. The formulas come from docs/THEORY.md
(and docs/PROBLEM_FORMATS.md, docs/CLI.md for the problem file and the printed fields), not from theory/*.cpp.

What is computed here (docs/THEORY.md labels), with numerics that differ from the C++ on purpose:
  * loss and derivatives, THEORY §6: f_c(x) = mean_j φ(y_j a_jᵀx) + (λ/2)‖x‖², φ(s) = log(1+e^{−s}),
    φ' = −(1−p), φ'' = p(1−p), φ''' = p(1−p)(1−2p), p = 1/(1+e^{−s}). Here 1−p is evaluated as
    σ(−s) (no cancellation) and the three derivatives are first checked against central finite
    differences of f, ∇f and ∇²f (a self-check of the derivation, tolerance below).
  * x*: own damped Newton iteration on f = (1/N) Σ_c f_c (§0) until ‖∇f(x*)‖₂ ≤ 1e-13.
  * 𝐇 = ∇²f(x*) (§0); 𝒜 (N1) by an explicit Kronecker solve (I⊗𝐇 + 𝐇⊗I) vec Σ = vec C on the
    d²×d² matrix (the C++ uses the eigenbasis form of N1).
  * ∇³f(x*)[M] (N2): the full d×d×d tensor T = mean_j φ'''(s_j) y_j a_j⊗a_j⊗a_j is formed
    and contracted, (T[M])_i = Σ_jk T_ijk M_jk.
  * C_c(x*) (§0, §6: batch of B samples drawn uniformly WITH replacement): from the definition,
    by enumerating all n_c^B equally likely ordered minibatches and taking the exact covariance
    of the minibatch gradient. (Cross-checked against the closed form (1/B)·Cov_j(∇ℓ_j).)
  * C̄ = (1/N) Σ_c C_c(x*) (§0); σ*² = tr C̄ (N4); ζ² and ζ₂² (N3), ‖·‖_op the spectral norm.
  * b_h (F3) in its first form (1/(2N)) Σ_c 𝐇⁻¹(∇²f_c(x*) − 𝐇)∇f_c(x*) (the second form,
    without −𝐇, is checked to agree); b_s = −(1/(2N)) 𝐇⁻¹ ∇³f(x*)[𝒜C̄] (F3).
  * Predicted fields (docs/CLI.md, predict):
      fedavg   (F2, F3): bias_heterogeneity = γ(H−1) b_h, bias_stochastic = γ b_s,
                         mean = x* + both, cov = (γ/N) 𝒜C̄
      scaffold (S2, S3): bias_heterogeneity = 0, bias_stochastic = γ b_s, cov = (γ/N) 𝒜C̄
      fedrr    (R1, R2, independent noise): biases 0, mean = x*, cov = (6γ/N) 𝒜C̄
      sgd      (G0, G1): H = 1; the oracle is the average of the N client minibatch gradients,
                         so its noise covariance is C = C̄/N; bias γΔ with
                         Δ = −½ 𝐇⁻¹ ∇³f(x*)[𝒜C], cov = γ 𝒜C.
  * constants (not defined by formula in docs/THEORY.md beyond "μ, L: strong convexity and
    smoothness constants of the f_c"; the definitions below are the natural global / local
    ones for logistic losses, and are what the CLI prints):
      mu       = λ                                    (φ'' ≥ 0: ∇²f_c ⪰ λI everywhere)
      L        = max_c λ_max((1/(4 n_c)) A_cᵀA_c) + λ (φ'' ≤ 1/4 everywhere)
      mu_local = min_c λ_min(∇²f_c(x*)),  L_local = max_c λ_max(∇²f_c(x*))
      sigma_star2 (N4), zeta2, zeta2_second (N3).

Decision rule: for every field F of every (problem, algorithm, γ, H),
    err(F) = ‖F_pred − F_indep‖∞ / max(‖F_indep‖∞, TINY) ≤ REL_TOL = 1e-6.
Why 1e-6: both sides evaluate formulas that are equal in exact arithmetic, so the difference is
round-off only. A relative perturbation ε in the data of the Newton solve or of 𝒜 is amplified
by at most κ(𝐇) (Newton / 𝐇⁻¹) and κ(𝒜) = h_max/h_min = κ(𝐇), so a bound of the expected error
is about κ(𝐇)² · ε · (cancellation in the sums, ≲ 1e2); it is printed per problem and is
≤ 3e-9 for the problems here (κ(𝐇) from 1.2 to 366; the errors measured are ≤ 1e-13).
1e-6 is above that bound with margin, while every modelling slip one could make is ≥ 1e-2
relative (a factor 2 in b_s or b_h, 1/n_c vs 1/(n_c−1) in C_c with n_c ≤ 20, 1/B, 1/N, a sign,
6 vs 5 in FedRR, H vs H−1); even an x* stopped at ‖∇f‖ = 1e-6 on one side is detected.

Usage: logistic_predict.py --fedverify PATH [--seed S] [--keep DIR] [extra problem files...]
Exit status 0 if every field agrees, 1 otherwise (a table of errors is printed either way).
"""

import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

EPS = np.finfo(float).eps
REL_TOL = 1e-6  # decision threshold; the reasoning is in the module docstring
TINY = 1e-300  # denominator floor: fields that are exactly 0 on both sides give 0, not NaN
NEWTON_GRAD_TOL = 1e-13  # ‖∇f(x*)‖₂ at the Newton solution (brief: independent x* to 1e-13)
# Self-check of the derivative formulas by central differences with step t: truncation
# O(t²·|4th derivative|) ≈ 1e-8 and round-off O(ε/t) ≈ 1e-12 at t = 1e-4; 1e-6 relative is
# far from both yet catches any wrong factor or sign.
FD_STEP = 1e-4
FD_REL_TOL = 1e-6


# ---------------------------------------------------------------- logistic loss, THEORY §6
def sigmoid(s):
    """σ(s) = 1/(1+e^{−s}) without overflow for either sign of s."""
    out = np.empty_like(s)
    pos = s >= 0
    out[pos] = 1.0 / (1.0 + np.exp(-s[pos]))
    e = np.exp(s[~pos])
    out[~pos] = e / (1.0 + e)
    return out


class Client:
    """One client: f_c(x) = mean_j φ(y_j a_jᵀx) + (λ/2)‖x‖², φ(s) = log(1 + e^{−s})."""

    def __init__(self, features, labels, l2, batch):
        self.A = np.asarray(features, dtype=float)
        self.y = np.asarray(labels, dtype=float)
        self.l2 = float(l2)
        self.batch = int(batch)
        self.n, self.d = self.A.shape

    def margins(self, x):
        s = self.y * (self.A @ x)
        return s, sigmoid(s), sigmoid(-s)  # s, p, 1 − p

    def value(self, x):
        s = self.y * (self.A @ x)
        return np.mean(np.logaddexp(0.0, -s)) + 0.5 * self.l2 * x @ x

    def sample_gradients(self, x):
        """Rows ∇ℓ_j(x) = φ'(s_j) y_j a_j + λx, φ'(s) = −(1 − p)."""
        _, _, q = self.margins(x)
        return (-q * self.y)[:, None] * self.A + self.l2 * x[None, :]

    def gradient(self, x):
        return self.sample_gradients(x).mean(axis=0)

    def hessian(self, x):
        """mean_j φ''(s_j) a_j a_jᵀ + λI, φ'' = p(1 − p)."""
        _, p, q = self.margins(x)
        return np.einsum("j,ja,jb->ab", p * q, self.A, self.A) / self.n + self.l2 * np.eye(self.d)

    def third_tensor(self, x):
        """T_abc = mean_j φ'''(s_j) y_j a_ja a_jb a_jc, φ''' = p(1 − p)(1 − 2p) (y_j³ = y_j)."""
        _, p, q = self.margins(x)
        w = p * q * (q - p) * self.y
        return np.einsum("j,ja,jb,jc->abc", w, self.A, self.A, self.A) / self.n

    def noise_covariance(self, x):
        """C_c(x) from its definition: the minibatch gradient is the mean of B per-sample
        gradients at indices drawn uniformly with replacement, i.e. every ordered B-tuple of
        indices has probability n^{−B}; exact covariance over all n^B tuples."""
        G = self.sample_gradients(x)
        mean = G.mean(axis=0)
        tuples = np.array(list(itertools.product(range(self.n), repeat=self.batch)))
        batch_grads = G[tuples].mean(axis=1)  # (n^B, d)
        dev = batch_grads - mean
        return dev.T @ dev / len(tuples)


class Problem:
    def __init__(self, spec):
        if spec["kind"] != "logistic":
            raise ValueError("not a logistic problem")
        self.clients = [
            Client(c["features"], c["labels"], spec["l2"], spec["batch_size"])
            for c in spec["clients"]
        ]
        self.N = len(self.clients)
        self.d = self.clients[0].d
        self.l2 = float(spec["l2"])

    def value(self, x):
        return np.mean([c.value(x) for c in self.clients])

    def gradient(self, x):
        return np.mean([c.gradient(x) for c in self.clients], axis=0)

    def hessian(self, x):
        return np.mean([c.hessian(x) for c in self.clients], axis=0)


# ---------------------------------------------------------------- self-check of derivatives
def check_derivatives(problem, rng):
    """Central differences of f, ∇f_c, ∇²f_c at a random point versus the closed forms."""
    worst = 0.0
    x = rng.normal(size=problem.d)
    v = rng.normal(size=problem.d)
    v /= np.linalg.norm(v)
    for c in problem.clients:
        t = FD_STEP / np.max(np.linalg.norm(c.A, axis=1))  # margins move by at most FD_STEP
        fd_grad = (c.value(x + t * v) - c.value(x - t * v)) / (2 * t)
        fd_hess = (c.gradient(x + t * v) - c.gradient(x - t * v)) / (2 * t)
        fd_third = (c.hessian(x + t * v) - c.hessian(x - t * v)) / (2 * t)
        pairs = [
            (fd_grad, c.gradient(x) @ v),
            (fd_hess, c.hessian(x) @ v),
            (fd_third, np.einsum("abc,c->ab", c.third_tensor(x), v)),
        ]
        for fd, exact in pairs:  # generic non-zero values at a random point
            worst = max(worst, np.max(np.abs(fd - exact)) / np.max(np.abs(exact)))
    return worst


# ---------------------------------------------------------------- optimum: own Newton solve
def newton_optimum(problem):
    x = np.zeros(problem.d)
    for _ in range(100):
        g = problem.gradient(x)
        if np.linalg.norm(g) <= NEWTON_GRAD_TOL:
            return x, np.linalg.norm(g)
        step = np.linalg.solve(problem.hessian(x), g)
        fx, tau = problem.value(x), 1.0
        # Backtracking (Armijo) far from x*; near x* the full step is taken once the predicted
        # decrease is below the round-off of f.
        while tau > 1e-10:
            decrease = tau * g @ step
            if decrease < 1e-14 * max(1.0, abs(fx)):
                break
            if problem.value(x - tau * step) <= fx - 1e-4 * decrease:
                break
            tau *= 0.5
        x = x - tau * step
    raise RuntimeError(f"Newton did not reach ‖∇f‖ ≤ {NEWTON_GRAD_TOL}: {np.linalg.norm(g)}")


# ---------------------------------------------------------------- first-order quantities
def lyapunov_kron(H, C):
    """𝒜C (N1): Σ with HΣ + ΣH = C via the d²×d² system (I⊗H + H⊗I) vec Σ = vec C."""
    d = H.shape[0]
    K = np.kron(np.eye(d), H) + np.kron(H, np.eye(d))
    return np.linalg.solve(K, C.reshape(-1)).reshape(d, d)


def independent_quantities(problem):
    x, grad_norm = newton_optimum(problem)
    N, d = problem.N, problem.d
    grads = [c.gradient(x) for c in problem.clients]
    hessians = [c.hessian(x) for c in problem.clients]
    Hbar = np.mean(hessians, axis=0)
    third = np.mean([c.third_tensor(x) for c in problem.clients], axis=0)
    covs = [c.noise_covariance(x) for c in problem.clients]
    # Cross-check of the enumerated covariance against THEORY §6: (1/B)·population Cov_j.
    closed = [np.cov(c.sample_gradients(x).T, bias=True).reshape(d, d) / c.batch
              for c in problem.clients]
    cov_check = max(np.max(np.abs(a - b)) / np.max(np.abs(b)) for a, b in zip(covs, closed))
    Cbar = np.mean(covs, axis=0)
    AC = lyapunov_kron(Hbar, Cbar)
    # F3, first form; the "since Σ_c ∇f_c(x*) = 0" form must agree to round-off.
    b_h = sum(np.linalg.solve(Hbar, (Hc - Hbar) @ gc) for Hc, gc in zip(hessians, grads)) / (2 * N)
    b_h_alt = np.linalg.solve(Hbar, sum(Hc @ gc for Hc, gc in zip(hessians, grads))) / (2 * N)
    b_s = -np.linalg.solve(Hbar, np.einsum("ijk,jk->i", third, AC)) / (2 * N)  # F3, N2
    # G1 with the SGD oracle's noise C̄/N.
    AC_sgd = lyapunov_kron(Hbar, Cbar / N)
    delta_sgd = -0.5 * np.linalg.solve(Hbar, np.einsum("ijk,jk->i", third, AC_sgd))
    constants = {
        "mu": problem.l2,
        "L": max(np.linalg.eigvalsh(c.A.T @ c.A / (4 * c.n)).max() for c in problem.clients)
        + problem.l2,
        "mu_local": min(np.linalg.eigvalsh(Hc).min() for Hc in hessians),
        "L_local": max(np.linalg.eigvalsh(Hc).max() for Hc in hessians),
        "sigma_star2": np.trace(Cbar),  # N4
        "zeta2": np.mean([gc @ gc for gc in grads]),  # N3
        "zeta2_second": np.mean([np.linalg.norm(Hc - Hbar, 2) ** 2 for Hc in hessians]),  # N3
    }
    h = np.linalg.eigvalsh(Hbar)
    # For N = 1, ∇f_1(x*) = ∇f(x*) = 0 and ∇²f_1 = 𝐇, so b_h, ζ² and ζ₂² are 0 in exact
    # arithmetic and both sides print round-off. The round-off of ∇f_c is relative to its
    # summands ∇ℓ_j, so these fields are then compared against the size they would have
    # without cancellation (an absolute test). For N > 1 the plain relative rule applies.
    grad_scale = max(np.mean(np.abs(c.sample_gradients(x)), axis=0).max() for c in problem.clients)
    hess_scale = max(np.linalg.norm(Hc, 2) for Hc in hessians)
    b_h_scale = hess_scale * grad_scale / (2 * h[0])  # ‖𝐇⁻¹‖·max‖∇²f_c‖·|∇ℓ|/2, F3
    if N == 1:
        floors = {"b_h": b_h_scale, "zeta2": grad_scale**2, "zeta2_second": hess_scale**2}
    else:
        floors = {"b_h": TINY, "zeta2": TINY, "zeta2_second": TINY}
    return {
        "x": x, "grad_norm": grad_norm, "AC": AC, "AC_sgd": AC_sgd, "b_h": b_h,
        "b_h_alt_diff": np.max(np.abs(b_h - b_h_alt)) / max(np.max(np.abs(b_h)), floors["b_h"]),
        "floors": floors,
        "b_s": b_s, "delta_sgd": delta_sgd, "constants": constants,
        "cov_check": cov_check, "kappa": h[-1] / h[0],
    }


def predicted_fields(q, algo, gamma, H, N):
    x = q["x"]
    zero = np.zeros_like(x)
    if algo == "fedavg":  # F2, F3
        bias_h, bias_s, cov = gamma * (H - 1) * q["b_h"], gamma * q["b_s"], gamma / N * q["AC"]
    elif algo == "scaffold":  # S2, S3
        bias_h, bias_s, cov = zero, gamma * q["b_s"], gamma / N * q["AC"]
    elif algo == "fedrr":  # R1, R2 (independent noise)
        bias_h, bias_s, cov = zero, zero, 6 * gamma / N * q["AC"]
    elif algo == "sgd":  # G0, G1
        assert H == 1
        bias_h, bias_s, cov = zero, gamma * q["delta_sgd"], gamma * q["AC_sgd"]
    else:
        raise ValueError(algo)
    fields = {
        "x_star": x,
        "bias_heterogeneity": bias_h,
        "bias_stochastic": bias_s,
        "mean_first_order": x + bias_h + bias_s,
        "cov_first_order": cov,
    }
    for name, value in q["constants"].items():
        fields["constants." + name] = np.array(value)
    floors = {name: TINY for name in fields}
    floors["bias_heterogeneity"] = max(gamma * (H - 1) * q["floors"]["b_h"], TINY)
    floors["constants.zeta2"] = q["floors"]["zeta2"]
    floors["constants.zeta2_second"] = q["floors"]["zeta2_second"]
    return fields, floors


# ---------------------------------------------------------------- unseen random problems
# (d, N, n_c per client, B, λ, feature anisotropy): every shape of the brief, clients of
# unequal sizes; the last one has feature scales spread over 1e-2..1 and a small λ, so that
# κ(𝐇) is large and the round-off estimate of the docstring is exercised.
SHAPES = [
    (2, 1, [7], 1, 0.05, 1.0),
    (2, 3, [7, 20, 7], 3, 0.1, 1.0),
    (5, 4, [20, 7, 20, 20], 1, 0.02, 1.0),
    (5, 3, [20, 20, 7], 3, 0.3, 1.0),
    (2, 4, [20, 7, 7, 20], 3, 0.01, 1.0),
    (5, 1, [20], 3, 0.1, 1.0),
    (5, 3, [7, 20, 20], 1, 1e-3, 1e-2),
]


def random_problem(rng, d, N, sizes, B, l2, anisotropy):
    """Heterogeneous clients: client-specific feature shift and scale, client-specific
    labelling parameter, and label noise (flips), so ∇f_c(x*) ≠ 0 and ∇²f_c(x*) differ.
    Coordinate k of the features is scaled by anisotropy^(k/(d−1))."""
    assert N == len(sizes)
    w_common = rng.normal(size=d)
    clients = []
    axis_scale = anisotropy ** (np.arange(d) / max(d - 1, 1))
    for n in sizes:
        shift = rng.normal(scale=0.7, size=d) * axis_scale
        scale = rng.uniform(0.5, 1.5, size=d) * axis_scale
        A = shift + scale * rng.normal(size=(n, d))
        w = w_common + rng.normal(scale=0.8, size=d)
        p = 1.0 / (1.0 + np.exp(-(A @ w)))
        y = np.where(rng.uniform(size=n) < p, 1, -1)
        clients.append({"features": A.tolist(), "labels": y.tolist()})
    return {"kind": "logistic", "l2": l2, "batch_size": B, "clients": clients}


def run_predict(fedverify, path, algo, gamma, H):
    out = subprocess.run(
        [fedverify, "predict", "--problem", path, "--algo", algo, "--gamma", repr(gamma),
         "--local-steps", str(H)],
        capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"fedverify predict {algo} γ={gamma} H={H} on {path}: "
                           f"exit {out.returncode}: {out.stderr.strip()}")
    return json.loads(out.stdout)


def rel_err(pred, indep, floor):
    pred, indep = np.asarray(pred, dtype=float), np.asarray(indep, dtype=float)
    if pred.shape != indep.shape:
        return np.inf
    return np.max(np.abs(pred - indep)) / max(np.max(np.abs(indep)), floor)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--fedverify", required=True)
    parser.add_argument("--seed", type=int, default=20241204)
    parser.add_argument("--keep", help="write the generated problems to this directory")
    parser.add_argument("extra", nargs="*", help="further logistic problem files to check")
    args = parser.parse_args()
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
        return check(args, args.keep)
    with tempfile.TemporaryDirectory(prefix="fedverify-indep-") as workdir:
        return check(args, workdir)


def check(args, workdir):
    rng = np.random.default_rng(args.seed)

    problems = []
    for k, shape in enumerate(SHAPES):
        spec = random_problem(rng, *shape)
        path = os.path.join(workdir, f"random{k}_d{shape[0]}_N{shape[1]}_B{shape[3]}.json")
        with open(path, "w") as fh:
            json.dump(spec, fh)
        problems.append(path)
    problems += args.extra

    failures, worst_overall = [], 0.0
    header = (f"{'problem':<24} {'algo':<8} {'gamma':>9} {'H':>2}  {'x_star':>8} {'bias_het':>8} "
              f"{'bias_sto':>8} {'mean':>8} {'cov':>8} {'consts':>8}")
    print(f"max relative error per field, ‖pred − indep‖∞ / ‖indep‖∞ (rule: ≤ {REL_TOL:g})")
    for path in problems:
        with open(path) as fh:
            problem = Problem(json.load(fh))
        name = os.path.basename(path)
        fd_err = check_derivatives(problem, rng)
        q = independent_quantities(problem)
        expected = q["kappa"] ** 2 * EPS * 100  # round-off estimate, module docstring
        print(f"\n{name}: d={problem.d} N={problem.N} n_c={[c.n for c in problem.clients]} "
              f"B={problem.clients[0].batch} λ={problem.l2:g}; κ(𝐇)={q['kappa']:.3g}, "
              f"round-off estimate κ²·ε·1e2 = {expected:.1e}")
        print(f"  self-checks: finite differences {fd_err:.1e} (≤ {FD_REL_TOL:g}); enumerated "
              f"vs (1/B)Cov_j {q['cov_check']:.1e}; b_h two forms {q['b_h_alt_diff']:.1e}; "
              f"‖∇f(x*)‖ = {q['grad_norm']:.1e}")
        if fd_err > FD_REL_TOL or q["cov_check"] > 1e-12 or q["b_h_alt_diff"] > 1e-9:
            failures.append(f"{name}: independent self-check failed")
        # γ relative to the global smoothness constant; H ∈ {1, 2, 5}; sgd only at H = 1.
        L = q["constants"]["L"]
        settings = [(algo, g / L, H) for algo in ("fedavg", "scaffold", "fedrr")
                    for g, H in ((0.01, 1), (0.05, 2), (0.1, 5))]
        settings += [("sgd", g / L, 1) for g in (0.01, 0.1)]
        print("  " + header)
        for algo, gamma, H in settings:
            out = run_predict(args.fedverify, path, algo, gamma, H)
            indep, floors = predicted_fields(q, algo, gamma, H, problem.N)
            errs = {f: rel_err(out[f] if "." not in f else out["constants"][f.split(".")[1]], v,
                               floors[f])
                    for f, v in indep.items()}
            meta_ok = (out["dim"] == problem.d and out["num_clients"] == problem.N
                       and out["local_steps"] == H and out["algorithm"] == algo
                       and abs(out["gamma"] - gamma) <= 4 * EPS * gamma)
            consts = max(e for f, e in errs.items() if f.startswith("constants."))
            print(f"  {name[:24]:<24} {algo:<8} {gamma:9.3g} {H:>2}  {errs['x_star']:8.1e} "
                  f"{errs['bias_heterogeneity']:8.1e} {errs['bias_stochastic']:8.1e} "
                  f"{errs['mean_first_order']:8.1e} {errs['cov_first_order']:8.1e} {consts:8.1e}")
            worst_overall = max(worst_overall, max(errs.values()))
            for f, e in errs.items():
                if not e <= REL_TOL:
                    failures.append(f"{name} {algo} γ={gamma:.3g} H={H}: {f} "
                                    f"relative error {e:.2e}")
            if not meta_ok:
                failures.append(f"{name} {algo}: dim/num_clients/gamma/local_steps/algorithm "
                                "differ")

    print(f"\nworst relative error over all fields and settings: {worst_overall:.2e} "
          f"(rule ≤ {REL_TOL:g})")
    if failures:
        print(f"{len(failures)} disagreement(s):")
        for f in failures:
            print("  FAIL: " + f)
        return 1
    print("independent logistic predict check: all fields agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
