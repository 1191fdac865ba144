"""A heuristic of one's own by ``MODULE:FUNCTION`` wherever a heuristic name is accepted, and a
bad reference refused in one line naming it and the reason (issue 22, point 1 and "Bad input").
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "rigid-small.json"
MOLDABLE = EXAMPLE.with_name("moldable-small.json")

BAD = [
    ("nosuchmodule:run", "does not import (ModuleNotFoundError: No module named "
                         "'nosuchmodule')"),
    ("broken:f", "does not import (SyntaxError: "),
    ("myheur:nothing", "names no callable (module 'myheur' has no attribute 'nothing')"),
    ("myheur:CONSTANT", "names no callable (CONSTANT is a int)"),
    ("myheur:wrong_signature", "has the wrong signature (instance) (too many positional "
                               "arguments): a heuristic is run(instance, scenario=None, "
                               "priority=None, *, seed=0, **params)"),
    ("my-heur:run", "is not a MODULE:FUNCTION reference"),
]


@pytest.mark.parametrize("ref, reason", BAD, ids=[b[0] for b in BAD])
@pytest.mark.parametrize("command", ["simulate", "gap", "check", "gap-library"])
def test_a_bad_reference_is_one_line_naming_it_exit_2(run, plugins, command, ref, reason):
    argv = {"simulate": ("simulate", EXAMPLE),
            "gap": ("gap", "--family", "rigid", "-q"),
            "check": ("check", "--family", "rigid", "-q"),
            "gap-library": ("gap", "--library", "rigid-small", "-q")}[command]
    code, out, err = run(*argv, "--heuristic", ref)
    assert (code, out) == (2, ""), err
    assert err.startswith(f"error: --heuristic {ref}: {reason}") and err.count("\n") == 1


@pytest.mark.parametrize("ref, reason", [
    ("nosuchmodule:key", "does not import"),
    ("myheur:nothing", "names no callable"),
    ("myheur:wrong_signature", "has the wrong signature (instance) (too many positional "
                               "arguments): a key is key(instance, j)"),
])
def test_a_bad_priority_reference_is_one_line(run, plugins, ref, reason):
    code, out, err = run("simulate", EXAMPLE, "--heuristic", "R-LIST-0", "--priority", ref)
    assert (code, out) == (2, "")
    assert err.startswith(f"error: --priority {ref}: {reason}") and err.count("\n") == 1


def test_a_reference_needs_a_family_without_a_library(run, plugins):
    code, out, err = run("gap", "--heuristic", "myheur:good", "-q")
    assert (code, out) == (2, "")
    assert err.startswith("error: --heuristic myheur:good: a MODULE:FUNCTION reference does "
                          "not say its family: give --family")


def test_simulate_runs_a_plugin_with_its_params(run, plugins):
    code, out, err = run("simulate", EXAMPLE, "--heuristic", "myheur:good", "--json")
    assert code == 0, err
    base = json.loads(out)
    assert base["heuristic"] == "myheur:good" and base["priority"] is None
    code, out, _ = run("simulate", EXAMPLE, "--heuristic", "myheur:good", "--param", "shift=0",
                       "--json")
    assert json.loads(out)["objective"] == base["objective"]
    code, out, err = run("simulate", EXAMPLE, "--heuristic", "myheur:good", "--param",
                         "colour=red")
    assert (code, err) == (2, "error: --param colour: is not a parameter of myheur:good "
                              "(choose from shift)\n")
    code, out, err = run("list", "--family", "rigid")  # a reference is not registered
    assert "myheur" not in out


def test_simulate_checks_what_a_plugin_returns(run, plugins):
    code, out, err = run("simulate", EXAMPLE, "--heuristic", "myheur:infeasible")
    assert (code, out) == (1, "") and err.startswith("error: invalid solution: ")
    code, out, err = run("simulate", EXAMPLE, "--heuristic", "myheur:raiser")
    assert (code, out, err) == (1, "", "error: myheur:raiser raised ZeroDivisionError: "
                                       "division by zero\n")
    code, out, err = run("simulate", EXAMPLE, "--heuristic", "myheur:liar", "--json")
    true = json.loads(run("simulate", EXAMPLE, "--heuristic", "R-LIST-0", "--json")[1])
    assert code == 0 and json.loads(out)["objective"] == true["objective"]
    assert err.startswith("warning: myheur:liar: objective ") and err.count("\n") == 1
    code, out, err = run("simulate", EXAMPLE, "--heuristic", "myheur:unprintable", "--json")
    assert (code, out, err) == (1, "", "error: invalid solution: myheur:unprintable's result "
                                       "cannot be printed (TypeError: Object of type set is not "
                                       "JSON serializable)\n")
    code, out, err = run("simulate", EXAMPLE, "--heuristic", "myheur:hang", "--time-limit",
                         "0.2")
    assert (code, err) == (1, "error: myheur:hang did not return within 0.2 s "
                              "(--time-limit)\n")


@pytest.mark.parametrize("heuristic", ["R-LIST-0", "R-LIST-Q", "R-SHELFFILL-NB"])
def test_a_priority_key_of_ones_own(run, plugins, heuristic):
    """``key(instance, j)``, the smallest first: the narrowest job first is SPT's dual, HPA
    reversed; here it must equal LPA (smallest p first, ties by index)."""
    mine = json.loads(run("simulate", EXAMPLE, "--heuristic", heuristic, "--priority",
                          "myheur:key", "--json")[1])
    lpa = json.loads(run("simulate", EXAMPLE, "--heuristic", heuristic, "--priority", "LPA",
                         "--json")[1])
    assert mine["priority"] == "myheur:key"
    assert (mine["objective"], mine["solution"]) == (lpa["objective"], lpa["solution"])


def test_moldable_heuristics_take_a_key_too(run, plugins):
    (Path("mkeys.py")).write_text("def heavy(instance, j):\n    return -instance.w[j]\n")
    for h in ("LPA-LIST", "BATCH-LIST", "MINAREA"):
        code, out, err = run("simulate", MOLDABLE, "--heuristic", h, "--priority", "mkeys:heavy",
                             "--json")
        assert code == 0, err
        assert json.loads(out)["priority"] == "mkeys:heavy"


def test_simulate_time_limit_bounds_built_in_heuristics_too(run, tmp_path):
    code, _, _ = run("generate", "--family", "rigid", "--preset", "paper-default", "--count",
                     "1", "--seed", "1", "--out", tmp_path)
    big = tmp_path / "paper-default-1-0000.json"
    code, out, err = run("simulate", big, "--heuristic", "R-LIST-Q", "--qbar", "0.5",
                         "--time-limit", "0.01")
    assert (code, out, err) == (1, "", "error: R-LIST-Q/LPT did not return within 0.01 s "
                                       "(--time-limit)\n")
    code, out, err = run("simulate", big, "--heuristic", "R-LIST-Q", "--time-limit", "60")
    assert code == 0, err
