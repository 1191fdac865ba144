"""Speedup models of moldable jobs (spec 000 §1.3).

A moldable job j picks an integer processor count p in {1..P} at the launch of each attempt; one
attempt then lasts ``t_j(p)`` and has area ``a_j(p) = p t_j(p)``. The models:

======================  ======================================================  ===============
model                   t_j(p)                                                      parameters
======================  ======================================================  ===============
``roofline``            w / min(p, pbar)                                         w, pbar >= 1
``communication``       w / p + (p - 1) c                                        w, c >= 0
``amdahl``              w ((1 - gamma) / p + gamma)                              w, gamma in [0,1]
``mix``                 w (1 - gamma) / min(p, pbar) + w gamma + (p - 1) c       w, gamma, pbar, c
``power``               w / p^delta                                              w, delta in [0,1]
``table``               t[p - 1] (arbitrary; "monotonic" when t non-increasing    w = t[0]
                        and p t(p) non-decreasing)
======================  ======================================================  ===============

Every model offers a vectorised float evaluation ``t(p_array)`` (numpy), an exact scalar
``time(p)`` (int/`Fraction` arithmetic when the parameters are exact, so CP-SAT models and
adversarial fixtures can scale times to integers without rounding), ``area``, ``t_min``/``a_min``
with their smallest arg-min (smallest p wins ties, spec §7 item 3), and the time-Pareto front
(p kept iff t(p) is strictly smaller than every t(p') with p' < p, spec §1.3 item 7).

``w`` is always the sequential time t_j(1) (Amdahl's analysis form ``w_par/p + w_seq`` is exposed
as `Amdahl.w_par` / `Amdahl.w_seq`, the mix analysis form as `Mix.analysis_form`).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from resilsched.errors import InvalidInstance
from resilsched.instances.fields import MAX_TIME, time_value
from resilsched.numeric import parse_number
from resilsched.solution import to_jsonable

MODELS = ("roofline", "communication", "amdahl", "mix", "power", "table")


def _exact(*xs: Any) -> bool:
    return all(isinstance(x, (int, Fraction)) and not isinstance(x, bool) for x in xs)


def _div(a: Any, b: Any) -> Any:
    """a / b, as a Fraction (or int) when both are exact, else a float."""
    if _exact(a, b):
        v = Fraction(a) / Fraction(b)
        return int(v) if v.denominator == 1 else v
    return float(a) / float(b)


def _norm(v: Any) -> Any:
    if isinstance(v, Fraction) and v.denominator == 1:
        return int(v)
    return v


class Speedup:
    """Base class: a speedup profile t(p) for p = 1..P (spec §1.3)."""

    model: str = ""

    # -- evaluation ------------------------------------------------------------------------
    def t(self, p: Any) -> np.ndarray:
        """Vectorised float attempt time t(p) for an array of integer p >= 1."""
        raise NotImplementedError

    def time(self, p: int) -> Any:
        """Scalar t(p), exact (int/Fraction) when the parameters are exact."""
        raise NotImplementedError

    def area(self, p: Any) -> np.ndarray:
        """Vectorised float area a(p) = p t(p)."""
        p = np.asarray(p)
        return p * self.t(p)

    def table(self, P: int) -> np.ndarray:
        """Float times t(1..P) as a length-P array."""
        return self.t(np.arange(1, P + 1))

    @property
    def w(self) -> Any:
        """Sequential time t(1) (the total work)."""
        raise NotImplementedError

    # -- extremes (spec §1.1: t_min, a_min; smallest p wins ties) -------------------------
    def argmin_time(self, P: int) -> int:
        return int(np.argmin(self.table(P))) + 1

    def argmin_area(self, P: int, rtol: float = 1e-12) -> int:
        """Smallest p with a(p) <= (1 + rtol) a_min (floats jitter p (w/p) around w)."""
        a = self.area(np.arange(1, P + 1))
        return int(np.argmax(a <= a.min() * (1.0 + rtol))) + 1

    def t_min(self, P: int) -> float:
        return float(self.table(P).min())

    def a_min(self, P: int) -> float:
        return float(self.area(np.arange(1, P + 1)).min())

    def pareto_front(self, P: int) -> np.ndarray:
        """Processor counts p (1-based, ascending) with t(p) < t(p') for all p' < p (§1.3.7)."""
        return pareto_front_of(self.table(P))

    def is_monotonic(self, P: int, rtol: float = 1e-12) -> bool:
        """t non-increasing and area non-decreasing on 1..P (spec §1.3 item 3).

        Float rounding is forgiven up to a relative ``rtol`` (0 for an exact check).
        """
        tab = self.table(P)
        area = tab * np.arange(1, P + 1)
        return bool(np.all(np.diff(tab) <= rtol * tab[:-1])
                    and np.all(np.diff(area) >= -rtol * area[:-1]))

    def to_dict(self) -> dict[str, Any]:
        raise NotImplementedError


def pareto_front_of(times: np.ndarray) -> np.ndarray:
    """Indices+1 of the strict prefix minima of ``times`` (the time-Pareto front, spec §1.3.7)."""
    times = np.asarray(times, dtype=float)
    if times.size == 0:
        return np.zeros(0, dtype=np.int64)
    prev = np.minimum.accumulate(times)
    keep = np.empty(times.size, dtype=bool)
    keep[0] = True
    keep[1:] = times[1:] < prev[:-1]
    return np.nonzero(keep)[0] + 1


def _check_w(w: Any, field: str) -> Any:
    return time_value(w, field)


def _check_unit(x: Any, field: str) -> Any:
    x = parse_number(x, field)
    if not 0 <= x <= 1:
        raise InvalidInstance(field, f"{x} must be in [0, 1]")
    return x


def _check_nonneg(x: Any, field: str) -> Any:
    return time_value(x, field, allow_zero=True)


def _check_pbar(x: Any, field: str) -> Any:
    x = parse_number(x, field)
    if not 1 <= x <= MAX_TIME:
        raise InvalidInstance(field, f"{x} must be in [1, {MAX_TIME:g}]")
    return x


class _Worked(Speedup):
    """A model with a ``work`` parameter, its sequential time: w = t(1) = work."""

    work: Any

    @property
    def w(self) -> Any:
        return self.work


@dataclass(frozen=True)
class Roofline(_Worked):
    """t(p) = w / min(p, pbar); pbar may exceed P (spec §7 item 1)."""

    work: Any
    pbar: Any
    model = "roofline"

    def __post_init__(self) -> None:
        object.__setattr__(self, "work", _check_w(self.work, "w"))
        object.__setattr__(self, "pbar", _check_pbar(self.pbar, "pbar"))

    def t(self, p: Any) -> np.ndarray:
        return float(self.work) / np.minimum(np.asarray(p, dtype=float), float(self.pbar))

    def time(self, p: int) -> Any:
        return _div(self.work, min(p, self.pbar))

    def to_dict(self) -> dict[str, Any]:
        return to_jsonable({"model": self.model, "w": self.work, "pbar": self.pbar})


@dataclass(frozen=True)
class Communication(_Worked):
    """t(p) = w/p + (p - 1) c; area w + p(p - 1) c (spec §1.3 item 2)."""

    work: Any
    c: Any
    model = "communication"

    def __post_init__(self) -> None:
        object.__setattr__(self, "work", _check_w(self.work, "w"))
        object.__setattr__(self, "c", _check_nonneg(self.c, "c"))

    def t(self, p: Any) -> np.ndarray:
        p = np.asarray(p, dtype=float)
        return float(self.work) / p + (p - 1.0) * float(self.c)

    def time(self, p: int) -> Any:
        return _norm(_div(self.work, p) + (p - 1) * self.c)

    def to_dict(self) -> dict[str, Any]:
        return to_jsonable({"model": self.model, "w": self.work, "c": self.c})


@dataclass(frozen=True)
class Amdahl(_Worked):
    """t(p) = w ((1 - gamma)/p + gamma) = w_par / p + w_seq (spec §1.3 item 4)."""

    work: Any
    gamma: Any
    model = "amdahl"

    def __post_init__(self) -> None:
        object.__setattr__(self, "work", _check_w(self.work, "w"))
        object.__setattr__(self, "gamma", _check_unit(self.gamma, "gamma"))

    @property
    def w_par(self) -> Any:
        """Parallel work w (1 - gamma) of the analysis form (the paper's w_j in §4.3.3)."""
        return _norm(self.work * (1 - self.gamma))

    @property
    def w_seq(self) -> Any:
        """Sequential work w gamma (the paper's d_j in §4.3.3)."""
        return _norm(self.work * self.gamma)

    def t(self, p: Any) -> np.ndarray:
        p = np.asarray(p, dtype=float)
        w, g = float(self.work), float(self.gamma)
        return w * ((1.0 - g) / p + g)

    def time(self, p: int) -> Any:
        if _exact(self.work, self.gamma):
            return _norm(Fraction(self.work) * ((1 - Fraction(self.gamma)) / p + self.gamma))
        return float(self.t(np.array([p]))[0])

    def to_dict(self) -> dict[str, Any]:
        return to_jsonable({"model": self.model, "w": self.work, "gamma": self.gamma})


@dataclass(frozen=True)
class Mix(_Worked):
    """t(p) = w (1-gamma) / min(p, pbar) + w gamma + (p - 1) c (spec §1.3 item 5)."""

    work: Any
    gamma: Any
    pbar: Any
    c: Any
    model = "mix"

    def __post_init__(self) -> None:
        object.__setattr__(self, "work", _check_w(self.work, "w"))
        object.__setattr__(self, "gamma", _check_unit(self.gamma, "gamma"))
        object.__setattr__(self, "pbar", _check_pbar(self.pbar, "pbar"))
        object.__setattr__(self, "c", _check_nonneg(self.c, "c"))

    def analysis_form(self) -> tuple[float, float] | None:
        """(w', d') with t(p) = c (w'/p + d' + p - 1) for p <= pbar (§4.3.4); None when c = 0."""
        if self.c == 0:
            return None
        w, g, c = float(self.work), float(self.gamma), float(self.c)
        return w * (1.0 - g) / c, w * g / c

    def t(self, p: Any) -> np.ndarray:
        p = np.asarray(p, dtype=float)
        w, g, c = float(self.work), float(self.gamma), float(self.c)
        return w * (1.0 - g) / np.minimum(p, float(self.pbar)) + w * g + (p - 1.0) * c

    def time(self, p: int) -> Any:
        if _exact(self.work, self.gamma, self.pbar, self.c):
            w, g = Fraction(self.work), Fraction(self.gamma)
            return _norm(w * (1 - g) / min(p, Fraction(self.pbar)) + w * g + (p - 1) * self.c)
        return float(self.t(np.array([p]))[0])

    def to_dict(self) -> dict[str, Any]:
        return to_jsonable({"model": self.model, "w": self.work, "gamma": self.gamma,
                            "pbar": self.pbar, "c": self.c})


@dataclass(frozen=True)
class Power(_Worked):
    """t(p) = w / p^delta, delta in [0, 1] (spec §1.3 item 6)."""

    work: Any
    delta: Any
    model = "power"

    def __post_init__(self) -> None:
        object.__setattr__(self, "work", _check_w(self.work, "w"))
        object.__setattr__(self, "delta", _check_unit(self.delta, "delta"))

    def t(self, p: Any) -> np.ndarray:
        return float(self.work) / np.power(np.asarray(p, dtype=float), float(self.delta))

    def time(self, p: int) -> Any:
        if self.delta == 0 or p == 1:
            return self.work
        if self.delta == 1:
            return _div(self.work, p)
        return float(self.work) / float(p) ** float(self.delta)

    def to_dict(self) -> dict[str, Any]:
        return to_jsonable({"model": self.model, "w": self.work, "delta": self.delta})


@dataclass(frozen=True)
class Table(Speedup):
    """Arbitrary times t(1..P) given as a list (spec §1.3 item 7); w = t(1).

    The table must have exactly P entries for the instance it belongs to (checked there);
    evaluation beyond its length raises.
    """

    times: tuple[Any, ...]
    model = "table"

    def __post_init__(self) -> None:
        ts = tuple(self.times)
        if not ts:
            raise InvalidInstance("t", "must list the times for 1..P processors")
        out = [time_value(x, f"t[{i}]") for i, x in enumerate(ts)]
        object.__setattr__(self, "times", tuple(out))
        object.__setattr__(self, "_float", np.array([float(x) for x in out], dtype=float))

    @property
    def w(self) -> Any:
        return self.times[0]

    def t(self, p: Any) -> np.ndarray:
        p = np.asarray(p, dtype=np.int64)
        return self._float[p - 1]

    def time(self, p: int) -> Any:
        return self.times[p - 1]

    def to_dict(self) -> dict[str, Any]:
        return to_jsonable({"model": self.model, "t": list(self.times)})


def speedup_from_dict(d: dict[str, Any], prefix: str = "job") -> Speedup:
    """Parse one job object of the instance JSON contract; errors name ``prefix.field``."""
    if not isinstance(d, dict):
        raise InvalidInstance(prefix, "must be an object {\"model\": ..., \"w\": number, ...}")
    model = d.get("model")
    if model not in MODELS:
        raise InvalidInstance(f"{prefix}.model", f"{model!r} is not one of {', '.join(MODELS)}")
    need = {"roofline": ("w", "pbar"), "communication": ("w", "c"), "amdahl": ("w", "gamma"),
            "mix": ("w", "gamma", "pbar", "c"), "power": ("w", "delta"), "table": ("t",)}[model]
    for key in need:
        if key not in d:
            raise InvalidInstance(f"{prefix}.{key}", f"is required for model {model!r}")
    try:
        if model == "roofline":
            return Roofline(d["w"], d["pbar"])
        if model == "communication":
            return Communication(d["w"], d["c"])
        if model == "amdahl":
            return Amdahl(d["w"], d["gamma"])
        if model == "mix":
            return Mix(d["w"], d["gamma"], d["pbar"], d["c"])
        if model == "power":
            return Power(d["w"], d["delta"])
        if not isinstance(d["t"], list):
            raise InvalidInstance(f"{prefix}.t", "must be a list of times for 1..P processors")
        table = Table(tuple(d["t"]))
        if "w" in d and parse_number(d["w"], f"{prefix}.w") != table.w:
            raise InvalidInstance(f"{prefix}.w", f"{d['w']} must equal t[0]={table.w}")
        return table
    except InvalidInstance as err:
        raise InvalidInstance(f"{prefix}.{err.field}", err.rule) from None
