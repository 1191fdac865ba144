"""Certificates: round trip through the metadata, and when a stored one does not hold."""

from fractions import Fraction

import pytest

from resilsched.library.certificate import Certificate, compare, same
from resilsched.solution import Solution, Status


def _cert(status, lo, hi, opt=None):
    return Certificate(status, lo, hi, opt, "m", "s", 0.1, 10.0, {"deterministic": True})


@pytest.mark.parametrize("value", [37, Fraction(31, 5), 0.8646256297])
def test_round_trip_keeps_exact_values(value):
    sol = Solution(value, value, Status.OPTIMAL, "m", "cp-sat", 0.5)
    cert = Certificate.from_solution(sol, "min", time_limit=10.0, options={"workers": 1},
                                     proof_time=0.1234)
    meta = cert.to_metadata()
    if isinstance(value, Fraction):
        assert meta["optimum_exact"] == "31/5" and meta["optimum"] == 6.2
    back = Certificate.from_metadata(meta)
    assert back.optimum == value and type(back.optimum) is type(value)
    assert back.is_optimal and back.proof_time == 0.123 and back.method == "m"
    assert {"resilsched", "python", "ortools", "highspy"} <= set(back.versions)


def test_bounds_follow_the_sense():
    sol = Solution(12, 10, Status.FEASIBLE, "m", "s", 1.0)
    low = Certificate.from_solution(sol, "min", time_limit=1, options={}, proof_time=1)
    assert (low.lower_bound, low.upper_bound) == (10, 12)
    assert low.reference("min") == (10, "bound") and low.incumbent("min") == 12
    sol = Solution(0.5, 0.7, Status.FEASIBLE, "m", "s", 1.0)
    high = Certificate.from_solution(sol, "max", time_limit=1, options={}, proof_time=1)
    assert (high.lower_bound, high.upper_bound) == (0.5, 0.7)
    assert high.reference("max") == (0.7, "bound") and high.incumbent("max") == 0.5
    assert "optimum" not in high.to_metadata()


def test_compare_accepts_a_reproduced_optimum_and_consistent_bounds():
    assert compare(_cert("optimal", 10, 10, 10), _cert("optimal", 10, 10, 10)) == []
    assert compare(_cert("feasible", 8, 12), _cert("optimal", 10, 10, 10)) == []
    assert compare(_cert("feasible", 8, 12), _cert("feasible", 9, 14)) == []
    assert compare(_cert("optimal", 0.5, 0.5, 0.5), _cert("optimal", 0.5 + 1e-9, 0.5, 0.5)) == []


def test_compare_flags_what_does_not_hold_with_both_values():
    msgs = compare(_cert("optimal", 10, 10, 10), _cert("optimal", 9, 9, 9))
    assert "stored optimum 10 not reproduced" in msgs[0] and "optimum 9" in msgs[0]
    assert "stored lower_bound 10 is beyond a solution of value 9" in msgs[1]
    msgs = compare(_cert("optimal", 10, 10, 10), _cert("feasible", 8, 12))
    assert "not reproduced: the re-solve ends feasible with bounds [8, 12]" in msgs[0]
    [msg] = compare(_cert("feasible", 8, 12), _cert("optimal", 13, 13, 13))
    assert "stored upper_bound 12 is below the re-solve's proven lower bound 13" in msg
    [msg] = compare(_cert("feasible", 11, 12), _cert("optimal", 10, 10, 10))
    assert "stored lower_bound 11 is beyond a solution of value 10" in msg
    assert "exceeds its upper_bound" in compare(_cert("feasible", 12, 11), _cert("feasible",
                                                                                   9, 14))[0]


def test_malformed_metadata_is_a_one_line_error():
    with pytest.raises(ValueError, match="certificate is missing"):
        Certificate.from_metadata({"optimum": 3})
    with pytest.raises(ValueError, match="optimum is missing"):
        Certificate.from_metadata({"certificate": {"status": "optimal"}, "lower_bound": 3})
    with pytest.raises(ValueError, match="is not a number"):
        Certificate.from_metadata({"certificate": {"status": "feasible"}, "lower_bound": "x"})
    assert same(Fraction(1, 3), 1 / 3) and not same(3, 4)
