"""Claims defined in Python and their report (docs/PYTHON.md, DESIGN-EXTENSIONS "Python API").

A :class:`Claim` is what a claim file of verify/claims/ is, without C++: a setting grid, a
prediction (a Python callable: your formula), a measured quantity (fedverify's exact moments or
its simulation) and a decision rule with its α. :func:`report` runs claims and writes REPORT.md
and results.json with the command line's writer (reports::run_report), in its format, and returns
them as a :class:`fedverify.Results`; a statistical row that fails is rerun once at an independent
seed, as for the catalogue.
"""

import itertools
import json
from typing import Callable, List, Optional, Sequence, Union

import numpy as np

from . import _checks, _core, api
from .results import Results, _from_run

MEASURES = ("exact_mean", "exact_cov", "simulated_mean", "simulated_cov")
RULES = {
    "exact_mean": ("tolerance", "remainder_order"),
    "exact_cov": ("tolerance", "remainder_order"),
    "simulated_mean": ("hotelling",),
    "simulated_cov": ("matrix_agreement",),
}
# The settings of a grid point; with a preset (algo "fedprox", "fedavgm", …) or an algorithm with
# parameters of its own (fednova's client_steps) also those.
SETTING_KEYS = ("algo", "gamma", "local_steps", "server", "client", "participating") + tuple(
    _core.parameter_keys()
)


def _grid(grid) -> List[dict]:
    """A list of settings, or a dict of lists (their Cartesian product, in key order)."""
    if isinstance(grid, dict):
        keys = list(grid)
        values = [v if isinstance(v, (list, tuple)) else [v] for v in grid.values()]
        settings = [dict(zip(keys, combo)) for combo in itertools.product(*values)]
    elif isinstance(grid, (list, tuple)):
        settings = [dict(s) for s in grid]
    else:
        raise TypeError(f"grid: expected a list of settings or a dict of lists, got "
                        f"{type(grid).__name__}")
    if not settings:
        raise _core.InputError("grid: no setting")
    for i, s in enumerate(settings):
        for k in s:
            if k not in SETTING_KEYS:
                raise _core.InputError(f"grid[{i}].{k}: unknown setting (expected "
                                       f"{', '.join(SETTING_KEYS)})")
        if "gamma" not in s:
            raise _core.InputError(f"grid[{i}].gamma: required")
    return settings


def _label(setting: dict) -> str:
    return ", ".join(f"{k} = {v}" for k, v in setting.items())


def _jsonable(x):
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, dict):
        return {k: _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, (np.floating, np.integer, np.bool_)):
        return x.item()
    return x


