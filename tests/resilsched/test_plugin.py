"""A family is one registration (docs/architecture.md, "Adding a family").

A throwaway family module, written to a temporary folder added to the `resilsched.families`
package path, appears in ``list``, ``solve``, ``simulate`` and ``gap`` without any shared file
being touched.
"""

from __future__ import annotations

import json
import sys
import textwrap
from typing import Literal

import pytest

import resilsched.families
from resilsched.options import SolveOptions
from resilsched.params import Param, keyword_params, params_of
from resilsched.plugin import Reproduction
from resilsched.registry import available_families, get_family

TOY = textwrap.dedent('''
    """Toy family: pick a subset of items of total weight >= need, minimising the count."""

    from __future__ import annotations

    from dataclasses import dataclass, field
    from itertools import combinations
    from typing import Literal

    from resilsched.errors import InvalidInstance
    from resilsched.options import SolveOptions
    from resilsched.plugin import Bound, Case, ExactModel, Family, Generator, Heuristic
    from resilsched.solution import HeuristicResult, Solution, Status


    @dataclass(frozen=True)
    class Items:
        weights: tuple[int, ...]
        need: int

        @classmethod
        def from_dict(cls, d):
            if not isinstance(d.get("weights"), list) or not d["weights"]:
                raise InvalidInstance("weights", "must be a non-empty list")
            return cls(tuple(int(w) for w in d["weights"]), int(d["need"]))

        def to_dict(self):
            return {"family": "toyfam", "format_version": 1, "weights": list(self.weights),
                    "need": self.need}


    @dataclass(frozen=True)
    class Picked:
        items: tuple[int, ...]

        def to_dict(self):
            return {"items": list(self.items)}

        def lines(self):
            return [f"item {i}" for i in self.items]


    @dataclass(frozen=True)
    class GreedyParams:
        order: Literal["heavy", "light"] = "heavy"
        skip: int = 0


    def greedy(instance, scenario=None, priority=None, *, seed: int = 0, **params):
        """Take items heaviest (or lightest) first until the need is met."""
        p = GreedyParams(**params)
        idx = sorted(range(len(instance.weights)), key=lambda i: instance.weights[i],
                     reverse=p.order == "heavy")[p.skip:]
        picked, total = [], 0
        for i in idx:
            if total >= instance.need:
                break
            picked.append(i)
            total += instance.weights[i]
        return HeuristicResult(len(picked), "GREEDY", priority, Picked(tuple(picked)))


    @dataclass(frozen=True)
    class EnumOptions(SolveOptions):
        max_items: int = field(default=12, metadata={"low": 1, "high": 20})


    def enumerate_all(instance, scenario=None, *, time_limit=None, **options):
        """Smallest subset by enumeration."""
        opts = EnumOptions.of(time_limit, options, "enum")
        n = len(instance.weights)
        for size in range(1, n + 1):
            for subset in combinations(range(n), size):
                if sum(instance.weights[i] for i in subset) >= instance.need:
                    return Solution(size, size, Status.OPTIMAL, "enum", "enumeration",
                                    opts.deadline.elapsed(), payload=Picked(subset))
        return Solution(None, None, Status.INFEASIBLE, "enum", "enumeration", 0.0)


    def smoke():
        return [Case("a", Items((5, 3, 3, 3), 9)), Case("b", Items((4, 4, 1), 5))]


    FAMILY = Family(
        name="toyfam", spec="-", sense="min", objective_name="items",
        from_dict=Items.from_dict, smoke_suite=smoke, default_exact="enum",
        objective_unit="items",
    )
    FAMILY.add(Heuristic("GREEDY", greedy, "heaviest first", options=GreedyParams))
    FAMILY.add(ExactModel("enum", enumerate_all, "enumeration", options=EnumOptions))
    FAMILY.add(Bound("one", lambda instance, scenario=None: 1, "at least one item"))
    FAMILY.add(Generator("fixed", lambda seed, count=None: [Items((5, 3, 3, 3), 9)], "one"))
''')


@pytest.fixture
def toy_family(tmp_path, monkeypatch):
    folder = tmp_path / "plugins"
    folder.mkdir()
    (folder / "toyfam.py").write_text(TOY)
    monkeypatch.setattr(resilsched.families, "__path__", [*resilsched.families.__path__,
                                                           str(folder)])
    yield
    sys.modules.pop("resilsched.families.toyfam", None)


@pytest.fixture
def toy_file(tmp_path):
    path = tmp_path / "toy.json"
    path.write_text(json.dumps({"family": "toyfam", "format_version": 1,
                                "weights": [5, 3, 3, 3], "need": 9}))
    return path


def test_a_new_module_is_a_new_family(toy_family):
    assert "toyfam" in available_families()
    fam = get_family("toyfam")
    assert [p.describe() for p in fam.heuristics["GREEDY"].params] == [
        "order=heavy (heavy|light)", "skip=0 (int)"]
    assert [p.name for p in fam.exact["enum"].params] == [
        "workers", "seed", "deterministic", "max_items"]


