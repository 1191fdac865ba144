"""Experiments declared once (`resilsched.campaign.experiment`): registration by name, the one
runner (store, configuration check, resume, --fresh) and the spec form (``[experiment]``)."""

from __future__ import annotations

import hashlib
import importlib
import json
import pickle
import shlex
import sqlite3

import pytest

from resilsched.campaign import CampaignError, ResultStore
from resilsched.campaign.experiment import (
    REGISTERED,
    ExperimentRunner,
    ExperimentSpec,
    TaskFunction,
    experiment,
)
from resilsched.campaign.plan import plan, shard_slice
from resilsched.campaign.spec import SpecError, parse_spec
from tests.support.campaign.squares import CALLS, HERE, SQUARES, parse_args, square, square_tasks


@pytest.fixture(autouse=True)
def _calls():
    CALLS.clear()


# -- registration by name ---------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(REGISTERED))
def test_every_registered_experiment_loads_by_name(name):
    exp = experiment(name)
    assert exp.name == name
    module, _, function = exp.task.partition(":")
    fn = getattr(__import__(module, fromlist=[function]), function)
    assert callable(fn)


def test_every_declared_experiment_is_registered_under_its_module():
    for module in set(REGISTERED.values()):
        declared = importlib.import_module(module).CAMPAIGNS
        assert {n: module for n in declared} == {n: m for n, m in REGISTERED.items()
                                                 if m == module}
        assert all(e.name == n for n, e in declared.items())


def test_a_task_function_travels_as_its_name_and_is_looked_up_at_each_call(monkeypatch):
    fn = SQUARES.function
    assert pickle.loads(pickle.dumps(fn)) == TaskFunction(f"{HERE}:square")
    assert HERE.encode() in pickle.dumps(fn) and len(pickle.dumps(fn)) < 200
    assert fn(3) == 9
    monkeypatch.setattr(f"{HERE}.square", lambda x: -x)
    assert fn(3) == -3  # what the module holds now


def test_a_task_function_that_cannot_be_loaded_is_one_line():
    with pytest.raises(CampaignError, match=r"'no_such_module:f' cannot be loaded"):
        pickle.loads(pickle.dumps(TaskFunction("no_such_module:f")))  # a worker unpickling it
    with pytest.raises(CampaignError, match="is not MODULE:NAME"):
        TaskFunction("square")(1)


def test_unknown_experiments_are_named_with_the_choices():
    with pytest.raises(CampaignError, match=r"'nope' is not a registered experiment \(choose "
                                            r"from coschedule-claims, desktop,"):
        experiment("nope")
    with pytest.raises(CampaignError, match="declares no experiment 'cubes'"):
        experiment(f"{HERE}:cubes")
    assert experiment(f"{HERE}:squares") is SQUARES


# -- the runner -------------------------------------------------------------------------------

def test_the_runner_stores_resumes_without_duplicates_and_starts_over(tmp_path):
    path = tmp_path / "s.sqlite"
    tasks = SQUARES.tasks({"n": 6})
    with ExperimentRunner(path, progress=False) as runner:
        assert runner.run(SQUARES, tasks[:4]) == [0, 1, 4, 9]
    with ExperimentRunner(path, progress=False) as runner:  # resumed: only the two missing
        assert runner.run(SQUARES, tasks + tasks[:2]) == [0, 1, 4, 9, 16, 25, 0, 1]
        assert sorted(runner.stored(SQUARES, tasks)) == sorted(t.key for t in tasks)
    assert CALLS == [0, 1, 2, 3, 4, 5]
    with ResultStore(path) as store:
        assert store.count("squares") == 6
    with ExperimentRunner(path, progress=False, fresh=["squares"]) as runner:
        assert runner.stored(SQUARES, tasks) == {}
        runner.run(SQUARES, tasks[:1])
    assert CALLS[6:] == [0]


