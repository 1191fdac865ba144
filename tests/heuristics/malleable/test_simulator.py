"""The simulator (spec §3.3): invariants on validated runs, determinism, common random numbers,
lambda = 0, and every option."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from resilsched.errors import InvalidInstance, InvalidSchedule
from resilsched.heuristics.malleable import (
    HEURISTICS,
    endgreedy_ig,
    endgreedy_saf,
    endlocal_ig,
    endlocal_saf,
    ff_endgreedy,
    ff_endlocal,
    ff_noredist,
    noredist,
)
from resilsched.heuristics.malleable.state import RunState
from resilsched.instances.malleable import FailureTrace, paper_instance, tiny_instance
from resilsched.validation.malleable import validate_malleable_run

FAULTY = (endlocal_saf, endlocal_ig, endgreedy_saf, endgreedy_ig)


def small(seed: int, **kw):
    """A scaled-down paper instance with a few dozen failures per run."""
    return paper_instance(seed, 12, 96, mtbf_years=kw.pop("years", 1.0), **kw)


def check(inst, res):
    validate_malleable_run(inst, res.schedule, res.objective)
    alphas = {}
    for app, _, _, count, alpha, _, _, _ in res.schedule.phases:
        assert count % 2 == 0 and count >= 2
        assert alpha <= alphas.get(app, 1.0) + 1e-12  # progress is monotone
        alphas[app] = alpha


@pytest.mark.parametrize("seed", range(4))
def test_every_heuristic_gives_valid_runs(seed):
    for inst in (small(seed), tiny_instance(seed, 3, 10), small(seed, years=None)):
        for h in HEURISTICS:
            res = h(inst, seed=seed)
            check(inst, res)
            assert res.objective == max(res.schedule.finish)


OPTIONS = {"end_mode": ["realized", "expected"], "progress": ["clamp", "literal"],
           "baseline": ["stale", "fresh"], "improve_rule": ["lookahead", "strict_step"],
           "on_stuck": ["stop", "skip"], "lookahead_release": [True, False],
           "lookahead_pool": ["faulty_only", "at_end"], "refill": [False, True]}


@pytest.mark.parametrize("name", list(OPTIONS))
def test_each_option_gives_valid_runs(name):
    inst = small(5)
    for value, h in itertools.product(OPTIONS[name], FAULTY + (ff_endgreedy,)):
        check(inst, h(inst, seed=2, **{name: value}))


def test_same_seed_same_run_and_a_shared_trace():
    inst = small(1)
    a, b = endgreedy_ig(inst, seed=9), endgreedy_ig(inst, seed=9)
    assert a.schedule.to_dict() == b.schedule.to_dict()
    assert endgreedy_ig(inst, seed=10).schedule.trace != a.schedule.trace
    traces = [h(inst, seed=9).schedule.trace for h in FAULTY + (noredist,)]
    shortest = min(len(t) for t in traces)
    assert shortest > 5 and all(t[:shortest] == traces[0][:shortest] for t in traces)


def test_explicit_trace_is_replayed():
    inst = small(2)
    drawn = noredist(inst, seed=4)
    trace = FailureTrace(tuple(t for t, _ in drawn.schedule.trace),
                         tuple(q for _, q in drawn.schedule.trace))
    again = noredist(inst, trace, seed=123)
    assert again.objective == drawn.objective and again.extra["trace_source"] == "given"


def test_lambda_zero_failure_heuristics_do_nothing():
    inst = small(3, years=None)
    assert endlocal_saf(inst).objective == endlocal_ig(inst).objective \
        == ff_endlocal(inst).objective
    assert endgreedy_saf(inst).objective == endgreedy_ig(inst).objective \
        == ff_endgreedy(inst).objective
    for h in FAULTY:
        assert h(inst).schedule.counts["fail_calls"] == 0
    # an empty trace: no failure, so no FAIL call either
    faulty = small(3)
    assert endgreedy_ig(faulty, FailureTrace((), ())).schedule.counts["fail_calls"] == 0


def test_lambda_zero_without_redistribution_is_max_t():
    inst = small(4, years=None)
    res = ff_noredist(inst)
    sigma = res.schedule.initial
    assert res.objective == pytest.approx(max(inst.time(i, k) for i, k in enumerate(sigma)))
    assert noredist(inst).objective == res.objective


def test_processors_are_conserved_and_counts_even(monkeypatch):
    seen = []
    real = RunState.commit

    def commit(self, idx, k, a, restart, t, kind="redistributed"):
        before = self.tU[idx].copy()
        grew = k > self.sigma[idx]
        real(self, idx, k, a, restart, t, kind)
        assert self.free >= 0 and self.free + int(self.sigma.sum()) <= self.inst.p
        assert np.all(self.sigma[self.running] % 2 == 0)
        seen.append((before[grew], self.tU[idx][grew]))
    monkeypatch.setattr(RunState, "commit", commit)
    inst = small(6)
    for h in FAULTY + (ff_endlocal, ff_endgreedy):
        h(inst, seed=1)
    # a committed redistribution lowers the recipient's estimate
    assert seen and all(np.all(after < before) for before, after in seen)


def test_lookahead_pool_modes():
    """A-14: the three pools coincide without look-ahead releases; 'faulty_only' gives T_f the
    released processors and holds the rest, so it differs from both others on some runs."""
    differs = set()
    for seed in range(6):
        inst = small(seed)
        for h in FAULTY:
            runs = {m: h(inst, seed=seed, lookahead_pool=m, lookahead_release=False).objective
                    for m in ("any", "at_end", "faulty_only")}
            assert len(set(runs.values())) == 1
            runs = {m: h(inst, seed=seed, lookahead_pool=m).objective
                    for m in ("any", "at_end", "faulty_only")}
            if runs["faulty_only"] != runs["any"]:
                differs.add("any")
            if runs["faulty_only"] != runs["at_end"]:
                differs.add("at_end")
    assert differs == {"any", "at_end"}


def _busy_peak(res) -> int:
    """Most processors computing at once, from the phases (the validator's rule, written
    again): each phase's count from its start to its end; an application struck and moved at
    one event (a zero-length phase restarting later) keeps its old count for D + R."""
    events = []
    prev = None
    for ph in sorted(res.schedule.phases, key=lambda ph: (ph[0], ph[1], ph[5])):
        app, start, restart, count, _, end, kind, _ = ph
        split = start
        if prev is not None and prev[0] == app and prev[1] == prev[5] == start \
                and prev[6] == "redistributed" and prev[2] > start:
            split = min(prev[2], end)  # recovering on the old count until D + R
            events += [(start, prev[3]), (split, -prev[3])]
        events += [(split, count), (end, -count)]
        prev = ph
    peak = busy = 0
    for _, d in sorted(events, key=lambda e: (e[0], e[1] > 0)):
        busy += d
        peak = max(peak, busy)
    return peak


def test_the_literal_pool_computes_on_more_than_p_and_is_rejected():
    """MA-9/MA-14: with 'any' (A-14's literal reading) an application ending in advance of a
    failure gives its processors away while it still computes: the physical load exceeds p and
    the validator refuses the run. The default 'faulty_only' stays within p, the makespan
    moving by a hair."""
    inst = paper_instance(8, 12, 96, mtbf_years=1.0)
    old = endlocal_saf(inst, seed=0, lookahead_pool="any")
    assert _busy_peak(old) > inst.p
    with pytest.raises(InvalidSchedule, match="busy .* > p=96"):
        validate_malleable_run(inst, old.schedule, old.objective)
    new = endlocal_saf(inst, seed=0)
    assert new.schedule.options["lookahead_pool"] == "faulty_only"
    validate_malleable_run(inst, new.schedule, new.objective)
    assert _busy_peak(new) <= inst.p
    assert new.objective == pytest.approx(old.objective, rel=0.01)


def test_the_physical_load_stays_within_p_by_default():
    for seed in range(4):
        for inst in (small(seed), paper_instance(seed, 20, 120, mtbf_years=1.0)):
            for h in FAULTY + (noredist,):
                assert _busy_peak(h(inst, seed=seed)) <= inst.p


def _unit_greedy_makespan(inst) -> float:
    """Fault-free, no redistribution, in steps of one processor (A-18), written plainly: 1 each,
    then one processor at a time to the longest application while some count within the idle
    ones is faster ('lookahead', stop when the longest cannot improve)."""
    k = [1] * inst.n
    free = inst.p - inst.n
    while free >= 1:
        top = max(range(inst.n), key=lambda i: (inst.time(i, k[i]), -i))
        better = [q for q in range(k[top] + 1, k[top] + free + 1)
                  if inst.time(top, q) < inst.time(top, k[top])]
        if not better:
            break
        free -= better[0] - k[top]
        k[top] = better[0]
    return max(inst.time(i, k[i]) for i in range(inst.n))


def test_step_one_in_the_fault_free_context():
    """A-18 step = 1: valid runs with odd counts, FF-NOREDIST equal to the plain unit greedy,
    refused where failures strike."""
    odd = False
    for seed in range(4):
        for inst in (small(seed), tiny_instance(seed, 3, 10)):
            want = _unit_greedy_makespan(inst)
            got = ff_noredist(inst, seed=seed, step=1)
            assert got.objective == pytest.approx(want, rel=1e-12)
            for h in (ff_noredist, ff_endlocal, ff_endgreedy):
                res = h(inst, seed=seed, step=1)
                validate_malleable_run(inst, res.schedule, res.objective)
                odd |= any(ph[3] % 2 for ph in res.schedule.phases)
    assert odd
    with pytest.raises(InvalidInstance, match="step"):
        endlocal_saf(small(0), seed=1, step=1)
    with pytest.raises(InvalidInstance, match="step"):
        ff_endlocal(small(0), seed=1, step=3)
    fault_free = small(0, years=None)  # no failures at all: every heuristic may use step 1
    validate_malleable_run(fault_free, endgreedy_ig(fault_free, step=1).schedule)


def test_expected_ends_count_no_more_work_than_is_left():
    """MA-15: with end_mode='expected' an application may be struck after its work is done;
    the failure phase counts at most the work left (these runs were refused before)."""
    for s in (6, 8, 12, 16):
        inst = tiny_instance(s, 2 + s % 4, 8 + 2 * (s % 6))
        for h in FAULTY + (noredist,):
            for seed in (0, 1):
                check(inst, h(inst, seed=seed, end_mode="expected"))
