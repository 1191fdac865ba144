"""R-SHELFFILL's refill rule ``fill=own|any-queued`` (decisions A17, R32): the compiled core
equals the Python engine bit for bit under both rules, "own" is the default, and the schedules
of "any-queued" keep the shelves' invariants (nothing started inside a shelf runs past its end)
and leave no queued job out that fitted and ended by the shelf's end.
"""

from __future__ import annotations

import numpy as np
import pytest

from resilsched import engine
from resilsched.errors import InvalidInstance
from resilsched.heuristics.rigid import many, r_shelffill_b, r_shelffill_nb
from resilsched.heuristics.rigid.rshelf import FILL_RULES
from resilsched.instances.failures import Scenario
from resilsched.validation import validate_rigid_schedule
from tests.heuristics.rigid.test_compiled import PRIORITY_OPTIONS, check, random_case

FILLS = (r_shelffill_b, r_shelffill_nb)


@pytest.mark.skipif(not engine.available(), reason="compiled core not built")
@pytest.mark.parametrize("kind", ["int", "float", "near"])
@pytest.mark.parametrize("fn", FILLS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("fill", FILL_RULES)
def test_core_equals_python_engine(fn, kind, fill):
    rng = np.random.default_rng({"int": 21, "float": 22, "near": 23}[kind])
    for _ in range(10):
        inst, sc = random_case(rng, kind)
        for prio, kw in PRIORITY_OPTIONS:
            check(fn, inst, sc, prio, fill=fill, **kw)


@pytest.mark.parametrize("batch", (many.R_SHELFFILL_B, many.R_SHELFFILL_NB),
                         ids=lambda b: b.run.__name__)
def test_many_scenarios_in_one_call_with_either_rule(batch):
    fn = batch.run
    rng = np.random.default_rng(24)
    inst, _ = random_case(rng, "float", n_max=30)
    F = rng.integers(0, 4, size=(7, inst.n))
    for fill in FILL_RULES:
        one = [fn(inst, Scenario(tuple(int(x) for x in f)), "LPT", record=False,
                  fill=fill).objective for f in F]
        assert many.makespans(batch, inst, F, "LPT", fill=fill) == one
    assert (many.makespans(batch, inst, F, "LPT")
            == many.makespans(batch, inst, F, "LPT", fill="own"))


@pytest.mark.parametrize("fn", FILLS, ids=lambda f: f.__name__)
def test_any_queued_schedules_keep_the_shelves(fn):
    """Every attempt ends by the end of the shelf it starts in; at a shelf's start and at
    every completion time t inside it, each job still waiting afterwards either did not fit the
    processors left free at t or would have ended after the shelf's end (first fit is
    maximal)."""
    rng = np.random.default_rng(25)
    for _ in range(25):
        inst, sc = random_case(rng, "int", n_max=14)
        res = fn(inst, sc, "LPT", fill="any-queued")
        sched = res.schedule
        validate_rigid_schedule(inst, sc, sched)
        assert res.extra["options"] == {"fill": "any-queued"}
        shelves = res.extra["shelves"]
        for a in sched.attempts:
            sh = next(x for x in shelves if x["start"] <= a.start < x["end"])
            assert a.end <= sh["end"]
        for sh in shelves:
            times = sorted({sh["start"]} | {a.end for a in sched.attempts
                                             if sh["start"] < a.end < sh["end"]})
            for t in times:
                running = [a for a in sched.attempts if a.start <= t < a.end]
                free = inst.P - sum(inst.jobs[a.job].p for a in running)
                waiting = {a.job for a in sched.attempts if a.start > t}
                waiting -= {a.job for a in running}
                for j in waiting:
                    assert inst.jobs[j].p > free or t + inst.jobs[j].t > sh["end"], (t, j)


def test_any_queued_fills_a_hole_that_own_leaves_idle():
    """P = 4: a tall job (p 2, t 10) and two short ones (p 2, t 3; p 2, t 3). The shelf holds
    the tall job and the first short one; under "own" the second short job waits for the next
    shelf (makespan 13), under "any-queued" it starts at 3 beside the tall job (makespan 10)."""
    from resilsched.instances.rigid import RigidInstance

    inst = RigidInstance.build(4, [(2, 10), (2, 3), (2, 3)])
    ff = Scenario.failure_free(3)
    for fn in FILLS:
        assert fn(inst, ff, "LPT").objective == 13
        assert fn(inst, ff, "LPT", fill="own").objective == 13
        assert fn(inst, ff, "LPT", fill="any-queued").objective == 10


def test_any_queued_fills_the_holes_of_a_next_fit_shelf_at_its_start():
    """P = 5, LPT: (2, 10), (4, 9), (2, 3). NB closes the first shelf at the misfit (4, 9):
    "own" runs three shelves (22); "any-queued" starts (2, 3) at 0 beside the first job, which
    it ends before (19), as B does by building the shelf."""
    from resilsched.instances.rigid import RigidInstance

    inst = RigidInstance.build(5, [(2, 10), (4, 9), (2, 3)])
    assert r_shelffill_nb(inst, None, "LPT").objective == 22
    res = r_shelffill_nb(inst, None, "LPT", fill="any-queued")
    assert res.objective == 19 and res.schedule.attempts_of(2)[0].start == 0
    assert r_shelffill_b(inst, None, "LPT", fill="any-queued").objective == 19


def test_unknown_rule_is_refused():
    from resilsched.instances.rigid import RigidInstance

    inst = RigidInstance.build(4, [(2, 10), (2, 3)])
    for batch in (many.R_SHELFFILL_B, many.R_SHELFFILL_NB):
        with pytest.raises(InvalidInstance, match="fill"):
            batch.run(inst, None, "LPT", fill="all")
        with pytest.raises(InvalidInstance, match="fill"):
            many.makespans(batch, inst, np.zeros((1, 2), dtype=np.int64), "LPT", fill="all")


def test_rshelf_accepts_the_former_boolean_fill():
    """The online family's shelf policies pass fill=True/False: True is A17's "own"."""
    from resilsched.heuristics.rigid.priorities import PriorityQueue
    from resilsched.heuristics.rigid.rshelf import RShelf

    p, t = [4, 2, 3], [1, 3, 1]
    for flag, rule in ((True, "own"), (False, None)):
        shelf = RShelf(p, t, 4, PriorityQueue([(0,), (1,), (2,)]), backfill=True, fill=flag,
                       exact=True)
        assert shelf.fill == rule
