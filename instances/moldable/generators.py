"""Random job sets of the paper's simulations (spec 000 §5) and tiny exact instances.

Per-job parameters (§5): w ~ U[5000, 4e6] (real); roofline pbar ~ U{100..4000}; communication
c = a 2^r with r ~ U{0..3}, a ~ U[1, 2]; Amdahl gamma = a / 10^r with r ~ U{2..7}, a ~ U[0, 10];
mix-low-com draws pbar, c, gamma independently; mix uses 3c; power delta ~ U[0, 1]. All jobs of
a set follow the same model. ``mix_gamma_scale`` (opt-in, default 1: the paper's draws, byte for
byte) multiplies the sequential fraction gamma of the two mix models, capped at 1, after the
same draws (issue 27's generator hypothesis for MINAREA on mix). Failures:
q_j = 1 - exp(-lambda w_j) (Eq. 3), scenarios drawn as geometric counts with a seeded
generator (common random numbers, spec §7 item 7).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from resilsched.errors import InvalidInstance
from resilsched.instances.failures import failure_probabilities, sample_failures
from resilsched.instances.moldable.model import MoldableInstance
from resilsched.instances.moldable.speedup import (
    Amdahl,
    Communication,
    Mix,
    Power,
    Roofline,
    Speedup,
    Table,
)

#: the six job families of the experiments (spec §5)
PAPER_MODELS = ("roofline", "communication", "amdahl", "mix-low-com", "mix", "power")
DEFAULT_P = 7500
DEFAULT_N = 500
DEFAULT_LAMBDA = 1e-7
#: sweep grids (spec §5, [R] grids adopted by §7 item 16)
P_GRID = (1000, 2000, 3000, 4000, 5000, 6250, 7500, 8750, 10000, 11250, 12500, 13750, 15000)
N_GRID = (100, 300, 500, 750, 1000)
LAMBDA_GRID = (1e-8, 2e-8, 5e-8, 1e-7, 2e-7, 5e-7, 1e-6)
PN_COMBOS = ((1000, 100), (1000, 500), (10000, 100), (10000, 500))
#: the models whose sequential fraction ``mix_gamma_scale`` scales
MIX_MODELS = ("mix-low-com", "mix")
#: the largest ``mix_gamma_scale`` accepted (gamma is capped at 1 anyway)
MAX_GAMMA_SCALE = 100.0


def _pbar(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.integers(100, 4000, size=n, endpoint=True)


def _c(rng: np.random.Generator, n: int) -> np.ndarray:
    r = rng.integers(0, 3, size=n, endpoint=True)
    return rng.uniform(1.0, 2.0, size=n) * 2.0**r


def _gamma(rng: np.random.Generator, n: int) -> np.ndarray:
    r = rng.integers(2, 7, size=n, endpoint=True)
    return rng.uniform(0.0, 10.0, size=n) / 10.0**r


def check_gamma_scale(scale: float) -> float:
    """``mix_gamma_scale``, checked: a finite number in (0, `MAX_GAMMA_SCALE`]."""
    if not isinstance(scale, (int, float)) or isinstance(scale, bool) or not (
            0 < scale <= MAX_GAMMA_SCALE):
        raise InvalidInstance("mix_gamma_scale", f"{scale!r} must be a number in (0, "
                                                 f"{MAX_GAMMA_SCALE:g}]")
    return float(scale)


def paper_jobs(model: str, n: int, rng: np.random.Generator | int,
               mix_gamma_scale: float = 1.0) -> list[Speedup]:
    """n jobs of one paper model (spec §5); ``model`` in `PAPER_MODELS`.

    ``mix_gamma_scale`` multiplies the drawn gamma of the mix models (`MIX_MODELS`), capped at
    1; with the default 1 the jobs are the paper's draws, unchanged."""
    rng = np.random.default_rng(rng)
    if model not in PAPER_MODELS:
        raise InvalidInstance("model", f"{model!r} is not one of {', '.join(PAPER_MODELS)}")
    scale = check_gamma_scale(mix_gamma_scale)
    w = rng.uniform(5000.0, 4e6, size=n)
    if model == "roofline":
        pb = _pbar(rng, n)
        return [Roofline(float(w[j]), int(pb[j])) for j in range(n)]
    if model == "communication":
        c = _c(rng, n)
        return [Communication(float(w[j]), float(c[j])) for j in range(n)]
    if model == "amdahl":
        g = _gamma(rng, n)
        return [Amdahl(float(w[j]), float(g[j])) for j in range(n)]
    if model == "power":
        d = rng.uniform(0.0, 1.0, size=n)
        return [Power(float(w[j]), float(d[j])) for j in range(n)]
    pb, c, g = _pbar(rng, n), _c(rng, n), _gamma(rng, n)
    if scale != 1.0:
        g = np.minimum(1.0, g * scale)
    factor = 3.0 if model == "mix" else 1.0
    return [Mix(float(w[j]), float(g[j]), int(pb[j]), float(factor * c[j])) for j in range(n)]


