"""The malleable validator's rules on processor ids and events (decision MA-26): tampered runs
that ignore a failure on a working processor, claim a strike elsewhere, hold ids twice, or
redistribute where no event happens are refused; every registered heuristic's and
CLAIRVOYANT's runs still pass."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from resilsched.checked import run_checked
from resilsched.errors import InvalidSchedule
from resilsched.heuristics.malleable import ff_endgreedy, noredist
from resilsched.heuristics.malleable.clairvoyant import clairvoyant
from resilsched.instances.malleable import FailureTrace, paper_instance, tiny_instance
from resilsched.plugin import Case, Heuristic
from resilsched.registry import get_family
from resilsched.validation import malleable as V
from resilsched.validation.malleable import validate_malleable_run

FAM = get_family("malleable")
NONE = FailureTrace((), ())


def _first_id(run, i: int) -> int:
    """The first processor id application i takes at t = 0."""
    return next(ranges[0][0] for t, app, ranges, _ in run.transfers if app == i)


def _working(run, i: int) -> tuple[float, int, int]:
    """A time in the middle of application i's first phase, one of its ids and another
    application's id (the first phase of every application starts working at t = 0)."""
    end = next(ph[5] for ph in run.phases if ph[0] == i)
    return end / 2, _first_id(run, i), _first_id(run, 1 - i)


def test_a_run_that_ignores_a_failure_on_a_working_processor_is_refused():
    inst = tiny_instance(3, 2, 8)
    run = noredist(inst, NONE).schedule  # no failure struck, ids tracked
    t, q, _ = _working(run, 0)
    validate_malleable_run(inst, run)
    tampered = dataclasses.replace(run, trace=((t, q),))  # the trace read had a failure then
    with pytest.raises(InvalidSchedule, match="struck nothing, but T0 computed on it"):
        validate_malleable_run(inst, tampered)
    # the honest run on that trace strikes T0 and is valid
    honest = noredist(inst, FailureTrace((t,), (q,)))
    assert honest.schedule.counts["failures"] == 1
    validate_malleable_run(inst, honest.schedule, honest.objective)
    assert honest.objective > max(run.finish)


def test_a_strike_on_a_processor_the_application_does_not_hold_is_refused():
    inst = tiny_instance(3, 2, 8)
    t, q, q_other = _working(noredist(inst, NONE).schedule, 0)
    run = noredist(inst, FailureTrace((t,), (q,))).schedule
    validate_malleable_run(inst, run)
    moved = dataclasses.replace(run, trace=((t, q_other),))  # T1's processor failed, not T0's
    with pytest.raises(InvalidSchedule, match="no failure of the trace falls then on a "
                                              "processor it holds"):
        validate_malleable_run(inst, moved)


def test_processor_transfers_are_checked():
    inst = tiny_instance(3, 2, 8)
    t, q, q1 = _working(noredist(inst, NONE).schedule, 0)
    run = noredist(inst, FailureTrace((t,), (q,))).schedule
    validate_malleable_run(inst, run)
    tr = list(run.transfers)
    k0 = next(k for k, x in enumerate(tr) if x[1] == 0)
    k1 = next(k for k, x in enumerate(tr) if x[1] == 1)

    def refused(transfers, match):
        with pytest.raises(InvalidSchedule, match=match):
            validate_malleable_run(inst, dataclasses.replace(run, transfers=tuple(transfers)))

    refused((), "no processor transfers")
    (a, b), *rest = tr[k1][2]
    bad = tr[:]  # T1 takes T0's first id instead of its own first one
    bad[k1] = (0.0, 1, ((q, q), *(((a + 1, b),) if b > a else ()), *rest), ())
    refused(bad if k1 > k0 else bad[::-1], "not idle")
    short = tr[:]
    short[k0] = (0.0, 0, ((q + 1, tr[k0][2][0][1]),) + tr[k0][2][1:], ())
    refused(short, "holds")
    refused(tr + [(t / 2, 0, (), ((q, q),))], "not at t=0 or at one of its redistributions")
    refused(tr + [(t / 2, 0, ((q1, q1),), ((q, q),))], "not both")
    refused([(0.0, 0, tr[k0][2] + tr[k0][2], ())] + tr[k0 + 1:], "given twice")


