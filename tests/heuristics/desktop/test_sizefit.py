"""SizeFit (heuristics/desktop/sizefit.py, decision D-27): every allocation keeps the rule and
its horizon, checked by the oracles of cases.py and the family's validator; never below a proven
optimum; and better than the 20 variants where the slack matters."""

import pytest

from resilsched.checked import run_checked
from resilsched.heuristics.desktop import build, size_fit_construction
from resilsched.heuristics.desktop.sizefit import ORDERS, VARIANTS, size_fit, size_fit_search
from resilsched.instances.desktop.generators import synthetic_instance
from resilsched.plugin import Case
from resilsched.registry import get_family
from resilsched.validation.desktop import validate_desktop_schedule
from tests.support.desktop.cases import (
    checked_tiny_allocations,
    horizon,
    rule_ok,
    tiny_with_optimum,
)


@pytest.mark.parametrize("order, pair", [(o, p) for o in ORDERS for p in (False, True)])
def test_every_allocation_keeps_the_rule_and_its_horizon(order, pair):
    checked = checked_tiny_allocations(
        lambda inst, lam, rule: size_fit(inst, lam, rule, order, pair), 80)
    assert checked >= 150


def test_the_orders_differ_and_the_search_keeps_the_best():
    inst = synthetic_instance(20, 300, 4, 104)
    lam = size_fit_search(inst, True, 0, int(inst.flat["e"].max()) + 1).horizon + 2000
    by_order = {o: size_fit(inst, lam, True, o) for o in ORDERS}
    assert by_order["length"] is not None and by_order["work"] is not None
    assert by_order["length"] != by_order["work"]  # b_i differ: the windows are visited apart
    found = size_fit_search(inst, True, 0, int(inst.flat["e"].max()) + 1)
    alone = {}
    for variant in VARIANTS:
        import resilsched.heuristics.desktop.sizefit as sizefit

        saved, sizefit.VARIANTS = sizefit.VARIANTS, (variant,)
        try:
            alone[variant] = size_fit_search(inst, True, 0,
                                             int(inst.flat["e"].max()) + 1).horizon
        finally:
            sizefit.VARIANTS = saved
    assert found.horizon <= alone[VARIANTS[0]]  # the first variant alone, then improvements
    assert (found.info["order"], found.info["pairs"]) in VARIANTS
    with pytest.raises(ValueError, match="order"):
        size_fit(inst, lam, True, "random")


def test_pairs_fill_the_end_of_a_window_exactly():
    """Windows 28 and 14 (lambda 29), jobs 8, 7, 6, 6 under the rule. Longest first: the 28
    takes 8 and 7 (S 15; a third job needs t <= 28 - 15 - 8 = 5), the 14 takes one 6 (2 x 6
    <= 14) and a 6 is left. With pairs: after the 8 the rest for jobs <= 8 is 28 - 8 - 8 = 12,
    under 2 x 7, and 6 + 6 = 12 beats the 7 alone; the 14 then takes the 7."""
    from resilsched.instances.desktop import DesktopInstance, Machine

    inst = DesktopInstance((Machine(1, 0, (14,), (1,)), Machine(1, 0, (28,), (1,))),
                           (6, 6, 7, 8), True)
    assert size_fit(inst, 29, True, "length", False) is None
    paired = size_fit(inst, 29, True, "length", True)
    assert paired == {(0, 1): (2,), (1, 1): (3, 1, 0)}
    lists = {ik: list(j) for ik, j in paired.items()}
    assert rule_ok(inst, lists, True) and horizon(inst, lists, True) <= 29


def test_never_below_the_brute_force_optimum():
    found = 0
    for _, rule, inst, expect in tiny_with_optimum(40):
        best = size_fit_search(inst, rule, 0, int(inst.flat["e"].max()) + 1)
        if best is not None:
            validate_desktop_schedule(inst, best, rule)
            assert best.horizon >= expect
            found += 1
    assert found >= 20


def test_the_construction_passes_the_family_checks():
    fam = get_family("desktop")
    assert "SizeFit" in fam.constructions
    inst = synthetic_instance(20, 300, 4, 104)
    case = Case("sizefit", inst, fam.scenario(inst, None))
    entry = fam.constructions["SizeFit"]
    from resilsched.plugin import Heuristic

    wrapped = Heuristic(entry.name, lambda i, s=None, priority=None, *, seed=0:
                        entry.build(i, s), entry.description)
    run = run_checked(fam, wrapped, case, None)
    assert not run.problems and run.scored == run.result.objective


def test_beats_the_variants_on_the_small_preset():
    inst = synthetic_instance(50, 1000, 7, 107)
    variants = min(build(inst, g, local, True)[0].horizon
                   for g in ("GreedySlack", "DAslack") for local in ("LPT", "FFD"))
    res = size_fit_construction(inst)
    validate_desktop_schedule(inst, res.schedule, True)
    assert res.objective < variants


def test_bench_rows_build_the_paper_presets():
    import importlib.util
    import sys
    from pathlib import Path

    path = Path(__file__).resolve().parents[3] / "scripts" / "bench_interval.py"
    spec = importlib.util.spec_from_file_location("bench_interval", path)
    bench = importlib.util.module_from_spec(spec)
    sys.modules["bench_interval"] = bench
    spec.loader.exec_module(bench)
    assert bench.ROWS["desktop-paper"] is bench.desktop_paper
    (desk,) = bench.desktop_paper(23, 1)
    assert (desk.family, desk.instance.m, desk.instance.n) == ("desktop", 500, 10_000)
    (mall,) = bench.malleable_paper(23, 1)
    assert (mall.family, mall.instance.n, mall.instance.p) == ("malleable", 100, 5000)
    assert mall.scenario is None  # the trace is drawn from the mtbf with the seed (MA-3)
