"""Campaigns past one machine (docs/campaigns.md, "A SLURM job array"): ``campaign run --shard
I/N`` runs a slice that depends only on the task keys and N, and ``campaign merge`` puts the
shards' stores together, refusing stores of another spec, keeping a task stored twice once,
reporting the tasks no store holds, and never writing its inputs."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from resilsched.campaign.plan import plan, shard_of, shard_slice
from resilsched.campaign.spec import load_spec
from resilsched.campaign.store import task_key
from tests.support.campaign.fixtures import ISSUE_EXAMPLE
from tests.support.campaign.midrun import SLOW_SHARDS, stored, wait_for_rows

CLI = [sys.executable, "-m", "resilsched"]


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# -- the slices ---------------------------------------------------------------------------------

def test_the_shards_partition_the_campaign_whatever_the_order(spec):
    tasks = plan(load_spec(spec(ISSUE_EXAMPLE)))
    keys = [t.key for t in tasks]
    for count in (1, 3, 4, 7):
        slices = [shard_slice(tasks, i, count) for i in range(1, count + 1)]
        assert sorted(t.key for s in slices for t in s) == sorted(keys)  # each task once
        again = [shard_slice(tasks[::-1], i, count) for i in range(1, count + 1)]
        assert [{t.key for t in s} for s in again] == [{t.key for t in s} for s in slices]
    assert min(len(shard_slice(tasks, i, 4)) for i in (1, 2, 3, 4)) >= 15  # 120 tasks, ~30 each
    # a pure function of the key: the first 64 bits of the sha256 of the fields, modulo N
    key = task_key({"x": 1})
    assert key == hashlib.sha256(b'{"x":1}').hexdigest()
    assert shard_of(key, 4) == int(key[:16], 16) % 4 + 1


@pytest.mark.parametrize("bad", ["0/4", "5/4", "a/b", "1/0", "2", "1/2000000", "-1/4", "1/4/5"])
def test_a_bad_shard_is_one_line(run, spec, tmp_path, bad):
    code, out, err = run("campaign", "run", spec(ISSUE_EXAMPLE), f"--shard={bad}",
                         "--store", tmp_path / "s.sqlite")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("error: --shard=") and "1 <= I <= N <= 1000000" in err
    assert not (tmp_path / "s.sqlite").exists()


def test_a_shard_runs_its_slice_and_says_so(run, spec, tmp_path):
    path = spec(ISSUE_EXAMPLE)
    mine = {t.key for t in shard_slice(plan(load_spec(path)), 3, 4)}
    store = tmp_path / "shard-3.sqlite"
    code, out, err = run("campaign", "run", path, "--shard", "3/4", "--store", store,
                         "--executor", "inline", "--json")
    assert code == 0, err
    r = json.loads(out)
    assert r["shard"] == {"index": 3, "count": 4, "campaign_tasks": 120}
    assert r["tasks"] == r["ran"] == r["stored"] == len(mine)
    assert set(stored(store)) == mine
    assert f"{len(mine)} tasks to run (inline, shard 3/4), 0 already stored" in err
    con = sqlite3.connect(store)
    assert con.execute("SELECT executor FROM runs").fetchall() == [("inline, shard 3/4",)]
    con.close()
    code, out, _ = run("campaign", "run", path, "--shard", "3/4", "--store", store, "-q")
    assert code == 0 and out.startswith(f"campaign rigid-qbar shard 3/4 ({len(mine)} of its "
                                        f"120 tasks): {len(mine)} rows")
    assert "next: resilsched campaign merge" in out


def test_every_shard_checks_the_parameters_and_keeps_only_its_rows(run, spec, tmp_path):
    """The parameter check (K24) runs the same probes in every shard; a probe of another
    shard's slice is not stored."""
    path = spec(ISSUE_EXAMPLE.replace('name = "R-SHELF-B"\npriority = ["LPT"]',
                                      'name = "R-SHELF-B"\npriority = ["LPT"]\n'
                                      'params = { redraw_on_failure = [false, true] }'))
    tasks = plan(load_spec(path))
    for i in (1, 2):
        store = tmp_path / f"shard-{i}.sqlite"
        code, _, err = run("campaign", "run", path, "--shard", f"{i}/2", "--store", store,
                           "--executor", "inline", "-q")
        assert code == 0, err
        assert set(stored(store)) == {t.key for t in shard_slice(tasks, i, 2)}


