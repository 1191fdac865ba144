"""The C twins of the LPT/SPT loop, of the FFI/FFD/DPslack bin loop and of the DPslack bitset
DP (decision D-16) give exactly the Python versions' results (placements, order, traces,
selections)."""

import numpy as np
import pytest

from resilsched.errors import InvalidInstance
from resilsched.heuristics.desktop import _ckernel
from resilsched.heuristics.desktop.dpslack import _select_c, select
from resilsched.heuristics.desktop.policies import LOCAL, da_slack
from resilsched.heuristics.desktop.state import CutData, cut_view, greedy_view
from resilsched.instances.desktop.generators import AvailabilityModel, synthetic_instance
from resilsched.instances.desktop.presets import tiny_instance

pytestmark = pytest.mark.skipif(_ckernel.lib() is None, reason="no C compiler")


@pytest.fixture
def python_only():
    def run(fn):
        _ckernel.set_enabled(False)
        try:
            return fn()
        finally:
            _ckernel.set_enabled(True)
    return run


def test_dp_select_c_equals_python():
    f = _select_c(_ckernel.lib(), np.empty(_ckernel.DP_WORDS, dtype=np.uint64))
    rng = np.random.default_rng(0)
    for _ in range(3000):
        c = np.sort(rng.integers(1, 300, int(rng.integers(0, 40)))).astype(np.int64)
        A, m1, m2 = int(rng.integers(0, 4000)), int(rng.integers(0, 150)), int(rng.integers(0, 150))
        for slack in (True, False):
            assert f(c, A, m1, m2, slack) == select(c.tolist(), A, m1, m2, slack)
    tiny = _select_c(_ckernel.lib(), np.empty(4, dtype=np.uint64))  # buffer too small: Python
    c = np.arange(1, 30, dtype=np.int64)
    assert tiny(c, 400, 0, 0, True) == select(c.tolist(), 400, 0, 0, True)


def _same(a, b):
    if a is None or b is None:
        return a is b
    steps = (a.trace.steps, a.trace.h) == (b.trace.steps, b.trace.h) if a.trace else True
    return a.jobs == b.jobs and a.S == b.S and a.M == b.M and steps


def test_policies_c_equal_python(python_only):
    insts = [tiny_instance(s, slack_rule=s % 2 == 0, max_machines=3, max_intervals=5,
                           max_jobs=8) for s in range(40)]
    insts += [synthetic_instance(8, 100, s, 100 + s, model=AvailabilityModel(span=5 * 86400))
              for s in range(3)]
    for inst in insts:
        d = CutData(inst)
        views = [greedy_view(inst)] + [cut_view(d, lam) for lam in
                                       {inst.horizon_end, inst.horizon_end // 2}]
        for view in views:
            for name in ("LPT", "SPT", "FFD", "FFI", "DPslack"):
                for slack in (True, False):
                    a = LOCAL[name](inst, view, slack)
                    b = python_only(lambda: LOCAL[name](inst, view, slack))  # noqa: B023
                    assert _same(a, b), (name, slack)
        for name in LOCAL:
            for slack in (True, False):
                try:
                    a = da_slack(inst, LOCAL[name], slack)
                except InvalidInstance:
                    continue
                b = python_only(lambda: da_slack(inst, LOCAL[name], slack))  # noqa: B023
                assert (a.intervals, a.horizon, a.info) == (b.intervals, b.horizon, b.info)


def test_batched_executor_equals_run(python_only):
    from resilsched.heuristics.desktop import build
    from resilsched.heuristics.desktop.executor import makespans, run
    from resilsched.instances.desktop import sample_disturbance
    from resilsched.instances.desktop.disturbance import periods_matrix

    for seed in range(3):
        inst = synthetic_instance(10, 150, seed, 100 + seed,
                                  model=AvailabilityModel(span=5 * 86400))
        traces = [periods_matrix(inst, sample_disturbance(inst, [seed, r])) for r in range(6)]
        for g, loc, slack in (("GreedySlack", "LPT", True), ("DAslack", "FFI", False)):
            sched, _ = build(inst, g, loc, slack)
            expect = [run(inst, sched, periods=p).makespan for p in traces]
            assert makespans(inst, sched, traces) == expect
            assert python_only(lambda: makespans(inst, sched, traces)) == expect  # noqa: B023
