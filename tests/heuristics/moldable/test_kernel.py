"""The compiled core's moldable engines = the pure-Python reference, bit for bit (issue 15).

LIST (``csrc/core/moldable_list.c``) against `_kernel.list_run_py` on random inputs with
per-attempt columns, caps and many simultaneous completions, one scenario per call and S per
call; MT-ALLOTMENT (``csrc/core/moldable_batch.c``) against `MTAllotment.search` (allocations,
X and the number of DP calls) on the paper's six models; BATCH-LIST's fast path against its
pure-Python twin and the engine path (`batch_list`), every priority and attempt order;
`Simulator.makespans` against one scenario at a time in Python, on both engines (the
`engine_name` fixture).
"""

from __future__ import annotations

import numpy as np
import pytest

from resilsched import engine
from resilsched.heuristics.moldable import Simulator, _kernel, batch_list, lpa, minarea
from resilsched.heuristics.moldable.mt_allotment import MTAllotment
from resilsched.instances.failures import Scenario
from resilsched.instances.moldable.generators import PAPER_MODELS, paper_instance
from resilsched.registry import get_family

needs_c = pytest.mark.skipif(not engine.available(), reason="compiled core not built")


@needs_c
@pytest.mark.parametrize("seed", range(8))
def test_list_runs_equal_python_one_and_many_per_call(seed):
    rng = np.random.default_rng(100 + seed)
    n, P, G = int(rng.integers(1, 80)), int(rng.integers(1, 50)), int(rng.integers(1, 5))
    alloc = rng.integers(1, P + 1, size=(n, G))
    dur = rng.integers(1, 6, size=(n, G)).astype(float) / 3  # ties and near-ties
    key = [dur, alloc.astype(float), dur * alloc][seed % 3]
    cap = rng.integers(0, 3, size=n) if seed % 2 else np.zeros(n, dtype=np.int64)
    jobs = np.sort(rng.choice(n, size=max(1, n - 3), replace=False))
    F = rng.integers(0, 4, size=(6, n))
    ref = [_kernel.list_run_py(P, dur, alloc, key, f, cap, jobs) for f in F]
    for f, (ms, done) in zip(F, ref, strict=True):
        c_ms, c_done = _kernel.list_run(P, dur, alloc, key, f, cap, jobs, use_c=True)
        assert c_ms == ms and c_done[jobs].tolist() == done[jobs].tolist()
    many = _kernel.list_runs(P, dur, alloc, key, F, cap, jobs)
    assert many.tolist() == [ms for ms, _ in ref]


@needs_c
@pytest.mark.parametrize("model", PAPER_MODELS)
def test_mt_allotment_equals_python(model):
    rng = np.random.default_rng(PAPER_MODELS.index(model))
    inst = paper_instance(model, rng, n=40, P=300)
    for eps, slack in ((0.3, 1.1), (0.5, 1.0)):
        mt = MTAllotment(inst, eps, 0.03, slack)
        for g in (1, 2, 4, 8):
            jobs = sorted(rng.choice(inst.n, size=int(rng.integers(1, inst.n)),
                                     replace=False).tolist())
            c, py = mt.solve(jobs, g, use_c=True), mt.solve(jobs, g, use_c=False)
            assert np.array_equal(c.alloc, py.alloc)
            assert (c.X, c.calls, c.L) == (py.X, py.calls, py.L)


@needs_c
@pytest.mark.parametrize("priority", ["LPT", "HPA", "LA"])
@pytest.mark.parametrize("order", ["desc_p", "asc_p", "dp_order", "first_only"])
def test_batch_list_core_equals_reference(priority, order):
    inst = paper_instance("mix", 5, n=25, P=60)
    rng = np.random.default_rng(len(order))
    for _ in range(3):
        f = rng.integers(0, 6, size=inst.n)
        ref = batch_list(inst, Scenario(tuple(int(x) for x in f)), priority,
                         attempt_order=order).objective
        fast = Simulator(inst, attempt_order=order).batch_makespan(f, priority)
        with engine.use("python"):
            py = Simulator(inst, attempt_order=order).batch_makespan(f, priority)
        assert fast == ref == py


