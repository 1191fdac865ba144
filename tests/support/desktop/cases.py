"""Oracles and instance makers shared by the desktop tests (spec 004 §7.3).

Nothing here imports the heuristics or the models: the brute-force horizon, the rule check and
the event simulator are written from the spec's definitions only.
"""

from __future__ import annotations

import itertools
import json
from fractions import Fraction
from pathlib import Path

import numpy as np

import resilsched.library
from resilsched.errors import InvalidInstance
from resilsched.instances.desktop import DesktopInstance, Machine


def intervals_of(inst: DesktopInstance) -> list[tuple[int, int]]:
    """Every (machine, k) with k = 1..K_i."""
    return [(i, k) for i, m in enumerate(inst.machines) for k in range(1, m.K + 1)]


def rule_ok(inst: DesktopInstance, alloc: dict[tuple[int, int], list[int]], slack: bool) -> bool:
    """Definition 2 (or plain fit): every interval, empty ones included."""
    T = inst.durations
    for i, m in enumerate(inst.machines):
        S = [sum(int(T[i, j]) for j in alloc.get((i, k), [])) for k in range(1, m.K + 1)]
        M = [max((int(T[i, j]) for j in alloc.get((i, k), [])), default=0)
             for k in range(1, m.K + 1)] + [0, 0]
        for k in range(m.K):
            d = m.a[k] - S[k]
            if d < 0 or (slack and d < max(M[k], M[k + 1], M[k + 2])):
                return False
    return True


def horizon(inst: DesktopInstance, alloc: dict[tuple[int, int], list[int]], slack: bool) -> int:
    """H(pi) from the definitions (spec F2)."""
    T = inst.durations
    best = 0
    for (i, k), jobs in alloc.items():
        if not jobs:
            continue
        m = inst.machines[i]
        q = m.e[k - 1] + m.u[k - 1]
        S = sum(int(T[i, j]) for j in jobs)
        w = 0
        if slack:
            w = max(max((int(T[i, j]) for j in alloc.get((i, k + x), [])), default=0)
                    for x in range(3))
        best = max(best, q + S + w)
    return best


def checked_tiny_allocations(allocate, seeds: int) -> int:
    """How many allocations ``allocate(instance, lam, rule)`` built on tiny instances (seeds
    0..`seeds`-1, 6 horizons each, the rule on two seeds in three), each checked to place every
    job once, to keep the rule and to end by its horizon lam (AssertionError naming the seed
    and lam otherwise); None (no allocation) is skipped."""
    from resilsched.instances.desktop.presets import tiny_instance

    checked = 0
    for seed in range(seeds):
        rule = seed % 3 != 0
        inst = tiny_instance(seed, slack_rule=rule, max_machines=3, max_intervals=5,
                             max_jobs=7)
        top = int(inst.flat["e"].max()) + 1
        for lam in np.random.default_rng(seed).integers(1, top, 6).tolist():
            alloc = allocate(inst, lam, rule)
            if alloc is None:
                continue
            assert sorted(j for jobs in alloc.values() for j in jobs) == list(range(inst.n))
            lists = {ik: list(jobs) for ik, jobs in alloc.items()}
            assert rule_ok(inst, lists, rule), (seed, lam)
            assert horizon(inst, lists, rule) <= lam, (seed, lam)
            checked += 1
    return checked


def all_allocations(inst: DesktopInstance, slack: bool):
    """Every allocation that respects the rule (brute force over intervals^n)."""
    ivs = intervals_of(inst)
    for choice in itertools.product(range(len(ivs)), repeat=inst.n):
        alloc: dict[tuple[int, int], list[int]] = {}
        for j, c in enumerate(choice):
            alloc.setdefault(ivs[c], []).append(j)
        if rule_ok(inst, alloc, slack):
            yield alloc


def brute_force(inst: DesktopInstance, slack: bool | None = None) -> int | None:
    """lambda* by enumeration (None when no allocation respects the rule)."""
    rule = inst.slack_rule if slack is None else slack
    return min((horizon(inst, a, rule) for a in all_allocations(inst, rule)), default=None)


