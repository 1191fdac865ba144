"""Campaigns: resumable experiment runs backed by a SQLite result store.

docs/architecture.md, "Campaigns and scale": a large experiment is a list of independent tasks;
every completed task is one row of a `ResultStore` (`resilsched.campaign.store`), so an
interrupted run loses at most the tasks in flight, and rerunning the same campaign computes only
the missing tasks. `run_campaign` runs the missing tasks inline, on a local process pool or on
Dask distributed, stores the results as soon as they arrive (the parent process is the only
writer), shows progress on stderr, and returns the results of all tasks in the order they were
given.

Pool and Dask receive the tasks in chunks of about `chunk_seconds` of work
(`resilsched.campaign.workers.ChunkSizer`: the first tasks go one by one and are timed), so
millisecond tasks are not dominated by the cost of a message; the store still gets one row per
task, each chunk's rows in one transaction. Pool workers exit when the parent dies, SIGKILL
included (`resilsched.campaign.workers.init_worker`).

Determinism: a task's result may depend only on its payload (every random draw seeded from the
payload), never on the order of completion, the executor or whether the run was resumed; new
results are normalised through JSON before they are returned, so a fresh run and a resumed one
return identical Python values.

>>> store = ResultStore(":memory:")
>>> tasks = [Task({"x": x}, x) for x in range(4)]
>>> run_campaign("squares", tasks, _square, store, jobs=1, progress=False)
[0, 1, 4, 9]
>>> store.count("squares")
4
"""

from __future__ import annotations

import json
import math
import multiprocessing
import os
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor
from concurrent.futures import wait as wait_futures
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from resilsched.campaign.store import (
    CampaignError,
    ResultStore,
    canonical_json,
    key_of_text,
    task_key,
    versions,
)
from resilsched.campaign.workers import ChunkSizer, encode, init_worker, run_chunk
from resilsched.progress import progress_bar

__all__ = ["DEFAULT_CHUNK_SECONDS", "EXIT_INTERRUPTED", "Task", "add_cli_options",
           "require_dask", "run_campaign", "run_script"]

#: exit status of a script interrupted by Ctrl-C (128 + SIGINT), as a shell reports it
EXIT_INTERRUPTED = 130
#: seconds of work per message sent to a worker (pool and Dask)
DEFAULT_CHUNK_SECONDS = 1.0
#: how often the Dask loop looks at the cluster's size (workers join and leave)
DASK_POLL_SECONDS = 2.0


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


# -- running ----------------------------------------------------------------------------------

#: a task's fields JSON text and the task, by key
_Todo = dict[str, tuple[str, Task]]
#: stores the rows of one chunk: (keys, rows) with rows = [(result JSON, seconds)]
_Record = Callable[[Sequence[str], Sequence[tuple[str, float]]], None]


def run_campaign(name: str, tasks: Sequence[Task], fn: Callable[[Any], Any],
                 store: ResultStore, *, config: Mapping[str, Any] | None = None,
                 jobs: int | None = None, dask: Any = None, progress: bool = True,
                 label: str | None = None, chunk_seconds: float = DEFAULT_CHUNK_SECONDS,
                 collect: bool = True) -> list[Any]:
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
    chunk_seconds : seconds of work per message to a worker (pool and Dask).
    collect : return the results (False: return an empty list, and load nothing).

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
    texts = [canonical_json(t.fields) for t in tasks]
    keys = [key_of_text(text) for text in texts]
    wanted = set(keys)
    stored_keys = store.keys(name) & wanted
    stored: dict[str, Any] = store.load(name, stored_keys) if collect else {}
    todo: _Todo = {}
    for k, text, t in zip(keys, texts, tasks, strict=True):
        if k not in stored_keys and k not in todo:
            todo[k] = (text, t)
    done = set(stored_keys)
    bar = progress_bar(label or name, len(todo) + len(stored_keys), len(stored_keys),
                       progress, unit="tasks")

    def record(chunk_keys: Sequence[str], rows: Sequence[tuple[str, float]]) -> None:
        store.add_texts(name, [(k, todo[k][0], text, seconds)
                               for k, (text, seconds) in zip(chunk_keys, rows, strict=True)])
        for k, (text, _) in zip(chunk_keys, rows, strict=True):
            done.add(k)
            if collect:  # normalised through JSON, as the stored ones
                stored[k] = json.loads(text)
            bar.tick()

    workers = min(os.cpu_count() or 1 if jobs is None else jobs, len(todo))
    backend = (f"Dask ({dask if isinstance(dask, str) else 'client'})" if dask is not None
               else f"{workers} processes" if workers > 1 else "inline")
    if todo:
        store.add_run(name, backend, len(todo))
        if progress:
            bar.say(f"{len(todo)} tasks to run ({backend}), {len(stored_keys)} already stored")
    try:
        if todo and dask is not None:
            _run_dask(todo, fn, record, dask, jobs, chunk_seconds,
                      lambda found: _record_worker_versions(store, name, found, len(todo)))
        elif workers > 1:
            _run_pool(todo, fn, record, workers, chunk_seconds)
        else:
            _run_inline(todo, fn, record)
    except BaseException as exc:
        what = "interrupted" if isinstance(exc, KeyboardInterrupt) else f"failed ({exc!r})"
        print(f"[{label or name}] {what}: {len(done)}/{len(wanted)} tasks stored in "
              f"{store.path}; run the same command again to resume", file=sys.stderr, flush=True)
        exc.resilsched_reported = True  # `run_script` prints no second line
        raise
    return [stored[k] for k in keys] if collect else []


#: inline runs commit the rows of fast tasks together, at most this many seconds apart
INLINE_COMMIT_SECONDS = 0.2


