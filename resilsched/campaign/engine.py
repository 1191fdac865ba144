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
included (`resilsched.campaign.workers.init_worker`). Several runs of one campaign on one store
share the work: each claims its chunks before sending them (`resilsched.campaign.claims`).

Blame: an exception raised by a task's own code is marked with the task's fields
(`failed_task`) after the rows finished before it are stored; anything else (a store that cannot
be written: `StoreError`; Ctrl-C) is not a task's failure, and callers say so.

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

import contextlib
import dataclasses
import gc
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

from resilsched.campaign.claims import HEARTBEAT_SECONDS, WAIT_SECONDS, Claims
from resilsched.campaign.store import (
    CampaignError,
    ResultStore,
    StoreError,
    canonical_json,
    key_of_text,
    task_key,
)
from resilsched.campaign.workers import ChunkSizer, encode, init_worker, run_chunk
from resilsched.progress import progress_bar
from resilsched.versions import CAMPAIGN_RECORD, versions

__all__ = ["DEFAULT_CHUNK_SECONDS", "EXIT_INTERRUPTED", "Outcome", "Task", "add_cli_options",
           "TaskFailure", "execute", "failed_task", "require_dask", "run_campaign", "run_script"]

#: exit status of a script interrupted by Ctrl-C (128 + SIGINT), as a shell reports it
EXIT_INTERRUPTED = 130
#: seconds of work per message sent to a worker (pool and Dask)
DEFAULT_CHUNK_SECONDS = 1.0
#: how often the Dask loop looks at the cluster's size (workers join and leave)
DASK_POLL_SECONDS = 2.0
#: seconds between two lines saying that a Dask cluster has no worker
NO_WORKER_SECONDS = 30.0


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
#: chunks of claimed tasks: (keys, payloads)
_Chunks = Iterator[tuple[list[str], list[Any]]]


@dataclass(frozen=True)
class TaskFailure:
    """The task whose own code raised an exception (`failed_task`), and how many of the
    campaign's tasks were stored when it did."""

    fields: Mapping[str, Any]
    stored: int = 0
    total: int = 0

    def describe(self) -> str:
        """``task instance=..., algorithm=..., ...`` (the fields that are set)."""
        parts = [f"{k}={_short(v)}" for k, v in self.fields.items()
                 if v is not None and k not in ("instance_sha", "family")]
        return "task " + ", ".join(parts)


def _short(value: Any, width: int = 60) -> str:
    text = value if isinstance(value, str) else canonical_json(value)
    return text if len(text) <= width else text[: width - 3] + "..."


def failed_task(exc: BaseException) -> TaskFailure | None:
    """The task whose own code raised `exc`, or None when `exc` did not come from inside a
    task (a store that cannot be written, Ctrl-C, a bug of the caller)."""
    return getattr(exc, "resilsched_task", None)


def _blame(exc: BaseException, task: Task, note: str | None = None) -> BaseException:
    """Mark `exc` as raised inside `task` (`failed_task`); returns it, to be raised."""
    exc.resilsched_task = TaskFailure(dict(task.fields))
    if note:
        exc.add_note(note)
    return exc


@dataclass
class Outcome:
    """What a run did: the `results` of all tasks in order (empty unless collected), how many
    tasks were stored when it started (`already`; not those its parameter check stored, see
    `execute`), how many it `computed` itself and how many other runs on the store stored
    meanwhile (`by_others`)."""

    results: list[Any]
    already: int = 0
    computed: int = 0
    by_others: int = 0


