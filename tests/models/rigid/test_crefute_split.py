"""The compiled refutation search split between workers (decision R29).

Worker k of K searches the subtrees of the nodes at the split depth whose state hashes to k;
the workers share one memo and only store a failed state whose subtree they searched in full.
Checked against brute force on tiny random scenarios and against the single search (the
oracle, itself equal to the Python search: test_crefute.py) on larger ones: the same verdict
for every target T from below the root bound to the greedy makespan with one memo kept over
the targets, for several worker counts and split depths; each worker alone refutes its part
below the optimum, and some worker meets the optimum. A set `halt` flag stops the search, and
Ctrl-C raises KeyboardInterrupt at once with one thread or several.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from resilsched import engine
from resilsched.instances.failures import Scenario
from resilsched.instances.rigid import RigidInstance
from resilsched.models.rigid import crefute, scale_scenario, solve_scenario
from resilsched.models.rigid.greedy import greedy_upper_bound, makespan_of
from resilsched.models.rigid.refute import CutPool, RefuteMemo, refute_makespan
from resilsched.models.rigid.root_bounds import root_bound
from resilsched.solution import Status
from resilsched.validation import validate_rigid_schedule
from tests.models.rigid.test_refute import _as_schedule
from tests.support.rigid import oracle
from tests.support.rigid.cases import random_scenario, random_tiny

pytestmark = pytest.mark.skipif(not engine.available("_refute"),
                                reason="compiled search not built")


def _random(rng: np.random.Generator) -> tuple[RigidInstance, Scenario]:
    return random_scenario(rng, P=(4, 24), n=(3, 9), t_max=14)


@pytest.mark.parametrize("workers, depth", [(2, 1), (2, 2), (2, 4), (3, 3), (4, 6)])
def test_split_matches_brute_force(workers, depth):
    rng = np.random.default_rng(9500 + 10 * workers + depth)
    for _ in range(40):
        inst, sc = random_tiny(rng)
        opt, _ = oracle.brute_force_makespan(inst.P, [(j.p, j.t) for j in inst.jobs],
                                             sc.failures)
        data = scale_scenario(inst, sc)
        pool = CutPool(data)
        below = refute_makespan(data, opt - 1, 10, pool=pool, engine="c", workers=workers,
                                split_depth=depth)
        assert below.status == "infeasible", (inst, sc, opt)
        at = refute_makespan(data, opt, 10, pool=pool, engine="c", workers=workers,
                             split_depth=depth)
        assert at.status == "feasible" and at.starts is not None, (inst, sc, opt)
        sched = _as_schedule(data, at.starts, sc.failures)
        validate_rigid_schedule(inst, sc, sched)
        assert sched.makespan <= opt
        # each worker alone: refutes its part below the optimum; one of them meets it
        parts = [refute_makespan(data, T, 10, pool=pool, engine="c", workers=workers,
                                 split_depth=depth, only=k)
                 for T in (opt - 1, opt) for k in range(workers)]
        assert all(r.status == "infeasible" for r in parts[:workers])
        assert any(r.status == "feasible" for r in parts[workers:])


@pytest.mark.parametrize("seed", [1, 2])
def test_split_matches_single_search_over_targets(seed):
    """One memo per engine kept from T to T + 1 (as solve_scenario does), LP every 7th node:
    the same verdicts, and a schedule found ends by T."""
    rng = np.random.default_rng(9600 + seed)
    compared = 0
    for _ in range(25):
        inst, sc = _random(rng)
        data = scale_scenario(inst, sc)
        pool = CutPool(data)
        low, high = root_bound(data).value, greedy_upper_bound(data)[0]
        for workers, depth, size in ((2, 3, 10**6), (3, 2, 1000), (2, 5, 10**6)):
            memos = RefuteMemo(data.n), RefuteMemo(data.n, size)
            for T in range(max(0, low - 2), high + 1):
                a = refute_makespan(data, T, 30, 7, pool=pool, engine="c", memo=memos[0])
                b = refute_makespan(data, T, 30, 7, pool=pool, engine="c", memo=memos[1],
                                    workers=workers, split_depth=depth)
                assert "timeout" not in (a.status, b.status)
                assert a.status == b.status, (inst, sc, T, workers, depth)
                if b.starts is not None:
                    assert makespan_of(data, b.starts) <= T
                    validate_rigid_schedule(inst, sc, _as_schedule(data, b.starts,
                                                                   sc.failures))
                compared += 1
    assert compared > 200


def test_halt_flag_stops_the_search():
    rng = np.random.default_rng(9700)
    P = 40
    jobs = [(int(rng.integers(1, P + 1)), int(rng.integers(1, 101))) for _ in range(16)]
    data = scale_scenario(RigidInstance.build(P, jobs), Scenario((1,) * 16))
    pool = CutPool(data)
    T = root_bound(data).value
    for workers in (1, 2):
        res = refute_makespan(data, T, 30, pool=pool, engine="c", workers=workers,
                              halt=ctypes.c_int32(1))
        assert res.status == "timeout" and res.nodes <= 1024 * workers


def test_bad_worker_counts():
    data = scale_scenario(RigidInstance.build(4, [(2, 3), (3, 2)]), Scenario((1, 0)))
    for workers, only in ((0, None), (17, None), (2, 2), (2, -1)):
        with pytest.raises(ValueError, match="workers"):
            refute_makespan(data, 10, 5, engine="c", workers=workers, only=only)


_CTRL_C_CHILD = """
import sys
import threading
from resilsched.instances.failures import Scenario
from resilsched.instances.rigid import RigidInstance
from resilsched.models.rigid import scale_scenario
from resilsched.models.rigid.refute import refute_makespan
jobs = [(16, 56), (3, 99), (33, 51), (9, 44), (17, 79), (12, 65), (31, 21), (30, 52), (8, 2),
        (34, 88), (3, 55), (4, 5), (3, 94), (20, 100), (30, 74), (5, 44), (22, 60), (6, 2),
        (24, 11)]
