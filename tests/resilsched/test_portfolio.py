"""The portfolio of ``resilsched solve`` (resilsched/portfolio.py, decision T19).

A toy family (choose items of total weight >= need, minimising their count) whose heuristics,
bounds and model misbehave on purpose, then every registered family on a smoke case and the
command line, whose ``--time-limit`` must bound every phase.
"""

from __future__ import annotations

import json
import sys
import textwrap
import time
from itertools import combinations

import pytest

import resilsched.families
from resilsched.deadline import Deadline
from resilsched.errors import InvalidInstance, InvalidSchedule
from resilsched.plugin import Bound, Case, Construction, ExactModel, Family, Heuristic
from resilsched.portfolio import certified_solve, pick_model
from resilsched.registry import all_families
from resilsched.solution import HeuristicResult, Solution, Status

TOY = textwrap.dedent('''
    """Toy family: the fewest items of total weight >= need."""

    from __future__ import annotations

    import time
    from dataclasses import dataclass
    from itertools import combinations

    from resilsched.errors import InvalidInstance, InvalidSchedule
    from resilsched.plugin import Bound, Case, ExactModel, Family, Heuristic
    from resilsched.solution import HeuristicResult, Solution, Status


    @dataclass(frozen=True)
    class Items:
        weights: tuple
        need: int
        name: str = "toy"

        @classmethod
        def from_dict(cls, d):
            if not isinstance(d.get("weights"), list) or not d["weights"]:
                raise InvalidInstance("weights", "must be a non-empty list")
            return cls(tuple(int(w) for w in d["weights"]), int(d["need"]))

        def to_dict(self):
            return {"family": "toyport", "format_version": 1,
                    "weights": list(self.weights), "need": self.need}


    @dataclass(frozen=True)
    class Picked:
        items: tuple

        def to_dict(self):
            return {"items": list(self.items)}

        def lines(self):
            return [f"item {i}" for i in self.items]


    def validate(case, result):
        items = result.schedule.items
        inst = case.instance
        if len(set(items)) != len(items) or not all(0 <= i < len(inst.weights) for i in items):
            raise InvalidSchedule("items must be distinct indices")
        if sum(inst.weights[i] for i in items) < inst.need:
            raise InvalidSchedule("the items do not meet the need")
        if result.objective != len(items):
            raise InvalidSchedule("objective != number of items")


    def heavy(instance, scenario=None, priority=None, *, seed: int = 0):
        order = sorted(range(len(instance.weights)), key=lambda i: -instance.weights[i])
        if priority == "light":
            order.reverse()
        picked, total = [], 0
        for i in order:
            if total >= instance.need:
                break
            picked.append(i)
            total += instance.weights[i]
        return HeuristicResult(len(picked), "GREEDY", priority, Picked(tuple(picked)))


    def cheat(instance, scenario=None, priority=None, *, seed: int = 0):
        return HeuristicResult(1, "CHEAT", None, Picked((0,)))


    def crash(instance, scenario=None, priority=None, *, seed: int = 0):
        raise RuntimeError("boom")


    def slow(instance, scenario=None, priority=None, *, seed: int = 0):
        time.sleep(60)
        return heavy(instance)


    def enum(instance, scenario=None, *, time_limit=None, **options):
        n = len(instance.weights)
        for size in range(1, n + 1):
            for subset in combinations(range(n), size):
                if sum(instance.weights[i] for i in subset) >= instance.need:
                    return Solution(size, size, Status.OPTIMAL, "enum", "enumeration", 0.0,
                                    payload=Picked(subset))
        return Solution(None, None, Status.INFEASIBLE, "enum", "enumeration", 0.0)


    def slow_bound(instance, scenario=None):
        time.sleep(60)
        return 1


    def smoke():
        return [Case("a", Items((5, 3, 3, 3), 9))]


    FAMILY = Family(name="toyport", spec="-", sense="min", objective_name="items",
                    from_dict=Items.from_dict, smoke_suite=smoke, default_exact="enum",
                    validate=validate)
    FAMILY.add(Heuristic("GREEDY", heavy, "heaviest first", priorities=("heavy", "light"),
                         default_priority="heavy"))
    FAMILY.add(Heuristic("CHEAT", cheat, "one item, whatever its weight"))
    FAMILY.add(Heuristic("CRASH", crash, "raises"))
    FAMILY.add(Heuristic("SLOW", slow, "sleeps a minute"))
    FAMILY.add(ExactModel("enum", enum, "enumeration"))
    FAMILY.add(Bound("one", lambda instance, scenario=None: 1, "at least one item"))
    FAMILY.add(Bound("slow", slow_bound, "sleeps a minute"))
''')


