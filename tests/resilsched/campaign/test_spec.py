"""Spec files (docs/campaigns.md, "Spec format"): the issue's example, and every kind of bad
spec failing before anything runs, in one line with exit status 2."""

from __future__ import annotations

import pytest

from resilsched.campaign.plan import draw_seeds, plan
from resilsched.campaign.spec import SpecError, load_spec, parse_spec
from tests.support.campaign.fixtures import ISSUE_EXAMPLE, SMALL_EXACT


def test_the_issue_example_is_a_cross_product():
    spec = parse_spec(ISSUE_EXAMPLE)
    assert spec.name == "rigid-qbar" and spec.scenarios.qbar == (0.1, 0.3)
    tasks = plan(spec)
    assert len(tasks) == 4 * (2 + 1) * 2 * 5  # instances x settings x q-bar x scenarios
    assert len({t.key for t in tasks}) == len(tasks)
    first = tasks[0].fields
    assert first["family"] == "rigid" and first["algorithm"] == "R-LIST-0"
    assert first["priority"] == "LPT" and first["qbar"] == 0.1 and first["scenario"] == 0
    assert len(first["instance_sha"]) == 16 and first["scenario_seed"] == 7


def test_common_random_numbers():
    """Every algorithm and every q-bar value replays the same seeds for scenario k of an
    instance; the seeds do not depend on where the instance sits in the spec."""
    tasks = plan(parse_spec(ISSUE_EXAMPLE))
    by_case: dict = {}
    for t in tasks:
        f, w = t.fields, t.payload
        by_case.setdefault((f["instance_sha"], f["scenario"]), set()).add(
            (w.scenario_seed, w.seed))
    assert all(len(seeds) == 1 for seeds in by_case.values())
    assert len({s for seeds in by_case.values() for s in seeds}) == 4 * 5
    sha, k = next(iter(by_case))
    assert by_case[sha, k] == {draw_seeds(7, sha, k)}


def test_grids_priorities_and_exact_models():
    spec = parse_spec(SMALL_EXACT)
    algs = {(a.family, a.name): a for a in spec.algorithms}
    r0 = algs["rigid", "R-LIST-0"]
    assert r0.priorities == ("LPT", "Random") and r0.swept == ("redraw_on_failure",)
    assert r0.grid == ({"redraw_on_failure": False}, {"redraw_on_failure": True})
    exact = algs["rigid", "cpsat-scenario"]
    assert exact.kind == "exact" and exact.time_limit == 5.0 and exact.workers == 1
    assert algs["coschedule", "PACK-APPROX"].priorities == ("fixed",)  # its default rule
    tasks = plan(spec)
    # coschedule has no scenarios: one task per instance and setting
    cos = [t for t in tasks if t.fields["family"] == "coschedule"]
    assert len(cos) == 2 * 2 and all(t.fields["qbar"] is None for t in cos)
    assert len(tasks) - len(cos) == 2 * (4 + 1) * 2 * 2


def test_library_folder(tmp_path, run):
    lib = tmp_path / "lib"
    code, _, err = run("generate", "--family", "rigid", "--preset", "smoke", "--seed", "0",
                       "--count", "3", "--out", lib)
    assert code == 0, err
    text = ISSUE_EXAMPLE.replace('preset = "paper-default"\ncount = 4\nseed = 1',
                                 'library = "lib"')
    (tmp_path / "s.toml").write_text(text)
    spec = load_spec(tmp_path / "s.toml")
    assert spec.instances[0].family == "rigid" and spec.instances[0].library == lib.resolve()
    tasks = plan(spec)
    assert len(tasks) == 3 * 3 * 2 * 5
    assert {t.fields["instance"] for t in tasks} == {"smoke-0-0", "smoke-0-1", "smoke-0-2"}


def test_shipped_library_by_name(tmp_path):
    from resilsched.library.catalog import find

    text = ISSUE_EXAMPLE.replace('preset = "paper-default"\ncount = 4\nseed = 1',
                                 'library = "rigid-small"')
    (tmp_path / "s.toml").write_text(text)
    spec = load_spec(tmp_path / "s.toml")
    assert spec.instances[0].library == find("rigid-small")[0].path
    assert len(plan(spec)) == len(find("rigid-small")[0].records) * 3 * 2 * 5
    (tmp_path / "rigid-small").mkdir()  # a folder of that name wins, and is checked
    with pytest.raises(SpecError, match="holds no instance JSON files"):
        load_spec(tmp_path / "s.toml")


