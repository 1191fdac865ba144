"""For the tests that act on a campaign mid-run (kill it, interrupt it, kill a worker).

`wait_for_rows` waits for a campaign running in another process to store rows: its progress
lines cannot be the signal, off a terminal they come at most every 10 s (decision K29).
`SLOW` is a spec slow enough to be killed mid-run on a pool, `SLOW_SHARDS` one whose shards are
(inline), `SLOWER_SHARDS` one whose shards are stopped by SIGTERM in a separate process
(tests/docs/test_slurm.py); `slow_square` is a task slow enough to be caught in flight, in a
module that Dask workers can import by its name (a test module's own name under pytest,
``campaign.test_...``, is not), `slow_rigid` a plug-in heuristic of the same kind, and
`gated_rigid` one that holds two processes sharing a store until both have started a task.
`stored` reads a store's rows without writing."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import time
from pathlib import Path

#: ~80 tasks of a few ms to 0.1 s (R-LIST-Q on the paper's 100-job sets)
SLOW = """
[campaign]
name = "slow"
[[instances]]
family = "rigid"
preset = "paper-default"
count = 4
seed = 1
[[algorithms]]
name = "R-LIST-Q"
priority = ["LPT", "LA"]
[scenarios]
qbar = [0.3]
count = 10
seed = 7
"""
#: 320 tasks of a few ms inline on the compiled core (q-bar 0.9: many failures), ~80 per shard
#: of 4: a shard is caught with most of its slice to do
SLOW_SHARDS = SLOW.replace("qbar = [0.3]", "qbar = [0.9]").replace("count = 10", "count = 40")
#: 160 tasks of `slow_rigid` (20 ms each), ~40 per shard of 4: a shard lasts about a second,
#: so a SIGTERM sent after its first row finds it mid-run (`SLOW_SHARDS`' shard of 70 tasks of
#: about 4 ms could end first)
SLOWER_SHARDS = """
[campaign]
name = "slower"
[[instances]]
family = "rigid"
preset = "smoke"
count = 4
seed = 1
[[algorithms]]
name = "tests.support.campaign.midrun:slow_rigid"
[scenarios]
qbar = [0.3]
count = 40
seed = 7
"""


def stored_rows(store: str | Path) -> int:
    """Rows in the store's ``results`` table now (0 while the file or the table is not made)."""
    if not Path(store).exists():
        return 0
    try:
        con = sqlite3.connect(f"{Path(store).absolute().as_uri()}?mode=ro", uri=True, timeout=5)
        try:
            return con.execute("SELECT COUNT(*) FROM results").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:
        return 0


def wait_for_rows(store: str | Path, at_least: int, proc: subprocess.Popen,
                  timeout: float = 120.0) -> int:
    """Poll the store every 20 ms until it holds `at_least` rows (or `proc` ended, or
    `timeout` passed); returns the count seen last."""
    deadline = time.monotonic() + timeout
    while True:
        n = stored_rows(store)
        if n >= at_least or proc.poll() is not None or time.monotonic() > deadline:
            return n
        time.sleep(0.02)


def slow_square(x: int) -> int:
    """x * x after 50 ms."""
    time.sleep(0.05)
    return x * x


def stored(path: str | Path) -> dict[str, tuple[str, str]]:
    """key -> (fields, result) of every row of a store, as stored, read without writing."""
    con = sqlite3.connect(f"{Path(path).absolute().as_uri()}?mode=ro", uri=True)
    try:
        return {k: (f, r) for k, f, r in con.execute("SELECT key, fields, result FROM results")}
    finally:
        con.close()


def gated_rigid(instance, scenario=None, priority=None, *, seed: int = 0):
    """R-LIST-0 (its default priority), as a plug-in heuristic, once this process and another
    have both started a task: each call leaves a file named after its process in the folder
    ``$RESILSCHED_TEST_GATE`` and waits (at most 60 s) until the folder holds two. Two
    processes sharing a store then both run tasks, however late the second one starts."""
    from resilsched.heuristics.rigid.rlist import r_list_0

    gate = Path(os.environ["RESILSCHED_TEST_GATE"])
    (gate / str(os.getpid())).touch()
    deadline = time.monotonic() + 60.0
    while sum(1 for _ in gate.iterdir()) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    return r_list_0(instance, scenario, priority, seed=seed)


def slow_rigid(instance, scenario=None, priority=None, *, seed: int = 0):
    """R-LIST-0 (its default priority) after 20 ms, as a plug-in heuristic."""
    from resilsched.heuristics.rigid.rlist import r_list_0

    time.sleep(0.02)
    return r_list_0(instance, scenario, priority, seed=seed)
