"""The compiled core's rigid engines = the pure-Python reference, bit for bit (issue 15).

For every registered rigid heuristic, priority rule and option (redraw_on_failure, the LJF
secondary rule, classic_easy, persistent_reservations), on seeded random instances and
scenarios, on both engines (the `engine_name` fixture): the fast path ``record=False`` (the C
engine, `heuristics/rigid/compiled.py`, or the Python fast path) gives the makespan of the
engine path ``record=True`` (the Python engine with its attempt log), same value and type.
Instances mix integer times (exact arithmetic, many simultaneous completions) and float times
(the 1e-9 grouping, times within the tolerance of each other included).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from resilsched import engine
from resilsched.heuristics.rigid import (
    PRIORITIES,
    compiled,
    many,
    r_list_0,
    r_list_1,
    r_list_q,
    r_shelf_b,
    r_shelf_nb,
    r_shelffill_b,
    r_shelffill_nb,
)
from resilsched.instances.failures import Scenario
from resilsched.instances.rigid import RigidInstance
from resilsched.registry import get_family

needs_c = pytest.mark.skipif(not engine.available(), reason="compiled core not built")

RESERVING = (r_list_1, r_list_q)
SHELVES = (r_shelf_b, r_shelf_nb, r_shelffill_b, r_shelffill_nb)


def random_case(rng: np.random.Generator, kind: str, n_max: int = 25):
    """An instance and a scenario; kind "int" (exact times), "float", or "near" (float times
    a few ulps to 1e-10 apart: completions grouped by the tolerance)."""
    P = int(rng.integers(1, 40))
    n = int(rng.integers(1, n_max + 1))
    p = rng.integers(1, P + 1, size=n)
    if kind == "int":
        t = [int(x) for x in rng.integers(1, 7, size=n)]
    elif kind == "float":
        t = [float(x) for x in rng.uniform(0.5, 20.0, size=n)]
    else:
        base = rng.choice([1.0, 2.5, 3.0, 1e6], size=n)
        t = [float(b * (1 + d)) for b, d in zip(base, rng.choice([0, 1e-16, 3e-10, 2e-9], n),
                                                 strict=True)]
    f = tuple(int(x) for x in rng.integers(0, 4, size=n))
    inst = RigidInstance.build(P, [(int(a), b) for a, b in zip(p, t, strict=True)])
    return inst, Scenario(f)


def check(fn, inst, sc, priority, **kw):
    ref = fn(inst, sc, priority, record=True, **kw).objective
    fast = fn(inst, sc, priority, record=False, **kw).objective
    assert fast == ref and type(fast) is type(ref), (fn.__name__, priority, kw, fast, ref)


PRIORITY_OPTIONS = [(prio, {"seed": 3}) for prio in PRIORITIES] + [
    ("Random", {"seed": 5, "redraw_on_failure": True}),
    ("LJF", {"ljf_secondary": "SPT"}),
    ("LJF", {"ljf_secondary": "Random", "seed": 7}),
    ("LJF", {"ljf_secondary": "Random", "seed": 7, "redraw_on_failure": True}),
]


@pytest.mark.parametrize("kind", ["int", "float", "near"])
def test_greedy_equals_reference(kind, engine_name):
    rng = np.random.default_rng({"int": 1, "float": 2, "near": 3}[kind])
    for _ in range(12):
        inst, sc = random_case(rng, kind)
        for prio, kw in PRIORITY_OPTIONS:
            check(r_list_0, inst, sc, prio, **kw)


@pytest.mark.parametrize("kind", ["int", "float", "near"])
@pytest.mark.parametrize("fn", RESERVING, ids=lambda f: f.__name__)
def test_reservations_equal_reference(fn, kind, engine_name):
    rng = np.random.default_rng({"int": 4, "float": 5, "near": 6}[kind])
    for _ in range(6):
        inst, sc = random_case(rng, kind, n_max=15)
        for prio, kw in PRIORITY_OPTIONS:
            for classic, persistent in itertools.product((False, True), repeat=2):
                check(fn, inst, sc, prio, classic_easy=classic,
                      persistent_reservations=persistent, **kw)


@pytest.mark.parametrize("kind", ["int", "float", "near"])
@pytest.mark.parametrize("fn", SHELVES, ids=lambda f: f.__name__)
def test_shelves_equal_reference(fn, kind, engine_name):
    rng = np.random.default_rng({"int": 7, "float": 8, "near": 9}[kind])
    for _ in range(10):
        inst, sc = random_case(rng, kind)
        for prio, kw in PRIORITY_OPTIONS:
            check(fn, inst, sc, prio, **kw)


@pytest.mark.parametrize("kind", ["int", "float", "near"])
def test_kept_profile_equals_reference(kind, engine_name):
    """R-LIST-Q's kept profile (decision T14) on longer queues with sparse failures, where whole
    passes reuse the last one and a failure gives back only the queue's tail."""
    rng = np.random.default_rng({"int": 12, "float": 13, "near": 14}[kind])
    for _ in range(4):
        inst, _ = random_case(rng, kind, n_max=70)
        for f in rng.integers(0, 4, size=(3, inst.n)) * (rng.random((3, inst.n)) < 0.15):
            sc = Scenario(tuple(int(x) for x in f))
            for prio, kw in (("LPT", {}), ("Random", {"seed": 2}), ("SPT", {})):
                check(r_list_q, inst, sc, prio, **kw)

