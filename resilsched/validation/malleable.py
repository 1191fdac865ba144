"""Simulated runs of malleable applications (spec 001 §1.4-1.6, §3.3).

Checks a run's phases (`heuristics.malleable.RunPayload`) against the model, recomputing every
quantity with its own scalar formulas (no code shared with the simulator):

- each application's phases follow each other from t = 0 (alpha = 1, t_lastR = 0), on even
  counts in [2, p] (any count in [1, p] for a fault-free run with ``step = 1``, A-18);
- a redistribution happens at an event, an application's end (look-ahead ends included, A-14)
  or a struck failure (Def. 1.2), changes the count (RC^{j->j} = 0: no redistribution, §1.6)
  and does not fall inside an earlier redistribution or recovery (t >= t_lastR, §3.3) except
  for the struck application at its failure (decision MA-26);
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
- with failures, the processor ids (`RunPayload.transfers`, replayed in time order): each
  application takes its ids at t = 0 and then takes or gives back ids (never both) at each of
  its redistributions only, holding its phase's count; an id is taken only when idle and held
  until the application's end, or the struck failure that ended it in advance (A-14); every
  failure phase is a failure of the trace on an id it holds, and every failure of the trace on
  an id held by an application that computes then (t_lastR <= t < end) struck it (A-7,
  MA-26);
- each fatal failure listed (the buddy of a struck processor failed while its application
  recovered, MA-21) is a failure of the trace inside D + R after a failure of that
  application, and the count matches the list;
- the makespan is the last end, and the failures the run read are the case's trace (the
  scenario given, or the instance's) up to it (MA-26).

Raises `InvalidSchedule` naming the first broken rule.
"""

from __future__ import annotations

import bisect
import math
from typing import Any

import numpy as np

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


def validate_malleable_run(inst: Any, payload: Any, objective: float | None = None,
                           scenario: Any = None) -> None:
    """Check `payload` (a RunPayload) on `inst`; see the module docstring.

    `scenario` is the case's failure trace (``times``/``procs``, or ``(time, processor)``
    pairs); None means the instance's own when the run says it read it
    (``trace_source='instance'``), else the trace is not compared (one drawn from a seed)."""
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
    if not payload.fault_free:
        if scenario is None and payload.trace_source == "instance":
            scenario = inst.failures
        if scenario is not None:
            _check_trace(payload.trace, scenario, makespan)


