"""The two readings of FFD and FFI (decision D-24): bin by bin (Algorithm 3, ``fill=interval``,
the default) and job by job (the prose of §3.2.3, ``fill=job``)."""

import json

import numpy as np
import pytest

from resilsched.errors import HeuristicRefusal, InvalidInstance
from resilsched.heuristics.desktop import build
from resilsched.heuristics.desktop.policies import BY_JOB, LOCAL
from resilsched.heuristics.desktop.reference import LITERAL_BY_JOB
from resilsched.heuristics.desktop.state import CutData, cut_view, greedy_view
from resilsched.instances.desktop import DesktopInstance
from resilsched.instances.desktop.generators import AvailabilityModel, synthetic_instance
from resilsched.instances.desktop.presets import tiny_instance
from resilsched.validation.desktop import validate_desktop_schedule
from tests.support.desktop.cases import horizon, rule_ok

#: tiny seed 55: GS-FFD places job 0 in machine 1 interval 2 bin by bin, in machine 0
#: interval 3 job by job (a job placed in interval k changes longestJob of k-2..k+2)
KNOWN = DesktopInstance.build([(2, 3, (4, 4, 12, 4), (4, 3, 3, 5)),
                               (2, 0, (14, 12, 2), (5, 3, 3))], (2, 3, 1))


def _allocation(state):
    return None if state is None else sorted((ik, list(js)) for ik, js in state.jobs.items())


def _views(inst):
    data = CutData(inst)
    lams = np.linspace(1, inst.horizon_end, 4).astype(int).tolist()
    return [greedy_view(inst)] + [cut_view(data, lam) for lam in lams]


def test_job_by_job_equals_the_literal_prose_on_random_views():
    insts = [tiny_instance(s, max_machines=3, max_intervals=6, max_jobs=8) for s in range(150)]
    insts += [synthetic_instance(6, 50, s, 100 + s, model=AvailabilityModel(span=4 * 86400))
              for s in range(3)]
    differ = 0
    for inst in insts:
        for slack in (True, False):
            for view in _views(inst):
                for name in ("FFD", "FFI"):
                    fast = _allocation(BY_JOB[name](inst, view, slack))
                    assert fast == _allocation(LITERAL_BY_JOB[name](view, inst.sorted_durations,
                                                                    slack))
                    differ += fast != _allocation(LOCAL[name](inst, view, slack))
    assert differ >= 20  # the readings are not the same algorithm


def test_the_readings_differ_on_a_known_instance_and_both_are_valid():
    by_bin, _ = build(KNOWN, "GreedySlack", "FFD", True)
    by_job, _ = build(KNOWN, "GreedySlack", "FFD", True, fill="job")
    assert by_bin.intervals == {(0, 1): (2,), (1, 1): (1,), (1, 2): (0,)}
    assert by_job.intervals == {(0, 3): (0,), (1, 1): (1, 2)}
    assert (by_bin.horizon, by_job.horizon) == (30, 29) and by_job.info["fill"] == "job"
    for sched in (by_bin, by_job):
        validate_desktop_schedule(KNOWN, sched, last_interval=False)
        alloc = {ik: list(js) for ik, js in sched.intervals.items()}
        assert rule_ok(KNOWN, alloc, True) and horizon(KNOWN, alloc, True) == sched.H


def test_every_variant_of_the_job_reading_passes_the_validator():
    for seed in range(40):
        inst = tiny_instance(seed, max_machines=3, max_intervals=5, max_jobs=7)
        for g in ("GreedySlack", "DAslack"):
            for local in ("FFD", "FFI"):
                for slack in (True, False):
                    try:
                        sched, _ = build(inst, g, local, slack, fill="job")
                    except HeuristicRefusal:
                        continue
                    validate_desktop_schedule(inst, sched, slack, last_interval=g == "DAslack")


def test_fill_job_is_for_ffd_and_ffi_only():
    with pytest.raises(InvalidInstance, match="applies to FFD and FFI, not LPT"):
        build(KNOWN, "DAslack", "LPT", True, fill="job")


def test_cli_param(run, tmp_path):
    path = tmp_path / "known.json"
    path.write_text(json.dumps(KNOWN.to_dict()))
    outs = {}
    for fill in ("interval", "job"):
        code, out, err = run("simulate", path, "--heuristic", "GreedySlack", "--priority", "FFD",
                             "--param", f"fill={fill}", "--json")
        assert code == 0, err
        outs[fill] = json.loads(out)
    assert outs["interval"]["objective"] == 30 and outs["job"]["objective"] == 29
    assert outs["job"]["params"] == {"fill": "job"}
    code, out, err = run("simulate", path, "--heuristic", "GreedySlack", "--param", "fill=job")
    assert code == 2 and out == "" and "not LPT" in err and err.count("\n") == 1
