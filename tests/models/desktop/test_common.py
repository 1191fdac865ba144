"""The models' phases before a model (models/desktop/common.py): MinFill after SizeFit
(D-32) improves the incumbent, which the answer keeps, validated, and never worsens it."""

import time

from resilsched.instances.desktop.generators import synthetic_instance
from resilsched.models.desktop import cpsat
from resilsched.validation.desktop import validate_desktop_schedule


def test_min_fill_improves_the_incumbent_of_the_solve():
    inst = synthetic_instance(50, 1000, 7, 107)
    sol = cpsat.solve(inst, time_limit=60, workers=1)
    validate_desktop_schedule(inst, sol.payload, True)
    # MinFill is taken only when it beats SizeFit's incumbent (and the variants before it)
    assert sol.info["incumbent_policy"] == "MinFill" == sol.payload.policy
    assert sol.bound <= sol.objective == sol.info["incumbent"]


def test_a_short_limit_still_bounds_the_call():
    inst = synthetic_instance(50, 1000, 7, 107)
    t0 = time.perf_counter()
    sol = cpsat.solve(inst, time_limit=0.5, workers=1)
    assert time.perf_counter() - t0 <= 1.25 * 0.5 + 1.0
    if sol.objective is not None:
        assert sol.bound <= sol.objective
        validate_desktop_schedule(inst, sol.payload, True)
