"""Simulated runs of malleable applications (spec 001 §1.4-1.6, §3.3).

Checks a run's phases (`heuristics.malleable.RunPayload`) against the model, recomputing every
quantity with its own scalar formulas (no code shared with the simulator):

- each application's phases follow each other from t = 0 (alpha = 1, t_lastR = 0), on even
  counts in [2, p] (any count in [1, p] for a fault-free run with ``step = 1``, A-18);
- a phase that ends by a redistribution counted the work done since t_lastR (1.10, literal or
  clamped, A-9; elapsed / t without failures), and the next one restarts after
  RC (1.11) + the checkpoint C_{i,k} (none without failures), plus D + R if the application had
  just been struck;
- a phase that ends by a failure keeps only its whole checkpointed periods, the failure is in
  the trace the run read and struck a working application, and the next phase restarts after
  D + R on the same count;
- the last phase ends at the realized end t_lastR + alpha t + N^ff C (A-6; t^U with
  ``end_mode='expected'``);
- at every instant the applications compute on at most p processors (the physical load,
  decision MA-14): an application occupies the count of each phase from its start to its end,
  the last one to its realized end (an application that ends in advance of a failure, A-14,
  still computes until then, whenever its processors were released to the simulator's pool),
  and one struck and given a new count at the same event recovers on its old count for
  D + R before it takes the new one;
- each fatal failure listed (the buddy of a struck processor failed while its application
  recovered, MA-21) is a failure of the trace inside D + R after a failure of that
  application, and the count matches the list;
- the makespan is the last end.

Raises `InvalidSchedule` naming the first broken rule.
"""

from __future__ import annotations

import math
from typing import Any

from resilsched.errors import InvalidSchedule

REL = 1e-7


def _close(a: float, b: float, scale: float = 1.0) -> bool:
    return abs(a - b) <= REL * max(1.0, abs(a), abs(b), scale)


class _Model:
    """The instance's costs, computed here in scalar form."""

    def __init__(self, inst: Any, fault_free: bool) -> None:
        self.inst = inst
        self.ff = fault_free
        self.mu = None if fault_free else float(inst.mtbf)
        self.M = [float(t.m) * float(inst.checkpoint_factor) for t in inst.tasks]

    def t(self, i: int, k: int) -> float:
        return self.inst.time(i, k)

    def c(self, i: int, k: int) -> float:
        return self.M[i] / k + float(self.inst.beta)

    def tau(self, i: int, k: int) -> float:
        c = self.c(i, k)
        if self.inst.period == "young":
            return math.sqrt(2.0 * self.mu / k * c) + c
        return math.sqrt(2.0 * self.mu / k * c + c)

    def rc(self, i: int, j: int, k: int) -> float:
        if j == k:
            return 0.0
        return float(self.inst.S) + max(min(j, k), abs(k - j)) * (
            self.M[i] / (j * k) + float(self.inst.beta))

    def done_running(self, i: int, j: int, delta: float, clamp: bool) -> float:
        if self.ff:
            return delta / self.t(i, j)
        c, tau = self.c(i, j), self.tau(i, j)
        n = math.floor(delta / tau)
        if clamp:
            return (n * (tau - c) + min(delta - n * tau, tau - c)) / self.t(i, j)
        return (delta - n * c) / self.t(i, j)

    def done_failed(self, i: int, j: int, delta: float) -> float:
        c, tau = self.c(i, j), self.tau(i, j)
        return math.floor(delta / tau) * (tau - c) / self.t(i, j)

    def end(self, i: int, k: int, alpha: float, expected: bool) -> float:
        at = alpha * self.t(i, k)
        if self.ff:
            return at
        c, tau = self.c(i, k), self.tau(i, k)
        w = tau - c
        n = math.floor(at / w)
        if not expected:
            return at + n * c
        lam = 1.0 / self.mu
        x = lam * k
        last = max(at - n * w, 0.0)
        return math.exp(x * c) * (1.0 / x + float(self.inst.downtime)) * (
            n * math.expm1(x * tau) + math.expm1(x * last))


