"""Every number in a command's ``--json`` output is a JSON number (docs/architecture.md,
"`objective` and `bound` are always JSON numbers"): no ``"11/2"`` anywhere, an exact
non-integral value beside its number as ``NAME_exact``, a list's as a list ``NAME_exact`` of the
same shape (`resilsched.solution.output_jsonable`; the walker is tests/support/json_numbers.py).

The escapes this guards: the shelves of the rigid shelf heuristics (``simulate``), the
portfolio's records (``solve``: ``info.portfolio.schedules[*].objective``,
``bounds[*].value``), the online policies' ``expected_makespan`` and their tables' remaining
times (``solution.policy[*].running``).
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from resilsched.registry import get_family
from tests.support.json_numbers import exact_mismatches, number_strings

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
FAMILIES = ("rigid", "moldable", "coschedule", "desktop", "malleable", "online", "worksharing")


def _json(run, *argv: object) -> dict:
    code, out, err = run(*argv, "--json")
    assert code == 0, err
    return json.loads(out)


def _assert_numbers(doc: dict, label: str) -> None:
    assert number_strings(doc) == [], label
    assert exact_mismatches(doc) == [], label


@pytest.mark.parametrize("family", FAMILIES)
def test_simulate_and_solve_give_numbers_on_every_example(run, family):
    """Every heuristic of the family (with its schedule, ``-v``) and the portfolio solve, on
    the family's example."""
    example = EXAMPLES / f"{family}-small.json"
    for name in get_family(family).heuristics:
        doc = _json(run, "simulate", example, "--heuristic", name, "-q", "-v")
        _assert_numbers(doc, f"simulate {family} {name}")
    doc = _json(run, "solve", example, "-q", "--time-limit", "30")
    _assert_numbers(doc, f"solve {family}")


def test_a_shelf_bound_is_a_number_with_its_exact_value_beside_it(run):
    doc = _json(run, "simulate", EXAMPLES / "rigid-small.json", "--heuristic", "R-SHELF-B", "-q")
    shelf = doc["shelves"][1]
    assert shelf["end"] == 5.5 and shelf["end_exact"] == "11/2"
    assert doc["shelves"][2]["start"] == 5.5 and doc["shelves"][2]["start_exact"] == "11/2"
    assert "start_exact" not in doc["shelves"][0]  # an integral value is an int, alone
    assert doc["shelves"][0]["start"] == 0 and type(doc["shelves"][0]["start"]) is int


def test_the_portfolio_records_hold_numbers(run):
    rigid = _json(run, "solve", EXAMPLES / "rigid-small.json", "-q")["info"]["portfolio"]
    assert rigid["model"]["objective"] == 9.5 and rigid["model"]["objective_exact"] == "19/2"
    assert all(isinstance(r["objective"], (int, float)) for r in rigid["schedules"]
               if "objective" in r)
    moldable = _json(run, "solve", EXAMPLES / "moldable-small.json", "-q")["info"]["portfolio"]
    first = moldable["bounds"][0]
    assert first["value"] == pytest.approx(34 / 3) and first["value_exact"] == "34/3"


def test_a_list_with_exact_values_has_a_list_of_them_beside_it(run):
    """The online optimum's table: ``running`` lists ``[job, p, remaining]``; a non-integral
    remaining time is a float, its exact value at the same place of ``running_exact``."""
    doc = _json(run, "solve", EXAMPLES / "rigid-small.json", "--method", "online-optimal",
                "--qbar", "0.2", "-q")
    solution = doc["solution"]
    assert Fraction(solution["expected_makespan_exact"]) == Fraction(doc["objective_exact"])
    row = next(r for r in solution["policy"] if "running_exact" in r)
    assert len(row["running_exact"]) == len(row["running"])
    for numbers, exact in zip(row["running"], row["running_exact"], strict=True):
        assert all(isinstance(x, (int, float)) for x in numbers)
        assert exact is None or exact[:2] == [None, None]
    _assert_numbers(doc, "solve --method online-optimal")


@pytest.mark.parametrize("argv", [
    ["gap", "--family", "rigid", "-q", "--time-limit", "30"],
    ["check", "--family", "online", "-q", "--time-limit", "30"],
    ["library", "verify", "rigid-small", "--sample", "2"],
    ["trace", EXAMPLES / "rigid-trace.swf"],
], ids=["gap", "check", "library-verify", "trace"])
def test_the_other_commands_give_numbers(run, argv):
    _assert_numbers(_json(run, *argv), " ".join(map(str, argv)))


def test_plot_and_export_summaries_give_numbers(run, tmp_path):
    example = EXAMPLES / "rigid-small.json"
    _assert_numbers(_json(run, "plot", example, "--heuristic", "R-SHELF-B", "--out",
                          tmp_path / "g.png", "-q"), "plot")
    _assert_numbers(_json(run, "export", example, "--to", "batsim", "--out",
                          tmp_path / "w.json"), "export")
