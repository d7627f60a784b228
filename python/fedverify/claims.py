"""Claims defined in Python and their report (docs/PYTHON.md, DESIGN-EXTENSIONS "Python API").

A :class:`Claim` is what a claim file of verify/claims/ is, without C++: a setting grid, a
prediction (a Python callable: your formula), a measured quantity (fedverify's exact moments or
its simulation) and a decision rule with its α. :func:`report` runs claims and writes REPORT.md
and results.json with the command line's writer (reports::run_report), in its format, and returns
them as a :class:`fedverify.Results`; a statistical row that fails is rerun once at an independent
seed, as for the catalogue.
"""

import hashlib
import itertools
import json
import math
from typing import Callable, Dict, List, Optional, Sequence, Union

import numpy as np

from . import _checks, _core, api, decide
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


def _row_seed(seed: int, claim_id: str, key: str, attempt: int) -> int:
    """A seed per (run seed, claim, row, attempt), so rows and attempts are independent."""
    digest = hashlib.sha256(f"{seed}|{claim_id}|{key}|{attempt}".encode()).digest()
    return int.from_bytes(digest[:8], "little")


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


def _fmt(a: np.ndarray) -> str:
    return np.array2string(np.asarray(a), precision=4, separator=", ").replace("\n", "")


# The claimed order and thresholds in a figure: dashed grey lines (a gnuplot "with" clause).
_REFERENCE_STYLE = "lines dt 2 lc rgb '#808080'"


def _plain(text: str) -> str:
    """A legend entry without gnuplot's enhanced-text markup (_ and ^ would sub/superscript)."""
    return text.replace("_", " ").replace("^", "")


