"""Progress on standard error for commands that run longer than a few seconds.

Standard output stays clean for ``--json``; ``-q`` turns everything here off.

- `Heartbeat` wraps one long call (``solve``, ``simulate``): after `after` seconds it prints a line
  every `every` seconds with the time spent, the time limit and the last phase the call reported
  through `Heartbeat.phase`.
- `ProgressBar` follows a known number of steps (the cases of ``gap``, the instances of
  ``library verify``, the tasks of a campaign): on a terminal, one bar redrawn in place with the
  count, the rate and the ETA; elsewhere (a CI log, a file), a plain line every ~5 % of the steps
  or every `every` seconds, and at the end. `progress_bar` builds one; its arguments are those of
  the campaign runner's progress lines (``label, total, done, enabled``).
"""

from __future__ import annotations

import shutil
import sys
import threading
import time
from typing import TextIO

from resilsched.options import Deadline


class Heartbeat:
    """Progress lines around one call.

    ``with Heartbeat("solve", deadline) as beat: solve(..., progress=beat.phase)``
    """

    def __init__(self, label: str, deadline: Deadline, *, enabled: bool = True,
                 after: float = 3.0, every: float = 5.0, stream: TextIO | None = None):
        self.label = label
        self.deadline = deadline
        self.enabled = enabled
        self.after = after
        self.every = every
        self.stream = stream if stream is not None else sys.stderr
        self.last_phase = ""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def phase(self, message: str) -> None:
        """Record what the call is doing now; printed with the next line."""
        self.last_phase = message

    def _line(self) -> str:
        limit = self.deadline.seconds
        spent = f"{self.deadline.elapsed():.0f} s" + (f" of {limit:g} s" if limit else "")
        return f"{self.label}: {spent}" + (f"; {self.last_phase}" if self.last_phase else "")

    def _run(self) -> None:
        wait = self.after
        while not self._stop.wait(wait):
            print(self._line(), file=self.stream, flush=True)
            wait = self.every

    def __enter__(self) -> Heartbeat:
        if self.enabled:
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()


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
    every : seconds between two plain lines at most (besides every ~5 % of the steps).
    tty : force the bar (True) or plain lines (False); default: ``stream.isatty()``.
    unit : what a step is, printed after the count (``"tasks"``: ``12/40 tasks (30 %)``).
    after : print nothing before this many seconds (work that is usually quick, such as
        planning a campaign, shows progress only when it is not).

    ``tick(n, note)`` counts steps; calling the bar with a message is ``tick(1, message)``, so it
    is also a ``progress(message)`` callback (`resilsched.gap.run_family`). ``say`` prints a line
    of its own. The bar finishes its line by itself when the count reaches `total`.
    """

    #: seconds between two redraws of the bar on a terminal
    REDRAW = 0.1
    WIDTH = 24

    def __init__(self, label: str, total: int = 0, done: int = 0, enabled: bool = True,
                 stream: TextIO | None = None, every: float = 10.0, tty: bool | None = None,
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
        if tty is None:
            isatty = getattr(self.stream, "isatty", None)
            tty = bool(isatty()) if callable(isatty) else False
        self.tty = tty
        self.note = ""
        self.start = self.last = time.perf_counter()
        self._drawn = False  # a bar is on the current terminal line
        self._finished = False
        self._printed = self.done  # the count of the last plain line
        self._step = max(1, (self.total - self.done) // 20)

    # -- counting ------------------------------------------------------------------------------
    def set_total(self, total: int) -> None:
        """The number of steps, when it is known only after the bar was made."""
        self.total = max(0, int(total))
        self._step = max(1, (self.total - self.done) // 20)

    def tick(self, n: int = 1, note: str = "") -> None:
        """`n` more steps are done; `note` (e.g. the case just finished) is shown with them."""
        self.done += n
        if note:
            self.note = note
        if not self.enabled or self._finished:
            return
        now = time.perf_counter()
        if now - self.start < self.after:
            return
        complete = self.total > 0 and self.done >= self.total
        if self.tty:
            if complete:
                self.close()
            elif now - self.last >= self.REDRAW or not self._drawn:
                self._draw(now)
            return
        new = self.done - self.skipped
        late = self.after > 0 and self._printed == self.skipped  # the first line after `after`
        if complete or late or new % self._step == 0 or now - self.last >= self.every:
            self.last = now
            self._printed = self.done
            self._print(self.status(now))
            if complete:
                self._finished = True

    def __call__(self, message: str) -> None:
        self.tick(1, message)

    # -- printing ------------------------------------------------------------------------------
    def rate(self, now: float | None = None) -> float:
        """Steps per second in this run (0 before the first step)."""
        elapsed = (time.perf_counter() if now is None else now) - self.start
        new = self.done - self.skipped
        return new / elapsed if elapsed > 0 and new > 0 else 0.0

    def status(self, now: float | None = None) -> str:
        """``[label] 12/40 (30 %), 2.1/s, elapsed 0:05, ETA 0:13; note``."""
        now = time.perf_counter() if now is None else now
        rate = self.rate(now)
        parts = [f"{self.done}/{self.total}" if self.total else f"{self.done}"]
        if self.unit:
            parts[0] += f" {self.unit}"
        if self.total:
            parts[0] += f" ({100 * self.done / self.total:.0f} %)"
        parts.append(f"{_rate(rate)}")
        parts.append(f"elapsed {hms(now - self.start)}")
        if self.total and rate > 0:
            parts.append(f"ETA {hms((self.total - self.done) / rate)}")
        text = f"[{self.label}] " + ", ".join(parts)
        return text + (f"; {self.note}" if self.note else "")

    def bar(self, now: float | None = None) -> str:
        """``label |#####-----| 12/40  30 %  2.1/s  ETA 0:13  note``, cut to the terminal."""
        now = time.perf_counter() if now is None else now
        frac = min(1.0, self.done / self.total) if self.total else 0.0
        filled = int(round(frac * self.WIDTH))
        rate = self.rate(now)
        eta = (f"ETA {hms((self.total - self.done) / rate)}" if self.total and rate > 0
               and self.done < self.total else f"{hms(now - self.start)}")
        text = (f"{self.label} |{'#' * filled}{'-' * (self.WIDTH - filled)}| "
                f"{self.done}/{self.total} {100 * frac:3.0f} %  {_rate(rate)}  {eta}")
        if self.note:
            text += f"  {self.note}"
        width = shutil.get_terminal_size((100, 20)).columns - 1
        return text[:width]

    def _draw(self, now: float) -> None:
        self.last = now
        self.stream.write("\r\x1b[K" + self.bar(now))
        self.stream.flush()
        self._drawn = True

    def _print(self, line: str) -> None:
        print(line, file=self.stream, flush=True)

    def say(self, message: str) -> None:
        """A line of its own (``[label] message``); on a terminal the bar is redrawn under it."""
        if not self.enabled:
            return
        if self.tty and self._drawn:
            self.stream.write("\r\x1b[K")
            self._drawn = False
        self._print(f"[{self.label}] {message}")
        if self.tty and not self._finished and self.total:
            self._draw(time.perf_counter())

    def close(self) -> None:
        """Finish the bar's line (a terminal) or print the last count (plain lines), once."""
        if not self.enabled or self._finished:
            self._finished = True
            return
        self._finished = True
        if time.perf_counter() - self.start < self.after and not self._drawn \
                and self._printed == self.skipped:
            return
        if self.tty:
            if self._drawn or self.done > self.skipped:
                self.stream.write("\r\x1b[K" + self.bar() + "\n")
                self.stream.flush()
                self._drawn = False
        elif self.done != self._printed:
            self._print(self.status())

    def __enter__(self) -> ProgressBar:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _rate(rate: float) -> str:
    if rate <= 0:
        return "-/s"
    return f"{rate:.1f}/s" if rate >= 1 else f"{60 * rate:.1f}/min"


def progress_bar(label: str, total: int = 0, done: int = 0, enabled: bool = True,
                 stream: TextIO | None = None, every: float = 10.0,
                 unit: str = "", after: float = 0.0) -> ProgressBar:
    """A `ProgressBar` (a bar on a terminal, plain lines elsewhere, nothing when not enabled).

    Its arguments are those of the campaign runner's progress lines, so
    ``bar = progress_bar(label or name, len(todo) + len(stored), len(stored), progress)``
    replaces them; the object has the same ``say(message)`` and ``tick()``.
    """
    return ProgressBar(label, total, done, enabled, stream, every, unit=unit, after=after)
