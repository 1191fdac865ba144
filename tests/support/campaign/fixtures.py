"""Spec files shared by the campaign tests (docs/campaigns.md)."""

from __future__ import annotations

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