# Round-off of a user's formula when the baseline compares it between two runs: its values are
# deterministic, so they may move by round-off only (relative).
_GATE_RELATIVE = 1e-9


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
        against γ exceeds ``order`` with confidence 1 − α, decide.slope); "hotelling" for
        simulated_mean, "matrix_agreement" for simulated_cov (default: the first).
    :param alpha: false-alarm level of the rule (statistical rules and remainder_order).
    :param margin: statistical rules: the equivalence margin δ, relative to max|prediction|
        (the row is "equivalent" when TOST confirms agreement within it).
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
        self.margin = _checks.positive("margin", margin)
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

    def _exact(self, setting: dict) -> np.ndarray:
        mean, cov = api.exact_moments(self.problem, **setting)
        return mean if self.measure == "exact_mean" else cov

    def _gates(self, predicted: np.ndarray) -> list:
        flat = predicted.ravel()
        return [[f"predicted[{i}]", float(v), _GATE_RELATIVE * max(abs(v), 1e-300)]
                for i, v in enumerate(flat)]

    # -- rows -------------------------------------------------------------------------------------
    def _tolerance_rows(self) -> List[dict]:
        rows = []
        for s in self.settings:
            p, m = self._predicted(s), self._exact(s)
            scale = float(np.max(np.abs(m)))
            error = float(np.max(np.abs(p - m)))
            relative = error / scale if scale > 0 else math.inf
            rows.append({
                "setting": _label(s),
                "predicted": _fmt(p),
                "measured": f"{_fmt(m)} (relative error {relative:.3g})",
                "passed": relative <= self.tolerance,
                "data": {"setting": s, "predicted": p, "exact": m, "relative_error": relative,
                         "tolerance": self.tolerance},
                "gates": self._gates(p),
            })
        return rows

    def _remainder_rows(self) -> List[dict]:
        groups: Dict[str, List[dict]] = {}
        for s in self.settings:
            key = _label({k: v for k, v in s.items() if k != "gamma"}) or "all settings"
            groups.setdefault(key, []).append(s)
        rows = []
        for key, settings in groups.items():
            gammas = [s["gamma"] for s in settings]
            errors = [float(np.max(np.abs(self._predicted(s) - self._exact(s))))
                      for s in settings]
            result = decide.slope(gammas, errors, self.order, alpha=self.alpha)
            rows.append({
                "setting": f"{key}, γ ∈ {{{', '.join(f'{g:g}' for g in gammas)}}}",
                "predicted": f"remainder order > {self.order:g}",
                "measured": f"slope {result.slope:.4g} (t = {result.statistic:.3g} vs "
                            f"{result.threshold:.3g})",
                "passed": result.passed,
                "data": {"settings": settings, "gammas": gammas, "errors": errors,
                         "slope": result.slope,
                         "std_error": result.std_error, "rule": result.description},
                "gates": [["slope", result.slope, max(result.std_error, 1e-12)]],
            })
        return rows

    def _simulated_rows(self, seed: int, attempt: int) -> List[dict]:
        rows = []
        for s in self.settings:
            label = _label(s)
            p = self._predicted(s)
            run_seed = _row_seed(seed, self.id, label, attempt)
            m = api._simulate_moments(self.problem, s, self.run_options, run_seed)
            scale = float(np.max(np.abs(p))) or 1.0
            delta = self.margin * scale
            if self.measure == "simulated_mean":
                rule = decide.hotelling(prediction=p, mean=m["mean"], mean_cov=m["mean_cov"],
                                        batches=m["batches"], alpha=self.alpha)
                estimates, ses, dof = m["mean"], m["mean_mcse"], m["batches"] - 1
                pred, measured, mcse = p, m["mean"], m["mean_mcse"]
            else:
                rule = decide.matrix_agreement(m["cov"], p, m["cov_mcse"], alpha=self.alpha)
                iu = np.triu_indices(p.shape[0])
                estimates, ses, dof = m["cov"][iu], m["cov_mcse"][iu], 0
                pred, measured, mcse = p[iu], m["cov"], m["cov_mcse"]
            tests = [decide.equivalence(estimate=e, se=se, dof=dof, lower=q - delta,
                                        upper=q + delta, alpha=self.alpha)
                     for e, se, q in zip(np.ravel(estimates), np.ravel(ses), np.ravel(pred))]
            rows.append({
                "setting": label,
                "predicted": _fmt(p),
                "measured": f"{_fmt(measured)} (statistic {rule.statistic:.3g} vs "
                            f"{rule.threshold:.3g})",
                "passed": rule.passed,
                "data": {"setting": s, "seed": run_seed, "predicted": p, "measured": measured,
                         "mcse": mcse,
                         "statistic": rule.statistic, "threshold": rule.threshold,
                         "p_value": rule.p_value, "rule": rule.description},
                "gates": self._gates(p),
                "equivalence": {
                    "margin": self.margin,
                    "margin_text": f"±{100 * self.margin:g} % of max|prediction|",
                    "confirmed": all(t.passed for t in tests),
                    "mde": None,
                    "tests": [t.description for t in tests],
                },
            })
        return rows

    def run(self, seed: int = _core.DEFAULT_SEED, attempt: int = 0) -> dict:
        """The claim's rows at run seed ``seed`` (attempt > 0: the confirmation rerun) and its
        figure (drawn by :func:`report` as the command line draws the catalogue's)."""
        if self.rule == "tolerance":
            rows = self._tolerance_rows()
        elif self.rule == "remainder_order":
            rows = self._remainder_rows()
        else:
            rows = self._simulated_rows(seed, attempt)
        return {"rows": rows, "note": "", "figures": [self._figure(rows)]}

    # -- figure -----------------------------------------------------------------------------------
    def _groups(self) -> tuple:
        """The rows grouped by every setting but γ, each group as (legend, row indices, γs), and
        whether γ spans more than a decade (then the axis is logarithmic). Figures plot against
        γ, one series per group, never against the row number."""
        groups: Dict[str, List[int]] = {}
        for i, s in enumerate(self.settings):
            groups.setdefault(self._legend(s), []).append(i)
        gammas = [float(s["gamma"]) for s in self.settings]
        log_x = min(gammas) > 0 and max(gammas) / min(gammas) > 10
        out = []
        for legend, members in groups.items():
            members = sorted(members, key=lambda i: gammas[i])
            out.append((legend, members, [gammas[i] for i in members]))
        return out, log_x

    def _legend(self, setting: dict) -> str:
        """A group's legend entry: the settings that vary over the grid, γ aside."""
        varying = [k for k in SETTING_KEYS if k != "gamma"
                   and len({repr(s.get(k)) for s in self.settings}) > 1]
        return _plain(_label({k: setting.get(k) for k in varying}) or "all settings")

    def _figure(self, rows: List[dict]) -> dict:
        """What the decision looked at, one figure per claim: the remainder against γ with the
        claimed order (remainder_order), the relative error with its tolerance (tolerance), the
        relative deviation of the simulation with ±z·MCSE bars and the margin (statistical)."""
        figure = {"file": "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in self.id)
                  + ".svg", "log_x": False, "log_y": False, "series": []}
        if self.rule == "remainder_order":
            figure.update(title=f"{self.id}: remainder against γ", xlabel="γ", log_x=True,
                          log_y=True, ylabel="max|predicted − exact|",
                          caption=f"{self.id}: the remainder of the prediction against γ (log–log) "
                                  f"and the claimed order {self.order:g} through its first point")
            for i, row in enumerate(rows):
                g, e = row["data"]["gammas"], row["data"]["errors"]
                figure["series"].append({"title": self._legend(row["data"]["settings"][0]),
                                         "x": g, "y": e, "style": "linespoints"})
                reference = [e[0] * (x / g[0]) ** self.order for x in g]
                figure["series"].append({"title": f"order {self.order:g}" if i == 0 else "",
                                         "x": g, "y": reference, "style": _REFERENCE_STYLE})
            return figure
        groups, log_x = self._groups()
        gammas = [float(s["gamma"]) for s in self.settings]
        span = [min(gammas), max(gammas)]
        if self.rule == "tolerance":
            errors = [max(r["data"]["relative_error"], 1e-300) for r in rows]
            figure.update(title=f"{self.id}: relative error", xlabel="γ", log_x=log_x,
                          log_y=True, ylabel="max|predicted − exact| / max|exact|",
                          caption=f"{self.id}: relative error of the prediction against γ and "
                                  f"the tolerance {self.tolerance:g}")
            figure["series"] = [
                {"title": legend if len(groups) > 1 else "relative error", "x": x,
                 "y": [errors[i] for i in members], "style": "linespoints"}
                for legend, members, x in groups]
            figure["series"].append({"title": "tolerance", "x": span,
                                     "y": [self.tolerance] * 2, "style": _REFERENCE_STYLE})
            return figure
        deviation, bars = [], []
        for r in rows:
            p, m = np.asarray(r["data"]["predicted"]), np.asarray(r["data"]["measured"])
            scale = float(np.max(np.abs(p))) or 1.0
            deviation.append(float(np.max(np.abs(m - p))) / scale)
            bars.append(float(r["data"]["threshold"]) ** (0.5 if self.rule == "hotelling" else 1)
                        * float(np.max(r["data"]["mcse"])) / scale)
        figure.update(title=f"{self.id}: simulation against prediction", xlabel="γ",
                      log_x=log_x, ylabel="max|measured − predicted| / max|predicted|",
                      caption=f"{self.id}: the largest relative deviation of the simulated "
                              f"{'mean' if self.measure == 'simulated_mean' else 'covariance'} "
                              f"from the prediction against γ, with the rule's critical value "
                              f"times the largest MCSE as bar, and the equivalence margin "
                              f"{self.margin:g}")
        figure["series"] = [
            {"title": legend if len(groups) > 1 else "deviation", "x": x,
             "y": [deviation[i] for i in members], "style": "points",
             "err": [bars[i] for i in members]}
            for legend, members, x in groups]
        figure["series"].append({"title": "margin δ", "x": span, "y": [self.margin] * 2,
                                 "style": _REFERENCE_STYLE})
        return figure

    @property
    def passed(self) -> bool:
        return all(r["passed"] for r in self.run()["rows"])

    def _decision_rule(self) -> str:
        if self.rule == "tolerance":
            return f"every row: max|predicted − exact| ≤ {self.tolerance:g}·max|exact| (exact)"
        if self.rule == "remainder_order":
            return (f"rows of equal setting but γ: the log–log slope of max|predicted − exact| "
                    f"against γ exceeds {self.order:g} (one-sided t)")
        if self.rule == "hotelling":
            return "every row: Hotelling's T² of the simulated mean (batch means) = prediction"
        return "every row: covariance entries agree within z·MCSE (Bonferroni over entries)"

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
            "run": lambda seed, attempt, quick: json.dumps(_jsonable(self.run(seed, attempt))),
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
