"""R-LIST-1/Q with fixed reservations in the compiled core (``csrc/core/rigid_fixed.c``) = the
pure-Python reference (RList in "fixed" mode under the event engine), bit for bit (issue 14).

On seeded random instances and scenarios: every priority rule and option (redraw_on_failure,
the LJF secondary rule, classic_easy), small platforms (P <= 8) where the reservations crowd each
other, integer times (exact, many simultaneous completions), float times and float times within
the 1e-9 tolerance of each other (the core then rebuilds its kept profile), longer queues with
sparse and dense failures (the kept profile across many passes), and paper-size sets. The fast
path ``record=False`` must give the makespan of the engine path ``record=True`` on both engines
(the `engine_name` fixture) and the C path that of the Python fast path, same value and same
type; the many-scenario path must give the one-scenario values, with and without the core.
"""

from __future__ import annotations

import numpy as np
import pytest

from resilsched import engine
from resilsched.errors import InvalidInstance
from resilsched.heuristics.rigid import PRIORITIES, compiled, many, r_list_1, r_list_q
from resilsched.heuristics.rigid.priorities import make_queue
from resilsched.instances.failures import Scenario
from resilsched.instances.rigid import RigidInstance
from resilsched.instances.rigid.scenarios import scenario_matrix
from resilsched.instances.rigid.synthetic import paper_sets
from tests.heuristics.rigid.test_compiled import PRIORITY_OPTIONS, check, random_case

needs_c = pytest.mark.skipif(not engine.available(), reason="compiled core not built")

RESERVING = (r_list_1, r_list_q)
FIXED = {"reservations": "fixed"}


def crowded_case(rng: np.random.Generator, kind: str, n_max: int = 12):
    """A small platform (P <= 8), wide jobs and up to 5 failures per job: reservations made
    while a job runs are still held when it fails."""
    P = int(rng.integers(2, 9))
    n = int(rng.integers(2, n_max + 1))
    p = rng.integers(1, P + 1, size=n)
    if kind == "int":
        t: list = [int(x) for x in rng.integers(1, 9, size=n)]
    else:
        t = [float(x) for x in rng.uniform(0.5, 8.0, size=n)]
    f = tuple(int(x) for x in rng.integers(0, 6, size=n) * (rng.random(n) < 0.6))
    inst = RigidInstance.build(P, [(int(a), b) for a, b in zip(p, t, strict=True)])
    return inst, Scenario(f)


def core_and_python(fn, inst, sc, priority, **kw):
    fast = fn(inst, sc, priority, record=False, reservations="fixed", **kw).objective
    with engine.use("python"):
        ref = fn(inst, sc, priority, record=False, reservations="fixed", **kw).objective
    return fast, ref


@pytest.mark.parametrize("kind", ["int", "float", "near"])
@pytest.mark.parametrize("fn", RESERVING, ids=lambda f: f.__name__)
def test_every_priority_and_option_equals_reference(fn, kind, engine_name):
    rng = np.random.default_rng({"int": 31, "float": 32, "near": 33}[kind])
    for _ in range(6):
        inst, sc = random_case(rng, kind, n_max=15)
        for prio, kw in PRIORITY_OPTIONS:
            for classic in (False, True):
                check(fn, inst, sc, prio, classic_easy=classic, **FIXED, **kw)


@needs_c
@pytest.mark.parametrize("kind", ["int", "float"])
@pytest.mark.parametrize("fn", RESERVING, ids=lambda f: f.__name__)
def test_crowded_platforms_equal_reference(fn, kind):
    """300 small crowded instances per case, three priorities, both A2 readings."""
    rng = np.random.default_rng({"int": 41, "float": 42}[kind])
    for i in range(300):
        inst, sc = crowded_case(rng, kind)
        for prio in ("LPT", "HPA", "Random"):
            for classic in (False, True):
                fast, ref = core_and_python(fn, inst, sc, prio, seed=i, classic_easy=classic)
                assert fast == ref and type(fast) is type(ref), (i, prio, classic, fast, ref)


@pytest.mark.parametrize("kind", ["int", "float", "near"])
def test_kept_profile_equals_reference_on_long_queues(kind, engine_name):
    """Longer queues (up to 70 jobs) with sparse and dense failures: many passes reuse the
    kept profile, and "near" times make the core fall back to rebuilding it."""
    rng = np.random.default_rng({"int": 51, "float": 52, "near": 53}[kind])
    for _ in range(4):
        inst, _ = random_case(rng, kind, n_max=70)
        for density in (0.1, 0.5):
            f = rng.integers(0, 4, size=inst.n) * (rng.random(inst.n) < density)
            sc = Scenario(tuple(int(x) for x in f))
            for fn in RESERVING:
                for prio, kw in (("LPT", {}), ("Random", {"seed": 2}), ("LA", {})):
                    check(fn, inst, sc, prio, **FIXED, **kw)