def test_an_interrupted_run_resumes_each_task_once(tmp_path, monkeypatch):
    path = tmp_path / "s.sqlite"
    tasks = SQUARES.tasks({"n": 8})

    def stop_at_five(x: int) -> int:
        if len(CALLS) == 5:
            raise KeyboardInterrupt
        return square(x)

    monkeypatch.setattr(f"{HERE}.square", stop_at_five)
    with pytest.raises(KeyboardInterrupt), ExperimentRunner(path, progress=False) as runner:
        runner.run(SQUARES, tasks)
    monkeypatch.undo()
    with ExperimentRunner(path, progress=False) as runner:
        assert runner.run(SQUARES, tasks) == [x * x for x in range(8)]
    assert sorted(CALLS) == list(range(8))  # five before Ctrl-C, three after: none twice


def test_another_configuration_is_refused_in_one_line(tmp_path):
    tasks = SQUARES.tasks({})
    with ExperimentRunner(tmp_path / "s.sqlite", progress=False) as runner:
        runner.run(SQUARES, tasks, config={"seed": 1})
        with pytest.raises(CampaignError) as info:
            runner.run(SQUARES, tasks, config={"seed": 2})
    assert "\n" not in str(info.value)
    assert "campaign 'squares'" in str(info.value) and "seed: 1 -> 2" in str(info.value)


def test_the_pool_loads_the_task_function_by_name(tmp_path):
    tasks = SQUARES.tasks({"n": 12})
    with ExperimentRunner(tmp_path / "s.sqlite", jobs=2, progress=False) as runner:
        assert runner.run(SQUARES, tasks) == [x * x for x in range(12)]
    assert CALLS == []  # computed in the workers


def test_a_store_that_cannot_be_used_is_one_line(tmp_path):
    (tmp_path / "text.sqlite").write_text("not a store\n")
    with pytest.raises(CampaignError) as info, ExperimentRunner(tmp_path / "text.sqlite"):
        pass
    assert "\n" not in str(info.value) and "text.sqlite" in str(info.value)
    with pytest.raises(CampaignError, match="not open"):
        ExperimentRunner(tmp_path / "x.sqlite").run(SQUARES, [])


# -- the spec form ----------------------------------------------------------------------------

def spec(body: str) -> str:
    return f'[experiment]\nname = "{HERE}:squares"\n{body}'


def test_a_spec_naming_an_experiment_lists_its_tasks_and_shards():
    s = parse_spec(spec("[experiment.arguments]\nn = 7\noffset = 2\n"), source="s.toml")
    assert isinstance(s, ExperimentSpec) and s.name == "squares" and s.config() == {}
    tasks = plan(s)
    assert [t.payload for t in tasks] == list(range(2, 9))
    assert [t.key for t in tasks] == [t.key for t in square_tasks(parse_args(
        ["--n", "7", "--offset", "2"]))]
    shards = [shard_slice(tasks, i, 3) for i in (1, 2, 3)]
    assert sorted(t.key for s_ in shards for t in s_) == sorted(t.key for t in tasks)


@pytest.mark.parametrize("body, message", [
    ("[experiment.arguments]\nn = 0\n",
     "s.toml: experiment.arguments.n: 0 must be in [1, 50]"),
    ("[experiment.arguments]\njobs = 2\n",
     "s.toml: experiment.arguments.jobs: is not an argument of squares (choose from n, offset)"),
    ("[experiment.arguments]\nn = [1, 2]\n", "s.toml: experiment.arguments.n: '1,2' is not"),
    ("color = 1\n", "s.toml: experiment.color: is not a known key (choose from arguments, "
                    "name)"),
    ("[[instances]]\nfamily = 'rigid'\n", "s.toml: instances: is not allowed beside "
                                          "[experiment]"),
])
def test_a_bad_experiment_spec_is_one_line_naming_the_field(body, message):
    with pytest.raises(SpecError) as info:
        parse_spec(spec(body), source="s.toml")
    assert str(info.value).startswith(message) and "\n" not in str(info.value)


def test_experiments_without_a_spec_form_say_so():
    with pytest.raises(SpecError, match="experiment 'plain' has no spec form"):
        parse_spec(f'[experiment]\nname = "{HERE}:plain"\n', source="s.toml")
    with pytest.raises(SpecError, match="'nope' is not a registered experiment"):
        parse_spec('[experiment]\nname = "nope"\n', source="s.toml")


