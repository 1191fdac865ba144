"""Certificates of library instances: what an exact model proved, in JobShopLib's style.

An instance's ``"metadata"`` holds (docs/architecture.md, "Libraries")::

    "optimum": 37,                       # only when proven; "optimum_exact": "p/q" beside a
    "lower_bound": 37, "upper_bound": 37,  # non-integral rational, as for every value here
    "certificate": {"status": "optimal", "method": "cpsat-scenario", "solver": "cp-sat",
                    "proof_time": 0.08, "time_limit": 10.0,
                    "options": {"deterministic": true, "workers": 1},
                    "versions": {"resilsched": ..., "ortools": ..., ...}},
    "generator": {"family": "rigid", "preset": "library", "seed": 1, "index": 3}

``lower_bound <= OPT <= upper_bound`` whatever the sense: when minimising the lower bound is the
model's proven bound and the upper bound its incumbent, when maximising the other way round.
Exact values (ints, Fractions) compare exactly; floats within a relative `FLOAT_TOL`.
"""

from __future__ import annotations

import math
import platform
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from resilsched.solution import Solution, Status, number_fields

#: relative tolerance between two float certificates (numerically certified models, e.g. the
#: worksharing QP, agree to ~1e-9 across runs; docs/decisions.md L3)
FLOAT_TOL = 1e-6
#: distributions whose versions a certificate records
VERSIONED = ("numpy", "ortools", "highspy")


def versions() -> dict[str, str]:
    """Versions of resilsched, Python and the solver stack (recorded with each certificate)."""
    from importlib.metadata import PackageNotFoundError, version

    from resilsched import __version__

    out = {"resilsched": __version__, "python": platform.python_version()}
    for dist in VERSIONED:
        try:
            out[dist] = version(dist)
        except PackageNotFoundError:  # pragma: no cover - all are dependencies
            continue
    return out


def _exact(*xs: Any) -> bool:
    return all(isinstance(x, (int, Fraction)) and not isinstance(x, bool) for x in xs)


def same(a: Any, b: Any) -> bool:
    """a == b: exactly for ints and Fractions, within `FLOAT_TOL` (relative) for floats."""
    if _exact(a, b):
        return a == b
    return math.isclose(float(a), float(b), rel_tol=FLOAT_TOL, abs_tol=FLOAT_TOL * 1e-3)


def below(a: Any, b: Any) -> bool:
    """a < b beyond the tolerance of `same`."""
    return a < b and not same(a, b)


def _value(meta: Mapping[str, Any], key: str) -> Any:
    """A stored value: the exact string ``key_exact`` when present, else the JSON number."""
    exact = meta.get(f"{key}_exact")
    if isinstance(exact, str):
        return Fraction(exact)
    value = meta.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float, type(None))):
        raise ValueError(f"metadata.{key}={value!r} is not a number")
    return value


def _plain(x: Any) -> Any:
    """Ints stay ints; an integral Fraction becomes an int; numpy scalars become Python's."""
    if isinstance(x, Fraction) and x.denominator == 1:
        return int(x)
    if hasattr(x, "item") and getattr(x, "shape", None) == ():
        return x.item()
    return x


