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
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from resilsched.numeric import readable
from resilsched.optimality_gap import reference
from resilsched.solution import Solution, Status, number_fields
from resilsched.versions import CERTIFICATE_RECORD, versions

#: relative tolerance between two float certificates (numerically certified models, e.g. the
#: worksharing QP, agree to ~1e-9 across runs; docs/decisions.md L3)
FLOAT_TOL = 1e-6
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


#: largest magnitude of a stored value (decision T8: every derived quantity is at most 10^18)
MAX_VALUE = 10**18
#: an exact value as `resilsched.solution.number_fields` writes it: ``"p/q"`` or an integer
_EXACT = re.compile(r"(-?[0-9]{1,1000})(?:/([0-9]{1,1000}))?")
STATUSES = tuple(s.value for s in Status)


def read_number(obj: Mapping[str, Any], key: str, where: str) -> Any:
    """The value `key` of `obj` (``where`` names `obj` in errors, e.g. ``metadata``): the exact
    string ``key_exact`` when present (it must agree with the JSON number beside it), else the
    JSON number, else None. ValueError (one line naming the field and the rule) when it is not a
    finite number of magnitude at most `MAX_VALUE`."""
    exact, value = obj.get(f"{key}_exact"), obj.get(key)
    if value is not None and not _bounded(value):
        raise ValueError(f"{where}.{key}={brief(value)} must be a finite number of magnitude "
                         f"at most {MAX_VALUE:.0e}")
    if exact is None:
        return value
    match = _EXACT.fullmatch(exact) if isinstance(exact, str) else None
    if match is None or match.group(2) is not None and int(match.group(2)) == 0:
        raise ValueError(f"{where}.{key}_exact={brief(exact)} must be an exact rational "
                         '"p/q" (q > 0)')
    q = Fraction(int(match.group(1)), int(match.group(2) or 1))
    if abs(q) > MAX_VALUE:
        raise ValueError(f"{where}.{key}_exact={brief(exact)} must be of magnitude at most "
                         f"{MAX_VALUE:.0e}")
    if value is not None and not same(q, value):
        raise ValueError(f"{where}.{key}={brief(value)} differs from its exact value "
                         f"{key}_exact={exact!r}")
    return q


def _bounded(x: Any) -> bool:
    """`x` is a JSON number (not a bool), finite, of magnitude at most `MAX_VALUE` (compared
    before any conversion: a 400-digit integer does not fit a float)."""
    return (isinstance(x, (int, float)) and not isinstance(x, bool) and abs(x) <= MAX_VALUE
            and math.isfinite(x))


def brief(x: Any) -> str:
    """`repr` of a stored value (a manifest's or an instance's), cut to 40 characters."""
    text = repr(x)
    return text if len(text) <= 40 else text[:37] + "..."


def _field(cert: Mapping[str, Any], key: str, kinds: tuple[type, ...], default: Any,
           rule: str) -> Any:
    """``cert[key]`` when of one of `kinds` (never a bool standing for a number), `default`
    when absent or null; ValueError naming ``metadata.certificate.<key>`` otherwise."""
    value = cert.get(key)
    if value is None:
        return default
    if isinstance(value, kinds) and (_bounded(value) if float in kinds else True):
        return value
    raise ValueError(f"metadata.certificate.{key}={brief(value)} must be {rule}")


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
                   round(proof_time, 3), time_limit, dict(options),
                   versions(CERTIFICATE_RECORD, installed_only=True))

    def reference(self, sense: str) -> tuple[Any, str]:
        """The value gaps are measured against and its kind (``"optimal"`` or ``"bound"``)."""
        bound = self.lower_bound if sense == "min" else self.upper_bound
        return reference(self.is_optimal, self.optimum, bound)

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
        """Read the fields `to_metadata` writes; ValueError (one line naming the field and the
        rule) when one is missing, of the wrong type, or not a finite number."""
        cert = meta.get("certificate")
        if not isinstance(cert, Mapping):
            raise ValueError("metadata.certificate is missing")
        status = cert.get("status")
        if status not in STATUSES:
            raise ValueError(f"metadata.certificate.status={brief(status)} must be one of "
                             f"{', '.join(STATUSES)}")
        optimum = read_number(meta, "optimum", "metadata")
        if status == Status.OPTIMAL.value and optimum is None:
            raise ValueError("metadata.optimum is missing on an optimal certificate")
        proof_time = _field(cert, "proof_time", (int, float), 0.0, "a number of seconds")
        time_limit = _field(cert, "time_limit", (int, float), None, "a number of seconds")
        if proof_time < 0 or (time_limit is not None and time_limit <= 0):
            raise ValueError("metadata.certificate: proof_time must be >= 0 and time_limit > 0")
        return cls(status, read_number(meta, "lower_bound", "metadata"),
                   read_number(meta, "upper_bound", "metadata"), optimum,
                   _field(cert, "method", (str,), "", "a string"),
                   _field(cert, "solver", (str,), "", "a string"), float(proof_time),
                   time_limit, dict(_field(cert, "options", (dict,), {}, "an object")),
                   dict(_field(cert, "versions", (dict,), {}, "an object")))

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
            return f"optimum {readable(self.optimum)}"
        return (f"bounds [{readable(self.lower_bound)}, {readable(self.upper_bound)}] "
                f"({self.status})")