# -- 4 shards as separate processes, one killed, rerun, merged --------------------------------

@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_four_shards_one_killed_and_rerun_merge_into_the_unsharded_rows(run, spec, tmp_path):
    """The shards are processes (one is killed); the merges, the rerun and the unsharded run
    after them run in-process."""
    path = spec(SLOW_SHARDS)
    stores = [tmp_path / f"shard-{i}.sqlite" for i in (1, 2, 3, 4)]
    sizes = [len(shard_slice(plan(load_spec(path)), i, 4)) for i in (1, 2, 3, 4)]

    def shard(i: int) -> list[str]:
        return [*CLI, "campaign", "run", path, "--shard", f"{i}/4", "--store", str(stores[i - 1]),
                "--executor", "inline", "-q"]

    procs = [subprocess.Popen(shard(i), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True) for i in (1, 2, 3, 4)]
    seen = wait_for_rows(stores[1], 1, procs[1])
    procs[1].send_signal(signal.SIGKILL)  # shard 2, after its first row
    assert procs[1].wait(timeout=30) == -signal.SIGKILL
    for i in (0, 2, 3):
        _, err = procs[i].communicate(timeout=300)
        assert procs[i].returncode == 0, err
    killed = len(stored(stores[1]))
    assert 1 <= seen <= killed < sizes[1]  # it died with most of its slice to do

    merge = ["campaign", "merge", *map(str, stores), "--store", str(tmp_path / "all.sqlite"),
             "--spec", path, "--json", "-q"]
    code, out, err = run(*merge)
    assert code == 1, err  # shard 2 is incomplete
    found = json.loads(out)
    assert found["missing"] == sizes[1] - killed and not found["complete"]
    assert found["missing_by_shard"] == {"2/4": sizes[1] - killed}

    code, out, err = run(*shard(2)[len(CLI):], "--json")
    assert code == 0, err
    assert json.loads(out)["ran"] == sizes[1] - killed

    before = {p: digest(p) for p in stores}
    code, out, err = run(*merge)
    assert code == 0, err
    merged = json.loads(out)
    assert merged["complete"] and merged["missing"] == 0 and merged["stored"] == 320
    assert merged["added"] == sizes[1] - killed  # the rest was merged before
    assert merged["duplicates"] == 320 - (sizes[1] - killed) and merged["conflicts"] == 0
    assert {p: digest(p) for p in stores} == before  # the inputs are only read

    whole = tmp_path / "whole.sqlite"
    code, _, err = run("campaign", "run", path, "--store", whole, "--jobs", "2", "-q")
    assert code == 0, err
    assert stored(tmp_path / "all.sqlite") == stored(whole)  # row by row: fields and results
    con = sqlite3.connect(tmp_path / "all.sqlite")
    executors = sorted(e for (e,) in con.execute("SELECT executor FROM runs"))
    con.close()
    assert executors == ["inline, shard 1/4", "inline, shard 2/4", "inline, shard 2/4",
                         "inline, shard 3/4", "inline, shard 4/4"]  # every run, once


# -- merge: refusals, duplicates, conflicts, damaged rows -------------------------------------

@pytest.fixture(scope="module")
def shards(tmp_path_factory) -> tuple[Path, list[Path]]:
    """The issue's example in 3 shard stores: (spec path, stores)."""
    from resilsched.cli import main

    folder = tmp_path_factory.mktemp("shards")
    path = folder / "rigid-qbar.toml"
    path.write_text(ISSUE_EXAMPLE)
    stores = [folder / f"shard-{i}.sqlite" for i in (1, 2, 3)]
    for i, store in enumerate(stores, 1):
        assert main(["campaign", "run", str(path), "--shard", f"{i}/3", "--store", str(store),
                     "--executor", "inline", "-q"]) == 0
    return path, stores


def test_merge_text_and_a_second_merge_adds_nothing(run, shards, tmp_path):
    path, stores = shards
    out_path = tmp_path / "all.sqlite"
    code, out, err = run("campaign", "merge", *stores, "--store", out_path, "--spec", path)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == (f"merged campaign rigid-qbar from 3 store(s) into {out_path}: 120 rows "
                        "(120 new, 0 duplicates)")
    assert lines[-1] == f"all 120 tasks of the spec are stored; next: resilsched report " \
                        f"{out_path} --out DIR"
    code, out, _ = run("campaign", "merge", *stores, stores[0], "--store", out_path, "--json",
                       "-q")
    r = json.loads(out)
    assert code == 0 and r["added"] == 0 and r["duplicates"] == r["rows"] > 120
    assert r["missing"] is None and r["complete"]  # no spec: nothing to check against
    code, _, err = run("report", out_path, "--out", tmp_path / "report", "--no-plots")
    assert code == 0, err