def _check_trace(read: tuple, scenario: Any, makespan: float) -> None:
    """The failures the run read are the case's trace up to the makespan: a run reads every
    failure before its last end (the simulator's events, §3.3), and may have looked at the next
    one."""
    if hasattr(scenario, "times"):
        scenario = zip(scenario.times, scenario.procs, strict=True)
    ref = [(float(t), int(q)) for t, q in scenario]
    tol = EVENT * max(1.0, abs(makespan))
    before = sum(t < makespan - tol for t, _ in ref)
    if not before <= len(read) <= sum(t < makespan + tol for t, _ in ref) + 1:
        raise InvalidSchedule(f"the run read {len(read)} failures; the trace has {before} "
                              f"before its makespan {makespan:.9g} (a run reads them all)")
    for k, ((t, q), (t2, q2)) in enumerate(zip(read, ref, strict=False)):
        if int(q) != q2 or abs(float(t) - t2) > EVENT * max(1.0, abs(t2)):
            raise InvalidSchedule(f"failure {k} the run read, processor {q} at t={t:.9g}, is "
                                  f"not the trace's (processor {q2} at t={t2:.9g})")


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
    """The processor ids of a run with failures, replayed from `payload.transfers` in time order.

    Each application takes its ids at t = 0 and then takes or gives back ids (never both) at each
    of its redistributions and only then (the data moves of (1.11)), holding as many as its
    phase's count; an id is taken only when idle; an application holds its ids up to its end,
    or up to the struck failure that ended it in advance (A-14, when `lookahead`). Every failure
    phase is a failure of the trace on an id it holds, and every failure of the trace on an id
    held by an application that computes then (t_lastR <= t < end) struck it (A-7).
    """
    phases = payload.phases
    transfers = getattr(payload, "transfers", ())
    if not transfers:
        raise InvalidSchedule("the run gives no processor transfers (needed to check which "
                              "failures strike, A-7)")
    by_app: dict[int, list[tuple]] = {}
    for ph in phases:
        by_app.setdefault(ph[0], []).append(ph)
    want: dict[int, list[tuple[float, int]]] = {}  # per transfer: its time, the count after it
    strikes = []  # (time, struck application, its restart after the failure, phase)
    for i, phs in by_app.items():
        want[i] = [(0.0, phs[0][3])]
        for r, ph in enumerate(phs[:-1]):
            if ph[6] == "redistributed":
                want[i].append((ph[5], phs[r + 1][3]))
            elif ph[6] == "failure":
                strikes.append((ph[5], i, phs[r + 1][2], r))
    ends = {phs[-1][5] for phs in by_app.values()}
    events: list[tuple] = []
    for seq, (t, i, taken, given) in enumerate(transfers):
        if bool(taken) == bool(given) or i not in by_app:
            raise InvalidSchedule(f"transfer {seq} (T{i} at t={t:.9g}) must take or give back "
                                  "processors, not both (the data moves of (1.11))")
        events.append((float(t), 2 if taken else 1, seq, "move", i, taken or given))
    for i, phs in by_app.items():
        start, end = phs[-1][1], phs[-1][5]
        stop = end
        if lookahead:  # ended in advance of a failure, which sees its last phase: one
            # that starts at the failure was made by its FAIL policy, after the look-ahead,
            # unless an application ended then too (ends come first, A-31)
            stop = min([t for t, f, back, _ in strikes if f != i and t < end <= back
                        and (start < t or (start == t and t in ends))], default=end)
        events.append((stop, 1, -1, "release", i, ()))
    for t, f, _, r in strikes:
        events.append((t, 0, r, "strike", f, ()))
    for k, (t, q) in enumerate(payload.trace):
        events.append((float(t), 3, k, "failure", int(q), ()))
    events.sort(key=lambda e: e[:3])
    at: dict[float, list[int]] = {}
    left: dict[tuple[float, int], int] = {}
    for t, q in payload.trace:
        key = (round(t, 6), int(q))
        at.setdefault(key[0], []).append(key[1])
        left[key] = left.get(key, 0) + 1
    starts = {i: [ph[1] for ph in phs] for i, phs in by_app.items()}
    owner = np.full(p, -1, dtype=np.int64)
    count = dict.fromkeys(by_app, 0)
    step = dict.fromkeys(by_app, 0)
    got: dict[int, list[np.ndarray]] = {i: [] for i in by_app}
    for t, prio, seq, what, x, ranges in events:
        if what == "move":
            _move(owner, x, t, _expand(ranges, p, seq), prio == 2, want[x], step, count, got)
        elif what == "release":
            if step[x] != len(want[x]):
                raise InvalidSchedule(f"T{x}: {step[x]} processor transfers for its "
                                      f"{len(want[x])} allocations (one at t=0, one per "
                                      "redistribution)")
            ids = np.concatenate(got[x]) if got[x] else np.zeros(0, dtype=np.int64)
            owner[ids[owner[ids] == x]] = -1
        elif what == "strike":
            key = round(t, 6)
            hit = [q for q in at.get(key, []) if left[(key, q)] and owner[q] == x]
            if not hit:
                raise InvalidSchedule(f"T{x} phase {seq}: struck at t={t:.9g}, but no failure of "
                                      "the trace falls then on a processor it holds")
            left[(key, hit[0])] -= 1
        else:
            key = (round(t, 6), x)
            if not left[key]:
                continue  # it struck
            left[key] -= 1
            i = int(owner[x]) if 0 <= x < p else -1
            if i >= 0:
                r = bisect.bisect_right(starts[i], t) - 1
                ph = by_app[i][r]
                if ph[2] <= t < ph[5]:
                    raise InvalidSchedule(f"failure of processor {x} at t={t:.9g} struck nothing,"
                                          f" but T{i} computed on it (phase {r}; a failure on a "
                                          "working processor strikes, A-7)")


def _expand(ranges: tuple, p: int, seq: int) -> np.ndarray:
    """The distinct ids of ranges ``(first, last)``."""
    parts, top = [], -1
    for first, last in sorted((int(a), int(b)) for a, b in ranges):
        if not 0 <= first <= last < p or first <= top:
            raise InvalidSchedule(f"transfer {seq}: ids {first}..{last} outside [0, {p}) or "
                                  "given twice")
        top = last
        parts.append(np.arange(first, last + 1, dtype=np.int64))
    return np.concatenate(parts)


def _move(owner: np.ndarray, i: int, t: float, ids: np.ndarray, taken: bool,
          want: list[tuple[float, int]], step: dict[int, int], count: dict[int, int],
          got: dict[int, list[np.ndarray]]) -> None:
    """Apply one transfer of application i at t (see `_check_processors`)."""
    k = step[i]
    if k == len(want) or abs(t - want[k][0]) > EVENT * max(1.0, abs(t)):
        raise InvalidSchedule(f"T{i}: processors moved at t={t:.9g}, not at t=0 or at one of "
                              "its redistributions")
    if taken:
        busy = ids[owner[ids] != -1]
        if busy.size:
            q = int(busy[0])
            raise InvalidSchedule(f"processor {q} taken by T{i} at t={t:.9g} while it is not "
                                  f"idle (held by T{int(owner[q])})")
        owner[ids] = i
        count[i] += ids.size
        got[i].append(ids)
    else:
        if (owner[ids] != i).any():
            raise InvalidSchedule(f"T{i} gives back at t={t:.9g} a processor it does not hold")
        owner[ids] = -1
        count[i] -= ids.size
    if count[i] != want[k][1]:
        raise InvalidSchedule(f"T{i} holds {count[i]} processors after t={t:.9g}, its phase "
                              f"{want[k][1]}")
    step[i] = k + 1


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
