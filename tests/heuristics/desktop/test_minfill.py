"""MinFill (heuristics/desktop/minfill.py, decision D-32): every allocation keeps the rule and
its horizon (the oracles of cases.py and the family's validator), never below a proven
optimum, its subset sum exact, and a spent deadline runs no probe."""

import itertools

import numpy as np
import pytest

from resilsched.deadline import Deadline
from resilsched.heuristics.desktop import minfill
from resilsched.heuristics.desktop.minfill import _subset, min_fill, min_fill_search
from resilsched.heuristics.desktop.sizefit import size_fit_search
from resilsched.instances.desktop.generators import synthetic_instance
from resilsched.validation.desktop import validate_desktop_schedule
from tests.support.desktop.cases import (
    checked_tiny_allocations,
    library_optima,
    random_instance,
    tiny_with_optimum,
)


def test_the_subset_sum_is_exact_and_takes_the_longest():
    rng = np.random.default_rng(5)
    for _ in range(200):
        values = np.unique(rng.integers(1, 20, int(rng.integers(1, 6))))[::-1]
        counts = rng.integers(1, 4, values.size)
        cap = int(rng.integers(1, 60))
        best, take = _subset(values, counts, cap)
        sums = {sum(int(v) * x for v, x in zip(values, xs, strict=True))
                for xs in itertools.product(*(range(int(c) + 1) for c in counts))}
        assert best == max(s for s in sums if s <= cap)
        assert all(0 <= x <= c for x, c in zip(take, counts, strict=True))
        assert sum(int(v) * x for v, x in zip(values, take, strict=True)) == best
    assert _subset(np.array([5, 3]), np.array([1, 2]), 6) == (6, [0, 2])
    assert _subset(np.array([5, 3, 1]), np.array([1, 1, 1]), 6) == (6, [1, 0, 1])


@pytest.mark.parametrize("bits", [minfill.MAX_BITS, 4])
def test_every_allocation_keeps_the_rule_and_its_horizon(bits, monkeypatch):
    monkeypatch.setattr(minfill, "MAX_BITS", bits)  # 4: rooms over 4 s filled longest first
    checked = checked_tiny_allocations(min_fill, 120)
    assert checked >= 150


def test_random_and_synthetic_instances_pass_the_validator():
    rng = np.random.default_rng(11)
    for r in range(60):
        rule = r % 2 == 0
        inst = random_instance(rng, rule)
        found = min_fill_search(inst, rule, 0, int(inst.flat["e"].max()) + 1)
        if found is not None:
            validate_desktop_schedule(inst, found, rule)
    inst = synthetic_instance(20, 300, 4, 104)
    for rule in (True, False):
        found = min_fill_search(inst, rule, 0, int(inst.flat["e"].max()) + 1)
        validate_desktop_schedule(inst, found, rule)
        assert found.policy == "MinFill"


def test_never_below_a_proven_optimum():
    found = 0
    for name, inst, opt in library_optima():
        best = min_fill_search(inst, inst.slack_rule, 0, int(inst.flat["e"].max()) + 1)
        if best is not None:
            validate_desktop_schedule(inst, best, inst.slack_rule)
            assert best.horizon >= opt, name
            found += 1
    for _, rule, inst, expect in tiny_with_optimum(40):
        best = min_fill_search(inst, rule, 0, int(inst.flat["e"].max()) + 1)
        if best is not None:
            validate_desktop_schedule(inst, best, rule)
            assert best.horizon >= expect
            found += 1
    assert found >= 60


def test_a_spent_deadline_runs_no_probe():
    inst = synthetic_instance(20, 300, 4, 104)
    top = int(inst.flat["e"].max()) + 1
    assert min_fill_search(inst, True, 0, top, Deadline(0.0)) is None
    assert min_fill_search(inst, True, 0, top, Deadline(30.0)) is not None


def test_beats_size_fit_on_a_larger_instance():
    inst = synthetic_instance(50, 1000, 7, 107)
    top = int(inst.flat["e"].max()) + 1
    sf = size_fit_search(inst, True, 0, top)
    mf = min_fill_search(inst, True, 0, sf.horizon)
    validate_desktop_schedule(inst, mf, True)
    assert mf.horizon < sf.horizon
