"""Campaigns: resumable experiment runs backed by a SQLite result store.

docs/architecture.md, "Campaigns and scale": a large experiment is a list of independent tasks;
every completed task is one row of a `ResultStore` (SQLite in WAL mode), so an interrupted run
loses at most the tasks in flight, and rerunning the same campaign computes only the missing
tasks. `run_campaign` runs the missing tasks inline, on a local process pool (default) or on Dask
distributed, stores each result as soon as it arrives (the parent process is the only writer),
shows progress on stderr, and returns the results of all tasks in the order they were given.

Store schema (one file may hold several campaigns)::

    campaigns(name TEXT PRIMARY KEY, config TEXT, created TEXT)
    results(campaign TEXT, key TEXT, fields TEXT, result TEXT, seconds REAL, finished TEXT,
            PRIMARY KEY (campaign, key))

``config`` is the canonical JSON of the campaign-wide parameters (what is not in the task keys:
seeds, scenario counts, ...); reusing a campaign name with another configuration raises
`CampaignError` instead of mixing two experiments. ``key`` is `task_key` of the task's ``fields``
(also stored, for inspection), ``result`` the task's JSON result, ``seconds`` its wall time in the
worker, ``finished`` an ISO-8601 UTC timestamp. Rows are written with ``INSERT OR IGNORE`` under
the primary key, so a result is never stored twice, even by two runs sharing the store.

Determinism: a task's result may depend only on its payload (every random draw seeded from the
payload), never on the order of completion or on whether the run was resumed; new results are
normalised through JSON before they are returned, so a fresh run and a resumed one return
identical Python values.

>>> store = ResultStore(":memory:")
>>> tasks = [Task({"x": x}, x) for x in range(4)]
>>> run_campaign("squares", tasks, _square, store, jobs=1, progress=False)
[0, 1, 4, 9]
>>> store.count("squares")
4
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sqlite3
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from resilsched.solution import to_jsonable

__all__ = ["EXIT_INTERRUPTED", "CampaignError", "ResultStore", "Task", "add_cli_options",
           "canonical_json", "require_dask", "run_campaign", "run_script", "task_key"]

#: exit status of a script interrupted by Ctrl-C (128 + SIGINT), as a shell reports it
EXIT_INTERRUPTED = 130

_SCHEMA = """
CREATE TABLE IF NOT EXISTS campaigns (
    name TEXT PRIMARY KEY,
    config TEXT NOT NULL,
    created TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS results (
    campaign TEXT NOT NULL,
    key TEXT NOT NULL,
    fields TEXT NOT NULL,
    result TEXT NOT NULL,
    seconds REAL,
    finished TEXT NOT NULL,
    PRIMARY KEY (campaign, key)
);
"""


class CampaignError(ValueError):
    """A campaign cannot run as asked (configuration mismatch, missing Dask); one-line message."""


@dataclass(frozen=True)
class Task:
    """One unit of work: `fields` identify it (they make its key), `payload` is what ``fn`` gets.

    `fields` must be JSON-able (tuples, numpy scalars and Fractions are converted) and must
    determine the result together with the campaign's configuration; the payload may hold
    anything picklable (instances, scenario matrices) derived from them.
    """

    fields: Mapping[str, Any]
    payload: Any

    @property
    def key(self) -> str:
        return task_key(self.fields)


def canonical_json(x: Any) -> str:
    """JSON with sorted keys and no spaces: equal values give equal strings."""
    return json.dumps(to_jsonable(x), sort_keys=True, separators=(",", ":"))


def task_key(fields: Mapping[str, Any]) -> str:
    """Stable key of a task: sha256 (hex) of the canonical JSON of its fields.

    >>> task_key({"b": 1, "a": (0.5, 2)}) == task_key({"a": [0.5, 2], "b": 1})
    True
    """
    return hashlib.sha256(canonical_json(fields).encode()).hexdigest()


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class ResultStore:
    """SQLite result store in WAL mode, one row per completed task (schema in the module doc).

    Every `add` is committed at once (autocommit), so killing the process loses nothing stored.
    ``synchronous=NORMAL``: in WAL mode a crash of the process never loses a commit; a power cut
    may lose the last few, never corrupting the file. Use one store object per process.
    """

    def __init__(self, path: str | os.PathLike[str]):
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, isolation_level=None, timeout=30.0)
        self.journal_mode = self._db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)

    # -- campaigns ---------------------------------------------------------------------------

    def config(self, campaign: str) -> dict[str, Any] | None:
        """The configuration recorded for `campaign`, or None if it was never registered."""
        row = self._db.execute("SELECT config FROM campaigns WHERE name = ?",
                               (campaign,)).fetchone()
        return None if row is None else json.loads(row[0])

    def register(self, campaign: str, config: Mapping[str, Any]) -> None:
        """Record `campaign`'s configuration, or check it equals the recorded one.

        Raises `CampaignError` (one line: the differing fields, how to start over) on a mismatch.
        """
        text = canonical_json(config)
        self._db.execute("INSERT OR IGNORE INTO campaigns (name, config, created) VALUES (?,?,?)",
                         (campaign, text, _now()))
        old = self._db.execute("SELECT config FROM campaigns WHERE name = ?",
                               (campaign,)).fetchone()[0]
        if old != text:
            before, after = json.loads(old), json.loads(text)
            diff = ", ".join(f"{k}: {_short(before.get(k))} -> {_short(after.get(k))}"
                             for k in sorted(set(before) | set(after))
                             if before.get(k) != after.get(k))
            raise CampaignError(
                f"campaign {campaign!r} in {self.path} holds {self.count(campaign)} results of "
                f"another configuration ({diff}); start over with --fresh, or use another --store")

    def forget(self, campaign: str) -> int:
        """Delete `campaign`'s results and configuration; returns how many results it held."""
        with self._db:  # one transaction: never a half-deleted campaign
            self._db.execute("BEGIN")
            n = self._db.execute("DELETE FROM results WHERE campaign = ?", (campaign,)).rowcount
            self._db.execute("DELETE FROM campaigns WHERE name = ?", (campaign,))
        return n

    # -- results -----------------------------------------------------------------------------

    def add(self, campaign: str, key: str, result: Any, fields: Mapping[str, Any] | None = None,
            seconds: float | None = None) -> bool:
        """Store one result (committed now); False if `key` was already stored (kept as it was)."""
        cur = self._db.execute(
            "INSERT OR IGNORE INTO results (campaign, key, fields, result, seconds, finished) "
            "VALUES (?,?,?,?,?,?)",
            (campaign, key, canonical_json(fields or {}), json.dumps(to_jsonable(result)),
             seconds, _now()))
        return cur.rowcount == 1

    def has(self, campaign: str, key: str) -> bool:
        return self._db.execute("SELECT 1 FROM results WHERE campaign = ? AND key = ?",
                                (campaign, key)).fetchone() is not None

    def keys(self, campaign: str) -> set[str]:
        return {k for (k,) in self._db.execute("SELECT key FROM results WHERE campaign = ?",
                                               (campaign,))}

    def load(self, campaign: str, keys: set[str] | None = None) -> dict[str, Any]:
        """Stored results of `campaign` (only those in `keys` when given): key -> result."""
        rows = self._db.execute("SELECT key, result FROM results WHERE campaign = ?",
                                (campaign,))
        return {k: json.loads(r) for k, r in rows if keys is None or k in keys}

    def count(self, campaign: str) -> int:
        return self._db.execute("SELECT COUNT(*) FROM results WHERE campaign = ?",
                                (campaign,)).fetchone()[0]

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _short(x: Any, width: int = 40) -> str:
    s = canonical_json(x)
    return s if len(s) <= width else s[: width - 3] + "..."


# -- progress ---------------------------------------------------------------------------------

class _Progress:
    """Plain progress lines on stderr: every ~5 % of the tasks or every 10 s, and at the end."""

    def __init__(self, label: str, total: int, done: int, enabled: bool,
                 stream: TextIO | None = None, every: float = 10.0):
        self.label, self.total, self.done, self.enabled = label, total, done, enabled
        self.stream = stream or sys.stderr
        self.skipped = done
        self.start = self.last = time.perf_counter()
        self.every = every
        self.step = max(1, (total - done) // 20)

    def say(self, msg: str) -> None:
        print(f"[{self.label}] {msg}", file=self.stream, flush=True)

    def tick(self) -> None:
        self.done += 1
        now = time.perf_counter()
        new = self.done - self.skipped
        if not self.enabled or not (new % self.step == 0 or self.done == self.total
                                    or now - self.last >= self.every):
            return
        self.last = now
        elapsed = now - self.start
        eta = elapsed / new * (self.total - self.done)
        self.say(f"{self.done}/{self.total} tasks ({100 * self.done / self.total:.0f} %), "
                  f"elapsed {_hms(elapsed)}, ETA {_hms(eta)}")


def _hms(seconds: float) -> str:
    s = int(round(seconds))
    if s >= 3600:
        return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"
    return f"{s // 60}:{s % 60:02d}"


# -- running ----------------------------------------------------------------------------------

def _call(fn: Callable[[Any], Any], payload: Any) -> tuple[Any, float]:
    """Run one task where it is scheduled; returns its result and wall time."""
    t0 = time.perf_counter()
    result = fn(payload)
    return result, time.perf_counter() - t0


def _ignore_sigint() -> None:
    """Pool workers leave Ctrl-C to the parent, which stops them (no traceback per worker)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def run_campaign(name: str, tasks: Sequence[Task], fn: Callable[[Any], Any],
                 store: ResultStore, *, config: Mapping[str, Any] | None = None,
                 jobs: int | None = None, dask: Any = None, progress: bool = True,
                 label: str | None = None) -> list[Any]:
    """Run the tasks of campaign `name` not yet in `store`; return all results in task order.

    Parameters
    ----------
    name : campaign name (a store may hold several campaigns).
    tasks : the whole campaign; tasks already stored are skipped, duplicate keys run once.
    fn : ``fn(payload) -> result``; the result must be JSON-able. A top-level function when run
        in a pool (pickled by reference) or on Dask (pickled with cloudpickle).
    store : where each result is committed as soon as it arrives (in this process only).
    config : campaign-wide parameters, checked against the store (`ResultStore.register`).
    jobs : worker processes; ``<= 1`` runs inline, None means ``os.cpu_count()``. With Dask and
        ``dask="local"``, the number of local workers.
    dask : None (no Dask), ``"local"`` (a `distributed.LocalCluster`), a scheduler address such
        as ``"tcp://scheduler:8786"``, or a `distributed.Client`.
    progress : print progress lines (done/total, elapsed, ETA) on stderr.
    label : name in the progress lines (default `name`).

    Raises
    ------
    CampaignError : the store holds `name` with another configuration, or Dask is requested but
        not installed.
    KeyboardInterrupt : re-raised after cancelling pending work and printing one line saying how
        many tasks are stored and how to resume; results stored so far stay stored.
    """
    if dask is not None:
        require_dask()
    store.register(name, config or {})
    keys = [t.key for t in tasks]
    stored = store.load(name, set(keys))
    todo: dict[str, Task] = {}
    for k, t in zip(keys, tasks, strict=True):
        if k not in stored and k not in todo:
            todo[k] = t
    bar = _Progress(label or name, len(todo) + len(stored), len(stored), progress)

    def record(key: str, result: Any, seconds: float) -> None:
        # normalised through JSON, so new and stored results are the same Python values
        result = json.loads(json.dumps(to_jsonable(result)))
        store.add(name, key, result, fields=todo[key].fields, seconds=seconds)
        stored[key] = result
        bar.tick()

    workers = min(os.cpu_count() or 1 if jobs is None else jobs, len(todo))
    backend = (f"Dask ({dask if isinstance(dask, str) else 'client'})" if dask is not None
               else f"{workers} processes" if workers > 1 else "inline")
    if progress and todo:
        bar.say(f"{len(todo)} tasks to run ({backend}), {len(stored)} already stored")
    try:
        if todo and dask is not None:
            _run_dask(todo, fn, record, dask, jobs)
        elif workers > 1:
            _run_pool(todo, fn, record, workers)
        else:
            for key, task in todo.items():
                record(key, *_call(fn, task.payload))
    except BaseException as exc:
        done = sum(k in stored for k in set(keys))
        what = "interrupted" if isinstance(exc, KeyboardInterrupt) else f"failed ({exc!r})"
        print(f"[{label or name}] {what}: {done}/{len(set(keys))} tasks stored in {store.path}; "
              "run the same command again to resume", file=sys.stderr, flush=True)
        raise
    return [stored[k] for k in keys]


def _run_pool(todo: dict[str, Task], fn: Callable[[Any], Any],
              record: Callable[[str, Any, float], None], jobs: int) -> None:
    """Local `ProcessPoolExecutor`; on any exception (Ctrl-C included) stop the workers."""
    pool = ProcessPoolExecutor(max_workers=jobs, initializer=_ignore_sigint)
    try:
        futures = {pool.submit(_call, fn, t.payload): k for k, t in todo.items()}
        for fut in as_completed(futures):
            record(futures[fut], *fut.result())
    except BaseException:
        # cancel what has not started and stop the workers running tasks in flight (their
        # results are lost; they were not stored). `_processes` is the executor's own table of
        # worker processes: Python < 3.14 has no public way to terminate them.
        for p in list((getattr(pool, "_processes", None) or {}).values()):
            p.terminate()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


def require_dask() -> Any:
    """The `distributed` module, imported only now; `CampaignError` naming the fix if missing."""
    try:
        import distributed
    except ImportError:
        raise CampaignError("--dask: Dask distributed is not installed; install the optional "
                            "extra: pip install 'resilsched[dask]'") from None
    return distributed


def _run_dask(todo: dict[str, Task], fn: Callable[[Any], Any],
              record: Callable[[str, Any, float], None], dask: Any, jobs: int | None) -> None:
    """Dask distributed: a `Client`, a scheduler address, or ``"local"`` (a `LocalCluster`)."""
    distributed = require_dask()
    cluster = None
    if isinstance(dask, distributed.Client):
        client, own = dask, False
    else:
        if dask == "local":
            cluster = distributed.LocalCluster(n_workers=max(1, jobs or os.cpu_count() or 1),
                                               threads_per_worker=1, processes=True,
                                               dashboard_address=None)
            client = distributed.Client(cluster)
        else:
            client = distributed.Client(str(dask))
        own = True
    futures = []
    try:
        pending = {}
        for k, t in todo.items():
            fut = client.submit(_call, fn, t.payload, pure=False)
            pending[fut.key] = k
            futures.append(fut)
        for fut in distributed.as_completed(futures):
            record(pending[fut.key], *fut.result())
    except BaseException:
        client.cancel(futures)
        raise
    finally:
        if own:
            client.close()
            if cluster is not None:
                cluster.close()


def run_script(prog: str, dask: str | None, body: Callable[[], int]) -> int:
    """Exit status of a campaign program: check ``--dask``, run `body`; a `CampaignError` is one
    line ``prog: error: ...`` on stderr (status 2), Ctrl-C gives `EXIT_INTERRUPTED` (130)."""
    try:
        if dask:
            require_dask()
        return body()
    except CampaignError as e:
        print(f"{prog}: error: {e}", file=sys.stderr, flush=True)
        return 2
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED


def add_cli_options(parser: Any, store_default: str) -> None:
    """The options every reproduction script shares: ``--store``, ``--fresh``, ``--dask``."""
    parser.add_argument("--store", type=Path, default=None,
                        help=f"campaign result store (SQLite; default {store_default}); rerun "
                             "the same command to resume an interrupted run")
    parser.add_argument("--fresh", action="store_true",
                        help="start over: delete this script's stored results first")
    parser.add_argument("--dask", default=None, metavar="ADDRESS|local",
                        help="run tasks on Dask distributed (a scheduler address or 'local'); "
                             "needs pip install 'resilsched[dask]'")


def _square(x: int) -> int:
    """Task function of the module doctest."""
    return x * x
