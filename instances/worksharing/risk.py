"""Risk functions of the worksharing family (spec 003 §1.2, §4.3).

A risk function Pr(t) is the CDF of a worker's interruption time tau: the probability that the
worker has been interrupted by time t (time measured in work units). A chunk that ends at time T
completes iff T <= tau, so it succeeds with probability 1 - Pr(T) (spec §1.2, "success rule").

Kinds (JSON ``{"kind": ...}``):

- ``linear`` ``{"X": X}``: Pr(t) = min(1, t/X), tau ~ U(0, X), kappa = 1/X.
- ``exponential`` ``{"X": X}``: Pr(t) = 1 - exp(-t/X) (mean X; spec §1.2 [I]).
- ``weibull`` ``{"k": k, "scale": s}``: Pr(t) = 1 - exp(-(t/s)^k).
- ``empirical`` ``{"samples": [...], "normalize": true}``: Pr(t) = #{samples < t} / #samples,
  after dividing the samples by their maximum when ``normalize`` (spec §4.3); tau is drawn
  uniformly from the samples.

All ``cdf`` methods are vectorised over numpy arrays and return Pr(t) in [0, 1] (Pr(inf) = 1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from resilsched.errors import InvalidInstance
from resilsched.instances.fields import time_value


def _positive(x: object, name: str) -> float:
    """A finite number in (0, MAX_TIME] (instances/fields.py)."""
    return float(time_value(x, name))


@dataclass(frozen=True)
class LinearRisk:
    """Linear risk Pr(t) = min(1, kappa t), kappa = 1/X (spec §1.2)."""

    X: float
    kind: str = field(default="linear", init=False)

    def __post_init__(self) -> None:
        _positive(self.X, "risk.X")

    @property
    def kappa(self) -> float:
        return 1.0 / self.X

    @property
    def horizon(self) -> float:
        """Smallest t with Pr(t) = 1."""
        return float(self.X)

    def cdf(self, t):
        return np.clip(np.asarray(t, dtype=float) / self.X, 0.0, 1.0)

    def inv(self, lam: float) -> float:
        """Smallest t with Pr(t) >= lam (maxsl of spec §3.1)."""
        return float(lam) * self.X

    def sample(self, rng: np.random.Generator, size) -> np.ndarray:
        return rng.uniform(0.0, self.X, size)

    def tail_integral(self, eps: float) -> float:
        """E[max(0, tau - eps)] = integral_eps^inf (1 - Pr(t)) dt."""
        return max(0.0, self.X - eps) ** 2 / (2 * self.X)

    def cdf_integral(self, a: float, b: float) -> float:
        """integral_a^b Pr(t) dt (exact), 0 <= a <= b."""
        def F(t: float) -> float:
            return t * t / (2 * self.X) if t <= self.X else t - self.X / 2
        return F(b) - F(a)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "linear", "X": self.X}


@dataclass(frozen=True)
class ExponentialRisk:
    """Exponential risk Pr(t) = 1 - exp(-t/X) (spec §1.2 [I]: maxsl = X ln 2 for lambda = 1/2)."""

    X: float
    kind: str = field(default="exponential", init=False)

    def __post_init__(self) -> None:
        _positive(self.X, "risk.X")

    @property
    def horizon(self) -> float:
        return math.inf

    def cdf(self, t):
        t = np.maximum(np.asarray(t, dtype=float), 0.0)
        return -np.expm1(-t / self.X)

    def inv(self, lam: float) -> float:
        return math.inf if lam >= 1 else -self.X * math.log1p(-lam)

    def sample(self, rng: np.random.Generator, size) -> np.ndarray:
        return rng.exponential(self.X, size)

    def tail_integral(self, eps: float) -> float:
        return self.X * math.exp(-eps / self.X)

    def cdf_integral(self, a: float, b: float) -> float:
        """integral_a^b Pr(t) dt (exact), 0 <= a <= b."""
        return (b - a) - self.X * (math.exp(-a / self.X) - math.exp(-b / self.X))

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "exponential", "X": self.X}


@dataclass(frozen=True)
class WeibullRisk:
    """Weibull risk Pr(t) = 1 - exp(-(t/scale)^k) (trace stand-ins, spec §4.3)."""

    k: float
    scale: float = 1.0
    kind: str = field(default="weibull", init=False)

    def __post_init__(self) -> None:
        _positive(self.k, "risk.k")
        _positive(self.scale, "risk.scale")

    @property
    def horizon(self) -> float:
        return math.inf

    def cdf(self, t):
        t = np.maximum(np.asarray(t, dtype=float), 0.0)
        return -np.expm1(-((t / self.scale) ** self.k))

    def inv(self, lam: float) -> float:
        return math.inf if lam >= 1 else self.scale * (-math.log1p(-lam)) ** (1.0 / self.k)

    def sample(self, rng: np.random.Generator, size) -> np.ndarray:
        return self.scale * rng.weibull(self.k, size)

    def tail_integral(self, eps: float) -> float:
        # integral_eps^inf exp(-(t/s)^k) dt by composite Simpson on a truncated range
        hi = self.scale * (50.0 ** (1.0 / self.k)) + eps
        ts = np.linspace(eps, hi, 20001)
        ys = np.exp(-((ts / self.scale) ** self.k))
        h = ts[1] - ts[0]
        return float(h / 3 * (ys[0] + ys[-1] + 4 * ys[1:-1:2].sum() + 2 * ys[2:-1:2].sum()))

    def cdf_integral(self, a: float, b: float) -> float:
        """integral_a^b Pr(t) dt by composite Simpson (200001 points; numeric, not exact)."""
        if b <= a:
            return 0.0
        ts = np.linspace(a, b, 200001)
        ys = self.cdf(ts)
        h = ts[1] - ts[0]
        return float(h / 3 * (ys[0] + ys[-1] + 4 * ys[1:-1:2].sum() + 2 * ys[2:-1:2].sum()))

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "weibull", "k": self.k, "scale": self.scale}


@dataclass(frozen=True, eq=False)
class EmpiricalRisk:
    """Empirical (trace) risk Pr(t) = #{samples < t}/N (spec §4.3), samples max-normalised."""

    samples: tuple[float, ...]
    normalize: bool = True
    name: str = ""
    kind: str = field(default="empirical", init=False)

    def __post_init__(self) -> None:
        if len(self.samples) == 0:
            raise InvalidInstance("risk.samples", "must not be empty")
        arr = np.asarray(self.samples, dtype=float)
        if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
            bad = next(i for i, s in enumerate(arr) if not (math.isfinite(s) and s > 0))
            raise InvalidInstance(f"risk.samples[{bad}]", f"{self.samples[bad]!r} must be > 0")
        if self.normalize:
            arr = arr / arr.max()
        object.__setattr__(self, "_sorted", np.sort(arr))

    @property
    def values(self) -> np.ndarray:
        """The (normalised) interval lengths, sorted."""
        return self._sorted  # type: ignore[attr-defined]

    @property
    def horizon(self) -> float:
        """Pr(t) = 1 for every t > max sample (spec §3.1: maxsl = 1 after normalisation)."""
        return float(self.values[-1])

    def cdf(self, t):
        v = self.values
        return np.searchsorted(v, np.asarray(t, dtype=float), side="left") / len(v)

    def inv(self, lam: float) -> float:
        v = self.values
        if lam >= 1:
            return float(v[-1])
        k = int(math.ceil(lam * len(v) - 1e-12))
        return float(v[max(k - 1, 0)]) if k > 0 else 0.0

    def sample(self, rng: np.random.Generator, size) -> np.ndarray:
        return rng.choice(self.values, size=size, replace=True)

    def tail_integral(self, eps: float) -> float:
        return float(np.maximum(self.values - eps, 0.0).mean())

    def cdf_integral(self, a: float, b: float) -> float:
        """integral_a^b Pr(t) dt (exact for the step CDF): mean of (b - max(a, s))_+."""
        return float(np.maximum(b - np.maximum(a, self.values), 0.0).mean())

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"kind": "empirical", "samples": list(map(float, self.samples)),
                             "normalize": self.normalize}
        if self.name:
            d["name"] = self.name
        return d


