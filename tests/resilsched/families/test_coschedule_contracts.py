"""Contracts of the family (issue 10): registrations point at functions, options are checked,
statuses are proven exactly, bad input is refused, role folders import downwards only."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from resilsched.errors import InvalidInstance, InvalidSchedule
from resilsched.heuristics.coschedule import Packs, make_packs, run_pack_approx
from resilsched.instances.coschedule import CoscheduleInstance, random_instance
from resilsched.models.coschedule.matching import solve_matching, solve_matching_networkx
from resilsched.models.coschedule.setpart.colgen.solve import solve_setpart_cg
from resilsched.registry import get_family
from resilsched.solution import Status
from resilsched.validation.packs import check_packs
from tests.support.coschedule.helpers import opt, tiny

FAM = get_family("coschedule")
ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "examples" / "coschedule-small.json"


def test_entries_point_at_the_functions_themselves():
    for name, model in FAM.exact.items():
        assert model.solve.__name__.startswith("solve_"), name
        assert model.solve.__module__.startswith("resilsched.models.coschedule."), name
    for name, h in FAM.heuristics.items():
        assert h.run.__module__ == "resilsched.heuristics.coschedule.packing", name
        assert h.params == (), name  # seed is not a parameter; the loop bound is the priority
    assert FAM.exact["matching-networkx"].solve is solve_matching_networkx
    assert {p.name for p in FAM.exact["matching"].params} >= {"backend", "prune"}


def test_options_are_checked_at_the_boundary():
    inst = tiny(1, 5, 4, 2)
    with pytest.raises(InvalidInstance, match="--param nope"):
        solve_setpart_cg(inst, nope=1)
    with pytest.raises(InvalidInstance, match="--param backend"):
        solve_matching(inst, backend="blossom")
    with pytest.raises(InvalidInstance, match="time_limit"):
        solve_matching(inst, time_limit=float("nan"))
    sol = solve_matching(inst, backend="networkx", prune="on")
    assert sol.status is Status.OPTIMAL and sol.solver == "networkx"


def test_matching_on_the_example_is_proven_exactly(tmp_path):
    """Issue 10: 'optimal' with bound 66.99999999999986 against objective 67."""
    out = subprocess.run([sys.executable, "-m", "resilsched", "solve", str(EXAMPLE), "--method",
                          "matching", "--json", "-q"], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    assert res["status"] == "optimal"
    assert res["objective"] == res["bound"] == 67 and isinstance(res["bound"], int)
    assert res["exact_scaling"] is True and res["info"]["optimality"] == "exact"


@pytest.mark.parametrize("seed", range(6))
def test_matching_on_float_times_is_exact(seed):
    """Float times are dyadic rationals: exact integer weights, bound = objective, and the
    enumeration (exact DP) agrees to the last bit."""
    inst = tiny(700 + seed, 7 + seed % 3, 6, 2, kind="amdahl" if seed % 2 else "synthetic")
    sol = solve_matching(inst)
    assert sol.status is Status.OPTIMAL and sol.bound == sol.objective
    assert sol.payload.exact_makespan == FAM.exact["enumeration"].solve(
        inst).payload.exact_makespan
    assert check_packs(inst, sol.payload) == sol.objective


def test_near_tie_float_times_are_not_rounded_away():
    """Two pairings whose makespans differ by one unit in the last place: the old rounding to
    2^50 could not tell them apart; exact weights pick the smaller one."""
    eps = 2.0 ** -40
    times = ((8.0, 4.0), (8.0, 4.0 + eps), (6.0, 3.0), (6.0, 3.0))
    inst = CoscheduleInstance(p=2, k=2, times=times)
    sol = solve_matching(inst)
    assert sol.status is Status.OPTIMAL
    assert sol.payload.exact_makespan == FAM.exact["enumeration"].solve(
        inst).payload.exact_makespan


def test_certified_bounds_on_integer_data_are_integers():
    inst = random_instance(0, 60, 16, 3, kind="integer")
    sol = solve_setpart_cg(inst, time_limit=1.0)
    assert isinstance(sol.objective, int)
    assert isinstance(sol.bound, int) and sol.bound <= sol.objective
    d = sol.to_dict()
    assert isinstance(d["bound"], int) and "bound_exact" not in d


def test_every_model_agrees_on_exact_rational_times():
    d = {"family": "coschedule", "format_version": 1, "p": 4, "k": 2,
         "tasks": [{"t": ["7/2", 3, "5/2", 2]}, {"t": [5, "9/2", 4, 4]},
                   {"model": "amdahl", "w": 6, "f": "1/4"}, {"t": [4, 3, 3, 3]}]}
    inst = CoscheduleInstance.from_dict(d)
    best = opt(inst)
    assert isinstance(best, Fraction)
    for name, model in FAM.exact.items():
        sol = model.solve(inst, time_limit=60)
        assert sol.status is Status.OPTIMAL and sol.objective == sol.bound == best, name


@pytest.mark.parametrize("task", [
    {"model": "synthetic", "m": 1e308},
    {"model": "synthetic", "m": "1e400"},
    {"model": "amdahl", "w": "1e400", "f": 0.5},
    {"t": ["1e400", 1]},
])
def test_overflowing_times_are_refused(task):
    """Issue 10: {"model": "synthetic", "m": 1e308} gave objective 0 and no packs."""
    d = {"family": "coschedule", "format_version": 1, "p": 2, "k": 2,
         "tasks": [task, {"t": [1, 1]}]}
    with pytest.raises(InvalidInstance, match=r"tasks\[0\]"):
        CoscheduleInstance.from_dict(d)


def test_sum_of_times_must_not_overflow():
    d = {"family": "coschedule", "format_version": 1, "p": 2, "k": 2,
         "tasks": [{"t": [1e308, 1e308]}, {"t": [1e308, 1e308]}]}
    # refused earlier, field by field: a time is at most 1e12 s (instances/fields.py MAX_TIME)
    with pytest.raises(InvalidInstance, match=r"tasks\[0\]\.t\[0\]=1e\+308 exceeds the maximum"):
        CoscheduleInstance.from_dict(d)


def test_no_co_schedule_without_packs():
    inst = tiny(2, 4, 4, 2)
    with pytest.raises(InvalidSchedule, match="partition"):
        make_packs(inst, [])
    with pytest.raises(InvalidSchedule, match="partition"):
        make_packs(inst, [[0, 1], [2]])
    with pytest.raises(InvalidSchedule):
        check_packs(inst, {"packs": []})


def test_printed_loop_bound_without_iterations_is_refused():
    inst = CoscheduleInstance(p=1, k=1, times=((3,), (5,)))
    with pytest.raises(InvalidInstance, match="priority"):
        run_pack_approx(inst, None, "printed")
    assert run_pack_approx(inst, None, "fixed").objective == 8


def test_packs_print_themselves():
    inst = CoscheduleInstance(p=4, k=2, times=((8, 4, 3, 3), (6, 5, 4, 4), (5, 3, 2, 2)))
    packs = make_packs(inst, [[2], [1, 0]])
    assert isinstance(packs, Packs) and packs.makespan == 7
    assert packs.to_dict() == {"packs": [{"tasks": [0, 1], "procs": [2, 2], "time": 5},
                                         {"tasks": [2], "procs": [4], "time": 2}]}
    assert packs.lines()[0] == "pack 1: tasks 0, 1 on 2, 2 processors, 5 s"
    sol = FAM.exact["enumeration"].solve(inst)
    assert "pack 1: tasks 0, 1 on 2, 2 processors, 5 s" in sol.describe("makespan", "s")


#: the layer of each role folder (a module may import its own layer and lower ones only)
LAYERS = {"instances": 1, "bounds": 2, "heuristics": 3, "models": 4}
GROUND = ("errors", "numeric", "params", "deadline", "options", "solution", "schedule",
          "validation", "solvers")


def _layer(module: str) -> int | None:
    parts = module.split(".")
    if parts[0] != "resilsched" or len(parts) < 2:
        return None
    if parts[1] in LAYERS:
        return LAYERS[parts[1]]
    return 0 if parts[1] in GROUND else 9


@pytest.mark.parametrize("path", [
    "instances/coschedule.py", "bounds/coschedule.py", *sorted(
        str(p.relative_to(ROOT)) for folder in ("heuristics/coschedule", "models/coschedule")
        for p in (ROOT / folder).rglob("*.py")),
    "resilsched/validation/packs.py",
])
def test_imports_go_downwards_only(path):
    own = 0 if path.startswith("resilsched/") else LAYERS[path.split("/")[0]]
    tree = ast.parse((ROOT / path).read_text())
    for node in ast.walk(tree):  # function-level (lazy) imports included
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
            [node.module] if isinstance(node, ast.ImportFrom) and node.module else [])
        for name in names:
            layer = _layer(name)
            assert layer is None or layer <= own, f"{path} imports {name}"


def _imported(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    return [name for node in ast.walk(tree) for name in (
        [a.name for a in node.names] if isinstance(node, ast.Import) else
        [node.module] if isinstance(node, ast.ImportFrom) and node.module else [])]


@pytest.mark.parametrize("method, other", [("colgen", "branchprice"), ("branchprice", "colgen")])
def test_the_set_partitioning_methods_share_only_the_shared_parts(method, other):
    """Layout of models/coschedule/setpart (docs/architecture.md): a method's subpackage
    imports the shared modules of `setpart`, never the other method's subpackage, and the
    shared modules import neither."""
    setpart = ROOT / "models" / "coschedule" / "setpart"
    paths = sorted((setpart / method).glob("*.py")) + sorted(setpart.glob("*.py"))
    assert len(paths) > 5
    for path in paths:
        for name in _imported(path):
            assert not name.startswith(f"resilsched.models.coschedule.setpart.{other}"), (
                f"{path.relative_to(ROOT)} imports {name}")
            if path.parent == setpart:
                assert not name.startswith(f"resilsched.models.coschedule.setpart.{method}"), (
                    f"{path.relative_to(ROOT)} imports {name}")
