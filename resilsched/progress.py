"""Progress on standard error for commands that run longer than a few seconds.

Standard output stays clean for ``--json``; ``-q`` turns everything here off. What is printed
fits where it goes (decision K29):

- on a terminal, one line redrawn in place (``\r`` and erase-to-end-of-line), finished once at
  the end;
- anywhere else (a CI log, a pipe, a file; also a terminal with ``TERM=dumb``), at most one line
  every `EVERY` (10) seconds, plus one final line: a run of 0.3 s prints one line, not twenty.

`Heartbeat` wraps one long call (``solve``, ``simulate``): after `after` seconds it shows the
time spent, the time limit and the last phase the call reported through `Heartbeat.phase`.
`ProgressBar` follows a known number of steps (the cases of ``gap``, the instances of ``library
verify``, the tasks of a campaign): the bar with the count, the rate and the ETA, or the same as
plain lines. `progress_bar` builds one; its arguments are those of the campaign runner's
progress lines (``label, total, done, enabled``). Numbers in the lines are rounded by
`resilsched.numeric.readable`.
"""

from __future__ import annotations

import os
import shutil
import sys
import threading
import time
from typing import TextIO

from resilsched.deadline import Deadline
from resilsched.numeric import readable

#: seconds between two plain lines at most once per this many seconds (off a terminal)
EVERY = 10.0
#: seconds between two redraws of a line on a terminal
REDRAW = 0.1
#: erase the terminal line the cursor is on and go to its start
ERASE = "\r\x1b[K"


def is_terminal(stream: TextIO) -> bool:
    """True when `stream` is a terminal that can redraw a line (not ``TERM=dumb``)."""
    isatty = getattr(stream, "isatty", None)
    return bool(isatty()) if callable(isatty) and os.environ.get("TERM") != "dumb" else False


def _fit(text: str) -> str:
    """`text` cut to the terminal's width (one column spare, so that it never wraps)."""
    return text[: shutil.get_terminal_size((100, 20)).columns - 1]


class Heartbeat:
    """Progress around one call: ``with Heartbeat("solve", deadline) as beat:
    solve(..., progress=beat.phase)``.

    Nothing is shown before `after` seconds. Then, on a terminal, one line redrawn every second;
    elsewhere a line every `every` seconds; and when the call returns, a last line (``solve m:
    done in 14 s``) if anything was shown (none when it raised or when the caller set
    `succeeded` to False, e.g. on a result it reports as an error: on a terminal the line is
    erased, so that the error message starts it). `tty` forces either (default: `is_terminal`).
    """

    def __init__(self, label: str, deadline: Deadline, *, enabled: bool = True,
                 after: float = 3.0, every: float = EVERY, stream: TextIO | None = None,
                 tty: bool | None = None):
        self.label = label
        self.deadline = deadline
        self.enabled = enabled
        self.after = after
        self.every = every
        self.stream = stream if stream is not None else sys.stderr
        self.tty = is_terminal(self.stream) if tty is None else tty
        self.last_phase = ""
        self.shown = False  # a line was printed (or drawn)
        self.succeeded = True  # the caller sets False for a result it reports as an error
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def phase(self, message: str) -> None:
        """Record what the call is doing now; printed with the next line."""
        self.last_phase = message

    def _line(self) -> str:
        limit = self.deadline.seconds
        spent = f"{self.deadline.elapsed():.0f} s" + (f" of {readable(limit)} s" if limit
                                                       else "")
        return f"{self.label}: {spent}" + (f"; {self.last_phase}" if self.last_phase else "")

    def _show(self, text: str, end: str = "") -> None:
        if self.tty:
            self.stream.write(ERASE + _fit(text) + end)
        else:
            self.stream.write(text + "\n")
        self.stream.flush()
        self.shown = True

    def _run(self) -> None:
        wait = self.after
        while not self._stop.wait(wait):
            self._show(self._line())
            wait = 1.0 if self.tty else self.every

    def __enter__(self) -> Heartbeat:
        if self.enabled:
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            if not self.shown:
                return
            if exc_type is None and self.succeeded:
                self._show(f"{self.label}: done in {self.deadline.elapsed():.0f} s", "\n")
            elif self.tty:  # the call failed: no "done" line, and the error starts a clean line
                self.stream.write(ERASE)
                self.stream.flush()


def hms(seconds: float) -> str:
    """``m:ss`` (``h:mm:ss`` from an hour on).

    >>> hms(75), hms(3725)
    ('1:15', '1:02:05')
    """
    s = int(round(seconds))
    if s >= 3600:
        return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"
    return f"{s // 60}:{s % 60:02d}"


