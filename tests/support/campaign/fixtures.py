"""Spec files shared by the campaign tests (docs/campaigns.md), and the store and the report of
`SMALL_EXACT` that the report and picture tests read (built once a session: they only read
them)."""

from __future__ import annotations

import contextlib
import io
from dataclasses import dataclass
from pathlib import Path

import pytest

#: the example of issue 13, as written
ISSUE_EXAMPLE = """
[campaign]
name = "rigid-qbar"
[[instances]]
family = "rigid"
preset = "paper-default"
count = 4
seed = 1
[[algorithms]]
name = "R-LIST-0"
priority = ["LPT", "LA"]
[[algorithms]]
name = "R-SHELF-B"
priority = ["LPT"]
[scenarios]
qbar = [0.1, 0.3]
count = 5
seed = 7
"""

#: small rigid instances, a parameter sweep and the exact reference
RIGID_EXACT = """
[campaign]
name = "small-exact"
[[instances]]
family = "rigid"
preset = "smoke"
count = 2
seed = 2
[[algorithms]]
name = "R-LIST-0"
priority = ["LPT", "Random"]
params = { redraw_on_failure = [false, true] }
[[algorithms]]
name = "cpsat-scenario"
family = "rigid"
time_limit = 5
[scenarios]
qbar = [0.1, 0.3]
count = 2
seed = 3
"""

#: the same, plus a family without scenarios (co-scheduling) and its exact reference
SMALL_EXACT = RIGID_EXACT + """
[[instances]]
family = "coschedule"
preset = "random-integer"
count = 2
seed = 1
[[algorithms]]
name = "PACK-APPROX"
[[algorithms]]
name = "setpart-cg"
time_limit = 5
"""


@pytest.fixture
def spec(tmp_path):
    """Write a spec text to ``tmp_path/<name>.toml``; returns its path."""

    def write(text: str, name: str = "spec") -> str:
        path = tmp_path / f"{name}.toml"
        path.write_text(text)
        return str(path)

    return write


def stored_campaign(folder: Path, text: str, name: str = "results.sqlite") -> Path:
    """The store of the spec `text` run inline into `folder` (a module fixture's data)."""
    from resilsched.cli import main

    (folder / "spec.toml").write_text(text)
    path = folder / name
    assert main(["campaign", "run", str(folder / "spec.toml"), "--store", str(path),
                 "--executor", "inline", "-q"]) == 0
    return path


@dataclass(frozen=True)
class Report:
    """What ``resilsched report STORE --out OUT`` gave: exit status, stdout, stderr, folder."""

    code: int
    out: str
    err: str
    folder: Path


@pytest.fixture(scope="session")
def small_exact_store(tmp_path_factory) -> Path:
    """The store of `SMALL_EXACT` (rigid with drawn scenarios, a random priority and a
    parameter grid, and co-scheduling, each with its exact reference); read, never written."""
    return stored_campaign(tmp_path_factory.mktemp("small-exact"), SMALL_EXACT)


@pytest.fixture(scope="session")
def small_exact_report(small_exact_store, tmp_path_factory) -> Report:
    """``resilsched report`` of `small_exact_store` with its plots, run in-process once; the
    tests of its tables and of its pictures read the same folder."""
    from resilsched.cli import main

    folder = tmp_path_factory.mktemp("small-exact-report") / "report"
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["report", str(small_exact_store), "--out", str(folder)])
    return Report(code, out.getvalue(), err.getvalue(), folder)