def validate_malleable_run(inst: Any, payload: Any, objective: float | None = None) -> None:
    """Check `payload` (a RunPayload) on `inst`; see the module docstring."""
    n, p = inst.n, inst.p
    opts = payload.options
    clamp = opts.get("progress", "clamp") == "clamp"
    expected = opts.get("end_mode", "realized") == "expected"
    unit = 1 if opts.get("step", 2) == 1 and payload.fault_free else 2
    model = _Model(inst, payload.fault_free)
    horizon = max(payload.finish) if payload.finish else 0.0
    by_app: list[list[tuple]] = [[] for _ in range(n)]
    for ph in payload.phases:
        i = ph[0]
        if not 0 <= i < n:
            raise InvalidSchedule(f"phase of unknown application {i}")
        by_app[i].append(ph)
    trace = {round(t, 6) for t, _ in payload.trace}
    struck = 0
    intervals = []
    recovering: list[list[tuple[float, float]]] = [[] for _ in range(n)]  # failure, recovered
    for i, phases in enumerate(by_app):
        if not phases:
            raise InvalidSchedule(f"T{i} has no phase")
        recover = None  # (until, count): struck and moved at one event, recovering first
        _, start, restart, count, alpha, _, _, _ = phases[0]
        if start != 0.0 or restart != 0.0 or not _close(alpha, 1.0):
            raise InvalidSchedule(f"T{i} does not start at t=0 with all its work")
        for r, ph in enumerate(phases):
            _, start, restart, count, alpha, end, kind, done = ph
            where = f"T{i} phase {r} [{start:.6g}, {end:.6g}]"
            if count % unit or not unit <= count <= p:
                what = "even, in [2" if unit == 2 else "in [1"
                raise InvalidSchedule(f"{where}: {count} processors ({what}, {p}])")
            if end < start - REL * max(1.0, abs(start)):
                raise InvalidSchedule(f"{where}: ends before it starts")
            if alpha < -REL or alpha > 1 + REL:
                raise InvalidSchedule(f"{where}: remaining fraction {alpha} outside [0, 1]")
            last = r == len(phases) - 1
            if recover is not None:
                mid = min(max(recover[0], start), end)
                intervals += [(start, mid, recover[1]), (mid, end, count)]
                recover = None
            else:
                intervals.append((start, end, count))
            if kind == "finished":
                if not last:
                    raise InvalidSchedule(f"{where}: finished before its last phase")
                want = restart + model.end(i, count, alpha, expected)
                if not _close(end, want, horizon):
                    raise InvalidSchedule(f"{where}: ends at {end:.9g}, the model says "
                                          f"{want:.9g}")
                if not _close(payload.finish[i], end, horizon):
                    raise InvalidSchedule(f"T{i}: finish {payload.finish[i]} != {end}")
                if payload.released[i] > end + REL * max(1.0, end):
                    raise InvalidSchedule(f"T{i}: processors released after its end")
                continue
            if last:
                raise InvalidSchedule(f"{where}: the last phase must be 'finished', not {kind}")
            nxt = phases[r + 1]
            if not _close(nxt[1], end, horizon):
                raise InvalidSchedule(f"{where}: next phase starts at {nxt[1]}")
            delta = end - restart
            if kind == "failure":
                struck += 1
                if payload.fault_free:
                    raise InvalidSchedule(f"{where}: a failure in a fault-free run")
                if delta < -REL * max(1.0, end):
                    raise InvalidSchedule(f"{where}: struck before its restart (A-7)")
                if round(end, 6) not in trace:
                    raise InvalidSchedule(f"{where}: failure at {end} is not in the trace")
                want = model.done_failed(i, count, max(delta, 0.0))
                restart_next = end + float(inst.downtime) + model.c(i, count)
                recovering[i].append((end, restart_next))
                if nxt[3] != count:
                    raise InvalidSchedule(f"{where}: a failure changed the count")
            elif kind == "redistributed":
                want = model.done_running(i, count, delta, clamp) if delta > 0 else 0.0
                extra = 0.0
                if start == end and restart > start:  # struck at this very event
                    extra = restart - start
                    if not payload.fault_free and not _close(
                            extra, float(inst.downtime) + model.c(i, count), horizon):
                        raise InvalidSchedule(f"{where}: downtime + recovery {extra}")
                    recover = (end + extra, count)
                k = nxt[3]
                ckpt = 0.0 if payload.fault_free else model.c(i, k)
                restart_next = end + extra + model.rc(i, count, k) + ckpt
            else:
                raise InvalidSchedule(f"{where}: unknown end {kind!r}")
            want = min(want, alpha)  # work beyond what is left is not counted
            if not _close(done, want, 1.0):
                raise InvalidSchedule(f"{where}: counted {done:.12g} of the work done, the "
                                      f"model says {want:.12g}")
            if not _close(nxt[4], max(0.0, alpha - want), 1.0):
                raise InvalidSchedule(f"{where}: remaining {nxt[4]:.12g} != {alpha - want:.12g}")
            if not _close(nxt[2], restart_next, horizon):
                raise InvalidSchedule(f"{where}: next restart {nxt[2]:.9g}, the model says "
                                      f"{restart_next:.9g}")
    _check_capacity(intervals, p)
    _check_fatal(payload, recovering)
    if struck != payload.counts.get("failures", struck):
        raise InvalidSchedule(f"{struck} failure phases but {payload.counts['failures']} counted")
    makespan = max(payload.finish)
    if not _close(makespan, payload.makespan, horizon):
        raise InvalidSchedule(f"makespan {payload.makespan} != last end {makespan}")
    if objective is not None and not _close(objective, makespan, horizon):
        raise InvalidSchedule(f"objective {objective} != last end {makespan}")


def _check_fatal(payload: Any, recovering: list[list[tuple[float, float]]]) -> None:
    """Every fatal failure listed is in the trace and inside a recovery of its application."""
    fatal = getattr(payload, "fatal", ())
    if len(fatal) != payload.counts.get("fatal", len(fatal)):
        raise InvalidSchedule(f"{len(fatal)} fatal failures listed but "
                              f"{payload.counts['fatal']} counted")
    read = {(round(t, 6), q) for t, q in payload.trace}
    for t, q, i in fatal:
        if (round(t, 6), q) not in read:
            raise InvalidSchedule(f"fatal failure of processor {q} at {t} is not in the trace")
        if not 0 <= i < len(recovering) or not any(a - REL * max(1.0, a) <= t < b
                                                   for a, b in recovering[i]):
            raise InvalidSchedule(f"fatal failure at {t}: T{i} was not recovering then")


def _check_capacity(intervals: list[tuple[float, float, int]], p: int) -> None:
    """At every instant the occupied counts sum to <= p (ends before starts at equal times)."""
    events = []
    for s, e, k in intervals:
        if e > s:
            events.append((s, 1, k))
            events.append((e, 0, -k))
    events.sort()
    held = 0
    for t, _, d in events:
        held += d
        if held > p:
            raise InvalidSchedule(f"{held} processors busy at t={t:.9g} > p={p} (the physical "
                                  "load, MA-14)")
