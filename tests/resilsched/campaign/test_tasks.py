"""Refusals are results, failures are blamed on the task that failed, and bad specs name their
entry (docs/campaigns.md, "Rows", "Running", "Spec format")."""

from __future__ import annotations

import json

import pytest

from resilsched.campaign import ResultStore, Task, run_campaign
from resilsched.campaign.engine import failed_task
from resilsched.campaign.errors import StoreError
from resilsched.campaign.plan import count_tasks, plan
from resilsched.campaign.spec import SpecError, load_spec, parse_spec
from resilsched.campaign.tasks import REFUSALS, Work, run_task
from resilsched.errors import InvalidInstance
from tests.support.campaign.fixtures import ISSUE_EXAMPLE

#: GreedySlack/FFD cannot place every job of the second `tiny` instance of seed 3
DESKTOP = """
[campaign]
name = "tiny"
[[instances]]
family = "desktop"
preset = "tiny"
count = 2
seed = 3
[[algorithms]]
name = "GreedySlack"
priority = ["FFD"]
"""

WORKSHARING = """
[campaign]
name = "ws"
[[instances]]
family = "worksharing"
preset = "random"
count = 2
[[algorithms]]
name = "greedy"
params = { n = [1, 1e300] }
"""


def test_a_refusal_is_a_stored_row_and_the_campaign_goes_on(spec, run, tmp_path):
    path, store = spec(DESKTOP), tmp_path / "tiny.sqlite"
    code, out, err = run("campaign", "run", path, "--store", store, "-q", "--json")
    assert code == 0, err
    first = json.loads(out)
    assert first["stored"] == 2 and first["ran"] == 2 and first["refused"] == 1
    with ResultStore(store, readonly=True) as s:
        rows = [r for _, _, r, _, _ in s.rows("tiny")]
    refused = [r for r in rows if r.get("status") == "refused"]
    assert len(refused) == 1 and "cannot place every job" in refused[0]["reason"]
    assert refused[0]["objective"] is None and refused[0]["ratio"] is None
    assert [r for r in rows if r.get("status") is None][0]["objective"] > 0
    # a refusal is a result: the rerun retries nothing
    code, out, err = run("campaign", "run", path, "--store", store, "-q", "--json")
    assert code == 0 and json.loads(out)["ran"] == 0 and json.loads(out)["refused"] == 1
    code, out, err = run("report", store, "--out", tmp_path / "rep", "--no-plots", "--json")
    assert code == 0 and json.loads(out)["refused"] == 1, err
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "### Refused tasks: 1" in md and "| GreedySlack, priority FFD | 1 | GS-FFD: " \
                                               "cannot place every job" in md


def test_refusals_are_the_toolkits_refusal_type():
    assert REFUSALS == (InvalidInstance,)  # a family's own refusal joins by subclassing it
    tasks = plan(parse_spec(DESKTOP))
    rows = [run_task(t.payload) for t in tasks]
    assert [r.get("status") for r in rows] == ["refused", None]  # the first tiny instance


def test_a_parameter_the_instance_refuses_is_a_spec_error(spec, run, tmp_path):
    """worksharing's n = 1e300 passes the type check and breaks the instance's rule (at most
    2 x 10^7 chunk entries): refused before the campaign starts, naming the entry."""
    store = tmp_path / "ws.sqlite"
    code, out, err = run("campaign", "run", spec(WORKSHARING), "--store", store, "-q")
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert err.startswith(f"error: {tmp_path / 'spec.toml'}: algorithms[0].params.n=1e+300 "
                          "chunks per unit of work")
    assert "(on instance random-0-0)" in err
    assert not store.exists()  # nothing made: the fixed spec runs as it is
    code, out, err = run("campaign", "run", spec(WORKSHARING.replace("1e300", "100")), "--store",
                         store, "-q", "--json")
    assert code == 0 and json.loads(out)["stored"] == 4 and json.loads(out)["ran"] == 4, err


def boom(payload: int) -> int:
    if payload == 2:
        raise RuntimeError("task 2 breaks")
    return payload


def test_only_an_exception_inside_a_task_is_blamed_on_it(tmp_path):
    tasks = [Task({"x": x}, x) for x in range(5)]
    with ResultStore(tmp_path / "b.sqlite") as store:
        with pytest.raises(RuntimeError) as err:
            run_campaign("b", tasks, boom, store, jobs=1, progress=False)
        failure = failed_task(err.value)
        assert failure.fields == {"x": 2} and (failure.stored, failure.total) == (2, 5)
        assert failure.describe() == "task x=2"
    with ResultStore(tmp_path / "b.sqlite") as store:
        original = store.add_texts

        def full(*args):
            raise StoreError(store.path, "cannot be written: the disk is full")

        store.add_texts = full
        with pytest.raises(StoreError) as err:
            run_campaign("b", [Task({"x": x}, x) for x in range(10, 15)], boom, store, jobs=1,
                         progress=False)
        assert failed_task(err.value) is None and "tasks are stored and kept" in str(err.value)
        store.add_texts = original


