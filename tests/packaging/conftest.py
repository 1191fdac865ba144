"""Fixtures of the packaging tests: the distributions built from this checkout and a machine
path without a C compiler (helpers in `venvs`)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from .venvs import COMPILERS, ROOT, repair, run


@pytest.fixture(scope="session")
def no_compiler(tmp_path_factory) -> Path:
    """A folder of compilers that all fail (/bin/false), to put first on PATH."""
    folder = tmp_path_factory.mktemp("no-compiler")
    for name in COMPILERS:
        (folder / name).symlink_to("/bin/false")
    return folder


@pytest.fixture(scope="session")
def dist(tmp_path_factory) -> dict[str, Path]:
    """``python -m build`` of this checkout (an sdist, then a wheel built from it), and the
    wheel repaired by auditwheel (its manylinux tag): ``{"sdist", "wheel", "manylinux"}``.
    Without build isolation: the test environment has the build requirements (the `test`
    extra), so no download is needed; the slow tests build with isolation, as a user does."""
    out = tmp_path_factory.mktemp("dist")
    run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT)])
    (sdist,) = out.glob("*.tar.gz")
    (wheel,) = out.glob("*.whl")
    return {"sdist": sdist, "wheel": wheel, "manylinux": repair(wheel, out / "wheelhouse")}
