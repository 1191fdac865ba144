"""Documented limits (decision T8) and runs that cannot finish (MA-19): one-line refusals.

Every case is refused when the instance is built or before a trace is drawn, so each takes
milliseconds (p = 10^8 used to run for over a minute at 7.5 GB, lambda j tau = 32 forever).
"""

from __future__ import annotations

import json
import math
import time

import pytest

from resilsched.errors import InvalidInstance
from resilsched.heuristics.malleable import HEURISTICS, noredist
from resilsched.instances.malleable import MalleableInstance, scenario_of, tiny_instance
from resilsched.instances.malleable.traces import (
    MAX_EXPECTED_FAILURES,
    check_drawable,
    expected_failures,
)

GIANT = "9" * 401  # an integer JSON number of 401 digits


def text(p=8, tasks='[{"m": 2e6, "f": 0.08}]', mtbf="3.15576e9", downtime="60", extra=""):
    return (f'{{"family": "malleable", "format_version": 1, "p": {p}, "tasks": {tasks}, '
            f'"mtbf": {mtbf}, "downtime": {downtime}{extra}}}')


def synthetic(n):
    return json.dumps([{"m": 2e6, "f": 0.08}] * n)


@pytest.mark.parametrize("raw, field, rule", [
    (text(p=10**7 + 1), "p", "exceeds the maximum 10000000"),
    (text(p=10**8), "p", "exceeds the maximum"),
    (text(p=20_002, tasks=synthetic(10_001)), "tasks", "at most 10000"),
    (text(p=10**6, tasks=json.dumps([{"m": 5, "t": [1] * 10**6}] * 2)), "tasks",
     "at most 1000000"),
    (text(p=2, tasks='[{"m": 5, "t": [1e13, 6e12]}]'), "tasks[0].t[0]", "maximum 1e+12"),
    (text(downtime="1e13"), "downtime", "maximum 1e+12"),
    (text(tasks=f'[{{"m": {GIANT}, "f": 0.08}}]'), "tasks[0].m", "maximum 1e+18"),
    (text(tasks=f'[{{"m": 2e6, "f": {GIANT}}}]'), "tasks[0].f", "maximum 1"),
    (text(mtbf=GIANT), "mtbf", "maximum 1e+12"),
    (text(mtbf="1e300"), "mtbf", "maximum 1e+12"),
    (text(tasks='[{"m": 1e15, "f": 0.08}]'), "tasks[0].m", "t_1"),
    (text(extra=', "S": 1e13'), "S", "maximum 1e+12"),
    (text(p=10**7, extra=", \"beta\": 1e12"), "tasks[0].m", "redistribution cost"),
    (text(extra=f', "failures": [[{GIANT}, 0]]'), "failures[0][0]", "maximum 1e+12"),
    (text(extra=', "failures": [[1, 0]' + ", [1, 0]" * 100_000 + "]"), "failures",
     "at most 100000"),
])
def test_limits_are_one_line_refusals(raw, field, rule):
    start = time.perf_counter()
    with pytest.raises(InvalidInstance) as err:
        MalleableInstance.from_dict(json.loads(raw))
    assert err.value.field == field and rule in str(err.value), str(err.value)
    assert "\n" not in str(err.value) and time.perf_counter() - start < 2.0


def test_limits_hold_at_construction_too():
    inst = tiny_instance(0, 2, 8)
    for changes, field in (({"p": 10**7 + 2}, "p"), ({"downtime": 2e12}, "downtime"),
                           ({"mtbf": 1e13}, "mtbf"),
                           ({"failures": ((1e13, 0),)}, "failures[0][0]")):
        with pytest.raises(InvalidInstance) as err:
            inst.replace(**changes)
        assert err.value.field == field


def test_the_cli_refuses_in_one_line(run, tmp_path):
    for raw in (text(p=10**7 + 1), text(mtbf=GIANT), text(tasks=f'[{{"m": {GIANT}, "f": 0}}]')):
        path = tmp_path / "m.json"
        path.write_text(raw)
        for argv in (["simulate", path, "--heuristic", "NOREDIST"], ["solve", path]):
            code, out, err = run(*argv)
            assert code == 2 and out == "" and err.startswith("error: ")
            assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def _many_failures(target: float = 32.0) -> str:
    """Two synthetic applications whose lambda j tau on 2 processors is `target` (beta = 0:
    lambda j tau = sqrt(2 lambda m c) + lambda m c does not depend on j), as JSON text."""
    m = 2e6
    lam_m = (math.sqrt(2 + 4 * target) - math.sqrt(2)) ** 2 / 4  # sqrt(2y) + y = target
    return text(tasks=synthetic(2), mtbf=repr(m / lam_m))


