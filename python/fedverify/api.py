"""Problems, closed forms and simulations (docs/PYTHON.md; the contract is in
docs/DESIGN-EXTENSIONS.md, "Python API"). Each function calls the C++ function the command line
calls, so the same arguments give the same numbers as ``fedverify predict|simulate``."""

import json
from typing import Dict, Optional, Sequence, Tuple, Union

import numpy as np

from . import _checks, _core
from ._core import InputError, Problem

ProblemLike = Union[Problem, str]
Optimiser = Union[str, dict]


def load_problem(path) -> Problem:
    """Reads a problem file (docs/PROBLEM_FORMATS.md): ``--problem FILE``.

    :param path: str or os.PathLike, the JSON file.
    :raises InputError: unreadable file or malformed problem, naming the file and the field.
    """
    return _core.load_problem(_checks.path("path", path))


def parse_problem(text: str) -> Problem:
    """A problem from the JSON text of a problem file (errors are prefixed by "problem:")."""
    return _core.parse_problem(_checks.text("text", text))


def quadratic_problem(hessians, optima, noise_covs, weights=None) -> Problem:
    """The quadratic problem f_c(x) = ½(x − b_c)ᵀA_c(x − b_c) with additive gradient noise
    N(0, S_c), from NumPy arrays.

    :param hessians: N arrays d×d (or an N×d×d array), A_c symmetric positive definite.
    :param optima: N arrays of d numbers (or an N×d array), b_c.
    :param noise_covs: N arrays d×d (or an N×d×d array), S_c symmetric positive semi-definite.
    :param weights: optional N client weights p_c > 0 (:func:`with_client_weights`).
    :raises TypeError: an argument that is not arrays of numbers, naming it ("optima[1]").
    :raises InputError: shapes, symmetry or definiteness, naming the client and the field
        ("clients[1].hessian: not positive definite …").
    """
    problem = _core.quadratic_problem(hessians, optima, noise_covs)
    return problem if weights is None else with_client_weights(problem, weights)


def with_client_weights(problem: ProblemLike, weights) -> Problem:
    """The problem with client weights p_c (THEORY (A1); docs/PROBLEM_FORMATS.md, "Client
    weights"): the objective Σ_c p_c f_c, and sgd, fedavg, fedrr and dpfedavg average the clients with p_c.

    :param weights: N positive numbers (relative; normalised to sum 1), ``"data-size"`` (p_c ∝ the
        client's rows, logistic and least-squares problems) or ``"equal"``.
    :raises InputError: a weight that is not finite and > 0, naming ``clients[c].weight``, or
        ``client_weights`` for a problem without rows of data.
    """
    data = json.loads(_problem(problem).to_json())
    for client in data["clients"]:
        client.pop("weight", None)
    data.pop("client_weights", None)
    if isinstance(weights, str):
        data["client_weights"] = _checks.text("weights", weights)
    else:
        values = [_checks.real(f"weights[{c}]", w) for c, w in enumerate(weights)]
        if len(values) != len(data["clients"]):
            raise InputError(
                f"weights: expected {len(data['clients'])} numbers (one per client), "
                f"got {len(values)}")
        for client, w in zip(data["clients"], values):
            client["weight"] = w
    return parse_problem(json.dumps(data))


def generate_quadratic(
    d: int = 2,
    clients: int = 3,
    condition: float = 10.0,
    optimum_spread: float = 1.0,
    hessian_spread: float = 1.0,
    noise: float = 1.0,
    seed: int = 0,
) -> Problem:
    """The seeded heterogeneous quadratic problem of theory/problems/generators.hpp (the
    generator of the command line's problem files): the same options and seed give the same
    problem, bit for bit.

    :param d: dimension ≥ 1.
    :param clients: N ≥ 1.
    :param condition: L/μ of every client Hessian (L = 1), ≥ 1.
    :param optimum_spread: scale of the client optima around their centre, ≥ 0.
    :param hessian_spread: 0 identical client Hessians … 1 independent ones.
    :param noise: scale of the noise covariances, ≥ 0.
    :param seed: integer in [0, 2⁶⁴ − 1].
    """
    return _core.generate_quadratic(
        _checks.integer("d", d),
        _checks.integer("clients", clients),
        _checks.real("condition", condition),
        _checks.real("optimum_spread", optimum_spread),
        _checks.real("hessian_spread", hessian_spread),
        _checks.real("noise", noise),
        _checks.seed("seed", seed),
    )



