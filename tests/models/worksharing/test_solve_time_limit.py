"""The exact models' time limit bounds the whole call, with honest status and bounds
(docs/architecture.md contract 2; spec 003 §2, §7).

Tiny epsilons are the hard case: Theorem 4's optimum has ~sqrt(2X/eps) chunks (1.4 million at
eps = 1e-12), the chunk-count searches reach their cap of 4000, and before the deadline was
threaded through every phase a call with a 2 s limit took 33 s and more.
"""

import json
import time

import pytest

from resilsched.bounds.worksharing import omniscient_bound
from resilsched.heuristics.worksharing.one_worker import thm4_charged_linear
from resilsched.instances.worksharing import ExponentialRisk, LinearRisk, WorksharingInstance
from resilsched.models.worksharing.solve import solve, solve_qp_one_worker
from resilsched.solution import Status

LIMIT = 0.4
ALLOWED = 1.25 * LIMIT + 1.0
LIN = LinearRisk(1.0)

LARGE = [
    ("p1-eps1e-12", WorksharingInstance(1.0, 1, LIN, 1e-12)),
    ("p2-eps1e-12", WorksharingInstance(1.5, 2, LIN, 1e-12)),
    ("p5-eps1e-12", WorksharingInstance(3.0, 5, LIN, 1e-12)),
    ("p100-eps1e-12", WorksharingInstance(5.0, 100, LIN, 1e-12)),
    ("p300-W150", WorksharingInstance(150.0, 300, LIN, 1e-3)),
    ("p1000-W3.3", WorksharingInstance(3.3, 1000, LIN, 1e-3)),
    ("p8-exp-eps1e-12", WorksharingInstance(2.0, 8, ExponentialRisk(1.0), 1e-12)),
]


def timed(fn, *args, **kwargs):
    t0 = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - t0


@pytest.mark.parametrize("name, inst", LARGE, ids=[n for n, _ in LARGE])
def test_certified_returns_within_the_limit_with_an_honest_answer(name, inst):
    sol, elapsed = timed(solve, inst, time_limit=LIMIT)
    assert elapsed <= ALLOWED, (name, elapsed, sol.info)
    assert sol.wall_time <= elapsed + 1e-6 and sol.wall_time >= elapsed - 0.1  # honest time
    assert sol.objective <= sol.bound + 1e-9
    json.dumps(sol.to_dict())  # the payload serialises (and is of bounded size)
    entries = sum(len(w) for w in sol.payload.to_dict()["schedule"]["workers"])
    assert entries <= 5_000 * LIMIT  # printable in time (max_entries)


def test_a_capped_optimum_is_feasible_with_the_optimum_as_bound():
    inst = WorksharingInstance(1.0, 1, LIN, 1e-12)
    opt = thm4_charged_linear(1.0, 1.0, 1e-12)
    # the optimum has 1.4 million chunks: not returned; the QP certificate runs until the limit
    sol = solve(inst, time_limit=LIMIT)  # 2,000 chunks returned: the floor of max_entries
    assert sol.status is Status.FEASIBLE
    assert sol.payload.facts["capped_from"] == opt.info["m"]
    assert abs(sol.bound - opt.expected) < 1e-12
    assert sol.payload.facts["m"] == 2_000
    assert abs(sol.objective - thm4_charged_linear(1.0, 1.0, 1e-12, 2_000).expected) < 1e-12
    assert opt.expected - sol.objective < 3e-4
    # 5,000 chunks per second of limit above the floor: 10^4 at 2 s (without the certificate,
    # which does not change the schedule, the call does not wait out the limit)
    wide = solve(inst, time_limit=2.0, certify=False)
    assert wide.status is Status.FEASIBLE and wide.payload.facts["m"] == 10_000
    assert wide.payload.facts["capped_from"] == opt.info["m"]
    assert abs(wide.bound - opt.expected) < 1e-12
    assert opt.expected - wide.objective < 1e-4
    # the best schedule with at most max_entries chunks is Theorem 4 with n = max_entries
    small = solve(inst, time_limit=LIMIT, max_entries=50, certify=False)
    assert abs(small.objective - thm4_charged_linear(1.0, 1.0, 1e-12, 50).expected) < 1e-12
    # with room for the whole optimum, it is proven
    room = WorksharingInstance(1.0, 1, LIN, 1e-4)
    assert solve(room, time_limit=LIMIT).status is Status.OPTIMAL


def test_qp_one_worker_is_optimal_only_when_it_covered_every_useful_count():
    tiny = WorksharingInstance(1.0, 1, LIN, 1e-12)
    sol, elapsed = timed(solve_qp_one_worker, tiny, time_limit=LIMIT)
    assert elapsed <= ALLOWED
    assert sol.status is Status.FEASIBLE  # 200 chunk counts cannot reach the optimum's 1.4e6
    assert sol.bound >= thm4_charged_linear(1.0, 1.0, 1e-12).expected - 1e-12
    capped = WorksharingInstance(1.0, 1, LIN, 1e-3, max_chunks=5)
    sol = solve_qp_one_worker(capped, time_limit=10.0)
    assert sol.status is Status.OPTIMAL
    assert abs(sol.objective - thm4_charged_linear(1.0, 1.0, 1e-3, 5).expected) < 1e-7
    horizon = WorksharingInstance(1.0, 1, LIN, 0.3)  # m eps <= X: at most 3 useful chunks
    assert solve_qp_one_worker(horizon, time_limit=10.0).status is Status.OPTIMAL


def test_the_phases_cut_by_the_limit_are_reported():
    sol = solve(WorksharingInstance(1.0, 1, LIN, 1e-12), time_limit=0.5)
    assert "qp certificate" in sol.info.get("stopped_by_time_limit", [])
    assert sol.payload.facts["certified_up_to_m"] < 200
    assert set(sol.info["phases"]) >= {"closed form"}


def test_deterministic_runs_repeat():
    inst = WorksharingInstance(3.0, 5, LIN, 1e-9)
    a = solve(inst, time_limit=0.5, deterministic=True)
    b = solve(inst, time_limit=0.5, deterministic=True)
    assert a.objective == b.objective and a.payload.to_dict() == b.payload.to_dict()
    one = WorksharingInstance(1.0, 1, LIN, 1e-9)
    a = solve(one, time_limit=0.5, deterministic=True)
    b = solve(one, time_limit=0.5, deterministic=True)
    assert a.payload.facts["certified_up_to_m"] == b.payload.facts["certified_up_to_m"]


def test_bounds_of_large_instances_are_cheap_and_valid():
    inst = WorksharingInstance(150.0, 300, LIN, 1e-3)
    ub, elapsed = timed(omniscient_bound, inst)
    assert elapsed < 2.0 and inst.W * 0.9 < ub <= inst.W  # the discretised bound, not Fractions
