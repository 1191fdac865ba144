"""Instances: JSON contract, validation of (1.1)/(1.2), speedup models (spec 001 §1.2)."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest

from resilsched.errors import InvalidInstance
from resilsched.instances.coschedule import (
    CoscheduleInstance,
    amdahl_times,
    generate,
    random_instance,
    synthetic_times,
)


def test_table_roundtrip_and_accessors(tmp_path):
    d = {"family": "coschedule", "format_version": 1, "p": 3, "k": 2,
         "tasks": [{"t": [6, 4, 3]}, {"t": ["7/2", 2, 2], "pmin": 2},
                   {"model": "amdahl", "w": 12, "f": "1/4"}]}
    inst = CoscheduleInstance.from_dict(d)
    assert inst.n == 3 and inst.t(0, 2) == 4
    assert inst.t(1, 1) == float("inf") and inst.t(1, 2) == 2
    assert inst.t(2, 3) == Fraction(12) * (Fraction(1, 4) + Fraction(3, 4) / 3)
    path = tmp_path / "i.json"
    inst.to_json(path)
    back = CoscheduleInstance.from_json(path)
    assert back == inst
    out = json.loads(path.read_text())
    assert out["tasks"][1]["pmin"] == 2 and out["tasks"][2]["model"] == "amdahl"
    assert np.isinf(inst.matrix()[1, 1]) and inst.matrix()[0, 3] == 3


@pytest.mark.parametrize("seed", range(5))
def test_random_instances_roundtrip(seed):
    for kind in ("amdahl", "synthetic", "integer", "nospeedup"):
        inst = random_instance(seed, 5, 7, 3, kind=kind)
        assert CoscheduleInstance.from_dict(json.loads(json.dumps(inst.to_dict()))) == inst


def test_error_names_task_and_processor_count_for_12():
    d = {"p": 5, "k": 2, "tasks": [{"t": [5, 4, 3, 3, 3]}, {"t": [8, 4, 3, 2, 2]}]}
    with pytest.raises(InvalidInstance) as e:
        CoscheduleInstance.from_dict(d)
    msg = str(e.value)
    assert msg.startswith("tasks[1].t[3]=2 breaks (1.2) at j=4 processors"), msg


def test_error_names_task_and_processor_count_for_11():
    d = {"p": 3, "k": 2, "tasks": [{"t": [5, 4, 4.5]}]}
    with pytest.raises(InvalidInstance, match=r"tasks\[0\]\.t\[2\]=4.5 breaks \(1.1\) at j=3"):
        CoscheduleInstance.from_dict(d)


def test_cap_at_argmin_repairs_11_and_keeps_checking_12():
    d = {"p": 4, "k": 2, "cap": True, "tasks": [{"t": [8, 5, 4, 6]}]}
    assert CoscheduleInstance.from_dict(d).times[0] == (8, 5, 4, 4)
    d = {"p": 3, "k": 2, "cap": True, "tasks": [{"t": [8, 3, 6]}]}
    with pytest.raises(InvalidInstance, match=r"breaks \(1.2\) at j=2"):
        CoscheduleInstance.from_dict(d)


def test_pmin_relaxes_checks_below_it():
    # t_1 breaks (1.2) with t_2 but lies below pmin = 2, so it is ignored
    d = {"p": 3, "k": 1, "tasks": [{"t": [1, 5, 4], "pmin": 2}]}
    assert CoscheduleInstance.from_dict(d).pmin == (2,)
    with pytest.raises(InvalidInstance, match="breaks"):
        CoscheduleInstance.from_dict({"p": 3, "k": 1, "tasks": [{"t": [1, 5, 4]}]})


@pytest.mark.parametrize("d, field", [
    ({"p": 2, "k": 3, "tasks": [{"t": [1, 1]}]}, "k"),
    ({"p": 2, "k": 1, "tasks": [{"t": [1, 1], "pmin": 3}]}, "tasks[0].pmin"),
    ({"p": 2, "k": 1, "tasks": [{"t": [1]}]}, "tasks[0].t"),
    ({"p": 2, "k": 1, "tasks": [{"t": [1, "x"]}]}, "tasks[0].t[1]"),
    ({"p": 2, "k": 1, "tasks": [{"model": "gustafson"}]}, "tasks[0].model"),
    ({"p": 2, "k": 1, "tasks": [{"model": "amdahl", "w": 3, "f": 2}]}, "tasks[0].f"),
    ({"p": 2, "k": 1, "tasks": [{"t": [0, 0]}]}, "tasks[0].t[0]"),
    ({"p": 0, "k": 1, "tasks": [{"t": [1]}]}, "p"),
    ({"p": 2, "k": 1, "tasks": []}, "tasks"),
    ({"family": "rigid", "p": 2, "k": 1, "tasks": [{"t": [1, 1]}]}, "family"),
])
def test_bad_input_names_the_field(d, field):
    with pytest.raises(InvalidInstance) as e:
        CoscheduleInstance.from_dict(d)
    assert e.value.field == field


@pytest.mark.parametrize("m", [2, 1000, 2_500_000])
@pytest.mark.parametrize("f", [0.0, 0.08, 0.5])
def test_synthetic_profile_satisfies_11_and_12(m, f):
    t = synthetic_times(m, f, 64)
    CoscheduleInstance(p=64, k=2, times=(tuple(t),))  # validates (1.1)/(1.2)
    assert t[0] == pytest.approx(2 * m * np.log2(m) + m * np.log2(m))


def test_amdahl_exact_for_fractions():
    t = amdahl_times(Fraction(10), Fraction(1, 5), 4)
    assert t == [10, 6, Fraction(14, 3), 4]


def test_generate_is_a_function_of_the_seed():
    a = [i.to_dict() for i in generate(7, 4)]
    b = [i.to_dict() for i in generate(7, 4)]
    c = [i.to_dict() for i in generate(8, 4)]
    assert a == b and a != c