def generate_garnet_td(
    states: int = 30,
    actions: int = 2,
    branching: int = 2,
    features: int = 8,
    discount: float = 0.95,
    clients: int = 10,
    kernel_heterogeneity: float = 0.0,
    reward_heterogeneity: float = 0.0,
    feature_map: str = "gaussian",
    batch_size: int = 1,
    seed: int = 1,
) -> str:
    """The text of a seeded federated TD(0) problem file (kind ``linear-sa``) on a Garnet MDP,
    theory/problems/garnet.hpp (docs/generators-linear-sa.md): the same options and seed give
    the same bytes. Pass it to :func:`parse_problem` or write it to a file.

    :param states: n_S ≥ 2.  :param actions: n_A ≥ 1.
    :param branching: next states of each (state, action), 1 ≤ b ≤ n_S.
    :param features: d, 1 ≤ d ≤ n_S.  :param discount: ρ in [0, 1).  :param clients: N ≥ 1.
    :param kernel_heterogeneity: ≥ 0, 0 = the same kernel on every client.
    :param reward_heterogeneity: ≥ 0, 0 = the same rewards on every client.
    :param feature_map: "gaussian" (unit-norm Gaussian rows) or "uniform-l1" (SCAFFLSA's).
    :param batch_size: B ≥ 1.  :param seed: integer in [0, 2⁶⁴ − 1].
    """
    return _core.generate_garnet_td(
        _checks.integer("states", states),
        _checks.integer("actions", actions),
        _checks.integer("branching", branching),
        _checks.integer("features", features),
        _checks.real("discount", discount),
        _checks.integer("clients", clients),
        _checks.real("kernel_heterogeneity", kernel_heterogeneity),
        _checks.real("reward_heterogeneity", reward_heterogeneity),
        _checks.text("feature_map", feature_map),
        _checks.integer("batch_size", batch_size),
        _checks.seed("seed", seed),
    )


def generate_diabetes(
    clients: int = 10,
    split: str = "dirichlet",
    alpha: float = 0.5,
    bins: int = 5,
    shift_feature: str = "bmi",
    l2: float = 0.1,
    batch_size: int = 1,
    standardise_target: bool = True,
    seed: int = 1,
) -> str:
    """The text of a seeded least-squares problem file (kind ``least-squares``) on
    python3-sklearn's diabetes table (442 × 10, standardised, plus an intercept),
    theory/problems/diabetes_data.hpp (docs/generators-linear-sa.md).

    :param clients: N in [1, 442].
    :param split: "iid", "dirichlet" (Dirichlet(alpha) over target quantile bins) or
        "covariate-shift" (contiguous quantile blocks of shift_feature).
    :param alpha: Dirichlet concentration > 0.  :param bins: target bins in [1, 442].
    :param shift_feature: age, sex, bmi, bp or s1 … s6.  :param l2: λ ≥ 0.
    :param batch_size: B ≥ 1.  :param standardise_target: z-score the target.
    :param seed: integer in [0, 2⁶⁴ − 1].
    """
    if not isinstance(standardise_target, bool):
        raise TypeError(
            f"standardise_target: expected a bool, got {type(standardise_target).__name__}")
    return _core.generate_diabetes(
        _checks.integer("clients", clients),
        _checks.text("split", split),
        _checks.real("alpha", alpha),
        _checks.integer("bins", bins),
        _checks.text("shift_feature", shift_feature),
        _checks.real("l2", l2),
        _checks.integer("batch_size", batch_size),
        standardise_target,
        _checks.seed("seed", seed),
    )