def simulate(inst: DesktopInstance, queues: list[list[int]], deltas) -> list[list[int]]:
    """Completion times per machine with the *unmerged* disturbed unavailabilities (spec 1.5)."""
    out = []
    for i, m in enumerate(inst.machines):
        periods = [(m.s[k] + deltas[i][k], m.e[k + 1] + deltas[i][k]) for k in range(m.K)]
        t = m.e0
        done = []
        for dur in queues[i]:
            while True:
                inside = [e for s, e in periods if s <= t < e]
                if inside:
                    t = max(inside)
                    continue
                cuts = [s for s, e in periods if t < s < t + dur]
                if cuts:
                    t = min(cuts)  # interrupted; the containing period moves t next round
                    continue
                t += dur
                done.append(t)
                break
        out.append(done)
    return out


def tiny_h1(seed, machines: int = 2, max_k: int = 4, max_jobs: int = 5,
            slack_rule: bool = True) -> DesktopInstance:
    """A tiny instance satisfying H1 (2 p_max <= a_min), b in {1, 2}."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, max_jobs + 1))
    p = [int(x) for x in rng.integers(1, 4, n)]
    ms = []
    bs = [int(x) for x in rng.integers(1, 3, int(rng.integers(1, machines + 1)))]
    lo = 2 * max(bs) * max(p)  # H1 is global: 2 max_ij t_ij <= min_ik a_ik
    for b in bs:
        K = int(rng.integers(2, max_k + 1))
        ms.append(Machine(b, int(rng.integers(0, 3)),
                          tuple(int(x) for x in rng.integers(lo, lo + 6, K)),
                          tuple(int(x) for x in rng.integers(1, 6, K))))
    return DesktopInstance(tuple(ms), tuple(p), slack_rule)


def random_rule_allocation(inst: DesktopInstance, rng: np.random.Generator,
                           slack: bool = True) -> dict[tuple[int, int], list[int]] | None:
    """A random allocation respecting the rule (jobs placed one by one in random intervals)."""
    ivs = intervals_of(inst)
    alloc: dict[tuple[int, int], list[int]] = {}
    for j in rng.permutation(inst.n).tolist():
        for c in rng.permutation(len(ivs)).tolist():
            alloc.setdefault(ivs[c], []).append(j)
            if rule_ok(inst, alloc, slack):
                break
            alloc[ivs[c]].pop()
        else:
            return None
    for jobs in alloc.values():
        rng.shuffle(jobs)  # random runtime order inside an interval
    return {k: v for k, v in alloc.items() if v}


def tiny_with_optimum(count: int):
    """(seed, rule, instance, brute-force optimum) of the tiny instances 0..count-1 (2 machines,
    3 intervals, 4 jobs; the rule off for every third) that have an allocation."""
    from resilsched.instances.desktop.presets import tiny_instance

    for seed in range(count):
        rule = seed % 3 != 0
        inst = tiny_instance(seed, slack_rule=rule, max_machines=2, max_intervals=3,
                             max_jobs=4)
        expect = brute_force(inst)
        if expect is not None:
            yield seed, rule, inst, expect


def random_instance(rng: np.random.Generator, rule: bool) -> DesktopInstance:
    """Up to 3 machines of up to 6 availabilities with fractional speeds (rounding half up)."""
    speeds = [1, 2, "3/2", "7/10", 1.15, "5/4"]
    while True:
        machines = []
        for _ in range(int(rng.integers(1, 4))):
            K = int(rng.integers(2, 7))
            b = speeds[int(rng.integers(len(speeds)))]
            machines.append(Machine(b if isinstance(b, (int, float)) else Fraction(b),
                                    int(rng.integers(0, 4)),
                                    tuple(int(x) for x in rng.integers(2, 30, K)),
                                    tuple(int(x) for x in rng.integers(1, 8, K))))
        p = tuple(int(x) for x in rng.integers(1, 9, int(rng.integers(3, 9))))
        try:
            return DesktopInstance(tuple(machines), p, rule)
        except InvalidInstance:  # the longest job fits no availability: draw again
            continue


def library_optima() -> list[tuple[str, DesktopInstance, int]]:
    """(file name, instance, proven optimum) of every instance of the shipped `desktop-small`
    library, each certificate checked to be a proof of optimality."""
    folder = Path(resilsched.library.__file__).parent / "data" / "desktop-small"
    out = []
    for path in sorted(folder.glob("library-*.json")):
        record = json.loads(path.read_text())
        assert record["metadata"]["certificate"]["status"] == "optimal", path.name
        out.append((path.name, DesktopInstance.from_dict(record),
                    record["metadata"]["optimum"]))
    return out
