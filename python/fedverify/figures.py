"""One claim's rows drawn with matplotlib (docs/PYTHON.md "Results as data").

:func:`plot` draws what the rows of a results.json hold, and nothing it has to guess:

- rows with γ lists and their errors in ``data`` (remainder_order: ``gammas``/``errors``; the
  catalogue's ``gamma``/``remainder``): max|predicted − exact| against γ, one line per row, on
  log–log axes;
- rows with one numeric γ (``data.gamma``, a Python claim's ``data.setting.gamma``, or
  "γ = 0.01" in the setting text) and a relative error (``data.relative_error``, or
  max|measured − predicted| / max|predicted| from ``data.predicted`` and ``data.measured``
  arrays): the relative error against γ, one series per setting but γ, failing rows as crosses,
  log axes (y linear when an error is 0), the tolerance as a dashed line when the rows share one;
- rows with one numeric γ and a test statistic with its critical value (``data.statistic``,
  ``data.threshold``: a claim file's simulated rows): their ratio against γ (≤ 1: the rule does
  not reject the prediction), with the critical value 1 dashed;
- otherwise, when some row has an MDE: the minimal detectable effect per row as bars, coloured
  by verdict class, with the margin δ when the rows share one.

The colours are Okabe and Ito's (distinguishable with the common colour-vision deficiencies);
the legend sits outside the axes. The report's own figure (REPORT.md) shows what the decision
looked at; this one is for your own analysis.
"""

import math
import re
from typing import List, Optional, Tuple

import numpy as np

from . import _checks, _core
from .results import Results, _optional, load_results

# Okabe & Ito (2008), "Color Universal Design": blue, orange, bluish green, reddish purple, sky
# blue, vermillion, yellow, black.
OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442",
             "#000000")
VERDICT_COLOURS = {"within tolerance": "#0072B2", "equivalent": "#009E73",
                   "not rejected": "#E69F00", "fails": "#D55E00"}
_MARKERS = ("o", "s", "^", "D", "v")  # with the colours, 40 series tell apart (crosses: fails)
_REFERENCE = {"color": "#808080", "linestyle": "--", "linewidth": 1.0}

# "γ = 0.01" in a setting text (not γL, γ·L or 2γ); a group's "γ ∈ {…}".
_GAMMA = re.compile(r"(?<!\w)γ\s*=\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)")
_GAMMAS = re.compile(r"(?<!\w)γ\s*∈\s*\{[^}]*\}")