class Claim:
    """A checkable statement in a setting grid.

    :param id: unique id, e.g. "my.fedavg-sampling-cov".
    :param statement: what is claimed, one sentence (the report prints it).
    :param problem: a :class:`fedverify.Problem` (or a file name).
    :param grid: settings — a list of dicts, or a dict of lists whose product is the grid; keys
        algo, gamma (required), local_steps, server, client, participating (as :func:`predict`).
    :param predict: your formula, ``predict(problem, **setting) -> array`` (the mean, d, or the
        covariance, d×d, of the stationary law), or a formula as a string,
        ``"(gamma/N) * ACbar"``, evaluated per row by the claim files' evaluator over the same
        named blocks (:func:`fedverify.formula`; docs/CLAIM_FILES.md, "Formulas"); its text is
        then the report's formula unless ``formula=`` is given.
    :param measure: "exact_mean" | "exact_cov" (fedverify's exact moments, quadratic problems)
        | "simulated_mean" | "simulated_cov" (its simulation, ``chains``/``rounds``/``burn_in``).
    :param rule: for exact measures "tolerance" (every row: max|P − M| ≤ tolerance·max|M|) or
        "remainder_order" (rows with equal settings but γ: the log–log slope of max|P − M|
        against γ exceeds ``order`` with confidence 1 − α, α split over the rows); "hotelling" for
        simulated_mean, "matrix_agreement" for simulated_cov (default: the first).
    :param alpha: false-alarm level of the rule (statistical rules and remainder_order).
    :param margin: statistical rules: the equivalence margin δ, relative to max|prediction|
        (the row is "equivalent" when TOST confirms agreement within it).
    :param allowance: statistical rules: a known remainder of the prediction, relative to
        max|prediction| (0: none) — every entry may differ by that much before the statistic
        counts (decide.hpp rules (d), (e)), as a claim file's ``decision.allowance``.

    The rows are made by the engine behind claim files (reports/cli/claim_rows.hpp): the same
    rules, equivalence margins, minimum detectable errors and figure for a Claim as for a claim
    file with the same fields.
    """

    def __init__(
        self,
        id: str,
        statement: str,
        *,
        problem,
        grid,
        predict: Union[str, Callable[..., np.ndarray]],
        measure: str,
        rule: Optional[str] = None,
        alpha: float = 0.01,
        tolerance: Optional[float] = None,
        order: Optional[float] = None,
        margin: float = 0.05,
        allowance: float = 0.0,
        formula: str = "",
        theory: str = "user formula",
        family: str = "Claims defined in Python",
        problem_name: str = "problem",
        chains: int = 256,
        rounds: int = 2000,
        burn_in: int = 200,
    ):
        self.id = _checks.text("id", id)
        self.statement = _checks.text("statement", statement)
        self.problem = api._problem(problem)
        self.settings = _grid(grid)
        if measure not in MEASURES:
            raise _core.InputError(f"measure: expected one of {', '.join(MEASURES)}, got "
                                   f"{measure!r}")
        self.measure = measure
        self._formula = None
        if isinstance(predict, str):
            # Parsed once, its kind checked against the measure (mean: d, cov: d×d).
            self._formula = _core._Formula(self.problem, predict, "predict",
                                           "mean" if measure.endswith("mean") else "cov")
            if not formula:
                formula = predict
        elif not callable(predict):
            raise TypeError(f"predict: expected a callable or a formula (str), got "
                            f"{type(predict).__name__}")
        self.predict = predict
        self.rule = RULES[measure][0] if rule is None else rule
        if self.rule not in RULES[measure]:
            raise _core.InputError(f"rule: {measure} is decided by "
                                   f"{' or '.join(RULES[measure])}, not {self.rule!r}")
        self.alpha = _checks.alpha(alpha)
        if self.rule == "tolerance":
            if tolerance is None:
                raise _core.InputError("tolerance: required by rule tolerance (relative, > 0)")
            self.tolerance = _checks.positive("tolerance", tolerance)
        if self.rule == "remainder_order":
            if order is None:
                raise _core.InputError("order: required by rule remainder_order (the slope s0)")
            self.order = _checks.real("order", order)
            groups = {}
            for s in self.settings:
                key = _label({k: v for k, v in s.items() if k != "gamma"}) or "all settings"
                groups[key] = groups.get(key, 0) + 1
            for key, count in groups.items():
                if count < 3:
                    raise _core.InputError(
                        f"grid: remainder_order fits a slope over gamma and needs at least 3 "
                        f"step sizes per setting ({key} has {count})")
        self.margin = _checks.positive("margin", margin)
        self.allowance = _checks.real("allowance", allowance)
        if self.allowance != 0 and self.rule not in ("hotelling", "matrix_agreement"):
            raise _core.InputError("allowance: only for the statistical rules hotelling and "
                                   "matrix_agreement")
        if not 0 <= self.allowance < 1:
            raise _core.InputError(f"allowance: expected a number in [0, 1) (relative to "
                                   f"max|prediction|), got {self.allowance:g}")
        self.formula = _checks.text("formula", formula)
        self.theory = _checks.text("theory", theory)
        self.family = _checks.text("family", family)
        self.problem_name = _checks.text("problem_name", problem_name)
        self.run_options = {
            "chains": _checks.integer("chains", chains),
            "rounds": _checks.integer("rounds", rounds),
            "burn_in": _checks.integer("burn_in", burn_in),
        }

    # -- measurement and prediction -------------------------------------------------------------
    def _predicted(self, setting: dict) -> np.ndarray:
        if self._formula is not None:
            return self._formula.evaluate(api._setting_arguments(setting), _label(setting))
        value = np.asarray(self.predict(self.problem, **setting), dtype=float)
        d = self.problem.dim
        shape = (d,) if self.measure.endswith("mean") else (d, d)
        if value.shape != shape:
            raise _core.InputError(f"predict: returned shape {value.shape} at {_label(setting)}, "
                                   f"expected {shape} for {self.measure}")
        if not np.all(np.isfinite(value)):
            raise _core.InputError(f"predict: not finite at {_label(setting)}")
        return value

    # -- rows: the claim engine of claim files -----------------------------------------------
    def _engine_spec(self) -> dict:
        """The claim as the engine's ClaimFile (python/src/runs.cpp, claim_rows): its fields and,
        per grid point, its labels, settings and prediction (computed here)."""
        points = []
        for s in self.settings:
            others = _label({k: v for k, v in s.items() if k != "gamma"}) or "all settings"
            points.append({"label": _label(s), "others": others, "setting": _jsonable(s),
                           "predicted": _jsonable(self._predicted(s))})
        return {
            "id": self.id, "statement": self.statement, "measure": self.measure,
            "rule": self.rule, "alpha": self.alpha,
            "tolerance": getattr(self, "tolerance", 0.0), "order": getattr(self, "order", 0.0),
            "margin": self.margin, "allowance": self.allowance,
            "figure_file": "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in self.id)
                           + ".svg",
            "points": points, **self.run_options,
        }

    def _result_text(self, seed: int, attempt: int) -> str:
        return _core.claim_rows(self.problem, json.dumps(self._engine_spec()),
                                [api._setting_arguments(s) for s in self.settings],
                                _checks.seed("seed", seed), int(attempt), 0)

    def run(self, seed: int = _core.DEFAULT_SEED, attempt: int = 0) -> dict:
        """The claim's rows at run seed ``seed`` (attempt > 0: the confirmation rerun) and its
        figure, as the report draws it: ``{"rows": [...], "note", "breaks_at", "figures"}``."""
        return json.loads(self._result_text(seed, attempt))

    @property
    def passed(self) -> bool:
        return all(r["passed"] for r in self.run()["rows"])

    def _decision_rule(self) -> str:
        if self.rule == "tolerance":
            return f"every row: max|predicted − exact| ≤ {self.tolerance:g}·max|exact| (exact)"
        if self.rule == "remainder_order":
            return (f"rows of equal setting but γ: the log–log slope of max|predicted − exact| "
                    f"against γ exceeds {self.order:g} (one-sided t; α split over the rows)")
        known = (f", beyond a known remainder of {self.allowance:g}·max|prediction|"
                 if self.allowance else "")
        if self.rule == "hotelling" and not self.allowance:
            return "every row: Hotelling's T² of the simulated mean (batch means) = prediction"
        return f"every row: entries agree within t·MCSE (Bonferroni over entries){known}"

    def _spec(self) -> dict:
        statistical = self.rule in ("hotelling", "matrix_agreement")
        return {
            "id": self.id,
            "family": self.family,
            "statement": self.statement,
            "formula": self.formula,
            "theory": self.theory,
            "setting": f"{self.problem_name}; " + "; ".join(_label(s) for s in self.settings),
            "decision_rule": self._decision_rule(),
            "margin": f"±{100 * self.margin:g} % of max|prediction|" if statistical else "",
            "alpha": self.alpha if self.rule != "tolerance" else 0.0,
            "run": lambda seed, attempt, quick: self._result_text(seed, attempt),
        }


