"""`resilsched.show_versions` and ``resilsched --version`` (issue 25, section 1): one place for
the versions of the solver stack, which campaign stores and certificates record subsets of."""

from __future__ import annotations

import ast
import io
import json
import os
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import resilsched
from resilsched import versions
from resilsched.campaign.store import ResultStore

ROOT = Path(__file__).resolve().parents[2]


def test_extensions_are_those_setup_py_builds():
    tree = ast.parse((ROOT / "setup.py").read_text())
    declared = next(node.value for node in ast.walk(tree) if isinstance(node, ast.Assign)
                    and any(getattr(t, "id", None) == "EXTENSIONS" for t in node.targets))
    names = [key.value.removeprefix("resilsched.") for key in declared.keys]
    assert tuple(names) == versions.EXTENSIONS


def test_versions_are_the_installed_distributions():
    found = versions.versions()
    assert list(found)[:2] == ["resilsched", "python"]
    assert found["resilsched"] == resilsched.__version__
    for name in ("numpy", "ortools", "highspy", "pyomo", "networkx", "rustworkx"):
        assert found[name] == version(name)
    assert versions.versions(("no-such-distribution",)) == {"no-such-distribution": None}


def test_show_versions_text_and_json():
    out = io.StringIO()
    resilsched.show_versions(file=out)
    lines = out.getvalue().splitlines()
    assert lines[0].split() == ["resilsched", resilsched.__version__]
    assert any(line.startswith("ortools ") for line in lines)
    assert sum(line.startswith("resilsched._") for line in lines) == len(versions.EXTENSIONS)
    out = io.StringIO()
    versions.show_versions(as_json=True, file=out)
    rep = json.loads(out.getvalue())
    assert set(rep["compiled"]) == set(versions.EXTENSIONS)
    assert rep["versions"]["highspy"] == version("highspy")


def test_disabled_core_is_reported_without_the_fallback_warning():
    env = {**os.environ, "RESILSCHED_NO_CORE": "1"}
    run = subprocess.run([sys.executable, "-m", "resilsched.cli", "--version"], env=env,
                         capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert run.returncode == 0 and run.stderr == ""
    assert "resilsched._core      disabled by RESILSCHED_NO_CORE" in run.stdout


def test_records_keep_their_fields():
    # each record is a selection of the one `versions`, in the order its writer has always used
    assert list(versions.versions(versions.CAMPAIGN_RECORD)) == ["python", "resilsched", "numpy",
                                                          "ortools", "highspy"]
    assert list(versions.versions(versions.CERTIFICATE_RECORD, installed_only=True)) == [
        "resilsched", "python", "numpy", "ortools", "highspy"]
    assert list(versions.versions(versions.MANIFEST_RECORD)) == ["resilsched", "numpy", "python"]
    assert versions.versions(("no-such-distribution", "python"), installed_only=True) == {
        "python": versions.versions(("python",))["python"]}


def test_a_campaign_run_records_the_campaign_versions():
    with ResultStore(":memory:") as store:
        store.register("c", {})
        store.add_run("c", "inline", 1)
        (run,) = store.runs("c")
    assert run["versions"] == versions.versions(versions.CAMPAIGN_RECORD)
