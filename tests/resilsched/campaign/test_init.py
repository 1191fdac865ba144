"""Campaigns (docs/architecture.md, "Campaigns and scale"): the SQLite result store, resuming an
interrupted run, the process pool and Dask backends, and the reproductions
(`resilsched.reproduce`) resuming."""

from __future__ import annotations

import hashlib
import re
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from resilsched.campaign import (
    EXIT_INTERRUPTED,
    CampaignError,
    ResultStore,
    Task,
    run_campaign,
    run_script,
    task_key,
)
from resilsched.reproduce import moldable as reproduce_moldable
from resilsched.reproduce import rigid as reproduce_rigid
from resilsched.reproduce import worksharing as reproduce_worksharing
from tests.support.campaign.midrun import wait_for_rows


def draw(payload: dict) -> dict:
    """A task whose every random draw comes from the seed in its payload."""
    rng = np.random.default_rng([payload["seed"], payload["i"]])
    x = rng.random(3)
    return {"i": payload["i"], "sum": float(x.sum()), "pair": (int(rng.integers(100)), 0.5)}


def make_tasks(n: int, seed: int = 7) -> list[Task]:
    return [Task({"i": i, "seed": seed}, {"i": i, "seed": seed}) for i in range(n)]


class Counting:
    """Calls `draw`, records the payloads, raises KeyboardInterrupt on call number `stop_at`."""

    def __init__(self, stop_at: int | None = None, exc: BaseException | None = None):
        self.calls: list[int] = []
        self.stop_at, self.exc = stop_at, exc or KeyboardInterrupt()

    def __call__(self, payload: dict) -> dict:
        if self.stop_at is not None and len(self.calls) + 1 == self.stop_at:
            raise self.exc
        self.calls.append(payload["i"])
        return draw(payload)


# -- the store ------------------------------------------------------------------------------------

def test_store_is_wal_and_persists(tmp_path):
    path = tmp_path / "sub" / "c.sqlite"
    with ResultStore(path) as store:
        assert store.journal_mode == "wal"
        assert store.add("c", "k1", {"x": 1.5}, fields={"i": 1}, seconds=0.25)
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"  # persistent setting
    row = con.execute("SELECT campaign, key, fields, result, seconds FROM results").fetchone()
    assert row == ("c", "k1", '{"i":1}', '{"x": 1.5}', 0.25)
    con.close()
    with ResultStore(path) as store:
        assert store.load("c") == {"k1": {"x": 1.5}}
        assert store.has("c", "k1") and not store.has("c", "k2") and not store.has("d", "k1")


def test_a_result_is_never_stored_twice(tmp_path):
    with ResultStore(tmp_path / "c.sqlite") as store:
        assert store.add("c", "k", [1, 2]) is True
        assert store.add("c", "k", [3, 4]) is False  # INSERT OR IGNORE: the first one stays
        assert store.add("other", "k", [5]) is True  # keys are per campaign
        assert store.count("c") == 1 and store.load("c") == {"k": [1, 2]}
    con = sqlite3.connect(tmp_path / "c.sqlite")
    with pytest.raises(sqlite3.IntegrityError):  # the primary key itself forbids duplicates
        con.execute("INSERT INTO results VALUES ('c', 'k', '{}', '0', NULL, 'now')")
    con.close()


def test_task_key_is_sha256_of_canonical_json():
    expected = hashlib.sha256(b'{"a":[0.1,2],"b":"x"}').hexdigest()
    assert task_key({"b": "x", "a": (0.1, 2)}) == expected
    assert task_key({"a": [np.float64(0.1), np.int64(2)], "b": "x"}) == expected
    assert task_key({"a": [0.1, 2.0], "b": "x"}) != expected  # 2 and 2.0 are different fields


def test_config_mismatch_is_refused_in_one_line(tmp_path):
    with ResultStore(tmp_path / "c.sqlite") as store:
        store.register("exp", {"seed": 1, "scenarios": 20})
        store.register("exp", {"scenarios": 20, "seed": 1})  # same config, any key order
        store.add("exp", "k", 1)
        with pytest.raises(CampaignError) as err:
            store.register("exp", {"seed": 2, "scenarios": 20})
        msg = str(err.value)
        assert "\n" not in msg and "'exp'" in msg and "seed: 1 -> 2" in msg
        assert "scenarios" not in msg and "1 results" in msg and "--fresh" in msg
        fn = Counting()
        with pytest.raises(CampaignError):
            run_campaign("exp", make_tasks(2), fn, store, config={"seed": 2}, jobs=1)
        assert fn.calls == []
        assert store.forget("exp") == 1 and store.count("exp") == 0
        store.register("exp", {"seed": 2})  # after forgetting, a new configuration is fine
        assert store.config("exp") == {"seed": 2}