def _real(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _gamma(row: dict) -> Optional[float]:
    data = row.get("data") or {}
    setting = data.get("setting") if isinstance(data.get("setting"), dict) else {}
    for value in (data.get("gamma"), setting.get("gamma")):
        if _real(value):
            return float(value)
    match = _GAMMA.search(row.get("setting", ""))
    return float(match.group(1)) if match else None


def _relative_error(row: dict) -> Optional[float]:
    data = row.get("data") or {}
    if _real(data.get("relative_error")):
        return float(data["relative_error"])
    try:
        p = np.asarray(data["predicted"], dtype=float)
        m = np.asarray(data["measured"], dtype=float)
    except (KeyError, TypeError, ValueError):
        return None
    if p.shape != m.shape or p.size == 0:
        return None
    scale = float(np.max(np.abs(p))) or 1.0
    return float(np.max(np.abs(m - p))) / scale


def _test_ratio(row: dict) -> Optional[float]:
    data = row.get("data") or {}
    statistic, threshold = data.get("statistic"), data.get("threshold")
    if _real(statistic) and _real(threshold) and threshold > 0:
        return float(statistic) / float(threshold)
    return None


def _curve(row: dict) -> Optional[Tuple[list, list]]:
    data = row.get("data") or {}
    for xs, ys in (("gammas", "errors"), ("gamma", "remainder")):
        x, y = data.get(xs), data.get(ys)
        if (isinstance(x, list) and isinstance(y, list) and len(x) == len(y) > 0
                and all(map(_real, x + y))):
            return [float(v) for v in x], [float(v) for v in y]
    return None


def _without_gamma(row: dict) -> str:
    """The row's setting with its γ removed: the series it belongs to."""
    data = row.get("data") or {}
    if isinstance(data.get("setting"), dict):
        return ", ".join(f"{k} = {v}" for k, v in data["setting"].items() if k != "gamma")
    text = _GAMMAS.sub("", _GAMMA.sub("", row.get("setting", "")))
    return re.sub(r"\s*,\s*(,\s*)*", ", ", text).strip(" ,")


def _shared(rows: List[dict], key: str, top: bool = False) -> Optional[float]:
    """The value of data[key] (or row[key]) when every row has the same finite one."""
    values = {(r.get(key) if top else (r.get("data") or {}).get(key)) for r in rows}
    value = values.pop() if len(values) == 1 else None
    return float(value) if _real(value) else None


def _gamma_axis(ax, gammas: List[float]) -> None:
    """γ on a log axis when positive; a few step sizes are the ticks themselves (a log axis
    spanning less than a decade otherwise labels its minor ticks on top of each other)."""
    distinct = sorted(set(gammas))
    ax.set_xscale("log" if distinct[0] > 0 else "linear")
    ax.set_xlabel("γ")
    if len(distinct) <= 8:
        ax.set_xticks(distinct, [f"{g:g}" for g in distinct])
        ax.set_xticks([], minor=True)


def _axes(ax):
    if ax is not None:
        return ax
    plt = _optional("matplotlib.pyplot", "python3-matplotlib", "fedverify.plot")
    _, ax = plt.subplots(figsize=(7.5, 4.0), layout="constrained")
    return ax


def _style(k: int) -> Tuple[str, str]:
    """Colour and marker of series k."""
    n = len(OKABE_ITO)
    return OKABE_ITO[k % n], _MARKERS[(k // n) % len(_MARKERS)]


def _draw_curves(ax, claim, curves) -> None:
    for i, ((x, y), row) in enumerate(zip(curves, claim.rows)):
        colour, marker = _style(i)
        label = (_without_gamma(row) or f"row {i + 1}") + ("" if row["passed"] else " (fails)")
        ax.plot(x, y, marker=marker if row["passed"] else "x", color=colour, label=label,
                gid="rows")
    _gamma_axis(ax, [v for x, _ in curves for v in x])
    ax.set_yscale("log" if all(v > 0 for _, y in curves for v in y) else "linear")
    ax.set_ylabel("max|predicted − exact|")


def _draw_against_gamma(ax, claim, gammas, errors, ratio: bool) -> None:
    groups = {}
    for i, row in enumerate(claim.rows):
        groups.setdefault(_without_gamma(row), []).append(i)
    for k, (name, members) in enumerate(groups.items()):
        colour, marker = _style(k)
        name = name or ("statistic / critical value" if ratio else "relative error")
        for passed in (True, False):
            chosen = sorted((i for i in members if claim.rows[i]["passed"] == passed),
                            key=lambda i: gammas[i])
            if chosen:
                ax.plot([gammas[i] for i in chosen], [errors[i] for i in chosen],
                        linestyle="-" if passed else "none", marker=marker if passed else "x",
                        markersize=6 if passed else 9, color=colour, gid="rows",
                        label=name if passed else f"{name} (fails)")
    reference = 1.0 if ratio else _shared(claim.rows, "tolerance")
    if reference is not None:
        ax.axhline(reference, label="critical value" if ratio else f"tolerance {reference:g}",
                   gid="reference", **_REFERENCE)
    _gamma_axis(ax, gammas)
    ax.set_yscale("log" if not ratio and all(e > 0 for e in errors) else "linear")
    ax.set_ylabel("test statistic / critical value" if ratio else "relative error")


def _draw_mde(ax, claim) -> list:
    rows = claim.rows
    heights = [float(r["mde"]) if _real(r.get("mde")) else 0.0 for r in rows]
    colours = [VERDICT_COLOURS.get(r.get("verdict_class"), OKABE_ITO[7]) for r in rows]
    positions = np.arange(1, len(rows) + 1)
    ax.bar(positions, heights, color=colours, gid="rows")
    patches = _optional("matplotlib.patches", "python3-matplotlib", "fedverify.plot")
    with_mde = [r for r in rows if _real(r.get("mde"))]
    handles = [patches.Patch(color=colour, label=verdict)  # one entry per class with a bar
               for verdict, colour in VERDICT_COLOURS.items()
               if any(r.get("verdict_class") == verdict for r in with_mde)]
    margin = _shared(with_mde, "margin", top=True)
    if margin is not None:
        ax.axhline(margin, label=f"margin δ = {margin:g}", gid="reference", **_REFERENCE)
    ax.set_xticks(positions)
    ax.set_xlabel("row (as in the report's table; no bar: no MDE)")
    ax.set_ylabel("minimal detectable effect (relative)")
    return handles


def plot(results, claim_id: str, ax=None):
    """Draws the rows of claim ``claim_id`` (see the module's docstring for what is drawn).

    :param results: a :class:`Results`, or a results.json or report directory to load.
    :param claim_id: the claim's id.
    :param ax: matplotlib Axes to draw into; a new figure's when None.
    :returns: the Axes. The data are the artists with gid "rows" (one point, line vertex or bar
        per value), reference lines have gid "reference".
    :raises ImportError: matplotlib is missing (Debian package python3-matplotlib).
    :raises InputError: naming ``claim_id`` when there is no such claim, or when its rows have
        neither γ with a relative error or test statistic nor an MDE.
    """
    if not isinstance(results, Results):
        results = load_results(_checks.path("results", results))
    claim = results.claim(claim_id)
    if not claim.rows:
        raise _core.InputError(f"claim_id: {claim.id!r} has no rows to plot")
    extra: list = []  # legend entries without an artist of their own
    curves = [_curve(r) for r in claim.rows]
    gammas = [_gamma(r) for r in claim.rows]
    errors = [_relative_error(r) for r in claim.rows]
    ratios = [_test_ratio(r) for r in claim.rows]
    if all(c is not None for c in curves):
        ax = _axes(ax)
        _draw_curves(ax, claim, curves)
    elif all(g is not None for g in gammas) and all(e is not None for e in errors):
        ax = _axes(ax)
        _draw_against_gamma(ax, claim, gammas, errors, ratio=False)
    elif all(g is not None for g in gammas) and all(q is not None for q in ratios):
        ax = _axes(ax)
        _draw_against_gamma(ax, claim, gammas, ratios, ratio=True)
    elif any(_real(r.get("mde")) for r in claim.rows):
        ax = _axes(ax)
        extra = _draw_mde(ax, claim)
    else:
        raise _core.InputError(
            f"claim_id: {claim.id!r}: its rows have neither γ with a relative error or a test "
            f"statistic nor an MDE to plot (the report's figure shows what its decision looked at)")
    ax.set_title(f"{claim.id}: {claim.verdict}")
    handles, _ = ax.get_legend_handles_labels()
    handles = extra + handles
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0,
              frameon=False, fontsize="small" if len(handles) > 10 else None)
    return ax
