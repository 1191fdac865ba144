"""Fixtures shared by every test folder.

The tests mirror the package (docs/architecture.md, "Tests"), so a fixture serves tests in
several folders: the fixtures of an area live in ``tests/support/<area>/fixtures.py``, each in
one place, and reach every test through `pytest_plugins`.
"""

from collections.abc import Iterator

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