def _short_periods(mtbf: float = 5.0) -> MalleableInstance:
    """One application of 10^6 s with a tiny checkpoint: short periods, each one cheap, but
    about 2 10^5 failures in all on 2 processors (lambda = 0.2 per processor)."""
    raw = text(p=4, tasks='[{"m": 0.001, "t": [1e6, 5e5, 4e5, 3e5]}]', mtbf=repr(mtbf),
               downtime="1")
    return MalleableInstance.from_dict(json.loads(raw))


def test_many_failures_per_checkpoint_period_are_refused_when_built(run, tmp_path):
    """lambda j tau = 32: e^32 failures per period, (1.6) beyond 10^18 s (T8); NOREDIST ran
    forever and solve --time-limit 3 past 25 s."""
    with pytest.raises(InvalidInstance) as err:
        MalleableInstance.from_dict(json.loads(_many_failures(32.0)))
    assert err.value.field == "tasks[0]" and "failures on 2 processors" in str(err.value)
    assert "7.9e+13 per checkpoint period" in str(err.value)
    path = tmp_path / "many.json"
    path.write_text(_many_failures(32.0))
    for argv in (["simulate", path, "--heuristic", "NOREDIST"],
                 ["solve", path, "--time-limit", "3"]):
        start = time.perf_counter()
        code, out, err = run(*argv)
        assert code == 2 and out == "" and err.startswith("error: tasks[0]: expects ")
        assert len(err.strip().splitlines()) == 1 and time.perf_counter() - start < 5.0


def test_runs_that_cannot_finish_are_refused_before_a_trace_is_drawn(run, tmp_path):
    inst = _short_periods()
    assert expected_failures(inst).sum() > MAX_EXPECTED_FAILURES
    for h in HEURISTICS[:5]:  # every failure-aware heuristic, at the trace, before any work
        start = time.perf_counter()
        with pytest.raises(InvalidInstance, match="tasks\\[0\\]: expects .* failures") as err:
            h(inst, seed=1)
        assert "per checkpoint period" in str(err.value)
        assert time.perf_counter() - start < 1.0
    path = tmp_path / "many.json"
    path.write_text(json.dumps(inst.to_dict()))
    for argv in (["simulate", path, "--heuristic", "ENDGREEDY-IG"],
                 ["solve", path, "--time-limit", "3"]):
        start = time.perf_counter()
        code, out, err = run(*argv)
        assert code == 2 and out == "" and "expects" in err and "tasks[0]" in err
        assert len(err.strip().splitlines()) == 1 and time.perf_counter() - start < 5.0
    # a trace given is read to its end, and the fault-free baselines draw none
    assert noredist(inst, scenario_of(inst, "[[1.0, 0], [2.0, 1]]")).objective > 0
    assert HEURISTICS[5](inst).objective > 0


def test_the_threshold_is_on_the_expected_failures():
    """The count named is the one of (1.6)'s segments (about lambda j t for small lambda tau);
    a trace is drawn just below the threshold and refused just above it."""
    quiet = tiny_instance(3, 3, 10)
    check_drawable(quiet)
    e = expected_failures(quiet)
    assert e == pytest.approx([2.0 / quiet.mtbf * quiet.time(i, 2) for i in range(3)], rel=0.5)
    lo, hi = math.log(0.5), math.log(5000.0)  # expected failures fall as the mtbf grows
    for _ in range(60):
        mid = (lo + hi) / 2
        total = expected_failures(_short_periods(math.exp(mid))).sum()
        lo, hi = (mid, hi) if total > MAX_EXPECTED_FAILURES else (lo, mid)
    check_drawable(_short_periods(math.exp(hi)))
    with pytest.raises(InvalidInstance, match="expects"):
        check_drawable(_short_periods(math.exp(lo)))


def test_a_platform_that_fails_too_often_while_idle_is_refused():
    """p lambda max_i t_{i,p}: failures the run must read whatever the policy (MA-19)."""
    raw = text(p=10**7, tasks='[{"m": 1e10, "f": 0.5}]', mtbf="1e9", downtime="0",
               extra=', "checkpoint_factor": 1e-6')
    inst = MalleableInstance.from_dict(json.loads(raw))
    with pytest.raises(InvalidInstance) as err:
        check_drawable(inst)
    assert err.value.field == "mtbf" and "fail" in str(err.value)