@pytest.fixture
def toy(tmp_path, monkeypatch):
    """The toy module, registered as the family ``toyport``; returns its namespace."""
    folder = tmp_path / "plugins"
    folder.mkdir()
    (folder / "toyport.py").write_text(TOY)
    monkeypatch.setattr(resilsched.families, "__path__", [*resilsched.families.__path__,
                                                           str(folder)])
    from resilsched.registry import get_family

    get_family("toyport")
    yield sys.modules["resilsched.families.toyport"]
    sys.modules.pop("resilsched.families.toyport", None)


def _family(mod, heuristics=("GREEDY", "CHEAT", "CRASH"), bounds=("one",), **changes):
    """A fresh family built from the toy module's functions (each test its own entries)."""
    fam = Family(name="toyport", spec="-", sense="min", objective_name="items",
                 from_dict=mod.Items.from_dict, smoke_suite=mod.smoke, default_exact="enum",
                 validate=mod.validate, **changes)
    for name in heuristics:
        fam.add(mod.FAMILY.heuristics[name])
    for name in bounds:
        fam.add(mod.FAMILY.bounds[name])
    fam.add(mod.FAMILY.exact["enum"])
    return fam


def _instance(mod):
    return mod.Items((5, 3, 3, 3), 9)


def test_best_checked_schedule_and_sources(toy):
    sol = certified_solve(_family(toy), _instance(toy), deadline=Deadline(20.0))
    assert (sol.objective, sol.bound, sol.status) == (3, 3, Status.OPTIMAL)
    # the heuristic found 3 before the model: the tie goes to it
    assert sol.objective_source == "GREEDY/heavy" and sol.bound_source == "enum"
    runs = {r["source"]: r for r in sol.info["portfolio"]["schedules"]}
    assert runs["GREEDY/heavy"]["objective"] == 3 and runs["GREEDY/light"]["objective"] == 3
    assert runs["CHEAT"]["error"] == "invalid solution: the items do not meet the need"
    assert runs["CRASH"]["error"] == "CRASH raised RuntimeError: boom"
    assert sol.info["portfolio"]["model"]["status"] == "optimal"
    d = sol.to_dict()
    assert d["objective_source"] == "GREEDY/heavy" and d["bound_source"] == "enum"
    assert d["solution"] == {"items": [0, 1, 2]}


def test_a_bound_beyond_a_checked_schedule_is_a_violation(toy):
    fam = _family(toy)
    fam.add(Bound("wrong", lambda instance, scenario=None: 4, "claims 4 > the optimum 3"))
    sol = certified_solve(fam, _instance(toy), deadline=Deadline(20.0))
    assert sol.bound == 3 and sol.bound_source == "enum"
    (line,) = sol.info["portfolio"]["violations"]
    assert line.startswith("bound wrong = 4 lies beyond the schedule of GREEDY/heavy")


def test_the_model_is_skipped_when_the_schedules_meet_the_bounds(toy):
    fam = _family(toy, bounds=())
    fam.add(Bound("three", lambda instance, scenario=None: 3, "the optimum"))
    sol = certified_solve(fam, _instance(toy), deadline=Deadline(20.0))
    assert sol.status is Status.OPTIMAL and sol.bound_source == "three"
    assert sol.info["portfolio"]["model"] == {"name": "enum",
                                              "skipped": "the schedules meet the bounds"}


def test_baselines_are_never_taken_and_constructions_are(toy):
    fam = _family(toy, heuristics=("CRASH",))
    fam.add(Heuristic("FAKE", toy.cheat, "a relaxed run", baseline=True))

    def two(instance, scenario=None):
        return HeuristicResult(2, "TWO", None, toy.Picked((0, 1)))

    fam.add(Construction("TWO", two, "weights 5 + 4"))
    inst = toy.Items((5, 4, 3, 3), 9)
    sol = certified_solve(fam, inst, deadline=Deadline(20.0))
    sources = [r["source"] for r in sol.info["portfolio"]["schedules"]]
    assert "FAKE" not in sources and "TWO" in sources
    assert sol.objective == 2 and sol.objective_source == "TWO"