def test_many_scenarios_in_one_call_equal_one_at_a_time(engine_name):
    rng = np.random.default_rng(11)
    inst, _ = random_case(rng, "float", n_max=30)
    F = rng.integers(0, 3, size=(9, inst.n))
    seeds = list(range(9))
    entries = get_family("rigid").heuristics.values()  # each with its batch engine
    for h, (prio, kw) in itertools.product(entries, PRIORITY_OPTIONS):
        fn = h.run
        options = {k: v for k, v in kw.items() if k != "seed"}
        if fn in RESERVING:
            options["persistent_reservations"] = True
        one = [fn(inst, Scenario(tuple(int(x) for x in f)), prio, record=False, seed=s,
                  **options).objective for s, f in zip(seeds, F, strict=True)]
        assert many.makespans(h.batch, inst, F, prio, seeds=seeds, **options) == one, (fn, prio)


def test_every_registered_heuristic_names_its_batch_engine():
    for name, h in get_family("rigid").heuristics.items():
        assert isinstance(h.batch, many.Batch) and h.batch.run is h.run, name


@needs_c
def test_exact_times_beyond_two_to_the_53_stay_in_python():
    big = 10**12  # 10,000 attempts of it: 1e16 > 2^53, where doubles stop being exact
    inst = RigidInstance.build(2, [(1, big), (2, big)])
    sc = Scenario((9999, 0))
    assert compiled.makespan(compiled.GREEDY, inst.P, inst.p, inst.t,
                             _queue(inst), sc.failures) is None
    assert r_list_0(inst, sc, record=False).objective == 10001 * big


def _queue(inst):
    from resilsched.heuristics.rigid.priorities import make_queue

    return make_queue(inst.p, inst.t, "LPT", P=inst.P)


def test_fraction_times_stay_in_python():
    from fractions import Fraction

    inst = RigidInstance.build(3, [(2, Fraction(1, 3)), (2, Fraction(2, 3)), (1, 1)])
    sc = Scenario((1, 0, 2))
    for fn in itertools.chain((r_list_0,), RESERVING, SHELVES):
        assert fn(inst, sc, record=False).objective == fn(inst, sc).objective


def test_vectorised_lower_bounds_equal_lower_bound():
    from resilsched.bounds.rigid import lower_bound, lower_bounds

    rng = np.random.default_rng(21)
    for kind in ("int", "float", "near"):
        for _ in range(5):
            inst, _ = random_case(rng, kind)
            F = rng.integers(0, 5, size=(8, inst.n))
            ref = [float(lower_bound(inst, Scenario(tuple(int(x) for x in f)))) for f in F]
            assert lower_bounds(inst, F) == ref
    # integer times and platforms of Mira's size: A / P rounded once (exact areas), and areas
    # past 2^52, where the Fractions are used
    for t_high in (10**5, 10**9):
        for _ in range(5):
            P = int(rng.integers(1000, 50_000))
            jobs = [(int(a), int(b)) for a, b in zip(rng.integers(1, P + 1, size=40),
                                                     rng.integers(1, t_high, size=40),
                                                     strict=True)]
            inst = RigidInstance.build(P, jobs)
            F = rng.integers(0, 300, size=(6, inst.n))
            ref = [float(lower_bound(inst, Scenario(tuple(int(x) for x in f)))) for f in F]
            assert lower_bounds(inst, F) == ref
