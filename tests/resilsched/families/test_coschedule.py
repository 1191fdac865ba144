"""Registration of the family: smoke suite, exact models, heuristics, bounds, CLI solve."""

from __future__ import annotations

import json
import time

import pytest

from resilsched.registry import get_family
from resilsched.solution import Status
from resilsched.validation.packs import check_packs
from tests.support.coschedule.helpers import opt

FAM = get_family("coschedule")


def test_registration_shape():
    assert FAM.name == "coschedule" and FAM.spec == "001" and FAM.sense == "min"
    assert FAM.default_exact in FAM.exact
    for name in ("PACK-APPROX", "MAKE-PACK"):
        assert name in FAM.heuristics
    for name in ("kinp-ilp", "kinp-ilp-strong", "setpart-cg", "setpart-full", "setpart-bp",
                 "enumeration", "matching", "matching-networkx"):
        assert name in FAM.exact


def test_smoke_suite_is_fast_and_optimal():
    cases = FAM.smoke_suite()
    assert 5 <= len(cases) <= 8
    for case in cases:
        inst = case.instance
        assert 4 <= inst.n <= 8 and 4 <= inst.p <= 8 and 2 <= inst.k <= 3
        t0 = time.perf_counter()
        sol = FAM.exact[FAM.default_exact].solve(inst, None, time_limit=10)
        assert time.perf_counter() - t0 < 1.0
        assert sol.status is Status.OPTIMAL and sol.objective == opt(inst)
        for h in FAM.heuristics.values():
            res = h.run(inst, None, h.default_priority, seed=0)
            FAM.validate(case, res)
            assert res.objective >= sol.objective
            g = h.guarantee(inst, h.default_priority) if h.guarantee else None
            if g is not None:
                assert res.objective <= g * sol.objective
        for b in FAM.bounds.values():
            assert b.compute(inst, None) <= sol.objective


def test_generators_are_seeded():
    for g in FAM.generators.values():
        a = [i.to_dict() for i in g.generate(3, 2)]
        assert a == [i.to_dict() for i in g.generate(3, 2)]


def test_from_dict_then_every_applicable_exact_model(tmp_path):
    inst = FAM.smoke_suite()[1].instance  # k = 2
    d = json.loads(json.dumps(inst.to_dict()))
    back = FAM.from_dict(d)
    best = opt(back)
    for name, model in FAM.exact.items():
        sol = model.solve(back, None, time_limit=120)
        assert sol.status is Status.OPTIMAL, name
        assert sol.objective == best and check_packs(back, sol.payload) == best, name


@pytest.mark.parametrize("method", ["setpart-cg", "kinp-ilp-strong", "enumeration"])
def test_cli_solve_prints_the_packs(run, tmp_path, method):
    inst = FAM.smoke_suite()[2].instance
    path = tmp_path / "inst.json"
    inst.to_json(path)
    code, out, err = run("solve", path, "--method", method, "--json")
    assert code == 0, err
    res = json.loads(out)
    assert res["status"] == "optimal" and res["objective"] == opt(inst)
    assert check_packs(inst, res["solution"]) == res["objective"]
