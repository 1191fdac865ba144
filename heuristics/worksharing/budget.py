"""How long a worksharing search may go on (chunk-count searches, certificates; spec 003 §3.4).

A `Budget` is either a wall-clock `Deadline` (the time limit of an exact model's call) or, for
deterministic runs (``deterministic=True``), a work allowance: every evaluation spends units (one
unit per chunk entry evaluated, about `WORK_PER_SECOND` per second of the time limit), so that
the same call stops at the same point on any machine. Phases take a `share` of what remains;
the work they spend counts against the whole call.

>>> b = Budget(work=10)
>>> b.spend(4); b.expired()
False
>>> phase = b.share(0.5)  # 3 of the 6 units left
>>> phase.spend(3); phase.expired(), b.expired()
(True, False)
>>> Budget().expired()
False
"""

from __future__ import annotations

from resilsched.deadline import Deadline
from resilsched.options import SolveOptions

#: work units (chunk entries evaluated) a deterministic run may spend per second of time limit;
#: about a third of what the project machine evaluates per second, so a deterministic run also
#: stays near its limit on a loaded machine
WORK_PER_SECOND = 2_000_000


class Budget:
    """A wall-clock deadline, a work allowance (units), or neither (unlimited)."""

    def __init__(self, deadline: Deadline | None = None, work: float | None = None,
                 parent: Budget | None = None):
        self.deadline = deadline if deadline is not None else Deadline(None)
        self.work = work
        self.spent = 0.0
        self.parent = parent

    @classmethod
    def of(cls, opts: SolveOptions) -> Budget:
        """The budget of a model call: its deadline, or its work allowance when deterministic."""
        if opts.deterministic and opts.time_limit is not None:
            return cls(work=opts.time_limit * WORK_PER_SECOND)
        return cls(deadline=opts.deadline)

    def spend(self, units: float) -> None:
        """Record work done (it counts against every enclosing budget)."""
        b: Budget | None = self
        while b is not None:
            b.spent += units
            b = b.parent

    def expired(self) -> bool:
        if self.work is not None and self.spent >= self.work:
            return True
        if self.parent is not None and self.parent.expired():
            return True
        return self.deadline.expired()

    def share(self, fraction: float, reserve: float = 0.0) -> Budget:
        """The budget of a phase that may use `fraction` of what remains (time or work) once
        `reserve` seconds are set aside for the phases after it."""
        seconds = None
        if self.deadline.seconds is not None:
            seconds = max(0.0, self.deadline.remaining() - reserve) * fraction
        work = None
        if self.work is not None:
            work = max(0.0, self.work - self.spent - reserve * WORK_PER_SECOND) * fraction
        return Budget(Deadline(seconds), work, parent=self)