def test_missing_tasks_are_counted_per_shard_exit_1(run, shards, tmp_path):
    path, stores = shards
    sizes = [len(stored(s)) for s in stores]
    code, out, _ = run("campaign", "merge", stores[0], "--store", tmp_path / "part.sqlite",
                       "--spec", path)
    assert code == 1
    assert (f"INCOMPLETE: {sizes[1] + sizes[2]} of the 120 tasks of the spec are in no store "
            f"(shard 2/3: {sizes[1]}, shard 3/3: {sizes[2]})") in out
    assert out.count("  missing: task instance=") == 3


def test_stores_of_another_spec_are_refused_before_anything_is_written(run, shards, spec,
                                                                        tmp_path):
    path, stores = shards
    other = tmp_path / "other.sqlite"
    code, _, err = run("campaign", "run", spec(ISSUE_EXAMPLE.replace("count = 5", "count = 6")),
                       "--store", other, "--executor", "inline", "-q")
    assert code == 0, err
    out_path = tmp_path / "all.sqlite"
    code, out, err = run("campaign", "merge", *stores, other, "--store", out_path)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"error: {other}: campaign 'rigid-qbar' has another configuration "
                          f"than {stores[0]} (scenarios: ")
    assert not out_path.exists()
    code, _, err = run("campaign", "merge", other, "--store", out_path, "--spec", path)
    assert code == 2 and "than the spec" in err and not out_path.exists()
    # an output holding the other configuration is refused, and left as it was
    before = digest(other)
    code, _, err = run("campaign", "merge", *stores, "--store", other)
    assert code == 2 and err.startswith(f"error: --store {other}: campaign 'rigid-qbar' has "
                                        "another configuration") and "another --store" in err
    assert digest(other) == before


@pytest.mark.parametrize("case", ["output is an input", "not a store", "no such store",
                                  "another campaign", "two campaigns", "campaign not the spec's"])
def test_merge_refusals_are_one_line(run, shards, spec, tmp_path, case):
    path, stores = shards
    out_path = tmp_path / "all.sqlite"
    text = tmp_path / "notes.txt"
    text.write_text("not a store\n")
    renamed = tmp_path / "renamed.sqlite"
    if case in ("another campaign", "two campaigns"):
        code, _, err = run("campaign", "run", spec(ISSUE_EXAMPLE.replace(
            'name = "rigid-qbar"', 'name = "renamed"')), "--store", renamed, "--executor",
            "inline", "-q")
        assert code == 0, err
    argv, words = {
        "output is an input": ([*stores, "--store", stores[1]], f"--store {stores[1]}: is also "
                                                                f"an input ({stores[1]})"),
        "not a store": ([stores[0], text, "--store", out_path], f"{text}: "),
        "no such store": ([stores[0], tmp_path / "none.sqlite", "--store", out_path],
                          "no such store"),
        "another campaign": ([renamed, "--store", out_path, "--spec", path],
                             f"{renamed} holds no campaign 'rigid-qbar' (it holds renamed)"),
        "two campaigns": ([stores[0], renamed, "--store", out_path],
                          "the stores hold 2 campaigns; choose one with --campaign "
                          "(rigid-qbar, renamed)"),
        "campaign not the spec's": ([stores[0], "--store", out_path, "--spec", path,
                                     "--campaign", "renamed"], "is not the campaign of the spec"),
    }[case]
    before = {p: digest(p) for p in stores}
    code, out, err = run("campaign", "merge", *argv)
    assert code == 2 and out == "" and err.count("\n") == 1 and words in err, err
    assert err.startswith("error: ")
    assert not out_path.exists() and {p: digest(p) for p in stores} == before
    assert not (tmp_path / "none.sqlite").exists()