def run_campaign(name: str, tasks: Sequence[Task], fn: Callable[[Any], Any],
                 store: ResultStore, *, config: Mapping[str, Any] | None = None,
                 jobs: int | None = None, dask: Any = None, progress: bool = True,
                 label: str | None = None, chunk_seconds: float = DEFAULT_CHUNK_SECONDS,
                 collect: bool = True, note: str = "") -> list[Any]:
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
    note : said of the run after its executor, in its ``runs`` row and its first progress
        line (``"shard 2/4"``: ``"2 processes, shard 2/4"``).

    Other runs of the same campaign on the same store share the work
    (`resilsched.campaign.claims`): a task one of them is running is left to it, and this run
    waits for its row before returning.

    Raises
    ------
    CampaignError : the store holds `name` with another configuration, or Dask is requested but
        not installed.
    StoreError : the store cannot be written (a full disk, a read-only file); the message says
        how many tasks are stored.
    Exception : whatever a task raised (`failed_task` gives its fields), after storing the rows
        finished before it.
    KeyboardInterrupt : re-raised after cancelling pending work and printing one line saying how
        many tasks are stored and how to resume; results stored so far stay stored.
    """
    return execute(name, tasks, fn, store, config=config, jobs=jobs, dask=dask,
                   progress=progress, label=label, chunk_seconds=chunk_seconds,
                   collect=collect, note=note).results


def execute(name: str, tasks: Sequence[Task], fn: Callable[[Any], Any], store: ResultStore, *,
            config: Mapping[str, Any] | None = None, jobs: int | None = None, dask: Any = None,
            progress: bool = True, label: str | None = None,
            chunk_seconds: float = DEFAULT_CHUNK_SECONDS, collect: bool = True,
            note: str = "", checked: int = 0) -> Outcome:
    """`run_campaign`, returning the `Outcome` (results and counts) instead of the results;
    `checked` of the stored tasks this run stored itself just before (the parameter check of
    ``campaign run``): said apart from those already stored, and not in ``Outcome.already``."""
    if dask is not None:
        require_dask()
    label = label or name
    store.register(name, config or {})
    texts, keys = _keys(tasks, label, progress)
    with bulk():
        wanted = set(keys)
        stored_keys = store.keys(name) & wanted
        todo: _Todo = {}
        for k, text, t in zip(keys, texts, tasks, strict=True):
            if k not in stored_keys and k not in todo:
                todo[k] = (text, t)
    done = set(stored_keys)
    outcome = Outcome([], already=len(stored_keys) - checked)
    bar = progress_bar(label, len(todo) + len(stored_keys), len(stored_keys), progress,
                       unit="tasks")

    def record(chunk_keys: Sequence[str], rows: Sequence[tuple[str, float]]) -> None:
        if not rows:
            return
        store.add_texts(name, [(k, todo[k][0], text, seconds)
                               for k, (text, seconds) in zip(chunk_keys, rows, strict=True)],
                        claims.finishing(chunk_keys))
        done.update(chunk_keys)
        outcome.computed += len(rows)
        bar.tick(len(rows))

    def elsewhere(found: Sequence[str]) -> None:
        """Tasks another run stored since this one looked."""
        new = [k for k in found if k not in done]
        if not new:
            return
        done.update(new)
        outcome.by_others += len(new)
        bar.tick(len(new))

    workers = min(os.cpu_count() or 1 if jobs is None else jobs, len(todo))
    backend = (f"Dask ({dask if isinstance(dask, str) else 'client'})" if dask is not None
               else f"{workers} processes" if workers > 1 else "inline") + (
                   f", {note}" if note else "")
    claims = Claims(store, name)
    try:
        if todo:
            store.add_run(name, backend, len(todo))
            others = claims.others()
            if progress:
                ahead = f"{checked} run by the parameter check, " if checked else ""
                bar.say(f"{len(todo)} tasks to run ({backend}), {ahead}{outcome.already} "
                        "already stored" + (f"; sharing them with {len(others)} other run(s) "
                                    f"({', '.join(others)})" if others else ""))
        pending = list(todo)
        while pending:
            held: list[str] = []  # tasks another live run holds: waited for below
            sizer = ChunkSizer(chunk_seconds, workers if dask is None else 1)
            chunks = _claimed_chunks(pending, todo, sizer, claims, held, elsewhere)
            if dask is not None:
                _run_dask(chunks, sizer, todo, fn, record, claims.beat, dask, jobs,
                          lambda found: _record_worker_versions(store, name, found, len(todo)),
                          bar.say)
            elif workers > 1:
                _run_pool(chunks, sizer, todo, fn, record, claims.beat, workers)
            else:
                _run_inline(chunks, sizer, todo, fn, record)
            pending = _wait_for_others(held, claims, elsewhere, bar if progress else None)
    except BaseException as exc:
        failure = failed_task(exc)
        if failure is not None:
            exc.resilsched_task = dataclasses.replace(failure, stored=len(done),
                                                      total=len(wanted))
        if isinstance(exc, StoreError) and failure is None:
            raise StoreError(exc.field, f"{exc.rule}; {len(done)}/{len(wanted)} tasks are "
                                        "stored and kept") from None
        if isinstance(exc, KeyboardInterrupt) or (progress and failed_task(exc) is not None):
            what = "interrupted" if isinstance(exc, KeyboardInterrupt) else f"failed ({exc!r})"
            print(f"[{label}] {what}: {len(done)}/{len(wanted)} tasks stored in "
                  f"{store.path}; run the same command again to resume", file=sys.stderr,
                  flush=True)
            exc.resilsched_reported = True  # `run_script` prints no second line
        raise
    finally:
        with contextlib.suppress(StoreError):  # a run that cannot release dies as if killed
            claims.release()
    bar.close()
    if collect:  # the stored results, in order, normalised through JSON
        found = store.load(name, set(keys))
        outcome.results = [found[k] for k in keys]
    return outcome


@contextlib.contextmanager
def bulk() -> Iterator[None]:
    """Garbage collection paused while many small objects are made: it would scan them again
    and again (listing 10^6 tasks takes about three times longer with it)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


