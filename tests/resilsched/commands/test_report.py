"""`resilsched report` and `resilsched campaign export` (docs/campaigns.md, "Reports",
"Exporting the store"): every table, CSV file and plot is produced and non-empty."""

from __future__ import annotations

import csv
import json
import subprocess
import sys

import pytest

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def store(small_exact_store):
    """A small campaign with exact references, a swept parameter and two families."""
    return small_exact_store


def test_report_writes_tables_csv_and_plots(small_exact_report):
    pytest.importorskip("matplotlib")
    code, text, err, out = (small_exact_report.code, small_exact_report.out,
                            small_exact_report.err, small_exact_report.folder)
    assert code == 0, err
    expected = {"report.md", "rows.csv", "summary.csv",
                "rigid-gap-boxplot.png", "rigid-gap-vs-qbar.png",
                "rigid-gap-vs-redraw_on_failure.png", "rigid-ratio-boxplot.png",
                "rigid-ratio-vs-qbar.png", "rigid-ratio-vs-redraw_on_failure.png",
                "coschedule-gap-boxplot.png", "coschedule-ratio-boxplot.png",
                "rigid-gap-profile.png", "coschedule-gap-profile.png"}
    # and each heuristic's worst case above its optimum (tests/resilsched/campaign/test_plots.py)
    assert {p.name for p in out.iterdir() if "-worst-" not in p.name} == expected
    for png in out.glob("*.png"):
        data = png.read_bytes()
        assert data.startswith(PNG) and len(data) > 10_000, png.name  # drawn, not blank
    md = (out / "report.md").read_text()
    assert md.startswith("# Campaign small-exact")
    assert "## rigid (spec 002): makespan, minimised, in s" in md
    assert "**Normalized makespan** = makespan / L" in md
    assert "exact model `cpsat-scenario`" in md and "proven optimum on 8 of 8 cases" in md
    assert "| R-LIST-0, priority LPT, redraw_on_failure=False | 8 |" in md
    assert "Mean (max) per value of qbar:" in md and "![rigid: gap to the optimum" in md
    assert "ortools 9." in md and "- **R-LIST-0**: greedy list scheduling" in md
    with open(out / "summary.csv") as f:
        summary = list(csv.DictReader(f))
    gaps = [r for r in summary if r["metric"] == "gap" and r["qbar"] == "all"]
    assert {r["algorithm"] for r in gaps} == {"R-LIST-0", "PACK-APPROX"}
    assert all(float(r["mean"]) >= 0 for r in gaps)  # no heuristic beats a proven optimum
    ratios = [r for r in summary if r["metric"] == "ratio" and r["family"] == "rigid"]
    assert all(float(r["min"]) >= 1 - 1e-9 for r in ratios)  # makespan >= L(f)
    assert text.startswith("reported 44 rows of campaign small-exact")


def test_report_json_and_no_plots(store, run, tmp_path):
    code, text, _ = run("report", store, "--out", tmp_path, "--no-plots", "--json")
    assert code == 0
    files = json.loads(text)["files"]
    assert [f.rsplit("/", 1)[1] for f in files] == ["rows.csv", "summary.csv", "report.md"]


def test_matplotlib_is_imported_only_for_plots(store, tmp_path):
    code = (f"import sys; from resilsched.cli import main; "
            f"main(['report', {str(store)!r}, '--out', {str(tmp_path)!r}, '--no-plots']); "
            f"main(['campaign', 'export', {str(store)!r}, '--csv', {str(tmp_path / 'a.csv')!r}]);"
            f" sys.exit('matplotlib' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True).returncode == 0


def test_export_csv_and_parquet(store, run, tmp_path, monkeypatch):
    code, _, err = run("campaign", "export", store, "--csv", tmp_path / "rows.csv")
    assert code == 0, err
    with open(tmp_path / "rows.csv") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 44
    head = list(rows[0])
    assert head[:6] == ["campaign", "family", "instance", "instance_sha", "algorithm", "kind"]
    assert "param.redraw_on_failure" in head and "seconds" in head and "key" in head
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # as if not installed
    code, _, err = run("campaign", "export", store, "--parquet", tmp_path / "rows.parquet")
    assert code == 2 and err.count("\n") == 1 and "pip install pyarrow" in err
    assert not (tmp_path / "rows.parquet").exists()


def test_bad_stores_are_one_line(run, tmp_path, store):
    code, _, err = run("report", tmp_path / "none.sqlite", "--out", tmp_path)
    assert code == 2 and "no such store" in err and err.count("\n") == 1
    assert not (tmp_path / "none.sqlite").exists()
    code, _, err = run("report", store, "--out", tmp_path, "--campaign", "other")
    assert code == 2 and "--campaign='other' is not in" in err
    code, _, err = run("campaign", "export", store)
    assert code == 2 and "--csv FILE and/or --parquet FILE" in err


def test_the_documented_commands_run(run, tmp_path, monkeypatch):
    """The first block of docs/campaigns.md (the README's path from a spec to a report), on the
    shipped example spec, which is the issue's example."""
    import shutil
    import tomllib
    from pathlib import Path

    from tests.support.campaign.fixtures import ISSUE_EXAMPLE

    root = Path(__file__).resolve().parents[3]
    example = root / "examples" / "rigid-qbar.toml"
    assert tomllib.loads(example.read_text()) == tomllib.loads(ISSUE_EXAMPLE)
    (tmp_path / "examples").mkdir()
    shutil.copy(example, tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    block = (root / "docs" / "campaigns.md").read_text().split("```sh\n", 1)[1].split("```")[0]
    commands = [ln.split("#")[0].split()[1:] for ln in block.splitlines()]
    assert len(commands) == 5
    for argv in commands:
        if argv[0] == "report":
            argv.append("--no-plots")  # the plots are tested above; keep this test fast
        code, _, err = run(*argv, *(["-q"] if argv[:2] == ["campaign", "run"] else []))
        assert code == 0, (argv, err)
    assert (tmp_path / "rows.csv").exists() and (tmp_path / "report" / "report.md").exists()
