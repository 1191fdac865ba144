"""Eq. 4 of spec 000 on tiny instances: the expected ratio E[T_ALG / T_OPT] by enumeration (§1.6).

`expected_ratio` enumerates the scenarios with sum_j f_j <= F, weights T_ALG(f) / T_OPT(f) by
their probability Q(f) and reports the truncated mass 1 - sum Q(f): the true expectation lies in
[expected_ratio, expected_ratio + truncated_mass r_max] for any bound r_max on the ratio.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from resilsched.heuristics.moldable import lpa_list
from resilsched.instances.failures import enumerate_scenarios
from resilsched.models.moldable.solve import solve_scenario
from resilsched.solution import HeuristicResult


def expected_ratio(instance, heuristic: Callable[..., HeuristicResult] = lpa_list,
                   priority: str = "LPT", lam: float | None = None, max_total_failures: int = 2,
                   time_limit: float = 10.0, **options: Any) -> dict[str, Any]:
    """Sum over scenarios with sum f <= F of Q(f) T_ALG(f) / T_OPT(f) (Eq. 4).

    `heuristic` is the heuristic function itself (`lpa_list`, `batch_list`, ...); `options`
    go to `solve_scenario`. Returns ``{"expected_ratio", "covered_mass", "truncated_mass",
    "scenarios", "all_optimal"}``.
    """
    q = [float(x) for x in instance.q(lam)]
    total, mass, count, all_opt = 0.0, 0.0, 0, True
    for sc, prob in enumerate_scenarios(q, max_total_failures):
        alg = heuristic(instance, sc, priority).objective
        sol = solve_scenario(instance, sc, time_limit=time_limit, **options)
        all_opt &= sol.is_optimal
        total += float(prob) * float(alg) / float(sol.objective)
        mass += float(prob)
        count += 1
    return {"expected_ratio": total, "covered_mass": mass, "truncated_mass": 1.0 - mass,
            "scenarios": count, "all_optimal": all_opt}
