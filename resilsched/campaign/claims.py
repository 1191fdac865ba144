"""Concurrent runs on one store share the work: a task claimed by a live run is left to it.

docs/campaigns.md, "Two runs on one store". Before a run sends a chunk of tasks to its
workers it claims them (`ResultStore.claim`, one transaction, one ``claims`` row per chunk): a
task already stored, or claimed by another run that is still alive, is not taken; a claim of a
run that died (SIGKILL included) is ignored, so its tasks are taken again. A claim is deleted
in the transaction that stores the last row of its chunk, so the table holds the chunks in
flight only. When a run has nothing left but tasks claimed by others, it waits
for their rows (`resilsched.campaign.engine`), taking over the claims of any run that dies
meanwhile, so every run ends with every task stored. Claims never decide what is stored: rows
are still written with ``INSERT OR IGNORE`` under the primary key, so a task computed twice (a
run wrongly taken for dead) is stored once.

A run is registered in ``claimants`` with its place (host name, boot id and PID namespace), its
pid, its process start time and a heartbeat. A claimant in the same place is alive exactly when a
process with its pid and start time exists (no delay after a kill); in another place (another
container sharing the file), when its heartbeat is younger than `STALE_SECONDS`.

>>> claims = Claims(ResultStore(":memory:"), "demo")  # nothing to share in memory
>>> claims.take(["a", "b"])
(['a', 'b'], [], [])
>>> claims.finishing(["a", "b"])
[]
"""

from __future__ import annotations

import os
import socket
import sys
import time
import uuid
from collections.abc import Sequence
from pathlib import Path

from resilsched.campaign.store import ResultStore

__all__ = ["STALE_SECONDS", "Claims", "live_runs", "process_start"]

#: a claimant in another place whose heartbeat is older than this is taken for dead
STALE_SECONDS = 120.0
#: seconds between two heartbeats of a run (written when the run next touches the store)
HEARTBEAT_SECONDS = 5.0
#: seconds between two looks at the store while waiting for tasks claimed by other runs
WAIT_SECONDS = 0.5


def _read(path: str) -> str:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return ""


def place() -> str:
    """Where this process's pids mean something: host name, boot id, PID namespace."""
    ns = ""
    try:
        ns = str(os.stat("/proc/self/ns/pid").st_ino)
    except OSError:
        pass
    return f"{socket.gethostname()}|{_read('/proc/sys/kernel/random/boot_id')}|{ns}"


def process_start(pid: int) -> str | None:
    """A token of when process `pid` started (Linux: its start time in clock ticks), "" where
    that is unknown, None if no such process runs (a zombie counts as gone)."""
    if sys.platform.startswith("linux"):
        stat = _read(f"/proc/{pid}/stat")
        if not stat:
            return None
        fields = stat.rsplit(")", 1)[1].split()
        return None if fields[0] in ("Z", "X") else fields[19]
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except OSError:
        pass  # exists, owned by someone else
    return ""


def _alive(here: str, where: str, pid: int, started: str, heartbeat: float) -> bool:
    """Whether the claimant registered at `where` with `pid`, `started`, `heartbeat` is alive,
    seen from the place `here` (see the module doc)."""
    if where == here:
        return process_start(pid) == started
    return time.time() - heartbeat < STALE_SECONDS


def live_runs(store: ResultStore, campaign: str, but: str | None = None) -> dict[str, str]:
    """Owner -> ``pid N on HOST`` of the live runs registered on `campaign` (but `but`)."""
    if store.path == ":memory:":
        return {}
    here = place()
    return {owner: f"pid {pid} on {where.split('|')[0]}"
            for owner, where, pid, started, heartbeat in store.claimants(campaign)
            if owner != but and _alive(here, where, pid, started, heartbeat)}


class Claims:
    """This run's claims on the tasks of `campaign` (see the module doc); a no-op in memory."""

    def __init__(self, store: ResultStore, campaign: str):
        self.store = store
        self.campaign = campaign
        self.owner = uuid.uuid4().hex
        self.shared = store.path != ":memory:"
        self._beat = time.monotonic()
        self._open: dict[int, set[str]] = {}  # claim row id -> its keys not stored yet
        self._claim_of: dict[str, int] = {}
        if self.shared:
            pid = os.getpid()
            self.store.release(self._dead())
            self.store.add_claimant(self.owner, campaign, place(), pid, process_start(pid) or "",
                                    time.time())

    def others(self) -> list[str]:
        """``pid N on HOST`` of every other live run on this campaign."""
        return list(live_runs(self.store, self.campaign, but=self.owner).values())

    def beat(self) -> None:
        """Refresh this run's heartbeat (at most every `HEARTBEAT_SECONDS`)."""
        if self.shared and time.monotonic() - self._beat >= HEARTBEAT_SECONDS:
            self._beat = time.monotonic()
            self.store.beat(self.owner, time.time())

    def take(self, keys: Sequence[str]) -> tuple[list[str], list[str], list[str]]:
        """Claim `keys`: (claimed now, stored by another run, held by another live run)."""
        if not self.shared:
            return list(keys), [], []
        self.beat()
        live = {*live_runs(self.store, self.campaign), self.owner}
        claimed, stored, held, claim = self.store.claim(self.campaign, self.owner, keys, live)
        if claim is not None:
            self._open[claim] = set(claimed)
            self._claim_of.update(dict.fromkeys(claimed, claim))
        return claimed, stored, held

    def peek(self, keys: Sequence[str]) -> tuple[list[str], list[str], list[str]]:
        """Like `take`, claiming nothing: (free to claim, stored by another run, held by another
        live run)."""
        if not self.shared:
            return list(keys), [], []
        self.beat()
        live = {*live_runs(self.store, self.campaign), self.owner}
        return self.store.claim(self.campaign, self.owner, keys, live, reserve=False)[:3]

    def finishing(self, keys: Sequence[str]) -> list[int]:
        """The claims that the rows of `keys` complete (to delete with them); forgotten here."""
        done = []
        for k in keys:
            claim = self._claim_of.pop(k, None)
            if claim is not None:
                left = self._open[claim]
                left.discard(k)
                if not left:
                    del self._open[claim]
                    done.append(claim)
        return done

    def release(self) -> None:
        """Drop this run's claims and registration (the run ends), and those of dead runs."""
        if self.shared:
            self.store.release([self.owner, *self._dead()])

    def _dead(self) -> list[str]:
        """The owners of the runs registered on this campaign that are no longer alive."""
        here = place()
        return [owner for owner, where, *rest in self.store.claimants(self.campaign)
                if owner != self.owner and not _alive(here, where, *rest)]
