"""``resilsched export --to batsim``: the workload has the structure Batsim documents.

Batsim's workload format (batsim.readthedocs.io, "Workload"; docs/input-workload.rst of
oar-team/batsim): a JSON object with ``nb_res`` (positive integer), ``jobs`` (array) and
``profiles`` (object). A job has ``id`` (string, unique), ``subtime`` (seconds, absolute),
``res`` (positive integer) and ``profile`` (the name of a profile); optional ``walltime``
(seconds, relative to the start; -1 or absent: none) and ``extra_data`` (string). A profile
has ``type`` (string) and optional ``ret`` (integer return code); a ``delay`` profile has
``delay`` (seconds).
"""

import json
from fractions import Fraction
from pathlib import Path

import pytest

from resilsched.cli import main
from resilsched.export import rigid_to_batsim
from resilsched.instances.rigid import RigidInstance


def validate_batsim_workload(w):
    """Assert that `w` follows Batsim's documented workload format (see the module doc)."""
    assert isinstance(w, dict) and {"nb_res", "jobs", "profiles"} <= set(w)
    assert isinstance(w["nb_res"], int) and not isinstance(w["nb_res"], bool) and w["nb_res"] > 0
    assert isinstance(w["jobs"], list) and isinstance(w["profiles"], dict)
    for name, prof in w["profiles"].items():
        assert isinstance(name, str) and isinstance(prof, dict)
        assert isinstance(prof.get("type"), str)
        if prof["type"] == "delay":
            assert isinstance(prof["delay"], (int, float)) and prof["delay"] >= 0
        if "ret" in prof:
            assert isinstance(prof["ret"], int)
    ids = [job["id"] for job in w["jobs"]]
    assert len(set(ids)) == len(ids)
    for job in w["jobs"]:
        assert {"id", "subtime", "res", "profile"} <= set(job)
        assert isinstance(job["id"], str)
        assert isinstance(job["subtime"], (int, float)) and job["subtime"] >= 0
        assert isinstance(job["res"], int) and 1 <= job["res"] <= w["nb_res"]
        assert job["profile"] in w["profiles"]
        if "walltime" in job:
            assert isinstance(job["walltime"], (int, float))
            assert job["walltime"] > 0 or job["walltime"] == -1
        if "extra_data" in job:
            assert isinstance(job["extra_data"], str)
    json.dumps(w, allow_nan=False)  # plain JSON


INSTANCE = RigidInstance.build(4, [(2, 3), (1, Fraction(5, 2)), (4, 3)], name="toy")


def test_one_job_per_rigid_job_with_a_delay_profile_and_walltime():
    w = rigid_to_batsim(INSTANCE)
    validate_batsim_workload(w)
    assert w["nb_res"] == 4
    assert [(j["id"], j["res"], j["walltime"], j["profile"]) for j in w["jobs"]] == [
        ("0", 2, 3, "delay-3"), ("1", 1, 2.5, "delay-2.5"), ("2", 4, 3, "delay-3")]
    assert w["profiles"] == {"delay-3": {"type": "delay", "delay": 3},
                             "delay-2.5": {"type": "delay", "delay": 2.5}}


def test_failed_attempts_become_failing_jobs_in_order():
    inst = RigidInstance(INSTANCE.P, INSTANCE.jobs, "toy", INSTANCE.scenario("0,2,0"))
    w = rigid_to_batsim(inst, attempts=True)
    validate_batsim_workload(w)
    assert [j["id"] for j in w["jobs"]] == ["0.0", "1.0", "1.1", "1.2", "2.0"]
    assert [j["profile"] for j in w["jobs"]][1:4] == ["delay-2.5-fail"] * 2 + ["delay-2.5"]
    assert w["profiles"]["delay-2.5-fail"] == {"type": "delay", "delay": 2.5, "ret": 1}
    assert json.loads(w["jobs"][2]["extra_data"]) == {"job": 1, "attempt": 1, "fails": True,
                                                      "after": "1.0"}


def test_export_command_on_a_library_instance(tmp_path, capsys):
    from resilsched.library.catalog import find

    lib = find("rigid-small")[0]
    src = lib.path / lib.records[0]["file"]
    out = tmp_path / "workload.json"
    assert main(["export", str(src), "--to", "batsim", "--out", str(out), "--attempts",
                 "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    w = json.loads(out.read_text())
    validate_batsim_workload(w)
    data = json.loads(src.read_text())
    assert summary["jobs"] == len(data["jobs"]) + sum(data["failures"])
    assert w["nb_res"] == data["P"] == summary["nb_res"]


@pytest.mark.parametrize("name", ["moldable-small.json"])
def test_other_families_are_refused_in_one_line(name, tmp_path, capsys):
    path = Path(__file__).resolve().parents[2] / "examples" / name
    code = main(["export", str(path), "--to", "batsim", "--out", str(tmp_path / "w.json")])
    err = capsys.readouterr().err
    assert code == 2 and err.strip() == "error: --to: batsim exports rigid instances, not moldable"
