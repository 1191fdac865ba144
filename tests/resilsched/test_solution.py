"""The JSON contract of issue 24, point 2 (decision T21, docs/architecture.md): in ``"solution"``
times are numbers, the exact value beside them as a string (``end`` / ``end_exact``) where it
is a non-integral rational; ``simulate --json``, ``solve --json --method M`` and the portfolio
(``solve --json``) hold a family's schedule at the same paths."""

from __future__ import annotations

import enum
import json
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from resilsched.solution import to_jsonable
from tests.support.plot.fixtures import CASES, DrawCase

#: the paths of a family's schedule under "solution" (docs/architecture.md)
PATHS = {
    "rigid": ("makespan", "attempts"),
    "moldable": ("makespan", "attempts"),
    "coschedule": ("packs",),
    "worksharing": ("W", "pieces", "workers"),
    "malleable": ("initial", "finish", "phases"),
    "desktop": ("intervals", "horizon"),
}

#: string leaves a schedule may hold besides the exact values (names, not times)
NAMES = {"heuristic", "policy", "model", "trace_source", "phase_fields", "end_mode", "progress",
         "baseline", "improve_rule", "on_stuck", "lookahead_pool", "source", "kind", "rule"}


def _leaves(x, key=""):
    """(key, value) of every scalar in `x`, the key the innermost dict key above it."""
    if isinstance(x, dict):
        for k, v in x.items():
            yield from _leaves(v, k)
    elif isinstance(x, list):
        for v in x:
            yield from _leaves(v, key)
    else:
        yield key, x


def _exact_pairs(x):
    """(number, exact string) for every ``NAME`` / ``NAME_exact`` pair of a dict in `x`."""
    if isinstance(x, dict):
        for k, v in x.items():
            if k.endswith("_exact") and k[:-6] in x:
                yield x[k[:-6]], v
            yield from _exact_pairs(v)
    elif isinstance(x, list):
        for v in x:
            yield from _exact_pairs(v)


def _check_schedule(family: str, solution: dict, where: str) -> None:
    missing = [p for p in PATHS[family] if p not in solution]
    assert not missing, f"{where}: solution has no {missing} (keys {sorted(solution)})"
    schedule = {p: solution[p] for p in PATHS[family]}
    if "phase_fields" in solution:  # malleable phases are rows, their fields named once
        fields = solution["phase_fields"]
        schedule["phases"] = [dict(zip(fields, row, strict=True)) for row in schedule["phases"]]
    for key, value in _leaves(schedule):
        if isinstance(value, str):
            assert key.endswith("_exact") or key in NAMES, f"{where}: {key}={value!r}"
        elif value is not None:
            assert isinstance(value, (int, float)), f"{where}: {key}={value!r}"
    pairs = list(_exact_pairs(solution))
    for number, exact in pairs:
        value = Fraction(exact)
        assert value.denominator != 1, f"{where}: {exact} is integral, it needs no string"
        assert isinstance(number, float) and math.isclose(number, value, rel_tol=1e-12), \
            f"{where}: {number} beside {exact}"


def _json(run, *argv) -> dict:
    code, out, err = run(*argv, "--json", "-q")
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize("case", CASES, ids=[c.label for c in CASES])
def test_simulate_and_solve_hold_the_schedule_at_one_path(run, case: DrawCase):
    fam = case.load()[0]
    sim = _json(run, "simulate", case.path, "--heuristic", case.heuristic)["solution"]
    _check_schedule(fam.name, sim, f"simulate --heuristic {case.heuristic}")
    alone = _json(run, "solve", case.path, "--method", case.method, "--time-limit", "30")
    _check_schedule(fam.name, alone["solution"], f"solve --method {case.method}")
    portfolio = _json(run, "solve", case.path, "--time-limit", "30")
    _check_schedule(fam.name, portfolio["solution"], "solve (portfolio)")


def test_a_rational_time_is_a_number_with_its_exact_value_beside_it(run):
    rigid = next(c for c in CASES if c.label == "rigid")
    sim = _json(run, "simulate", rigid.path, "--heuristic", "R-LIST-0")["solution"]
    assert sim["makespan"] == 9.5 and sim["makespan_exact"] == "19/2"
    assert any("end_exact" in a for a in sim["attempts"])
    assert all(isinstance(a["end"], (int, float)) for a in sim["attempts"])
    solved = _json(run, "solve", rigid.path, "--method", "cpsat-scenario")["solution"]
    assert solved["schedule"]["attempts"] == solved["attempts"]  # the former path stays


def test_to_jsonable_gives_json_types_and_leaves_plain_numbers_as_they_are():
    class Kind(enum.IntEnum):
        A = 3

    big = 10**30
    out = to_jsonable({1: (np.float64(0.5), np.int64(7), Fraction(9, 2), Fraction(4)),
                       "x": [True, None, "s", big, 2.5, Kind.A]})
    assert out == {"1": [0.5, 7, "9/2", 4], "x": [True, None, "s", big, 2.5, 3]}
    assert [type(v) for v in out["1"]] == [float, int, str, int]
    assert out["x"][3] is big and type(out["x"][0]) is bool
    json.dumps(out)


def test_both_online_optima_read_alike_in_text(run):
    """The rigid instance's online optimum is an expected makespan too, its value in the format
    of every headline: no "makespan 7.914..." (audit finding 5)."""
    examples = Path(__file__).resolve().parents[2] / "examples"
    code, out, err = run("solve", examples / "rigid-small.json", "--method", "online-optimal",
                         "--qbar", "0.2", "-q")
    assert code == 0, err
    head = out.splitlines()[0]
    assert head.startswith("rigid / online-optimal: expected makespan 7.914 s (status optimal, "
                           "exact value, a fraction of "), head
    assert "..." not in head
    code, out, err = run("solve", examples / "online-small.json", "--method", "online-optimal",
                         "-q")
    assert code == 0, err
    assert out.startswith("online / online-optimal: expected makespan 1990323005/347086116 = "
                          "5.7344 s (status optimal, ")
