"""Instance generators of the worksharing family (spec 003 §4.2, §4.3).

- `random_instances(seed, count)`: small mixed instances (p = 1..4, linear/exponential/Weibull
  risk, free and charged initiation), seeded.
- `e5_configs()` / `e5_instances`: the idealised grid of Section 6 (kappa = X = 1, p in
  {5, 10, 25, 50, 100}, every integer W in 1..p, eps in {0.1, 0.01, 0.001, 0.0001}): 760
  configurations (x 1000 trials = the paper's 760,000 instances).
- `e6_configs()`: W = 10, p = 10..100, the 4 eps values.
- `synthetic_trace(trace_id)`: the synthetic stand-ins of §4.3 for the eight availability traces
  (same interval counts, shapes ordered as the paper's qualitative facts, fixed seeds). They are
  *synthetic*: results on them are not comparable to Table 5 numerically.
"""

from __future__ import annotations

import numpy as np

from resilsched.instances.worksharing.model import WorksharingInstance
from resilsched.instances.worksharing.risk import (
    EmpiricalRisk,
    ExponentialRisk,
    LinearRisk,
    WeibullRisk,
)

E_P = (5, 10, 25, 50, 100)
E_EPS = (0.1, 0.01, 0.001, 0.0001)
E_N = (47, 97, 147, 197)

#: id -> (name, count, generator kind, parameter); shapes per §4.3 (d) [I]
TRACES: dict[int, tuple[str, int, str, float]] = {
    0: ("SDSC", 5678, "weibull", 2.5),
    1: ("UCB", 19276, "lognormal", 2.0),
    2: ("XtremWeb", 8756, "weibull", 0.5),
    3: ("Cetus", 1898, "weibull", 2.0),
    4: ("LONG", 10958, "weibull", 1.0),
    5: ("Princeton", 79, "uniform", 0.0),
    6: ("Condor", 1125, "weibull", 1.2),
    7: ("CSIL", 927, "weibull", 3.0),
}
TRACE_SEED = 3003


def synthetic_trace_samples(trace_id: int) -> np.ndarray:
    """The interval lengths of stand-in `trace_id`, max-normalised (deterministic)."""
    name, count, kind, par = TRACES[trace_id]
    rng = np.random.default_rng([TRACE_SEED, trace_id])
    if kind == "uniform":
        x = rng.uniform(0.0, 1.0, count)
    elif kind == "weibull":
        x = rng.weibull(par, count)
    else:
        x = rng.lognormal(0.0, par, count)
    x = np.maximum(x, np.finfo(float).tiny)
    return x / x.max()


def synthetic_trace(trace_id: int) -> EmpiricalRisk:
    """Empirical risk of stand-in `trace_id` (§4.3 (a)-(c))."""
    return EmpiricalRisk(tuple(synthetic_trace_samples(trace_id)), True,
                         f"synthetic-{TRACES[trace_id][0]}")


def write_trace_csvs(directory) -> list[str]:
    """Write the eight stand-ins as ``synthetic_<id>_<name>.csv`` (one length per line)."""
    from pathlib import Path

    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    out = []
    for tid, (name, *_rest) in TRACES.items():
        path = d / f"synthetic_{tid}_{name}.csv"
        np.savetxt(path, synthetic_trace_samples(tid), fmt="%.17g")
        out.append(str(path))
    return out


def e5_configs() -> list[tuple[int, float, float]]:
    """(p, W, eps) of E5: every integer W in 1..p (760 configurations)."""
    return [(p, float(W), eps) for p in E_P for W in range(1, p + 1) for eps in E_EPS]


def e6_configs() -> list[tuple[int, float, float]]:
    """(p, W, eps) of E6: W = 10, p = 10..100."""
    return [(p, 10.0, eps) for p in range(10, 101) for eps in E_EPS]


def e5_instances(seed: int = 0, count: int | None = None) -> list[WorksharingInstance]:
    """E5 configurations as instances (linear risk, X = 1); ``count`` keeps a seeded sample."""
    cfg = e5_configs()
    if count is not None and count < len(cfg):
        idx = np.sort(np.random.default_rng(seed).choice(len(cfg), count, replace=False))
        cfg = [cfg[i] for i in idx]
    return [WorksharingInstance(W, p, LinearRisk(1.0), eps, name=f"e5-p{p}-W{W:g}-eps{eps:g}")
            for p, W, eps in cfg]


