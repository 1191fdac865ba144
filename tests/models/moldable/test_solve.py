"""Adversarial fixtures (Thm 7), exact models vs oracles, expected ratio (spec 000 §4.1, §8)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from resilsched.bounds.moldable import L_prime, L_star, batch_count_distribution
from resilsched.heuristics.moldable import lpa_list
from resilsched.heuristics.moldable.allocation import lpa
from resilsched.instances.failures import Scenario, truncated_mass
from resilsched.instances.moldable.adversarial import thm7_instance, thm7_profile
from resilsched.instances.moldable.generators import tiny_exact
from resilsched.instances.moldable.presets import PRESETS
from resilsched.models.moldable import expected_ratio, solve_failure_free, solve_scenario
from resilsched.solution import Status
from resilsched.validation import validate_attempts
from tests.support.moldable.cases import HEURISTICS
from tests.support.moldable.oracle import brute_opt


@pytest.mark.parametrize("P", [16, 64, 100])
def test_theorem7_profile_and_ratio(P):
    s = math.isqrt(P)
    prof = thm7_profile(P)
    assert prof.time(1) == 1 and prof.time(s) == Fraction(1, 2) and prof.time(P) == Fraction(1, s)
    assert prof.is_monotonic(P, rtol=0)
    p_local = int(lpa(thm7_instance(P, 1)[0])[0])
    inst, opt = thm7_instance(P, p_local)
    # OPT is certified by the lower bound L' (= opt) and a matching schedule
    sc = inst.scenario()
    assert L_prime(inst, sc) == pytest.approx(float(opt))
    T = lpa_list(inst, sc, "LPT").objective
    assert T / float(opt) >= math.sqrt(P) / 2 * (1 - 1e-12)
    # the argument holds for every local allocation
    for p in (1, s, s + 1, P):
        inst, opt = thm7_instance(P, p)
        n = inst.n
        T = max(math.ceil(n / (P // p)) * float(prof.time(p)), 0)
        assert T / float(opt) >= math.sqrt(P) / 2 * (1 - 1e-12)


def _tiny_cases():
    out = []
    for k, model in enumerate(["roofline", "communication", "amdahl", "mix", "table"]):
        inst = tiny_exact(k, 3, 3, model)
        out.append((inst, Scenario((1, 0, 1)) if k % 2 else Scenario((0, 1, 0))))
    return out


@pytest.mark.parametrize("case", range(5))
def test_cpsat_matches_brute_force_and_bounds(case):
    inst, sc = _tiny_cases()[case]
    sol = solve_scenario(inst, sc, time_limit=20)
    assert sol.status is Status.OPTIMAL and sol.exact_scaling
    assert sol.objective == brute_opt(inst, sc.failures)
    sched = sol.to_dict()["solution"]
    from resilsched.schedule import Attempt, Schedule

    def exact(d, name):  # the exact value beside the number, where there is one
        return Fraction(d.get(f"{name}_exact", d[name]))

    atts = tuple(Attempt(a["job"], a["k"], exact(a, "start"), exact(a, "end"), a["p"],
                         a["failed"]) for a in sched["attempts"])
    validate_attempts(Schedule(atts, exact(sched, "makespan")), inst.P, sc.failures,
                      inst.time, lambda j, p: 1 <= p <= inst.P)
    lstar = L_star(inst, sc)
    assert float(sol.objective) >= lstar * (1 - 1e-9)
    assert lstar >= L_prime(inst, sc) * (1 - 1e-9)
    for h in HEURISTICS:
        assert h(inst, sc, "LPT").objective >= float(sol.objective) * (1 - 1e-9)


def test_failure_free_model_and_smoke_preset():
    for inst in PRESETS["smoke"][1](0, None):
        sc = inst.scenario()
        sol = solve_scenario(inst, sc, time_limit=10)
        assert sol.status is Status.OPTIMAL
        assert sol.wall_time < 1.0
        ff = solve_failure_free(inst, time_limit=10)
        assert ff.status is Status.OPTIMAL
        assert float(ff.objective) <= float(sol.objective)
        assert float(ff.objective) >= L_star(inst, Scenario.failure_free(inst.n)) * (1 - 1e-9)
        lstar = L_star(inst, sc)
        assert float(sol.objective) >= lstar * (1 - 1e-9)
        assert lstar >= L_prime(inst, sc) * (1 - 1e-9)
        for h in HEURISTICS:
            assert h(inst, sc, "LPT").objective >= float(sol.objective) * (1 - 1e-9)


def test_float_instance_is_never_reported_optimal_when_rounded():
    from resilsched.instances.moldable import MoldableInstance, Power

    inst = MoldableInstance(3, (Power(2.0, 0.37), Power(3.0, 0.81)))
    sol = solve_scenario(inst, Scenario((0, 1)), time_limit=5)
    assert not sol.exact_scaling
    assert sol.status is Status.FEASIBLE
    assert sol.objective >= sol.bound


def test_expected_ratio_by_enumeration():
    inst = tiny_exact(1, 2, 3, "communication")
    inst = type(inst)(inst.P, inst.jobs, lam=0.02)
    res = expected_ratio(inst, lpa_list, "LPT", max_total_failures=2, time_limit=5)
    q = [float(x) for x in inst.q()]
    assert res["truncated_mass"] == pytest.approx(float(truncated_mass(q, 2)), abs=1e-12)
    assert res["scenarios"] == 6 and res["all_optimal"]
    assert res["expected_ratio"] >= res["covered_mass"] * (1 - 1e-9)


def test_lemma6_batch_count_distribution_monte_carlo():
    q = np.array([0.3, 0.1, 0.5, 0.05])
    Qb = batch_count_distribution(q, 8)
    assert Qb.sum() == pytest.approx(1.0, abs=1e-3)
    rng = np.random.default_rng(1)
    F = rng.geometric(1 - q, size=(20000, q.size)) - 1
    b = np.ceil(np.log2(F.max(axis=1) + 2)).astype(int)
    for k in range(1, 5):
        emp = float(np.mean(b == k))
        assert abs(emp - Qb[k - 1]) <= 4 * math.sqrt(Qb[k - 1] * (1 - Qb[k - 1]) / 20000) + 1e-3
