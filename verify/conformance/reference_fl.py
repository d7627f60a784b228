#!/usr/bin/python3
"""Reference implementations of FedAvg, Scaffold and FedProx for `fedverify conformance`, written
from the algorithms' papers as a framework would write them (vectorised over K chains), with
--bug NAME planting one of the errors that FL frameworks have shipped:

  correction_sign   Scaffold's local step uses g + c_i − c instead of g − c_i + c
  server_adds_ci    Scaffold's server adds the new c_i instead of Δc_i = c_i⁺ − c_i
  cv_step_count     Scaffold's c_i⁺ divides x − y_i by γ instead of Hγ (wrong local-step count)
  random_cv_init    Scaffold's control variates start at N(0, I) instead of 0
  prox_no_square    FedProx's gradient of (μ/2)‖y − x‖ (square missing) instead of (μ/2)‖y − x‖²
  weights_not_one   FedAvg/FedProx aggregate with weights 1.05/S (sum 1.05, not 1)
  n_for_s           with client sampling, FedAvg divides the sum of the S sampled models by N
  stale_gradient    the local step j ≥ 2 uses the gradient returned at step j − 1 (an
                    off-by-one in a pipelined or asynchronous local loop), any algorithm
  server_step       the server applies the average update with a step 1.5 times the run's
                    (x ← x + 1.5 · mean(y_i − x) where the run asks for 1), any algorithm
  cv_s_for_n        with client sampling, Scaffold's server averages the sampled Δc_i over |S|
                    (c ← c + (1/|S|) Σ_{i∈S} Δc_i) instead of N, so c drifts from the mean of c_i
  no_correction     Scaffold's local steps never apply the correction c − c_i (plain SGD), while
                    the control variates are still updated (FedLab's Scaffold since 2023: the
                    corrected gradient is written to detached tensors)
  one_client        FedAvg/FedProx train one client per round (drawn uniformly, per chain) and
                    take its model as the average (FedLab #320, its own demo)
  weight_decay      every local step adds a weight decay of 1e-4 (g + 1e-4·y, as
                    torch.optim.SGD(weight_decay=1e-4) does; Flower's FedProx baseline had 1e-3):
                    too small for the statistical checks, found by --trajectory
  momentum_reset    the server's momentum buffer is recreated every round (a server optimiser
                    built inside the round loop), so FedAvgM runs without momentum
  server_lr_ignored the server averages the clients' models (x ← mean y_i) whatever η_g and β
                    the run asks for (FedAvgM, or Scaffold's global step)
  adam_no_bias_correction  the Adam server steps with m and v, not m/(1 − β₁ᵗ) and v/(1 − β₂ᵗ)
  adam_eps_outside  the Adam server divides by √v̂ + ε when the run asks for √(v̂ + ε)
                    (eps_in_sqrt = 1, THEORY O1), as PyTorch's Adam does
  client_momentum_kept  the clients' momentum buffers carry over from one round to the next
                    instead of starting at 0 every round
  weight_decay_ignored  the run's weight_decay λ is not applied in the local steps
  equal_weights     the server averages the clients with equal weights, ignoring the run's
                    client_weights p_c (FedLab #305: its FedAvg server never used the clients'
                    sample counts)

The server rule (FedOpt, Reddi et al. 2021; FedAvgM, Hsu et al. 2019) is the run message's
server_lr η_g, server_momentum β and server_nesterov: with Δ = x − mean(y_i) and m = 0 at the
start, m ← βm + Δ, then x ← x − η_g m (heavy ball) or x ← x − η_g(Δ + βm) (Nesterov); η_g = 1,
β = 0 is FedAvg's x ← mean(y_i). An adaptive server (the run's server_optimiser, THEORY O1) treats
Δ as its gradient: Adam (Kingma & Ba 2015) m ← β₁m + (1 − β₁)Δ, v ← β₂v + (1 − β₂)Δ²,
x ← x − lr·m̂/√(v̂ + ε) with m̂ = m/(1 − β₁ᵗ), v̂ = v/(1 − β₂ᵗ) (√v̂ + ε when eps_in_sqrt = 0).
Client momentum (the run's client_momentum β_c): b ← β_c b + g, y ← y − γb, b = 0 at the start of
every round.

Sources: McMahan et al. 2017 (FedAvg), Karimireddy et al. 2020 (Scaffold, Algorithm 1, option II control
variates, global step η_g = the run's server_lr, S of N clients sampled without replacement), Li et al. 2020 (FedProx). Independent of fedverify's own samplers:
it only shares the protocol (fedverify_protocol.py).
"""
import argparse
import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from fedverify_protocol import Oracle  # noqa: E402

