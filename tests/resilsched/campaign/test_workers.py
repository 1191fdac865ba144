"""SIGKILL on a real `resilsched campaign run` (docs/campaigns.md, "Interrupting and resuming"):
the pool workers exit with their parent, and the same command then finishes the campaign with no
task lost and none stored twice."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from resilsched.campaign.plan import plan
from resilsched.campaign.spec import load_spec
from resilsched.campaign.tasks import run_task
from resilsched.campaign.workers import set_parent_death_signal
from tests.support.campaign.midrun import SLOW, wait_for_rows


def children(pid: int) -> list[int]:
    """Pids of the live children of `pid` (Linux /proc)."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            out.append(int(stat.parent.name))
    return out


def alive(pid: int) -> bool:
    """True while `pid` runs (a zombie, dead but not reaped, counts as gone)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_sigkill_leaves_no_worker_and_the_rerun_finishes(spec, tmp_path):
    path = spec(SLOW)
    store = tmp_path / "results.sqlite"
    cmd = [sys.executable, "-m", "resilsched", "campaign", "run", path, "--store", str(store),
           "--jobs", "2"]
    proc = subprocess.Popen(cmd, stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    wait_for_rows(store, 1, proc)  # kill at the first row: most tasks are still to run
    workers = children(proc.pid)
    assert len(workers) >= 2 and proc.poll() is None
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    deadline = time.monotonic() + 10
    while any(alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [w for w in workers if alive(w)], "pool workers outlived their parent"
    con = sqlite3.connect(store)
    stored = con.execute("SELECT COUNT(*) FROM results").fetchone()[0]
    con.close()
    assert 1 <= stored < 80

    rerun = subprocess.run(cmd + ["--json", "-q"], capture_output=True, text=True, timeout=300)
    assert rerun.returncode == 0, rerun.stderr
    summary = json.loads(rerun.stdout)
    assert summary["already_stored"] == stored and summary["ran"] == 80 - stored
    con = sqlite3.connect(store)
    keys = [k for (k,) in con.execute("SELECT key FROM results")]
    rows = dict(con.execute("SELECT key, result FROM results"))
    con.close()
    tasks = {t.key: t for t in plan(load_spec(path))}
    assert len(keys) == len(set(keys)) == 80 and set(keys) == set(tasks)
    for key in sorted(tasks)[:: 20]:  # a sample recomputed in this process
        assert json.loads(rows[key]) == json.loads(json.dumps(run_task(tasks[key].payload)))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux-only")
def test_the_parent_death_signal_is_armed_in_workers():
    code = ("from resilsched.campaign.workers import set_parent_death_signal as s; "
            "import ctypes, sys; ok = s(); v = ctypes.c_int(); "
            "ctypes.CDLL(None).prctl(2, ctypes.byref(v), 0, 0, 0); "
            "sys.exit(0 if ok and v.value == 9 else 1)")  # PR_GET_PDEATHSIG = 2, SIGKILL = 9
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0
    assert callable(set_parent_death_signal)