BAD = [
    ("family = \"rigid\"", "family = \"rigdi\"", "instances[0].family"),  # via the registry
    ("preset = \"paper-default\"", "preset = \"paper\"", "instances[0].preset"),
    ("name = \"R-SHELF-B\"", "name = \"R-SHELF-X\"", "algorithms[1].name"),
    ("priority = [\"LPT\"]\n[scenarios]", "priority = [\"XYZ\"]\n[scenarios]",
     "algorithms[1].priority='XYZ' is unknown for R-SHELF-B"),
    ("priority = [\"LPT\"]\n[scenarios]", "params = { eps = 0.3 }\n[scenarios]",
     "algorithms[1].params.eps: is not a parameter of R-SHELF-B"),
    ("priority = [\"LPT\"]\n[scenarios]", "params = { redraw_on_failure = [1] }\n[scenarios]",
     "algorithms[1].params.redraw_on_failure=1 must be true or false"),
    ("priority = [\"LPT\"]\n[scenarios]",
     "params = { ljf_secondary = \"LXX\" }\n[scenarios]", "is not allowed for R-SHELF-B"),
    ("count = 5", "count = \"5\"", "scenarios.count='5' must be a positive integer"),
    ("qbar = [0.1, 0.3]", "qbar = [0.1, 1.3]", "scenarios.qbar=1.3 must be a number in [0, 1)"),
    ("seed = 7", "seed = 7\nsede = 1", "scenarios.sede: is not a known key"),
    ("count = 4", "count = 0", "instances[0].count=0 must be a positive integer"),
    ("[campaign]\nname = \"rigid-qbar\"", "[campaign]", "campaign.name: is required"),
    ("name = \"R-LIST-0\"", "name = \"R-LIST-0\"\nworkers = 3",
     "algorithms[0].workers: applies to exact models"),
    ("name = \"R-LIST-0\"", "name = \"R-LIST-0\"\ntime_limit = 0",
     "algorithms[0].time_limit"),
    ("[scenarios]", "[scenarios", "is not valid TOML"),
    ("priority = [\"LPT\"]\n[scenarios]", "params = 3\n[scenarios]",
     "algorithms[1].params: must be a table"),
    ("name = \"R-LIST-0\"", "name = 3", "algorithms[0].name=3 must be a non-empty string"),
    ("[[instances]]", "[instances]", "instances: is required: one or more [[instances]]"),
    ("[[algorithms]]\nname = \"R-SHELF-B\"", "[[algorithms]]\nname = \"cpsat-scenario\"",
     "algorithms[1].priority: exact model cpsat-scenario takes no priority"),
    ("name = \"R-SHELF-B\"\npriority = [\"LPT\"]",
     "name = \"cpsat-scenario\"\nparams = { deterministic = false }",
     "algorithms[1].params.deterministic: is set by the campaign"),
]


@pytest.mark.parametrize("old,new,expected", BAD, ids=[b[2][:40] for b in BAD])
def test_a_bad_spec_fails_before_anything_runs(spec, run, tmp_path, old, new, expected):
    assert old in ISSUE_EXAMPLE
    path = spec(ISSUE_EXAMPLE.replace(old, new, 1))
    with pytest.raises(SpecError) as err:
        load_spec(path)
    assert expected in str(err.value) and "\n" not in str(err.value)
    assert str(err.value).startswith(path)
    store = tmp_path / "results.sqlite"
    code, out, errout = run("campaign", "run", path, "--store", store)
    assert code == 2 and out == ""
    assert errout.startswith("error: ") and errout.count("\n") == 1 and expected in errout
    assert not store.exists()  # nothing ran, not even the store was created


def test_bad_options_are_one_line(spec, run, tmp_path):
    path = spec(ISSUE_EXAMPLE)
    for args, expected in [(["--jobs", "0"], "--jobs=0 must be in [1, 1024]"),
                           (["--jobs", "100000"], "--jobs=100000 must be in [1, 1024]"),
                           (["--executor", "pool", "--dask", "local"], "--dask needs"),
                           (["--chunk-seconds", "0"], "--chunk-seconds=0"),
                           (["--chunk-seconds", "nan"], "--chunk-seconds=nan must be a number"),
                           (["--chunk-seconds", "inf"], "--chunk-seconds=inf must be a number"),
                           (["--chunk-seconds=-inf"], "--chunk-seconds=-inf must be")]:
        code, _, err = run("campaign", "run", path, "--store", tmp_path / "s.sqlite", *args)
        assert code == 2 and err.count("\n") == 1 and expected in err, err
    code, _, err = run("campaign", "run", tmp_path / "missing.toml")
    assert code == 2 and "missing.toml: cannot be read" in err
