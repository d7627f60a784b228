"""Results as data (docs/PYTHON.md "Results as data", DESIGN-EXTENSIONS "Python API").

A :class:`Results` is one results.json — written by ``fedverify report``, ``fedverify check``,
:func:`fedverify.report` or :func:`check` — loaded into Python: its claims with their verdicts and
rows, the exit code the command returned, and :meth:`Results.to_dataframe`, one pandas row per
result row. :func:`check` runs a claim file (docs/CLAIM_FILES.md) and returns its Results.

A Results is also the exit code: it subclasses ``int`` with the value 0 when every claim holds
(and nothing regressed against a baseline), 1 otherwise, so code written when :func:`report`
returned that int (``code == 1``, ``sys.exit(report(…))``, ``if report(…):`` — true when
something failed) keeps working; ``str()`` is the code too, ``repr()`` the summary.
"""

import importlib
import json
import os
import re
import shutil
import subprocess
import sys
from typing import Dict, Iterator, List, Optional, Tuple

import numpy as np

from . import _checks, _core

# The columns of Results.to_dataframe besides the flattened data fields, in order.
COLUMNS = ("claim", "claim_verdict", "claim_passed", "claim_alpha", "claim_seconds", "row",
           "setting", "predicted", "measured", "passed", "verdict_class", "margin", "mde",
           "margin_text", "equivalence_confirmed", "budget_multiple_needed", "rerun")