def _ff_split(inst, cut: float):
    """One application, 2 processors until `cut` (no event then), then 4 to its end."""
    t2, t4 = inst.time(0, 2), inst.time(0, 4)
    m = float(inst.tasks[0].m) * float(inst.checkpoint_factor)
    rc = float(inst.S) + 2 * (m / 8 + float(inst.beta))  # (1.11), 2 -> 4
    done = cut / t2
    restart = cut + rc
    end = restart + (1 - done) * t4
    phases = ((0, 0.0, 0.0, 2, 1.0, cut, "redistributed", done),
              (0, cut, restart, 4, 1 - done, end, "finished", 1 - done))
    base = noredist(inst).schedule  # the other fields
    return dataclasses.replace(base, phases=phases, finish=(end,), released=(end,),
                               makespan=end), end


def test_a_redistribution_at_no_event_is_refused():
    inst = tiny_instance(5, 1, 4, faulty=False)
    run, end = _ff_split(inst, 0.3 * inst.time(0, 2))
    with pytest.raises(InvalidSchedule, match="no application ends and no failure strikes"):
        validate_malleable_run(inst, run, end)


OPTIONS = st.sampled_from([{}, {"lookahead_pool": "at_end"}, {"lookahead_release": False},
                           {"end_mode": "expected"}, {"progress": "literal"},
                           {"refill": True, "on_stuck": "skip"}, {"baseline": "fresh"}])
sizes = st.sampled_from([(2, 4), (2, 6), (2, 8), (3, 6), (3, 8), (3, 10), (4, 8), (4, 12)])


def _passes(inst, res) -> None:
    """The run passes the validator, every rule of it (no refusal is let through, MA-27)."""
    validate_malleable_run(inst, res.schedule, res.objective)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), size=sizes, trace_seed=st.integers(0, 50), opts=OPTIONS)
def test_every_registered_heuristic_and_the_construction_still_validate(seed, size, trace_seed,
                                                                        opts):
    inst = tiny_instance(seed, *size)
    _passes(inst, clairvoyant(inst, seed=trace_seed))
    for name, h in FAM.heuristics.items():
        _passes(inst, h.run(inst, None, None, seed=trace_seed,
                            **({} if name.startswith("FF-") else opts)))


@pytest.mark.parametrize("name", ["ENDLOCAL-IG", "ENDGREEDY-IG"])
def test_ig_gives_no_processor_of_the_struck_application_while_it_recovers(name):
    """MA-27: at T0's third failure IG would shrink T0 from 4 to 2 and give the pair to T1 at
    once, while T0 still recovers on 4 until t + D + R (8 of 6 processors busy, MA-14)."""
    inst = tiny_instance(9, 2, 6)
    res = FAM.heuristics[name].run(inst, None, None, seed=0)
    pay = res.schedule
    assert pay.counts["fail_calls"] >= 3 and pay.counts["redistributions"] > 0
    validate_malleable_run(inst, pay, res.objective)
    struck = {(ph[0], ph[5]) for ph in pay.phases if ph[6] == "failure"}
    shrunk = [ph for ph in pay.phases if ph[6] == "redistributed" and (ph[0], ph[1]) in struck
              and ph[1] == ph[5] and next(q[3] for q in pay.phases if q[0] == ph[0]
                                          and q[1] == ph[5] and q is not ph) < ph[3]]
    assert not shrunk  # IG never shrinks an application at its own failure


def test_a_plugin_run_without_failures_on_a_faulty_instance_is_refused():
    """MA-27: only the registered baselines and faultfree-optimal plans run fault-free."""
    inst = tiny_instance(3, 2, 8)
    case = Case("x", inst, FAM.scenario(inst, None))
    FAM.validate(case, FAM.heuristics["FF-ENDGREEDY"].run(inst, None, None))  # a baseline
    cheat = Heuristic("CHEAT", lambda i, s=None, p=None, *, seed=0: ff_endgreedy(i), "x",
                      origin="reference")
    got = run_checked(FAM, cheat, case)
    assert not got.valid and "CHEAT: a fault-free run of an instance with failures" in \
        got.problems[-1]