def test_simulator_makespans_equal_one_at_a_time(engine_name):
    inst = paper_instance("amdahl", 2, n=60, P=400)
    F = np.random.default_rng(3).integers(0, 3, size=(7, inst.n))
    sim = Simulator(inst)
    for rule in (lpa, minarea):
        for priority in ("LPT", "HPA", "LA"):
            one = [sim.makespan(f, rule, priority, use_c=False) for f in F]
            assert sim.makespans(F, rule, priority).tolist() == one


def test_registered_batch_engines_give_the_heuristics_makespans(engine_name):
    """A fixed-allocation heuristic's registry entry names its allocation rule: the
    `Simulator.makespans` of that rule are the heuristic's own makespans, bit for bit."""
    inst = paper_instance("mix", 4, n=30, P=200)
    F = np.random.default_rng(5).integers(0, 3, size=(4, inst.n))
    sim = Simulator(inst)
    batched = [h for h in get_family("moldable").heuristics.values() if h.batch is not None]
    assert {h.name for h in batched} == {"LPA-LIST", "LPA-PROOF", "MINTIME", "MINAREA"}
    for h in batched:
        for priority in ("LPT", "HPA"):
            one = [h.run(inst, Scenario(tuple(int(x) for x in f)), priority).objective
                   for f in F]
            assert sim.makespans(F, h.batch, priority).tolist() == one, (h.name, priority)


@needs_c
@pytest.mark.parametrize("seed", range(4))
def test_list_runs_equal_python_with_many_running_and_near_ties(seed):
    """Deep queue index (n up to 3000: 4 levels of 8) and event tree (hundreds of attempts
    running: its slots double several times), ends equal or within the float tolerance of
    each other but not equal (grouped completions read off the tree before its replay)."""
    rng = np.random.default_rng(200 + seed)
    n, G = int(rng.integers(600, 3000)), int(rng.integers(1, 3))
    P = int(rng.integers(300, 2000))
    alloc = rng.integers(1, 4, size=(n, G)) if seed % 2 else rng.integers(1, P // 3, size=(n, G))
    base = rng.integers(1, 40, size=(n, G)).astype(float) * 1000.0
    jitter = rng.integers(-2, 3, size=(n, G)) * base * 3e-10  # inside the 1e-9 tolerance
    dur = base + jitter
    key = [dur, alloc.astype(float), dur * alloc][seed % 3]
    cap = rng.integers(0, 3, size=n) if seed % 2 else np.zeros(n, dtype=np.int64)
    jobs = np.arange(n, dtype=np.int64)
    F = rng.integers(0, 3, size=(3, n))
    ref = [_kernel.list_run_py(P, dur, alloc, key, f, cap, jobs) for f in F]
    for f, (ms, done) in zip(F, ref, strict=True):
        c_ms, c_done = _kernel.list_run(P, dur, alloc, key, f, cap, jobs, use_c=True)
        assert c_ms == ms and c_done.tolist() == done.tolist()
    assert _kernel.list_runs(P, dur, alloc, key, F, cap, jobs).tolist() == [ms for ms, _ in ref]


@needs_c
def test_list_run_zero_durations_and_empty_job_list():
    dur = np.array([[0.0], [2.0], [0.0]])
    alloc = np.array([[2], [1], [3]])
    jobs = np.arange(3, dtype=np.int64)
    for f in ([0, 0, 0], [2, 1, 3]):
        f = np.array(f)
        c = _kernel.list_run(3, dur, alloc, dur, f, np.zeros(3, dtype=np.int64), jobs, use_c=True)
        py = _kernel.list_run_py(3, dur, alloc, dur, f, np.zeros(3, dtype=np.int64), jobs)
        assert c[0] == py[0] and c[1].tolist() == py[1].tolist()
    none = np.zeros(0, dtype=np.int64)
    assert _kernel.list_run(3, dur, alloc, dur, np.zeros(3), np.zeros(3), none, use_c=True)[0] == 0


@needs_c
@pytest.mark.parametrize(("dur", "P", "message"), [
    (-1.0, 4, "durations must be >= 0"), (float("nan"), 4, "durations must be >= 0"),
    (1.0, 2**53, "P must be"),
])
def test_list_run_rejects_what_the_engine_cannot_order(dur, P, message):
    d = np.array([[1.0], [dur]])
    alloc = np.ones((2, 1), dtype=np.int64)
    with pytest.raises(ValueError, match=message):
        _kernel.list_run(P, d, alloc, d, np.zeros(2), np.zeros(2), np.arange(2), use_c=True)
