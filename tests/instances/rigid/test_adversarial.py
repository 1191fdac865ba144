"""Adversarial instances of Propositions 3 and 4 and the split-vs-merged instance, in exact
Fractions (spec 002 §6.3, §6.4, §11.2, §11.5 items 3-5)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from resilsched.bounds.rigid import lower_bound, shelf_lb_ratio, shelffill_lpt_lb, t_max
from resilsched.errors import InvalidInstance
from resilsched.heuristics.rigid import PRIORITIES
from resilsched.instances.rigid.adversarial import prop3_instance, prop4_instance, split_vs_merged
from resilsched.validation import validate_rigid_schedule
from tests.support.rigid.heuristic_cases import HEURISTICS, makespan, simulate


def harmonic(P: int) -> Fraction:
    """H_P computed independently of `shelf_lb_ratio`."""
    num, den = 0, 1
    for k in range(1, P + 1):
        num, den = num * k + den, den * k
    return Fraction(num, den)


def test_prop3_instance_shape():
    inst, sc = prop3_instance(4)
    assert inst.P == 4 and inst.p == [1, 1, 1, 1]
    assert inst.t == [1, Fraction(1, 2), Fraction(1, 3), Fraction(1, 4)]
    assert sc.failures == (0, 1, 2, 3)
    assert t_max(inst, sc) == 1 and lower_bound(inst, sc) == 1


@pytest.mark.parametrize("P", range(2, 9))
def test_prop3_every_shelf_priority_gives_H_P(P):
    inst, sc = prop3_instance(P)
    for h in ("R-SHELF-B", "R-SHELF-NB"):
        for pr in PRIORITIES:
            res = simulate(inst, sc, h, pr, seed=P)
            validate_rigid_schedule(inst, sc, res.schedule)
            assert res.objective == harmonic(P) == shelf_lb_ratio(P)
            assert isinstance(res.objective, Fraction)
            # shelf k holds the k-th attempt of J_k..J_P and has height 1/k
            heights = [sh["end"] - sh["start"] for sh in res.extra["shelves"]]
            assert heights == [Fraction(1, k) for k in range(1, P + 1)]


def test_prop3_P4_is_25_over_12():
    inst, sc = prop3_instance(4)
    assert simulate(inst, sc, "R-SHELF-NB", "SPT").objective == Fraction(25, 12)


@pytest.mark.parametrize("P", range(2, 9))
def test_prop3_fill_lpt_and_lists_reach_the_optimum(P):
    inst, sc = prop3_instance(P)
    for h in ("R-SHELFFILL-B", "R-SHELFFILL-NB"):
        res = simulate(inst, sc, h, "LPT")
        validate_rigid_schedule(inst, sc, res.schedule)
        assert res.objective == 1
    for h in ("R-LIST-0", "R-LIST-1", "R-LIST-Q"):
        for pr in PRIORITIES:
            res = simulate(inst, sc, h, pr, seed=1)
            validate_rigid_schedule(inst, sc, res.schedule)
            assert res.objective == 1


@pytest.mark.parametrize("P, count", [(2, 5), (3, 29), (4, 259)])
def test_prop4_shelf_lpt_gives_exactly_P(P, count):
    eps = Fraction(1, 100)
    inst, sc, cert = prop4_instance(P, eps)
    assert inst.n == count == P + P**P - 1
    for h in ("R-SHELFFILL-B", "R-SHELFFILL-NB", "R-SHELF-B", "R-SHELF-NB"):
        res = simulate(inst, sc, h, "LPT")
        validate_rigid_schedule(inst, sc, res.schedule)
        assert res.objective == P
        assert makespan(inst, sc, h, "LPT") == P
    # the certificate is a valid schedule with makespan 1 + (1+eps)(P-1)/P
    validate_rigid_schedule(inst, sc, cert)
    assert cert.makespan == 1 + (1 + eps) * Fraction(P - 1, P)
    assert max(a.end for a in cert.attempts) == cert.makespan
    assert lower_bound(inst, sc) <= cert.makespan < 2
    assert Fraction(P) / cert.makespan == shelffill_lpt_lb(P, eps)


def test_prop4_P3_certificate_is_251_over_150():
    inst, sc, cert = prop4_instance(3)
    assert cert.makespan == Fraction(251, 150)
    # a list schedule does much better than the shelves here
    res = simulate(inst, sc, "R-LIST-0", "LPT")
    validate_rigid_schedule(inst, sc, res.schedule)
    assert res.objective < 3


def test_prop4_rejects_bad_parameters():
    with pytest.raises(InvalidInstance, match="eps"):
        prop4_instance(3, Fraction(0))
    with pytest.raises(InvalidInstance, match="eps"):
        prop4_instance(2, Fraction(1))
    with pytest.raises(InvalidInstance, match="P"):
        prop4_instance(1)
    with pytest.raises(InvalidInstance, match="P"):
        prop3_instance(0)


def test_split_vs_merged_list_greedy_gives_4():
    inst, sc = split_vs_merged()
    assert inst.P == 2 and sc.failures == (1, 0, 0)
    res = simulate(inst, sc, "R-LIST-0", "LPT")
    validate_rigid_schedule(inst, sc, res.schedule)
    assert res.objective == 4
    assert lower_bound(inst, sc) == 3  # = A(f)/P = (2 + 2 + 2)/2: the per-attempt OPT is 3
    for h in HEURISTICS:
        r = simulate(inst, sc, h, "LPT")
        validate_rigid_schedule(inst, sc, r.schedule)
        assert r.objective >= 3
