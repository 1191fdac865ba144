"""The refutation search of `resilsched.models.rigid.refute` vs the brute-force oracle.

D(T) is decided exactly by the Python search (the C one: test_crefute.py) on tiny random
scenarios: refuted at T_OPT - 1, met at T_OPT with a schedule that passes the independent
validator; `solve_scenario` with the whole time given to
the search (CP-SAT gets none and the greedy schedule is the start) proves the same optima.
"""

from __future__ import annotations

import numpy as np
import pytest

from resilsched.instances.failures import Scenario
from resilsched.instances.rigid import RigidInstance
from resilsched.models.rigid import ScaledScenario, scale_scenario, solve_scenario
from resilsched.models.rigid.refute import refute_makespan
from resilsched.schedule import Attempt, Schedule
from resilsched.solution import Status
from resilsched.validation import validate_rigid_schedule
from tests.support.rigid import oracle
from tests.support.rigid.cases import random_tiny, schedule_from_payload


def _as_schedule(data: ScaledScenario, starts: list[list[int]], f: tuple[int, ...]) -> Schedule:
    atts = tuple(Attempt(j, k + 1, s, s + data.t[j], data.p[j], k < f[j])
                 for j in range(data.n) for k, s in enumerate(starts[j]))
    return Schedule(atts, max(a.end for a in atts))


@pytest.mark.parametrize("lp_every", [1, 16])
def test_decision_matches_brute_force(lp_every):
    rng = np.random.default_rng(5100 + lp_every)
    for _ in range(60):
        inst, sc = random_tiny(rng)
        opt, _ = oracle.brute_force_makespan(inst.P, [(j.p, j.t) for j in inst.jobs],
                                             sc.failures)
        data = scale_scenario(inst, sc)
        below = refute_makespan(data, opt - 1, time_limit=10, lp_every=lp_every,
                                engine="python")
        assert below.status == "infeasible", (inst, sc, opt)
        at = refute_makespan(data, opt, time_limit=10, lp_every=lp_every, engine="python")
        assert at.status == "feasible" and at.starts is not None, (inst, sc, opt)
        sched = _as_schedule(data, at.starts, sc.failures)
        validate_rigid_schedule(inst, sc, sched)
        assert sched.makespan <= opt


def test_timeout_is_reported():
    rng = np.random.default_rng(7)
    P = 40
    jobs = [(int(rng.integers(1, P + 1)), int(rng.integers(1, 101))) for _ in range(25)]
    data = scale_scenario(RigidInstance.build(P, jobs), Scenario((1,) * 25))
    res = refute_makespan(data, 10**6, time_limit=0.0)
    assert res.status in ("timeout", "feasible")  # never a refutation of a loose target
    assert refute_makespan(data, 1, time_limit=0.0).status in ("timeout", "infeasible")


def test_solve_scenario_proves_by_refutation_alone():
    """refute_share=1: CP-SAT gets no time, the search starts from the greedy schedule and must
    refute every makespan below the optimum (or meet it) by itself."""
    rng = np.random.default_rng(5200)
    used = 0
    for _ in range(25):
        inst, sc = random_tiny(rng)
        opt, _ = oracle.brute_force_makespan(inst.P, [(j.p, j.t) for j in inst.jobs],
                                             sc.failures)
        sol = solve_scenario(inst, sc, time_limit=10, workers=1, refute_share=1.0)
        assert sol.status is Status.OPTIMAL and sol.objective == opt == sol.bound
        validate_rigid_schedule(inst, sc, schedule_from_payload(sol))
        used += sol.payload.info["refuted_by_search"]
        if sol.payload.info["refuted_by_search"]:
            assert sol.solver == "cp-sat+refute"
    assert used > 0  # the search, not CP-SAT, raised the bounds
