"""`resilsched.solution.output_jsonable`: the numbers of a command's ``--json``, every one a JSON
number with its exact value beside it, while `to_jsonable` keeps the ``"p/q"`` strings that
instance files, result stores and libraries read back."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np

from resilsched.schedule import Attempt, Schedule
from resilsched.solution import HeuristicResult, Solution, Status, output_jsonable, to_jsonable
from tests.support.json_numbers import exact_mismatches, number_strings


def test_a_fraction_under_a_key_is_a_float_with_its_exact_value_beside_it():
    out = output_jsonable({"end": Fraction(9, 2), "p": Fraction(4), "n": np.int64(3),
                           "x": 2.5, "name": "R-SHELF-B"})
    assert out == {"end": 4.5, "end_exact": "9/2", "p": 4, "n": 3, "x": 2.5,
                   "name": "R-SHELF-B"}
    assert type(out["p"]) is int and type(out["n"]) is int
    assert list(out) == ["end", "end_exact", "p", "n", "x", "name"]  # the twin follows


def test_a_list_has_a_list_of_the_same_shape_beside_it_only_when_it_holds_a_fraction():
    out = output_jsonable({"t": (1, Fraction(3, 2), 2.0), "ints": [Fraction(2), 3],
                           "running": [[0, 2, Fraction(1, 2)], [1, 1, 1]],
                           "rows": [{"start": Fraction(1, 3)}, {"start": 0}]})
    assert out["t"] == [1, 1.5, 2.0] and out["t_exact"] == [None, "3/2", None]
    assert out["ints"] == [2, 3] and "ints_exact" not in out
    assert out["running"] == [[0, 2, 0.5], [1, 1, 1]]
    assert out["running_exact"] == [[None, None, "1/2"], None]
    assert out["rows"] == [{"start": 1 / 3, "start_exact": "1/3"}, {"start": 0}]
    assert "rows_exact" not in out  # a dict in a list names its own exact values
    assert number_strings(out) == [] and exact_mismatches(out) == []


def test_typed_payloads_and_the_top_level():
    sched = Schedule((Attempt(0, 1, 0, Fraction(11, 2), 2, False),), Fraction(11, 2))
    out = output_jsonable({"solution": sched, "shelves": [(0, Fraction(11, 2))]})
    assert out["solution"]["makespan_exact"] == "11/2"
    assert out["solution"]["attempts"][0]["end"] == 5.5
    assert out["shelves"] == [[0, 5.5]] and out["shelves_exact"] == [[None, "11/2"]]
    assert output_jsonable(Fraction(1, 4)) == 0.25 and output_jsonable([Fraction(6, 3)]) == [2]


def test_to_jsonable_keeps_the_exact_strings_that_stores_and_files_read_back():
    payload = {"t": (Fraction(9, 2), 3), "value": Fraction(17, 3)}
    stored = json.loads(json.dumps(to_jsonable(payload)))
    assert stored == {"t": ["9/2", 3], "value": "17/3"}
    assert Fraction(stored["value"]) == Fraction(17, 3)


def test_results_write_their_payloads_by_the_output_rule():
    res = HeuristicResult(Fraction(11, 2), "H", extra={"shelves": [{"end": Fraction(11, 2)}],
                                                       "bound": Fraction(5, 2)})
    d = res.to_dict()
    assert d["shelves"] == [{"end": 5.5, "end_exact": "11/2"}]
    assert d["bound"] == 2.5 and d["bound_exact"] == "5/2"
    sol = Solution(Fraction(19, 2), Fraction(19, 2), Status.OPTIMAL, "m", "s", 0.0,
                   schedule={"expected_makespan": Fraction(19, 2)},
                   info={"portfolio": {"schedules": [{"source": "H", "value": Fraction(1, 3)}]}})
    d = sol.to_dict()
    assert d["solution"] == {"expected_makespan": 9.5, "expected_makespan_exact": "19/2"}
    (row,) = d["info"]["portfolio"]["schedules"]
    assert row["value_exact"] == "1/3"
    assert number_strings(d) == [] and exact_mismatches(d) == []


def test_the_walker_finds_number_strings_and_wrong_twins():
    doc = {"end": "11/2", "a": [{"x": "3"}], "name": "R-LIST-0", "default_exact": "cpsat",
           "t": [1.5], "t_exact": ["3/2"], "u": 1.0, "u_exact": "3/2", "v_exact": "1/2"}
    assert number_strings(doc) == ["$.end: '11/2'", "$.a[0].x: '3'"]
    assert exact_mismatches(doc) == ["$.u_exact: '3/2' beside 1.0",
                                     "$.v_exact: no 'v' beside it"]
