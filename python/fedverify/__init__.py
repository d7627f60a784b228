"""fedverify from Python: the harness's problems, closed forms, simulations, decision rules and
reports, with NumPy arrays in and out (docs/PYTHON.md).

The functions mirror the command line, so a script moves between the two::

    fedverify predict --problem p.json --algo fedavg --gamma 0.05 --local-steps 5
    fedverify.predict(fedverify.load_problem("p.json"), algo="fedavg", gamma=0.05, local_steps=5)

and they call the very C++ functions the command line calls: the same arguments and seed give
the same numbers. Bad input raises :class:`InputError` (a ``ValueError``) whose message names
the argument ("gamma: step size must be a finite number > 0, got -1"); an argument of the wrong
type raises ``TypeError`` naming it.

Contents:
  problems   :func:`load_problem`, :func:`parse_problem`, :func:`quadratic_problem`,
             :func:`generate_quadratic` → :class:`Problem`; :func:`generate_garnet_td`,
             :func:`generate_diabetes` → problem-file text (docs/generators-linear-sa.md);
             :func:`problem_from_csv` → a logistic/least-squares file from a CSV table
  theory     :func:`predict` (dict of docs/CLI.md's fields), :func:`exact_moments` (mean, cov)
  simulation :func:`simulate` (dict as ``fedverify simulate`` prints it)
  decisions  :mod:`fedverify.decide` (hotelling, equivalence, slope, …) → :class:`decide.Result`
  claims     :class:`Claim` and :func:`report` (REPORT.md and results.json as ``fedverify report``)
  results    :class:`Results` (a results.json as data: verdicts, rows, ``to_dataframe()``),
             :func:`load_results`, :func:`check` (a claim file, as ``fedverify check``),
             :func:`plot` (one claim's rows, matplotlib)
  conformance :func:`conformance`: a Python FedAvg/Scaffold/FedProx against the exact laws
"""

from ._version import __version__
from ._core import InputError, Problem
from .api import (
    exact_moments,
    formula,
    formula_blocks,
    generate_diabetes,
    generate_garnet_td,
    generate_quadratic,
    load_problem,
    parse_problem,
    predict,
    problem_from_csv,
    quadratic_problem,
    simulate,
    with_client_weights,
)
from . import decide
from .claims import Claim, report
from .results import ClaimResult, Results, check, load_results
from .figures import plot
from .conformance import conformance

__all__ = [
    "__version__",
    "InputError",
    "Problem",
    "load_problem",
    "parse_problem",
    "quadratic_problem",
    "with_client_weights",
    "generate_quadratic",
    "generate_garnet_td",
    "generate_diabetes",
    "problem_from_csv",
    "predict",
    "exact_moments",
    "formula",
    "formula_blocks",
    "simulate",
    "decide",
    "Claim",
    "report",
    "Results",
    "ClaimResult",
    "load_results",
    "check",
    "plot",
    "conformance",
]