def test_coschedule_from_a_spec_in_shards_then_the_reproduction_reads_the_store(tmp_path, run):
    """The SLURM-array path: shards of the experiment, merged, then `reproduce coschedule
    --store` computes nothing and prints what a plain run prints."""
    path = tmp_path / "cos.toml"
    path.write_text('[experiment]\nname = "coschedule-claims"\n'
                    "[experiment.arguments]\ninstances = 2\nseed = 5\n")
    for i in (1, 2):
        code, out, err = run("campaign", "run", path, "--shard", f"{i}/2", "--store",
                             tmp_path / f"s{i}.sqlite", "--executor", "inline", "-q")
        assert code == 0, err
    code, out, err = run("campaign", "merge", tmp_path / "s1.sqlite", tmp_path / "s2.sqlite",
                         "--store", tmp_path / "all.sqlite", "--spec", path, "-q")
    assert code == 0 and "all 3 tasks of the spec are stored" in out, (out, err)
    assert out.splitlines()[-1].endswith(
        "next: resilsched reproduce coschedule --instances 2 --seed 5 --store "
        f"{tmp_path / 'all.sqlite'}")
    options = ["--instances", "2", "--seed", "5"]
    code, merged, err = run("reproduce", "coschedule", *options, "--store",
                            tmp_path / "all.sqlite", "--out", tmp_path / "a")
    assert code == 0 and "tasks to run" not in err, err
    code, plain, err = run("reproduce", "coschedule", *options, "--out", tmp_path / "b")
    assert code == 0 and "3 tasks to run" in err
    assert merged == plain
    assert (tmp_path / "a" / "summary.md").read_bytes() == \
        (tmp_path / "b" / "summary.md").read_bytes()
    with sqlite3.connect(tmp_path / "all.sqlite") as db:
        assert db.execute("SELECT config FROM campaigns").fetchall() == [("{}",)]


def test_a_run_of_an_experiment_spec_names_the_reproduction_that_reads_its_store(tmp_path,
                                                                                  run):
    """``next:`` after ``campaign run`` is the reproduction with the spec's arguments (not
    ``resilsched report``, which reads cross-product specs only), and it runs no task; an
    experiment of one's own, whose options no reproduction parses, is exported."""
    path = tmp_path / "cos.toml"
    path.write_text('[experiment]\nname = "coschedule-claims"\n'
                    "[experiment.arguments]\ninstances = 2\nseed = 5\n")
    store = tmp_path / "cos.sqlite"
    code, out, err = run("campaign", "run", path, "--store", store, "--executor", "inline",
                         "-q")
    assert code == 0, err
    then = out.strip().partition("; next: ")[2]
    assert then == f"resilsched reproduce coschedule --instances 2 --seed 5 --store {store}"
    code, _, err = run(*shlex.split(then)[1:], "--out", tmp_path / "out")
    assert code == 0 and "tasks to run" not in err, err
    code, out, _ = run("campaign", "run", path, "--store", store, "-q", "--json")
    assert code == 0 and "next" not in json.loads(out)
    own = tmp_path / "own.toml"
    own.write_text(spec("[experiment.arguments]\nn = 2\n"))
    code, out, err = run("campaign", "run", own, "--store", tmp_path / "own.sqlite",
                         "--executor", "inline", "-q")
    assert code == 0, err
    assert out.strip().endswith(f"next: resilsched campaign export {tmp_path / 'own.sqlite'} "
                                "--csv FILE")


# -- stores written before the experiments were declared resume (the task keys are the same) --

def key_digest(keys) -> str:
    return hashlib.sha256("\n".join(sorted(keys)).encode()).hexdigest()[:16]