#: tasks between two progress ticks while keys are computed
_KEY_TICK = 10_000


def _keys(tasks: Sequence[Task], label: str, progress: bool) -> tuple[list[str], list[str]]:
    """(canonical JSON texts of the fields, keys) of `tasks`; a progress line appears when
    this takes more than two seconds (a million tasks)."""
    bar = progress_bar(f"{label}: task keys", len(tasks), 0, progress, unit="tasks", after=2.0)
    texts, keys = [], []
    with bulk():
        for i, t in enumerate(tasks, 1):
            text = canonical_json(t.fields)
            texts.append(text)
            keys.append(key_of_text(text))
            if i % _KEY_TICK == 0:
                bar.tick(_KEY_TICK)
    bar.close()
    return texts, keys


def _claimed_chunks(pending: Sequence[str], todo: _Todo, sizer: ChunkSizer, claims: Claims,
                    held: list[str], elsewhere: Callable[[Sequence[str]], None]) -> _Chunks:
    """The `pending` tasks in chunks sized by `sizer` when each is taken, each claimed for this
    run first: tasks another run stored are counted (`elsewhere`), tasks another live run
    holds are set aside in `held`."""
    i = 0
    while i < len(pending):
        part = pending[i: i + sizer.size(len(pending) - i)]
        i += len(part)
        claimed, stored, busy = claims.take(part)
        elsewhere(stored)
        held.extend(busy)
        if claimed:
            yield claimed, [todo[k][1].payload for k in claimed]


def _wait_for_others(held: list[str], claims: Claims, elsewhere: Callable[[Sequence[str]], None],
                     bar: Any) -> list[str]:
    """Wait until every task of `held` is stored by the run holding it; returns the tasks to
    try again (those whose run died meanwhile, with the ones still held), or none."""
    if held and bar is not None:
        bar.say(f"waiting for {len(held)} tasks that another run is computing "
                f"({', '.join(claims.others()) or 'ending'})")
    while held:
        time.sleep(WAIT_SECONDS)
        free, stored, held = claims.peek(held)
        elsewhere(stored)
        if free:
            return free + held
    return []


#: inline runs commit the rows of fast tasks together, at most this many seconds apart
INLINE_COMMIT_SECONDS = 0.2


def _run_inline(chunks: _Chunks, sizer: ChunkSizer, todo: _Todo, fn: Callable[[Any], Any],
                record: _Record) -> None:
    """Run the tasks in this process; rows are committed together at most
    `INLINE_COMMIT_SECONDS` apart (a task slower than that is committed alone), and on any
    exception the finished ones are committed before it propagates."""
    keys: list[str] = []
    rows: list[tuple[str, float]] = []
    last = time.perf_counter()
    try:
        for chunk_keys, payloads in chunks:
            for key, payload in zip(chunk_keys, payloads, strict=True):
                t0 = time.perf_counter()
                try:
                    text = encode(fn(payload))
                except Exception as exc:
                    raise _blame(exc, todo[key][1]) from None
                now = time.perf_counter()
                keys.append(key)
                rows.append((text, now - t0))
                sizer.observe(1, now - t0)
                if now - last >= INLINE_COMMIT_SECONDS:
                    batch_keys, batch_rows, keys, rows, last = keys, rows, [], [], now
                    record(batch_keys, batch_rows)
    finally:
        record(keys, rows)


def _dispatch(chunks: _Chunks, sizer: ChunkSizer, todo: _Todo,
              submit: Callable[[list[Any]], Any], wait_first: Callable[[set[Any]], set[Any]],
              record: _Record, beat: Callable[[], None],
              workers: int | Callable[[], int]) -> None:
    """Keep about two chunks per worker in flight, store each chunk's rows as it arrives.

    `workers` is a count, or a function giving the current count (a Dask cluster grows and
    shrinks); `wait_first` returns the chunks done, possibly none (then the loop tops up again
    and `beat` refreshes the run's heartbeat). The first chunks hold one task each and time the
    tasks for `sizer`. A chunk whose task raised stores the rows of the tasks before it, then
    the exception propagates, marked with its task (`failed_task`).
    """
    count = workers if callable(workers) else (lambda: workers)
    sizer.workers = max(1, count())
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
            try:
                rows, error, trace = fut.result()
            except Exception as exc:  # the worker died under the chunk (a crash, a kill)
                after = f" or one of the {len(keys) - 1} after it in its chunk" \
                    if len(keys) > 1 else ""
                raise _blame(exc, todo[keys[0]][1], f"a worker died running this task{after}"
                             ) from None
            sizer.observe(len(rows), sum(seconds for _, seconds in rows))
            record(keys[: len(rows)], rows)
            if error is not None:
                raise _blame(error, todo[keys[len(rows)]][1], f"in a campaign worker:\n{trace}")
        beat()
        sizer.workers = max(1, count())
        top_up(2 * sizer.workers)


