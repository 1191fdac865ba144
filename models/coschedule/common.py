"""Packs: the solution object of the co-scheduling family (spec 001 §1.3) and its validator.

A co-schedule is a partition of the tasks into packs run one after another; the cost of a pack is
max_{i in pack} t_{i,sigma(i)} and the makespan is the sum over packs. The payload every model and
heuristic returns is ``{"packs": [{"tasks": [...], "procs": [...], "time": ...}, ...]}`` with
0-based task indices, packs in execution order (longest first).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from resilsched.errors import InvalidSchedule
from resilsched.instances.coschedule import CoscheduleInstance
from resilsched.models.coschedule.onepack import optimal_pack
from resilsched.numeric import parse_number, time_eq


def make_payload(inst: CoscheduleInstance, packs: Iterable[Sequence[int]],
                 procs: Iterable[Sequence[int]] | None = None) -> dict[str, Any]:
    """Payload for `packs` (lists of task indices).

    Without `procs`, each pack is allocated by Algorithm 1 (optimal); with `procs`, the given
    allocation is kept and the pack time is max t_{i,procs(i)}.
    """
    out = []
    procs_list = list(procs) if procs is not None else None
    for b, pack in enumerate(packs):
        tasks = sorted(int(i) for i in pack)
        if procs_list is None:
            time, sigma = optimal_pack(inst, tasks)
        else:
            given = dict(zip(pack, procs_list[b], strict=True))
            sigma = tuple(int(given[i]) for i in tasks)
            time = max(inst.t(i, s) for i, s in zip(tasks, sigma, strict=True))
        out.append({"tasks": tasks, "procs": list(sigma), "time": time})
    out.sort(key=lambda d: (-float(d["time"]), d["tasks"]))
    return {"packs": out}


def payload_objective(payload: dict[str, Any]) -> Any:
    """Makespan of a payload: the sum of its pack times (exact for ints/Fractions)."""
    return sum((d["time"] for d in payload["packs"]), 0)


def check_packs(inst: CoscheduleInstance, payload: dict[str, Any]) -> Any:
    """Independent validator; returns the makespan or raises `InvalidSchedule`.

    Checks: every task in exactly one pack; at most k tasks per pack; pmin_i <= sigma(i);
    sum sigma <= p per pack; the stated pack time equals max t_{i,sigma(i)}.
    """
    seen: list[int] = []
    total: Any = 0
    for b, d in enumerate(payload["packs"]):
        tasks, procs = list(d["tasks"]), list(d["procs"])
        if not tasks:
            raise InvalidSchedule(f"pack {b} is empty")
        if len(tasks) != len(procs):
            raise InvalidSchedule(f"pack {b}: {len(tasks)} tasks but {len(procs)} allocations")
        if len(tasks) > inst.k:
            raise InvalidSchedule(f"pack {b} holds {len(tasks)} tasks > k={inst.k}")
        if sum(procs) > inst.p:
            raise InvalidSchedule(f"pack {b} uses {sum(procs)} processors > p={inst.p}")
        for i, s in zip(tasks, procs, strict=True):
            if not 0 <= i < inst.n:
                raise InvalidSchedule(f"pack {b}: task {i} does not exist")
            if s < inst.pmin[i]:
                raise InvalidSchedule(f"pack {b}: task {i} on {s} < pmin={inst.pmin[i]}")
        time = max(inst.t(i, s) for i, s in zip(tasks, procs, strict=True))
        if not time_eq(time, parse_number(d["time"], f"packs[{b}].time")):
            raise InvalidSchedule(f"pack {b}: stated time {d['time']} != {time}")
        seen += tasks
        total += time
    if sorted(seen) != list(range(inst.n)):
        raise InvalidSchedule("the packs do not partition the tasks exactly once")
    return total
