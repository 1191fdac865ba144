"""The worksharing family follows the plug-in contracts (docs/architecture.md, issue 10):
layers, one function per heuristic, typed payloads, parameters checked at the boundary."""

from __future__ import annotations

import ast
import inspect
import json
import math
from pathlib import Path

import pytest

from resilsched.errors import InvalidInstance
from resilsched.heuristics.worksharing import run as heuristics
from resilsched.heuristics.worksharing.plan import Plan
from resilsched.heuristics.worksharing.schedules import NO_REP_RULES
from resilsched.instances.worksharing import LinearRisk, WeibullRisk, WorksharingInstance
from resilsched.instances.worksharing.evaluate import IntervalSchedule
from resilsched.models.worksharing.payload import CertifiedPayload
from resilsched.models.worksharing.solve import CertifiedOptions, QPOptions, solve
from resilsched.solution import HeuristicResult
from tests.support.worksharing.helpers import FAMILY, HEURISTICS

ROOT = Path(__file__).resolve().parents[3]
#: layer of each role folder: a module imports its own layer and lower ones only
LAYERS = {"instances": 0, "bounds": 1, "heuristics": 2, "models": 3}
WORKSHARING = [ROOT / "instances/worksharing", ROOT / "bounds/worksharing.py",
               ROOT / "heuristics/worksharing", ROOT / "models/worksharing"]


def _modules():
    for path in WORKSHARING:
        yield from (sorted(path.glob("*.py")) if path.is_dir() else [path])


