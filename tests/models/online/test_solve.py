"""The optimal online policy (issue 26): closed forms, brute-force policy enumeration, the proof
machinery, the decision table and its replay."""

from __future__ import annotations

import math
from fractions import Fraction as F

import numpy as np
import pytest

from resilsched.errors import InvalidInstance
from resilsched.instances.failures import Scenario
from resilsched.instances.moldable import MoldableInstance
from resilsched.instances.moldable.speedup import Table
from resilsched.instances.rigid import RigidInstance
from resilsched.models.online.policy import confidence_interval
from resilsched.models.online.problem import build_problem
from resilsched.models.online.solve import OnlineOptions, solve_moldable, solve_problem, solve_rigid
from resilsched.solution import Status
from resilsched.validation import validate_attempts, validate_rigid_schedule
from tests.support.online.oracle import brute_force, brute_force_rigid


def optimum(P, jobs, q):
    """E[T_online-OPT] of rigid jobs (p, t) with exact q_j."""
    sol = solve_problem(build_problem(P, [[job] for job in jobs], q), OnlineOptions.of(None, {}),
                        "online-optimal", {})
    assert sol.status is Status.OPTIMAL and sol.objective == sol.bound
    return sol


@pytest.mark.parametrize("t, q", [(3, F(1, 3)), (F(5, 2), F(9, 10)), (7, F(0))])
def test_one_job_is_t_over_one_minus_q(t, q):
    assert optimum(1, [(1, t)], [q]).objective == t / (1 - q)


def test_two_jobs_on_one_processor_run_one_after_the_other():
    q = [F(1, 4), F(2, 5)]
    assert optimum(1, [(1, 2), (1, 3)], q).objective == F(2) / (1 - q[0]) + F(3) / (1 - q[1])


def test_two_equal_jobs_that_fit_together():
    """Both start at once and restart at once: t E[max(G1, G2)] with geometric attempt counts,
    E[max] = 1/(1-q1) + 1/(1-q2) - 1/(1-q1 q2)."""
    q1, q2 = F(1, 3), F(1, 2)
    expected = 4 * (1 / (1 - q1) + 1 / (1 - q2) - 1 / (1 - q1 * q2))
    assert optimum(2, [(1, 4), (1, 4)], [q1, q2]).objective == expected