#: (experiment, spec arguments) -> (tasks, digest of the sorted keys) in stores written by the
#: reproductions before T29 (the same options on the command line)
BEFORE = [
    ("coschedule-claims", {"instances": 20, "seed": 3}, 3, "93b2fea7e85d3de8"),
    ("desktop", {"machine_sets": 1, "job_sets": 2, "hosts": 12, "job_count": 120, "runs": 3,
                 "span_days": 6, "absorb": "both"}, 4, "b8b333f70e1f467d"),
    ("malleable", {"scale": 50, "reps": 2, "figures": "1.4"}, 18, "209d699da1422b7a"),
    ("malleable-sanity", {"scale": 50, "reps": 2}, 10, "2f28b96ea579a2c0"),
    ("moldable", {"sets": 2, "scenarios": 1, "algos": ["LPA"]}, 12, "ed365b7eda6c28a8"),
    ("moldable-theorems", {}, 29, "3b272350db4f73e8"),
    ("rigid-synthetic", {"sets": 2, "scenarios": 2, "qbars": [0, 0.3], "Ps": [5000, 10000],
                         "only": ["fig4", "table1"], "reservations": "fresh"}, 8,
     "b506edd448f45946"),
    ("rigid-table1", {"mira_days": 2, "mira_scenarios": 2, "only": "fig4,table1",
                      "reservations": "fresh"}, 10, "e36e8aa7170266b6"),
]


@pytest.mark.parametrize("name, arguments, count, digest", BEFORE)
def test_the_spec_form_lists_the_keys_stores_of_before_hold(name, arguments, count, digest):
    tasks = experiment(name).tasks(arguments)
    assert len(tasks) == count and key_digest(t.key for t in tasks) == digest


def test_the_spec_form_records_the_reproductions_configuration():
    spec = parse_spec('[experiment]\nname = "rigid-table1"\n[experiment.arguments]\n'
                      'seed = 4\nmira_scenarios = 3\n', source="s.toml")
    assert spec.config() == {"seed": 4, "scenarios": 3, "mira_seed": 0}


@pytest.mark.parametrize("module, argv, stored", [
    ("rigid", ["--sets", "2", "--scenarios", "2", "--qbars", "0,0.3", "--Ps", "5000,10000",
               "--only", "fig4,table1", "--mira-days", "2", "--mira-scenarios", "2",
               "--no-plots", "--jobs", "1", "--reservations", "fresh"],
     {"rigid-synthetic": (8, "b506edd448f45946", '{"scenarios":2,"seed":2020}'),
      "rigid-table1": (10, "e36e8aa7170266b6", '{"mira_seed":0,"scenarios":2,"seed":2020}')}),
    ("worksharing", ["e4", "--trials", "4", "--jobs", "1"],
     {"worksharing-e4": (13, "8d63a9667ca643a3", "{}")}),
])
def test_reproductions_store_the_keys_and_configurations_of_before(module, argv, stored,
                                                                   tmp_path, capsys):
    main = importlib.import_module(f"resilsched.reproduce.{module}").main
    assert main([*argv, "--out", str(tmp_path)]) == 0
    capsys.readouterr()
    with sqlite3.connect(tmp_path / "campaign.sqlite") as db:
        for name, (count, digest, config) in stored.items():
            keys = [k for (k,) in db.execute("SELECT key FROM results WHERE campaign = ?",
                                             (name,))]
            assert (len(keys), key_digest(keys)) == (count, digest), name
            assert db.execute("SELECT config FROM campaigns WHERE name = ?",
                              (name,)).fetchone() == (config,)


@pytest.mark.parametrize("what, arguments", [
    ("e4", {}), ("e5", {"p": [5], "chunk_search": "binary", "no_rep_rule": "per-worker"}),
    ("norep-rules", {"p": [5]}),
])
def test_worksharing_spec_forms_list_the_tasks_its_reproduction_stores(what, arguments,
                                                                        tmp_path, capsys):
    from resilsched.reproduce.worksharing import main

    argv = [what, "--trials", "2", "--jobs", "1", "--out", str(tmp_path)]
    for key, value in arguments.items():
        argv += [f"--{key.replace('_', '-')}", *map(str, value if isinstance(value, list)
                                                    else [value])]
    assert main(argv) == 0
    capsys.readouterr()
    with sqlite3.connect(tmp_path / "campaign.sqlite") as db:
        stored = sorted(k for (k,) in db.execute("SELECT key FROM results"))
    tasks = experiment(f"worksharing-{what}").tasks({"trials": 2, **arguments})
    assert sorted(t.key for t in tasks) == stored and len(stored) > 10
