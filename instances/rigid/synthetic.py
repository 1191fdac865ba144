"""Synthetic rigid job sets (spec 002 §8.2, ambiguity A15; paper §5.1).

The paper's synthetic setting: 30 job sets of n = 100 rigid jobs on P = 10000 processors, with
p_j uniform on [50, 2000] and t_j uniform on [100, 20000] seconds. Following A15 we draw p_j as an
*integer* uniform on {50, ..., 2000} (inclusive) and t_j as a *continuous* uniform on
[100, 20000] (the authors' sample data are real-valued).

Every draw comes from a seeded `numpy.random.Generator`. `paper_sets` derives set k from child k of
``numpy.random.SeedSequence(seed).spawn(...)``, so set k is the same whatever `count` is asked for.
The generator name, the seed and the parameters are stored in each instance's ``metadata``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from resilsched.errors import InvalidInstance
from resilsched.instances.rigid.model import RigidInstance, RigidJob
from resilsched.numeric import strict_int

#: Paper defaults (spec §8.2).
PAPER_N = 100
PAPER_P = 10000
PAPER_P_RANGE = (50, 2000)
PAPER_T_RANGE = (100.0, 20000.0)
PAPER_SETS = 30


def _rng_and_seed(rng_or_seed: Any) -> tuple[np.random.Generator, Any]:
    """A Generator from a seed/SeedSequence/Generator, and a JSON-able record of the seed."""
    if isinstance(rng_or_seed, np.random.Generator):
        return rng_or_seed, None
    if isinstance(rng_or_seed, np.random.SeedSequence):
        seq = rng_or_seed
        record = {"entropy": seq.entropy, "spawn_key": list(seq.spawn_key)}
        return np.random.default_rng(seq), record
    seed = strict_int(rng_or_seed, "seed")  # else a SeedSequence or a Generator, above
    return np.random.default_rng(seed), seed


def _check_ranges(n: int, p: tuple[int, int], t: tuple[float, float], P: int) -> None:
    strict_int(n, "n", 1)
    strict_int(P, "P", 1)
    lo, hi = p
    if int(lo) != lo or int(hi) != hi or not 1 <= lo <= hi:
        raise InvalidInstance("p", f"range {tuple(p)} must be integers with 1 <= low <= high")
    if hi > P:
        raise InvalidInstance("p", f"upper end {hi} exceeds P={P}")
    if not 0 < t[0] <= t[1]:
        raise InvalidInstance("t", f"range {tuple(t)} must satisfy 0 < low <= high")


def uniform_rigid(
    rng_or_seed: Any,
    n: int = PAPER_N,
    p: tuple[int, int] = PAPER_P_RANGE,
    t: tuple[float, float] = PAPER_T_RANGE,
    P: int = PAPER_P,
    name: str = "",
) -> RigidInstance:
    """One synthetic job set of the paper (spec 002 §8.2, A15).

    p_j ~ U{p[0], ..., p[1]} (integers, both ends included), t_j ~ U[t[0], t[1]] (floats).

    Parameters
    ----------
    rng_or_seed : a non-negative integer seed, a `numpy.random.SeedSequence` or a `Generator`
        (a Generator is advanced; its seed is then recorded as ``None``).
    n, p, t, P : number of jobs, processor range, time range, platform size.

    Raises
    ------
    InvalidInstance
        for a bad seed or bad ranges (e.g. ``p: upper end 3000 exceeds P=2000``).

    >>> inst = uniform_rigid(1, n=3, P=10000)
    >>> inst.n, all(50 <= pj <= 2000 for pj in inst.p)
    (3, True)
    """
    _check_ranges(n, p, t, P)
    rng, seed = _rng_and_seed(rng_or_seed)
    ps = rng.integers(int(p[0]), int(p[1]), size=int(n), endpoint=True)
    ts = rng.uniform(float(t[0]), float(t[1]), size=int(n))
    jobs = tuple(RigidJob(int(pj), float(tj)) for pj, tj in zip(ps, ts, strict=True))
    meta = {
        "generator": "uniform_rigid",
        "seed": seed,
        "params": {"n": int(n), "p": [int(p[0]), int(p[1])], "t": [float(t[0]), float(t[1])],
                   "P": int(P)},
        "reference": "spec 002 §8.2 (paper §5.1)",
    }
    return RigidInstance(int(P), jobs, name or (f"uniform-{seed}" if isinstance(seed, int) else ""),
                         None, meta)


def paper_sets(seed: int, count: int = PAPER_SETS, **kw: Any) -> list[RigidInstance]:
    """The paper's synthetic library: `count` job sets (default 30) from one seed (spec 002 §8.2).

    Set k is drawn from child k of ``SeedSequence(seed)``: the first k sets do not depend on
    `count`. Keyword arguments go to `uniform_rigid` (``n``, ``p``, ``t``, ``P``).

    >>> a = paper_sets(7, count=3, n=5)
    >>> b = paper_sets(7, count=2, n=5)
    >>> [x.to_dict() for x in a[:2]] == [x.to_dict() for x in b]
    True
    """
    count = strict_int(count, "count", 1)
    _, seed_rec = _rng_and_seed(seed)
    children = np.random.SeedSequence(seed_rec).spawn(int(count))
    out = []
    for k, child in enumerate(children):
        inst = uniform_rigid(child, name=f"uniform-{seed_rec}-{k:02d}", **kw)
        meta = dict(inst.metadata)
        meta["seed"] = seed_rec
        meta["set_index"] = k
        out.append(RigidInstance(inst.P, inst.jobs, inst.name, None, meta))
    return out


def tiny_rigid(
    rng_or_seed: Any,
    n: int,
    P: int,
    tmax: int,
    *,
    tmin: int = 1,
    pmin: int = 1,
    pmax: int | None = None,
    name: str = "",
) -> RigidInstance:
    """A tiny instance with *integer* times, for exact tests and smoke suites.

    p_j ~ U{pmin, ..., pmax} (pmax defaults to P), t_j ~ U{tmin, ..., tmax}, all ints, so the
    simulators and CP-SAT work in exact arithmetic.

    >>> inst = tiny_rigid(3, n=4, P=6, tmax=9)
    >>> all(isinstance(t, int) and 1 <= t <= 9 for t in inst.t)
    True
    """
    pmax = P if pmax is None else pmax
    if isinstance(tmax, bool) or int(tmax) != tmax or int(tmin) != tmin or not 1 <= tmin <= tmax:
        raise InvalidInstance("t", f"range ({tmin}, {tmax}) must be integers with 1 <= low <= high")
    _check_ranges(n, (pmin, pmax), (tmin, tmax), P)
    rng, seed = _rng_and_seed(rng_or_seed)
    ps = rng.integers(int(pmin), int(pmax), size=int(n), endpoint=True)
    ts = rng.integers(int(tmin), int(tmax), size=int(n), endpoint=True)
    jobs = tuple(RigidJob(int(pj), int(tj)) for pj, tj in zip(ps, ts, strict=True))
    meta = {
        "generator": "tiny_rigid",
        "seed": seed,
        "params": {"n": int(n), "P": int(P), "p": [int(pmin), int(pmax)],
                   "t": [int(tmin), int(tmax)]},
    }
    return RigidInstance(int(P), jobs, name or (f"tiny-{seed}" if isinstance(seed, int) else ""),
                         None, meta)
