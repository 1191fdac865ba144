"""Concurrent runs on one store share the work (docs/campaigns.md, "Two runs on one store"): a
task claimed by a live run is left to it, claims of a dead run are taken over, and every task
is stored exactly once."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from resilsched.campaign import ResultStore, Task, run_campaign
from resilsched.campaign.claims import Claims, live_runs, place, process_start
from resilsched.campaign.engine import execute
from resilsched.campaign.store import canonical_json
from tests.support.campaign.midrun import SLOW, SLOWER_SHARDS, wait_for_rows

ROOT = Path(__file__).resolve().parents[3]


def square(x: int) -> int:
    time.sleep(0.01)
    return x * x


def tasks_of(n: int) -> list[Task]:
    return [Task({"x": x}, x) for x in range(n)]


@pytest.fixture
def other():
    """A live process standing for another run (its pid and start time are real)."""
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    yield proc
    proc.kill()
    proc.wait()


def _other_run(store: ResultStore, campaign: str, pid: int, keys: list[str]) -> str:
    """Register a run of process `pid` holding claims on `keys`; returns its owner id."""
    owner = f"other-{pid}"
    store.add_claimant(owner, campaign, place(), pid, process_start(pid) or "", time.time())
    store.claim(campaign, owner, keys, {owner})
    return owner


def test_a_live_run_keeps_its_tasks_and_a_dead_one_loses_them(tmp_path, other, monkeypatch):
    import resilsched.campaign.engine as engine

    monkeypatch.setattr(engine, "WAIT_SECONDS", 0.1)  # it looks 5 times while the other lives
    tasks = tasks_of(12)
    keys = [t.key for t in tasks]
    with ResultStore(tmp_path / "s.sqlite") as store:
        store.register("c", {})
        _other_run(store, "c", other.pid, keys[:4])
        assert list(live_runs(store, "c").values()) == [f"pid {other.pid} on "
                                                        f"{place().split('|')[0]}"]
        mine = Claims(store, "c")
        assert mine.take(keys[:6]) == (keys[4:6], [], keys[:4])  # held by a live run
        mine.release()
        threading.Timer(0.5, other.kill).start()  # it dies while this run waits
        outcome = execute("c", tasks, square, store, jobs=1, progress=False)
        assert outcome.results == [x * x for x in range(12)]
        assert outcome.computed == 12 and outcome.by_others == 0  # took the 4 over
        assert store.count("c") == 12
        assert store.claimants("c") == []  # the dead run's registration is gone too


def test_a_run_waits_for_the_rows_of_a_live_run(tmp_path, other, monkeypatch):
    """Tasks held by another live run are not computed here: this run waits for their rows
    and returns them."""
    import resilsched.campaign.engine as engine

    monkeypatch.setattr(engine, "WAIT_SECONDS", 0.1)  # it looks 5 times before they come
    path = tmp_path / "s.sqlite"
    tasks = tasks_of(10)
    with ResultStore(path) as store:
        store.register("c", {})
        owner = _other_run(store, "c", other.pid, [t.key for t in tasks[7:]])

    def finish_them():  # the other run stores its three rows half a second later
        time.sleep(0.5)
        with ResultStore(path) as theirs:
            theirs.add_texts("c", [(t.key, canonical_json(t.fields), json.dumps(-1), 0.0)
                                   for t in tasks[7:]])
            theirs.release([owner])

    helper = threading.Thread(target=finish_them)
    helper.start()
    with ResultStore(path) as store:
        outcome = execute("c", tasks, square, store, jobs=1, progress=False)
    helper.join()
    assert outcome.computed == 7 and outcome.by_others == 3
    assert outcome.results == [x * x for x in range(7)] + [-1] * 3  # theirs, as stored


def test_claims_in_memory_are_a_no_op():
    store = ResultStore(":memory:")
    assert run_campaign("c", tasks_of(3), square, store, jobs=1, progress=False) == [0, 1, 4]
    assert live_runs(store, "c") == {}


#: 200 tasks of `gated_rigid`: the first task of each process waits for the other's first
SHARED = SLOWER_SHARDS.replace('name = "slower"', 'name = "shared"').replace(
    "slow_rigid", "gated_rigid").replace("count = 40", "count = 50")


def test_two_concurrent_processes_share_the_work(spec, tmp_path):
    """Two `campaign run` processes started together on one store: each task is computed by
    exactly one of them, and both end with every row stored, once."""
    path = spec(SHARED)
    store = tmp_path / "results.sqlite"
    gate = tmp_path / "gate"
    gate.mkdir()
    cmd = [sys.executable, "-m", "resilsched", "campaign", "run", path, "--store", str(store),
           "--executor", "inline", "--chunk-seconds", "0.1", "--json", "-q"]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RESILSCHED_TEST_GATE": str(gate)}
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=env) for _ in range(2)]
    outs = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 0 for p in procs), outs
    a, b = (json.loads(out) for out, _ in outs)
    assert a["stored"] == b["stored"] == 200
    assert a["ran"] + b["ran"] == 200 and a["ran"] > 0 and b["ran"] > 0  # shared, none twice
    for one, other in ((a, b), (b, a)):  # each saw every row of the other
        assert one["already_stored"] + one["by_others"] == other["ran"]
    con = sqlite3.connect(store)
    assert con.execute("SELECT COUNT(*), COUNT(DISTINCT key) FROM results").fetchone() == (200,
                                                                                            200)
    assert con.execute("SELECT COUNT(*) FROM claims").fetchone() == (0,)  # released at the end
    assert con.execute("SELECT COUNT(*) FROM claimants").fetchone() == (0,)
    con.close()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_killed_run_leaves_its_claims_to_the_next(run, spec, tmp_path):
    """SIGKILL while the run holds claims: the next run (in-process) takes them over at once
    (the dead run's pid and start time no longer match) and finishes, every row once."""
    path = spec(SLOW)
    store = tmp_path / "results.sqlite"
    cmd = [sys.executable, "-m", "resilsched", "campaign", "run", path, "--store", str(store),
           "--jobs", "2"]
    proc = subprocess.Popen(cmd, stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    wait_for_rows(store, 1, proc)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    con = sqlite3.connect(store)
    held = con.execute("SELECT COUNT(*) FROM claims").fetchone()[0]
    stored = con.execute("SELECT COUNT(*) FROM results").fetchone()[0]
    con.close()
    assert held > 0 and stored < 80  # it died holding claims
    started = time.monotonic()
    code, out, err = run(*cmd[3:], "--json", "-q")
    assert code == 0, err
    assert json.loads(out)["ran"] == 80 - stored
    assert time.monotonic() - started < 120  # no wait for a heartbeat to go stale
    con = sqlite3.connect(store)
    assert con.execute("SELECT COUNT(*), COUNT(DISTINCT key) FROM results").fetchone() == (80, 80)
    con.close()