def test_a_failing_task_is_exit_1_naming_it(spec, run, tmp_path, monkeypatch):
    from resilsched.campaign import tasks as tasks_module

    def broken(work: Work):
        if work.stream[2] == 3:
            raise ZeroDivisionError("division by zero")
        return tasks_module.attempt(work)[0]

    monkeypatch.setattr(tasks_module, "run_task", broken)
    code, out, err = run("campaign", "run", spec(ISSUE_EXAMPLE), "--store", tmp_path / "f.sqlite",
                         "-q", "--executor", "inline")
    assert code == 1 and out == "" and err.count("\n") == 1, err
    assert err.startswith("error: task instance=uniform-1-00, algorithm=R-LIST-0, "
                          "kind=heuristic, priority=LPT, params={}, qbar=0.1, scenario=3, "
                          "scenario_seed=7 failed: ZeroDivisionError: division by zero; 3/120 "
                          "tasks are stored and kept")


BAD_SPECS = [
    (b'[campaign]\nname = "\xff"\n', "is not UTF-8 text (byte 0xff at offset 19)"),
    (b"x = " + b"[" * 5000 + b"]" * 5000, "is nested too deeply"),
    (ISSUE_EXAMPLE.replace("count = 4", "count = " + "1" * 5000).encode(),
     "holds an integer of more than 4300 digits"),
    (ISSUE_EXAMPLE.replace("count = 4", "count = 1000000").encode(),
     "instances[0].count=1000000 exceeds the maximum 10000"),
    (ISSUE_EXAMPLE.replace("seed = 1", "seed = 9223372036854775808").encode(),
     "instances[0].seed=9223372036854775808 exceeds the maximum 9223372036854775807"),
    (ISSUE_EXAMPLE.replace("count = 5", "count = 2000000").encode(),
     "scenarios.count=2000000 exceeds the maximum 1000000"),
    (ISSUE_EXAMPLE.replace("qbar = [0.1, 0.3]", "qbar = nan").encode(),
     "scenarios.qbar=nan must be a number in [0, 1)"),
    (ISSUE_EXAMPLE.replace('priority = ["LPT", "LA"]', "params = { redraw_on_failure = "
                           "[true, false, true, false, true, false, true, false] }\npriority = ["
                           + ", ".join(['"LPT"'] * 3) + "]").encode(), None),  # a valid grid
    (ISSUE_EXAMPLE.replace("name = \"R-SHELF-B\"\npriority = [\"LPT\"]",
                           "name = \"cpsat-scenario\"\nparams = { seed = -1 }").encode(),
     "algorithms[1].params.seed=-1 must be in [0, 2147483647] for cpsat-scenario"),
]


@pytest.mark.parametrize("text,expected", BAD_SPECS, ids=range(len(BAD_SPECS)))
def test_a_bad_spec_file_is_one_line_naming_the_file_and_the_entry(text, expected, run,
                                                                   tmp_path):
    path = tmp_path / "spec.toml"
    path.write_bytes(text)
    if expected is None:
        assert len(plan(load_spec(path))) == 4 * (8 * 1 + 1) * 2 * 5
        return
    with pytest.raises(SpecError) as err:
        load_spec(path)
    assert str(err.value) == f"{path}: {expected}"
    code, out, errout = run("campaign", "run", path, "--store", tmp_path / "s.sqlite", "-q")
    assert code == 2 and out == "" and errout == f"error: {path}: {expected}\n"


def test_a_grid_too_large_is_refused_before_it_is_built():
    n = ", ".join(str(i) for i in range(4000))
    lam = ", ".join(str(i / 4000) for i in range(1, 4001))
    text = WORKSHARING.replace("params = { n = [1, 1e300] }",
                               f"params = {{ n = [{n}], lam = [{lam}] }}")
    with pytest.raises(SpecError) as err:  # 16 million combinations: not built
        parse_spec(text)
    assert str(err.value) == "<spec>: algorithms[0].params: crosses into more than 10000000 " \
                             "parameter combinations"


def test_planning_reports_its_progress():
    spec = parse_spec(ISSUE_EXAMPLE)
    seen = []
    tasks = plan(spec, progress=seen.append)
    assert seen == [30, 60, 90, 120] and len(tasks) == count_tasks(spec) == 120


def test_the_yardstick_reads_the_trace_its_heuristics_read():
    """A malleable instance with failures that stores no trace: the heuristics draw it from the
    task's seed, and so does the yardstick (``draws_from_seed``), whose objective is then the
    best of theirs (common random numbers; it drew the trace of seed 0 before)."""
    from resilsched.families.malleable import FAMILY
    from resilsched.instances.malleable.generators import generate

    aware = ("NOREDIST", "ENDLOCAL-SAF", "ENDLOCAL-IG", "ENDGREEDY-SAF", "ENDGREEDY-IG")
    assert FAMILY.exact["yardstick"].draws_from_seed
    for k, inst in enumerate(generate(1, 3)):
        assert inst.failures is None and not inst.fault_free
        stream = (7, "ab", k)
        runs = [run_task(Work("malleable", inst, "heuristic", h, stream=stream))["objective"]
                for h in aware]
        ys = run_task(Work("malleable", inst, "exact", "yardstick", stream=stream,
                           time_limit=10))
        assert ys["objective"] == min(runs), inst.name
