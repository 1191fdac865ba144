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
