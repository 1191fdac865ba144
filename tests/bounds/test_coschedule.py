"""Lower bounds (spec 001 §7 "bounds/kinp.py", test 8): every bound <= OPT."""

from __future__ import annotations

from fractions import Fraction

import pytest

from resilsched.bounds.coschedule import effective_k, lb_area, lb_combined, lb_max, lb_packs
from resilsched.instances.coschedule import CoscheduleInstance
from resilsched.models.coschedule.setpart.colgen.root_lp import setpart_lp_bound
from tests.support.coschedule.helpers import opt, tiny


@pytest.mark.parametrize("seed", range(30))
def test_every_bound_is_below_opt(seed):
    kind = ("integer", "amdahl", "nospeedup")[seed % 3]
    n, p = 3 + seed % 6, 2 + seed % 7
    inst = tiny(seed, n, p, 1 + seed % p, kind=kind, pmin=seed % 5 == 4 and kind != "nospeedup")
    best = float(opt(inst))
    tol = 1e-9 * max(1.0, best)
    for bound in (lb_area, lb_max, lb_packs, lb_combined, setpart_lp_bound):
        assert float(bound(inst)) <= best + tol, bound.__name__
    assert lb_combined(inst) >= lb_max(inst)


def test_bound_values_on_a_hand_instance():
    inst = CoscheduleInstance(p=2, k=2, times=((6, 4), (4, 3), (2, 2)))
    assert lb_area(inst) == Fraction(12, 2)
    assert lb_max(inst) == 4
    assert lb_packs(inst) == 4 + 2  # a sorted = 4, 3, 2: a_1 + a_3
    assert lb_combined(inst) == 6
    assert opt(inst) >= 6


def test_effective_k_uses_pmin():
    inst = CoscheduleInstance(p=4, k=4, times=((4, 2, 2, 2),) * 3, pmin=(2, 2, 2))
    assert effective_k(inst) == 2