# -- running and resuming -------------------------------------------------------------------------

def test_inline_run_returns_all_results_in_task_order():
    tasks = make_tasks(6)
    store = ResultStore(":memory:")
    res = run_campaign("c", tasks, draw, store, jobs=1, progress=False)
    assert res == [{"i": i, "sum": draw(t.payload)["sum"], "pair": list(draw(t.payload)["pair"])}
                   for i, t in enumerate(tasks)]  # normalised through JSON: tuples are lists
    assert store.count("c") == 6


@pytest.mark.parametrize("k", [0, 3, 9])
def test_interrupted_run_resumes_with_only_the_missing_tasks(tmp_path, k, capsys):
    tasks = make_tasks(10)
    reference = run_campaign("c", tasks, draw, ResultStore(":memory:"), jobs=1, progress=False)
    path = tmp_path / "c.sqlite"
    first = Counting(stop_at=k + 1)
    with ResultStore(path) as store, pytest.raises(KeyboardInterrupt):
        run_campaign("c", tasks, first, store, jobs=1)
    assert first.calls == list(range(k))
    err = capsys.readouterr().err
    assert f"interrupted: {k}/10 tasks stored in {path}; run the same command again to resume" \
        in err
    second = Counting()
    with ResultStore(path) as store:
        assert store.count("c") == k
        res = run_campaign("c", tasks, second, store, jobs=1)
        assert store.count("c") == 10
    assert second.calls == list(range(k, 10))
    assert res == reference
    if k:
        assert f"{10 - k} tasks to run (inline), {k} already stored" in capsys.readouterr().err


def test_subset_then_full_list_and_duplicate_keys():
    tasks = make_tasks(8)
    store = ResultStore(":memory:")
    run_campaign("c", tasks[2:5], draw, store, jobs=1, progress=False)
    fn = Counting()
    res = run_campaign("c", tasks + tasks[:2], fn, store, jobs=1, progress=False)
    assert sorted(fn.calls) == [0, 1, 5, 6, 7]  # stored ones skipped, duplicates run once
    assert res == run_campaign("fresh", tasks + tasks[:2], draw, ResultStore(":memory:"),
                               jobs=1, progress=False)
    assert store.count("c") == 8


def test_a_failing_task_keeps_what_is_stored():
    store = ResultStore(":memory:")
    fn = Counting(stop_at=4, exc=ValueError("boom"))
    with pytest.raises(ValueError, match="boom"):
        run_campaign("c", make_tasks(6), fn, store, jobs=1, progress=False)
    assert store.count("c") == 3


def test_process_pool_equals_inline(tmp_path):
    tasks = make_tasks(12, seed=3)
    inline = run_campaign("c", tasks, draw, ResultStore(":memory:"), jobs=1, progress=False)
    with ResultStore(tmp_path / "p.sqlite") as store:
        run_campaign("c", tasks[::3], draw, store, jobs=2, progress=False)  # partly stored
        pooled = run_campaign("c", tasks, draw, store, jobs=2, progress=False)
        assert store.count("c") == 12
    assert pooled == inline


SLOW_CAMPAIGN = '''
import sys, time
from resilsched.campaign import ResultStore, Task, run_campaign

def work(x):
    time.sleep(0.15)
    return [x, x * x]

if __name__ == "__main__":
    tasks = [Task({"x": x}, x) for x in range(24)]
    with ResultStore(sys.argv[1]) as store:
        try:
            res = run_campaign("slow", tasks, work, store, jobs=2)
        except KeyboardInterrupt:
            sys.exit(130)
    print(sum(r[1] for r in res))
'''