def random_instances(seed: int = 0, count: int | None = None) -> list[WorksharingInstance]:
    """Small random instances: p in 1..4, W in [0.2, 3], mixed risks and costs (seeded)."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(10 if count is None else count):
        p = int(rng.integers(1, 5))
        W = float(np.round(rng.uniform(0.2, 3.0), 3))
        eps = float(rng.choice([0.0, 0.01, 0.05]))
        kind = rng.choice(["linear", "linear", "exponential", "weibull"])
        if kind == "linear":
            risk = LinearRisk(float(np.round(rng.uniform(0.5, 2.0), 3)))
        elif kind == "exponential":
            risk = ExponentialRisk(float(np.round(rng.uniform(0.5, 2.0), 3)))
        else:
            risk = WeibullRisk(float(np.round(rng.uniform(0.7, 3.0), 3)), 1.0)
        mc = int(rng.integers(1, 9)) if eps == 0 else None
        out.append(WorksharingInstance(W, p, risk, eps, max_chunks=mc,
                                       name=f"random-{seed}-{i}",
                                       metadata={"generator": "random", "seed": seed}))
    return out


def trace_instances(seed: int = 0, count: int | None = None) -> list[WorksharingInstance]:
    """Trace-based instances on the synthetic stand-ins (§4.3): p, W, eps drawn from the grid."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(8 if count is None else count):
        tid = i % 8
        p = int(rng.choice([5, 10]))
        W = float(rng.integers(1, p + 1))
        eps = float(rng.choice(E_EPS))
        out.append(WorksharingInstance(W, p, synthetic_trace(tid), eps,
                                       name=f"trace{tid}-p{p}-W{W:g}-eps{eps:g}",
                                       metadata={"trace": tid, "synthetic": True}))
    return out


#: kinds of the shipped library, by instance index modulo 20 (see `library_instances`)
LIBRARY_KINDS = ("thm2",) * 7 + ("thm4",) * 4 + ("disjoint",) * 4 + ("thm7",) * 4 + ("two",)


def library_instances(seed: int = 0, count: int | None = None) -> list[WorksharingInstance]:
    """The shipped certified library (``resilsched library``; 100 instances by default).

    Linear risk X ~ U[0.5, 2] (3 decimals); instance k is of kind ``LIBRARY_KINDS[k % 20]``:
    ``thm2`` (p = 1, eps = 0, n ~ U{1..8}: Theorem 2), ``thm4`` (p = 1, eps in {0.01, 0.02,
    0.05}: Theorem 4), ``disjoint`` (p ~ U{2..4}, eps = 0.01, W = p X: p disjoint one-worker
    optima), ``thm7`` (p = 2, n = 1, eps = 0: Theorem 7) and ``two`` (p = 2, eps = 0,
    n ~ U{2..4}, W < X: no closed form, the certificate is a pair of bounds).
    """
    out = []
    children = np.random.SeedSequence(int(seed)).spawn(100 if count is None else count)
    for k, child in enumerate(children):
        rng = np.random.default_rng(child)
        kind = LIBRARY_KINDS[k % len(LIBRARY_KINDS)]
        X = float(np.round(rng.uniform(0.5, 2.0), 3))
        W = float(np.round(rng.uniform(0.2, 1.0) * X, 3))
        p, eps, n = 1, 0.0, None
        if kind == "thm2":
            n = int(rng.integers(1, 9))
            W = float(np.round(rng.uniform(0.2, 3.0), 3))
        elif kind == "thm4":
            eps = float(rng.choice([0.01, 0.02, 0.05]))
            W = float(np.round(rng.uniform(0.2, 3.0), 3))
        elif kind == "disjoint":
            p, eps = int(rng.integers(2, 5)), 0.01
            W = float(np.round(p * X, 3))
        elif kind == "thm7":
            p, n = 2, 1
        else:
            p, n = 2, int(rng.integers(2, 5))
        out.append(WorksharingInstance(W, p, LinearRisk(X), eps, max_chunks=n,
                                       name=f"worksharing-lib-{kind}-{seed}-{k}",
                                       metadata={"generator": "library", "seed": int(seed),
                                                 "index": k, "kind": kind}))
    return out