def problem_from_csv(
    path,
    *,
    label: str,
    kind: str = "logistic",
    features: Optional[Sequence[str]] = None,
    clients: Optional[int] = None,
    split: str = "iid",
    alpha: float = 0.5,
    bins: int = 5,
    client_column: Optional[str] = None,
    positive_label: Optional[str] = None,
    standardise: bool = True,
    intercept: bool = True,
    l2: float = 0.1,
    batch_size: int = 1,
    seed: int = 1,
    delimiter: str = ",",
    out=None,
) -> str:
    """The text of a ``logistic`` or ``least-squares`` problem file built from a CSV table with a
    header row, as ``fedverify problem from-csv`` writes it (one C++ implementation,
    theory/problems/csv_problem.hpp; docs/PROBLEM_FORMATS.md, "From a CSV file"). Same table,
    options and seed ⇒ the same bytes. Pass it to :func:`parse_problem`, or give ``out`` to
    write the file as well.

    :param path: str or os.PathLike, the CSV file.
    :param label: the label column (logistic: two values, mapped to −1 and +1, the larger,
        numerically or as text, or ``positive_label``, to +1; least-squares: real targets).
    :param kind: "logistic" or "least-squares".
    :param features: the feature columns (default: every column but the label and the client
        column).
    :param clients: N ≥ 1 (split "iid" and "dirichlet"; by-column: the number of values, or
        None).
    :param split: "iid" (seeded shuffle, N blocks whose sizes differ by at most one),
        "dirichlet" (per-label Dirichlet(alpha) proportions over the clients; least-squares: over
        ``bins`` quantile bins of the target) or "by-column" (one client per value of
        ``client_column``).
    :param standardise: z-score every feature on the pooled table (default True).
    :param intercept: append a column of ones, named intercept (default True).
    :param l2: λ ≥ 0.  :param batch_size: B ≥ 1.  :param seed: integer in [0, 2⁶⁴ − 1].
    :raises InputError: naming the argument ("client_column: …") or the file, line and column
        of a bad cell.
    """
    if features is None:
        features = []
    elif isinstance(features, str) or not all(isinstance(f, str) for f in features):
        raise TypeError("features: expected a sequence of column names")
    text = _core.problem_from_csv(
        _checks.path("path", path),
        _checks.text("label", label),
        _checks.text("kind", kind),
        list(features),
        _checks.text("split", split),
        0 if clients is None else _checks.integer("clients", clients),
        _checks.real("alpha", alpha),
        _checks.integer("bins", bins),
        "" if client_column is None else _checks.text("client_column", client_column),
        "" if positive_label is None else _checks.text("positive_label", positive_label),
        _checks.boolean("standardise", standardise),
        _checks.boolean("intercept", intercept),
        _checks.real("l2", l2),
        _checks.integer("batch_size", batch_size),
        _checks.seed("seed", seed),
        _checks.text("delimiter", delimiter),
    )
    if out is not None:
        with open(_checks.path("out", out), "w", encoding="utf-8") as f:
            f.write(text)
    return text


def _problem(problem: ProblemLike) -> Problem:
    if isinstance(problem, Problem):
        return problem
    if isinstance(problem, str):
        return load_problem(problem)
    raise TypeError(
        "problem: expected a fedverify.Problem (load_problem, quadratic_problem, "
        f"generate_quadratic) or a file name, got {type(problem).__name__}"
    )


def _run_arguments(algo, gamma, local_steps, server, client, participating, preset=None):
    return _core._RunArguments(
        _checks.text("algo", algo),
        _checks.real("gamma", gamma),
        _checks.integer("local_steps", local_steps),
        _checks.optimiser("server", server),
        _checks.optimiser("client", client),
        _checks.integer("participating", participating),
        _checks.preset(preset or {}),
    )


def predict(
    problem: ProblemLike,
    algo: str = "fedavg",
    *,
    gamma: float,
    local_steps: int = 1,
    server: Optimiser = "sgd",
    client: Optimiser = "sgd",
    participating: int = 0,
    rounds: Optional[int] = None,
    x0=None,
    **preset: float,
) -> Dict[str, object]:
    """The closed-form predictions of ``fedverify predict``: a dict keyed by docs/CLI.md's field
    names — x_star, mean_first_order, bias_heterogeneity, bias_stochastic, cov_first_order,
    constants, and for quadratic problems mean_exact, cov_exact, spectral_radius — vectors and
    matrices as NumPy arrays. With ``rounds=T`` also the exact finite-time curve from ``x0``
    (default x*; THEORY (T1), ``predict --rounds T --x0 X``): mse_exact (E‖x_t − x*‖², T + 1
    values) and mean_exact_t (T + 1 × d).

    :param algo: a chain algorithm (sgd, fedavg, scaffold, fedrr, fedopt, …), ``--algo``.
    :param gamma: step size γ > 0. :param local_steps: H ≥ 1.
    :param server, client: FedOpt's optimisers ("adam:lr=0.01" or {"name": "adam", "lr": 0.01}).
    :param participating: FedOpt's clients per round S (0: all).
    :param preset: a preset's parameters, e.g. ``predict(p, "fedprox", gamma=0.05, mu=0.1)`` or
        ``"fedavgm"`` with ``momentum=0.9`` (docs/PYTHON.md, presets): the run is fedopt's with
        those optimisers, and the dict says ``preset``.
    """
    return _core.predict(
        _problem(problem),
        _run_arguments(algo, gamma, local_steps, server, client, participating, preset),
        None if rounds is None else _checks.integer("rounds", rounds),
        x0,
    )


def exact_moments(
    problem: ProblemLike,
    algo: str = "fedavg",
    *,
    gamma: float,
    local_steps: int = 1,
    server: Optimiser = "sgd",
    client: Optimiser = "sgd",
    participating: int = 0,
    **preset: float,
) -> Tuple[np.ndarray, np.ndarray]:
    """The exact stationary mean (d) and covariance (d×d) of the global iterate on a quadratic
    problem (theory::exact_moments; predict's mean_exact and cov_exact); ``preset`` as predict's."""
    return _core.exact_moments(
        _problem(problem),
        _run_arguments(algo, gamma, local_steps, server, client, participating, preset),
    )


