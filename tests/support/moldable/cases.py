"""Shared fixtures: small random moldable instances of every model (seeded)."""

from __future__ import annotations

import numpy as np

from resilsched.heuristics.moldable import (
    batch_list,
    lpa,
    lpa_list,
    lpa_proof,
    lpa_proof_list,
    minarea,
    minarea_list,
    mintime,
    mintime_list,
)
from resilsched.instances.moldable import (
    Amdahl,
    Communication,
    Mix,
    MoldableInstance,
    Power,
    Roofline,
    Table,
)

#: the fixed-allocation heuristics with their allocation rules (the fast path's input)
FIXED = ((lpa_list, lpa), (mintime_list, mintime), (minarea_list, minarea),
         (lpa_proof_list, lpa_proof))
#: every registered heuristic function
HEURISTICS = tuple(h for h, _ in FIXED) + (batch_list,)


def random_jobs(model: str, n: int, P: int, rng: np.random.Generator):
    jobs = []
    for _ in range(n):
        w = float(rng.uniform(1.0, 1000.0))
        if model == "roofline":
            jobs.append(Roofline(w, int(rng.integers(1, 2 * P + 1))))
        elif model == "communication":
            jobs.append(Communication(w, float(rng.uniform(0, 1)) ** 3 * w / 4))
        elif model == "amdahl":
            jobs.append(Amdahl(w, float(10 ** rng.uniform(-4, 0))))
        elif model == "mix":
            jobs.append(Mix(w, float(10 ** rng.uniform(-4, 0)), int(rng.integers(1, 2 * P + 1)),
                            float(rng.uniform(0, 1)) ** 3 * w / 4))
        elif model == "power":
            jobs.append(Power(w, float(rng.uniform(0, 1))))
        else:  # arbitrary table
            jobs.append(Table(tuple(float(x) for x in rng.uniform(1, 100, size=P))))
    return jobs


def random_instance(model: str, n: int, P: int, seed: int, lam: float | None = None):
    rng = np.random.default_rng(seed)
    return MoldableInstance(P, tuple(random_jobs(model, n, P, rng)), f"rand-{model}-{seed}",
                            lam=lam)


def random_failures(n: int, seed: int, fmax: int = 3) -> list[int]:
    rng = np.random.default_rng(seed + 10_000)
    return [int(x) for x in rng.integers(0, fmax + 1, size=n)]
