"""docs/ci.md's ready-to-copy GitHub Actions job, step by step (issue 25, section 2).

The job's ``run:`` steps are taken from the page and run as GitHub runs them (``bash -eo
pipefail``) in a fresh virtual environment and a throwaway downstream project: the install
step with ``RESILSCHED`` pointing at a git URL of this checkout at the version's tag (a local
clone, tagged there), then the vendoring commands, the verification and the gate. The default
run borrows the test environment's dependencies (pip is told ``--no-deps``); the ``slow`` test
resolves them from the index as the job does. The default run's environment is the session's
`borrowed_venv`, which the wheel's test (tests/packaging/test_wheel.py) also takes, in turn:
both are in the xdist group "checkout-build". (tests/docs/test_ci.py runs the gate's commands
in-process on a cut library.)
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from resilsched import __version__

ROOT = Path(__file__).resolve().parents[2]

yaml = pytest.importorskip("yaml")

DOC = (ROOT / "docs" / "ci.md").read_text()

#: the worker of the session's `borrowed_venv` (the wheel's test takes it too)
pytestmark = pytest.mark.xdist_group("checkout-build")


def _block(lang: str, index: int = 0) -> str:
    return re.findall(rf"```{lang}\n(.*?)```", DOC, re.S)[index]


JOB = yaml.safe_load(_block("yaml"))["jobs"]["gap-gate"]
RUNS = [step for step in JOB["steps"] if "run" in step]


def test_the_job_installs_a_tagged_release_from_git():
    name, _, url = JOB["env"]["RESILSCHED"].partition(" @ ")
    assert name == "resilsched"
    assert url.startswith("git+https://") and url.endswith(f"@v{__version__}")
    install = RUNS[0]["run"]
    assert 'python -m pip install "$RESILSCHED"' in install
    assert "resilsched==" not in DOC  # the package is not on PyPI


@pytest.fixture(scope="module")
def tagged(tmp_path_factory, tools) -> str:
    """A requirement on a clone of this checkout's HEAD, tagged ``v<version>`` there."""
    clone = tmp_path_factory.mktemp("upstream") / "resilsched"
    tools.run(["git", "clone", "--quiet", "--no-local", str(ROOT), str(clone)])
    tools.run(["git", "-C", str(clone), "tag", f"v{__version__}"])
    return f"resilsched @ git+file://{clone}@v{__version__}"


def _run_job(tools, tmp_path: Path, requirement: str, venv, borrow: bool) -> dict:
    """Run the page's commands in a downstream project with `venv`, which holds no resilsched
    (`borrow`: it borrows the test environment's dependencies); the gate's JSON report."""
    env = venv.env(None, RESILSCHED=requirement, GITHUB_RUN_NUMBER="7")
    if borrow:
        env.update(PIP_NO_DEPS="1", PIP_IGNORE_INSTALLED="1")
    project = tmp_path / "downstream"
    (project / "ci").mkdir(parents=True)
    (project / "ci" / "thresholds.json").write_text(_block("json"))
    tools.run(["git", "init", "--quiet", str(project)])
    scripts = [RUNS[0]["run"], _block("sh"), *(step["run"] for step in RUNS[1:])]
    for script in scripts:
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
                              cwd=project, env=env, capture_output=True, text=True, timeout=1800)
        assert done.returncode == 0, f"{script}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    installed = tools.run([venv.python, "-c", "import resilsched; print(resilsched.__file__)"],
                    env=env, cwd=project).stdout
    assert installed.startswith(str(venv.path)), installed
    return json.loads((project / "gap-report.json").read_text())


def test_the_job_runs_as_written(tmp_path, tagged, tools, borrowed_venv):
    report = _run_job(tools, tmp_path, tagged, borrowed_venv.fresh(), borrow=True)
    assert report["passed"] and report["violations"] == 0
    assert [lib["name"] for lib in report["libraries"]] == ["rigid-small"]


@pytest.mark.slow
def test_the_job_runs_as_written_with_its_dependencies_from_the_index(tmp_path, tagged,
                                                                      tools):
    venv = tools.make_venv(tmp_path / "venv", borrow=False)
    report = _run_job(tools, tmp_path, tagged, venv, borrow=False)
    assert report["passed"] and report["violations"] == 0
