"""A variant that cannot place every job says why, as a `HeuristicRefusal` (decision D-23)."""

import json

import pytest

from resilsched.errors import HeuristicRefusal, InvalidInstance
from resilsched.heuristics.desktop import build
from resilsched.instances.desktop import DesktopInstance
from resilsched.models.desktop import cpsat

#: machine 0's only availability holds the long job; GreedySlack drops it (A-8)
ONLY = {"family": "desktop",
        "machines": [{"b": 1.15, "e0": 0, "a": [200], "u": [5]},
                     {"b": 1, "e0": 0, "a": [10, 8], "u": [5, 5]}],
        "jobs": [{"p": 50}, {"p": 2}]}


def test_greedy_slack_names_the_dropped_only_availability():
    inst = DesktopInstance.from_dict(ONLY)
    with pytest.raises(HeuristicRefusal) as err:
        build(inst, "GreedySlack", "FFD", True)
    msg = str(err.value)
    assert err.value.field == "GS-FFD" and isinstance(err.value, InvalidInstance)
    for words in ("1 of 3 intervals GreedySlack keeps", "machine 0 keeps none",
                  "job 0, the longest (t = 58 s on machine 0)", "2 t <= a(k)",
                  "machine 0 interval 1 (a = 200 s)", "A-8"):
        assert words in msg, msg
    assert "too short" not in msg and "\n" not in msg
    sched, _ = build(inst, "DAslack", "FFD", True)  # DAslack and the exact model solve it
    assert sched.horizon == cpsat.solve(inst, time_limit=10).objective == 5 + 58 + 58


def test_a_policy_that_leaves_jobs_over_says_so():
    inst = DesktopInstance.build([(1, 1, (5, 13, 3), (4, 4, 2)), (1, 1, (5, 11, 8), (3, 5, 4))],
                                 (3, 4, 2, 1, 3))  # tiny seed 3, instance 0
    with pytest.raises(HeuristicRefusal, match="each job fits one of them alone, but FFD "
                                               "leaves some over"):
        build(inst, "GreedySlack", "FFD", True)
    assert build(inst, "GreedySlack", "LPT", True)[0].horizon >= cpsat.solve(
        inst, time_limit=10).objective == 23


def test_too_short_a_trace_is_refused_by_both_global_policies():
    inst = DesktopInstance.build([(2, 0, (14, 6, 8), (6, 5, 6))], (2, 2, 3, 3, 2))
    with pytest.raises(HeuristicRefusal, match="cannot hold the demand"):
        build(inst, "GreedySlack", "LPT", True)
    with pytest.raises(HeuristicRefusal, match="trace is too short for these jobs"):
        build(inst, "DAslack", "SPT", True)
    assert cpsat.solve(inst, time_limit=10).status.value == "infeasible"


def test_dpslack_refuses_a_knapsack_too_large_for_memory(engine_name):
    inst = DesktopInstance.build([(1, 0, (499_999_999_990,), (5,))] * 2, (2e11,) * 4,
                                 slack_rule=False)
    with pytest.raises(HeuristicRefusal, match="knapsack rows of more than 4294967296"):
        build(inst, "DAslack", "DPslack", False)
    assert build(inst, "DAslack", "FFD", False)[0].horizon == 400_000_000_005


def test_cli_refusal_is_one_line_exit_2(run, tmp_path):
    path = tmp_path / "only.json"
    path.write_text(json.dumps(ONLY))
    code, out, err = run("simulate", path, "--heuristic", "GreedySlack", "--json")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("error: GS-LPT: cannot place every job") and "machine 0" in err
    code, out, err = run("simulate", path, "--heuristic", "DAslack", "--json")
    assert code == 0 and json.loads(out)["objective"] == 121, err
