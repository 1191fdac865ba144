"""The online family (issue 26): instances with their failure model, heuristics scored in
expectation with checked decision tables, the gap report and its bounds, the command line."""

from __future__ import annotations

import json
from fractions import Fraction as F
from pathlib import Path

import pytest

from resilsched.errors import InvalidInstance, InvalidSchedule
from resilsched.gap import GapReport, run_family
from resilsched.instances.rigid import RigidInstance
from resilsched.instances.rigid.online import OnlineRigidInstance
from resilsched.models.online.solve import solve_rigid
from resilsched.plugin import Case
from resilsched.registry import get_family
from resilsched.validation.online import validate_policy

FAMILY = get_family("online")
EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "online-small.json"


def _doc(**changes):
    d = json.loads(EXAMPLE.read_text())
    d.update(changes)
    return d


def test_q_is_read_as_the_decimal_it_is_written_as():
    inst = OnlineRigidInstance.from_dict(_doc())
    assert inst.q == (F(1, 5), F(1, 10), F(1, 3), F(1, 4))
    assert OnlineRigidInstance.from_dict(inst.to_dict()) == inst


def test_qbar_calibrates_like_the_rigid_family():
    d = _doc()
    for job in d["jobs"]:
        del job["q"]
    d["qbar"] = 0.2
    inst = OnlineRigidInstance.from_dict(d)
    rigid = RigidInstance.build(4, [(job["p"], job["t"]) for job in d["jobs"]])
    assert inst.q == tuple(F(float(x)) for x in rigid.q(0.2))
    assert solve_rigid(inst).objective == solve_rigid(rigid, qbar=0.2).objective
    assert OnlineRigidInstance.from_dict(inst.to_dict()) == inst


@pytest.mark.parametrize("job, match", [
    ({"p": 1, "t": 2, "q": 1}, r"jobs\[0\]\.q"), ({"p": 1, "t": 2, "q": -0.1}, "probability"),
    ({"p": 1, "t": 2, "q": "x"}, "not a number"), ({"p": 1, "t": 2, "q": True}, "probability"),
    ({"p": 1, "t": 2, "q": "1/0"}, "not a number"), ({"p": 1, "t": 2, "q": [0.1]}, "probability"),
    ({"p": 1, "t": 2}, "is required"), ({"p": 9, "t": 2, "q": 0.1}, "exceeds P"),
])
def test_bad_jobs_are_refused_naming_the_field(job, match):
    with pytest.raises(InvalidInstance, match=match):
        OnlineRigidInstance.from_dict(_doc(jobs=[job]))


def test_failures_and_q_with_qbar_are_refused():
    with pytest.raises(InvalidInstance, match="no scenario"):
        OnlineRigidInstance.from_dict(_doc(failures=[0, 0, 0, 0]))
    with pytest.raises(InvalidInstance, match="not both"):
        OnlineRigidInstance.from_dict(_doc(qbar=0.1))
    with pytest.raises(InvalidInstance, match="stores its failure model"):
        solve_rigid(OnlineRigidInstance.from_dict(_doc()), qbar=0.1)


def test_heuristics_return_checked_tables_at_least_the_optimum():
    inst = OnlineRigidInstance.from_dict(_doc())
    opt = FAMILY.exact["online-optimal"].solve(inst).objective
    for h in FAMILY.heuristics.values():
        for prio in h.priorities:
            res = h.run(inst, None, prio, seed=3)
            assert res.objective >= opt
            FAMILY.validate(Case("x", inst, None), res)


def _table(inst):
    res = FAMILY.heuristics["R-SHELFFILL-NB"].run(inst, None, "LPT")
    assert res.schedule.memory == "failed"
    return res


def test_the_validator_finds_a_wrong_value_a_bad_start_and_a_missing_state():
    inst = OnlineRigidInstance.from_dict(_doc())
    res = _table(inst)
    allowed = [[(job.p, job.t)] for job in inst.jobs]
    rows = res.schedule.rows()
    assert validate_policy(inst.P, allowed, inst.q, rows, res.objective, "failed") == \
        pytest.approx(float(res.objective), rel=1e-12)
    with pytest.raises(InvalidSchedule, match="claimed"):
        validate_policy(inst.P, allowed, inst.q, rows, res.objective * F(101, 100), "failed")
    bad = [dict(r) for r in rows]
    bad[0]["start"] = [[j, 9] for j in range(inst.n)]
    with pytest.raises(InvalidSchedule):
        validate_policy(inst.P, allowed, inst.q, bad, res.objective, "failed")
    inner = next(i for i, r in enumerate(rows) if r["done"] or r["running"])
    with pytest.raises(InvalidSchedule, match="not in the table"):
        validate_policy(inst.P, allowed, inst.q, rows[:inner] + rows[inner + 1:], res.objective,
                        "failed")