def test_damaged_rows_are_left_out_and_conflicts_named(run, shards, tmp_path):
    """A copy of a shard with one result changed (a conflict), one result NaN and one key that
    is not its fields' (left out): the first store's rows are kept."""
    path, stores = shards
    bad = tmp_path / "edited.sqlite"
    shutil.copy(stores[0], bad)
    con = sqlite3.connect(bad)
    keys = [k for (k,) in con.execute("SELECT key FROM results ORDER BY key LIMIT 3")]
    with con:
        con.execute("UPDATE results SET result = ? WHERE key = ?", ('{"objective": 1}', keys[0]))
        con.execute("UPDATE results SET result = ? WHERE key = ?", ('{"objective": NaN}',
                                                                    keys[1]))
        con.execute("UPDATE results SET key = ? WHERE key = ?", ("0" * 64, keys[2]))
    con.close()
    out_path = tmp_path / "all.sqlite"
    code, out, err = run("campaign", "merge", *stores, bad, "--store", out_path, "--json", "-q")
    assert code == 0, err
    r = json.loads(out)
    assert r["conflicts"] == 1 and r["left_out"] == 2 and r["stored"] == 120
    edited = r["inputs"][3]
    assert edited["conflicts"] == [keys[0]]
    assert sorted(edited["left_out"]) == sorted([
        f"key {keys[1][:12]}: result holds NaN, not a JSON number",
        "key 000000000000: the key is not the key of its fields"])
    warnings = err.splitlines()
    assert len(warnings) == 2 and all(w.startswith("warning: ") for w in warnings)
    assert "1 task(s) stored with different results in two stores (kept the first seen" in err
    assert stored(out_path) == {**stored(stores[0]), **stored(stores[1]), **stored(stores[2])}
    # the edited store alone first: its rows win, the others' become conflicts
    first = tmp_path / "first.sqlite"
    code, out, _ = run("campaign", "merge", bad, *stores, "--store", first, "--json", "-q")
    assert code == 0 and json.loads(out)["conflicts"] == 1
    assert json.loads(stored(first)[keys[0]][1]) == {"objective": 1}


def test_merge_reads_a_store_whose_writer_was_killed(run, shards, tmp_path):
    """Rows still in the -wal file of a killed writer are merged; the file is not changed."""
    path, stores = shards
    live = tmp_path / "live.sqlite"
    shutil.copy(stores[0], live)
    code = ("import sqlite3, os, sys; c = sqlite3.connect(sys.argv[1]); "
            "c.execute('PRAGMA journal_mode=WAL'); "
            "c.execute(\"UPDATE results SET seconds = 1.5\"); c.commit(); os._exit(0)")
    subprocess.run([sys.executable, "-c", code, str(live)], check=True)
    wal = Path(f"{live}-wal")
    assert wal.exists() and wal.stat().st_size > 0  # the rows are in the -wal file only
    before = (digest(live), digest(wal))
    code, out, err = run("campaign", "merge", live, "--store", tmp_path / "all.sqlite", "--json",
                         "-q")
    assert code == 0, err
    assert json.loads(out)["added"] == len(stored(stores[0]))
    con = sqlite3.connect(tmp_path / "all.sqlite")
    assert {s for (s,) in con.execute("SELECT seconds FROM results")} == {1.5}
    con.close()
    assert (digest(live), digest(wal)) == before
    assert os.path.exists(live)


def test_the_progress_line_and_the_summary_count_the_parameter_check_alike(run, spec, tmp_path):
    """The rows the parameter check stores are run now, said so on the first progress line, not
    'already stored', and carry their time like every other row (audit finding 4)."""
    path = spec(ISSUE_EXAMPLE.replace('name = "R-SHELF-B"\npriority = ["LPT"]',
                                      'name = "R-SHELF-B"\npriority = ["LPT"]\n'
                                      'params = { redraw_on_failure = [false, true] }'))
    store = tmp_path / "all.sqlite"
    code, out, err = run("campaign", "run", path, "--store", store, "--executor", "inline",
                         "--json")
    assert code == 0, err
    r = json.loads(out)
    assert r["ran"] == r["tasks"] == r["stored"] and r["already_stored"] == 0
    con = sqlite3.connect(store)
    (checked,), = con.execute("SELECT tasks FROM runs WHERE executor LIKE '%parameter check%'")
    assert con.execute("SELECT count(*) FROM results WHERE seconds IS NULL").fetchone() == (0,)
    con.close()
    assert checked >= 1
    assert (f"{r['tasks'] - checked} tasks to run (inline), {checked} run by the parameter "
            "check, 0 already stored") in err
