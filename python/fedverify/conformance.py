"""Conformance of a Python implementation of FedAvg, Scaffold or FedProx (docs/PYTHON.md; the
checks are docs/DESIGN-EXTENSIONS.md, "Conformance"): ``fedverify conformance`` with the
implementation called in-process instead of run as a child process speaking JSON lines."""

from typing import Callable, Dict, Optional

from . import _checks, _core
from .api import Optimiser, ProblemLike, _problem

Oracle = _core.ConformanceOracle


def conformance(
    problem: ProblemLike,
    implementation: Callable[[Oracle, dict], None],
    algo: str = "fedavg",
    *,
    gamma: float,
    local_steps: int = 1,
    seed: int,
    client: Optimiser = "sgd",
    server: Optimiser = "sgd",
    participating: int = 0,
    chains: Optional[int] = None,
    rounds: Optional[int] = None,
    burn_in: int = 100,
    one_round_chains: int = 4000,
    alpha: float = 0.01,
    trajectory: Optional[str] = None,
    per_model: bool = False,
    weight_decay: float = 0.0,
    **preset: float,
) -> Dict[str, object]:
    """Checks ``implementation`` against fedverify's exact laws on a quadratic problem: the dict
    ``fedverify conformance`` prints (conforms, checks, diagnosis, …). Same implementation and
    seed ⇒ the same numbers as ``fedverify conformance --exec`` with the same options.

    ``implementation(oracle, run)`` runs the whole run described by ``run`` (the protocol's run
    message as a dict: algorithm, dim, clients, gamma, local_steps, participating, mu,
    server_lr, server_momentum, server_nesterov, chains K, rounds T, seed, x0 as a K × d array),
    starting its control variates and its server's momentum buffer at 0:

    - ``oracle.grad(client, x)``: one stochastic gradient per chain at ``x`` (K × d) of
      ``client`` (an integer, or K integers: one per chain) → K × d array;
    - ``oracle.report(x)``: the global iterates (K × d) after each of the T rounds.

    If the iterates diverge (|x| > 1e100 or not finite), the run ends: the oracle raises on the
    next call, fedverify catches that, and the stationary checks fail as "diverged".

    :param algo: "fedavg", "scaffold", or "fedopt" (with ``client="fedprox:mu=…"`` for FedProx,
        or ``participating`` for FedAvg with client sampling).
    :param participating: S clients per round (0: all): fedopt, and Scaffold (THEORY S8).
    :param server: fedopt's server rule, ``"sgd:lr=η_g,momentum=β,nesterov=0|1"`` (THEORY O2; the
        run message carries server_lr, server_momentum, server_nesterov); adaptive servers
        (adam, yogi, …) have no exact law and are refused.
    :param preset: a preset's parameters: ``conformance(p, impl, "fedprox", mu=0.5, …)`` checks a
        FedProx implementation (docs/PYTHON.md, presets).
    :param seed: fedverify's gradient noise (integer in [0, 2⁶⁴ − 1]); the stationary run uses
        seed + 1.
    :param alpha: false-alarm level of the four tests together.
    :param trajectory: "float64" or "float32": trajectory mode instead of the four tests — every
        gradient request and round of ``chains`` chains over ``rounds`` rounds replayed against the
        algorithm's rule on the same gradients, to that precision's round-off (full participation).
    :param chains, rounds: of the stationary run (default 256 and 400; 64 chains with
        ``per_model``), or of trajectory mode (default 8 and 5).
    :param weight_decay: λ ≥ 0 of every local step, y ← y − γ(g + λy + …), as
        ``torch.optim.SGD(weight_decay=λ)`` (in the run message; the laws are THEORY (C1)'s).
    :param per_model: ``implementation`` is called once per chain, with a run message of one
        chain (``"chains": 1``, ``"chain": k``; seed its own randomness from (seed, chain)), as
        ``fedverify conformance --per-model`` runs a framework that trains one model at a time;
        the numbers are those of the batched call for an implementation that computes each chain
        the same way.
    :raises TypeError: ``implementation`` not callable, or an argument of the wrong type.
    :raises InputError: bad values (naming the argument), or an implementation that breaks the
        protocol (naming ``implementation``: a bad client index, a wrong shape, too few rounds).
    """
    if not callable(implementation):
        raise TypeError(
            f"implementation: expected a callable (oracle, run), got {type(implementation).__name__}"
        )
    return _core.conformance(
        _problem(problem),
        implementation,
        _core._ConformanceArguments(
            _checks.text("algo", algo),
            _checks.real("gamma", gamma),
            _checks.integer("local_steps", local_steps),
            _checks.optimiser("client", client),
            _checks.optimiser("server", server),
            _checks.integer("participating", participating),
            _checks.preset(preset),
            _checks.seed("seed", seed),
            None if chains is None else _checks.integer("chains", chains),
            None if rounds is None else _checks.integer("rounds", rounds),
            _checks.integer("burn_in", burn_in),
            _checks.integer("one_round_chains", one_round_chains),
            _checks.alpha(alpha),
            "" if trajectory is None else _checks.text("trajectory", trajectory),
            _checks.boolean("per_model", per_model),
            _checks.real("weight_decay", weight_decay),
        ),
    )
