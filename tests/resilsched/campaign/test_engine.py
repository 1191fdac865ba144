"""`resilsched campaign run` (docs/campaigns.md): the issue's example as written, resuming,
identical rows under every executor, versions recorded, chunks sized to the task time."""

from __future__ import annotations

import json
import threading
import time
from concurrent.futures import Future

import pytest

from resilsched.campaign import ResultStore, Task, run_campaign
from resilsched.campaign.claims import Claims
from resilsched.campaign.engine import _claimed_chunks, _dispatch
from resilsched.campaign.workers import ChunkSizer, run_chunk
from tests.support.campaign.fixtures import ISSUE_EXAMPLE, RIGID_EXACT


def rows_of(path) -> dict:
    with ResultStore(path) as store:
        (name,) = store.campaigns()
        return {key: (fields, result) for key, fields, result, _, _ in store.rows(name)}


def test_the_issue_example_runs_as_written_and_resumes(spec, run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = spec(ISSUE_EXAMPLE, "rigid-qbar")
    code, out, err = run("campaign", "run", "rigid-qbar.toml", "--store", "results.sqlite")
    assert code == 0, err
    assert "120 tasks to run" in err and "120/120 tasks (100 %)" in err
    assert out.startswith("campaign rigid-qbar: 120 rows in results.sqlite (120 run now")
    rows = rows_of(tmp_path / "results.sqlite")
    assert len(rows) == 120
    fields, result = rows[min(rows)]
    assert set(result) == {"objective", "reference_bound", "ratio", "failures"}
    assert result["ratio"] == pytest.approx(result["objective"] / result["reference_bound"])
    assert result["ratio"] >= 1 - 1e-12  # L(f) is a lower bound of the makespan
    # rerunning runs nothing; --json is one object
    code, out, err = run("campaign", "run", path, "--store", "results.sqlite", "--json", "-q")
    assert code == 0 and err == ""
    assert json.loads(out) | {"wall_time": 0} == {
        "campaign": "rigid-qbar", "store": "results.sqlite", "tasks": 120, "ran": 0,
        "by_others": 0, "already_stored": 120, "stored": 120, "refused": 0, "shard": None,
        "wall_time": 0}
    # another spec under the same name is refused in one line; --fresh starts over
    spec(ISSUE_EXAMPLE.replace("count = 5", "count = 6"), "rigid-qbar")
    code, _, err = run("campaign", "run", path, "--store", "results.sqlite", "-q")
    assert code == 2 and err.count("\n") == 1
    assert "campaign 'rigid-qbar'" in err and "--fresh" in err
    code, out, _ = run("campaign", "run", path, "--store", "results.sqlite", "--fresh", "-q",
                       "--executor", "inline", "--json")
    assert code == 0 and json.loads(out)["ran"] == 144
    assert rows_of(tmp_path / "results.sqlite").keys() >= rows.keys()  # same keys, 24 more


def test_every_executor_gives_the_same_rows(spec, run, tmp_path):
    """Inline, a 2-process pool and a 2-worker local Dask cluster, on heuristics and
    deterministic exact solves; the store records the versions of each run."""
    pytest.importorskip("distributed")
    path = spec(RIGID_EXACT)
    found = {}
    for executor in ("inline", "pool", "dask"):
        store = tmp_path / f"{executor}.sqlite"
        code, _, err = run("campaign", "run", path, "--store", store, "--executor", executor,
                           "--jobs", "2", "-q")
        assert code == 0, err
        found[executor] = rows_of(store)
        with ResultStore(store) as s:
            check, r = s.runs("small-exact")  # the non-default parameters are tried first
        assert check["executor"] == "inline (parameter check)" and check["tasks"] == 2
        assert r["tasks"] == 38 and set(r["versions"]) == {
            "python", "resilsched", "numpy", "ortools", "highspy"}
        assert r["executor"] == {"inline": "inline", "pool": "2 processes",
                                 "dask": "Dask (local)"}[executor]
    assert len(found["inline"]) == 40
    assert found["pool"] == found["inline"]
    assert found["dask"] == found["inline"]
    exact = [r for f, r in found["inline"].values() if f["kind"] == "exact"]
    assert len(exact) == 8 and all(r["status"] == "optimal" for r in exact)


def test_chunks_grow_to_the_target_and_keep_one_row_per_task():
    """Millisecond tasks travel in chunks of about `chunk_seconds` of work; every task still
    gets its own row, in the order the chunks arrive."""
    sizes, stored = [], []

    def work(x: int) -> int:
        time.sleep(0.001)
        return x * x

    def submit(payloads):
        sizes.append(len(payloads))
        fut: Future = Future()
        fut.set_result(run_chunk(work, payloads))
        return fut

    todo = {f"k{i}": ("{}", Task({"i": i}, i)) for i in range(400)}
    sizer = ChunkSizer(0.05, 2)
    chunks = _claimed_chunks(list(todo), todo, sizer, Claims(ResultStore(":memory:"), "c"), [],
                             lambda keys: None)
    _dispatch(chunks, sizer, todo, submit, lambda fs: {next(iter(fs))},
              lambda keys, rows: stored.extend(zip(keys, rows, strict=True)), lambda: None,
              workers=2)
    assert sizes[:2] == [1, 1]  # probes
    assert max(sizes) >= 20 and len(sizes) < 40  # ~0.05 s / ~1 ms per message
    assert sorted(k for k, _ in stored) == sorted(todo)
    assert {k: json.loads(r[0]) for k, r in stored} == {f"k{i}": i * i for i in range(400)}


def test_chunk_sizer_spreads_the_tail():
    s = ChunkSizer(target=1.0, workers=2)
    s.observe(4, 4.0)  # one second per task: one task per message
    assert s.size(100) == 1
    s.observe(1000, 0.0)
    assert s.size(10) == 3  # ceil(10 / 4): the last tasks are spread over both workers


def failing(x: int) -> int:
    if x == 3:
        raise ValueError("task 3 fails")
    return x


def test_a_failing_task_in_a_chunk_keeps_the_rows_before_it(tmp_path):
    rows, error, trace = run_chunk(failing, [1, 2, 3, 4])
    assert [json.loads(text) for text, _ in rows] == [1, 2]
    assert isinstance(error, ValueError) and "task 3 fails" in trace
    tasks = [Task({"x": x}, x) for x in range(8)]
    with ResultStore(tmp_path / "f.sqlite") as store:
        with pytest.raises(ValueError, match="task 3 fails") as err:
            run_campaign("f", tasks, failing, store, jobs=2, progress=False)
        assert any("in a campaign worker" in note for note in err.value.__notes__)
        assert "3" not in {json.dumps(r) for r in store.load("f").values()}


class Unpicklable(Exception):
    """Holds a lock: no pickler can send it (tblib, which distributed may install, neither)."""

    def __init__(self, a, b):
        super().__init__(f"{a} {b}")
        self.lock = threading.Lock()


def raises_unpicklable(x: int) -> int:
    raise Unpicklable(x, "bad")


def test_an_exception_that_cannot_travel_does_not_break_the_pool(tmp_path):
    from resilsched.campaign.workers import TaskError
    from resilsched.errors import InvalidInstance

    err = InvalidInstance("--param n", "-3 must be >= 0")
    import pickle
    assert str(pickle.loads(pickle.dumps(err))) == str(err)
    with ResultStore(tmp_path / "u.sqlite") as store, pytest.raises(TaskError, match="Unpicklable"):
        run_campaign("u", [Task({"x": 1}, 1)] * 1 + [Task({"x": 2}, 2)], raises_unpicklable,
                     store, jobs=2, progress=False)