Risk = LinearRisk | ExponentialRisk | WeibullRisk | EmpiricalRisk
RISK_KINDS = ("linear", "exponential", "weibull", "empirical")


def risk_from_dict(d: object) -> Risk:
    """Build a risk function from its JSON object; bad input raises `InvalidInstance`."""
    if not isinstance(d, dict):
        raise InvalidInstance("risk", "must be an object with a 'kind'")
    kind = d.get("kind")
    if kind == "linear":
        if "X" not in d:
            raise InvalidInstance("risk.X", "is required for kind 'linear'")
        return LinearRisk(_positive(d["X"], "risk.X"))
    if kind == "exponential":
        if "X" not in d:
            raise InvalidInstance("risk.X", "is required for kind 'exponential'")
        return ExponentialRisk(_positive(d["X"], "risk.X"))
    if kind == "weibull":
        if "k" not in d:
            raise InvalidInstance("risk.k", "is required for kind 'weibull'")
        return WeibullRisk(_positive(d["k"], "risk.k"),
                           _positive(d.get("scale", 1.0), "risk.scale"))
    if kind == "empirical":
        s = d.get("samples")
        if not isinstance(s, (list, tuple)):
            raise InvalidInstance("risk.samples", "must be a list of positive numbers")
        vals = tuple(_positive(x, f"risk.samples[{i}]") for i, x in enumerate(s))
        normalize = d.get("normalize", True)
        if not isinstance(normalize, bool):
            raise InvalidInstance("risk.normalize", f"{normalize!r} must be true or false")
        return EmpiricalRisk(vals, normalize, str(d.get("name", "")))
    raise InvalidInstance("risk.kind", f"{kind!r} is not one of {', '.join(RISK_KINDS)}")
