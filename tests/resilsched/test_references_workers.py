"""A heuristic of one's own runs in worker processes by import, never by relying on fork
(issue 22, point 1): campaigns and ``gap --library`` on a process pool whose workers are
*spawned* (fresh interpreters that know only the reference string), and ``report`` showing the
plug-in's name and docstring."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from resilsched.campaign import ResultStore

SPAWN = ("import multiprocessing, sys; multiprocessing.set_start_method('spawn'); "
         "from resilsched.cli import main; sys.exit(main(sys.argv[1:]))")

SPEC = textwrap.dedent('''
    [campaign]
    name = "mine"
    [[instances]]
    family = "rigid"
    preset = "smoke"
    count = 3
    [[algorithms]]
    name = "myheur:good"
    params = { shift = [0, 1] }   # shift = 1 claims a makespan its schedule does not have
    [[algorithms]]
    name = "myheur:raiser"
    [[algorithms]]
    name = "R-LIST-0"
    priority = ["LPT", "LPA", "myheur:key"]
    [scenarios]
    qbar = [0.2]
    count = 2
    seed = 1
''')


def _spawned(folder, *argv):
    return subprocess.run([sys.executable, "-c", SPAWN, *map(str, argv)], cwd=folder,
                          capture_output=True, text=True, timeout=600)


def test_a_campaign_names_plugins_and_runs_on_a_spawned_pool(plugins):
    (plugins / "mine.toml").write_text(SPEC)
    done = _spawned(plugins, "campaign", "run", "mine.toml", "--store", "s.sqlite",
                    "--executor", "pool", "--jobs", "2", "-q")
    assert done.returncode == 0, done.stderr
    with ResultStore(plugins / "s.sqlite") as store:
        rows = [(fields, result) for _, fields, result, _, _ in store.rows("mine")]
    # the first task of the non-default parameter setting (shift = 1) runs in the parent first
    # (the spec's parameter check, decision K24); every other task ran in the spawned pool
    assert len(rows) == 3 * 2 * 6 and [r["executor"] for r in store_runs(plugins)] == [
        "inline (parameter check)", "2 processes"]

    def objective(algorithm, priority=None, **params):
        return sorted((f["instance"], f["scenario"], r["objective"]) for f, r in rows
                      if f["algorithm"] == algorithm and f["priority"] == priority
                      and all(f["params"].get(k) == v for k, v in params.items()))

    assert objective("myheur:good", shift=0) == objective("R-LIST-0", "LPT")
    assert objective("myheur:good", shift=1) == objective("R-LIST-0", "LPT")  # recomputed
    assert objective("R-LIST-0", "myheur:key") == objective("R-LIST-0", "LPA")
    lies = [r["violations"] for f, r in rows if f["params"].get("shift") == 1]
    assert len(lies) == 6 and all("disagrees with its schedule" in v[0] for v in lies)
    raised = [r for f, r in rows if f["algorithm"] == "myheur:raiser"]
    assert len(raised) == 6 and all(r["objective"] is None and r["violations"] == [
        "myheur:raiser raised ZeroDivisionError: division by zero"] for r in raised)
    assert not any("violations" in r for f, r in rows if f["algorithm"] == "R-LIST-0")

    report = _spawned(plugins, "report", "s.sqlite", "--out", "rep", "--no-plots")
    assert report.returncode == 0, report.stderr
    text = (plugins / "rep" / "report.md").read_text()
    assert "- **myheur:good**: GOOD: R-LIST-0 with LPT, a correct schedule." in text


def store_runs(folder):
    with ResultStore(folder / "s.sqlite") as store:
        return store.runs("mine")


def test_gap_library_on_a_spawned_pool(plugins):
    done = _spawned(plugins, "check", "--library", "rigid-small", "--heuristic", "myheur:good",
                    "--heuristic", "myheur:raiser", "--jobs", "2", "-q", "--json")
    assert done.returncode == 1, done.stderr
    rows = {h["heuristic"]: h for h in json.loads(done.stdout)["heuristics"]}
    assert rows["myheur:good"]["violations"] == 0 and rows["myheur:good"]["cases"] == 100
    assert rows["myheur:raiser"]["violations"] == 100


def test_a_bad_reference_in_a_spec_is_one_line(run, plugins):
    (plugins / "bad.toml").write_text(SPEC.replace('name = "myheur:raiser"',
                                                   'name = "myheur:nothing"'))
    code, out, err = run("campaign", "run", "bad.toml", "--store", "s.sqlite")
    assert (code, out) == (2, "")
    assert err == ("error: bad.toml: algorithms[1].name myheur:nothing: names no callable "
                   "(module 'myheur' has no attribute 'nothing')\n")


HANG = textwrap.dedent('''
    [campaign]
    name = "hang"
    [[instances]]
    family = "rigid"
    preset = "smoke"
    count = 2
    [[algorithms]]
    name = "stuck:forever"
    time_limit = 0.3
    [[algorithms]]
    name = "R-LIST-0"
    [scenarios]
    qbar = [0.2]
''')

STUCK = textwrap.dedent('''
    def forever(instance, scenario=None, priority=None, *, seed=0, **params):
        """Never returns."""
        while True:
            pass
''')


def test_a_plugin_that_never_returns_is_stopped_by_its_time_limit(run, plugins):
    """On the spawned pool and inline (in the command's own process: here in-process, with
    the `run` fixture, since no worker is involved)."""
    (plugins / "stuck.py").write_text(STUCK)
    (plugins / "hang.toml").write_text(HANG)
    for executor in ("inline", "pool"):
        store = f"{executor}.sqlite"
        argv = ("campaign", "run", "hang.toml", "--store", store, "--executor", executor,
                "--jobs", "2", "-q")
        if executor == "pool":
            done = _spawned(plugins, *argv)
            code, err = done.returncode, done.stderr
        else:
            code, _, err = run(*argv)
        assert code == 0, err
        with ResultStore(plugins / store) as s:
            rows = [(f, r) for _, f, r, _, _ in s.rows("hang")]
        stuck = [r for f, r in rows if f["algorithm"] == "stuck:forever"]
        assert len(rows) == 4 and len(stuck) == 2
        assert all(r["objective"] is None and r["violations"] == [
            "stuck:forever did not return within 0.3 s (--time-limit)"] for r in stuck)
        assert all(f["time_limit"] == 0.3 for f, _ in rows if f["algorithm"] == "stuck:forever")
        assert all("time_limit" not in f and r["objective"] > 0
                   for f, r in rows if f["algorithm"] == "R-LIST-0")
