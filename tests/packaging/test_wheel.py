"""Wheels and source distributions (issue 25, section 2): ``python -m build`` makes an sdist
and, from it, a wheel with the compiled modules; auditwheel gives it a manylinux tag; installed
in a fresh environment on a machine path where every compiler is /bin/false, it loads its
compiled modules and passes the smoke gap, running the test commands cibuildwheel runs on the
wheels it builds (pyproject.toml, ``[tool.cibuildwheel]``).

The default run borrows the test environment's dependencies (seconds); the ``slow`` test
builds with isolation and installs the wheel with its dependencies resolved from the package
index, as a user would (about 2 minutes on an idle 2-core machine, more under load).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest

from resilsched import __version__, schemas
from resilsched.library.catalog import shipped
from resilsched.versions import EXTENSIONS

ROOT = Path(__file__).resolve().parents[2]

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
TEST_COMMANDS = PYPROJECT["tool"]["cibuildwheel"]["test-command"]

#: one pytest-xdist worker runs this module, so the session's `dist` is built once, and the
#: strict site build (tests/docs/test_site.py) on the same worker: both write into the
#: checkout's build/ folder (setuptools' build tree, the API tree of docs/_hooks/api_tree.py);
#: docs/ci.md's job (tests/packaging/test_ci_job.py) too, which takes the session's
#: `borrowed_venv` in turn with the wheel's install
pytestmark = pytest.mark.xdist_group("checkout-build")


def test_the_sdist_holds_what_builds_the_wheel(dist):
    with tarfile.open(dist["sdist"]) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    assert {"setup.py", "pyproject.toml", "MANIFEST.in", "LICENSE", "README.md",
            "CHANGELOG.md", "CITATION.cff", "csrc/core/module.c", "csrc/refute/memo.h",
            "examples/rigid-small.json", "resilsched/schemas/instance-rigid.json"} <= names
    assert not any(n.endswith(".so") or n.startswith(".venv") for n in names)


def test_the_wheel_holds_the_compiled_modules_and_the_data(dist):
    with zipfile.ZipFile(dist["wheel"]) as whl:
        names = set(whl.namelist())
    built = {re.sub(r"\.cpython-.*\.so$", "", n) for n in names if n.endswith(".so")}
    assert built == {f"resilsched/{name}" for name in EXTENSIONS}
    assert {f"resilsched/schemas/{name}.json" for name in schemas.SCHEMAS} <= names
    for lib in shipped():
        folder = f"resilsched/library/data/{lib.path.name}/"
        assert sum(n.startswith(folder) for n in names) == len(list(lib.path.glob("*.json")))
    for role in ("models", "heuristics", "bounds", "instances"):
        assert f"resilsched/{role}/__init__.py" in names
    assert not any(n.startswith(("tests/", "models/", "csrc/")) for n in names)
    assert dist["wheel"].name.startswith(f"resilsched-{__version__}-cp3")


def test_auditwheel_finds_a_manylinux_policy(dist, tools):
    shown = tools.run([str(Path(sys.executable).parent / "auditwheel"), "show",
                 str(dist["wheel"])]).stdout
    assert re.search(r'consistent with the\s+following platform tag: "manylinux_\d+_\d+_',
                     shown), shown
    assert re.fullmatch(rf"resilsched-{__version__}-cp3\d+-cp3\d+-manylinux_\d+_\d+_\w+\.whl",
                        dist["manylinux"].name)


def test_cibuildwheel_reads_the_configuration(tools):
    """cibuildwheel refuses an option it does not know; the builds it selects are the
    supported CPythons (requires-python) on manylinux, none on musllinux or i686."""
    cibuildwheel = shutil.which("cibuildwheel", path=str(Path(sys.executable).parent))
    if cibuildwheel is None:
        pytest.skip("cibuildwheel is not installed (the test extra installs it)")
    env = {k: v for k, v in os.environ.items() if not k.startswith("CIBW_")}
    selected = tools.run([cibuildwheel, "--print-build-identifiers", "--platform", "linux",
                          "--archs", "x86_64,i686,aarch64", str(ROOT)], env=env).stdout.split()
    assert PYPROJECT["project"]["requires-python"] == ">=3.11"
    assert selected == [f"cp3{minor}-manylinux_{arch}" for arch in ("x86_64", "aarch64")
                        for minor in (11, 12, 13)]


def _install_and_smoke(tools, wheel: Path, venv, no_compiler: Path, borrow: bool) -> str:
    """Install `wheel` without a compiler in `venv`, which holds no resilsched (`borrow`: it
    borrows the test environment's dependencies), then run cibuildwheel's test commands from
    a folder outside the checkout; their output."""
    env = venv.env(no_compiler)
    flags = ["--ignore-installed", "--no-deps"] if borrow else []
    tools.run([venv.python, "-m", "pip", "install", "--quiet", *flags, str(wheel)], env=env)
    where = tools.run([venv.python, "-c", "import resilsched; print(resilsched.__file__)"],
                env=env, cwd=venv.path).stdout
    assert where.startswith(str(venv.path)), where
    output = []
    for command in TEST_COMMANDS:
        done = subprocess.run(command, shell=True, env=env, cwd=venv.path, capture_output=True,
                              text=True, timeout=900)
        assert done.returncode == 0, f"{command}:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        assert "compiled simulation core" not in done.stderr  # no fallback warning
        output.append(done.stdout)
    return "\n".join(output)


def test_the_compiler_stand_ins_fail(no_compiler, tools):
    assert tools.run([str(no_compiler / "gcc"), "--version"], check=False).returncode != 0


def test_the_wheel_installs_and_runs_without_a_compiler(dist, no_compiler, tools,
                                                         borrowed_venv):
    out = _install_and_smoke(tools, dist["manylinux"], borrowed_venv.fresh(), no_compiler,
                             borrow=True)
    assert all(f"resilsched.{name}" in out and "loaded" in out for name in EXTENSIONS)
    assert "total violations: 0" in out


@pytest.mark.slow
def test_a_user_s_build_and_install(tmp_path, no_compiler, tools):
    """`python -m build` with isolation, auditwheel, then `pip install WHEEL` in a fresh
    environment resolving every dependency from the index, without a compiler."""
    out = tmp_path / "dist"
    tools.run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)], timeout=1800)
    (wheel,) = out.glob("*.whl")
    venv = tools.make_venv(tmp_path / "venv", borrow=False)
    smoke = _install_and_smoke(tools, tools.repair(wheel, out / "wheelhouse"), venv,
                               no_compiler, borrow=False)
    assert "total violations: 0" in smoke