def test_warm_start_hint_and_refusal(toy):
    seen = {}

    def model(instance, scenario=None, *, time_limit=None, hint=None, **options):
        seen["hint"] = hint
        raise InvalidInstance("weights", "too many items for this model")

    fam = _family(toy)
    fam.exact.clear()
    fam.add(ExactModel("enum", model, "refuses", warm_start=True))
    sol = certified_solve(fam, _instance(toy), deadline=Deadline(20.0))
    assert seen["hint"] == toy.Picked((0, 1, 2))
    assert sol.status is Status.FEASIBLE and (sol.objective, sol.bound) == (3, 1)
    record = sol.info["portfolio"]["model"]
    assert record["hint"] == "GREEDY/heavy" and "too many items" in record["refused"]
    only_crash = _family(toy, heuristics=("CRASH",))
    only_crash.exact["enum"] = fam.exact["enum"]
    with pytest.raises(InvalidInstance, match="too many items"):  # nothing else to answer with
        certified_solve(only_crash, _instance(toy), deadline=Deadline(20.0))


def test_a_model_claiming_a_wrong_optimum_loses_its_claim(toy):
    def liar(instance, scenario=None, *, time_limit=None, **options):
        return Solution(4, 4, Status.OPTIMAL, "enum", "lies", 0.0, payload=toy.Picked((0, 1)))

    fam = _family(toy, bounds=())
    fam.exact.clear()
    fam.add(ExactModel("enum", liar, "claims 4"))
    sol = certified_solve(fam, _instance(toy), deadline=Deadline(20.0))
    assert (sol.objective, sol.objective_source, sol.status) == (3, "GREEDY/heavy",
                                                                 Status.FEASIBLE)
    assert sol.bound is None
    assert any("said optimal at 4" in v for v in sol.info["portfolio"]["violations"])
    assert any("bound enum = 4" in v for v in sol.info["portfolio"]["violations"])


def test_slow_heuristics_and_bounds_cost_only_their_share(toy):
    fam = _family(toy, heuristics=("SLOW", "GREEDY"), bounds=("slow", "one"))
    t0 = time.perf_counter()
    sol = certified_solve(fam, _instance(toy), deadline=Deadline(3.0))
    elapsed = time.perf_counter() - t0
    assert elapsed < 3.0 + 1.0
    assert sol.objective == 3 and sol.status is Status.OPTIMAL
    bounds = {r["source"]: r for r in sol.info["portfolio"]["bounds"]}
    assert "not finished" in bounds["slow"]["error"] and bounds["one"]["value"] == 1
    assert "SLOW" not in [r["source"] for r in sol.info["portfolio"]["schedules"]]


def test_maximisation():
    def run(instance, scenario=None, priority=None, *, seed: int = 0):
        return HeuristicResult(5, "H", None, {"x": 5})

    def model(instance, scenario=None, *, time_limit=None, **options):
        return Solution(4, 9, Status.FEASIBLE, "m", "toy", 0.0, payload={"x": 4})

    def check(case, result):
        if result.objective > 7:
            raise InvalidSchedule("too good")

    fam = Family(name="toymax", spec="-", sense="max", objective_name="work",
                 from_dict=dict, smoke_suite=list, default_exact="m", validate=check)
    fam.add(Heuristic("H", run, "five"))
    fam.add(ExactModel("m", model, "four, bound nine"))
    fam.add(Bound("eight", lambda instance, scenario=None: 8, "at most eight"))
    sol = certified_solve(fam, object(), deadline=Deadline(10.0))
    assert (sol.objective, sol.objective_source) == (5, "H")
    assert (sol.bound, sol.bound_source, sol.status) == (8, "eight", Status.FEASIBLE)


def _le(a, b):
    return float(a) <= float(b) * (1 + 1e-9) + 1e-9