def _imports(path: Path) -> set[str]:
    """Every module imported anywhere in `path`, function-level (lazy) imports included."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
    return out


@pytest.mark.parametrize("path", list(_modules()), ids=lambda p: str(p.relative_to(ROOT)))
def test_role_modules_import_their_layer_or_lower(path):
    """instances <- bounds <- heuristics <- models; nothing on top (registry, families,
    reproduce, cli) is imported from a role module."""
    own = LAYERS[path.relative_to(ROOT).parts[0]]
    for module in _imports(path):
        parts = module.split(".")
        if parts[0] != "resilsched" or len(parts) < 2:
            continue
        if parts[1] in LAYERS:
            assert LAYERS[parts[1]] <= own, f"{path.name} imports {module} (upward)"
        else:
            assert parts[1] in ("errors", "numeric", "params", "deadline", "options",
                                "solution", "schedule", "validation", "solvers"), \
                f"{path.name} imports {module} (top layer)"


def test_the_validator_shares_no_code_with_what_it_checks():
    path = ROOT / "resilsched/validation/worksharing.py"
    assert {m for m in _imports(path) if m.startswith("resilsched")} == {"resilsched.errors"}


def test_every_entry_points_at_its_function():
    for name, entry in FAMILY.heuristics.items():
        fn = entry.run
        assert fn.__module__ == heuristics.__name__, name
        sig = inspect.signature(fn)
        assert list(sig.parameters)[:3] == ["instance", "scenario", "priority"]
        assert sig.parameters["seed"].kind is inspect.Parameter.KEYWORD_ONLY
        choices = {"n", "lam", "chunk_search", "chunk_rule"}
        assert {p.name for p in entry.params} <= choices and entry.params
        assert all(p.help and p.default == 0.0 for p in entry.params
                   if p.name not in ("chunk_search", "chunk_rule"))
        for p in entry.params:
            if p.name == "chunk_search":  # group heuristics: the paper's binary search option
                assert p.default == "grid" and p.choices == ("grid", "binary") and p.help
            if p.name == "chunk_rule":  # no-rep: its chunk-count rule (WS-20)
                assert p.default == "grid" and p.choices == NO_REP_RULES and p.help
    assert FAMILY.exact["certified"].solve is solve
    assert FAMILY.exact["certified"].options is CertifiedOptions
    assert FAMILY.exact["qp-one-worker"].options is QPOptions
    assert {p.name for p in CertifiedOptions.params()} >= {"certify", "qp_max_chunks",
                                                           "max_entries"}
    assert not hasattr(heuristics, "run_heuristic")


@pytest.mark.parametrize("name", HEURISTICS)
def test_heuristic_results_are_typed_and_print_one_line_per_worker(name):
    inst = WorksharingInstance(1.7, 3, LinearRisk(1.0), 0.02)
    res = FAMILY.heuristics[name].run(inst, None, None, seed=3)
    assert isinstance(res, HeuristicResult) and isinstance(res.schedule, Plan)
    d = res.schedule.to_dict()  # today's JSON shape
    assert list(d) == ["heuristic", "chunk_counts", "coteries", "W", "pieces", "workers"]
    assert d["heuristic"] == name == res.heuristic
    json.dumps(res.to_dict())
    lines = res.schedule.lines()
    assert len(lines) == inst.workers
    for j, (line, chunks) in enumerate(zip(lines, d["workers"], strict=True)):
        assert line.startswith(f"worker {j}: {len(chunks)} chunk")
    text = res.describe(verbose=True)
    assert text.count("\n") == inst.workers


def test_lines_show_chunks_as_intervals_of_the_workload():
    res = heuristics.no_rep(WorksharingInstance(2.0, 2, LinearRisk(1.0), 0.0), n=2)
    assert res.schedule.lines() == ["worker 0: 2 chunks [0, 0.5] [1, 1.5]",
                                    "worker 1: 2 chunks [0.5, 1] [1.5, 2]"]
    iv = IntervalSchedule(1.0, [[[(0.0, 0.2), (0.5, 0.6)], [(0.2, 0.5)]], [[]]])
    assert iv.lines() == ["worker 0: 2 chunks [0, 0.2]+[0.5, 0.6] [0.2, 0.5]",
                          "worker 1: 1 chunk []"]
    long = heuristics.brute(WorksharingInstance(1.0, 1, LinearRisk(1.0), 0.0), n=100)
    (line,) = long.schedule.lines()
    assert line.startswith("worker 0: 100 chunks [0, 0.01] ") and " ... " in line
    assert line.endswith("[0.98, 0.99] [0.99, 1]")


def test_model_payloads_are_typed_and_keep_their_json_shape():
    sol = solve(WorksharingInstance(2.0, 1, LinearRisk(1.0), 0.0, max_chunks=3))
    assert isinstance(sol.payload, CertifiedPayload)
    d = sol.to_dict()["solution"]
    assert d["model"] == "theorem2" and list(d)[-1] == "schedule"
    assert {"n", "qp_value", "qp_chunks", "certified_up_to_m", "chunks", "W_dpl"} <= set(d)
    assert set(d["schedule"]) == {"W", "pieces", "workers"}
    text = sol.describe()
    assert "model theorem2 (n 3, W_dpl 0.75, certified_up_to_m 3)" in text
    assert "worker 0: 3 chunks [0, 0.25] [0.25, 0.5] [0.5, 0.75]" in text
    two = solve(WorksharingInstance(0.7, 2, LinearRisk(1.0), 0.0, max_chunks=1))
    assert two.payload.lines()[1:] == ["worker 0: 1 chunk [0, 0.35]",
                                       "worker 1: 1 chunk [0.35, 0.7]"]


@pytest.mark.parametrize("params, field", [
    ({"n": -1.0}, "--param n"), ({"n": math.nan}, "--param n"), ({"n": math.inf}, "--param n"),
    ({"n": 1e12}, "--param n"), ({"n": "3"}, "--param n"), ({"lam": 1.5}, "--param lam"),
    ({"lam": -0.1}, "--param lam"), ({"lam": math.nan}, "--param lam"),
])
def test_bad_parameters_are_refused_at_the_boundary(params, field):
    inst = WorksharingInstance(2.0, 4, LinearRisk(1.0), 0.01)
    with pytest.raises(InvalidInstance) as err:
        heuristics.cyclic_rep(inst, **params)
    assert str(err.value).startswith(field) and "\n" not in str(err.value)


def test_lambda_and_n_parameters_change_the_schedule():
    inst = WorksharingInstance(2.0, 4, WeibullRisk(2.0), 0.01)
    a = heuristics.greedy(inst, lam=0.5).schedule.coteries
    b = heuristics.greedy(inst).schedule.coteries
    assert len(a) > len(b)  # smaller slices: more coteries (§3.1)
    assert heuristics.brute(inst, n=7).schedule.chunk_counts == (14,)
    with pytest.raises(InvalidInstance, match="--seed"):
        heuristics.random_rep(inst, seed=-1)


def test_bad_model_options_are_refused():
    inst = WorksharingInstance(2.0, 1, LinearRisk(1.0), 0.0, max_chunks=3)
    for bad in ({"max_entries": -1}, {"qp_max_chunks": -1}, {"certfy": True},
                {"certify": "yes"}):
        with pytest.raises(InvalidInstance):
            solve(inst, **bad)
    with pytest.raises(InvalidInstance):
        solve(inst, time_limit=math.nan)
