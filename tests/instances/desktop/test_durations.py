"""Exact durations (D-3) and the documented limits (T8, D-22) of desktop instances and traces."""

import json
import time
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

import numpy as np
import pytest

import resilsched.instances.desktop.trace as trace_module
from resilsched.errors import InvalidInstance
from resilsched.instances.desktop import DesktopInstance
from resilsched.instances.desktop.durations import duration_matrix, exact_duration
from resilsched.instances.desktop.model import MAX_INTERVALS
from resilsched.instances.desktop.trace import read_availability_csv

BASE = {"family": "desktop", "machines": [{"b": 1, "e0": 0, "a": [10, 8, 12], "u": [5, 5, 5]}],
        "jobs": [{"p": 4}, {"p": 3}]}


def _decimal_half_up(b_text: str, p_text: str) -> int:
    """The oracle: the product of the decimals as written, rounded half up, at least 1."""
    v = (Decimal(b_text) * Decimal(p_text)).quantize(Decimal(1), rounding=ROUND_HALF_UP)
    return max(1, int(v))


def test_durations_round_the_written_decimals_half_up():
    b_texts = [f"{0.5 + 0.01 * k:.2f}" for k in range(200)] + ["1.15", "0.125", "3.3333"]
    p_texts = [str(j) for j in range(1, 120)] + ["0.5", "2.5", "0.001", "123.456", "7.25"]
    doc = {key: json.loads(f"[{','.join(texts)}]") for key, texts in (("b", b_texts),
                                                                        ("p", p_texts))}
    got = duration_matrix(doc["b"], doc["p"])
    want = np.array([[_decimal_half_up(b, p) for p in p_texts] for b in b_texts])
    assert (got == want).all()
    float64 = np.maximum(1, np.floor(np.multiply.outer(np.array(doc["b"]), np.array(doc["p"]))
                                     + 0.5))
    assert (float64 != want).sum() >= 10  # the ties the float product gets wrong are covered
    assert got[b_texts.index("1.15"), p_texts.index("50")] == 58  # 57.5, not 57.49999999999999


