"""For the tests that act on a campaign mid-run (kill it, interrupt it, kill a worker).

`wait_for_rows` waits for a campaign running in another process to store rows: its progress
lines cannot be the signal, off a terminal they come at most every 10 s (decision K29).
`SLOW_SHARDS` is a spec whose shards are slow enough to be killed mid-run; `slow_square` a task
slow enough to be caught in flight, in a module that Dask workers can import by its name (a
test module's own name under pytest, ``campaign.test_...``, is not)."""

from __future__ import annotations

import sqlite3
import subprocess
import time
from pathlib import Path

#: 320 tasks of ~20 ms inline (R-LIST-Q at q-bar 0.9: many failures), ~80 per shard of 4: a
#: shard is caught with most of its slice to do
SLOW_SHARDS = """
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
qbar = [0.9]
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
