"""BEST-END: the better of ENDLOCAL and ENDGREEDY on the same failures (one's own heuristic).

Built from public pieces: two of the paper's policy combinations run on the same failure trace
(the instance's or the one drawn from `seed`), and the run that ends first is kept
(docs/own-heuristic.md).
"""

from typing import Literal

from resilsched import HeuristicResult
from resilsched.heuristics.malleable import endgreedy_ig, endgreedy_saf, endlocal_ig, endlocal_saf

POLICIES = {"ig": (endlocal_ig, endgreedy_ig), "saf": (endlocal_saf, endgreedy_saf)}


def best_end(instance, scenario=None, priority=None, *, seed: int = 0,
             on_failure: Literal["ig", "saf"] = "ig"):
    """BEST-END: ENDLOCAL and ENDGREEDY (with ITERATEDGREEDY or SHORTESTAPPLICATIONSFIRST on
    failures), the shorter realized makespan."""
    runs = [run(instance, scenario, None, seed=seed) for run in POLICIES[on_failure]]
    best = min(runs, key=lambda r: r.objective)
    return HeuristicResult(best.objective, "BEST-END", None, best.schedule,
                           {"picked": best.heuristic})