BUGS = ["none", "correction_sign", "server_adds_ci", "cv_step_count", "random_cv_init",
        "prox_no_square", "weights_not_one", "n_for_s", "cv_s_for_n", "stale_gradient", "server_step",
        "weight_decay", "no_correction", "one_client", "momentum_reset", "server_lr_ignored",
        "adam_no_bias_correction", "adam_eps_outside", "client_momentum_kept",
        "weight_decay_ignored", "equal_weights"]


class AdamServer:
    """The Adam server (module docstring), one (m, v) per chain."""

    def __init__(self, run, bug):
        rule = run["server_optimiser"]
        self.lr, self.b1, self.b2, self.eps = rule["lr"], rule["beta1"], rule["beta2"], rule["eps"]
        self.eps_in_sqrt = rule["eps_in_sqrt"] != 0 and bug != "adam_eps_outside"
        self.bug = bug
        self.m = self.v = None
        self.t = 0

    def step(self, x, average):
        delta = x - average
        if self.m is None:
            self.m, self.v = np.zeros_like(x), np.zeros_like(x)
        self.t += 1
        self.m = self.b1 * self.m + (1.0 - self.b1) * delta
        self.v = self.b2 * self.v + (1.0 - self.b2) * delta * delta
        m_hat, v_hat = self.m, self.v
        if self.bug != "adam_no_bias_correction":
            m_hat = self.m / (1.0 - self.b1 ** self.t)
            v_hat = self.v / (1.0 - self.b2 ** self.t)
        denominator = np.sqrt(v_hat + self.eps) if self.eps_in_sqrt else np.sqrt(v_hat) + self.eps
        return x - self.lr * m_hat / denominator


def make_server(run, bug):
    """The server rule the run asks for: sgd (Server) or adam (AdamServer)."""
    name = run.get("server_optimiser", {"name": "sgd"})["name"]
    if name == "adam":
        return AdamServer(run, bug)
    if name != "sgd":
        raise SystemExit(f"reference_fl: server {name} is not implemented (sgd, adam)")
    return Server(run, bug)


class Server:
    """The server's optimiser (module docstring): one momentum buffer per chain."""

    def __init__(self, run, bug):
        self.lr = run.get("server_lr", 1.0)
        self.beta = run.get("server_momentum", 0.0)
        self.nesterov = bool(run.get("server_nesterov", False))
        if bug == "server_lr_ignored":
            self.lr, self.beta = 1.0, 0.0
        elif bug == "server_step":
            self.lr *= 1.5
        self.bug = bug
        self.m = None

    def step(self, x, average):
        """The new global model from x and the average of the clients' models."""
        if self.lr == 1.0 and self.beta == 0.0:
            return average
        delta = x - average
        if self.m is None or self.bug == "momentum_reset":
            self.m = np.zeros_like(x)
        self.m = self.beta * self.m + delta
        return x - self.lr * ((delta + self.beta * self.m) if self.nesterov else self.m)


def local_sgd(oracle, x, clients, run, bug, prox_mu=0.0, correction=None, buffers=None):
    """H local steps of every chain from x on client `clients` (one per chain); with the run's
    client_momentum β_c the heavy-ball buffer starts at 0 (or, with the bug client_momentum_kept,
    at buffers[key] from the previous round, `buffers` a dict kept by the caller)."""
    gamma, h = run["gamma"], run["local_steps"]
    beta_c = run.get("client_momentum", 0.0)
    y = x.copy()
    previous = None
    key = tuple(np.atleast_1d(clients).tolist())
    b = buffers.get(key, np.zeros_like(x)) if buffers is not None else np.zeros_like(x)
    for _ in range(h):
        g = oracle.grad(clients, y)
        if bug == "stale_gradient":
            g, previous = (g if previous is None else previous), g
        if correction is not None:
            g = g + correction
        decay = run.get("weight_decay", 0.0) if bug != "weight_decay_ignored" else 0.0
        if bug == "weight_decay":
            decay += 1e-4
        if decay != 0.0:
            g = g + decay * y
        if prox_mu > 0.0:
            diff = y - x
            if bug == "prox_no_square":
                norm = np.linalg.norm(diff, axis=1, keepdims=True)
                g = g + 0.5 * prox_mu * np.divide(diff, norm, out=np.zeros_like(diff), where=norm > 0)
            else:
                g = g + prox_mu * diff
        if beta_c != 0.0:
            b = beta_c * b + g
            g = b
        y = y - gamma * g
    if buffers is not None:
        buffers[key] = b
    return y


