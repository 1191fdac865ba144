"""Failure traces: which processor fails when (spec 001 §1.4, §4 "fault generation", A-22).

Each processor fails following an exponential law of rate lambda = 1/mu, independently. The p
processes superpose into one Poisson process of rate p lambda whose events pick a processor
uniformly (spec §4 [REC]); a trace is that sequence of (time, processor id) pairs, ids 0-based.
It is data shared by every heuristic of a repetition (common random numbers): the simulator
maps a failure to the application that owns the processor at that time, or discards it.

- `FailureTrace`: an explicit, finite trace (the instance's ``"failures"`` or ``--failures``);
  after its last entry no processor fails.
- `DrawnTrace`: the infinite trace of a seed, drawn lazily from ``numpy.random.default_rng(seed)``
  in blocks of `BLOCK` gaps then `BLOCK` processor ids, so the same seed gives the same sequence
  however far a run reads it (decision MA-3).

Both give a `cursor()` with the next failure in ``time``/``proc`` (``inf``/-1 when none is left)
and ``advance()``; ``consumed()`` lists what a cursor has read, for the validator.

Runs that cannot finish are refused before a trace is drawn (`check_drawable`, decision MA-19,
as T9 does for the other families): a run processes every failure it meets, one event at a
time, so no trace is drawn when the applications expect more than `MAX_EXPECTED_FAILURES`
failures in all even on 2 processors (the count on which each expects the fewest), or when the
platform's p processors expect more than `MAX_TRACE_READS` failures before the longest
application could end on all of them. A trace given has at most 10^5 entries (T9).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import numpy as np

from resilsched.errors import InvalidInstance
from resilsched.instances.malleable.formulas import formulas_of
from resilsched.instances.malleable.model import (
    MalleableInstance,
    failures_expected,
    parse_failures,
)

BLOCK = 256
#: most failures the applications may expect in all before a trace is drawn (a struck failure
#: costs the simulator 0.1-0.5 ms with a policy at small n, more at large n: 10^5 is under a
#: minute)
MAX_EXPECTED_FAILURES = 10**5
#: most failures of the whole platform a drawn run may expect to read (a failure on an idle or
#: recovering processor is discarded in 2-4 us)
MAX_TRACE_READS = 10**7


@dataclass(frozen=True)
class FailureTrace:
    """An explicit trace: failure times (non-decreasing) and processor ids."""

    times: tuple[float, ...]
    procs: tuple[int, ...]

    @classmethod
    def of(cls, pairs: tuple[tuple[float, int], ...]) -> FailureTrace:
        return cls(tuple(t for t, _ in pairs), tuple(q for _, q in pairs))

    def __len__(self) -> int:
        return len(self.times)

    def to_list(self) -> list[list[float | int]]:
        return [[t, q] for t, q in zip(self.times, self.procs, strict=True)]

    def cursor(self) -> TraceCursor:
        return TraceCursor(iter(zip(self.times, self.procs, strict=True)))


@dataclass(frozen=True)
class DrawnTrace:
    """The Poisson trace of rate p / mtbf drawn from `seed` (infinite, generated on demand)."""

    p: int
    mtbf: float
    seed: int

    def cursor(self) -> TraceCursor:
        return TraceCursor(self._pairs())

    def _pairs(self):
        rng = np.random.default_rng(self.seed)
        scale = self.mtbf / self.p
        now = 0.0
        while True:
            gaps = rng.exponential(scale, BLOCK)
            procs = rng.integers(0, self.p, BLOCK)
            times = now + np.cumsum(gaps)
            now = float(times[-1])
            yield from zip(times.tolist(), procs.tolist(), strict=True)

    def prefix(self, until: float) -> FailureTrace:
        """The entries with time <= `until`, as an explicit trace."""
        times, procs = [], []
        for t, q in self._pairs():
            if t > until:
                break
            times.append(t)
            procs.append(q)
        return FailureTrace(tuple(times), tuple(procs))


class TraceCursor:
    """Reads a trace in time order: the next failure is (`time`, `proc`)."""

    __slots__ = ("_it", "time", "proc", "_read")

    def __init__(self, pairs) -> None:
        self._it = pairs
        self._read: list[tuple[float, int]] = []
        self.time = math.inf
        self.proc = -1
        self.advance()

    def advance(self) -> None:
        """Move to the next failure of the trace."""
        nxt = next(self._it, None)
        if nxt is None:
            self.time, self.proc = math.inf, -1
        else:
            self.time, self.proc = float(nxt[0]), int(nxt[1])
            self._read.append((self.time, self.proc))

    def consumed(self) -> list[tuple[float, int]]:
        """Every failure read so far (the last one may not have been processed yet)."""
        return list(self._read)


def scenario_of(instance: MalleableInstance, failures: object = None) -> FailureTrace | None:
    """The family's ``scenario`` hook: a checked trace, or None to draw one from the seed.

    `failures` is the ``--failures`` text (a JSON list ``[[time, processor], ...]``), an already
    parsed list, or None, in which case the instance's own ``"failures"`` are used if it has any.
    """
    if failures is None:
        if instance.failures is None:
            return None
        return FailureTrace.of(instance.failures)
    if isinstance(failures, FailureTrace):
        return failures
    if isinstance(failures, str):
        try:
            failures = json.loads(failures)
        except json.JSONDecodeError:
            raise InvalidInstance("--failures", f"{failures!r} is not a JSON list of "
                                                "[time, processor] pairs") from None
    pairs = parse_failures(failures, instance.p, "--failures")
    if pairs and instance.fault_free:
        raise InvalidInstance("--failures", "are given but the instance's mtbf is null "
                                            "(no failures)")
    return FailureTrace.of(pairs)


def trace_for(instance: MalleableInstance, scenario: FailureTrace | None, seed: int):
    """The trace a run reads: `scenario` if given, none without failures, else `DrawnTrace`
    (refused by `check_drawable` when the run could not finish)."""
    if scenario is not None:
        return scenario
    if instance.fault_free:
        return FailureTrace((), ())
    check_drawable(instance)
    return DrawnTrace(instance.p, float(instance.mtbf), int(seed))


def expected_failures(instance: MalleableInstance) -> np.ndarray:
    """E_i: the failures T_i expects when it runs all its work on 2 processors, by (1.6)'s
    segments, N^ff (e^{x tau} - 1) + e^{x tau_last} - 1 with x = 2 lambda. Running on k
    processors it expects about lambda k t^R, which grows with the work k t_{i,k} (1.2) and with
    lambda k tau (beta > 0), so 2 processors give about the fewest."""
    F = formulas_of(instance)
    idx, two = np.arange(instance.n), np.full(instance.n, 2)
    return failures_expected(F.t(idx, two), F.ckpt(idx, two), F.tau(idx, two), 2.0 * F.lam)


def check_drawable(instance: MalleableInstance) -> None:
    """Refuse, in one line, to draw a trace for a run that cannot finish (module doc)."""
    if instance.fault_free:
        return
    e = expected_failures(instance)
    if not float(e.sum()) <= MAX_EXPECTED_FAILURES:
        i = int(np.argmax(e))
        F = formulas_of(instance)
        per = float(np.expm1(2.0 * F.lam * F.tau(np.array([i]), 2)[0]))
        raise InvalidInstance(
            f"tasks[{i}]", f"expects {float(e[i]):.3g} failures even on 2 processors "
            f"({per:.3g} per checkpoint period; {float(e.sum()):.3g} for all the applications): "
            f"no failure trace is drawn beyond {MAX_EXPECTED_FAILURES:.0e} expected failures "
            "(decision MA-19); give a shorter trace with --failures or a larger mtbf")
    F = formulas_of(instance)
    longest = float(F.t(np.arange(instance.n), np.full(instance.n, instance.p_even)).max())
    reads = instance.p * F.lam * longest
    if reads > MAX_TRACE_READS:
        raise InvalidInstance(
            "mtbf", f"={float(instance.mtbf):g} makes the p={instance.p} processors fail "
            f"{reads:.3g} times (p t / mtbf) before the longest application could end on all "
            f"of them (t = {longest:.4g} s): no failure trace is drawn beyond "
            f"{MAX_TRACE_READS:.0e} expected failures (decision MA-19)")


def no_qbar(instance: MalleableInstance, qbar: float, seed: int):
    """``--qbar`` has no meaning here: traces come from the instance's mtbf and ``--seed``."""
    raise InvalidInstance("--qbar", "has no meaning for malleable instances: the failure trace is "
                                    "drawn from the instance's mtbf with --seed (or give "
                                    "--failures)")
