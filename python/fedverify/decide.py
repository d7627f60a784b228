"""The decision rules of estimators/statistics/decide.hpp on your own numbers.

Each rule takes an estimate with its standard error — or the replications it is formed from
(i.i.d. runs: the standard error is then estimated and the reference is Student's t with G − 1
degrees of freedom) — and a declared false-alarm level α, and returns a :class:`Result`:
``passed`` (the claim survives; for the one-sided rules ``slope``, ``difference_exceeds`` and
``equivalence``: the claim is confirmed), ``statistic`` and ``threshold`` (on the same scale),
``p_value``, ``description`` (the rule in one line), and for the scalar rules ``estimate``,
``std_error`` and the interval ``lower``, ``upper``.

Rules (the letters of decide.hpp):
  hotelling (a')        mean vector = prediction, covariance of the mean from G replications
                        or from batch means (Hotelling's T², F reference)
  wald (a)              the same with a known covariance of the mean (χ² reference)
  bonferroni (b)        the same coordinate by coordinate, α split over d
  matrix_agreement (d)  |M − P| ≤ z·MCSE + allowance entrywise (Bonferroni over d(d+1)/2)
  z_agreement (e)       scalar estimate = prediction within ± allowance
  difference_exceeds (g) E[high] > E[low], one-sided
  mean_at_most (j)      E[x] ≤ bound, one-sided
  slope (c)             the (log–log) slope of y on x exceeds s0, one-sided t
  slope_interval (k)    the slope's two-sided interval contains s0
  equivalence (l)       E[θ] ∈ [lower, upper] confirmed by two one-sided tests (TOST)
"""

from dataclasses import dataclass, field
from typing import Optional, Tuple

import numpy as np

from . import _checks, _core

_d = _core.decide


@dataclass(frozen=True)
class Result:
    """The verdict of a rule and the numbers it was reached from."""

    passed: bool
    statistic: float
    threshold: float
    p_value: float
    alpha: float
    description: str
    estimate: float = 0.0
    std_error: float = 0.0
    lower: float = 0.0
    upper: float = 0.0
    dof: float = 0.0
    allowance: float = 0.0
    slope: Optional[float] = None  # slope and slope_interval: the fitted slope
    _decision: object = field(default=None, repr=False, compare=False)

    def __bool__(self) -> bool:
        return self.passed

    def minimum_detectable_error(self, power: float = 0.9) -> float:
        """The smallest error this rule detects with probability ``power`` (decide.hpp (m));
        for the scalar rules (e)–(k)."""
        return _d.minimum_detectable_error(self._decision, _checks.alpha(power, "power"))


_FIELDS = ("passed", "statistic", "threshold", "p_value", "alpha", "description", "estimate",
           "std_error", "lower", "upper", "dof", "allowance")


def _result(decision, slope: Optional[float] = None) -> Result:
    return Result(**{f: getattr(decision, f) for f in _FIELDS}, slope=slope, _decision=decision)


def _scalar(name: str, samples, estimate, se, dof) -> Tuple[float, float, float]:
    """(estimate, se, dof) from replications or as given."""
    if samples is not None:
        if estimate is not None or se is not None:
            raise _core.InputError(f"{name}: give samples or estimate and se, not both")
        return _d.replicated_scalar(samples)
    if estimate is None or se is None:
        raise _core.InputError(f"{name}: give samples (replications) or estimate and se")
    return _checks.real("estimate", estimate), _checks.real("se", se), _checks.real("dof", dof)


def hotelling(
    samples=None,
    prediction=None,
    *,
    alpha: float,
    mean=None,
    mean_cov=None,
    batches: Optional[int] = None,
) -> Result:
    """Hotelling's T² test of "E[x] = prediction".

    Either ``samples``, a G × d array of i.i.d. replications (mean and covariance of the mean
    estimated from them, ν = G − 1), or ``mean``, ``mean_cov`` (the covariance of the mean
    estimate) and ``batches`` (the number of batch means behind it). Requires ν ≥ d.
    """
    if prediction is None:
        raise TypeError("prediction: required")
    if samples is not None:
        try:
            samples = np.asarray(samples, dtype=float)
        except (TypeError, ValueError):
            raise TypeError("samples: expected a G × d array of numbers") from None
        if samples.ndim == 1:
            samples = samples[:, None]
        mean, mean_cov = _d.replicated_vector(samples)
        batches = samples.shape[0]
    elif mean is None or mean_cov is None or batches is None:
        raise _core.InputError("samples: give samples (G × d) or mean, mean_cov and batches")
    prediction = np.atleast_1d(np.asarray(prediction, dtype=float))
    return _result(
        _d.hotelling(mean, mean_cov, _checks.integer("batches", batches), prediction,
                     _checks.alpha(alpha))
    )