def _run_pool(chunks: _Chunks, sizer: ChunkSizer, todo: _Todo, fn: Callable[[Any], Any],
              record: _Record, beat: Callable[[], None], jobs: int) -> None:
    """Local `ProcessPoolExecutor`; on any exception (Ctrl-C included) stop the workers."""
    context = multiprocessing.get_context()
    parent = None if context.get_start_method() == "forkserver" else os.getpid()
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=init_worker,
                               initargs=(parent,))
    try:
        _dispatch(chunks, sizer, todo, lambda payloads: pool.submit(run_chunk, fn, payloads),
                  lambda fs: wait_futures(fs, timeout=HEARTBEAT_SECONDS,
                                          return_when=FIRST_COMPLETED).done,
                  record, beat, jobs)
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
    ours = canonical_json(versions(CAMPAIGN_RECORD))
    for v in found:
        if canonical_json(v) != ours:
            store.add_run(name, "Dask workers", tasks, v)


def _run_dask(chunks: _Chunks, sizer: ChunkSizer, todo: _Todo, fn: Callable[[Any], Any],
              record: _Record, beat: Callable[[], None], dask: Any, jobs: int | None,
              on_versions: Callable[[list[dict[str, Any]]], None],
              say: Callable[[str], None]) -> None:
    """Dask distributed: a `Client`, a scheduler address, or ``"local"`` (a `LocalCluster`);
    `on_versions` gets the distinct package versions of the workers. While the cluster has no
    worker (none started yet, or all lost) the run waits, and `say` is told so every
    `NO_WORKER_SECONDS`."""
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
    submitted: set[Any] = set()  # in flight: a lost worker's stored chunks are not rerun (K33)

    def submit(payloads: list[Any]) -> Any:
        future = client.submit(run_chunk, fn, payloads, pure=False)
        submitted.add(future)
        return future

    def wait_first(fs: set[Any]) -> set[Any]:
        try:
            done = set(distributed.wait(list(fs), timeout=DASK_POLL_SECONDS,
                                        return_when="FIRST_COMPLETED").done)
        except TimeoutError:  # nothing done yet: look again at the cluster's size
            return set()
        submitted.difference_update(done)
        return done

    last = [-math.inf, 1]
    idle: list[float] = []  # since when the cluster has no worker, and when it was said

    def workers() -> int:
        """Worker threads of the cluster, asked at most every `DASK_POLL_SECONDS`."""
        now = time.monotonic()
        if now - last[0] >= DASK_POLL_SECONDS:
            threads = sum(client.nthreads().values())
            last[:] = [now, max(1, threads)]
            if threads:
                idle.clear()
            elif not idle:
                idle[:] = [now, now]
            elif now - idle[1] >= NO_WORKER_SECONDS:
                idle[1] = now
                say(f"the Dask cluster has had no worker for {now - idle[0]:.0f} s: waiting "
                    "for one (the unfinished tasks are kept; do the workers start, and can they "
                    "import resilsched and the task function?)")
        return last[1]

    try:
        on_versions(dask_versions(client))
        _check_loadable(client, fn)
        _dispatch(chunks, sizer, todo, submit, wait_first, record, beat, workers)
    except BaseException:
        client.cancel(list(submitted))
        raise
    finally:
        if own:
            client.close()
            if cluster is not None:
                cluster.close()


def _check_loadable(client: Any, fn: Callable[[Any], Any]) -> None:
    """`CampaignError` if a worker of `client` cannot unpickle `fn` (such a worker would die on
    every chunk, and the run wait for ever; decision K33)."""
    try:
        client.run(run_chunk, fn, [])
    except OSError:  # a worker lost meanwhile
        pass
    except Exception as exc:
        name = getattr(fn, "reference", None) or \
            f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', fn)}"
        raise CampaignError(f"--dask: the workers cannot load the task function {name} "
                            f"({exc}); they need the module on their import path") from None


def dask_versions(client: Any) -> list[dict[str, Any]]:
    """The distinct `versions` (of `CAMPAIGN_RECORD`) of the workers of a Dask client."""
    found = client.run(versions, CAMPAIGN_RECORD).values()
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