class ProgressBar:
    """Progress of `total` steps, `done` of which are finished already (resumed work).

    Parameters
    ----------
    label : what is counted, printed first (``[gap]``, ``[verify rigid-small]``).
    total : number of steps (may be set later with `set_total`).
    done : steps finished before this run (not counted in the rate).
    enabled : False prints nothing at all (``-q``).
    stream : where to print (default standard error); a terminal gets the bar, anything else
        plain lines.
    every : seconds between two plain lines at least (default `EVERY`, 10 s).
    tty : force the bar (True) or plain lines (False); default: `is_terminal`.
    unit : what a step is, printed after the count (``"tasks"``: ``12/40 tasks (30 %)``).
    after : print nothing before this many seconds (work that is usually quick, such as
        planning a campaign, shows progress only when it is not).

    ``tick(n, note)`` counts steps; calling the bar with a message is ``tick(1, message)``, so it
    is also a ``progress(message)`` callback (`resilsched.gap.run_family`). ``say`` prints a line
    of its own. The bar prints its final line by itself when the count reaches `total`, else
    at `close`.
    """

    REDRAW = REDRAW
    WIDTH = 24

    def __init__(self, label: str, total: int = 0, done: int = 0, enabled: bool = True,
                 stream: TextIO | None = None, every: float = EVERY, tty: bool | None = None,
                 unit: str = "", after: float = 0.0):
        self.label = label
        self.after = after
        self.unit = unit
        self.total = max(0, int(total))
        self.done = int(done)
        self.skipped = int(done)
        self.enabled = enabled
        self.stream = stream if stream is not None else sys.stderr
        self.every = every
        self.tty = is_terminal(self.stream) if tty is None else tty
        self.note = ""
        self.start = self.last = time.perf_counter()
        self._drawn = False  # a bar is on the current terminal line
        self._finished = False
        self._printed = False  # a progress line (or bar) was shown

    # -- counting ------------------------------------------------------------------------------
    def set_total(self, total: int) -> None:
        """The number of steps, when it is known only after the bar was made."""
        self.total = max(0, int(total))

    def tick(self, n: int = 1, note: str = "") -> None:
        """`n` more steps are done; `note` (e.g. the case just finished) is shown with them."""
        self.done += n
        if note:
            self.note = note
        if not self.enabled or self._finished:
            return
        if self.total > 0 and self.done >= self.total:
            self.close()
            return
        now = time.perf_counter()
        if now - self.start < self.after:
            return
        if self.tty:
            if now - self.last >= self.REDRAW or not self._drawn:
                self._draw(now)
        elif now - self.last >= self.every:
            self.last = now
            self._print(self.status(now))

    def __call__(self, message: str) -> None:
        self.tick(1, message)

    # -- printing ------------------------------------------------------------------------------
    def rate(self, now: float | None = None) -> float:
        """Steps per second in this run (0 before the first step)."""
        elapsed = (time.perf_counter() if now is None else now) - self.start
        new = self.done - self.skipped
        return new / elapsed if elapsed > 0 and new > 0 else 0.0

    def _eta(self, rate: float) -> str | None:
        if self.total and rate > 0 and self.done < self.total:
            return f"ETA {hms((self.total - self.done) / rate)}"
        return None

    def status(self, now: float | None = None) -> str:
        """``[label] 12/40 (30 %), 2.1/s, elapsed 0:05, ETA 0:13; note`` (no ETA at the end)."""
        now = time.perf_counter() if now is None else now
        rate = self.rate(now)
        parts = [f"{self.done}/{self.total}" if self.total else f"{self.done}"]
        if self.unit:
            parts[0] += f" {self.unit}"
        if self.total:
            parts[0] += f" ({100 * self.done / self.total:.0f} %)"
        parts += [_rate(rate), f"elapsed {hms(now - self.start)}"]
        eta = self._eta(rate)
        if eta:
            parts.append(eta)
        text = f"[{self.label}] " + ", ".join(parts)
        return text + (f"; {self.note}" if self.note else "")

    def bar(self, now: float | None = None) -> str:
        """``label |#####-----| 12/40  30 %  2.1/s  ETA 0:13  note``, cut to the terminal."""
        now = time.perf_counter() if now is None else now
        frac = min(1.0, self.done / self.total) if self.total else 0.0
        filled = int(round(frac * self.WIDTH))
        rate = self.rate(now)
        eta = self._eta(rate) or hms(now - self.start)
        text = (f"{self.label} |{'#' * filled}{'-' * (self.WIDTH - filled)}| "
                f"{self.done}/{self.total} {100 * frac:3.0f} %  {_rate(rate)}  {eta}")
        if self.note:
            text += f"  {self.note}"
        return _fit(text)

    def _draw(self, now: float, end: str = "") -> None:
        self.last = now
        self.stream.write(ERASE + self.bar(now) + end)
        self.stream.flush()
        self._drawn = not end
        self._printed = True

    def _print(self, line: str) -> None:
        print(line, file=self.stream, flush=True)
        self._printed = True

    def say(self, message: str) -> None:
        """A line of its own (``[label] message``); on a terminal the bar is redrawn under it."""
        if not self.enabled:
            return
        if self._drawn:
            self.stream.write(ERASE)
            self._drawn = False
        print(f"[{self.label}] {message}", file=self.stream, flush=True)
        if self.tty and not self._finished and self.total and self._printed:
            self._draw(time.perf_counter())

    def close(self) -> None:
        """The final line: the bar finished on a terminal, the last count elsewhere; once, and
        not at all when nothing was shown and the work ended within `after` seconds or did no
        step."""
        if not self.enabled or self._finished:
            self._finished = True
            return
        self._finished = True
        now = time.perf_counter()
        if not self._printed and (now - self.start < self.after or self.done == self.skipped):
            return  # quick, or nothing done: nothing to say
        if self.tty:
            self._draw(now, "\n")
        else:
            self._print(self.status(now))

    def __enter__(self) -> ProgressBar:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _rate(rate: float) -> str:
    if rate <= 0:
        return "-/s"
    if rate >= 100:
        return f"{rate:.0f}/s"
    return f"{rate:.1f}/s" if rate >= 1 else f"{60 * rate:.1f}/min"


def progress_bar(label: str, total: int = 0, done: int = 0, enabled: bool = True,
                 stream: TextIO | None = None, every: float = EVERY,
                 unit: str = "", after: float = 0.0) -> ProgressBar:
    """A `ProgressBar` (a bar on a terminal, plain lines elsewhere, nothing when not enabled).

    Its arguments are those of the campaign runner's progress lines, so
    ``bar = progress_bar(label or name, len(todo) + len(stored), len(stored), progress)``
    replaces them; the object has the same ``say(message)`` and ``tick()``.
    """
    return ProgressBar(label, total, done, enabled, stream, every, unit=unit, after=after)
