"""A Dask run that loses a worker mid-campaign (docs/campaigns.md, "Dask"): the scheduler runs
the lost chunks again elsewhere and the run still ends with every row exactly once, each with
its own value. On a local cluster of two worker processes on 127.0.0.1, one of them killed
with SIGKILL once the store holds a tenth of the rows (about 15 s in all); and a cluster that
has no worker yet is waited for, and said."""

from __future__ import annotations

import importlib
import os
import signal
import sqlite3
import sys
import threading
import time
from pathlib import Path

import pytest

from resilsched.campaign import ResultStore, Task
from resilsched.campaign.engine import execute
from tests.support.campaign.midrun import slow_square, stored_rows

distributed = pytest.importorskip("distributed")

TASKS = 200
#: the folder holding ``tests/``: the worker processes import `slow_square` from it by name
ROOT = Path(__file__).resolve().parents[3]


def test_a_dask_run_that_loses_a_worker_stores_every_row_once(tmp_path, monkeypatch):
    path = tmp_path / "loss.sqlite"
    # pytest runs with --import-mode=importlib, which leaves sys.path alone: `tests` is then
    # importable in worker processes only when the current folder is on it (``python -m
    # pytest``), not under the ``pytest`` script. A worker that cannot unpickle `slow_square`
    # dies, and so does its restart: the cluster ends with no worker and the run waits for one.
    # Spawned workers inherit sys.path.
    monkeypatch.syspath_prepend(str(ROOT))
    tasks = [Task({"x": x}, x) for x in range(TASKS)]
    killed: list[int] = []
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        assert all(a.startswith("tcp://127.0.0.1:") for a in client.nthreads())
        pids = sorted(client.run(os.getpid).values())
        assert len(pids) == 2
        # fail now, not by waiting for workers that die on every chunk
        assert list(client.run(slow_square, 3).values()) == [9, 9]

        def kill_one() -> None:
            deadline = time.monotonic() + 60
            while stored_rows(path) < TASKS // 10 and time.monotonic() < deadline:
                time.sleep(0.02)
            os.kill(pids[0], signal.SIGKILL)
            killed.append(stored_rows(path))

        killer = threading.Thread(target=kill_one, daemon=True)
        killer.start()
        with ResultStore(path) as store:
            outcome = execute("loss", tasks, slow_square, store, dask=client,
                              chunk_seconds=0.3, progress=False)
        killer.join(timeout=60)
        alive = sorted(client.run(os.getpid).values())
    assert killed and killed[0] < TASKS, "the worker was killed after the run"
    assert pids[0] not in alive  # it did die (its nanny may have started another)
    assert outcome.computed == TASKS and outcome.already == 0
    assert outcome.results == [x * x for x in range(TASKS)]
    con = sqlite3.connect(path)
    try:
        assert con.execute("SELECT COUNT(*), COUNT(DISTINCT key) FROM results").fetchone() == (
            TASKS, TASKS)
        got = sorted(con.execute("SELECT json_extract(fields, '$.x'), result FROM results"))
    finally:
        con.close()
    assert got == [(x, str(x * x)) for x in range(TASKS)]


def test_a_cluster_without_workers_is_waited_for_and_said(tmp_path, monkeypatch, capsys):
    """No worker yet (a batch queue), or all lost: the run waits, says so, and finishes when a
    worker comes."""
    import resilsched.campaign.engine as engine

    monkeypatch.setattr(engine, "DASK_POLL_SECONDS", 0.1)
    monkeypatch.setattr(engine, "NO_WORKER_SECONDS", 0.5)
    tasks = [Task({"x": x}, x) for x in range(20)]
    with distributed.LocalCluster(n_workers=0, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        later = threading.Timer(2.0, cluster.scale, (1,))
        later.start()
        with ResultStore(tmp_path / "s.sqlite") as store:
            outcome = execute("late", tasks, slow_square, store, dask=client)
        later.join()
    assert outcome.results == [x * x for x in range(20)]
    err = capsys.readouterr().err
    assert "[late] the Dask cluster has had no worker for " in err and "waiting for one" in err


def test_a_task_function_the_workers_cannot_load_is_an_error_before_any_task(tmp_path,
                                                                             monkeypatch):
    """A worker that cannot unpickle the task function dies on each chunk (and so does its
    restart): the run would wait for ever for a worker; it stops at once, naming the function
    (decision K33)."""
    from resilsched.campaign import CampaignError

    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        # a module made after the worker started: on this process's import path, not on its
        (tmp_path / "parent_only_k33.py").write_text("def double(x):\n    return 2 * x\n")
        monkeypatch.syspath_prepend(str(tmp_path))
        monkeypatch.delitem(sys.modules, "parent_only_k33", raising=False)
        double = importlib.import_module("parent_only_k33").double
        with ResultStore(tmp_path / "s.sqlite") as store:
            with pytest.raises(CampaignError, match=r"^--dask: the workers cannot load the task "
                               r"function parent_only_k33\.double \(.*parent_only_k33"):
                execute("nope", [Task({"x": x}, x) for x in range(3)], double, store,
                        dask=client, progress=False)
            assert store.keys("nope") == set()
