"""The cluster recipes of docs/campaigns.md run as written: the shard commands (in this process,
as tests/docs/test_commands.py runs a page's lines), the SLURM array script
(docs/slurm/campaign-array.sh, run here as a process with the variables SLURM sets, one shard
stopped by SIGTERM as at its time limit and resubmitted; then its merge line) and the
dask-jobqueue driver (docs/slurm/dask_jobqueue_campaign.py, a process, on a local cluster
standing in for SLURM's)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from resilsched.campaign.plan import plan, shard_slice
from resilsched.campaign.spec import load_spec
from resilsched.cli import main
from tests.support.campaign.midrun import SLOWER_SHARDS, stored, stored_rows
from tests.support.docs.commands import run_line

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "campaigns.md").read_text()
SCRIPT = ROOT / "docs" / "slurm" / "campaign-array.sh"
RECIPE = ROOT / "docs" / "slurm" / "dask_jobqueue_campaign.py"
#: the environment of the commands: this interpreter's `resilsched` and `python3` first
ENV = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}


def block(language: str, after: str) -> str:
    """The first fenced block of `language` after the heading `after` in docs/campaigns.md."""
    return DOC.split(after, 1)[1].split(f"```{language}\n", 1)[1].split("```")[0]


def unsharded(spec: Path, store: Path) -> dict[str, tuple[str, str]]:
    """The rows of the whole campaign run at once, inline (the reference of the sharded runs;
    in this process: no recipe of the page is run here)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["campaign", "run", str(spec), "--store", str(store), "-q",
                     "--executor", "inline"])
    assert code == 0, err.getvalue()[-2000:]
    return stored(store)


def test_the_doc_shows_the_files_as_they_are():
    assert block("bash", "## A SLURM job array") == SCRIPT.read_text()
    assert block("python", "## Dask") == RECIPE.read_text()
    assert os.access(SCRIPT, os.X_OK)


def test_the_documented_shard_commands_run(tmp_path, run):
    """The block's lines, in order, each as tests/docs/test_commands.py runs a line (in-process,
    the pattern of the merge expanded by bash), stopping at the first that fails (bash -e)."""
    (tmp_path / "examples").mkdir()
    shutil.copy(ROOT / "examples" / "rigid-qbar.toml", tmp_path / "examples")
    commands = block("sh", "## A SLURM job array")
    assert commands.count("resilsched ") == 6
    out = []
    for line in commands.splitlines():
        code, stdout, err = run_line(line, run, tmp_path)
        assert code == 0, (line, err[-2000:])
        out.append(stdout)
    assert "all 120 tasks of the spec are stored" in "".join(out)
    assert (tmp_path / "report" / "report.md").exists()
    spec = tmp_path / "examples" / "rigid-qbar.toml"
    assert stored(tmp_path / "all.sqlite") == unsharded(spec, tmp_path / "whole.sqlite")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="process groups, /proc")
def test_the_array_script_runs_shards_resumes_after_sigterm_and_merges(tmp_path, run):
    spec = tmp_path / "spec.toml"
    spec.write_text(SLOWER_SHARDS)
    node = tmp_path / "node"  # the nodes' local disk ($TMPDIR)
    node.mkdir()
    sizes = {i: len(shard_slice(plan(load_spec(spec)), i, 4)) for i in (1, 2, 3, 4)}

    def shard(i: int) -> subprocess.Popen:
        env = {**ENV, "SLURM_ARRAY_TASK_ID": str(i), "SLURM_ARRAY_JOB_ID": "77",
               "TMPDIR": str(node), "PYTHONPATH": str(ROOT)}
        return subprocess.Popen(["bash", str(SCRIPT), "spec.toml", "4", "results"], cwd=tmp_path,
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, start_new_session=True)

    first = shard(2)  # stopped as by SLURM's time limit: SIGTERM to every process of the job
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and first.poll() is None:
        local = list(node.glob("resilsched-shard-2.*/shard-2.sqlite"))
        if local and stored_rows(local[0]) >= 1:
            break
        time.sleep(0.02)
    os.killpg(first.pid, signal.SIGTERM)
    _, err = first.communicate(timeout=60)
    assert first.returncode == 143, err
    saved = tmp_path / "results" / "shard-2.sqlite"
    kept = len(stored(saved))
    assert 1 <= kept < sizes[2]  # its rows so far were copied back
    assert not list(node.iterdir())  # and the local folder removed

    for i in (1, 3, 4, 2):  # the others, then shard 2 submitted again
        proc = shard(i)
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        if i == 2:
            assert f"({sizes[2] - kept} run now, {kept} already stored)" in out
        assert len(stored(tmp_path / "results" / f"shard-{i}.sqlite")) == sizes[i]
    header = SCRIPT.read_text().split('--wrap \\\n#       "', 1)[1].split('"', 1)[0]
    assert header.startswith("resilsched campaign merge results/shard-*.sqlite")
    code, out, err = run_line(header + " --json -q", run, tmp_path)
    assert code == 0, err
    assert json.loads(out)["complete"]
    assert stored(tmp_path / "results" / "all.sqlite") == unsharded(spec, tmp_path / "w.sqlite")


def test_a_missing_argument_is_the_usage_line(tmp_path):
    done = subprocess.run(["bash", str(SCRIPT), "spec.toml"], cwd=tmp_path, env=ENV,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and "usage: sbatch --array=1-N campaign-array.sh" in done.stderr
    assert not (tmp_path / "results").exists()


#: dask_jobqueue's SLURMCluster, standing in: a local cluster (two workers on 127.0.0.1) that
#: takes the recipe's arguments and checks them
FAKE_JOBQUEUE = '''
import distributed

class SLURMCluster(distributed.LocalCluster):
    def __init__(self, *, cores, processes, memory, walltime, account, queue, python):
        assert cores == processes and isinstance(memory, str) and python
        super().__init__(n_workers=0, threads_per_worker=1, processes=True,
                         host="127.0.0.1", dashboard_address=None)

    def adapt(self, *, minimum_jobs, maximum_jobs):
        assert 1 <= minimum_jobs <= maximum_jobs
        self.scale(2)
'''


def test_the_dask_jobqueue_recipe_runs_on_a_local_cluster(tmp_path):
    pytest.importorskip("distributed")
    (tmp_path / "fake").mkdir()
    (tmp_path / "fake" / "dask_jobqueue.py").write_text(FAKE_JOBQUEUE)
    spec = tmp_path / "spec.toml"
    spec.write_text(re.sub(r"count = 5", "count = 2", (ROOT / "examples" / "rigid-qbar.toml")
                           .read_text()))
    env = {**ENV, "PYTHONPATH": os.pathsep.join([str(tmp_path / "fake"), str(ROOT)])}
    done = subprocess.run([sys.executable, str(RECIPE), "spec.toml", "results.sqlite"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "Dask (tcp://127.0.0.1:" in done.stderr
    assert stored(tmp_path / "results.sqlite") == unsharded(spec, tmp_path / "whole.sqlite")
