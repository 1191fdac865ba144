"""Progress lines on standard error for commands that run longer than a few seconds.

`Heartbeat` wraps one long call (``solve``, ``simulate``): after `after` seconds it prints a line
every `every` seconds with the time spent, the time limit and the last phase the call reported
through `Heartbeat.phase` (standard output stays clean for ``--json``).
"""

from __future__ import annotations

import sys
import threading
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
