"""The independent validator of worksharing schedules (resilsched/validation/worksharing.py)."""

import copy

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from resilsched.errors import InvalidSchedule
from resilsched.instances.worksharing import (
    ExponentialRisk,
    LinearRisk,
    WeibullRisk,
    WorksharingInstance,
)
from resilsched.instances.worksharing.evaluate import PieceSchedule, expected_work
from resilsched.validation.worksharing import expected_work_of, validate_worksharing_schedule
from tests.support.worksharing.helpers import HEURISTICS, run

INST = WorksharingInstance(1.7, 3, LinearRisk(1.0), 0.02, max_chunks=40)


def greedy_result():
    return run("greedy", INST)


def test_every_heuristic_passes_on_mixed_instances():
    for inst in (INST, WorksharingInstance(2.5, 4, WeibullRisk(1.5), 0.01),
                 WorksharingInstance(0.6, 2, ExponentialRisk(1.0), 0.0, max_chunks=5)):
        for name in HEURISTICS:
            res = run(name, inst, seed=1)
            validate_worksharing_schedule(inst, res.schedule, res.objective)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), p=st.integers(1, 4), eps=st.sampled_from([0.0, 0.03]))
def test_recomputed_expectation_equals_the_evaluator(seed, p, eps):
    """Two independent implementations of spec §1.4 agree on random piece schedules, with
    repeated pieces, null chunks and multi-piece chunks."""
    rng = np.random.default_rng(seed)
    N = int(rng.integers(1, 9))
    sizes = rng.uniform(0.0, 0.4, N) * (rng.random(N) > 0.1)
    seqs = tuple(rng.integers(0, N, rng.integers(0, 2 * N)) for _ in range(p))
    chunk_of = tuple(np.sort(rng.integers(0, 4, len(s))) for s in seqs)
    s = PieceSchedule(float(sizes.sum()) + 0.1, sizes, seqs, chunk_of)
    for risk in (LinearRisk(1.3), WeibullRisk(2.0)):
        assert abs(expected_work_of(s.to_dict(), risk, eps) - expected_work(s, risk, eps)) < 1e-12


def _broken(change):
    res = greedy_result()
    d = copy.deepcopy(res.schedule.to_dict())
    change(d)
    return d, res.objective


@pytest.mark.parametrize("change, message", [
    (lambda d: d["pieces"].__setitem__(1, [0.0, 0.1]), "overlaps"),
    (lambda d: d["pieces"].__setitem__(-1, [d["pieces"][-1][0], 99.0]), "leaves"),
    (lambda d: d["pieces"].__setitem__(0, ["a", 0.1]), "pairs of numbers"),
    (lambda d: d["workers"].pop(), "worker lists for 3 workers"),
    (lambda d: d["workers"][0][0].append(10 ** 6), "references piece"),
    (lambda d: d["workers"][0][0].append(True), "references piece"),
    (lambda d: d["workers"][0].extend([[c] for c in range(len(d["pieces"]))] * 3),
     "max_chunks"),
])
def test_broken_schedules_are_refused(change, message):
    d, objective = _broken(change)
    with pytest.raises(InvalidSchedule, match=message):
        validate_worksharing_schedule(INST, d, objective)


def test_a_wrong_objective_is_refused():
    res = greedy_result()
    with pytest.raises(InvalidSchedule, match="is worth"):
        validate_worksharing_schedule(INST, res.schedule, res.objective * (1 + 1e-6))
    d = res.schedule.to_dict()
    d["workers"][0] = []  # dropping a worker's chunks lowers the expected work
    with pytest.raises(InvalidSchedule, match="is worth"):
        validate_worksharing_schedule(INST, d, res.objective)