def fedavg(oracle, run, bug, rng):
    x = np.asarray(run["x0"], dtype=float)
    k, n, s = x.shape[0], run["clients"], run["participating"]
    mu = run.get("mu", 0.0) if run["algorithm"] == "fedprox" else 0.0
    server = make_server(run, bug)
    kept = {}  # client_momentum_kept: the buffers that should have been reset, by client
    # The server's average is Σ_c p_c y_c with the run's client weights (THEORY (A1)); written as
    # (1/S) Σ_c (S p_c) y_c so that equal weights keep the plain mean's arithmetic.
    p = np.asarray(run.get("client_weights", [1.0 / n] * n), dtype=float)
    weighted = s == n and bool(np.any(p != p[0])) and bug != "equal_weights"
    for _ in range(run["rounds"]):
        if bug == "one_client":
            x = server.step(x, local_sgd(oracle, x, rng.integers(n, size=k), run, bug, prox_mu=mu))
            oracle.report(x)
            continue
        if s == n:
            chosen = np.tile(np.arange(n), (k, 1))
        else:
            chosen = np.stack([rng.choice(n, size=s, replace=False) for _ in range(k)])
        total = np.zeros_like(x)
        for j in range(s):
            y = local_sgd(oracle, x, chosen[:, j], run, bug, prox_mu=mu,
                          buffers=kept if bug == "client_momentum_kept" else None)
            total += s * p[j] * y if weighted else y
        weight = 1.0 / s
        if bug == "weights_not_one":
            weight = 1.05 / s
        elif bug == "n_for_s":
            weight = 1.0 / n
        if bug == "server_step":
            weight = 1.0 / s
        x = server.step(x, weight * total)
        oracle.report(x)


def scaffold(oracle, run, bug, rng):
    x = np.asarray(run["x0"], dtype=float)
    k, d = x.shape
    n, s = run["clients"], run["participating"]
    gamma, h = run["gamma"], run["local_steps"]
    c_i = np.zeros((n, k, d))
    if bug == "random_cv_init":
        c_i = rng.standard_normal((n, k, d))
    c = c_i.mean(axis=0)
    chains = np.arange(k)
    server = make_server(run, bug)  # the global step η_g (server_lr; THEORY S9)
    for _ in range(run["rounds"]):
        if s == n:
            chosen = np.tile(np.arange(n), (k, 1))
        else:
            chosen = np.stack([rng.choice(n, size=s, replace=False) for _ in range(k)])
        total = np.zeros_like(x)
        delta_c = np.zeros_like(x)
        for j in range(s):
            i = chosen[:, j]  # one client per chain
            c_old = c_i[i, chains]
            correction = (c_old - c) if bug == "correction_sign" else (c - c_old)
            y = local_sgd(oracle, x, i, run, bug,
                          correction=None if bug == "no_correction" else correction)
            steps = 1 if bug == "cv_step_count" else h
            c_new = c_old - c + (x - y) / (steps * gamma)  # option II
            delta_c += c_new if bug == "server_adds_ci" else c_new - c_old
            c_i[i, chains] = c_new
            total += y
        x = server.step(x, total / s)  # x + η_g(mean y_i − x); c_i⁺ above used the old x
        c = c + delta_c / (s if bug == "cv_s_for_n" else n)
        oracle.report(x)


def run_algorithm(oracle, run, bug):
    """The run the oracle asked for (its "run" message), with `bug`, through `oracle`."""
    # Per-model mode: one chain per run message, its own randomness from (seed, chain).
    rng = np.random.default_rng([run["seed"], run["chain"]] if "chain" in run else run["seed"])
    if run["algorithm"] == "scaffold":
        scaffold(oracle, run, bug, rng)
    else:
        fedavg(oracle, run, bug, rng)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bug", choices=BUGS, default="none")
    parser.add_argument("--per-model", action="store_true",
                        help="serve run message after run message, one chain each, until the "
                             "input ends (fedverify conformance --per-model)")
    parser.add_argument("--chatty", action="store_true",
                        help="print a progress line on stdout every round, as frameworks do "
                             "(corrupts the protocol unless fedverify runs with --protocol-fds)")
    args = parser.parse_args()
    bug = args.bug
    oracle = Oracle()
    if args.chatty:
        report, rounds = oracle.report, []

        def report_and_print(x):
            rounds.append(1)
            print(f"round {len(rounds)} done", flush=True)  # on stdout, as a framework's log
            report(x)

        oracle.report = report_and_print
    if args.per_model:
        for run in oracle.runs():
            run_algorithm(oracle, run, bug)
    else:
        run_algorithm(oracle, oracle.run_message(), bug)


if __name__ == "__main__":
    main()