@pytest.mark.parametrize("fam", all_families(), ids=lambda f: f.name)
def test_every_family_gets_a_certified_interval(fam):
    case = fam.smoke_suite()[0]
    sol = certified_solve(fam, case.instance, case.scenario, deadline=Deadline(20.0))
    assert sol.status in (Status.OPTIMAL, Status.FEASIBLE)
    names = {*fam.exact, *fam.bounds, *fam.constructions}
    names |= {f"{h.name}/{p}" if p else h.name for h in fam.heuristics.values()
              for p in (h.priorities or (None,))}
    assert sol.objective_source in names and sol.bound_source in names
    better = _le if fam.sense == "min" else (lambda a, b: _le(b, a))
    assert better(sol.bound, sol.objective)
    seed = 0
    for h in fam.heuristics.values():
        if h.baseline:
            continue
        res = h.run(case.instance, case.scenario, h.default_priority, seed=seed)
        fam.validate(Case(case.name, case.instance, case.scenario), res)
        assert better(sol.objective, res.objective), h.name
    assert sol.info["portfolio"]["violations"] == []
    assert pick_model(fam, case.instance).name == sol.method


def test_fault_free_baselines_never_answer_a_faulty_instance():
    fam = next(f for f in all_families() if f.name == "malleable")
    (case,) = [c for c in fam.smoke_suite() if c.name.endswith("p8-trace")]
    sol = certified_solve(fam, case.instance, case.scenario, deadline=Deadline(20.0))
    sources = [r["source"] for r in sol.info["portfolio"]["schedules"]]
    assert not any(s.startswith("FF-") for s in sources)
    ff = fam.heuristics["FF-NOREDIST"].run(case.instance, case.scenario, None)
    assert ff.objective < sol.objective  # the relaxed run would have been a false answer


def test_solve_reports_its_sources(toy, run, tmp_path):
    path = tmp_path / "toy.json"
    path.write_text(json.dumps(_instance(toy).to_dict()))
    code, out, err = run("solve", path, "--json", "--time-limit", "4", "-q")
    assert code == 0, err
    d = json.loads(out)
    assert (d["objective"], d["status"], d["method"]) == (3, "optimal", "enum")
    assert d["objective_source"] == "GREEDY/heavy" and d["bound_source"] == "enum"
    assert d["wall_time"] <= 4.0 + 1.0
    code, out, err = run("solve", path, "--method", "enum", "--json")
    d = json.loads(out)
    assert d["objective_source"] == "enum" == d["bound_source"]
    assert "portfolio" not in d.get("info", {})
    code, out, _ = run("solve", path, "--time-limit", "4", "-q")
    assert out.startswith("toyport / enum: items 3 (status optimal, objective first reached "
                          "by GREEDY/heavy, schedule shown: enum, ")


@pytest.mark.parametrize(("source", "shown", "says"), [
    ("H/LPT", "model", "objective first reached by H/LPT, schedule shown: model, "),
    ("H/LPT", "H/LPT", "objective and schedule from H/LPT, "),
    ("model", "model", "status optimal, 0.10 s"),
])
def test_the_text_names_whose_schedule_is_shown(source, shown, says):
    """A tie goes to the heuristic that reached the objective first, while the schedule shown
    is the model's: the headline says both, not "objective from H" above the model's schedule
    (audit finding 1)."""
    sol = Solution(3, 3, Status.OPTIMAL, "model", "x", 0.1, objective_source=source,
                   bound_source="model", info={"portfolio": {"solution": shown}})
    head = sol.describe().splitlines()[0]
    assert says in head and "objective from" not in head


def test_the_time_limit_bounds_the_whole_command(toy, run, tmp_path):
    """SLOW and the slow bound sleep a minute each: the command still ends in time."""
    path = tmp_path / "toy.json"
    path.write_text(json.dumps(_instance(toy).to_dict()))
    for limit in (0.5, 2.0):
        t0 = time.perf_counter()
        code, out, err = run("solve", path, "--json", "--time-limit", str(limit), "-q")
        elapsed = time.perf_counter() - t0
        assert code == 0, err
        assert elapsed <= 1.25 * limit + 1.0 and json.loads(out)["wall_time"] <= elapsed


def test_all_subsets_agree_with_the_toy_model(toy):
    """The toy's enumeration is an oracle: the portfolio proves the same optimum."""
    fam = _family(toy)
    for weights, need in [((5, 3, 3, 3), 9), ((1, 1, 1, 7), 8), ((4, 4, 4), 12)]:
        inst = toy.Items(weights, need)
        best = min(s for s in range(1, len(weights) + 1)
                   for sub in combinations(range(len(weights)), s)
                   if sum(weights[i] for i in sub) >= need)
        sol = certified_solve(fam, inst, deadline=Deadline(20.0))
        assert (sol.objective, sol.status) == (best, Status.OPTIMAL)