def _run_inline(todo: _Todo, fn: Callable[[Any], Any], record: _Record) -> None:
    """Run the tasks in this process; rows are committed together at most
    `INLINE_COMMIT_SECONDS` apart (a task slower than that is committed alone), and on any
    exception the finished ones are committed before it propagates."""
    keys: list[str] = []
    rows: list[tuple[str, float]] = []
    last = time.perf_counter()
    try:
        for key, (_, task) in todo.items():
            t0 = time.perf_counter()
            text = encode(fn(task.payload))
            now = time.perf_counter()
            keys.append(key)
            rows.append((text, now - t0))
            if now - last >= INLINE_COMMIT_SECONDS:
                record(keys, rows)
                keys, rows, last = [], [], now
    finally:
        record(keys, rows)


def _chunks(todo: _Todo, sizer: ChunkSizer) -> Iterator[tuple[list[str], list[Any]]]:
    """The tasks of `todo` in chunks sized by `sizer` at the time each chunk is taken."""
    items = list(todo.items())
    i = 0
    while i < len(items):
        part = items[i: i + sizer.size(len(items) - i)]
        i += len(part)
        yield [k for k, _ in part], [task.payload for _, (_, task) in part]


def _dispatch(todo: _Todo, submit: Callable[[list[Any]], Any],
              wait_first: Callable[[set[Any]], set[Any]], record: _Record,
              workers: int | Callable[[], int], chunk_seconds: float) -> None:
    """Keep about two chunks per worker in flight, store each chunk's rows as it arrives.

    `workers` is a count, or a function giving the current count (a Dask cluster grows and
    shrinks); `wait_first` returns the chunks done, possibly none (then the loop tops up again).
    The first chunks hold one task each and time the tasks for `ChunkSizer`. A chunk whose task
    raised stores the rows of the tasks before it, then the exception propagates.
    """
    count = workers if callable(workers) else (lambda: workers)
    sizer = ChunkSizer(chunk_seconds, count())
    chunks = _chunks(todo, sizer)
    in_flight: dict[Any, list[str]] = {}

    def top_up(limit: int) -> None:
        while len(in_flight) < limit:
            chunk = next(chunks, None)
            if chunk is None:
                return
            in_flight[submit(chunk[1])] = chunk[0]

    top_up(sizer.workers)
    while in_flight:
        for fut in wait_first(set(in_flight)):
            keys = in_flight.pop(fut)
            rows, error, trace = fut.result()
            sizer.observe(len(rows), sum(seconds for _, seconds in rows))
            record(keys[: len(rows)], rows)
            if error is not None:
                error.add_note(f"in a campaign worker:\n{trace}")
                raise error
        sizer.workers = max(1, count())
        top_up(2 * sizer.workers)


def _run_pool(todo: _Todo, fn: Callable[[Any], Any], record: _Record, jobs: int,
              chunk_seconds: float) -> None:
    """Local `ProcessPoolExecutor`; on any exception (Ctrl-C included) stop the workers."""
    context = multiprocessing.get_context()
    parent = None if context.get_start_method() == "forkserver" else os.getpid()
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=init_worker,
                               initargs=(parent,))
    try:
        _dispatch(todo, lambda payloads: pool.submit(run_chunk, fn, payloads),
                  lambda fs: wait_futures(fs, return_when=FIRST_COMPLETED).done, record, jobs,
                  chunk_seconds)
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


def _record_worker_versions(store: ResultStore, name: str, found: list[dict[str, Any]],
                            tasks: int) -> None:
    """Add a ``runs`` row for each version set of the Dask workers that differs from ours."""
    ours = canonical_json(versions())
    for v in found:
        if canonical_json(v) != ours:
            store.add_run(name, "Dask workers", tasks, v)


def _run_dask(todo: _Todo, fn: Callable[[Any], Any], record: _Record, dask: Any,
              jobs: int | None, chunk_seconds: float,
              on_versions: Callable[[list[dict[str, Any]]], None]) -> None:
    """Dask distributed: a `Client`, a scheduler address, or ``"local"`` (a `LocalCluster`);
    `on_versions` gets the distinct package versions of the workers."""
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
    submitted: list[Any] = []

    def submit(payloads: list[Any]) -> Any:
        submitted.append(client.submit(run_chunk, fn, payloads, pure=False))
        return submitted[-1]

    def wait_first(fs: set[Any]) -> set[Any]:
        try:
            return set(distributed.wait(list(fs), timeout=DASK_POLL_SECONDS,
                                        return_when="FIRST_COMPLETED").done)
        except TimeoutError:  # nothing done yet: look again at the cluster's size
            return set()

    last = [-math.inf, 1]

    def workers() -> int:
        """Worker threads of the cluster, asked at most every `DASK_POLL_SECONDS`."""
        if time.monotonic() - last[0] >= DASK_POLL_SECONDS:
            last[:] = [time.monotonic(), max(1, sum(client.nthreads().values()))]
        return last[1]

    try:
        on_versions(dask_versions(client))
        _dispatch(todo, submit, wait_first, record, workers, chunk_seconds)
    except BaseException:
        client.cancel(submitted)
        raise
    finally:
        if own:
            client.close()
            if cluster is not None:
                cluster.close()


def dask_versions(client: Any) -> list[dict[str, Any]]:
    """The distinct `versions` of the workers of a Dask client."""
    found = client.run(versions).values()
    return [json.loads(t) for t in sorted({canonical_json(v) for v in found})]

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
    except KeyboardInterrupt as exc:
        if not getattr(exc, "resilsched_reported", False):  # after the tasks: say so too
            print(f"{prog}: interrupted: every finished task is stored; run the same command "
                  "again to resume", file=sys.stderr, flush=True)
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
