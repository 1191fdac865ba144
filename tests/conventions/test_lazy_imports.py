"""Loading a family imports neither a solver nor its reproduction until they are used (issue 28).

Each check runs in a fresh interpreter: ``sys.modules`` of the test process already holds what
other tests imported.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from resilsched.registry import available_families

#: top-level packages a family must not import when it loads (solvers, plotting)
HEAVY = ("ortools", "highspy", "pyomo", "matplotlib")

PROBE = """
import json, sys
{before}
from resilsched.registry import get_family
family = get_family({name!r})
heavy = {heavy!r}
print(json.dumps(sorted(m for m in sys.modules
                        if m.split(".")[0] in heavy or m.startswith("resilsched.reproduce"))))
"""


def _loaded_after(name: str, before: str = "") -> list[str]:
    """The heavy modules in ``sys.modules`` of a fresh interpreter after ``get_family(name)``."""
    code = PROBE.format(before=before, name=name, heavy=HEAVY)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


@pytest.mark.parametrize("name", available_families())
def test_loading_a_family_imports_no_solver_and_no_reproduction(name):
    assert _loaded_after(name) == []


def test_the_probe_sees_a_solver_imported_before_the_family():
    """The check above can fail: a solver imported in the probe is reported."""
    assert "highspy" in _loaded_after("online", before="import highspy")
    loaded = _loaded_after("online", before="import resilsched.reproduce.malleable")
    assert "resilsched.reproduce.malleable" in loaded