@dataclass(frozen=True)
class Certificate:
    """What an exact model proved about one instance (and its stored scenario).

    `status` is ``"optimal"`` (then `optimum` is set and equals one of the bounds) or the
    model's status otherwise (``"feasible"``: both bounds; ``"no_solution"``: the lower or upper
    bound alone).
    """

    status: str
    lower_bound: Any
    upper_bound: Any
    optimum: Any = None
    method: str = ""
    solver: str = ""
    proof_time: float = 0.0
    time_limit: float | None = None
    options: dict[str, Any] = field(default_factory=dict)
    versions: dict[str, str] = field(default_factory=dict)

    @property
    def is_optimal(self) -> bool:
        return self.status == Status.OPTIMAL.value

    @classmethod
    def from_solution(cls, sol: Solution, sense: str, *, time_limit: float | None,
                      options: Mapping[str, Any], proof_time: float) -> Certificate:
        """The certificate of `sol` for a problem minimised (``sense="min"``) or maximised."""
        objective, bound = _plain(sol.objective), _plain(sol.bound)
        lower, upper = (bound, objective) if sense == "min" else (objective, bound)
        optimum = objective if sol.status is Status.OPTIMAL else None
        return cls(sol.status.value, lower, upper, optimum, sol.method, sol.solver,
                   round(proof_time, 3), time_limit, dict(options), versions())

    def reference(self, sense: str) -> tuple[Any, str]:
        """The value gaps are measured against and its kind (``"optimal"`` or ``"bound"``)."""
        if self.is_optimal:
            return self.optimum, "optimal"
        ref = self.lower_bound if sense == "min" else self.upper_bound
        return (ref, "bound") if ref is not None else (None, "none")

    def incumbent(self, sense: str) -> Any:
        """A feasible value: >= OPT when minimising, <= OPT when maximising (None if unknown)."""
        return self.upper_bound if sense == "min" else self.lower_bound

    def to_metadata(self) -> dict[str, Any]:
        """The JobShopLib-style fields (``optimum``, bounds, ``certificate``)."""
        out: dict[str, Any] = {}
        if self.is_optimal:
            out.update(number_fields("optimum", self.optimum))
        out.update(number_fields("lower_bound", self.lower_bound))
        out.update(number_fields("upper_bound", self.upper_bound))
        out["certificate"] = {
            "status": self.status,
            "method": self.method,
            "solver": self.solver,
            "proof_time": self.proof_time,
            "time_limit": self.time_limit,
            "options": self.options,
            "versions": self.versions,
        }
        return out

    @classmethod
    def from_metadata(cls, meta: Mapping[str, Any]) -> Certificate:
        """Read the fields `to_metadata` writes; ValueError (one line) when they are malformed."""
        cert = meta.get("certificate")
        if not isinstance(cert, Mapping):
            raise ValueError("metadata.certificate is missing")
        status = cert.get("status")
        if not isinstance(status, str):
            raise ValueError("metadata.certificate.status is missing")
        optimum = _value(meta, "optimum")
        if status == Status.OPTIMAL.value and optimum is None:
            raise ValueError("metadata.optimum is missing on an optimal certificate")
        return cls(status, _value(meta, "lower_bound"), _value(meta, "upper_bound"), optimum,
                   str(cert.get("method", "")), str(cert.get("solver", "")),
                   float(cert.get("proof_time") or 0.0), cert.get("time_limit"),
                   dict(cert.get("options") or {}), dict(cert.get("versions") or {}))

    def summary(self) -> dict[str, Any]:
        """The manifest's short form: status, optimum or bounds, proof time."""
        out: dict[str, Any] = {"status": self.status}
        if self.is_optimal:
            out.update(number_fields("optimum", self.optimum))
        else:
            out.update(number_fields("lower_bound", self.lower_bound))
            out.update(number_fields("upper_bound", self.upper_bound))
        out["proof_time"] = self.proof_time
        return out

    def describe(self) -> str:
        """``optimum 37`` or ``bounds [35, 38] (feasible)``."""
        if self.is_optimal:
            return f"optimum {_show(self.optimum)}"
        return (f"bounds [{_show(self.lower_bound)}, {_show(self.upper_bound)}] "
                f"({self.status})")


def _show(x: Any) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        return f"{x:.10g}"
    return str(x)


def compare(stored: Certificate, fresh: Certificate) -> list[str]:
    """Why `stored` does not hold against a re-solve `fresh` of the same instance (empty: it
    holds).

    - an optimal certificate must be reproduced: `fresh` proves an optimum and it is the same;
    - the stored and fresh intervals [lower_bound, upper_bound] both contain OPT, so they must
      meet: a stored bound beyond the re-solve's optimum (or its proven bounds) is a failure;
    - a certificate must be coherent by itself (lower_bound <= upper_bound, and an optimum
      between them).
    """
    out = []
    lo, hi = stored.lower_bound, stored.upper_bound
    if lo is not None and hi is not None and below(hi, lo):
        out.append(f"stored lower_bound {_show(lo)} exceeds its upper_bound {_show(hi)}")
    if stored.is_optimal and ((lo is not None and below(stored.optimum, lo))
                              or (hi is not None and below(hi, stored.optimum))):
        out.append(f"stored optimum {_show(stored.optimum)} lies outside its bounds "
                   f"[{_show(lo)}, {_show(hi)}]")
    if stored.is_optimal:
        if not fresh.is_optimal:
            out.append(f"stored optimum {_show(stored.optimum)} not reproduced: the re-solve "
                       f"ends {fresh.status} with {fresh.describe()}")
        elif not same(stored.optimum, fresh.optimum):
            out.append(f"stored optimum {_show(stored.optimum)} not reproduced: the re-solve "
                       f"proves the optimum {_show(fresh.optimum)}")
    if hi is not None and fresh.lower_bound is not None and below(hi, fresh.lower_bound):
        out.append(f"stored upper_bound {_show(hi)} is below the re-solve's proven "
                   f"lower bound {_show(fresh.lower_bound)}")
    if lo is not None and fresh.upper_bound is not None and below(fresh.upper_bound, lo):
        out.append(f"stored lower_bound {_show(lo)} is beyond a solution of value "
                   f"{_show(fresh.upper_bound)} the re-solve found")
    return out


def warm_up() -> None:
    """Import the solver stack before the clock starts: a proof time is the solve's, not the
    one-off import of OR-Tools and HiGHS (about a second)."""
    import highspy  # noqa: F401
    from ortools.sat.python import cp_model  # noqa: F401


def certify(family: Any, instance: Any, method: str, time_limit: float | None,
            options: Mapping[str, Any]) -> Certificate:
    """Solve `instance` (with its stored scenario, for the failure families) with the exact
    model `method` of `family` and return what it proved."""
    model = family.exact[method]
    scenario = family.scenario(instance, None) if family.scenario is not None else None
    warm_up()
    t0 = time.perf_counter()
    sol = model(instance, scenario, time_limit=time_limit, **dict(options))
    return Certificate.from_solution(sol, family.sense, time_limit=time_limit, options=options,
                                     proof_time=time.perf_counter() - t0)
