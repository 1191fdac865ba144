"""Seeded fuzz of the worksharing boundary: extreme but valid instances through every role.

Every call either answers (a validated schedule, a bound above the objective, within the time
limit) or refuses with a one-line `InvalidInstance`; never another exception or a hang.
"""

import math
import time

import numpy as np
import pytest

from resilsched.bounds.worksharing import limit_bound, omniscient_bound
from resilsched.errors import InvalidInstance
from resilsched.instances.worksharing import (
    ExponentialRisk,
    LinearRisk,
    WeibullRisk,
    WorksharingInstance,
)
from resilsched.models.worksharing.solve import solve, solve_qp_one_worker
from resilsched.validation.worksharing import validate_worksharing_schedule
from tests.support.worksharing.helpers import FAMILY, HEURISTICS

LIMIT = 0.3
RISKS = [lambda x: LinearRisk(x), lambda x: ExponentialRisk(x), lambda x: WeibullRisk(2.0, x)]


def _instance(rng: np.random.Generator) -> WorksharingInstance:
    x = float(rng.choice([1e-6, 1.0, 1e6]))
    return WorksharingInstance(
        W=float(rng.choice([1e-6, 0.3, 1.0, 2.5, 1e6])) * x,
        workers=int(rng.choice([1, 2, 3, 7, 40])),
        risk=RISKS[int(rng.integers(len(RISKS)))](x),
        epsilon=float(rng.choice([0.0, 1e-300, 1e-12, 1e-3, 0.5, 2.0])) * x,
        max_chunks=rng.choice([None, 1, 3, 10 ** 4]),  # 10^4: the largest accepted (T8)
    )


@pytest.mark.parametrize("seed", range(40))
def test_extreme_instances_never_crash(seed):
    rng = np.random.default_rng([2024, seed])
    inst = _instance(rng)
    for name in rng.choice(HEURISTICS, 3, replace=False):
        params = {"n": float(rng.choice([0, 0, 1e-9, 3.0, 1e9]))}
        try:
            res = FAMILY.heuristics[name].run(inst, None, None, seed=seed, **params)
        except InvalidInstance as e:
            assert "\n" not in str(e) and str(e).startswith("--param n")
            continue
        validate_worksharing_schedule(inst, res.schedule, res.objective)
        assert 0 <= res.objective <= min(limit_bound(inst), omniscient_bound(inst)) * (1 + 1e-9)
    for model in (solve, solve_qp_one_worker):
        t0 = time.perf_counter()
        sol = model(inst, time_limit=LIMIT)
        assert time.perf_counter() - t0 <= 1.25 * LIMIT + 1.0
        if sol.objective is not None:
            assert math.isfinite(sol.objective) and sol.objective <= sol.bound * (1 + 1e-9) + 1e-12
