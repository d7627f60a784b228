"""Argument checks shared by the package: a wrong type is a TypeError naming the argument, a bad
value an InputError (ValueError) naming it, as the command line names its flag."""

import math
import numbers
import os

from ._core import InputError, parameter_keys

MAX_SEED = 2**64 - 1


def real(name: str, value) -> float:
    """``value`` as a float; TypeError naming ``name`` unless it is a real number (not a bool)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name}: expected a number, got {type(value).__name__}")
    return float(value)


def integer(name: str, value) -> int:
    """``value`` as an int; TypeError naming ``name`` unless it is an integer (not a bool)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name}: expected an integer, got {type(value).__name__}")
    return int(value)


def text(name: str, value) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name}: expected a string, got {type(value).__name__}")
    return value


def boolean(name: str, value) -> bool:
    """``value`` as a bool; TypeError naming ``name`` unless it is one (0 and 1 are not)."""
    if not isinstance(value, bool):
        raise TypeError(f"{name}: expected True or False, got {type(value).__name__}")
    return value


def seed(name: str, value) -> int:
    """A seed is an integer in [0, 2⁶⁴ − 1], as ``--seed``."""
    value = integer(name, value)
    if not 0 <= value <= MAX_SEED:
        raise InputError(f"{name}: expected an integer in [0, {MAX_SEED}], got {value}")
    return value


def alpha(value, name: str = "alpha") -> float:
    """A false-alarm level in (0, 1)."""
    value = real(name, value)
    if not (0 < value < 1):
        raise InputError(f"{name}: must lie in (0, 1), got {value}")
    return value


def positive(name: str, value) -> float:
    value = real(name, value)
    if not (math.isfinite(value) and value > 0):
        raise InputError(f"{name}: must be a finite number > 0, got {value}")
    return value


def path(name: str, value) -> str:
    if not isinstance(value, (str, os.PathLike)):
        raise TypeError(f"{name}: expected a path, got {type(value).__name__}")
    return os.fspath(value)


def optimiser(name: str, value) -> str:
    """An optimiser spec as ``--server``/``--client`` take it: "adam:lr=0.01", or a dict
    {"name": "adam", "lr": 0.01} written back as "name:key=value,…" (keys sorted, as run
    specs do)."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        if "name" not in value or not isinstance(value["name"], str):
            raise InputError(f"{name}.name: required, a string (the optimiser's kind)")
        keys = sorted(k for k in value if k != "name")
        for k in keys:
            real(f"{name}.{k}", value[k])
        options = ",".join(f"{k}={value[k]!r}" for k in keys)
        return value["name"] + (":" + options if options else "")
    raise TypeError(f"{name}: expected a string or a dict, got {type(value).__name__}")


def preset(values: dict) -> list:
    """The parameters of a preset (``mu=0.1``, ``momentum=0.9``, …) or of an algorithm
    (``client_steps=[1, 2, 4]``; docs/PYTHON.md, presets and parameters) as the (key, values)
    pairs the core resolves: a number, or a sequence of numbers for a per-client parameter. An
    unknown keyword is a TypeError, as Python's own."""
    known = parameter_keys()
    out = []
    for key, value in values.items():
        if key not in known:
            raise TypeError(
                f"unexpected keyword argument '{key}' (the parameters of presets and algorithms "
                f"are {', '.join(known)})"
            )
        if isinstance(value, (list, tuple)) or (
            hasattr(value, "ndim") and getattr(value, "ndim") == 1
        ):
            out.append((key, [real(f"{key}[{i}]", v) for i, v in enumerate(value)]))
        else:
            out.append((key, [real(key, value)]))
    return out