f = (0, 0, 1, 1, 0, 0, 0, 0, 3, 0, 0, 0, 0, 1, 1, 1, 0, 1, 1)
data = scale_scenario(RigidInstance.build(38, jobs), Scenario(f))
print("start", flush=True)
try:
    refute_makespan(data, 695, 60, engine="c", workers=int(sys.argv[1]),
                    **({"split_depth": int(sys.argv[2])} if len(sys.argv) > 2 else {}))
except KeyboardInterrupt:
    print("interrupted", flush=True)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("workers", [[1], [2], [16, 1]], ids=["1", "2", "16-depth1"])
def test_ctrl_c_interrupts_the_search(workers):
    """Uniform case 11 of the benchmark (less its isolated job): D(695) runs for minutes;
    SIGINT raises KeyboardInterrupt within a second, with one thread or two, and with 16 split
    at depth 1, where the calling thread's worker refutes its part in ~25 ms and worker 14
    searches for minutes (the calling thread must keep looking for Ctrl-C while it waits)."""
    child = subprocess.Popen([sys.executable, "-c", _CTRL_C_CHILD, *map(str, workers)],
                             stdout=subprocess.PIPE, text=True,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "start"
        time.sleep(0.3)
        child.send_signal(signal.SIGINT)
        t0 = time.monotonic()
        out, _ = child.communicate(timeout=30)
        assert out.strip() == "interrupted" and time.monotonic() - t0 < 5
    finally:
        child.kill()
        child.wait()


def test_solve_scenario_with_many_workers():
    """`solve_scenario` hands its `workers` to the search (at most crefute.MAX_WORKERS): the
    search alone (CP-SAT gets no time) proves the brute-force optima with 3 and 40 workers."""
    rng = np.random.default_rng(9800)
    searched = 0
    for _ in range(12):
        inst, sc = random_tiny(rng)
        opt, _ = oracle.brute_force_makespan(inst.P, [(j.p, j.t) for j in inst.jobs],
                                             sc.failures)
        for workers in (3, 40):
            sol = solve_scenario(inst, sc, time_limit=10, workers=workers, refute_share=1.0)
            assert sol.status is Status.OPTIMAL and sol.objective == opt == sol.bound
            searched += sol.solver == "cp-sat+refute"
    assert searched > 0


@pytest.mark.skipif(sys.platform == "win32" or threading.current_thread()
                    is not threading.main_thread(), reason="POSIX signals, main thread")
def test_ctrl_c_during_the_search_sets_halt_instead_of_raising():
    """While the C search runs, Ctrl-C sets the halt flag (so it cannot be swallowed at the
    start of the LP callback) and is raised after; the default handler is put back. (Python's
    handler is installed first: a test run started in the background by a non-interactive
    shell inherits SIGINT ignored, and the search then leaves SIGINT alone.)"""
    stop = ctypes.c_int32(0)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with crefute._ctrl_c_halts(stop) as seen:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)  # the handler runs between bytecodes of this thread
        assert stop.value == 1 and seen
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, previous)


@pytest.mark.skipif(sys.platform == "win32" or threading.current_thread()
                    is not threading.main_thread(), reason="POSIX signals, main thread")
def test_an_ignored_ctrl_c_is_left_ignored():
    """Where SIGINT is ignored (a background job), the search does not take it over."""
    stop = ctypes.c_int32(0)
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with crefute._ctrl_c_halts(stop) as seen:
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)
        assert stop.value == 0 and not seen
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, previous)
