"""Fatal failures (spec §1.4, decision MA-21): the buddy of a struck processor fails while its
application recovers. Counted as a diagnostic only, as the spec recommends."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from resilsched.errors import InvalidSchedule
from resilsched.heuristics.malleable import HEURISTICS, noredist
from resilsched.instances.malleable import FailureTrace, tiny_instance
from resilsched.validation.malleable import validate_malleable_run


def loud(seed: int, n: int = 3, p: int = 10):
    """A tiny instance failing a few times per recovery window (mtbf / 10)."""
    inst = tiny_instance(seed, n, p)
    return inst.replace(mtbf=inst.mtbf / 10)


def noredist_fatal_oracle(inst, run) -> list[tuple[float, int, int]]:
    """Without redistribution the ids never move: application i holds the contiguous block
    after those of 0..i-1 (MA-13), so the buddy of id q is block_i + ((q - block_i) xor 1).
    A fatal failure is the first failure of that buddy in [t, t + D + R) after a failure of q
    at t struck application i."""
    start = np.concatenate([[0], np.cumsum(run.schedule.initial)])
    trace = list(run.schedule.trace)
    fatal, watch = [], {}
    struck = {(ph[5], ph[0]) for ph in run.schedule.phases if ph[6] == "failure"}
    for t, q in trace:
        got = watch.pop(q, None)
        if got is not None and t < got[1]:
            fatal.append((t, q, got[0]))
        i = int(np.searchsorted(start, q, side="right") - 1)
        if i < inst.n and (t, i) in struck:
            count = run.schedule.initial[i]
            recovered = t + inst.downtime + inst.tasks[i].m * inst.checkpoint_factor / count
            watch[int(start[i] + ((q - start[i]) ^ 1))] = (i, recovered)
    return fatal


@pytest.mark.parametrize("seed", range(6))
def test_noredist_counts_the_fatal_failures_of_the_oracle(seed):
    inst = loud(seed)
    run = noredist(inst, seed=seed)
    assert list(run.schedule.fatal) == noredist_fatal_oracle(inst, run)
    assert run.schedule.counts["fatal"] == run.extra["fatal_failures"] == len(run.schedule.fatal)


def test_every_heuristic_reports_valid_fatal_failures_and_goes_on():
    seen = 0
    for seed in range(4):
        inst = loud(seed)
        for h in HEURISTICS[:5]:
            run = h(inst, seed=seed)
            validate_malleable_run(inst, run.schedule, run.objective)
            seen += run.schedule.counts["fatal"]
            # a diagnostic only: the same run without counting would be the same run
            assert "fatal" in run.schedule.lines()[1]  # no warning line before it
    assert seen > 0


def test_the_rate_matches_the_buddy_failing_within_the_recovery():
    """Each struck failure watches one processor (rate 1/mtbf) for D + R seconds: about
    1 - exp(-(D + R)/mtbf) of the struck failures are followed by a fatal one."""
    inst = tiny_instance(2, 2, 8)
    inst = inst.replace(mtbf=inst.mtbf / 4)
    want, got, struck = 0.0, 0, 0
    for seed in range(300):
        run = noredist(inst, seed=seed)
        for ph in run.schedule.phases:
            if ph[6] == "failure":
                r = inst.downtime + inst.tasks[ph[0]].m * inst.checkpoint_factor / ph[3]
                want += -math.expm1(-r / inst.mtbf)
                struck += 1
        got += run.schedule.counts["fatal"]
    assert struck > 500
    assert abs(got - want) < 4 * math.sqrt(want), (got, want)


def test_the_validator_refuses_a_fatal_failure_that_is_not_one():
    inst = loud(1)
    run = noredist(inst, seed=1)
    assert run.schedule.fatal
    t, q, i = run.schedule.fatal[0]
    wrong = [(t, q, inst.n + 3)] + list(run.schedule.fatal[1:])
    for bad in (dataclasses.replace(run.schedule, fatal=tuple(wrong)),
                dataclasses.replace(run.schedule, fatal=((t + 0.5, q, i),)),
                dataclasses.replace(run.schedule, fatal=run.schedule.fatal[1:])):
        with pytest.raises(InvalidSchedule, match="fatal"):
            validate_malleable_run(inst, bad, run.objective)


def test_an_explicit_trace_hitting_the_buddy_is_fatal():
    inst = tiny_instance(4, 2, 8)
    first = noredist(inst, FailureTrace((), ()))
    k = first.schedule.initial[0]
    assert k >= 2
    trace = FailureTrace((1.0, 1.0 + inst.downtime / 2, 1.0 + inst.downtime / 2 + 1e-3),
                         (0, 1, 1))  # processor 0, then its buddy 1 while T0 recovers
    run = noredist(inst, trace)
    assert run.schedule.fatal == ((1.0 + inst.downtime / 2, 1, 0),)
    validate_malleable_run(inst, run.schedule, run.objective)