def test_gap_reports_the_online_gap_and_the_value_of_clairvoyance():
    report = GapReport(["online"], 10.0)
    run_family(FAMILY, FAMILY.smoke_suite(), 10.0, report)
    assert report.violations == 0
    assert all(c["reference"] == "optimal" for c in report.cases)
    assert {b["bound"] for b in report.bounds} == {"E-clairvoyant", "E-L"}
    clair = next(b for b in report.bounds if b["bound"] == "E-clairvoyant")
    assert 0.9 < clair["mean_ratio"] <= 1.0
    assert max(h.to_dict()["max_gap"] for h in report.heuristics) > 0


def test_cli_solve_simulate_and_refusals(run):
    code, out, err = run("solve", EXAMPLE, "--json", "-q")
    assert code == 0, err
    d = json.loads(out)
    assert d["status"] == "optimal" and d["method"] == "online-optimal"
    assert d["solution"]["policy"][0]["start"]
    code, out, err = run("simulate", EXAMPLE, "--heuristic", "R-LIST-0", "--priority", "spt",
                         "--json")
    assert code == 0 and json.loads(out)["objective"] >= d["objective"]
    for argv in (["solve", EXAMPLE, "--qbar", "0.1"], ["solve", EXAMPLE, "--failures", "0,0"],
                 ["simulate", EXAMPLE, "--heuristic", "R-LIST-0", "--qbar", "0.1"]):
        code, out, err = run(*argv)
        assert code == 2 and out == "" and err.startswith("error: ") and err.count("\n") == 1


def test_rigid_cli_takes_the_failure_model(run, tmp_path):
    path = tmp_path / "r.json"
    path.write_text(json.dumps(RigidInstance.build(2, [(1, 2), (1, 3), (2, 1)]).to_dict()))
    code, out, err = run("solve", path, "--method", "online-optimal", "--qbar", "0.2", "--json")
    assert code == 0, err
    d = json.loads(out)
    assert d["status"] == "optimal" and "failures" not in d
    assert d["info"]["failure_model"] == "qbar=0.2"
    for extra in (["--failures", "0,1,0"], [], ["--param", "qbar=0.1"]):
        argv = ["solve", path, "--method", "online-optimal", *extra]
        if extra == ["--param", "qbar=0.1"]:
            argv += ["--qbar", "0.2"]
        code, out, err = run(*argv)
        assert code == 2 and out == "" and err.count("\n") == 1, err


def test_cli_refuses_a_large_instance_up_front_with_the_estimate(run, tmp_path):
    path = tmp_path / "big.json"
    path.write_text(json.dumps(RigidInstance.build(30, [(1, 5)] * 30).to_dict()))
    code, out, err = run("solve", path, "--method", "online-optimal", "--qbar", "0.1")
    assert code == 2 and out == "" and "states" in err and err.count("\n") == 1


def test_time_limit_ends_without_optimal(run, tmp_path):
    import numpy as np

    from resilsched.instances.rigid.synthetic import tiny_rigid

    path = tmp_path / "mid.json"
    rigid = tiny_rigid(np.random.default_rng(3), n=9, P=9, tmax=6)
    path.write_text(json.dumps(rigid.to_dict()))
    code, out, err = run("solve", path, "--method", "online-optimal", "--qbar", "0.2",
                         "--time-limit", "0.4", "--json", "-q")
    assert code == 0, err
    d = json.loads(out)
    assert d["status"] == "no_solution" and d["bound"] > 0 and d["wall_time"] <= 1.25 * 0.4 + 1.0


@pytest.mark.parametrize("options, field", [
    ({"qbar": 0.1}, "qbar"),          # the instance stores its failure model
    ({"max_states": 0}, "max_states"),
])
def test_the_portfolio_refuses_a_users_option_before_any_phase(options, field):
    import resilsched
    from resilsched.portfolio import certified_solve

    said: list[str] = []
    with pytest.raises(InvalidInstance) as caught:
        certified_solve(get_family("online"), resilsched.load(EXAMPLE), None,
                        options=options, progress=said.append)
    assert caught.value.field.endswith(field) and said == []

