"""Attempt-level schedules of parallel jobs under silent errors (specs 002 §1.3, 000).

A schedule for failure scenario f lists every execution attempt: job j runs f_j + 1 attempts,
the first f_j fail and the last succeeds. Each attempt holds `p` processors for `end - start`.
Rigid jobs use the same `p` for every attempt; moldable jobs may change it per attempt.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from resilsched.solution import to_jsonable


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
        return to_jsonable(
            {
                "job": self.job,
                "k": self.k,
                "start": self.start,
                "end": self.end,
                "p": self.p,
                "failed": self.failed,
            }
        )


@dataclass(frozen=True)
class Schedule:
    """All attempts of one simulated (or optimal) run, with its makespan (Eq. 1 of spec 002)."""

    attempts: tuple[Attempt, ...]
    makespan: Any

    def attempts_of(self, j: int) -> list[Attempt]:
        return sorted((a for a in self.attempts if a.job == j), key=lambda a: a.k)

    def to_dict(self) -> dict[str, Any]:
        return {
            "makespan": to_jsonable(self.makespan),
            "attempts": [a.to_dict() for a in self.attempts],
        }

    def lines(self) -> list[str]:
        """One line per attempt, in start order: ``job 2 attempt 1: [0, 3) on 4 processors``."""
        rows = sorted(self.attempts, key=lambda a: (a.start, a.job, a.k))
        return [
            f"job {a.job} attempt {a.k}: [{a.start}, {a.end}) on {a.p} processor"
            + ("s" if a.p != 1 else "") + (", failed" if a.failed else "")
            for a in rows
        ]


@dataclass(frozen=True)
class SchedulePayload:
    """What an exact model of the rigid and moldable families returns: the optimal schedule
    and facts about the model (JSON: ``{"schedule": ..., "info": ...}``)."""

    schedule: Schedule
    info: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"schedule": self.schedule.to_dict(), "info": to_jsonable(self.info)}

    def lines(self) -> list[str]:
        return self.schedule.lines()