def wald(mean, mean_cov, prediction, *, alpha: float) -> Result:
    """Wald's χ² test of "E[x] = prediction" with the covariance of the mean known."""
    return _result(_d.wald(mean, mean_cov, prediction, _checks.alpha(alpha)))


def bonferroni(mean, mcse, prediction, *, alpha: float) -> Result:
    """z test of every coordinate, α split over the d coordinates (Bonferroni)."""
    return _result(_d.bonferroni(mean, mcse, prediction, _checks.alpha(alpha)))


def matrix_agreement(measured, predicted, mcse, *, alpha: float, allowance=None) -> Result:
    """Entrywise agreement of symmetric matrices: |M − P| ≤ z_{1−α/(2m)}·MCSE + allowance on
    the m = d(d+1)/2 distinct entries."""
    return _result(_d.matrix_agreement(measured, predicted, mcse, allowance, _checks.alpha(alpha)))


def z_agreement(samples=None, predicted=None, *, alpha: float, allowance: float = 0.0,
                estimate=None, se=None, dof: float = 0.0) -> Result:
    """Two-sided test of "E[θ] = predicted within ± allowance"."""
    e, s, n = _scalar("samples", samples, estimate, se, dof)
    return _result(_d.z_agreement(e, s, n, _checks.real("predicted", predicted),
                                  _checks.real("allowance", allowance), _checks.alpha(alpha)))


def mean_at_most(samples=None, bound=None, *, alpha: float, estimate=None, se=None,
                 dof: float = 0.0) -> Result:
    """One-sided test of "E[x] ≤ bound" (rejects when the lower confidence limit exceeds it)."""
    e, s, n = _scalar("samples", samples, estimate, se, dof)
    return _result(_d.mean_at_most(e, s, n, _checks.real("bound", bound), _checks.alpha(alpha)))


def difference_exceeds(low, high, *, alpha: float) -> Result:
    """One-sided confirmation of "E[high] > E[low]" from two independent sets of replications."""
    lo, hi = _d.replicated_scalar(low), _d.replicated_scalar(high)
    return _result(_d.difference_exceeds(*lo, *hi, _checks.alpha(alpha)))


def equivalence(samples=None, lower=None, upper=None, *, alpha: float, estimate=None, se=None,
                dof: float = 0.0) -> Result:
    """Two one-sided tests (TOST) confirming "E[θ] ∈ [lower, upper]" (an infinite end drops its
    test: [−inf, B] confirms the bound E[θ] ≤ B). ``passed`` means equivalence CONFIRMED."""
    e, s, n = _scalar("samples", samples, estimate, se, dof)
    return _result(_d.equivalence(e, s, n, _checks.real("lower", lower),
                                  _checks.real("upper", upper), _checks.alpha(alpha)))


def slope(x, y, s0: float, *, alpha: float, log: bool = True) -> Result:
    """One-sided confirmation that the slope of y on x (of log y on log x when ``log``: the
    exponent p of y ≈ C xᵖ, e.g. a remainder order) exceeds s0: t = (b − s0)/se(b) >
    t_{1−α, n−2}. ``slope`` holds the fitted slope."""
    decision, b, _ = _d.slope(x, y, _checks.real("s0", s0), _checks.alpha(alpha), bool(log))
    return _result(decision, slope=b)


def slope_interval(x, y, s0: float, *, alpha: float, log: bool = True) -> Result:
    """Two-sided: the slope's (1 − α) Student-t interval contains s0."""
    decision, b, _ = _d.slope_interval(x, y, _checks.real("s0", s0), _checks.alpha(alpha),
                                       bool(log))
    return _result(decision, slope=b)
