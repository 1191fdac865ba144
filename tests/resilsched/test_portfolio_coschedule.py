"""The co-scheduling side of ``resilsched solve``'s portfolio (decision C29): the model picked
by size, warm starts (``hint``), the large-neighbourhood search of ``setpart-cg`` checked
against brute force and the enumeration's optima, the native pool against numpy, and the
streaming hard limit."""

from __future__ import annotations

import itertools
import json
import os
import time

import numpy as np
import pytest

from resilsched import engine
from resilsched.deadline import Deadline
from resilsched.errors import InvalidInstance
from resilsched.heuristics.coschedule import make_packs
from resilsched.instances.coschedule import random_instance
from resilsched.models.coschedule import _cclosure
from resilsched.models.coschedule.enumeration import solve_enumeration
from resilsched.models.coschedule.hardlimit import run_streaming
from resilsched.models.coschedule.setpart.colgen import closure_search
from resilsched.models.coschedule.setpart.colgen import lns as L
from resilsched.models.coschedule.setpart.colgen.closure_rounds import cut_duals
from resilsched.models.coschedule.setpart.colgen.solve import solve_setpart_cg
from resilsched.models.coschedule.setpart.pool import build_pool
from resilsched.registry import get_family
from resilsched.solution import Status
from resilsched.validation.packs import check_packs
from tests.support.coschedule.helpers import opt, root, tiny

FAM = get_family("coschedule")
needs_search = pytest.mark.skipif(not closure_search.available(16), reason="needs the C kernels")


def test_streaming_keeps_what_was_sent_before_the_kill():
    def slowly():
        yield 1
        yield 2
        time.sleep(30)
        yield 3

    t0 = time.perf_counter()
    items, finished = run_streaming(slowly, 0.5)
    assert (items, finished) == ([1, 2], hasattr(os, "fork") is False)
    assert time.perf_counter() - t0 < 1.5
    assert run_streaming(lambda: iter(range(3)), 5) == ([0, 1, 2], True)
    assert run_streaming(lambda: iter([os.getpid()]), float("inf")) == ([os.getpid()], True)

    def failing():
        yield 1
        raise ZeroDivisionError

    with pytest.raises(ZeroDivisionError):
        run_streaming(failing, 5)


def test_the_model_is_picked_by_the_size_of_the_pool():
    assert FAM.choose_exact(random_instance(0, 100, 16, 3, kind="amdahl")) == "setpart-cg"
    assert FAM.choose_exact(random_instance(0, 40, 16, 16, kind="amdahl")) == "setpart-bp"


def test_default_solve_handles_p_in_p(run, tmp_path):
    """Issue 21 §7 / 23: ``solve`` refused k = p = 16, n = 40 ("packs > max_pool")."""
    path = tmp_path / "pinp.json"
    path.write_text(json.dumps(random_instance(0, 40, 16, 16, kind="amdahl").to_dict()))
    code, out, err = run("solve", path, "--json", "-q", "--time-limit", "20")
    assert code == 0, err
    d = json.loads(out)
    assert d["method"] == "setpart-bp" and d["status"] in ("optimal", "feasible")
    assert d["objective_source"] and d["bound_source"] and d["wall_time"] <= 26.0
    code, _, err = run("solve", path, "--method", "setpart-cg", "-q")
    assert code == 2 and "max_pool" in err  # the explicit pool alone still refuses


@pytest.mark.parametrize("method", ["setpart-cg", "setpart-bp", "setpart-full"])
def test_a_hint_is_the_first_incumbent(method):
    inst = tiny(3, 10, 6, 3)
    best = solve_enumeration(inst).payload
    sol = FAM.exact[method].solve(inst, hint=best, time_limit=20)
    assert sol.info["heuristic_ub"] == best.makespan and sol.objective == best.makespan
    other = tiny(4, 10, 6, 3)
    with pytest.raises(InvalidInstance, match="^hint: is not a co-schedule"):
        FAM.exact[method].solve(other, hint=best, time_limit=20)
    with pytest.raises(InvalidInstance, match="^hint"):
        FAM.exact[method].solve(inst, hint={"packs": [{"tasks": [0]}]}, time_limit=20)


def _partitions(tasks: tuple[int, ...], packs: set[tuple[int, ...]]):
    """Every partition of `tasks` into members of `packs` (brute force)."""
    if not tasks:
        yield []
        return
    first, rest = tasks[0], tasks[1:]
    for size in range(len(rest) + 1):
        for others in itertools.combinations(rest, size):
            pack = (first, *others)
            if pack in packs:
                left = tuple(t for t in rest if t not in others)
                for tail in _partitions(left, packs):
                    yield [pack, *tail]


