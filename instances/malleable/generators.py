"""Seeded malleable instances: the simulation setting of spec 001 §4 and tiny test instances.

- `paper_instance`: the chapter's setting (§1.5.4): synthetic profiles (1.13) with f = 0.08,
  m_i uniform integers in [m_inf, m_sup] (default 1,500,000..2,500,000; A-20), C_i = m_i c with
  c = 1, S = 0, beta = 0, per-processor MTBF 100 years, downtime D = 60 s (A-4).
- `tiny_instance`: n <= 5 applications with random integer tables satisfying (1.1)/(1.2)
  (`instances.coschedule.random_integer_table`) on p <= 24 processors, for exact yardsticks and
  brute force; with failures, an MTBF giving a few failures per run.
- `generate(seed, count, kind)`: a library, one child generator per instance, so instance k does
  not depend on how many are drawn.
- `library(seed, count)`: the instances of the shipped certified library ``malleable-small``
  (issue 13): tiny fault-free instances, which the yardstick proves optimal
  (``faultfree-optimal``), and one in `TRACED_EVERY` with failures and a stored trace, which it
  bounds (fluid bound, best realized makespan; decision MA-1).
"""

from __future__ import annotations

import numpy as np

from resilsched.instances.coschedule import random_integer_table
from resilsched.instances.fields import count_or_default  # noqa: F401  (re-exported)
from resilsched.instances.malleable.model import YEAR, MalleableInstance, MalleableTask
from resilsched.instances.malleable.traces import DrawnTrace

M_INF = 1_500_000
M_SUP = 2_500_000
#: the heterogeneous and homogeneous variants of §1.5.4 (m_sup unchanged)
M_INF_HETEROGENEOUS = 1_500
M_INF_HOMOGENEOUS = 2_499_000
F_DEFAULT = 0.08
MTBF_YEARS = 100.0
DOWNTIME = 60.0
#: in the library, instance c has failures and a stored trace when c % TRACED_EVERY is the last
TRACED_EVERY = 12


def paper_instance(rng: np.random.Generator | int, n: int, p: int, *,
                   mtbf_years: float | None = MTBF_YEARS, c: float = 1.0, f: float = F_DEFAULT,
                   m_inf: int = M_INF, m_sup: int = M_SUP, downtime: float = DOWNTIME,
                   period: str = "young", name: str = "") -> MalleableInstance:
    """n synthetic applications on p processors in the setting of §1.5.4.

    `mtbf_years` None gives the fault-free context (lambda = 0).
    """
    rng = np.random.default_rng(rng)
    ms = rng.integers(m_inf, m_sup + 1, size=n)
    tasks = tuple(MalleableTask(m=float(m), f=f) for m in ms)
    return MalleableInstance(
        p=p, tasks=tasks, mtbf=None if mtbf_years is None else mtbf_years * YEAR,
        downtime=downtime, checkpoint_factor=c, period=period, name=name,
        metadata={"generator": "paper", "n": n, "m_inf": m_inf, "m_sup": m_sup, "f": f})


def tiny_instance(rng: np.random.Generator | int, n: int, p: int, *, faulty: bool = True,
                  S: float = 0.0, name: str = "") -> MalleableInstance:
    """n applications with integer tables t_1 in [20, 120] on p processors (p >= 2n).

    Footprints m in [2, 40] give checkpoints of a few seconds; with `faulty`, the per-processor
    MTBF is drawn so that the platform sees about 1 to 4 failures over the longest application,
    and D is 5 s.
    """
    rng = np.random.default_rng(rng)
    tables = [random_integer_table(rng, p, (20, 120)) for _ in range(n)]
    ms = rng.integers(2, 41, size=n)
    tasks = tuple(MalleableTask(m=float(m), t=tuple(float(x) for x in row))
                  for m, row in zip(ms, tables, strict=True))
    mtbf = None
    if faulty:
        longest = max(row[1] for row in tables)  # on 2 processors
        mtbf = float(round(p * longest / rng.uniform(1.0, 4.0), 3))
    return MalleableInstance(p=p, tasks=tasks, mtbf=mtbf, downtime=5.0 if faulty else 0.0,
                             S=S, name=name, metadata={"generator": "tiny"})


def generate(seed: int, count: int | None = None, *, kind: str = "tiny",
             n_range: tuple[int, int] = (2, 4), p_range: tuple[int, int] = (6, 12),
             faulty: bool = True) -> list[MalleableInstance]:
    """`count` (default 10) instances from one seed; kind ``tiny`` or ``paper``.

    ``paper`` draws n from `n_range` and p from `p_range` as for ``tiny`` (p raised to 2n).
    """
    count = count_or_default(count, 10)
    out = []
    for c, child in enumerate(np.random.default_rng(seed).spawn(count)):
        n = int(child.integers(n_range[0], n_range[1] + 1))
        p = max(2 * n, int(child.integers(p_range[0], p_range[1] + 1)))
        label = f"{kind}-s{seed}-{c}"
        if kind == "paper":
            inst = paper_instance(child, n, p, mtbf_years=MTBF_YEARS if faulty else None,
                                  name=label)
        else:
            inst = tiny_instance(child, n, p, faulty=faulty, name=label)
        inst.metadata.update({"seed": seed, "index": c})
        out.append(inst)
    return out


def library(seed: int, count: int | None = None) -> list[MalleableInstance]:
    """`count` (default 100) instances of the certified library (module doc), from one seed.

    Fault-free ones: n in 2..5, p in [2n, 16] (12 when n = 5), S = 0 or (one in four) an integer
    in 1..5, and an empty trace. Traced ones (c % TRACED_EVERY == TRACED_EVERY - 1): n in 2..4,
    p in [max(6, 2n), 12], the failures of their mtbf up to 3 max_i t_{i,2}, a bound on the
    length of a run without failures, tripled (after the trace nothing fails).
    """
    count = count_or_default(count, 100)
    out = []
    for c, child in enumerate(np.random.default_rng(seed).spawn(count)):
        label = f"library-s{seed}-{c}"
        if c % TRACED_EVERY == TRACED_EVERY - 1:
            n = int(child.integers(2, 5))
            p = int(child.integers(max(6, 2 * n), 13))
            inst = tiny_instance(child, n, p, faulty=True, name=label)
            horizon = 3.0 * max(task.t[1] for task in inst.tasks)
            trace = DrawnTrace(p, float(inst.mtbf), int(child.integers(2**31))).prefix(horizon)
            inst = inst.replace(failures=tuple(zip(trace.times, trace.procs, strict=True)))
        else:
            n = int(child.integers(2, 6))
            p = int(child.integers(2 * n, (12 if n == 5 else 16) + 1))
            S = float(child.integers(1, 6)) if child.random() < 0.25 else 0.0
            inst = tiny_instance(child, n, p, faulty=False, S=S, name=label).replace(
                failures=())
        inst.metadata.update({"seed": seed, "index": c})
        out.append(inst)
    return out