def _default_sigint() -> None:
    """In the child: SIGINT back to its default (a test run started in the background by a
    non-interactive shell ignores SIGINT, and the child would inherit that)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_on_the_process_pool_keeps_stored_results(tmp_path):
    script = tmp_path / "slow.py"
    script.write_text(textwrap.dedent(SLOW_CAMPAIGN))
    store = tmp_path / "slow.sqlite"
    proc = subprocess.Popen([sys.executable, str(script), str(store)], stderr=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, preexec_fn=_default_sigint)
    wait_for_rows(store, 6, proc)  # interrupt once a few tasks are stored
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == EXIT_INTERRUPTED, err
    assert "interrupted:" in err and "Traceback" not in err
    stored = ResultStore(store).count("slow")
    assert 6 <= stored < 24
    rerun = subprocess.run([sys.executable, str(script), str(store)], capture_output=True,
                           text=True, timeout=60, check=True)
    assert f"{24 - stored} tasks to run (2 processes), {stored} already stored" in rerun.stderr
    assert int(rerun.stdout) == sum(x * x for x in range(24))
    assert ResultStore(store).count("slow") == 24


# -- Dask -------------------------------------------------------------------------------------

def test_dask_client_equals_inline():
    distributed = pytest.importorskip("distributed")
    tasks = make_tasks(5)
    inline = run_campaign("c", tasks, draw, ResultStore(":memory:"), jobs=1, progress=False)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        store = ResultStore(":memory:")
        run_campaign("c", tasks[:2], draw, store, jobs=1, progress=False)
        assert run_campaign("c", tasks, draw, store, dask=client, progress=False) == inline
        assert store.count("c") == 5


def test_missing_dask_is_one_line_naming_the_option(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    with pytest.raises(CampaignError) as err:
        run_campaign("c", make_tasks(2), draw, ResultStore(":memory:"), dask="local")
    msg = str(err.value)
    assert "\n" not in msg and msg.startswith("--dask") and "resilsched[dask]" in msg


# -- the reproductions (resilsched.reproduce, run by `resilsched reproduce FAMILY`) ------------


def interrupt_after(monkeypatch, module, attr: str, k: int) -> list:
    """Make `module.attr` raise KeyboardInterrupt on its (k+1)-th call; returns the call log."""
    calls: list = []
    real = getattr(module, attr)

    def fn(payload):
        if k is not None and len(calls) == k:
            raise KeyboardInterrupt
        calls.append(payload)
        return real(payload)
    monkeypatch.setattr(module, attr, fn)
    return calls


def interrupted_then_logged(monkeypatch, module, attr: str, k: int, run) -> list:
    """`run()` with `module.attr` interrupted on its (k+1)-th call must exit with the
    interrupted status; then `module.attr` only logs its calls (for the resumed run)."""
    interrupt_after(monkeypatch, module, attr, k)
    assert run() == EXIT_INTERRUPTED
    monkeypatch.undo()
    return interrupt_after(monkeypatch, module, attr, None)


RIGID = ["--sets", "2", "--scenarios", "2", "--qbars", "0,0.3", "--Ps", "5000,10000",
         "--only", "fig4,table1", "--mira-days", "2", "--mira-scenarios", "2", "--no-plots",
         "--jobs", "1", "--reservations", "fresh"]
RIGID_CSV = ("synthetic.csv", "synthetic_per_set.csv", "table1.csv", "table1_per_day.csv")


def test_reproduce_rigid_resumes_to_the_same_outputs(tmp_path, monkeypatch, capsys):
    rr = reproduce_rigid
    assert rr.main(RIGID + ["--out", str(tmp_path / "ref")]) == 0
    out = tmp_path / "run"
    calls = interrupted_then_logged(monkeypatch, rr, "run_task", 5,
                                    lambda: rr.main(RIGID + ["--out", str(out)]))
    assert "[synthetic] interrupted: 5/8 tasks stored" in capsys.readouterr().err
    assert rr.main(RIGID + ["--out", str(out)]) == 0
    assert len(calls) == 3 + 10  # the 3 missing synthetic tasks, then all of Table 1
    for name in RIGID_CSV:
        assert (out / name).read_text() == (tmp_path / "ref" / name).read_text(), name
    summary = (out / "summary.md").read_text().splitlines()
    assert summary[:-1] == (tmp_path / "ref" / "summary.md").read_text().splitlines()[:-1]
    # rerunning does nothing; --fresh starts over; another configuration is refused
    calls.clear()
    assert rr.main(RIGID + ["--out", str(out)]) == 0 and calls == []
    assert rr.main(RIGID + ["--out", str(out), "--fresh", "--only", "fig4"]) == 0
    assert len(calls) == 8
    capsys.readouterr()
    assert rr.main(RIGID + ["--out", str(out), "--scenarios", "3"]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]  # after the run's header line
    assert err.startswith("reproduce_rigid.py: error: campaign 'rigid-synthetic'")
    assert "scenarios: 2 -> 3" in err


def test_reproduce_rigid_missing_dask_exits_2(tmp_path, monkeypatch, capsys):
    rr = reproduce_rigid
    monkeypatch.setitem(sys.modules, "distributed", None)
    assert rr.main(RIGID + ["--out", str(tmp_path), "--dask", "local"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "--dask" in err and "pip install 'resilsched[dask]'" in err


def test_reproduce_moldable_resumes_to_the_same_table(tmp_path, monkeypatch, capsys):
    rm = reproduce_moldable
    args = ["--sets", "2", "--scenarios", "1", "--algos", "LPA", "--jobs", "1"]
    assert rm.main(args + ["--out", str(tmp_path / "ref"), "--csv", str(tmp_path / "a.csv")]) == 0
    ref = capsys.readouterr().out
    calls = interrupted_then_logged(monkeypatch, rm, "run_set", 7,
                                    lambda: rm.main(args + ["--out", str(tmp_path / "run")]))
    capsys.readouterr()
    assert rm.main(args + ["--out", str(tmp_path / "run"), "--csv", str(tmp_path / "b.csv")]) == 0
    assert len(calls) == 12 - 7
    assert capsys.readouterr().out == ref
    assert (tmp_path / "a.csv").read_text() == (tmp_path / "b.csv").read_text()


def test_reproduce_worksharing_resumes_to_the_same_csv(tmp_path, monkeypatch, capsys):
    ws = reproduce_worksharing
    args = ["e4", "--trials", "4", "--jobs", "1"]
    assert ws.main(args + ["--out", str(tmp_path / "ref")]) == 0
    ref = capsys.readouterr().out
    calls = interrupted_then_logged(monkeypatch, ws, "config_task", 6,
                                    lambda: ws.main(args + ["--out", str(tmp_path / "run")]))
    capsys.readouterr()
    assert ws.main(args + ["--out", str(tmp_path / "run")]) == 0
    assert len(calls) == 13 - 6
    assert capsys.readouterr().out == ref
    assert (tmp_path / "run" / "e4.csv").read_text() == (tmp_path / "ref" / "e4.csv").read_text()


@pytest.mark.slow
def test_reproduce_rigid_ctrl_c_on_the_pool_then_resume(tmp_path):
    """A real SIGINT to `resilsched reproduce rigid` on 2 processes, then the same command."""
    args = [sys.executable, "-m", "resilsched", "reproduce", "rigid", "--sets", "12",
            "--scenarios", "100", "--qbars", "0,0.3", "--Ps", "5000,10000", "--only", "fig5",
            "--no-plots", "--jobs", "2"]  # ~3 s of tasks: the signal lands among them
    subprocess.run(args + ["--out", str(tmp_path / "ref")], check=True, capture_output=True)
    proc = subprocess.Popen(args + ["--out", str(tmp_path / "run")], stderr=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, text=True,
                            preexec_fn=_default_sigint)
    seen = []
    while True:  # interrupt soon after the tasks start: most of them are still to run (the run
        line = proc.stderr.readline()  # takes seconds: the compiled core is fast, and the first
        seen.append(line)  # progress line may come only near its end)
        if not line or re.match(r"\[synthetic\] \d+ tasks to run", line):
            break
    time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == EXIT_INTERRUPTED and "interrupted:" in err, \
        (proc.returncode, "".join(seen)[-2000:], err)
    rerun = subprocess.run(args + ["--out", str(tmp_path / "run")], check=True,
                           capture_output=True, text=True)
    assert "already stored" in rerun.stderr
    for name in ("synthetic.csv", "synthetic_per_set.csv"):
        assert (tmp_path / "run" / name).read_text() == (tmp_path / "ref" / name).read_text()


def test_ctrl_c_after_the_tasks_still_says_interrupted(tmp_path, capsys):
    """Ctrl-C while a reproduction writes its files (after every task): one line, status 130;
    Ctrl-C among the tasks: only the task runner's line (how many are stored)."""
    def late() -> int:
        raise KeyboardInterrupt

    assert run_script("prog", None, late) == EXIT_INTERRUPTED
    assert capsys.readouterr().err == ("prog: interrupted: every finished task is stored; "
                                       "run the same command again to resume\n")

    def among_tasks() -> int:
        store = ResultStore(tmp_path / "s.sqlite")

        def fn(payload: int) -> int:
            raise KeyboardInterrupt

        run_campaign("demo", [Task(1, 1)], fn, store, jobs=1, progress=False)
        return 0

    assert run_script("prog", None, among_tasks) == EXIT_INTERRUPTED
    err = capsys.readouterr().err
    assert "[demo] interrupted: 0/1 tasks stored" in err and "prog:" not in err
