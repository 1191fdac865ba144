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

import bisect
import math
from typing import Any

from resilsched.errors import InvalidSchedule

REL = 1e-7
#: relative tolerance of "at the same instant" (a redistribution at an event)
EVENT = 1e-12


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
                if nxt[3] == count:
                    raise InvalidSchedule(f"{where}: a redistribution to the same count {count}"
                                          " (RC^{j->j} = 0: no redistribution, spec §1.6)")
                struck_now = r > 0 and phases[r - 1][6] == "failure" and start == end
                if end < restart - REL * max(1.0, abs(restart)) and not struck_now:
                    raise InvalidSchedule(f"{where}: redistributed before its restart at "
                                          f"{restart:.9g} (an application still in a "
                                          "redistribution or a recovery is excluded, §3.3)")
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
    _check_events(payload.phases)
    if not payload.fault_free:
        _check_processors(payload, p, bool(opts.get("lookahead_release", True)))
    _check_capacity(intervals, p)
    _check_fatal(payload, recovering)
    if struck != payload.counts.get("failures", struck):
        raise InvalidSchedule(f"{struck} failure phases but {payload.counts['failures']} counted")
    makespan = max(payload.finish)
    if not _close(makespan, payload.makespan, horizon):
        raise InvalidSchedule(f"makespan {payload.makespan} != last end {makespan}")
    if objective is not None and not _close(objective, makespan, horizon):
        raise InvalidSchedule(f"objective {objective} != last end {makespan}")


def _check_events(phases: tuple) -> None:
    """Every redistribution happens at an event: an application's end or a struck failure
    (Def. 1.2, §1.6; a look-ahead end, A-14, is an end)."""
    events = sorted({ph[5] for ph in phases if ph[6] in ("finished", "failure")})
    for ph in phases:
        if ph[6] != "redistributed":
            continue
        t = ph[5]
        k = bisect.bisect_left(events, t - EVENT * max(1.0, abs(t)))
        if k == len(events) or events[k] > t + EVENT * max(1.0, abs(t)):
            raise InvalidSchedule(f"T{ph[0]} redistributed at t={t:.9g}, where no application "
                                  "ends and no failure strikes (redistributions happen only "
                                  "at events, Def. 1.2)")


def _check_processors(payload: Any, p: int, lookahead: bool) -> None:
    """The processor ids of a run with failures (`payload.holds`, one tuple per phase).

    Each phase holds `count` distinct ids in [0, p); a failure keeps them, a redistribution keeps
    the old ones when it grows and a subset of them when it shrinks (the data moves of (1.11));
    no id is held by two applications at once, an application's last phase holding its ids up
    to its end, or up to the struck failure that ended it in advance (A-14, when
    `lookahead`). Every failure phase is a failure of the trace on one of its ids, and every
    failure of the trace on an id held by an application that computes then (t_lastR <= t)
    struck it (A-7).
    """
    phases, holds = payload.phases, getattr(payload, "holds", ())
    if len(holds) != len(phases):
        raise InvalidSchedule(f"the run gives the processor ids of {len(holds)} of its "
                              f"{len(phases)} phases (holds; needed to check the failures, A-7)")
    by_app: dict[int, list[int]] = {}
    for j, ph in enumerate(phases):
        by_app.setdefault(ph[0], []).append(j)
    strikes = []  # (time, struck application, its restart after the failure)
    for i, js in by_app.items():
        for r, j in enumerate(js[:-1]):
            if phases[j][6] == "failure":
                strikes.append((phases[j][5], i, phases[js[r + 1]][2]))
    held: dict[int, list[tuple[float, float, float, int, int]]] = {}
    for i, js in by_app.items():
        for r, j in enumerate(js):
            _, start, restart, count, _, end, kind, _ = phases[j]
            ids = tuple(int(q) for q in holds[j])
            where = f"T{i} phase {r} [{start:.6g}, {end:.6g}]"
            if len(set(ids)) != len(ids) or len(ids) != count:
                raise InvalidSchedule(f"{where}: holds {len(set(ids))} distinct processor ids "
                                      f"for {count} processors")
            if any(not 0 <= q < p for q in ids):
                raise InvalidSchedule(f"{where}: a processor id outside [0, {p})")
            if r:
                before, now = set(holds[js[r - 1]]), set(ids)
                if phases[js[r - 1]][6] == "failure" and before != now:
                    raise InvalidSchedule(f"{where}: a failure changed the processors held")
                if not (before <= now or now <= before):
                    raise InvalidSchedule(f"{where}: a redistribution both dropped and added "
                                          "processors (the data moves of (1.11))")
            stop = end
            if kind == "finished" and lookahead:  # ended in advance of a failure
                stop = min([t for t, f, back in strikes
                            if f != i and start <= t < end <= back], default=end)
            for q in ids:
                held.setdefault(q, []).append((start, stop, restart, i, r))
    for q, spans in held.items():
        spans.sort()
        live = [x for x in spans if x[1] > x[0]]
        for a, b in zip(live, live[1:], strict=False):
            if b[0] < a[1] - EVENT * max(1.0, abs(a[1])):
                raise InvalidSchedule(f"processor {q} held by T{a[3]} and T{b[3]} at once at "
                                      f"t={b[0]:.9g}")
    _check_strikes(payload, by_app, held)


def _check_strikes(payload: Any, by_app: dict[int, list[int]],
                   held: dict[int, list[tuple[float, float, float, int, int]]]) -> None:
    """Failure phases against the trace, by processor id (see `_check_processors`)."""
    phases, holds = payload.phases, payload.holds
    left: dict[tuple[float, int], int] = {}
    for t, q in payload.trace:
        key = (round(t, 6), int(q))
        left[key] = left.get(key, 0) + 1
    for i, js in by_app.items():
        for r, j in enumerate(js):
            ph = phases[j]
            if ph[6] != "failure":
                continue
            hit = [q for q in holds[j] if left.get((round(ph[5], 6), int(q)), 0)]
            if not hit:
                raise InvalidSchedule(f"T{i} phase {r}: struck at t={ph[5]:.9g}, but no "
                                      "failure of the trace falls then on a processor it holds")
            left[(round(ph[5], 6), int(hit[0]))] -= 1
    for t, q in payload.trace:
        key = (round(t, 6), int(q))
        if not left.get(key, 0):
            continue
        left[key] -= 1
        spans = held.get(int(q), [])
        k = bisect.bisect_right(spans, (t, math.inf)) - 1
        while k >= 0 and spans[k][1] <= spans[k][0]:  # zero-length phases hold nothing
            k -= 1
        if k >= 0 and spans[k][2] <= t < spans[k][1]:
            start, _, _, i, r = spans[k]
            raise InvalidSchedule(f"failure of processor {q} at t={t:.9g} struck nothing, but "
                                  f"T{i} computed on it (phase {r}; a failure on a working "
                                  "processor strikes, A-7)")


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