def _show(x: Any) -> str:
    """A value compared in a problem line: 10 significant digits, so that a disagreement
    beyond the float tolerance shows."""
    return readable(x, 10, fraction_value=False)


def coherence(cert: Certificate) -> list[str]:
    """Why `cert` contradicts itself (empty: it does not): its lower_bound must not exceed its
    upper_bound, an optimum must equal both bounds (decision L4: both are always written), and
    only an optimal certificate has one."""
    out = []
    lo, hi = cert.lower_bound, cert.upper_bound
    if lo is not None and hi is not None and below(hi, lo):
        out.append(f"stored lower_bound {_show(lo)} exceeds its upper_bound {_show(hi)}")
    if cert.is_optimal and any(b is None or not same(b, cert.optimum) for b in (lo, hi)):
        out.append(f"stored optimum {_show(cert.optimum)} differs from its bounds "
                   f"[{_show(lo)}, {_show(hi)}]")
    if not cert.is_optimal and cert.optimum is not None:
        out.append(f"stored optimum {_show(cert.optimum)} on a certificate of status "
                   f"{cert.status}")
    return out


def compare(stored: Certificate, fresh: Certificate) -> list[str]:
    """Why `stored` does not hold against a re-solve `fresh` of the same instance (empty: it
    holds).

    - a certificate must be coherent by itself (`coherence`);
    - an optimal certificate must be reproduced: `fresh` proves an optimum and it is the same;
    - the stored and fresh intervals [lower_bound, upper_bound] both contain OPT, so they must
      meet: a stored bound beyond the re-solve's optimum (or its proven bounds) is a failure.
    """
    out = coherence(stored)
    lo, hi = stored.lower_bound, stored.upper_bound
    if stored.is_optimal:
        if not fresh.is_optimal:
            out.append(f"stored optimum {_show(stored.optimum)} not reproduced: the re-solve "
                       f"ends with {fresh.describe()}")
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


def reproduced(stored: Certificate, fresh: Certificate) -> list[str]:
    """Why a certificate that is not optimal is not what a re-solve under the same model,
    options and time limit gives (deterministic solves: the same status and bounds); an optimal
    one is `compare`'s. A weaker stored bound would make every gap measured against it wrong."""
    if stored.is_optimal:
        return []
    if stored.status != fresh.status:
        return [f"stored status {stored.status} not reproduced: the re-solve ends "
                f"with {fresh.describe()}"]
    return [f"stored {key} {_show(mine)} not reproduced: the re-solve gives {_show(theirs)}"
            for key, mine, theirs in (("lower_bound", stored.lower_bound, fresh.lower_bound),
                                      ("upper_bound", stored.upper_bound, fresh.upper_bound))
            if (mine is None) != (theirs is None)
            or (mine is not None and not same(mine, theirs))]


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
