"""Fixtures shared by every test folder.

The tests mirror the package (docs/architecture.md, "Tests"), so a fixture serves tests in
several folders: the fixtures of an area live in ``tests/support/<area>/fixtures.py``, each in
one place, and reach every test through `pytest_plugins`.

A test writes only where it is given (its ``tmp_path``): a run that leaves a new file or folder
in the checkout, besides the caches and build trees of the tools (`TOOL_TREES`), fails, naming
what it left (`pytest_sessionfinish`).
"""

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from resilsched import engine
from resilsched.cli import main
from resilsched.versions import EXTENSIONS
from tests.thorough import THOROUGH, examples

# Property tests that give no count draw a third of hypothesis's 100 examples, all of them with
# RESILSCHED_THOROUGH=1 (the profile "thorough"); those that give one scale it themselves
# (tests/thorough.py).
settings.register_profile("quick", max_examples=examples(100))
settings.register_profile("thorough", max_examples=100)
settings.load_profile("thorough" if THOROUGH else "quick")

pytest_plugins = [
    "tests.support.campaign.fixtures",  # spec
    "tests.support.library.fixtures",   # built_library, library_copy
    "tests.support.plot.fixtures",      # case
    "tests.support.plugins.fixtures",   # plugins
]


@pytest.fixture(params=engine.ENGINES)
def engine_name(request) -> Iterator[str]:
    """Run the test once on each engine, switched for the test (`resilsched.engine.use`):
    ``"c"``, skipped when an extension was not built or the environment chose Python
    (``RESILSCHED_NO_CORE=1``), and ``"python"``."""
    if request.param == "c":
        missing = [name for name in EXTENSIONS if not engine.built(name)]
        if missing:
            pytest.skip(f"not built: {', '.join(missing)}")
        if engine.disabled():
            pytest.skip(f"compiled engines disabled by {engine.disabled()}")
    with engine.use(request.param):
        yield request.param


@pytest.fixture
def run(capsys):
    """Run the CLI in-process: returns (exit status, stdout, stderr)."""

    def _run(*argv):
        code = main([str(a) for a in argv])
        out, err = capsys.readouterr()
        return code, out, err

    return _run


ROOT = Path(__file__).resolve().parents[1]
#: the top-level folders the tools may leave in the checkout: caches, environments, build trees
TOOL_TREES = (".pytest_cache", ".hypothesis", ".ruff_cache", ".venv", "build", "dist")


def _left_in_checkout() -> set[str] | None:
    """The untracked and ignored paths of the checkout (git's short form: a folder once), but
    the tools' (`TOOL_TREES`, ``__pycache__``, ``*.egg-info``, ``*.so``); None outside a git
    checkout."""
    try:
        done = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--ignored"],
                              capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    paths = {line[3:] for line in done.stdout.splitlines() if line[:2] in ("??", "!!")}
    return {p for p in paths if p.split("/")[0] not in TOOL_TREES and "__pycache__" not in p
            and not p.rstrip("/").endswith((".egg-info", ".so"))}


#: the checkout's untracked paths when the run started (the controller's, under xdist)
_BEFORE: set[str] | None = None


def pytest_sessionstart(session) -> None:
    global _BEFORE
    if "PYTEST_XDIST_WORKER" not in os.environ:
        _BEFORE = _left_in_checkout()


def pytest_sessionfinish(session, exitstatus) -> None:
    """Fail the run when the tests left new paths in the checkout."""
    if _BEFORE is None or "PYTEST_XDIST_WORKER" in os.environ:
        return
    left = sorted((_left_in_checkout() or set()) - _BEFORE)
    if left:
        print(f"\nerror: the tests left {', '.join(left)} in the checkout {ROOT}: a test wrote "
              "into the working folder instead of its tmp_path", file=sys.stderr)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