def test_two_unequal_jobs_that_fit_together():
    """E[max(t1 G1, t2 G2)] = sum over x >= 0 of P(max > x), summed numerically."""
    t1, t2, q1, q2 = 2, 3, 0.3, 0.6
    total = 0.0
    for x in range(4000):  # the makespan is an integer: P(T > x) for x = 0, 1, ...
        c1 = 1 - q1 ** (x // t1)  # P(t1 G1 <= x)
        c2 = 1 - q2 ** (x // t2)
        total += 1 - c1 * c2
    value = optimum(2, [(1, t1), (1, t2)], [F(q1), F(q2)]).objective
    assert math.isclose(float(value), total, rel_tol=1e-12)


BRUTE = [
    (2, [1, 1, 2], [1, 2, 1], [F(1, 2), F(1, 3), F(1, 5)]),
    (4, [2, 2, 3], [1, 2, 2], [F(1, 2), F(1, 3), F(1, 4)]),
    (2, [1, 1], [1, 2], [F(1, 2), F(1, 3)]),
    (3, [1, 2, 2], [2, 1, 2], [F(1, 2), F(1, 3), F(1, 5)]),
]


@pytest.mark.parametrize("P, p, t, q", BRUTE)
def test_equals_the_best_of_every_policy(P, p, t, q):
    best, count = brute_force_rigid(P, p, t, q)
    assert count > 1
    assert optimum(P, list(zip(p, t, strict=True)), q).objective == best


@pytest.mark.slow
@pytest.mark.parametrize("P, p, t, q", [
    (2, [1, 1, 1], [1, 2, 3], [F(1, 2), F(1, 3), F(1, 5)]),
    (3, [2, 1, 1], [3, 2, 1], [F(2, 5), F(1, 3), F(1, 10)]),
])
def test_equals_the_best_of_every_policy_three_jobs(P, p, t, q):
    best, count = brute_force_rigid(P, p, t, q)
    assert count > 1000
    assert optimum(P, list(zip(p, t, strict=True)), q).objective == best


def _moldable_against_brute_force(inst, sizes):
    q = [F(float(x)) for x in inst.q()]
    modes = [[(p, inst.time(j, p)) for p in (int(x) for x in inst.fronts[j])]
             for j in range(inst.n)]
    assert [len(m) for m in modes] == sizes
    best, count = brute_force(inst.P, modes, q)
    assert count > 5
    sol = solve_moldable(inst)
    assert sol.status is Status.OPTIMAL and sol.objective == best


def test_moldable_equals_the_best_of_every_policy():
    """Two moldable jobs: each start also picks the processors (time-Pareto front)."""
    _moldable_against_brute_force(
        MoldableInstance(2, (Table((4, 2)), Table((3, 2))), lam=0.1), [2, 2])


@pytest.mark.slow
def test_moldable_equals_the_best_of_every_policy_three_processors():
    _moldable_against_brute_force(
        MoldableInstance(3, (Table((6, 3, 3)), Table((4, 3, 2))), lam=0.1), [2, 3])


def test_registered_rigid_model_calibrates_q_to_qbar():
    inst = RigidInstance.build(2, [(1, 2), (1, 3), (2, 1)])
    sol = solve_rigid(inst, qbar=0.2)
    q = [F(float(x)) for x in inst.q(0.2)]
    assert sol.objective == optimum(2, [(1, 2), (1, 3), (2, 1)], q).objective
    assert sol.info["failure_model"] == "qbar=0.2"
    assert sol.info["states"] > 0 and sol.info["state_bound"] >= sol.info["states"]


def test_online_optimum_is_at_least_the_jensen_bound_and_at_most_a_serial_run():
    inst = RigidInstance.build(3, [(1, 2), (2, 3), (3, 1), (1, 1)])
    sol = solve_rigid(inst, qbar=0.3)
    q = [F(float(x)) for x in inst.q(0.3)]
    serial = sum(F(job.t) / (1 - qj) for job, qj in zip(inst.jobs, q, strict=True))
    longest = max(F(job.t) / (1 - qj) for job, qj in zip(inst.jobs, q, strict=True))
    area = sum(F(job.p * job.t) / (1 - qj) for job, qj in zip(inst.jobs, q, strict=True)) / 3
    assert max(longest, area) <= sol.objective <= serial


def test_exact_and_float_times_agree():
    """Rational times are scaled to integers exactly: 1/2 and 3/2 give the value of 1 and 3
    halved."""
    q = [F(1, 5), F(1, 3)]
    whole = optimum(2, [(1, 1), (2, 3)], q).objective
    half = optimum(2, [(1, F(1, 2)), (2, F(3, 2))], q).objective
    assert half == whole / 2


def test_decision_table_replays_valid_schedules():
    inst = RigidInstance.build(3, [(1, 2), (2, 3), (3, 1), (1, 1)])
    table = solve_rigid(inst, qbar=0.3).payload
    rng = np.random.default_rng(5)
    for _ in range(30):
        f = [int(x) for x in rng.geometric(0.6, inst.n) - 1]
        sched = table.replay(f)
        validate_rigid_schedule(inst, Scenario(tuple(f)), sched)
    assert table.decision() == [(j, inst.jobs[j].p) for j, _ in table.table[(0, ())]]


def test_decision_table_answers_queries_and_refuses_unknown_states():
    inst = RigidInstance.build(2, [(1, 2), (1, 3)])
    table = solve_rigid(inst, qbar=0.2).payload
    assert sorted(table.decision()) == [(0, 1), (1, 1)]  # both start at once
    # job 0 failed at time 2 while job 1 has 1 unit left: job 0 restarts at once
    assert table.decision(done=[], running={1: (1, 1)}) == [(0, 1)]
    with pytest.raises(InvalidInstance, match="not reached"):
        table.decision(done=[0, 1])


def test_monte_carlo_replay_matches_the_expected_value():
    inst = RigidInstance.build(4, [(1, 3), (2, 2), (3, 2), (1, 1), (2, 1)])
    sol = solve_rigid(inst, qbar=0.3)
    samples = sol.payload.sample(np.random.default_rng(2024), 20_000)
    lo, hi = confidence_interval(samples)
    assert lo <= float(sol.objective) <= hi
    assert hi - lo < 0.05 * float(sol.objective)  # the test can fail: the interval is tight


def test_moldable_replay_is_a_valid_schedule():
    inst = MoldableInstance(3, (Table((6, 3, 3)), Table((4, 3, 2)), Table((2, 2, 2))))
    sol = solve_moldable(inst, qbar=0.25)
    assert sol.status is Status.OPTIMAL
    for f in ([0, 0, 0], [2, 0, 1], [0, 3, 0]):
        sched = sol.payload.replay(f)
        validate_attempts(sched, inst.P, f, inst.duration, lambda j, p: 1 <= p <= inst.P)


def test_a_scenario_with_failures_is_refused():
    inst = RigidInstance.build(2, [(1, 2), (1, 3)])
    with pytest.raises(InvalidInstance, match="averages over the failure model"):
        solve_rigid(inst, Scenario((1, 0)), qbar=0.1)
    assert solve_rigid(inst, Scenario((0, 0)), qbar=0.1).status is Status.OPTIMAL


def test_the_failure_model_is_required():
    with pytest.raises(InvalidInstance, match="needs the failure model"):
        solve_rigid(RigidInstance.build(2, [(1, 2)]))
    with pytest.raises(InvalidInstance, match="needs the failure model"):
        solve_moldable(MoldableInstance(2, (Table((2, 1)),)))
    with pytest.raises(InvalidInstance, match="qbar"):
        solve_rigid(RigidInstance.build(2, [(1, 2)]), qbar=1.0)


def test_exact_values_beyond_python_int_text_limit_print_and_parse():
    """Values of the float calibration reach tens of thousands of digits: ExactValue prints
    them (Python's str of an int stops at 4300 digits), JSON carries them."""
    import json

    from resilsched.models.online.exact import ExactValue, exact_value
    from resilsched.solution import Solution, Status

    big = exact_value(F(3**20000 + 1, 3**20000 - 1))
    assert isinstance(big, ExactValue) and len(str(big)) > 9000
    d = Solution(big, big, Status.OPTIMAL, "online-optimal", "mdp-exact", 0.0).to_dict()
    text = json.dumps(d)
    numerator, denominator = d["objective_exact"].split("/")
    assert numerator.isdigit() and denominator.isdigit()
    assert numerator.endswith("01") and int(numerator[-6:]) == (3**20000 + 1) // 2 % 10**6
    assert json.loads(text)["objective"] == float(big)
    assert "exact value, a fraction of 19087 characters, in --json" in \
        Solution(big, big, Status.OPTIMAL, "m", "s", 0.0).describe()
    assert exact_value(F(6)) == 6 and isinstance(exact_value(F(6)), int)
