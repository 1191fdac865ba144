"""Every exact model returns within 1.25 * limit + 1 s on a large instance, with an honest answer
(issue 10 §2; decisions C16, C17): status ``feasible`` (or ``optimal`` with a proof), valid
packs, a bound below the objective. The instances are far too large to be solved in the limit.
"""

from __future__ import annotations

import json
import time

import pytest

from resilsched.instances.coschedule import random_instance
from resilsched.registry import get_family
from resilsched.solution import Status
from resilsched.validation.packs import check_packs

FAM = get_family("coschedule")
LIMIT = 0.3

#: model -> (n, p, k) of an Amdahl instance it cannot finish within LIMIT
LARGE = {
    "setpart-cg": (150, 16, 3),     # at 1 s: pool, LP and dives done, a closure search stopped
    "setpart-full": (150, 16, 3),   # the pool of 562,625 packs is not even built
    "setpart-bp": (150, 16, 3),
    "kinp-ilp": (80, 16, 3),        # Pyomo needs ~25 s to build the model
    "kinp-ilp-strong": (80, 16, 3),
    "enumeration": (16, 16, 8),     # the subset DP over 3^16 blocks
    "matching": (1000, 64, 2),      # rustworkx: ~4 s with its LP edge elimination
    "matching-networkx": (300, 64, 2),  # the dense cubic blossom: ~19 s
}


@pytest.mark.parametrize("method", sorted(LARGE))
def test_whole_call_stays_within_the_limit(method):
    n, p, k = LARGE[method]
    inst = random_instance(0, n, p, k, kind="amdahl")
    messages = []
    t0 = time.perf_counter()
    sol = FAM.exact[method].solve(inst, None, time_limit=LIMIT, progress=messages.append)
    wall = time.perf_counter() - t0
    assert wall <= 1.25 * LIMIT + 1.0, (method, wall, messages)
    assert sol.status in (Status.FEASIBLE, Status.OPTIMAL), sol.status
    assert sol.objective is not None and sol.bound is not None
    assert float(sol.bound) <= float(sol.objective)
    assert check_packs(inst, sol.payload) == sol.objective
    assert messages, "every model reports its phases"


def test_issue_case_kinp_ilp_half_a_second_on_the_command_line(run, tmp_path):
    """The issue's case: kinp-ilp with --time-limit 0.5 on n = 80 took 33 s (Pyomo building).
    The command runs in-process (the `run` fixture): ``wall_time`` is measured by the command
    itself, and the real time of the call is checked too."""
    path = tmp_path / "n80.json"
    random_instance(0, 80, 16, 3, kind="amdahl").to_json(path)
    t0 = time.perf_counter()
    code, out, err = run("solve", path, "--method", "kinp-ilp", "--time-limit", "0.5", "--json",
                         "-q")
    elapsed = time.perf_counter() - t0
    assert code == 0, err
    res = json.loads(out)
    assert elapsed <= 1.25 * 0.5 + 1.0 and res["wall_time"] <= 1.25 * 0.5 + 1.0
    assert res["status"] == "feasible" and res["bound"] <= res["objective"]
