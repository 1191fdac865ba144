"""Co-schedules (spec 001 §1.3): the independent validator of packs.

A co-schedule partitions the tasks of a k-in-p instance into packs run one after another; a pack
holds at most k tasks, gives task i sigma(i) >= pmin_i processors with sum sigma <= p, and lasts
max_{i in pack} t_{i,sigma(i)}. `check_packs` shares no code with the heuristics and models it
checks: it reads the instance only through ``n``, ``p``, ``k``, ``pmin`` and ``t(i, j)``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from resilsched.errors import InvalidSchedule
from resilsched.numeric import parse_number, time_eq


def check_packs(inst: Any, packs: Any) -> Any:
    """Validate a co-schedule of `inst`; return its makespan or raise `InvalidSchedule`.

    `packs` is a packs object (anything with ``to_dict()``, e.g.
    `resilsched.heuristics.coschedule.packs.Packs`) or its JSON form
    ``{"packs": [{"tasks", "procs", "time"}, ...]}``. Checks: every task in exactly one pack; at
    most k tasks per pack; pmin_i <= sigma(i); sum sigma <= p per pack; the stated pack time
    equals max t_{i,sigma(i)} (exactly for ints/Fractions, within 1e-9 for floats).
    """
    if hasattr(packs, "to_dict"):
        packs = packs.to_dict()
    if not isinstance(packs, Mapping) or not isinstance(packs.get("packs"), list):
        raise InvalidSchedule("a co-schedule must hold a list under 'packs'")
    seen: list[int] = []
    total: Any = 0
    for b, d in enumerate(packs["packs"]):
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
        stated = parse_number(d.get("time_exact", d["time"]), f"packs[{b}].time")
        if not time_eq(time, stated):
            raise InvalidSchedule(f"pack {b}: stated time {d['time']} != {time}")
        seen += tasks
        total += time
    if sorted(seen) != list(range(inst.n)):
        raise InvalidSchedule("the packs do not partition the tasks exactly once")
    return total
