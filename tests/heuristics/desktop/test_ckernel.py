"""The C twins of the LPT/SPT loop, of the FFI/FFD/DPslack bin loop and of the DPslack bitset
DP (decisions D-16, D-19: a build-time extension) give exactly the Python versions' results
(placements, order, traces, selections); ``RESILSCHED_NO_CORE=1`` forces the Python engine, a
missing extension warns in one line, and nothing is compiled at run time."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from resilsched import engine
from resilsched.errors import InvalidInstance
from resilsched.heuristics.desktop import _ckernel
from resilsched.heuristics.desktop.dpslack import _select_c, select
from resilsched.heuristics.desktop.policies import LOCAL, da_slack
from resilsched.heuristics.desktop.state import CutData, cut_view, greedy_view
from resilsched.instances.desktop.generators import AvailabilityModel, synthetic_instance
from resilsched.instances.desktop.presets import tiny_instance

pytestmark = pytest.mark.skipif(_ckernel.lib() is None, reason="extension not built")


@pytest.fixture
def python_only():
    def run(fn):
        with engine.use("python"):
            return fn()
    return run


def test_dp_select_c_equals_python():
    f = _select_c(_ckernel.lib(), np.empty(_ckernel.DP_WORDS, dtype=np.uint64))
    rng = np.random.default_rng(0)
    for _ in range(3000):
        c = np.sort(rng.integers(1, 300, int(rng.integers(0, 40)))).astype(np.int64)
        A, m1, m2 = int(rng.integers(0, 4000)), int(rng.integers(0, 150)), int(rng.integers(0, 150))
        for slack in (True, False):
            assert f(c, A, m1, m2, slack) == select(c.tolist(), A, m1, m2, slack)
    for _ in range(1500):  # runs of equal durations (clipped p_max): rows shared once saturated
        values = rng.integers(1, 60, int(rng.integers(1, 5)))
        c = np.sort(rng.choice(values, int(rng.integers(1, 120)))).astype(np.int64)
        A, m1, m2 = int(rng.integers(0, 3000)), int(rng.integers(0, 80)), int(rng.integers(0, 80))
        for slack in (True, False):
            assert f(c, A, m1, m2, slack) == select(c.tolist(), A, m1, m2, slack)
    for _ in range(1500):  # at most one job fits (the C shortcut), durations above A included
        c = np.sort(rng.integers(1, 400, int(rng.integers(1, 12)))).astype(np.int64)
        A = int(rng.integers(1, 500))
        assert f(c, A, 0, 0, False) == select(c.tolist(), A, 0, 0, False)
    tiny = _select_c(_ckernel.lib(), np.empty(4, dtype=np.uint64))  # buffer too small: Python
    c = np.arange(1, 30, dtype=np.int64)
    assert tiny(c, 400, 0, 0, True) == select(c.tolist(), 400, 0, 0, True)
    small = _select_c(_ckernel.lib(), np.empty(300, dtype=np.uint64))  # full midway: Python
    for _ in range(300):
        c = np.sort(rng.integers(1, 300, 40)).astype(np.int64)
        A = int(rng.integers(1000, 6000))
        for slack in (True, False):
            assert small(c, A, 0, 0, slack) == select(c.tolist(), A, 0, 0, slack)


def _same(a, b):
    if a is None or b is None:
        return a is b
    steps = (a.trace.steps, a.trace.h) == (b.trace.steps, b.trace.h) if a.trace else True
    return a.jobs == b.jobs and a.S == b.S and a.M == b.M and steps and \
        a.horizon() == b.horizon()


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


_VARIANTS_SCRIPT = """
import json
from resilsched.errors import InvalidInstance
from resilsched.heuristics.desktop import _ckernel, build
from resilsched.heuristics.desktop.policies import VARIANTS, parse_variant
from resilsched.instances.desktop.generators import AvailabilityModel, synthetic_instance
out = {"core": _ckernel.lib() is not None}
for seed in range(2):
    inst = synthetic_instance(12, 150, seed, 100 + seed, model=AvailabilityModel(span=12 * 86400))
    for name in VARIANTS:
        try:
            sched, _ = build(inst, *parse_variant(name))
        except InvalidInstance as exc:  # the trace is too short for this variant
            out[f"{seed}/{name}"] = str(exc)
            continue
        out[f"{seed}/{name}"] = [sched.horizon, sorted((f"{i},{k}", list(js))
                                                      for (i, k), js in sched.intervals.items())]
print(json.dumps(out))
"""


def _variants(no_core: bool) -> dict:
    env = dict(os.environ)
    env.pop("RESILSCHED_NO_CORE", None)
    env.pop("RESILSCHED_NO_C", None)
    if no_core:
        env["RESILSCHED_NO_CORE"] = "1"
    done = subprocess.run([sys.executable, "-c", _VARIANTS_SCRIPT], env=env, check=True,
                          capture_output=True, text=True, timeout=600)
    said = [line for line in done.stderr.splitlines() if "desktop kernels" in line]
    assert said == (["resilsched: desktop kernels resilsched._desktop disabled by "
                     "RESILSCHED_NO_CORE; using the pure-Python engine (same results, slower)"]
                    if no_core else [])
    return json.loads(done.stdout)


def test_no_core_variable_gives_the_same_schedules():
    fast, slow = _variants(False), _variants(True)
    assert fast.pop("core") is True and slow.pop("core") is False
    assert fast == slow and len(fast) == 40
    assert sum(isinstance(v, list) for v in fast.values()) >= 36  # most variants schedule


def test_missing_extension_warns_once_in_one_line(monkeypatch, capsys):
    import importlib

    real = importlib.import_module

    def missing(name, *a, **k):
        if name == f"resilsched.{_ckernel.EXTENSION.name}":
            raise ImportError("no module named _desktop")
        return real(name, *a, **k)

    monkeypatch.setattr(importlib, "import_module", missing)
    monkeypatch.delenv("RESILSCHED_NO_CORE", raising=False)
    monkeypatch.delenv("RESILSCHED_NO_C", raising=False)
    engine.reset()
    try:
        capsys.readouterr()
        assert _ckernel.lib() is None
        assert _ckernel.lib() is None
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "pure-Python engine" in err and "not built" in err
    finally:
        monkeypatch.undo()
        engine.reset()
    assert _ckernel.lib() is not None


def test_loading_never_runs_a_compiler(monkeypatch):
    def refuse(*a, **k):
        raise AssertionError("a process was started at run time")

    monkeypatch.setattr(subprocess, "run", refuse)
    monkeypatch.setattr(subprocess, "Popen", refuse)
    engine.reset()
    assert _ckernel.lib() is not None
