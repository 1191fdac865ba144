"""Instances, readers, generators and disturbances of the desktop family (spec 004 §1, §4)."""

import json

import numpy as np
import pytest

from resilsched.errors import InvalidInstance
from resilsched.instances.desktop import DesktopInstance, Disturbance, Machine, sample_disturbance
from resilsched.instances.desktop.disturbance import periods_matrix, unavailability_periods
from resilsched.instances.desktop.generators import (
    AvailabilityModel,
    absorb_short,
    availability_machines,
    job_amounts,
    synthetic_instance,
)
from resilsched.instances.desktop.presets import PRESETS, x1
from resilsched.instances.desktop.trace import read_availability_csv

X1 = {"family": "desktop", "format_version": 1,
      "machines": [{"b": 1, "e0": 0, "a": [10, 8, 12], "u": [5, 5, 5]}],
      "jobs": [{"p": 4}, {"p": 3}]}


def test_x1_derived_dates():
    m = x1().machines[0]
    assert m.e == (0, 15, 28, 45) and m.s == (10, 23, 40) and m.q == (5, 20, 33)
    inst = DesktopInstance.from_dict(X1)
    assert inst.slack_rule and inst.p_max == 4 and inst.a_min == 8 and inst.assumption_h1
    assert inst.to_dict()["machines"] == X1["machines"]


def test_round_trip_and_durations():
    inst = DesktopInstance.build([(1.5, 3, [20, 9], [4, 4]), (0.5, 0, [7], [2])], [3, 5, 1],
                                 slack_rule=False, name="two")
    again = DesktopInstance.from_dict(json.loads(json.dumps(inst.to_dict())))
    assert again == inst and not again.slack_rule
    # t_ij = max(1, round half up of b_i p_j)
    assert inst.durations.tolist() == [[5, 8, 2], [2, 3, 1]]
    assert list(inst.order) == [2, 0, 1]
    assert not inst.assumption_h1 and inst.assumption_h1_per_machine() == (False, True)


@pytest.mark.parametrize("patch, field", [
    ({"machines": []}, "machines"),
    ({"machines": [{"b": 1, "a": [0], "u": [1]}]}, "machines[0].a[0]"),
    ({"machines": [{"b": 1, "a": [5], "u": [-1]}]}, "machines[0].u[0]"),
    ({"machines": [{"b": 0, "a": [5], "u": [1]}]}, "machines[0].b"),
    ({"machines": [{"b": float("inf"), "a": [5], "u": [1]}]}, "machines[0].b"),
    ({"machines": [{"b": 1, "a": [5, 6], "u": [1]}]}, "machines[0].u"),
    ({"machines": [{"b": 1, "a": [5.5], "u": [1]}]}, "machines[0].a[0]"),
    ({"machines": [{"b": 1, "e0": -1, "a": [5], "u": [1]}]}, "machines[0].e0"),
    ({"machines": [{"b": 1, "a": [1e308], "u": [1]}]}, "machines[0].a[0]"),
    ({"machines": [{"a": [5], "u": [1]}]}, "machines[0].b"),
    ({"jobs": []}, "jobs"),
    ({"jobs": [{"p": -2}]}, "jobs[0].p"),
    ({"jobs": [{"p": "x"}]}, "jobs[0].p"),
    ({"jobs": [{"p": 1e308}]}, "jobs[0].p"),
    ({"jobs": [{"p": 7}]}, "jobs[0].p"),  # 2*7 > a = 12: fits no availability under the rule
    ({"slack_rule": "yes"}, "slack_rule"),
    ({"family": "rigid"}, "family"),
])
def test_bad_input_is_one_line_naming_the_field(patch, field):
    d = {**X1, **patch}
    with pytest.raises(InvalidInstance) as err:
        DesktopInstance.from_dict(d)
    assert err.value.field == field and "\n" not in str(err.value)


def test_rule_decides_what_fits():
    d = {**X1, "jobs": [{"p": 7}], "slack_rule": False}
    assert DesktopInstance.from_dict(d).n == 1  # 7 <= 12 without the slack rule


def test_csv_trace_reader(tmp_path):
    trace = tmp_path / "hosts.csv"
    trace.write_text("machine,start,end,b\nh1,100,110,1\nh1,115,123,1\nh2,102,130.4,2\n"
                     "h1,128,140,1\n")
    (tmp_path / "hosts.jobs.csv").write_text("p\n4\n3\n")
    [inst] = read_availability_csv(trace)
    m0, m1 = inst.machines
    assert (m0.e0, m0.a, m0.u) == (0, (10, 8, 12), (5, 5, 1))  # last u: until the trace end
    assert (m1.b, m1.e0, m1.a) == (2, 2, (28,))
    assert inst.p == (4, 3) and inst.metadata["machine_ids"] == ["h1", "h2"]
    [again] = read_availability_csv(trace, jobs=[4, 3], tail=5)
    assert again.machines[0].u == (5, 5, 5)


@pytest.mark.parametrize("text, where", [
    ("machine,start\nh,1\n", "needs a 'end' column"),
    ("machine,start,end\nh,5,5\n", "must exceed"),
    ("machine,start,end\nh,0,10\nh,5,20\n", "overlaps"),
    ("machine,start,end\nh,0,x\n", "is not a number"),
    ("machine,start,end\nh,0,nan\n", "finite"),
])
def test_csv_errors(tmp_path, text, where):
    path = tmp_path / "t.csv"
    path.write_text(text)
    with pytest.raises(InvalidInstance, match=where):
        read_availability_csv(path, jobs=[1])


