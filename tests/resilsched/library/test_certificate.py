"""Certificates: round trip through the metadata, and when a stored one does not hold."""

from fractions import Fraction

import pytest

from resilsched.library.certificate import (
    Certificate,
    coherence,
    compare,
    reproduced,
    same,
)
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
    assert "not reproduced: the re-solve ends with bounds [8, 12] (feasible)" in msgs[0]
    [msg] = compare(_cert("feasible", 8, 12), _cert("optimal", 13, 13, 13))
    assert "stored upper_bound 12 is below the re-solve's proven lower bound 13" in msg
    [msg] = compare(_cert("feasible", 11, 12), _cert("optimal", 10, 10, 10))
    assert "stored lower_bound 11 is beyond a solution of value 10" in msg
    assert "exceeds its upper_bound" in compare(_cert("feasible", 12, 11), _cert("feasible",
                                                                                   9, 14))[0]


GOOD = {"optimum": 3, "lower_bound": 3, "upper_bound": 3,
        "certificate": {"status": "optimal", "method": "m", "solver": "s", "proof_time": 0.1,
                        "time_limit": 10.0, "options": {"workers": 1}, "versions": {}}}


def _with(**changes):
    meta = {**GOOD, "certificate": dict(GOOD["certificate"])}
    for key, value in changes.items():
        target = meta["certificate"] if key.startswith("c_") else meta
        target[key.removeprefix("c_")] = value
    return meta


@pytest.mark.parametrize("meta, message", [
    ({"optimum": 3}, "metadata.certificate is missing"),
    ({"certificate": {"status": "optimal"}, "lower_bound": 3}, "optimum is missing"),
    (_with(lower_bound="x"), "metadata.lower_bound='x' must be a finite number"),
    (_with(optimum=float("inf")), "metadata.optimum=inf must be a finite number"),
    (_with(optimum=True), "metadata.optimum=True must be a finite number"),
    (_with(upper_bound=10**19), "metadata.upper_bound=10000000000000000000 must be a finite"),
    (_with(optimum_exact="1/0"), 'metadata.optimum_exact=\'1/0\' must be an exact rational'),
    (_with(optimum_exact="1e999"), "metadata.optimum_exact='1e999' must be an exact rational"),
    (_with(optimum_exact=7), "metadata.optimum_exact=7 must be an exact rational"),
    (_with(optimum_exact="9" * 25), "must be of magnitude at most"),
    (_with(optimum_exact="7/2"), "metadata.optimum=3 differs from its exact value"),
    (_with(c_status="proven"), "metadata.certificate.status='proven' must be one of optimal"),
    (_with(c_status=None), "metadata.certificate.status=None must be one of"),
    (_with(c_options=[1]), "metadata.certificate.options=[1] must be an object"),
    (_with(c_versions="x"), "metadata.certificate.versions='x' must be an object"),
    (_with(c_method=5), "metadata.certificate.method=5 must be a string"),
    (_with(c_proof_time=float("nan")), "metadata.certificate.proof_time=nan must be"),
    (_with(c_proof_time=-1), "proof_time must be >= 0"),
    (_with(c_time_limit="10"), "metadata.certificate.time_limit='10' must be a number"),
])
def test_malformed_metadata_is_a_one_line_error(meta, message):
    with pytest.raises(ValueError) as info:
        Certificate.from_metadata(meta)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_exact_values_are_read_exactly():
    cert = Certificate.from_metadata(_with(optimum=3.5, optimum_exact="7/2", lower_bound=3.5,
                                           lower_bound_exact="7/2", upper_bound=3.5))
    assert cert.optimum == Fraction(7, 2) and cert.lower_bound == Fraction(7, 2)
    assert Certificate.from_metadata(GOOD).options == {"workers": 1}
    assert same(Fraction(1, 3), 1 / 3) and not same(3, 4)


def test_coherence_and_reproduction():
    assert coherence(_cert("optimal", 9, 10, 10)) == \
        ["stored optimum 10 differs from its bounds [9, 10]"]
    assert reproduced(_cert("feasible", 8, 12), _cert("feasible", 8, 12)) == []
    assert reproduced(_cert("optimal", 8, 8, 8), _cert("feasible", 7, 9)) == []  # compare's
    [msg] = reproduced(_cert("feasible", 7, 12), _cert("feasible", 8, 12))
    assert msg == "stored lower_bound 7 not reproduced: the re-solve gives 8"
    [msg] = reproduced(_cert("feasible", 8, 12), _cert("optimal", 10, 10, 10))
    assert msg == ("stored status feasible not reproduced: the re-solve ends with optimum 10")