def test_list_shows_the_family_and_its_parameters(toy_family, run):
    code, out, _ = run("list", "--family", "toyfam", "--json")
    assert code == 0
    d = json.loads(out)["families"]["toyfam"]
    assert d["heuristics"]["GREEDY"]["params"]["order"] == {
        "default": "heavy", "type": "str", "choices": ["heavy", "light"]}
    assert d["exact"]["enum"]["params"]["max_items"]["default"] == 12
    code, out, _ = run("list")
    assert "toyfam (spec -, minimise items in items)" in out and "--param order=heavy" in out


def test_solve_and_simulate_with_params(toy_family, run, toy_file):
    code, out, err = run("solve", toy_file, "--json", "--param", "max_items=5")
    assert code == 0, err
    d = json.loads(out)
    assert (d["objective"], d["status"], d["family"]) == (3, "optimal", "toyfam")
    assert d["solution"] == {"items": [0, 1, 2]}
    code, out, _ = run("solve", toy_file)
    assert "enum: items 3 items (status optimal" in out and "  item 0" in out
    code, out, _ = run("simulate", toy_file, "--heuristic", "GREEDY", "--json")
    assert json.loads(out)["objective"] == 3
    code, out, _ = run("simulate", toy_file, "--heuristic", "greedy", "--param", "order=light",
                       "--param", "skip=1", "--json")
    d = json.loads(out)
    assert d["objective"] == 3 and d["params"] == {"order": "light", "skip": 1}


@pytest.mark.parametrize("argv, message", [
    (("simulate", "{f}", "--heuristic", "GREEDY", "--param", "order=sideways"),
     "error: --param order='sideways' is not allowed for GREEDY (choose from heavy, light)"),
    (("simulate", "{f}", "--heuristic", "GREEDY", "--param", "colour=red"),
     "error: --param colour: is not a parameter of GREEDY (choose from order, skip)"),
    (("simulate", "{f}", "--heuristic", "GREEDY", "--param", "skip"),
     "error: --param='skip' must be NAME=VALUE"),
    (("simulate", "{f}", "--heuristic", "GREEDY", "--param", "skip=x"),
     "error: --param skip='x' is not an integer for GREEDY"),
    (("solve", "{f}", "--param", "max_items=50"),
     "error: --param max_items=50 must be in [1, 20] for enum"),
    (("solve", "{f}", "--param", "workers=-1"),
     "error: --param workers=-1 must be in [0, 256] for enum"),
])
def test_bad_params_are_one_line(toy_family, run, toy_file, argv, message):
    code, out, err = run(*[a.format(f=toy_file) for a in argv])
    assert (code, out, err) == (2, "", message + "\n")


def test_gap_scores_the_new_family(toy_family, run):
    code, out, err = run("gap", "--family", "toyfam", "--json", "-q")
    assert code == 0, err
    d = json.loads(out)
    (row,) = d["heuristics"]
    assert row["heuristic"] == "GREEDY" and row["cases"] == 2
    assert row["max_gap"] == 0  # heaviest first minimises the count
    assert d["violations"] == 0 and [c["reference"] for c in d["cases"]] == ["optimal"] * 2


def test_keyword_params_ignore_seed_and_untyped_keywords():
    def h(instance, scenario=None, priority=None, *, seed: int = 0, eps: float = 0.3,
          flag: bool = False, mode: Literal["a", "b"] = "a", anything=None):
        return None

    params = params_of(keyword_params(h))
    assert [(p.name, p.default, p.kind, p.choices) for p in params] == [
        ("eps", 0.3, float, ()), ("flag", False, bool, ()), ("mode", "a", str, ("a", "b"))]
    assert Param("flag", False, bool).parse("yes", "h") is True
    assert keyword_params(lambda instance, scenario=None, priority=None, *, seed=0: None) is None


def test_solve_options_refuse_unknown_names_and_bad_limits():
    from resilsched.errors import InvalidInstance

    with pytest.raises(InvalidInstance, match="is not a parameter of m"):
        SolveOptions.of(1.0, {"nope": 1}, "m")
    for bad in (float("nan"), float("inf"), 0.0, -1.0, 1e-6, "5"):
        with pytest.raises(InvalidInstance, match="time_limit"):
            SolveOptions.of(bad, {}, "m")


def test_a_reproduction_is_its_module_imported_when_it_runs(tmp_path, monkeypatch, capsys):
    """A family declares its reproduction by module path; `Reproduction.main` imports it."""
    (tmp_path / "toyrepro.py").write_text("def main(argv, prog):\n"
                                          "    print(prog, *argv)\n"
                                          "    return 3\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    reproduction = Reproduction("toyrepro", "a toy")
    assert "toyrepro" not in sys.modules
    try:
        assert reproduction.main(["--fast"], "resilsched reproduce toy") == 3
        assert "toyrepro" in sys.modules
    finally:
        sys.modules.pop("toyrepro", None)
    assert capsys.readouterr().out == "resilsched reproduce toy --fast\n"
    with pytest.raises(TypeError, match="path of the module"):
        Reproduction(print, "a function, the former shape")