def test_csv_without_jobs(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("machine,start,end\nh,0,10\n")
    with pytest.raises(InvalidInstance, match="jobs"):
        read_availability_csv(path)


def test_generators_are_seeded_and_calibrated():
    model = AvailabilityModel(span=10 * 86400)
    a = availability_machines(40, 3, model)
    assert a == availability_machines(40, 3, model)
    assert a != availability_machines(40, 4, model)
    lengths = np.concatenate([m.a for m in a])
    assert 2.5 * 3600 < lengths.mean() < 8 * 3600  # heavy-tailed, mean about 4.95 h
    assert all(m.e[-1] >= 10 * 86400 and m.e0 >= 0 for m in a)
    assert 0.2 < float(np.median([m.b for m in a])) <= 1.5
    p = job_amounts(5000, 100)
    assert min(p) >= 60 and max(p) <= 3600 and 1500 < np.median(p) < 2100
    assert job_amounts(10, 100) == job_amounts(10, 100)


def test_absorb_short_enforces_h1():
    inst = synthetic_instance(20, 200, 1, 101, model=AvailabilityModel(span=8 * 86400))
    assert not inst.assumption_h1
    absorbed = absorb_short(inst)
    assert absorbed.assumption_h1 and absorbed.metadata["absorb_short"] == 2 * inst.p_max
    for before, after in zip(inst.machines, absorbed.machines, strict=False):
        assert after.e[-1] == before.e[-1]  # the trace keeps its end; only short ones merge
    m = Machine(1, 0, (2, 9, 1, 9), (1, 1, 1, 1))
    small = DesktopInstance((m,), (2,), False)
    assert absorb_short(small, 4).machines[0] == Machine(1, 3, (9, 9), (3, 1))


def test_disturbance_bounds_merge_and_determinism():
    inst = x1()
    d = sample_disturbance(inst, 5)
    assert d == sample_disturbance(inst, 5)
    for _ in range(50):
        for k, (x, a) in enumerate(zip(sample_disturbance(inst, _).deltas[0],
                                       inst.machines[0].a, strict=True)):
            hi = inst.machines[0].a[k + 1] if k + 1 < 3 else 0
            assert -a <= x <= hi
    assert Disturbance.parse("-2,3,0", inst).deltas == ((-2, 3, 0),)
    assert Disturbance.parse([[]], inst) == Disturbance.none(inst)
    # unavailability 1 shifted late and 2 early overlap and merge (spec 4.3)
    per = unavailability_periods(inst, Disturbance(((8, -8, 0),)), 0)
    assert per == [(15, 23), (40, 45)]
    starts, ends = periods_matrix(inst, None)
    assert starts[0, :3].tolist() == [10, 23, 40] and ends[0, :3].tolist() == [15, 28, 45]


@pytest.mark.parametrize("value, field", [
    ("1,2", "deltas[0]"), ("x", "deltas"), ([[0, 0, 1]], "deltas[0][2]"),
    ([[-11, 0, 0]], "deltas[0][0]"), ([[0.5, 0, 0]], "deltas[0][0]"), ([[0], [0]], "deltas"),
])
def test_bad_disturbances(value, field):
    with pytest.raises(InvalidInstance) as err:
        Disturbance.parse(value, x1())
    assert err.value.field == field


def test_presets_regenerate():
    _, tiny = PRESETS["tiny"]
    assert tiny(3, 4) == tiny(3, 4) and tiny(3, 4)[:2] == tiny(3, 2)
    assert PRESETS["x1"][1](0)[0] == x1()


def test_library_generator_alternates_rules_and_stores_a_disturbance():
    from resilsched.families.desktop import FAMILY, _every_variant_schedules

    insts = FAMILY.generators["library"].generate(1, 6)
    assert [i.slack_rule for i in insts] == [True, False] * 3
    for inst in insts:
        assert 3 <= inst.n <= 8 and 1 <= inst.m <= 3 and _every_variant_schedules(inst)
        dist = FAMILY.scenario(inst, None)  # the stored "failures", checked
        assert dist is not None and any(any(row) for row in dist.to_list())
    # instance k does not depend on the count
    assert [i.to_dict() for i in FAMILY.generators["library"].generate(1, 3)] == \
        [i.to_dict() for i in insts[:3]]


def test_sampled_disturbance_and_periods_equal_the_per_machine_forms():
    from resilsched.instances.desktop.disturbance import FAR

    inst = synthetic_instance(7, 20, 3, 103, model=AvailabilityModel(span=3 * 86400))
    for seed, alpha in ((0, 1.0), ([4, 2], 0.3), (9, 0.0)):
        rng = np.random.default_rng(seed)
        literal = []
        for mach in inst.machines:  # spec 4.3 machine by machine
            a = np.asarray(mach.a, dtype=np.float64)
            lo, hi = -alpha * a, np.append(alpha * a[1:], 0.0)
            x = lo + (hi - lo) * rng.random(mach.K)
            literal.append(tuple(int(v) for v in np.clip(np.floor(x + 0.5), np.ceil(lo),
                                                         np.floor(hi))))
        dist = sample_disturbance(inst, seed, alpha)
        assert dist.deltas == tuple(literal)
        starts, ends = periods_matrix(inst, dist)
        for i in range(inst.m):
            got = [(int(s), int(e)) for s, e in zip(starts[i], ends[i], strict=True) if s < FAR]
            assert got == unavailability_periods(inst, dist, i)
