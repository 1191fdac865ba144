"""Attempt-level schedules of parallel jobs under silent errors (specs 002 §1.3, 000).

A schedule for failure scenario f lists every execution attempt: job j runs f_j + 1 attempts,
the first f_j fail and the last succeeds. Each attempt holds `p` processors for `end - start`.
Rigid jobs use the same `p` for every attempt; moldable jobs may change it per attempt.

JSON (``solution`` of ``resilsched simulate/solve --json``): times are numbers, an exact rational
value that is not an integer beside them as a string (``"end": 4.5, "end_exact": "9/2"``), as
``objective_exact`` does; heuristics and exact models put the schedule at the same path,
``solution.makespan`` and ``solution.attempts``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from resilsched.numeric import readable
from resilsched.solution import number_fields, output_jsonable


@dataclass(frozen=True)
class Attempt:
    """One execution attempt: job index, attempt number k (1-based), time window, processors."""

    job: int
    k: int
    start: Any
    end: Any
    p: int
    failed: bool

    def to_dict(self) -> dict[str, Any]:
        return {"job": self.job, "k": self.k, **number_fields("start", self.start),
                **number_fields("end", self.end), "p": self.p, "failed": self.failed}


@dataclass(frozen=True)
class Schedule:
    """All attempts of one simulated (or optimal) run, with its makespan (Eq. 1 of spec 002)."""

    attempts: tuple[Attempt, ...]
    makespan: Any

    def attempts_of(self, j: int) -> list[Attempt]:
        return sorted((a for a in self.attempts if a.job == j), key=lambda a: a.k)

    def to_dict(self) -> dict[str, Any]:
        return {**number_fields("makespan", self.makespan),
                "attempts": [a.to_dict() for a in self.attempts]}

    def lines(self) -> list[str]:
        """One line per attempt, in start order: ``job 2 attempt 1: [0, 3) on 4 processors``."""
        rows = sorted(self.attempts, key=lambda a: (a.start, a.job, a.k))
        return [
            f"job {a.job} attempt {a.k}: [{readable(a.start, fraction_value=False)}, "
            f"{readable(a.end, fraction_value=False)}) on {a.p} processor"
            + ("s" if a.p != 1 else "") + (", failed" if a.failed else "")
            for a in rows
        ]


def makespan_of(schedule: Any) -> Any:
    """The makespan recomputed from a schedule's attempts: the last end of a successful attempt
    (Eq. 1 of spec 002), whatever the schedule claims (0 without attempts).

    >>> makespan_of(Schedule((Attempt(0, 1, 0, 4, 1, True), Attempt(0, 2, 4, 7, 1, False)), 4))
    7
    """
    return max((a.end for a in schedule.attempts if not a.failed), default=0)


@dataclass(frozen=True)
class SchedulePayload:
    """What an exact model of the rigid and moldable families returns: the optimal schedule
    and facts about the model. It reads like a `Schedule` (``attempts``, ``makespan``,
    ``attempts_of``), so ``solution.schedule`` of an exact model and of a heuristic are used
    alike. JSON: ``{"makespan", "attempts", "info", "schedule"}``, the schedule's fields at the
    path of a heuristic's; ``"schedule"`` holds them again, the path of earlier versions."""

    schedule: Schedule
    info: dict[str, Any]

    @property
    def attempts(self) -> tuple[Attempt, ...]:
        """The schedule's attempts (it reads like a `Schedule`)."""
        return self.schedule.attempts

    @property
    def makespan(self) -> Any:
        return self.schedule.makespan

    def attempts_of(self, j: int) -> list[Attempt]:
        return self.schedule.attempts_of(j)

    def to_dict(self) -> dict[str, Any]:
        flat = self.schedule.to_dict()
        return {**flat, "info": output_jsonable(self.info), "schedule": flat}

    def lines(self) -> list[str]:
        return self.schedule.lines()
