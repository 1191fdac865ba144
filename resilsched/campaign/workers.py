"""What runs in a campaign's worker processes, and how much work each message carries.

docs/architecture.md, "Campaigns and scale":

- `init_worker` is the initializer of the local pool's processes: they leave Ctrl-C to the
  parent, and they exit when the parent dies, even by SIGKILL (which gives the parent no chance
  to stop them). On Linux the kernel sends them SIGKILL when their parent exits
  (``prctl(PR_SET_PDEATHSIG)`` through ctypes); everywhere, a watchdog thread polls
  ``os.getppid()`` twice a second and ends the process when the parent changed.
- `run_chunk` runs several tasks in one message and returns, per task, its JSON text and its
  wall time; the JSON encoding happens in the worker, so the parent only writes rows.
- `ChunkSizer` sizes the chunks to about `target` seconds of work, from the mean task time
  measured so far: millisecond tasks travel in chunks of hundreds, minute-long tasks one by one,
  and the last chunks shrink so that every worker stays busy to the end.

>>> sizer = ChunkSizer(target=1.0, workers=2)
>>> sizer.size(remaining=1000)  # nothing measured yet: probe with one task
1
>>> sizer.observe(tasks=10, seconds=0.02)  # 2 ms per task
>>> sizer.size(remaining=100_000), sizer.size(remaining=1000)
(500, 250)
"""

from __future__ import annotations

import ctypes
import json
import math
import os
import pickle
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from typing import Any

from resilsched.solution import to_jsonable

#: prctl option number of PR_SET_PDEATHSIG (linux/prctl.h)
_PR_SET_PDEATHSIG = 1
#: seconds between two checks of the watchdog thread
WATCHDOG_PERIOD = 0.5
#: largest chunk, whatever the task time (bounds the memory of one message)
MAX_CHUNK = 5000

#: one task's outcome in a chunk: (result JSON text, seconds in the worker)
Row = tuple[str, float]


def encode(result: Any) -> str:
    """The JSON text stored for a task's result (tuples become lists, Fractions numbers)."""
    return json.dumps(to_jsonable(result))


def set_parent_death_signal(sig: int = signal.SIGKILL) -> bool:
    """Ask Linux to send `sig` to this process when its parent exits; False elsewhere."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch_parent(parent: int) -> None:
    """Exit this process as soon as its parent is no longer `parent` (it died: we were
    re-parented)."""
    while True:
        time.sleep(WATCHDOG_PERIOD)
        if os.getppid() != parent:
            os._exit(70)


def init_worker(parent: int | None = None) -> None:
    """Initializer of a pool worker: ignore Ctrl-C (the parent stops the pool) and die with the
    parent (`set_parent_death_signal`, plus the portable watchdog thread).

    `parent` is the pid of the process that started the pool, when it is this worker's parent
    (start methods fork and spawn; None with forkserver, whose server exits with the pool's
    process and so ends its workers the same way).
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    set_parent_death_signal()
    if parent is None:
        parent = os.getppid()
    if os.getppid() != parent:  # the parent died before the death signal was armed
        os._exit(70)
    threading.Thread(target=_watch_parent, args=(parent,), name="parent-watchdog",
                     daemon=True).start()


def run_chunk(fn: Callable[[Any], Any], payloads: Sequence[Any]
              ) -> tuple[list[Row], BaseException | None, str]:
    """Run ``fn`` on each payload in order; returns the rows of the tasks that finished, the
    exception that stopped the chunk (None if none did) and its formatted traceback.

    A failing task does not lose the results of the tasks before it in the same chunk: the parent
    stores them, then raises the exception.
    """
    rows: list[Row] = []
    for payload in payloads:
        t0 = time.perf_counter()
        try:
            text = encode(fn(payload))
        except Exception as exc:  # handed to the parent, which stores `rows` and re-raises
            return rows, _sendable(exc), traceback.format_exc()
        rows.append((text, time.perf_counter() - t0))
    return rows, None, ""


class TaskError(RuntimeError):
    """Stands for a task's exception that cannot travel back to the parent (not picklable)."""


def _sendable(exc: Exception) -> Exception:
    """`exc` if it survives pickling, else a `TaskError` with its type and message (an
    unpicklable result would break the whole pool)."""
    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:
        return TaskError(f"{type(exc).__name__}: {exc}")


class ChunkSizer:
    """Chunk sizes giving about `target` seconds of work per message (see the module doc).

    Until a task time is measured the size is 1 (probes). Then it is ``target / mean task
    time``, at most `MAX_CHUNK`, and at most ``remaining / (2 workers)`` so that the tail of the
    campaign is spread over every worker.
    """

    def __init__(self, target: float, workers: int):
        self.target = target
        self.workers = max(1, workers)
        self.tasks = 0
        self.seconds = 0.0

    def observe(self, tasks: int, seconds: float) -> None:
        """Record that `tasks` tasks took `seconds` in total (worker time)."""
        self.tasks += tasks
        self.seconds += seconds

    @property
    def mean(self) -> float | None:
        """Mean seconds per task measured so far (None before the first result)."""
        return self.seconds / self.tasks if self.tasks else None

    def size(self, remaining: int) -> int:
        mean = self.mean
        if mean is None:
            return 1
        wanted = self.target / max(mean, 1e-7)
        tail = math.ceil(remaining / (2 * self.workers))
        return max(1, min(int(wanted), MAX_CHUNK, tail))