def paper_instance(model: str, rng: np.random.Generator | int, n: int = DEFAULT_N,
                   P: int = DEFAULT_P, lam: float = DEFAULT_LAMBDA,
                   name: str = "", mix_gamma_scale: float = 1.0) -> MoldableInstance:
    """One job set of the paper's simulations with lambda stored (spec §5); a
    ``mix_gamma_scale`` other than 1 is recorded in the metadata."""
    meta: dict = {"generator": "paper", "model": model}
    if mix_gamma_scale != 1.0 and model in MIX_MODELS:
        meta["mix_gamma_scale"] = mix_gamma_scale
    return MoldableInstance(P, tuple(paper_jobs(model, n, rng, mix_gamma_scale)),
                            name or f"{model}-n{n}-P{P}", None, lam, meta)


def failure_probs(jobs: Sequence[Speedup], lam: float) -> np.ndarray:
    """q_j = 1 - exp(-lambda w_j), w_j = t_j(1) (Eq. 3, spec §7 item 8: paper's w for mix)."""
    return failure_probabilities([float(j.w) for j in jobs], lam)


def draw_scenarios(q: Sequence[float], n_scen: int, rng: np.random.Generator | int) -> np.ndarray:
    """(n_scen, n) geometric failure counts f_j (spec §7 item 7)."""
    return sample_failures(q, n_scen, rng)


def tiny_exact(rng: np.random.Generator | int, n: int, P: int, model: str) -> MoldableInstance:
    """A tiny instance with exact (int/Fraction) parameters for the exact solvers (spec §8).

    ``model`` in roofline, communication, amdahl, mix, table (a monotone integer table).
    """
    rng = np.random.default_rng(rng)
    jobs: list[Speedup] = []
    for _ in range(n):
        w = int(rng.integers(2, 12, endpoint=True))
        if model == "roofline":
            jobs.append(Roofline(w, int(rng.integers(1, P, endpoint=True))))
        elif model == "communication":
            jobs.append(Communication(w * 4, Fraction(int(rng.integers(0, 4)), 2)))
        elif model == "amdahl":
            jobs.append(Amdahl(w, Fraction(int(rng.integers(0, 4)), 4)))
        elif model == "mix":
            jobs.append(Mix(w * 2, Fraction(int(rng.integers(0, 3)), 4),
                            int(rng.integers(1, P, endpoint=True)),
                            Fraction(int(rng.integers(0, 3)), 2)))
        elif model == "table":
            # monotone: t non-increasing and p t(p) non-decreasing, integer times
            times = [w * 2]
            for p in range(2, P + 1):
                lo = -(-times[-1] * (p - 1) // p)  # ceil((p-1) t(p-1) / p): area non-decreasing
                times.append(int(rng.integers(lo, times[-1], endpoint=True)))
            jobs.append(Table(tuple(times)))
        else:
            raise InvalidInstance("model", f"{model!r} has no tiny exact generator")
    return MoldableInstance(P, tuple(jobs), f"tiny-{model}", metadata={"generator": "tiny_exact"})
