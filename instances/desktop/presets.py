"""Named instance libraries of the desktop family (spec 004 §4.1-4.2, §7.3).

- ``x1``: the worked example X1 of spec 7.3 (one machine, a = (10, 8, 12), u = (5, 5, 5), jobs 4
  and 3; optimum 26 under the slack rule, 12 without).
- ``tiny``: random tiny instances for oracle tests (1-2 machines, 2-4 intervals, 2-5 jobs).
- ``small``: 50 hosts x 1,000 jobs of the synthetic traces (job set 100 + c).
- ``paper``: 500 hosts x 10,000 jobs (spec 4.5): machine set `seed`, job sets 100 + c.
- ``paper-absorb``: the same with `absorb_short` at 2 p_max (A-11).

Every library is a function of its seed: ``generate(seed, count)`` regenerates it bit for bit;
instance c of ``tiny`` uses child c of ``SeedSequence(seed)``, so it does not depend on `count`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from resilsched.instances.desktop.generators import synthetic_instance
from resilsched.instances.desktop.model import DesktopInstance, Machine
from resilsched.instances.fields import count_or_default


def x1(slack_rule: bool = True) -> DesktopInstance:
    """Worked example X1 (spec 7.3): lambda* = 26 under the slack rule, 12 without."""
    return DesktopInstance((Machine(1, 0, (10, 8, 12), (5, 5, 5)),), (4, 3), slack_rule,
                           "X1" if slack_rule else "X1-noslack")


def tiny_instance(seed: Any, slack_rule: bool = True, max_machines: int = 2,
                  max_intervals: int = 4, max_jobs: int = 5, name: str = "") -> DesktopInstance:
    """A random tiny instance whose jobs all fit some availability (oracle tests, smoke suite).

    Machines have b in {1, 2}, e0 in [0, 3], a in [2, 14], u in [1, 6]; p in [1, 4].
    """
    rng = np.random.default_rng(seed)
    while True:
        m = int(rng.integers(1, max_machines + 1))
        machines = []
        for _ in range(m):
            K = int(rng.integers(2, max_intervals + 1))
            machines.append(Machine(int(rng.integers(1, 3)), int(rng.integers(0, 4)),
                                    tuple(int(x) for x in rng.integers(2, 15, K)),
                                    tuple(int(x) for x in rng.integers(1, 7, K))))
        p = tuple(int(x) for x in rng.integers(1, 5, int(rng.integers(2, max_jobs + 1))))
        need = 2 * max(p) if slack_rule else max(p)
        if any(max(mach.a) >= need * mach.b for mach in machines):
            return DesktopInstance(tuple(machines), p, slack_rule, name)


def _tiny(seed: int, count: int | None) -> list[DesktopInstance]:
    count = count_or_default(count, 10)
    children = np.random.SeedSequence(seed).spawn(count)
    return [tiny_instance(c, name=f"tiny-{seed}-{k}") for k, c in enumerate(children)]


def _synthetic(hosts: int, jobs: int, absorb: bool, label: str) -> Callable[..., list]:
    def make(seed: int, count: int | None = None) -> list[DesktopInstance]:
        count = count_or_default(count, 1)
        return [synthetic_instance(hosts, jobs, seed, 100 + c, absorb=absorb,
                                   name=f"{label}-m{seed}-j{100 + c}") for c in range(count)]
    return make


#: preset name -> (description, generate(seed, count))
PRESETS: dict[str, tuple[str, Callable[..., list[DesktopInstance]]]] = {
    "x1": ("worked example X1 of spec 7.3 (count ignored)", lambda seed, count=None: [x1()]),
    "tiny": ("random tiny instances for oracle tests (default count 10)", _tiny),
    "small": ("50 hosts x 1,000 jobs of the synthetic traces (spec 4.1-4.2)",
              _synthetic(50, 1000, False, "small")),
    "paper": ("500 hosts x 10,000 jobs (spec 4.5): machine set SEED, job sets 100..",
              _synthetic(500, 10_000, False, "paper")),
    "paper-absorb": ("the paper size with absorb_short(2 p_max) (A-11)",
                     _synthetic(500, 10_000, True, "paper-absorb")),
}