def _optional(module: str, package: str, what: str):
    """Imports an optional dependency, or raises ImportError naming its Debian package."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise ImportError(f"{what} needs {module}, which is not importable: install the Debian "
                          f"package {package} (apt-get install {package})") from error


class ClaimResult:
    """One claim of a results.json: ``id``, ``verdict`` ("holds", "inconclusive" or "fails"),
    ``passed`` (false only for "fails"), ``rows`` (the results.json rows, dicts: setting,
    predicted, measured, passed, verdict_class, margin, mde, data, gates, …), ``statement``,
    ``family``, ``decision_rule``, ``alpha``, ``seconds`` (its run time), ``verdict_classes``
    (counts of its rows' classes) and ``raw`` (the claim's JSON object)."""

    def __init__(self, raw: dict, where: str):
        for field, kind in (("id", str), ("verdict", str), ("rows", list)):
            if not isinstance(raw.get(field), kind):
                raise _core.InputError(f"{where}.{field}: missing or not a {kind.__name__}")
        for i, row in enumerate(raw["rows"]):
            if not isinstance(row, dict) or not isinstance(row.get("passed"), bool):
                raise _core.InputError(f"{where}.rows[{i}]: expected a row with 'passed'")
        self.raw = raw
        self.id: str = raw["id"]
        self.verdict: str = raw["verdict"]
        self.passed: bool = bool(raw.get("passed", raw["verdict"] != "fails"))
        self.rows: List[dict] = raw["rows"]
        self.statement: str = raw.get("statement", "")
        self.family: str = raw.get("family", "")
        self.decision_rule: str = raw.get("decision_rule", "")
        self.alpha: float = float(raw.get("alpha", 0.0))
        self.seconds: float = float(raw.get("seconds", 0.0))
        self.verdict_classes: Dict[str, int] = dict(raw.get("verdict_classes", {}))

    def __repr__(self) -> str:
        return f"<fedverify.ClaimResult {self.id!r} {self.verdict}, {len(self.rows)} rows>"


class Results(int):
    """A results.json as data (see the module's docstring). Compares, formats and converts as its
    exit code (``results == 0``, ``int(results)``, ``sys.exit(results)``); two Results compare
    by their exit codes only.

    :param results: the parsed results.json (a dict).
    :param path: the file it was read from (``None`` for a dict in memory).
    :ivar claims: list of :class:`ClaimResult`, in report order.
    :ivar regressions: ids of the claims that regressed against the baseline (empty without one).
    :ivar verdict_classes: counts of the rows' classes over the report.
    :ivar run: the run's provenance (results.json "fedverify": seed, quick, version, claims).
    :ivar problems: the report's problems (name → description and spec or generator).
    :ivar raw: the whole results.json.
    """

    def __new__(cls, results: dict, path: Optional[str] = None, *,
                _exit_code: Optional[int] = None):
        where = path or "results"
        if not isinstance(results, dict) or not isinstance(results.get("claims"), list):
            raise _core.InputError(f"{where}: not a fedverify results.json (no 'claims' list)")
        claims = [ClaimResult(c if isinstance(c, dict) else {}, f"{where}: claims[{i}]")
                  for i, c in enumerate(results["claims"])]
        regressions = list(results.get("regressions", []))
        # The command's rule (reports/report/report.cpp): 0 iff no claim fails and none regressed.
        computed = 0 if all(c.passed for c in claims) and not regressions else 1
        self = super().__new__(cls, computed if _exit_code is None else _exit_code)
        self.path = None if path is None else os.fspath(path)
        self.claims = claims
        self.regressions = regressions
        self.verdict_classes = dict(results.get("verdict_classes", {}))
        self.run = dict(results.get("fedverify", {}))
        self.problems = dict(results.get("problems", {}))
        self.raw = results
        return self

    @property
    def exit_code(self) -> int:
        """0 when every claim holds (inconclusive counts as not failing, as the command's) and
        nothing regressed, 1 otherwise."""
        return int(self)

    @property
    def passed(self) -> bool:
        """Whether the exit code is 0."""
        return int(self) == 0

    @property
    def counts(self) -> Dict[str, int]:
        """Claims that hold, are inconclusive and fail, counted as the summary line counts them
        ("fedverify report: 43 of 44 claims hold, 1 inconclusive, 0 fail; …")."""
        fails = sum(not c.passed for c in self.claims)
        inconclusive = sum(c.verdict == "inconclusive" for c in self.claims)
        return {"holds": len(self.claims) - fails - inconclusive, "inconclusive": inconclusive,
                "fails": fails}

    def claim(self, claim_id: str) -> ClaimResult:
        """The claim with id ``claim_id``; InputError naming ``claim_id`` when there is none."""
        claim_id = _checks.text("claim_id", claim_id)
        for c in self.claims:
            if c.id == claim_id:
                return c
        ids = [c.id for c in self.claims]
        listed = ", ".join(ids[:8]) + (", …" if len(ids) > 8 else "")
        raise _core.InputError(f"claim_id: no claim {claim_id!r} in these results ({listed})")

    def rows(self) -> Iterator[Tuple[ClaimResult, dict]]:
        """Every (claim, row) pair, in report order."""
        for c in self.claims:
            for row in c.rows:
                yield c, row

    def to_dataframe(self):
        """One row per result row (every claim's rows, in report order), as a pandas DataFrame.

        Columns: ``claim``, ``claim_verdict``, ``claim_passed``, ``claim_alpha``,
        ``claim_seconds`` (the claim's, repeated on its rows), ``row`` (its index within the
        claim), ``setting``, ``predicted``, ``measured`` (the report's texts), ``passed``,
        ``verdict_class`` ("within tolerance", "equivalent", "not rejected", "fails"),
        ``margin`` and ``mde`` (statistical rows; NaN otherwise), ``margin_text``,
        ``equivalence_confirmed`` (nullable boolean), ``budget_multiple_needed`` (NaN unless an
        equivalence needs a larger budget), ``rerun`` (the row is a confirmation rerun); then
        ``setting.<name>`` for every number of the row's ``setting_values`` (``setting.H``,
        ``setting.γ``), ``measured.<gate>`` and ``measured.<gate>.tolerance`` for every gate of
        its ``measured_values`` (float64, NaN for null); then every scalar number or boolean of
        the row's ``data``, nested objects flattened with dots
        (``data.relative_error``, ``data.setting.gamma``): float64, int64 (nullable Int64 or
        UInt64 where needed), bool (nullable boolean where some rows lack the field). Lists and
        strings of ``data`` stay in :attr:`claims` (``claims[i].rows[j]["data"]``).

        :raises ImportError: pandas is missing (Debian package python3-pandas).
        """
        pd = _optional("pandas", "python3-pandas", "Results.to_dataframe")
        base: Dict[str, list] = {name: [] for name in COLUMNS}
        flat: List[Dict[str, object]] = []
        for c in self.claims:
            for i, row in enumerate(c.rows):
                values = (c.id, c.verdict, c.passed, c.alpha, c.seconds, i, row.get("setting"),
                          row.get("predicted"), row.get("measured"), row["passed"],
                          row.get("verdict_class"), _number(row.get("margin")),
                          _number(row.get("mde")), row.get("margin_text"),
                          row.get("equivalence_confirmed"),
                          _number(row.get("budget_multiple_needed")), "first_attempt" in row)
                for name, value in zip(COLUMNS, values):
                    base[name].append(value)
                flat.append(_typed(row))
        dtypes = {"claim_passed": bool, "claim_alpha": float, "claim_seconds": float,
                  "row": np.int64, "passed": bool, "margin": float, "mde": float,
                  "equivalence_confirmed": "boolean", "budget_multiple_needed": float,
                  "rerun": bool}
        columns = {name: pd.Series(values, dtype=dtypes.get(name, object))
                   for name, values in base.items()}
        names: Dict[str, None] = {}
        for f in flat:
            names.update(dict.fromkeys(f))
        for name in names:
            columns[name] = _column(pd, [f.get(name) for f in flat])
        return pd.DataFrame(columns)

    def __repr__(self) -> str:
        n = self.counts
        where = f"; {self.path}" if self.path else ""
        return (f"<fedverify.Results {len(self.claims)} claims: {n['holds']} hold, "
                f"{n['inconclusive']} inconclusive, {n['fails']} fail; "
                f"{len(self.regressions)} regressions; exit code {int(self)}{where}>")

    __str__ = int.__repr__  # print(report(…)) prints the exit code, as it did

    def __reduce__(self):
        return (_restore, (self.raw, self.path, int(self)))


def _restore(raw: dict, path: Optional[str], code: int) -> Results:
    return Results(raw, path, _exit_code=code)


def _number(value) -> float:
    """A JSON number, or NaN for null (results.json writes NaN and ∞ as null)."""
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) \
        else float("nan")


def _typed(row: dict) -> Dict[str, object]:
    """A row's typed columns: ``setting.<name>`` (the numbers of ``setting_values``),
    ``measured.<gate>`` and ``measured.<gate>.tolerance`` (``measured_values``), then the
    ``data.…`` scalars."""
    out: Dict[str, object] = {}
    for key, value in (row.get("setting_values") or {}).items():
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            out[f"setting.{key}"] = value
    for key, value in (row.get("measured_values") or {}).items():
        out[f"measured.{key}"] = _number(value.get("value"))
        out[f"measured.{key}.tolerance"] = _number(value.get("tolerance"))
    data = row.get("data")
    if isinstance(data, dict):
        out.update(_scalars(data, "data"))
    return out


def _scalars(data: dict, prefix: str) -> Iterator[Tuple[str, object]]:
    """The numbers and booleans of ``data``, nested objects flattened as prefix.key.key."""
    for key, value in data.items():
        name = f"{prefix}.{key}"
        if isinstance(value, dict):
            yield from _scalars(value, name)
        elif isinstance(value, (bool, int, float)):
            yield name, value


def _column(pd, values: list):
    """A data column: bool, int64 (UInt64 above 2⁶³ − 1) or float64; nullable where a row lacks
    the field."""
    present = [v for v in values if v is not None]
    complete = len(present) == len(values)
    if all(isinstance(v, bool) for v in present):
        return pd.Series(values, dtype=bool if complete else "boolean")
    if all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        if all(-2**63 <= v < 2**63 for v in present):
            return pd.Series(values, dtype=np.int64 if complete else "Int64")
        if all(0 <= v < 2**64 for v in present):
            return pd.Series(values, dtype=np.uint64 if complete else "UInt64")
    return pd.Series([np.nan if v is None else float(v) for v in values], dtype=float)


def load_results(path) -> Results:
    """Reads a results.json written by ``fedverify report``, ``fedverify check``,
    :func:`fedverify.report` or :func:`check`.

    :param path: the file, or the report's directory (then its results.json).
    :raises InputError: naming ``path`` for a missing or unreadable file, the file for one that
        is not JSON or not a results.json (and the field: "claims[3].rows: …").
    """
    path = _checks.path("path", path)
    if os.path.isdir(path):
        path = os.path.join(path, "results.json")
    return Results(_read(path), path)


def _read(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as error:
        raise _core.InputError(f"path: cannot read {path}: {error.strerror}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise _core.InputError(f"{path}: not JSON: {error}") from None


def _from_run(out: str, code: int) -> Results:
    """The Results a run wrote into ``out``, with the exit code the run returned."""
    path = os.path.join(out, "results.json")
    return Results(_read(path), path, _exit_code=code)


def _cli() -> Optional[str]:
    """The command line: $FEDVERIFY_CLI, else ``fedverify`` on PATH."""
    given = os.environ.get("FEDVERIFY_CLI", "")
    if given:
        if not (os.path.isfile(given) and os.access(given, os.X_OK)):
            raise RuntimeError(f"check: FEDVERIFY_CLI={given} is not an executable file")
        return given
    return shutil.which("fedverify")


def _python_names(message: str) -> str:
    """The command line's error with flags as argument names (--out → out), as _core's are."""
    return re.sub(r"--([a-z][a-z0-9-]*)", lambda m: m.group(1).replace("-", "_"), message)


def _run_cli(cli: str, path: str, out: str, seed: int, threads: int) -> int:
    done = subprocess.run([cli, "check", path, "--out", out, "--seed", str(seed), "--threads",
                           str(threads)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, check=False)
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    if done.returncode == 2:
        message = lines[-1] if lines else "bad input"
        message = message[len("fedverify: "):] if message.startswith("fedverify: ") else message
        raise _core.InputError(_python_names(message))
    if done.returncode not in (0, 1):
        raise RuntimeError(f"check: {cli} check {path} exited with {done.returncode}: "
                           f"{lines[-1] if lines else 'no message'}")
    sys.stderr.write(done.stderr)  # the summary line, as report() prints it
    sys.stdout.write(done.stdout)
    return done.returncode


def check(
    path,
    out: str = "reports/check",
    *,
    seed: int = _core.DEFAULT_SEED,
    threads: int = 0,
) -> Results:
    """Runs the claim file ``path`` (docs/CLAIM_FILES.md) as ``fedverify check`` does, writing
    REPORT.md, REPORT.html and results.json into ``out``, and returns its :class:`Results`
    (``results == 0`` when the claim holds).

    It calls the core's ``run_check`` (reports::run_check, the command's own function); a core
    built without it runs the command line, $FEDVERIFY_CLI or ``fedverify`` on PATH.

    :param seed: seed of every simulation, an integer in [0, 2⁶⁴ − 1] (``--seed``).
    :param threads: 0 all cores, P > 0 at most P; the numbers do not depend on it.
    :raises InputError: naming the file and the field of a bad claim file, ``out`` for an I/O
        error.
    :raises RuntimeError: neither the core's run_check nor a command line is available.
    """
    path = _checks.path("path", path)
    out = _checks.path("out", out)
    seed = _checks.seed("seed", seed)
    threads = _checks.integer("threads", threads)
    if hasattr(_core, "run_check"):
        code = _core.run_check(path, out, seed, threads)
    else:
        cli = _cli()
        if cli is None:
            raise RuntimeError("check: this fedverify._core has no run_check and no command line "
                               "was found: set FEDVERIFY_CLI to the fedverify executable, or put "
                               "it on PATH")
        code = _run_cli(cli, path, out, seed, threads)
    return _from_run(out, code)