def test_exact_fractions_and_scalar_form_agree_with_the_matrix():
    b = [Fraction(23, 20), 1.15, 2, Fraction(1, 3)]
    p = [50, Fraction(3, 2), 0.5, 7, Fraction(9, 2)]
    got = duration_matrix(b, p)
    for i, bi in enumerate(b):
        for j, pj in enumerate(p):
            v = Fraction(bi if not isinstance(bi, float) else repr(bi)) * Fraction(pj)
            assert got[i, j] == max(1, int((2 * v.numerator + v.denominator)
                                           // (2 * v.denominator)))
            assert got[i, j] == exact_duration(bi, pj)


def test_instance_views_of_the_durations_are_the_same_values():
    inst = DesktopInstance.build([(1.15, 0, [400], [5]), ("23/20", 0, [300], [5]),
                                  (0.5, 3, [90, 80], [2, 2])], [50, 30, "3/2", 10, 50, 2.5])
    D = inst.durations
    assert D[0, 0] == D[1, 0] == 58 and D[2, 5] == 1  # 0.5 x 2.5 = 1.25 -> 1
    assert (inst.sorted_durations == D[:, inst.order]).all()
    assert (inst.durations_by_position == inst.sorted_durations.T).all()
    fresh = DesktopInstance.build([(1.15, 0, [400], [5])], [50, 30])
    assert fresh.t(0, 0) == 58 and "durations" not in fresh.__dict__  # no matrix for one pair
    assert (inst.longest_durations == D[:, inst.longest_job]).all()


def test_json_text_1_15_times_50_lasts_58_seconds(tmp_path, run):
    path = tmp_path / "tie.json"
    path.write_text('{"family": "desktop", "machines": [{"b": 1.15, "e0": 0, "a": [200], '
                    '"u": [5]}], "jobs": [{"p": 50}]}')
    code, out, err = run("simulate", path, "--heuristic", "DAslack", "--json")
    assert code == 0, err
    assert json.loads(out)["objective"] == 5 + 58 + 58  # q(1) + S + M
    code, out, err = run("simulate", path, "--heuristic", "GreedySlack")  # drops interval 1
    assert code == 2 and "t = 58 s on machine 0" in err and "machine 0 keeps none" in err


@pytest.mark.parametrize("patch, field, words", [
    ({"jobs": [{"p": 1}] * 10_001}, "jobs", "at most 10000"),
    ({"machines": [{"b": 1, "a": [10], "u": [5]}] * 100_001}, "machines", "at most 100000"),
    ({"machines": [{"b": 1, "a": [1] * (MAX_INTERVALS + 1), "u": [1] * (MAX_INTERVALS + 1)}]},
     "machines[0].a", "1000000"),
    ({"machines": [{"b": 1, "a": [1] * 10**4, "u": [1] * 10**4}] * 101},
     "machines[100].a", "1000000"),  # 10^6 intervals in all
    ({"machines": [{"b": 1, "a": [1e13], "u": [5]}]}, "machines[0].a[0]", "largest time"),
    ({"machines": [{"b": 1, "a": [10], "u": [1e13]}]}, "machines[0].u[0]", "largest time"),
    ({"machines": [{"b": 1, "e0": 1e13, "a": [10], "u": [5]}]}, "machines[0].e0", "largest"),
    ({"machines": [{"b": 1, "a": [6 * 10**11, 10], "u": [5 * 10**11, 5]}]}, "machines[0]",
     "trace ends"),
    ({"machines": [{"b": 1e-7, "a": [10], "u": [5]}]}, "machines[0].b", "[1e-06, 1e+06]"),
    ({"machines": [{"b": 1e7, "a": [10], "u": [5]}]}, "machines[0].b", "[1e-06, 1e+06]"),
    ({"machines": [{"b": 1e-320, "a": [10], "u": [5]}]}, "machines[0].b", "[1e-06, 1e+06]"),
    ({"machines": [{"b": 1e6, "a": [10], "u": [5]}], "jobs": [{"p": 10**7}]}, "jobs[0].p",
     "more than the largest time"),
    ({"jobs": [{"p": 1e13}]}, "jobs[0].p", "exceeds the maximum"),
    ({"jobs": [{"p": "1e999999999"}]}, "jobs[0].p", "exponent"),
    ({"jobs": [{"p": "1e500"}]}, "jobs[0].p", "exceeds the maximum"),
    ({"jobs": [{"p": [1] * 1000}]}, "jobs[0].p", "is not a number"),
    ({"machines": [{"b": "1" + "0" * 5000, "a": [10], "u": [5]}]}, "machines[0].b",
     "not a number"),
])
def test_limits_are_one_line_naming_the_field(patch, field, words):
    start = time.perf_counter()
    with pytest.raises(InvalidInstance) as err:
        DesktopInstance.from_dict({**BASE, **patch})
    assert err.value.field == field and words in err.value.rule, str(err.value)
    assert "\n" not in str(err.value) and len(str(err.value)) < 300
    assert time.perf_counter() - start < 5


def test_the_largest_accepted_values_are_accepted():
    inst = DesktopInstance.from_dict({**BASE, "machines": [
        {"b": 1e6, "e0": 0, "a": [2 * 10**12 // 4, 10], "u": [10**11, 5]},
        {"b": 1e-6, "e0": 10**12 - 20, "a": [10], "u": [5]}], "jobs": [{"p": 250_000}] * 4})
    assert inst.durations.max() == 250_000 * 10**6 and inst.durations[1].tolist() == [1] * 4


def _csv(tmp_path, text, jobs="p\n4\n3\n", name="t"):
    (tmp_path / f"{name}.csv").write_text(text)
    (tmp_path / f"{name}.jobs.csv").write_text(jobs)
    return tmp_path / f"{name}.csv"


def test_csv_limits_stop_reading_at_the_first_row_beyond(tmp_path, monkeypatch):
    monkeypatch.setattr(trace_module, "MAX_INTERVALS", 3)
    rows = "".join(f"h{k},{10 * k},{10 * k + 8}\n" for k in range(4))
    with pytest.raises(InvalidInstance, match="more than 3 availability rows"):
        read_availability_csv(_csv(tmp_path, "machine,start,end\n" + rows))
    monkeypatch.setattr(trace_module, "MAX_INTERVALS", 100)
    monkeypatch.setattr(trace_module, "MAX_MACHINES", 2)
    with pytest.raises(InvalidInstance) as err:
        read_availability_csv(_csv(tmp_path, "machine,start,end\n" + rows))
    assert err.value.field == "t.csv:4.machine" and "at most 2" in err.value.rule
    monkeypatch.setattr(trace_module, "MAX_JOBS", 2)
    with pytest.raises(InvalidInstance, match="more than 2 jobs"):
        read_availability_csv(_csv(tmp_path, "machine,start,end\nh,0,50\n", "p\n1\n2\n3\n"))


@pytest.mark.parametrize("row, field", [
    ("h,0,1e13", "t.csv:2.end"), ("h,-1e13,10", "t.csv:2.start"), ("h,0,inf", "t.csv:2.end"),
    ("h,0,nan", "t.csv:2.end"), ("h,0,1e999999999", "t.csv:2.end"),
    ("h,-900000000000,900000000000", "t.csv: machine 'h'.a[0]"),
])
def test_csv_huge_times_are_refused(tmp_path, row, field):
    with pytest.raises(InvalidInstance) as err:
        read_availability_csv(_csv(tmp_path, f"machine,start,end\n{row}\n"))
    assert err.value.field == field


def test_csv_times_round_half_up_on_the_text(tmp_path):
    inst = read_availability_csv(_csv(tmp_path, "machine,start,end,b\nh,0.5,100.5,1.15\n"
                                                 "h,110.49,200.5,1.15\n", "p\n50\n"),
                                 origin=0, slack_rule=False)[0]
    mach = inst.machines[0]
    assert mach.e0 == 1 and mach.a == (100, 91) and mach.u[0] == 9  # [1, 101), [110, 201)
    assert inst.durations.tolist() == [[58]]


def test_demand_is_the_same_whichever_matrix_is_built():
    from resilsched.bounds.desktop import demand
    from resilsched.instances.desktop.generators import synthetic_instance

    values = set()
    for which in (None, "durations", "sorted_durations", "durations_by_position"):
        inst = synthetic_instance(30, 400, 2, 102)
        if which:
            getattr(inst, which)
        values.add(demand(inst))
    T, b = inst.durations, np.asarray([float(x) for x in inst.b])
    values.add(float((T / b[:, None]).min(axis=0).sum()) * (1 - 1e-9))  # the formula, at once
    assert len(values) == 1