def _paper_runs_pass(inst, scenario) -> None:
    runs = [clairvoyant(inst, scenario)]
    runs += [h.run(inst, scenario, None, seed=0) for h in FAM.heuristics.values()]
    for res in runs:
        validate_malleable_run(inst, res.schedule, res.objective)
    moved = sum(len(r.schedule.transfers) - inst.n for r in runs)
    struck = sum(r.schedule.counts["failures"] for r in runs)
    assert moved > 0 and struck > 0  # the rules met redistributions and strikes
    assert runs[0].schedule.trace and not runs[0].schedule.counts["failures"]  # all dodged


def test_the_paper_setting_validates():
    """A scaled paper instance (n = 20, p = 1000, MTBF 5 years): every run passes."""
    inst = paper_instance(23, 20, 1000, mtbf_years=5)
    _paper_runs_pass(inst, FAM.scenario(inst, None))


def test_the_paper_preset_validates():
    """The family's paper preset (n = 100, p = 5000, MTBF 100 years), the bench's seed 23."""
    inst = FAM.generators["paper"].generate(23, 1)[0]
    _paper_runs_pass(inst, FAM.scenario(inst, None))


def test_a_redistribution_during_a_recovery_is_refused():
    """T_b, struck at t_f, is moved to 2 more processors when T_a ends at t_e, before its
    restart t_f + D + R (an application still recovering is excluded, §3.3)."""
    inst = tiny_instance(3, 2, 8)
    plain = noredist(inst, NONE).schedule
    a = min(range(2), key=lambda i: plain.finish[i])
    b = 1 - a
    te = plain.finish[a]
    model = V._Model(inst, False)
    k = next(ph[3] for ph in plain.phases if ph[0] == b)
    tf = te - (float(inst.downtime) + model.c(b, k)) / 2
    run = noredist(inst, FailureTrace((tf,), (_first_id(plain, b),))).schedule
    validate_malleable_run(inst, run)
    r = max(r for r, ph in enumerate(run.phases) if ph[0] == b)
    _, start, restart, _, alpha, _, _, _ = run.phases[r]
    assert start == tf < te < restart
    restart2 = te + model.rc(b, k, k + 2) + model.c(b, k + 2)
    end2 = restart2 + model.end(b, k + 2, alpha, False)
    phases = run.phases[:r] + ((b, start, restart, k, alpha, te, "redistributed", 0.0),
                               (b, te, restart2, k + 2, alpha, end2, "finished", alpha))
    freed = next(rg for t, i, rg, _ in run.transfers if i == a)[0][0]
    finish = tuple(end2 if i == b else f for i, f in enumerate(run.finish))
    bad = dataclasses.replace(run, phases=phases, finish=finish, released=finish,
                              makespan=max(finish),
                              transfers=run.transfers + ((te, b, ((freed, freed + 1),), ()),))
    with pytest.raises(InvalidSchedule, match="redistributed before its restart"):
        validate_malleable_run(inst, bad)


def test_a_run_that_hides_a_failure_of_the_case_is_refused():
    """The trace a run reports is compared with the case's: dropping a failure (and its strike)
    from the run's own trace does not hide it."""
    inst = tiny_instance(3, 2, 8)
    t, q, _ = _working(noredist(inst, NONE).schedule, 0)
    scenario = FailureTrace((t,), (q,))
    honest = noredist(inst, scenario)
    FAM.validate(Case("x", inst, scenario), honest)
    hidden = noredist(inst, NONE)  # the run that never saw the failure
    with pytest.raises(InvalidSchedule, match="the run read 0 failures; the trace has 1"):
        FAM.validate(Case("x", inst, scenario), hidden)
    late = 10 * honest.objective  # after the end: looked at, never an event
    both = FailureTrace((t, late), (q, q))
    run = noredist(inst, both).schedule
    validate_malleable_run(inst, run, None, both)
    other = dataclasses.replace(run, trace=(run.trace[0], (late, q + 1)))
    with pytest.raises(InvalidSchedule, match="is not the trace's"):
        validate_malleable_run(inst, other, None, both)
