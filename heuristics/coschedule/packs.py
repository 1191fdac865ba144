"""Packs: the solution object of the co-scheduling family (spec 001 §1.3).

A co-schedule is a partition of the n tasks into packs run one after another; pack b runs its
tasks side by side, task i on sigma(i) processors, and lasts max_{i in b} t_{i,sigma(i)}
seconds; the makespan is the sum of the pack times. Every heuristic and exact model of the
family returns a `Packs` (its ``payload`` / ``schedule``), printed as

    {"packs": [{"tasks": [...], "procs": [...], "time": ...}, ...]}

with 0-based task indices, packs in execution order (longest first). The independent validator
is `resilsched.validation.packs.check_packs`.

>>> from resilsched.instances.coschedule import CoscheduleInstance
>>> inst = CoscheduleInstance(p=4, k=2, times=((8, 4, 3, 3), (6, 5, 4, 4), (5, 3, 2, 2)))
>>> packs = make_packs(inst, [[0, 1], [2]])
>>> packs.makespan
7
>>> packs.lines()
['pack 1: tasks 0, 1 on 2, 2 processors, 5 s', 'pack 2: task 2 on 4 processors, 2 s']
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from resilsched.errors import InvalidSchedule
from resilsched.heuristics.coschedule.onepack import optimal_pack
from resilsched.instances.coschedule import CoscheduleInstance
from resilsched.numeric import readable
from resilsched.solution import number_fields


@dataclass(frozen=True)
class Pack:
    """One pack: its tasks (ascending), their processor counts sigma(i), and its time (s)."""

    tasks: tuple[int, ...]
    procs: tuple[int, ...]
    time: Any

    def to_dict(self) -> dict[str, Any]:
        """``{"tasks", "procs", "time"}``, the time a number (an exact non-integral value
        beside it as ``"time_exact": "p/q"``)."""
        return {"tasks": list(self.tasks), "procs": list(self.procs),
                **number_fields("time", self.time)}

    def line(self, number: int) -> str:
        what = "task" if len(self.tasks) == 1 else "tasks"
        return (f"pack {number}: {what} {', '.join(map(str, self.tasks))} on "
                f"{', '.join(map(str, self.procs))} processors, {readable(self.time)} s")


@dataclass(frozen=True)
class Packs:
    """A co-schedule: packs in execution order (spec 001 §1.3)."""

    packs: tuple[Pack, ...]

    def __len__(self) -> int:
        return len(self.packs)

    def __iter__(self):
        return iter(self.packs)

    @property
    def makespan(self) -> Any:
        """Sum of the pack times, in the instance's number type (exact for ints/Fractions)."""
        return sum((b.time for b in self.packs), 0)

    @property
    def exact_makespan(self) -> Fraction:
        """The makespan as an exact rational (floats are the rationals they denote)."""
        return sum((Fraction(b.time) for b in self.packs), Fraction(0))

    def task_lists(self) -> list[tuple[int, ...]]:
        return [b.tasks for b in self.packs]

    def to_dict(self) -> dict[str, Any]:
        return {"packs": [b.to_dict() for b in self.packs]}

    def lines(self) -> list[str]:
        return [b.line(q + 1) for q, b in enumerate(self.packs)]


def make_packs(inst: CoscheduleInstance, packs: Iterable[Sequence[int]],
               procs: Iterable[Sequence[int]] | None = None) -> Packs:
    """The `Packs` of a partition given as lists of task indices.

    Without `procs`, each pack is allocated by Algorithm 1 (optimal, `optimal_pack`); with
    `procs` (aligned with `packs`), the given allocation is kept and the pack time is
    max t_{i,procs(i)}.

    Raises `InvalidSchedule` when the lists do not partition the n tasks or a pack time is not
    finite: no caller can then report a makespan of 0 (or inf) for an empty co-schedule.
    """
    out = []
    procs_list = list(procs) if procs is not None else None
    for b, pack in enumerate(packs):
        tasks = tuple(sorted(int(i) for i in pack))
        if procs_list is None:
            time, sigma = optimal_pack(inst, tasks)
        else:
            given = dict(zip(pack, procs_list[b], strict=True))
            sigma = tuple(int(given[i]) for i in tasks)
            time = max(inst.t(i, s) for i, s in zip(tasks, sigma, strict=True))
        out.append(Pack(tasks, tuple(sigma), time))
    covered = sorted(i for b in out for i in b.tasks)
    if covered != list(range(inst.n)):
        raise InvalidSchedule(f"{len(out)} packs do not partition the {inst.n} tasks")
    for b in out:
        if not math.isfinite(b.time):
            raise InvalidSchedule(f"pack of tasks {list(b.tasks)} has time {b.time}")
    out.sort(key=lambda b: (-b.time, b.tasks))
    return Packs(tuple(out))