def formula(
    problem: ProblemLike,
    text: str,
    algo: str = "fedavg",
    *,
    gamma: float,
    local_steps: int = 1,
    server: Optimiser = "sgd",
    client: Optimiser = "sgd",
    participating: int = 0,
    **preset: float,
) -> Union[float, np.ndarray]:
    """The value of the formula ``text`` (docs/CLAIM_FILES.md, "Formulas") at one setting: a
    float, a d-vector or a d×d matrix, e.g. ``formula(p, "(gamma/N) * ACbar", gamma=0.01)``. The
    evaluator is the claim files' (theory/closed_forms/formula.hpp), over the same named blocks
    (gamma, H, N, S, L, mu, zeta2, sigma2_star, x_star, Hess, Cbar, ACbar, AG, b_h, b_s,
    mean_first_order, cov_first_order, mean_exact, cov_exact, I, …; :func:`formula_blocks`); the
    setting's arguments are :func:`predict`'s.

    :raises InputError: naming ``text`` and the character position of a bad formula, or the
        setting when the value is not finite.
    """
    f = _core._Formula(_problem(problem), _checks.text("text", text), "text", "")
    return f.evaluate(
        _run_arguments(algo, gamma, local_steps, server, client, participating, preset),
        f"gamma = {gamma}, local_steps = {local_steps}",
    )


def formula_blocks() -> list:
    """The names a formula may use, as (name, kind, meaning, THEORY label) tuples, kind one of
    "scalar", "vector" (d), "matrix" (d×d)."""
    return list(_core.formula_blocks())


def _setting_arguments(setting: dict):
    """The core's run arguments of a grid setting (a Claim's: algo, gamma, … and parameters)."""
    return _run_arguments(
        setting.get("algo", "fedavg"),
        setting["gamma"],
        setting.get("local_steps", 1),
        setting.get("server", "sgd"),
        setting.get("client", "sgd"),
        setting.get("participating", 0),
        {k: v for k, v in setting.items() if k in _core.parameter_keys()},
    )


def _simulate_arguments(chains, rounds, burn_in, seed, threads, batch_rounds, noise, trace):
    if batch_rounds == "auto":
        batch_rounds = 0
    elif isinstance(batch_rounds, str):
        raise _core.InputError(f'batch_rounds: expected auto or an integer, got "{batch_rounds}"')
    return _core._SimulateArguments(
        _checks.integer("chains", chains),
        _checks.integer("rounds", rounds),
        _checks.integer("burn_in", burn_in),
        _checks.seed("seed", seed),
        _checks.integer("threads", threads),
        _checks.integer("batch_rounds", batch_rounds),
        _checks.text("noise", noise),
        bool(trace),
    )


def simulate(
    problem: ProblemLike,
    algo: str = "fedavg",
    *,
    gamma: float,
    local_steps: int = 1,
    chains: int,
    rounds: int,
    burn_in: int,
    seed: int,
    threads: int = 0,
    batch_rounds: Union[int, str] = "auto",
    noise: str = "independent",
    trace: bool = False,
    x0=None,
    server: Optimiser = "sgd",
    client: Optimiser = "sgd",
    participating: int = 0,
    **preset: float,
) -> Dict[str, object]:
    """K chains of the algorithm; the dict ``fedverify simulate`` prints (mean, mean_mcse, cov,
    ess, rhat, samples, batch_rounds, diverged, chain_steps, the spec), arrays as NumPy.
    Same seed ⇒ the same numbers as the command line, whatever ``threads``.

    :param chains: K ≥ 1. :param rounds: T per chain, including the burn-in.
    :param burn_in: B rounds discarded, 0 ≤ B < T. :param seed: integer in [0, 2⁶⁴ − 1].
    :param threads: 0 = all; never changes a number.
    :param batch_rounds: batch length of the MCSE, or "auto".
    :param noise: "independent" or "shared" (FedRR's runs at γ and 2γ).
    :param trace: also return every recorded round's states, "trace": (T − B) × d × K.
    :param x0: the start of every chain (default 0), as ``simulate --x0``; with ``trace=True`` its
        curve compares with ``predict(rounds=T, x0=x0)`` (THEORY (T1)).
    :param preset: a preset's parameters, as predict's.
    """
    return _core.simulate(
        _problem(problem),
        _run_arguments(algo, gamma, local_steps, server, client, participating, preset),
        _simulate_arguments(chains, rounds, burn_in, seed, threads, batch_rounds, noise, trace),
        x0,
    )
