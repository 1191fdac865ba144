"""The compiled refutation search = the pure-Python one (decision R25).

On seeded random scenarios, for every target T from below the root bound to the greedy
makespan in turn (the memo of failed states kept from one T to the next), with the
configuration LP every node, every 7th node or never, and with a memo small enough to be
emptied: both engines return the same status, the same schedule, the same node count, the
same work and keep as many failed states. With the C engine, D(T) is refuted at T_OPT - 1
and met at T_OPT (brute force); and the fallbacks: core disabled, or a scenario outside the C
search's range.
"""

from __future__ import annotations

import numpy as np
import pytest

from resilsched import engine
from resilsched.instances.failures import Scenario
from resilsched.instances.rigid import RigidInstance
from resilsched.models.rigid import crefute, scale_scenario
from resilsched.models.rigid.greedy import greedy_upper_bound
from resilsched.models.rigid.refute import CutPool, RefuteMemo, refute_makespan
from resilsched.models.rigid.root_bounds import root_bound
from resilsched.validation import validate_rigid_schedule
from tests.models.rigid.test_refute import _as_schedule
from tests.support.rigid import oracle
from tests.support.rigid.cases import random_scenario, random_tiny

built = pytest.mark.skipif(not engine.available("_refute"), reason="compiled search not built")


def _random(rng: np.random.Generator) -> tuple[RigidInstance, Scenario]:
    return random_scenario(rng, P=(2, 20), n=(2, 7), t_max=11)


@built
@pytest.mark.parametrize("seed", [1, 2])
def test_same_verdict_nodes_and_schedule(seed):
    rng = np.random.default_rng(9100 + seed)
    compared = 0
    for _ in range(40):
        inst, sc = _random(rng)
        data = scale_scenario(inst, sc)
        pool = CutPool(data)
        low, high = root_bound(data).value, greedy_upper_bound(data)[0]
        for every in (1, 7, 10**9):
            for size in (5, 10**6):
                # one memo per engine for every T, as solve_scenario does
                memos = RefuteMemo(data.n, size), RefuteMemo(data.n, size)
                for T in range(max(0, low - 2), high + 1):
                    a = refute_makespan(data, T, 30, every, pool=pool, engine="python",
                                        memo=memos[0])
                    b = refute_makespan(data, T, 30, every, pool=pool, engine="c",
                                        memo=memos[1])
                    assert "timeout" not in (a.status, b.status)
                    assert (a.status, a.nodes, a.work, a.starts) == \
                        (b.status, b.nodes, b.work, b.starts), (inst, sc, T, every, size)
                    assert (a.engine, b.engine) == ("python", "c")
                    assert len(memos[0].table) == len(memos[1].for_c())
                    compared += 1
    assert compared > 500


@built
def test_node_limit_is_the_same_work():
    """`max_nodes` stops both engines after the same work (deterministic mode)."""
    rng = np.random.default_rng(9200)
    P = 30
    jobs = [(int(rng.integers(1, P + 1)), int(rng.integers(1, 60))) for _ in range(12)]
    data = scale_scenario(RigidInstance.build(P, jobs), Scenario((1,) * 12))
    pool = CutPool(data)
    T = root_bound(data).value + 3
    for limit in (50, 400, 3000):
        a = refute_makespan(data, T, 30, 16, pool=pool, engine="python", max_nodes=limit)
        b = refute_makespan(data, T, 30, 16, pool=pool, engine="c", max_nodes=limit)
        assert (a.status, a.nodes, a.work) == (b.status, b.nodes, b.work)


@built
def test_c_engine_matches_brute_force():
    rng = np.random.default_rng(9300)
    for _ in range(60):
        inst, sc = random_tiny(rng)
        opt, _ = oracle.brute_force_makespan(inst.P, [(j.p, j.t) for j in inst.jobs],
                                             sc.failures)
        data = scale_scenario(inst, sc)
        assert refute_makespan(data, opt - 1, 10, engine="c").status == "infeasible"
        at = refute_makespan(data, opt, 10, engine="c")
        assert at.status == "feasible" and at.starts is not None
        sched = _as_schedule(data, at.starts, sc.failures)
        validate_rigid_schedule(inst, sc, sched)
        assert sched.makespan <= opt


def test_fallback_to_python():
    inst = RigidInstance.build(4, [(2, 3), (3, 2), (1, 5)])
    data = scale_scenario(inst, Scenario((1, 0, 1)))
    with engine.use("python"):
        assert crefute.library() is None
        res = refute_makespan(data, 20, 5)
        assert res.engine == "python" and res.status == "feasible"
        with pytest.raises(ValueError, match="engine"):
            refute_makespan(data, 20, 5, engine="c")
    with pytest.raises(ValueError, match="engine"):
        refute_makespan(data, 20, 5, engine="fortran")
    # beyond the C search's int32 memo keys: the Python search answers
    assert not crefute.fits(3, 4, 2**31, [3, 2, 5], [2, 1, 2], [])
    assert refute_makespan(data, 2**31, 5).engine == "python"