@needs_c
def test_paper_size_sets_equal_reference():
    """Two of the paper's synthetic sets (n = 100, P = 10000, float times) at q-bar 0.3 and
    0.6, and at P = 5000, where reservations accumulate most."""
    for inst in paper_sets(2020, 2):
        for qbar, P in ((0.3, 10000), (0.6, 10000), (0.3, 5000)):
            inst_P = RigidInstance(P, inst.jobs, inst.name)
            for row in scenario_matrix(inst_P, qbar, 2, seed=9):
                sc = Scenario(tuple(int(x) for x in row))
                for fn, prio in ((r_list_1, "LA"), (r_list_q, "LPT")):
                    fast, ref = core_and_python(fn, inst_P, sc, prio)
                    assert fast == ref, (qbar, P, fn.__name__, fast, ref)


@needs_c
def test_many_scenarios_in_one_call_equal_one_at_a_time():
    rng = np.random.default_rng(61)
    inst, _ = crowded_case(rng, "float", n_max=20)
    F = rng.integers(0, 4, size=(9, inst.n))
    seeds = list(range(9))
    for batch in (many.R_LIST_1, many.R_LIST_Q):
        fn = batch.run
        for prio, kw in PRIORITY_OPTIONS + [("LPT", {"classic_easy": True})]:
            options = {k: v for k, v in kw.items() if k != "seed"}
            one = [fn(inst, Scenario(tuple(int(x) for x in f)), prio, record=False, seed=s,
                      **FIXED, **options).objective for s, f in zip(seeds, F, strict=True)]
            assert many.makespans(batch, inst, F, prio, seeds=seeds, **FIXED, **options) == one
            with engine.use("python"):  # the fallback: one Python call per scenario
                assert many.makespans(batch, inst, F, prio, seeds=seeds, **FIXED,
                                      **options) == one


@needs_c
def test_many_scenarios_pick_the_fixed_engine_and_refuse_contradictions():
    assert many.R_LIST_Q.compiled_engine(reservations="fixed") == compiled.fixed_rlist("Q", False)
    persistent = many.R_LIST_1.compiled_engine(reservations="persistent")
    assert persistent == compiled.rlist(1, False, True)
    inst = RigidInstance.build(4, [(2, 1), (2, 2), (3, 5), (1, 3)])
    F = np.array([[0, 0, 1, 0]])
    assert many.makespans(many.R_LIST_1, inst, F, "HPA", reservations="fixed") == [13]
    assert many.makespans(many.R_LIST_1, inst, F, "HPA", reservations="persistent") == [12]
    with pytest.raises(InvalidInstance, match="persistent_reservations"):
        many.makespans(many.R_LIST_1, inst, F, "HPA", reservations="fixed",
                       persistent_reservations=True)
    with pytest.raises(InvalidInstance, match="reservations"):
        many.makespans(many.R_LIST_Q, inst, F, "HPA", reservations="sticky")


@needs_c
def test_fraction_times_and_huge_integers_stay_in_python():
    from fractions import Fraction

    inst = RigidInstance.build(3, [(2, Fraction(1, 3)), (2, Fraction(2, 3)), (1, 1)])
    sc = Scenario((1, 0, 2))
    for fn in RESERVING:
        assert (fn(inst, sc, record=False, **FIXED).objective
                == fn(inst, sc, **FIXED).objective)
    big = 10**12  # 10,000 attempts: 1e16 > 2^53, where doubles stop being exact
    inst = RigidInstance.build(2, [(1, big), (2, big)])
    queue = make_queue(inst.p, inst.t, "LPT", P=inst.P)
    assert compiled.makespan(compiled.fixed_rlist(1, False), inst.P, inst.p, inst.t, queue,
                             (9999, 0)) is None
    assert r_list_1(inst, Scenario((9999, 0)), record=False, **FIXED).objective == 10001 * big


@needs_c
@pytest.mark.parametrize("priority", PRIORITIES)
def test_failure_free_fixed_equals_persistent_in_the_core(priority):
    """Without failures nothing is ever cancelled: the fixed engine gives the persistent one's
    makespans (a second, independent C engine)."""
    rng = np.random.default_rng(71)
    for _ in range(20):
        inst, _ = crowded_case(rng, "int", n_max=20)
        sc = Scenario.failure_free(inst.n)
        for fn in RESERVING:
            a = fn(inst, sc, priority, record=False, seed=1, **FIXED).objective
            b = fn(inst, sc, priority, record=False, seed=1,
                   reservations="persistent").objective
            assert a == b