@needs_search
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_move_finds_the_cheapest_partition_of_its_tasks(seed):
    """The sub-problem's duals keep the search exact: against brute force over every partition
    of the freed tasks, and the Lagrangian identity cost >= D_F + sum rc on each of them."""
    inst = tiny(seed, 12, 6, 3, kind="amdahl")
    pool, master, cg = root(inst)
    duals = cut_duals(inst, cg, master)
    index = L.PackIndex(pool, cg.rcs, np.inf)
    rng = np.random.default_rng(seed)
    tasks = np.sort(rng.choice(inst.n, size=9, replace=False))
    packs = {tuple(int(x) for x in row): c for s in pool.packs
             for row, c in zip(pool.packs[s].tolist(), pool.costs[s].tolist(), strict=True)}
    inside = {b: c for b, c in packs.items() if set(b) <= set(tasks.tolist())}
    costs = [sum(inside[b] for b in y) for y in _partitions(tuple(tasks.tolist()), set(inside))]
    rc = {b: c - float(cg.pi[list(b)].sum()) - cg.mu
          - sum(float(duals.sigma[q]) for q in master.cuts.cuts_of(b)) for b, c in inside.items()}
    least = -(-len(tasks) // inst.k)
    hits = [q for q, t in enumerate(duals.triples) if len(set(t) & set(tasks.tolist())) >= 2]
    dual = float(cg.pi[tasks].sum()) + cg.mu * least + float(duals.sigma[hits].sum())
    for y in _partitions(tuple(tasks.tolist()), set(inside)):
        assert sum(inside[b] for b in y) >= dual + sum(rc[b] for b in y) - 1e-7
    triples = np.array(duals.triples, dtype=np.int64).reshape(-1, 3)
    found = L._move(index, duals, cg.pi, triples, np.asarray(duals.sigma), tasks,
                    min(costs) + 1.0, Deadline(None), inst.k)
    assert found is not None and sorted(i for b in found for i in b) == tasks.tolist()
    assert sum(inside[b] for b in found) == pytest.approx(min(costs), abs=1e-9)
    assert L._move(index, duals, cg.pi, triples, np.asarray(duals.sigma), tasks,
                   min(costs) - 1e-6, Deadline(None), inst.k) is None


@needs_search
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_the_search_never_beats_the_optimum_and_never_worsens(seed):
    inst = tiny(seed, 14, 8, 3)
    pool, master, cg = root(inst)
    duals = cut_duals(inst, cg, master)
    start = make_packs(inst, [(i,) for i in range(inst.n)])

    def rc_of(pack, cost):
        return cost - float(cg.pi[list(pack)].sum()) - cg.mu - sum(
            float(duals.sigma[q]) for q in master.cuts.cuts_of(pack))

    found = L.lns(inst, L.PackIndex(pool, cg.rcs, np.inf), duals, cg.pi, rc_of,
                  L.neighbours(inst.n, master.support()), start, Deadline(10.0), seed)
    assert check_packs(inst, found) == found.makespan
    assert opt(inst) <= found.makespan < start.makespan


@needs_search
@pytest.mark.parametrize("seed", [0, 1])
def test_setpart_cg_proves_the_same_optimum_with_and_without_it(seed):
    inst = random_instance(seed, 30, 16, 3, kind="amdahl")
    on = solve_setpart_cg(inst, time_limit=30)
    off = solve_setpart_cg(inst, time_limit=30, lns=False)
    assert on.status is off.status is Status.OPTIMAL
    assert on.objective == pytest.approx(off.objective, rel=1e-9)


@pytest.mark.skipif(_cclosure.lib() is None, reason="needs the C kernels")
@pytest.mark.parametrize("seed, n, p, k, kind, pmin", [
    (0, 30, 16, 3, "amdahl", False), (1, 20, 8, 4, "integer", True),
    (2, 12, 6, 2, "synthetic", False), (3, 9, 5, 5, "integer", True)])
def test_the_native_pool_is_the_numpy_pool(seed, n, p, k, kind, pmin):
    inst = tiny(seed, n, p, k, kind=kind, pmin=pmin)
    native = build_pool(inst, Deadline(60.0))
    with engine.use("python"):
        reference = build_pool(inst, Deadline(60.0))
    assert sorted(native.packs) == sorted(reference.packs)
    for s in reference.packs:
        assert native.packs[s].dtype == reference.packs[s].dtype
        assert np.array_equal(native.packs[s], reference.packs[s])
        assert np.array_equal(native.costs[s], reference.costs[s])  # bit for bit


@pytest.mark.skipif(_cclosure.lib() is None, reason="needs the C kernels")
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_native_pricing_is_the_numpy_pricing(seed):
    inst = tiny(seed, 25, 8, 3 + seed % 2, kind="amdahl")
    pool = build_pool(inst)
    rng = np.random.default_rng(seed)
    pi = rng.uniform(0, 60, size=inst.n)
    pi[rng.integers(inst.n)] = -np.inf  # a removed task (LP dives): its packs get rc = +inf
    native = pool.reduced_costs(pi, 1.5)
    native_least, native_below = pool.negatives(native, -1e-9)
    native_packs, native_costs = pool.cheapest(native, 40)
    with engine.use("python"):
        reference = pool.reduced_costs(pi, 1.5)
        least, below = pool.negatives(reference, -1e-9)
        packs, _ = pool.cheapest(reference, 40)
    for s in reference:
        assert np.array_equal(native[s], reference[s])  # bit for bit
    assert (native_least, native_below) == (least, below)
    rc_of = {tuple(int(x) for x in row): rc for s in pool.packs
             for row, rc in zip(pool.packs[s].tolist(), reference[s].tolist(), strict=True)}
    assert sorted(rc_of[b] for b in native_packs) == sorted(rc_of[b] for b in packs)
    assert [rc_of[b] for b in native_packs] == sorted(rc_of[b] for b in native_packs)
    assert all(pool_cost == pytest.approx(c) for pool_cost, c in
               zip([float(optimal(inst, b)) for b in native_packs], native_costs, strict=True))


def optimal(inst, pack):
    from resilsched.heuristics.coschedule.onepack import optimal_pack

    return optimal_pack(inst, pack)[0]
