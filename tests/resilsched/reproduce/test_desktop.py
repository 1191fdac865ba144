"""The desktop reproduction (spec 004 §4.5): outputs, resumption, bad options."""

import csv

import pytest

from resilsched.reproduce import desktop as reproduce

TINY = ["--machine-sets", "1", "--job-sets", "2", "--hosts", "12", "--job-count", "120",
        "--runs", "3", "--span-days", "6", "--jobs", "1", "--absorb", "both"]


def test_tiny_run_writes_tables_plots_and_resumes(run, tmp_path, monkeypatch):
    out = tmp_path / "d"
    code, stdout, err = run("reproduce", "desktop", *TINY, "--out", out)
    assert code == 0, err
    assert "Claims (spec 5)" in stdout and "**R7**" in stdout and "absorb_short on" in stdout
    with (out / "variants.csv").open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 2 * 2 * 20  # absorb x job sets x variants
    assert min(float(r["ratio"]) for r in rows) == 1.0
    slack = [r for r in rows if not r["variant"].endswith("-noslack")]
    assert all(float(r["sigma_max"]) <= 1 for r in slack)  # R7 on these instances
    with (out / "runs.csv").open(newline="") as fh:
        assert sum(1 for _ in fh) == 1 + 80 * 3
    assert (out / "fig5_horizon_ratio.png").exists() and (out / "fig7_time_absorb.png").exists()
    calls = []
    monkeypatch.setattr(reproduce, "run_task", lambda task: calls.append(task) or {})
    code, again, err = run("reproduce", "desktop", *TINY, "--out", out, "--no-plots")
    assert code == 0 and calls == [], err
    strip = lambda s: [x for x in s.splitlines() if not x.startswith("Wall time")]  # noqa: E731
    assert strip(again) == strip(stdout)
    code, part, err = run("reproduce", "desktop", *TINY, "--job-sets", "3", "--out", out,
                          "--no-plots", "--stored-only")
    assert code == 0 and calls == [] and "4 stored tasks of 6" in err
    assert strip(part)[1:] == strip(stdout)[1:]  # the stored tasks only, same tables


@pytest.mark.parametrize("args, words", [
    (["--hosts", "0"], "--hosts"), (["--alpha", "2"], "--alpha"),
    (["--variants", "GS-XYZ"], "--variants"), (["--absorb", "maybe"], "--absorb"),
])
def test_bad_options(run, args, words):
    code, _, err = run("reproduce", "desktop", *args)
    assert code == 2 and words in err.splitlines()[-1] and "Traceback" not in err


@pytest.mark.slow
def test_smoke_reproduction_size_of_spec_7_3(run, tmp_path):
    """Spec 7.3 item 13: 2 machine sets x 2 job sets, m = 100, n = 2,000, 30 disturbances."""
    code, stdout, err = run("reproduce", "desktop", "--machine-sets", "2", "--job-sets", "2",
                            "--hosts", "100", "--job-count", "2000", "--runs", "30",
                            "--out", tmp_path, "--no-plots")
    assert code == 0, err
    assert stdout.count("**R7** holds") == 2


@pytest.mark.parametrize("check, words", [
    ("r1-sizes", ("R1 job sizes", "GS-LPT / GS-LPT-noslack", "of 20")),
    ("r9-cost", ("R9 build cost", "DA / GS spans", "without; paper: a constant ratio"))])
def test_checks_run_and_resume(run, tmp_path, check, words):
    argv = ["reproduce", "desktop", *TINY, "--only", check, "--out", tmp_path]
    code, out, err = run(*argv)
    assert code == 0, err
    for w in words:
        assert w in out, w
    assert "2 instances of 12 hosts" in out  # absorb off only
    assert (tmp_path / f"{check.replace('-', '_')}.txt").read_text() == out
    code, again, err = run(*argv, "--stored-only")
    assert code == 0 and "tasks to run" not in err
    if check == "r1-sizes":
        assert again == out  # r9-cost's CPU times are measured once, stored, and reprinted
    assert again.splitlines()[0] == out.splitlines()[0]


def test_scaled_jobs_keep_the_trace():
    from resilsched.reproduce.desktop import task_instance
    from resilsched.reproduce.desktop_checks import _scaled

    task = {"machine_set": 0, "job_set": 0, "hosts": 5, "job_count": 30, "seed": 0,
            "span_days": 6.0, "absorb": False}
    inst = task_instance(task)
    half = _scaled(inst, 0.5)
    assert half.machines == inst.machines and _scaled(inst, 1.0) is inst
    assert half.p == tuple(max(1, round(0.5 * x)) for x in inst.p)


def test_bad_check(run):
    code, _, err = run("reproduce", "desktop", "--only", "r4")
    assert code == 2 and "--only" in err.splitlines()[-1] and len(err.strip().splitlines()) == 1
