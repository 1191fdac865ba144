"""A hard wall-clock limit for solver phases that do not check their own (decision C16).

HiGHS checks ``time_limit`` only at some points: its MIP presolve on a set-partitioning closure
of 85,000 packs ran for minutes with ``time_limit = 2`` (docs/performance.md), and Pyomo's
model building and networkx's blossom code are pure Python loops with no limit at all. Such a
phase runs in a forked child process (copy-on-write: the model the parent built is already
there); the parent waits at most its budget, kills the child when the budget is spent and then
answers with what it already knows (an incumbent and a bound). The child returns its result
through a pipe (pickled); an exception raised in the child is raised again in the parent.
`run_streaming` does the same for a generator: the child sends each item as it is made, so the
parent keeps what was sent before the kill (the phases of `resilsched.portfolio`).

Where ``os.fork`` does not exist (Windows) the phase runs in-process, without the guarantee.
"""

from __future__ import annotations

import importlib
import os
import pickle
import select
import signal
import struct
import time
import warnings
from collections.abc import Callable, Iterator
from typing import Any

#: a child may run GRACE + GRACE_SHARE * budget (at most MAX_GRACE) seconds past its budget
#: before it is killed: it usually stops on its own limit, set to the budget, and a loaded
#: machine delays that by a little; the kill is the safety net
GRACE = 0.2
GRACE_SHARE = 0.05
MAX_GRACE = 1.0


#: a slow import (Pyomo: ~1.5 s) is done in the parent only when this much time is left
PRELOAD_MIN_SECONDS = 5.0


class PhaseTimeout(Exception):
    """The phase did not finish within its budget; its child was killed."""


def run_limited(fn: Callable[[], Any], seconds: float) -> Any:
    """``fn()`` in a forked child, waiting at most `seconds` (+ a grace, see `GRACE`).

    Returns what ``fn()`` returned (it must be picklable), raises what it raised, or raises
    `PhaseTimeout` after killing the child. `seconds` = inf runs ``fn()`` in-process.
    """
    grace = min(MAX_GRACE, GRACE + GRACE_SHARE * seconds)
    if not hasattr(os, "fork") or seconds == float("inf"):
        return fn()
    if seconds <= 0:
        raise PhaseTimeout("no time left")
    read_end, write_end = os.pipe()
    with warnings.catch_warnings():  # Python >= 3.12 warns about fork with threads alive
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:  # the child: run, send, and leave without running the parent's cleanup code
        os.close(read_end)
        _child(fn, write_end, seconds + 2 * grace + 1.0)
    os.close(write_end)
    try:
        data = _read_until(read_end, time.monotonic() + seconds + grace)
    finally:
        os.close(read_end)
        _reap(pid)
    if data is None:
        raise PhaseTimeout(f"phase killed after {seconds:.2f} s")
    try:
        kind, value = pickle.loads(data)
    except Exception:  # noqa: BLE001 - the child died while writing
        raise PhaseTimeout("the phase's process died") from None
    if kind == "error":
        raise value
    return value


def run_streaming(fn: Callable[[], Iterator[Any]], seconds: float) -> tuple[list[Any], bool]:
    """The items of the generator ``fn()``, made in a forked child: (items, finished).

    The child sends each item (pickled) as soon as it is yielded; after `seconds` (no grace: a
    generator does not stop on a clock of its own) the child is killed and the items received
    so far are returned with ``finished`` False. An exception raised by the generator is raised
    again here (the items sent before it are lost with it). `seconds` = inf runs the generator
    in-process.
    """
    if not hasattr(os, "fork") or seconds == float("inf"):
        return list(fn()), True
    if seconds <= 0:
        return [], False
    read_end, write_end = os.pipe()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:
        os.close(read_end)
        _streaming_child(fn, write_end, seconds + 1.0)
    os.close(write_end)
    try:
        frames = _read_frames(read_end, time.monotonic() + seconds)
    finally:
        os.close(read_end)
        _reap(pid)
    items = []
    for kind, value in frames:
        if kind == "error":
            raise value
        if kind == "end":
            return items, True
        items.append(value)
    return items, False


def preload(modules: tuple[str, ...], seconds_left: float) -> None:
    """Import `modules` in this process when at least `PRELOAD_MIN_SECONDS` are left, so that
    later forked children find them loaded; with less time left the child imports them, under
    its hard limit (a slow import then cannot overrun the deadline)."""
    if seconds_left >= PRELOAD_MIN_SECONDS:
        for name in modules:
            importlib.import_module(name)


def _child(fn: Callable[[], Any], fd: int, lifetime: float) -> None:
    code = 0
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C ends the child, not a traceback
        # the child ends itself after `lifetime` s, even if the parent was killed meanwhile
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        signal.setitimer(signal.ITIMER_REAL, lifetime)
        try:
            out = ("ok", fn())
        except Exception as exc:  # noqa: BLE001 - handed to the parent
            out = ("error", exc)
        try:
            data = pickle.dumps(out)
        except Exception as exc:  # noqa: BLE001 - an unpicklable result or exception
            data = pickle.dumps(("error", RuntimeError(f"child result: {exc!r}")))
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    except BaseException:  # noqa: BLE001 - never return into the parent's stack
        code = 1
    finally:
        os._exit(code)  # no flush: the buffers hold the parent's pending output


def _streaming_child(fn: Callable[[], Iterator[Any]], fd: int, lifetime: float) -> None:
    code = 0
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        signal.setitimer(signal.ITIMER_REAL, lifetime)

        def send(kind: str, value: Any) -> None:
            try:
                data = pickle.dumps((kind, value))
            except Exception as exc:  # noqa: BLE001 - an unpicklable item or exception
                data = pickle.dumps(("error", RuntimeError(f"child result: {exc!r}")))
            view = memoryview(struct.pack("<Q", len(data)) + data)
            while view:
                view = view[os.write(fd, view):]

        try:
            for item in fn():
                send("item", item)
            send("end", None)
        except Exception as exc:  # noqa: BLE001 - handed to the parent
            send("error", exc)
    except BaseException:  # noqa: BLE001 - never return into the parent's stack
        code = 1
    finally:
        os._exit(code)


def _read_frames(fd: int, end: float) -> list[tuple[str, Any]]:
    """The (kind, value) frames the child writes before EOF or `end`."""
    buffer = b""
    frames = []
    while True:
        left = end - time.monotonic()
        ready = select.select([fd], [], [], left)[0] if left > 0 else []
        chunk = os.read(fd, 1 << 20) if ready else None
        if chunk is not None:
            buffer += chunk
        while len(buffer) >= 8:
            size = struct.unpack("<Q", buffer[:8])[0]
            if len(buffer) < 8 + size:
                break
            try:
                frames.append(pickle.loads(buffer[8:8 + size]))
            except Exception:  # noqa: BLE001 - a damaged frame: the child died writing it
                return frames
            buffer = buffer[8 + size:]
        if not chunk:  # EOF (b"") or the deadline (None)
            return frames


def _read_until(fd: int, end: float) -> bytes | None:
    """Everything the child writes before EOF, or None if `end` passes first."""
    chunks = []
    while True:
        left = end - time.monotonic()
        if left <= 0:
            return None
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            return None
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return b"".join(chunks) or None
        chunks.append(chunk)


def _reap(pid: int) -> None:
    """Kill the child if it still runs and collect it (no zombie)."""
    done, _ = os.waitpid(pid, os.WNOHANG)
    if done == 0:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)