def report(
    claims: Sequence[Claim],
    out: str = "reports/python",
    *,
    seed: int = _core.DEFAULT_SEED,
    threads: int = 0,
    baseline: Optional[str] = None,
) -> Results:
    """Runs ``claims`` and writes ``out``/REPORT.md, REPORT.html and results.json as ``fedverify
    report`` does (published atomically; ``baseline``: compare with an earlier results.json).

    :returns: the :class:`Results` of ``out``/results.json. It is also the exit code this
        function returned before it returned Results (an ``int`` subclass): 0 when every claim
        holds (and nothing regressed against the baseline), 1 otherwise, so ``report(…) == 1``,
        ``int(report(…))`` and ``sys.exit(report(…))`` behave as they did.
    :raises InputError: naming ``out`` or ``baseline`` for an I/O error, ``claims`` for an empty
        list or a repeated id.
    """
    claims = list(claims)
    ids = set()
    for i, c in enumerate(claims):
        if not isinstance(c, Claim):
            raise TypeError(f"claims[{i}]: expected a fedverify.Claim, got {type(c).__name__}")
        if c.id in ids:
            raise _core.InputError(f"claims[{i}].id: {c.id!r} repeats an earlier claim's id")
        ids.add(c.id)
    problems = {}
    for c in claims:
        problems[c.problem_name] = (f"{c.problem.kind}, d = {c.problem.dim}, N = "
                                    f"{c.problem.num_clients}", c.problem)
    out = _checks.path("out", out)
    code = _core.report(
        [c._spec() for c in claims],
        problems,
        out,
        _checks.seed("seed", seed),
        False,
        _checks.integer("threads", threads),
        "" if baseline is None else _checks.path("baseline", baseline),
    )
    return _from_run(out, code)
