"""The static bound and its schedule (issue 23; `resilsched.bounds.worksharing_static`,
`resilsched.models.worksharing.static_types`).

The bound is checked against what it claims (V(phi_c) = v(c) by enumeration, the chunk program
against a quadratic dynamic program and against random chunk sequences), never below a proven
optimum (the shipped library, Theorem 4, Theorem 7, the disjoint optima) nor below any schedule
(random static schedules evaluated by the independent validator, the heuristics), and its
schedule is checked by the validator and by Monte Carlo.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from resilsched import engine
from resilsched.bounds.worksharing import omniscient_bound, static_bound
from resilsched.bounds.worksharing_static import (
    EXTENSION,
    chunk_dp,
    chunk_dp_python,
    price,
    static_dual,
    v_of,
)
from resilsched.heuristics.worksharing.one_worker import thm4_charged_linear
from resilsched.instances.worksharing import LinearRisk, WorksharingInstance
from resilsched.instances.worksharing.evaluate import IntervalSchedule, monte_carlo
from resilsched.library.catalog import find
from resilsched.models.worksharing.solve import solve
from resilsched.models.worksharing.static_types import static_schedule
from resilsched.models.worksharing.two_worker import thm7_value
from resilsched.solution import Status
from resilsched.validation.worksharing import (
    expected_work_of,
    validate_worksharing_schedule,
)
from tests.support.worksharing.helpers import FAMILY

#: cheap grids for the many bounds computed here (every grid gives a valid bound)
QUICK = {"search_cells": 500, "final_cells": 4000}


def _bound(W, p, X, eps):
    return static_dual(W, p, X, eps, **QUICK).value


@pytest.mark.parametrize("c", [1e-4, 0.05, 0.13, 0.5, 0.9, 1.0])
def test_V_of_the_prices_is_v_of_c_by_enumeration(c):
    """sup over multisets of 1 - prod min(1, s) - sum phi_c(s) = v(c), attained at prod = c."""
    grid = np.concatenate([np.linspace(1e-3, 1.2, 60), [c, math.sqrt(c)]])
    phi = price(grid, c)
    best = -math.inf
    for g in range(1, 4):
        for items in itertools.combinations_with_replacement(range(len(grid)), g):
            idx = list(items)
            value = 1 - np.prod(np.minimum(1, grid[idx])) - phi[idx].sum()
            best = max(best, value)
    assert best <= v_of(c) + 1e-12
    assert best >= v_of(c) - 1e-12  # the single item at s = c attains it


def _quadratic_dp(prices, ends, eps):
    best = np.full(len(prices), -np.inf)
    for k in range(len(prices)):
        cand = prices[k] * (ends[k] - eps) if ends[k] >= eps else -np.inf
        for j in range(k):
            gap = ends[k] - ends[j] - eps
            if gap >= 0 and best[j] > -np.inf:
                cand = max(cand, best[j] + prices[k] * gap)
        best[k] = cand
    return max(0.0, float(best.max())) if len(prices) else 0.0


@pytest.mark.parametrize("seed", range(300))
def test_chunk_dp_equals_the_quadratic_program(seed):
    rng = np.random.default_rng([23, seed])
    K = int(rng.integers(1, 25))
    ends = np.cumsum(rng.uniform(0.01, 1, K)) if seed % 2 else (np.arange(K) + 1) / K
    prices = np.sort(rng.uniform(0, 1, K))[::-1]
    if seed % 3 == 0:
        prices = np.round(prices, 1)  # ties
    eps = float(rng.choice([0.0, 0.01, 0.1, 0.3, rng.uniform(0, 1)]))
    path = chunk_dp(prices, ends, eps)
    assert path.value == pytest.approx(_quadratic_dp(prices, ends, eps), abs=1e-12)
    value, last = 0.0, 0.0
    for k in path.cells:  # the path is a chunk sequence worth the value
        assert ends[k] - last - eps >= -1e-12
        value += prices[k] * (ends[k] - last - eps)
        last = ends[k]
    assert value == pytest.approx(path.value, abs=1e-12)


@pytest.mark.parametrize("seed", range(60))
def test_chunk_dp_is_the_same_on_both_engines(engine_name, seed):
    """The C twin (decision WS-21) returns the Python program's value and cells bit for bit:
    random programs with ties, and the step prices the bound computes."""
    rng = np.random.default_rng([21, seed])
    if seed % 2:
        K = int(rng.integers(0, 400))
        ends = np.cumsum(rng.uniform(0.001, 1, K))
        prices = np.sort(np.round(rng.uniform(0, 1, K), int(rng.integers(1, 4))))[::-1]
        eps = float(rng.choice([0.0, 0.01, rng.uniform(0, 2)]))
    else:
        cells = int(rng.integers(1, 5000))
        left = np.arange(cells) / cells
        prices, ends = price(left, float(rng.uniform(1e-5, 1))), left + 1 / cells
        eps = float(rng.choice([0.0, 1e-4, 1e-3, 0.05]))
    assert chunk_dp(prices, ends, eps) == chunk_dp_python(prices, ends, eps)
    if engine_name == "python":
        assert engine.library(EXTENSION) is None


def test_chunk_dp_refuses_ends_that_do_not_match_the_prices(engine_name):
    with pytest.raises((ValueError, IndexError)):
        chunk_dp(np.array([1.0, 0.5, 0.2]), np.array([1.0, 2.0]), 0.1)


@pytest.mark.parametrize("c, eps", [(0.13, 0.001), (0.5, 0.02), (1.0, 0.1), (0.05, 0.0)])
def test_the_step_prices_bound_every_chunk_sequence(c, eps):
    """M(phi_c) <= the chunk program on step prices: random continuous chunk sequences."""
    cells = 2000
    left = np.arange(cells) / cells
    M = chunk_dp(price(left, c), left + 1 / cells, eps).value
    rng = np.random.default_rng(7)
    for _ in range(300):
        sizes = rng.exponential(rng.uniform(0.005, 0.3), int(rng.integers(1, 60)))
        ends = np.cumsum(sizes + eps)
        assert float(np.sum(sizes * price(ends, c))) <= M + 1e-12


def test_the_bound_is_never_below_a_proven_optimum_of_the_library():
    (lib,) = find("worksharing-small")
    proven = 0
    for entry in lib.entries():
        inst = FAMILY.from_dict(entry.data)
        meta = entry.data["metadata"]
        if meta.get("optimum") is None:
            continue
        proven += 1
        assert _bound(inst.W, inst.workers, inst.risk.X, inst.eps) >= meta["optimum"] - 1e-12
    assert proven >= 90


@pytest.mark.parametrize("W, X, eps", [(0.3, 1.0, 0.01), (1.0, 1.0, 0.001), (2.0, 1.0, 0.05),
                                       (0.5, 2.0, 0.02), (5.0, 0.7, 0.1)])
def test_one_worker_theorem4_optimum(W, X, eps):
    opt = thm4_charged_linear(W, X, eps).expected
    bound = _bound(W, 1, X, eps)
    assert bound >= opt - 1e-12
    if W >= X:  # the whole horizon is worth deploying: c = 1 prices the one-worker problem
        assert bound <= opt * 1.002


@pytest.mark.parametrize("W", [0.2, 0.5, 0.8, 1.3, 2.5])
def test_two_worker_theorem7_optimum(W):
    # free initiation, one chunk each: the bound ignores the cap on chunks (it is a relaxation)
    assert _bound(W, 2, 1.0, 0.0) >= thm7_value(W, 1.0) - 1e-12


@pytest.mark.parametrize("p, eps", [(2, 0.01), (3, 0.001), (5, 0.05)])
def test_disjoint_optima_are_met(p, eps):
    inst = WorksharingInstance(float(p), p, LinearRisk(1.0), eps)
    sol = solve(inst, time_limit=10, certify=False)
    assert sol.status is Status.OPTIMAL
    bound = _bound(inst.W, p, 1.0, eps)
    assert sol.objective - 1e-12 <= bound <= sol.objective * 1.002


def _random_schedule(rng, W, p):
    """Random static chunks: each worker cuts random intervals of [0, W] into chunks."""
    workers = []
    for _ in range(p):
        chunks = []
        for _ in range(int(rng.integers(1, 8))):
            a = float(rng.uniform(0, W))
            b = float(min(W, a + rng.exponential(0.3 * W)))
            chunks.append([(a, b)])
        workers.append(chunks)
    return IntervalSchedule(W, workers).to_pieces()


@pytest.mark.parametrize("seed", range(40))
def test_the_bound_holds_for_random_schedules(seed):
    rng = np.random.default_rng([2323, seed])
    p = int(rng.integers(2, 6))
    W = float(rng.uniform(0.3, 1.5) * p)
    X = float(rng.uniform(0.5, 2.0))
    eps = float(rng.choice([0.0, 0.01, 0.05]))
    bound = _bound(W, p, X, eps)
    for _ in range(20):
        sched = _random_schedule(rng, W, p)
        E = expected_work_of(sched.to_dict(), LinearRisk(X), eps)  # the independent evaluator
        assert E <= bound + 1e-9


@pytest.mark.parametrize("W, p, eps", [(2.0, 3, 0.01), (10.0, 25, 0.001), (7.0, 10, 0.01)])
def test_the_bound_holds_for_every_heuristic_and_is_tighter_than_omniscient(W, p, eps):
    inst = WorksharingInstance(W, p, LinearRisk(1.0), eps)
    bound = static_bound(inst)
    assert bound <= omniscient_bound(inst) + 1e-12
    for name, h in FAMILY.heuristics.items():
        assert h.run(inst).objective <= bound + 1e-9, name


@pytest.mark.parametrize("W, p, eps", [(3.0, 4, 0.02), (10.0, 25, 0.001), (18.0, 25, 0.001)])
def test_the_static_schedule_is_valid_and_meets_the_bound(W, p, eps):
    risk = LinearRisk(1.0)
    inst = WorksharingInstance(W, p, risk, eps)
    dual = static_dual(W, p, 1.0, eps)
    out = static_schedule(W, p, risk, eps, dual.chunk_ends)
    assert out is not None and out.converged
    validate_worksharing_schedule(inst, out.schedule, out.expected)
    assert out.expected >= out.lp_value - 1e-9  # chunks end no later than the LP's times
    assert out.expected <= dual.value + 1e-9
    assert dual.value / out.expected - 1 < 0.005
    mean, se = monte_carlo(out.schedule, risk, eps, 4000, np.random.default_rng(5))
    assert abs(mean - out.expected) <= 4 * se + 1e-9


def test_certified_model_answers_with_the_static_schedule_and_bound():
    inst = WorksharingInstance(12.0, 25, LinearRisk(1.0), 0.001)
    sol = solve(inst, time_limit=30)
    assert sol.payload.model == "static-types"
    validate_worksharing_schedule(inst, sol.payload.schedule, sol.objective)
    greedy = FAMILY.heuristics["greedy"].run(inst).objective
    assert sol.objective >= greedy
    assert sol.bound / sol.objective - 1 < 0.005
    assert sol.bound < omniscient_bound(inst)
