"""Rigid-family instances: generators, scenarios, SWF reader, Mira-like stand-in, presets
(spec 002 §1.2, §8, A7, A11-A15)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from resilsched.errors import InvalidInstance
from resilsched.instances.failures import (
    enumerate_scenarios,
    failure_probabilities,
    lambda_from_qbar,
    scenario_probability,
    truncated_mass,
)
from resilsched.instances.rigid import RigidInstance
from resilsched.instances.rigid.mira_like import (
    MIRA_P,
    PAPER_FAILURES,
    PARTITION_SIZES,
    calibration,
    mira_like_days,
    write_swf,
)
from resilsched.instances.rigid.presets import PRESETS, SMOKE_COUNT, SMOKE_MAX_ATTEMPTS, SMOKE_N
from resilsched.instances.rigid.scenarios import (
    expected_total_failures,
    scenario_matrices,
    scenario_matrix,
    scenarios_from_matrix,
)
from resilsched.instances.rigid.swf import parse_swf_header, read_swf
from resilsched.instances.rigid.synthetic import paper_sets, tiny_rigid, uniform_rigid

DATA = Path(__file__).resolve().parents[2] / "support" / "rigid" / "data"
FIXTURE = DATA / "tiny.swf"


def _json(instances: list[RigidInstance]) -> str:
    return json.dumps([x.to_dict() for x in instances], sort_keys=True)


# -- synthetic generators (§8.2, A15) ----------------------------------------------------------

def test_paper_sets_are_deterministic_and_prefix_stable():
    a, b = paper_sets(11, count=4), paper_sets(11, count=4)
    assert _json(a) == _json(b)
    assert _json(paper_sets(11, count=2)) == _json(a[:2])
    assert _json(paper_sets(12, count=2)) != _json(a[:2])
    assert len({tuple(x.p) for x in a}) == 4  # the sets differ from each other
    for k, inst in enumerate(a):
        assert inst.metadata["generator"] == "uniform_rigid"
        assert inst.metadata["seed"] == 11 and inst.metadata["set_index"] == k
        back = RigidInstance.from_dict(json.loads(json.dumps(inst.to_dict())))
        assert back.to_dict() == inst.to_dict()


def test_uniform_rigid_ranges_and_types():
    sets = paper_sets(3)
    assert len(sets) == 30
    p = np.array([x.p for x in sets]).ravel()
    t = np.array([x.t for x in sets]).ravel()
    assert all(x.n == 100 and x.P == 10000 for x in sets)
    assert all(isinstance(v, int) for x in sets for v in x.p)
    assert all(isinstance(v, float) for x in sets for v in x.t)
    assert p.min() >= 50 and p.max() <= 2000 and t.min() >= 100 and t.max() <= 20000
    # 3000 draws: the means of U{50..2000} and U[100, 20000] within 5 standard errors
    assert abs(p.mean() - 1025) < 5 * math.sqrt((1951**2 - 1) / 12 / p.size)
    assert abs(t.mean() - 10050) < 5 * 19900 / math.sqrt(12 * t.size)
    # both ends of the integer range are reachable
    small = uniform_rigid(0, n=400, p=(1, 3), P=3)
    assert set(small.p) == {1, 2, 3}


def test_uniform_rigid_rejects_bad_parameters():
    with pytest.raises(InvalidInstance, match="exceeds P=1000"):
        uniform_rigid(0, p=(50, 2000), P=1000)
    with pytest.raises(InvalidInstance, match="^n"):
        uniform_rigid(0, n=0)
    with pytest.raises(InvalidInstance, match="^t"):
        uniform_rigid(0, t=(0.0, 5.0))
    with pytest.raises(InvalidInstance, match="^seed"):
        uniform_rigid("x")
    with pytest.raises(InvalidInstance, match="^count"):
        paper_sets(0, count=0)


def test_tiny_rigid_integer_times_and_generator_input():
    inst = tiny_rigid(np.random.default_rng(5), n=6, P=5, tmax=9)
    assert inst.n == 6 and inst.P == 5 and inst.metadata["seed"] is None
    assert all(isinstance(t, int) and 1 <= t <= 9 for t in inst.t)
    assert all(isinstance(p, int) and 1 <= p <= 5 for p in inst.p)
    assert tiny_rigid(5, n=6, P=5, tmax=9).to_dict() == tiny_rigid(5, n=6, P=5, tmax=9).to_dict()
    with pytest.raises(InvalidInstance):
        tiny_rigid(0, n=3, P=4, tmax=0)


# -- failure model and scenario matrices (§1.2, §8.3) -------------------------------------------

def test_qbar_lambda_round_trip_and_qj_formula():
    inst = paper_sets(1, count=1)[0]
    areas = np.array([float(a) for a in inst.areas])
    for qbar in (0.05, 0.1, 0.3, 0.9):
        lam = lambda_from_qbar(qbar, areas)
        assert math.isclose(1 - math.exp(-lam * areas.mean()), qbar, rel_tol=1e-12)
        q = inst.q(qbar)
        assert np.allclose(q, 1 - (1 - qbar) ** (areas / areas.mean()), rtol=1e-12, atol=0)
        assert np.allclose(q, failure_probabilities(areas, lam), rtol=1e-12)
        # E[sum f] = sum_j (e^(lambda a_j) - 1)
        assert math.isclose(expected_total_failures(inst, qbar),
                            float(np.sum(np.exp(lam * areas) - 1)), rel_tol=1e-9)


def test_scenario_matrix_mean_matches_expectation():
    inst = paper_sets(2, count=1)[0]
    qbar, count = 0.3, 20000
    m = scenario_matrix(inst, qbar, count, seed=4)
    q = inst.q(qbar)
    mean, var = np.sum(q / (1 - q)), np.sum(q / (1 - q) ** 2)
    assert math.isclose(mean, expected_total_failures(inst, qbar), rel_tol=1e-9)
    assert abs(m.sum(axis=1).mean() - mean) < 5 * math.sqrt(var / count)
    # per-job means too, for the job of largest area
    j = int(np.argmax(q))
    assert abs(m[:, j].mean() - q[j] / (1 - q[j])) < 5 * math.sqrt(q[j] / (1 - q[j]) ** 2 / count)


def test_scenario_matrix_determinism_and_crn():
    sets = paper_sets(5, count=3)
    m1 = scenario_matrices(sets, 0.3, 50, seed=9)
    m2 = scenario_matrices(sets, 0.3, 50, seed=9)
    assert all(np.array_equal(a, b) for a, b in zip(m1, m2, strict=True))
    assert np.array_equal(scenario_matrices(sets[:2], 0.3, 50, seed=9)[1], m1[1])
    assert not np.array_equal(scenario_matrices(sets, 0.3, 50, seed=10)[0], m1[0])
    # q_j does not depend on P: the P sweep replays the same matrix
    bigger = RigidInstance(20000, sets[0].jobs)
    assert np.array_equal(scenario_matrix(bigger, 0.3, 50, np.random.SeedSequence(9).spawn(3)[0]),
                          m1[0])
    rows = scenarios_from_matrix(m1[0][:3])
    assert [r.failures for r in rows] == [tuple(int(v) for v in row) for row in m1[0][:3]]
    assert m1[0].shape == (50, 100) and m1[0].dtype == np.int64


def test_qbar_zero_gives_no_failures():
    inst = paper_sets(0, count=1)[0]
    assert not scenario_matrix(inst, 0.0, 200, seed=1).any()
    assert expected_total_failures(inst, 0.0) == 0.0
    with pytest.raises(InvalidInstance, match="qbar"):
        scenario_matrix(inst, 1.0, 2, seed=1)


def _sum_pmf_oracle(q: np.ndarray, K: int) -> float:
    """P(sum_j f_j <= K) by convolving truncated geometric pmfs (independent of enumeration)."""
    dist = np.zeros(K + 1)
    dist[0] = 1.0
    for qj in q:
        pmf = np.array([qj**k * (1 - qj) for k in range(K + 1)])
        dist = np.convolve(dist, pmf)[: K + 1]
    return float(dist.sum())


def test_scenario_probabilities_sum_to_one_minus_truncated_mass():
    inst = tiny_rigid(8, n=4, P=4, tmax=6)
    q = inst.q(0.3)
    for K in (0, 3, 6):
        total = sum(p for _, p in enumerate_scenarios(q, K))
        assert math.isclose(total, _sum_pmf_oracle(q, K), rel_tol=1e-12)
        assert math.isclose(total + truncated_mass(q, K), 1.0, rel_tol=1e-12)
    assert 0 < truncated_mass(q, 6) < 0.05
    f = scenario_matrix(inst, 0.3, 1, seed=0)[0]
    assert math.isclose(scenario_probability(q, f), float(np.prod(q**f * (1 - q))), rel_tol=1e-12)


# -- SWF reader (§8.4, A14) ---------------------------------------------------------------------

def test_swf_header():
    with FIXTURE.open() as fh:
        header = parse_swf_header(fh)
    assert header["MaxProcs"] == 64 and header["MaxNodes"] == 16
    assert header["UnixStartTime"] == 1559365200
    assert header["TimeZoneString"] == "America/Chicago"


def test_swf_grouping_and_filters():
    days = read_swf(FIXTURE)
    assert [d.name for d in days] == ["2019-06-01", "2019-06-02", "2019-06-04"]
    assert all(d.P == 64 for d in days)
    first = days[0]
    # job 2 takes its processors from field 8 (field 5 = -1); job 8 at 23:59:59 local time
    # (04:59:59 UTC on June 2) still belongs to June 1
    assert [(j.p, j.t) for j in first.jobs] == [(8, 100), (16, 50), (3, 20), (1, 10)]
    assert first.metadata["job_ids"] == [1, 2, 7, 8]
    assert first.metadata["dropped"] == {"submit_missing": 0, "runtime_not_positive": 2,
                                         "procs_missing": 1, "procs_exceed_P": 1, "status": 0}
    assert first.metadata["dropped_undated"]["submit_missing"] == 1
    assert first.metadata["day"] == "2019-06-01" and first.metadata["file"].endswith("tiny.swf")
    assert [(j.p, j.t) for j in days[2].jobs] == [(2, 1000), (2, 7.5)]


def test_swf_statuses_nodes_override_and_min_jobs():
    days = read_swf(FIXTURE, cores_per_node=4, statuses=[1])
    assert all(d.P == 16 for d in days)  # MaxNodes
    assert [(j.p, j.t) for j in days[0].jobs] == [(2, 100), (4, 50)]  # ceil(8/4), ceil(16/4)
    assert days[0].metadata["dropped"]["status"] == 2  # failed (0) and cancelled (5)
    assert [j.p for j in days[1].jobs] == [16, 2]  # ceil(5/4) = 2
    override = read_swf(FIXTURE, P=32)
    assert override[0].P == 32 and override[0].metadata["dropped"]["procs_exceed_P"] == 1
    assert override[1].metadata["dropped"]["procs_exceed_P"] == 1  # the 64-processor job
    assert [d.name for d in read_swf(FIXTURE, min_jobs=3)] == ["2019-06-01", "2019-06-02"]



@pytest.mark.parametrize("statuses", ["1", "12", [], [200], [-2], [True], [1.0], 3, None])
def test_swf_status_filter_lists_codes_in_range_or_is_refused(statuses):
    if statuses is None:  # None keeps every status
        assert read_swf(FIXTURE)[0].metadata["dropped"]["status"] == 0
        return
    with pytest.raises(InvalidInstance, match=r"^statuses=.* must list SWF status codes in "
                                              r"\[-1, 99\], e\.g\. \[1\]$"):
        read_swf(FIXTURE, statuses=statuses)  # '12' was taken as statuses 1 and 2


def test_swf_time_zone_decides_the_day(tmp_path):
    text = FIXTURE.read_text().replace("; TimeZoneString: America/Chicago\n", "")
    utc = tmp_path / "utc.swf"
    utc.write_text(text)
    days = read_swf(utc)
    # without a zone, day boundaries fall at 00:00 UTC = 19:00 local: the fixture's start
    # (05:00 UTC) is on June 1 and job 8 (submit 86399 -> 04:59:59 UTC June 2) moves to June 2
    assert days[0].name == "2019-06-01" and 8 not in days[0].metadata["job_ids"]
    assert 8 in days[1].metadata["job_ids"]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("1 0 0 100 x -1 -1 8 60 -1 1 1 1 -1 1 -1 -1 -1",
         "line 3: field 5 (allocated processors)='x' is not an integer"),
        ("1 0 0 abc 4 -1 -1 8 60 -1 1 1 1 -1 1 -1 -1 -1",
         "line 3: field 4 (run time)='abc' is not a number"),
        ("1 0 0 100 4 -1 -1 8 60 -1 1 1 1 -1 1 -1 -1",
         "line 3: has 17 fields, expected 18"),
        ("1 0 0 100 4 -1 -1 8 60 -1 1.5 1 1 -1 1 -1 -1 -1",
         "line 3: field 11 (status)='1.5' is not an integer"),
    ],
)
def test_swf_malformed_lines(tmp_path, line, message):
    bad = tmp_path / "bad.swf"
    bad.write_text(f"; MaxProcs: 8\n\n{line}\n")
    with pytest.raises(InvalidInstance) as err:
        read_swf(bad)
    assert str(err.value) == message


def test_swf_needs_a_platform_size(tmp_path):
    f = tmp_path / "noheader.swf"
    f.write_text("1 0 0 100 4 -1 -1 8 60 -1 1 1 1 -1 1 -1 -1 -1\n")
    with pytest.raises(InvalidInstance, match="^P: is not given"):
        read_swf(f)
    (inst,) = read_swf(f, P=8)
    assert inst.name == "day-0" and inst.P == 8
    with pytest.raises(InvalidInstance, match="^path"):
        read_swf(tmp_path / "missing.swf")


# -- Mira-like stand-in (§8.4) ------------------------------------------------------------------

def test_mira_like_ranges_and_determinism():
    days = mira_like_days(0)
    assert len(days) == 30 and _json(days) == _json(mira_like_days(0))
    assert _json(mira_like_days(0, days=3)) == _json(days[:3])
    counts = np.array([d.n for d in days])
    assert counts.min() >= 66 and counts.max() <= 277 and 130 <= counts.mean() <= 185
    p = np.concatenate([d.p for d in days])
    t = np.concatenate([d.t for d in days])
    assert all(d.P == MIRA_P for d in days)
    assert set(p.tolist()) <= set(PARTITION_SIZES) and (p == 512).mean() > 0.3
    assert t.min() >= 37 and t.max() <= 86494 and all(isinstance(v, int) for d in days for v in d.t)
    assert np.corrcoef(np.log(p), np.log(t))[0, 1] > 0.2  # large jobs run long


def test_mira_like_calibration_order_of_magnitude():
    values = np.array([[c[0.05], c[0.1]] for c in
                       (calibration(mira_like_days(s)) for s in range(10))])
    med = np.median(values, axis=0)
    assert PAPER_FAILURES[0.05] / 2 < med[0] < PAPER_FAILURES[0.05] * 2
    assert PAPER_FAILURES[0.1] / 4 < med[1] < PAPER_FAILURES[0.1] * 4
    assert (values[:, 1] > 3 * values[:, 0]).all()  # the heavy-area jump from 0.05 to 0.1


def test_mira_like_swf_round_trip(tmp_path):
    days = mira_like_days(4, days=3)
    path = write_swf(days, tmp_path / "mira.swf")
    back = read_swf(path)
    assert [d.name for d in back] == ["2019-06-01", "2019-06-02", "2019-06-03"]
    assert [d.jobs for d in back] == [d.jobs for d in days]
    assert all(d.P == MIRA_P for d in back)


# -- presets ------------------------------------------------------------------------------------

def test_presets_are_complete_and_deterministic():
    assert {"paper-default", "fig4", "fig5", "fig6", "mira-like", "smoke"} <= set(PRESETS)
    for name, (description, generate) in PRESETS.items():
        assert description
        a, b = generate(1, 2), generate(1, 2)
        assert len(a) == 2 and _json(a) == _json(b), name
    base = PRESETS["paper-default"][1](1, 2)
    for fig in ("fig4", "fig5", "fig6"):
        tagged = PRESETS[fig][1](1, 2)
        assert [x.jobs for x in tagged] == [x.jobs for x in base]
        assert tagged[0].metadata["sweep"]["figure"] == fig
    assert len(PRESETS["paper-default"][1](0, None)) == 30


def test_smoke_preset_shape():
    suite = PRESETS["smoke"][1](0, None)
    assert len(suite) == SMOKE_COUNT
    for inst in suite:
        assert SMOKE_N[0] <= inst.n <= SMOKE_N[1] and 4 <= inst.P <= 16
        assert all(isinstance(t, int) and 1 <= t <= 20 for t in inst.t)
        assert inst.failures is not None and inst.failures.attempts <= SMOKE_MAX_ATTEMPTS
        assert inst.metadata["qbar"] == 0.3
    assert any(sum(x.failures.failures) > 0 for x in suite)


def test_smoke_preset_solves_to_optimality_quickly():
    """The gap report's reference model proves every smoke optimum in well under a second."""
    from resilsched.models.rigid import solve_scenario

    for inst in PRESETS["smoke"][1](0, None):
        sol = solve_scenario(inst, inst.scenario(), time_limit=10)
        assert sol.is_optimal, inst.name
        assert sol.wall_time < 2.0, (inst.name, sol.wall_time)
