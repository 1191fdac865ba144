"""Instances: the JSON contract, one-line validation errors, generators, traces."""

from __future__ import annotations

import json

import numpy as np
import pytest

from resilsched.errors import InvalidInstance
from resilsched.instances.coschedule import synthetic_times
from resilsched.instances.malleable import (
    YEAR,
    DrawnTrace,
    MalleableInstance,
    generate,
    paper_instance,
    scenario_of,
    tiny_instance,
)

BASE = {"family": "malleable", "format_version": 1, "p": 6,
        "tasks": [{"t": [60, 32, 22, 17, 14, 12], "m": 10}, {"m": 1000, "f": 0.08}],
        "mtbf": 5000.0, "downtime": 5}


def load(**changes):
    d = json.loads(json.dumps(BASE))
    d.update(changes)
    return MalleableInstance.from_dict(d)


def test_round_trip_and_defaults():
    inst = load(failures=[[3.5, 1], [1.0, 0]], period="as_printed", S=1, beta=0.5,
                checkpoint_factor=2)
    again = MalleableInstance.from_dict(json.loads(json.dumps(inst.to_dict())))
    assert again == inst and again.to_dict() == inst.to_dict()
    assert inst.failures == ((1.0, 0), (3.5, 1))  # sorted by time
    plain = load()
    assert plain.checkpoint_factor == 1 and plain.S == 0 and plain.beta == 0
    assert plain.period == "young" and "period" not in plain.to_dict()


def test_synthetic_profile_is_the_coschedule_one():
    inst = load()
    row = [inst.time(1, q) for q in range(1, 7)]
    assert np.allclose(row, synthetic_times(1000.0, 0.08, 6), rtol=1e-12)


@pytest.mark.parametrize("changes, field", [
    ({"p": 3, "tasks": [{"m": 1000, "f": 0.1}, {"m": 1000, "f": 0.1}]}, "p"),
    ({"tasks": [{"t": [60, 61, 22, 17, 14, 12], "m": 1}]}, "tasks[0].t[1]"),   # (1.1)
    ({"tasks": [{"t": [60, 20, 19, 17, 14, 12], "m": 1}]}, "tasks[0].t[1]"),   # (1.2)
    ({"tasks": [{"t": [60, 32], "m": 1}]}, "tasks[0].t"),
    ({"tasks": [{"m": 1000, "f": 1.5}]}, "tasks[0].f"),
    ({"tasks": [{"m": 1, "f": 0.1}]}, "tasks[0].m"),
    ({"tasks": [{"m": -2, "t": [1, 1, 1, 1, 1, 1]}]}, "tasks[0].m"),
    ({"tasks": [{"f": 0.1}]}, "tasks[0].m"),
    ({"tasks": [{"m": 10}]}, "tasks[0]"),
    ({"tasks": [{"m": 10, "f": 0.1, "x": 1}]}, "tasks[0].x"),
    ({"mtbf": 0}, "mtbf"),
    ({"mtbf": "abc"}, "mtbf"),
    ({"downtime": -1}, "downtime"),
    ({"checkpoint_factor": 0}, "checkpoint_factor"),
    ({"period": "daly"}, "period"),
    ({"failures": [[1.0, 6]]}, "failures[0][1]"),
    ({"failures": [[-1.0, 0]]}, "failures[0][0]"),
    ({"failures": [[1.0]]}, "failures[0]"),
    ({"mtbf": None, "failures": [[1.0, 0]]}, "failures"),
    ({"mtbf": 1e-3}, "mtbf"),                                     # (1.6) overflows
    ({"tasks": [{"t": [1e308] * 6, "m": 1}]}, "tasks[0].t[0]"),     # times overflow
    ({"tasks": [{"m": 1e18, "t": [1] * 6}], "checkpoint_factor": 10}, "tasks[0].m"),  # RC
    ({"tasks": [{"m": 1e307, "f": 0.1}]}, "tasks[0].m"),
])
def test_invalid_fields_are_one_line_errors(changes, field):
    with pytest.raises(InvalidInstance) as err:
        load(**changes)
    assert err.value.field == field, str(err.value)
    assert "\n" not in str(err.value)


def test_printed_period_must_leave_work():
    with pytest.raises(InvalidInstance, match="printed period"):
        load(tasks=[{"t": [60, 32, 22, 17, 14, 12], "m": 1e6}], period="as_printed", mtbf=10.0)


def test_null_mtbf_is_the_fault_free_context():
    inst = load(mtbf=None)
    assert inst.fault_free and inst.lam == 0.0


def test_generators_are_seeded():
    a = [i.to_dict() for i in generate(3, 4)]
    b = [i.to_dict() for i in generate(3, 4)]
    assert a == b and a[0] != a[1]
    assert generate(3, 2)[1].to_dict() == a[1]  # instance k does not depend on the count
    inst = paper_instance(1, 100, 5000)
    assert inst.mtbf == pytest.approx(100 * YEAR) and inst.downtime == 60
    assert all(1_500_000 <= t.m <= 2_500_000 and t.f == 0.08 for t in inst.tasks)
    tiny = tiny_instance(0, 3, 8)
    assert tiny.n == 3 and tiny.p == 8 and not tiny.fault_free


def test_drawn_traces_are_seeded_and_poisson():
    tr = DrawnTrace(p=50, mtbf=1000.0, seed=4)
    a = tr.prefix(5000.0)
    assert a == DrawnTrace(p=50, mtbf=1000.0, seed=4).prefix(5000.0)
    assert a != DrawnTrace(p=50, mtbf=1000.0, seed=5).prefix(5000.0)
    # rate p / mtbf = 0.05 per second: about 250 failures in 5000 s
    assert 180 < len(a) < 320
    assert all(0 <= q < 50 for q in a.procs) and list(a.times) == sorted(a.times)
    cur = tr.cursor()
    first = [(cur.time, cur.proc)]
    cur.advance()
    assert first[0] == (a.times[0], a.procs[0]) and cur.time == a.times[1]


def test_scenario_hook():
    inst = load(failures=[[2.0, 1]])
    assert scenario_of(inst).to_list() == [[2.0, 1]]
    assert scenario_of(inst, "[[4, 0], [1.5, 5]]").to_list() == [[1.5, 5], [4.0, 0]]
    assert scenario_of(load()) is None
    for bad in ("nope", "[[1, 9]]", "[1, 2]"):
        with pytest.raises(InvalidInstance):
            scenario_of(inst, bad)
    with pytest.raises(InvalidInstance, match="mtbf is null"):
        scenario_of(load(mtbf=None), "[[1, 0]]")
