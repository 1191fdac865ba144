"""The Python front door refuses bad arguments at its boundary (docs/architecture.md, "Bad
input"): a one-line error of the toolkit's own types naming the argument and the rule, before
any work, never a traceback from numpy or the standard library, nor a silent wrong answer."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import resilsched
from resilsched import InvalidInstance, InvalidOption
from resilsched.registry import UnknownName

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
RIGID = str(EXAMPLES / "rigid-small.json")
SWF = str(EXAMPLES / "rigid-trace.swf")


@pytest.fixture(scope="module")
def inst() -> dict[str, Any]:
    """The example instance of each family, by family name."""
    return {f: resilsched.load(EXAMPLES / f"{f}-small.json")
            for f in ("rigid", "coschedule", "desktop")}


Call = Callable[[dict[str, Any]], Any]

#: (id, the call on the example instances, the exception, a fragment of its message)
BAD_CALLS: list[tuple[str, Call, type[Exception], str]] = [
    # load: the path, the index, the reader options
    ("load-path-none", lambda i: resilsched.load(None), InvalidOption,
     r"^path=None must be a file path"),
    ("load-path-int", lambda i: resilsched.load(3), InvalidOption, r"^path=3 must be a file"),
    ("load-index-str", lambda i: resilsched.load(RIGID, index="0"), InvalidOption,
     r"^index='0' must be an integer >= 0"),
    ("load-index-negative", lambda i: resilsched.load(RIGID, index=-1), InvalidOption,
     r"^index=-1 must be an integer >= 0"),
    ("load-json-reader-option", lambda i: resilsched.load(RIGID, P=4), InvalidOption,
     r"^P: applies to trace files \(\.swf\), not to the JSON instance"),
    ("load-swf-unknown-option", lambda i: resilsched.load(SWF, bogus=1), InvalidOption,
     r"^bogus: is not an option of the \.swf reader \(choose from P, "),
    # scenario: the seed of a draw, the names of the arguments
    ("scenario-seed-float", lambda i: resilsched.scenario(i["rigid"], qbar=0.3, seed=1.5),
     InvalidOption, r"^seed=1\.5 must be an integer >= 0$"),
    ("scenario-seed-str", lambda i: resilsched.scenario(i["rigid"], qbar=0.3, seed="7"),
     InvalidOption, r"^seed='7' must be an integer"),
    ("scenario-seed-negative", lambda i: resilsched.scenario(i["rigid"], qbar=0.3, seed=-1),
     InvalidOption, r"^seed=-1 must be an integer"),
    ("scenario-seed-none", lambda i: resilsched.scenario(i["rigid"], qbar=0.3, seed=None),
     InvalidOption, r"^seed=None must be an integer"),
    ("scenario-seed-desktop", lambda i: resilsched.scenario(i["desktop"], qbar=0.5, seed=0.5),
     InvalidOption, r"^seed=0\.5 must be an integer"),
    ("scenario-no-scenarios", lambda i: resilsched.scenario(i["coschedule"], failures=[0]),
     InvalidInstance, r"^failures/qbar: family 'coschedule' has no failure scenarios"),
    ("scenario-exclusive", lambda i: resilsched.scenario(i["rigid"], [0] * 4, qbar=0.3),
     InvalidInstance, r"^failures and qbar: are exclusive"),
    # simulate: the heuristic, the priority, the seed, the scenario
    ("simulate-heuristic-list", lambda i: resilsched.simulate(i["rigid"], ["R-LIST-0"]),
     UnknownName, r"^heuristic=\['R-LIST-0'\] is unknown \(choose from R-LIST-0"),
    ("simulate-priority-unknown",
     lambda i: resilsched.simulate(i["rigid"], "R-LIST-0", priority="ZZZ"), InvalidInstance,
     r"^priority='ZZZ' is unknown for R-LIST-0"),
    ("simulate-seed-float", lambda i: resilsched.simulate(i["rigid"], "R-LIST-0", seed=1.5),
     InvalidOption, r"^seed=1\.5 must be an integer"),
    ("simulate-seed-none", lambda i: resilsched.simulate(i["desktop"], "DAslack", seed=None),
     InvalidOption, r"^seed=None must be an integer"),
    ("simulate-scenario-no-scenarios",
     lambda i: resilsched.simulate(i["coschedule"], "PACK-APPROX", scenario=[0]),
     InvalidInstance, r"^scenario: family 'coschedule' has no failure scenarios"),
    # solve: the method, the options, the scenario
    ("solve-method-list", lambda i: resilsched.solve(i["rigid"], method=["x"]), UnknownName,
     r"^method=\['x'\] is unknown"),
    ("solve-seed-str", lambda i: resilsched.solve(i["rigid"], seed="x"), InvalidOption,
     r"^--param seed='x' must be an integer for cpsat-scenario"),
    ("solve-progress-str", lambda i: resilsched.solve(i["rigid"], progress="x"), InvalidOption,
     r"^progress='x' must be a function of one message"),
    ("solve-online-optimal-scenario",
     lambda i: resilsched.solve(i["rigid"], method="online-optimal", scenario=[1] * 4),
     InvalidInstance, r"^scenario: online-optimal averages over the failure model"),
    ("solve-online-optimal-as-the-cli",
     lambda i: resilsched.solve(i["rigid"], method="online-optimal"), InvalidInstance,
     r"^qbar: online-optimal needs the failure model"),
    ("solve-scenario-no-scenarios",
     lambda i: resilsched.solve(i["coschedule"], scenario=[0]), InvalidInstance,
     r"^scenario: family 'coschedule' has no failure scenarios"),
    # bounds
    ("bounds-scenario-no-scenarios", lambda i: resilsched.bounds(i["coschedule"], [0]),
     InvalidInstance, r"^scenario: family 'coschedule' has no failure scenarios"),
    # gap: lists that are not lists, empty lists, the family, jobs, progress
    ("gap-library-int", lambda i: resilsched.gap(library=3), InvalidOption,
     r"^library=3 must be a list of library names"),
    ("gap-library-item-int", lambda i: resilsched.gap(library=[3]), InvalidOption,
     r"^library=3 must be a library name or folder"),
    ("gap-heuristics-str", lambda i: resilsched.gap(heuristics="R-LIST-0", family="rigid"),
     InvalidOption, r"^heuristics='R-LIST-0' must be a list of heuristic names"),
    ("gap-heuristics-int", lambda i: resilsched.gap(heuristics=3), InvalidOption,
     r"^heuristics=3 must be a list"),
    # the errors name the function's arguments, not ``resilsched gap``'s flags
    ("gap-heuristics-unknown", lambda i: resilsched.gap(heuristics=["NOPE"]), UnknownName,
     r"^heuristics='NOPE' is unknown"),
    ("gap-reference-no-family",
     lambda i: resilsched.gap(heuristics=["examples.plugins.rigid_widest:widest"]),
     InvalidInstance, r"^heuristics examples\.plugins\.rigid_widest:widest: .* give family "),
    ("gap-family-unknown", lambda i: resilsched.gap(family="nope"), UnknownName,
     r"^family='nope' is unknown"),
    ("gap-library-unknown", lambda i: resilsched.gap(library="nope"), InvalidInstance,
     r"^library='nope' is neither a shipped library"),
    ("gap-library-family", lambda i: resilsched.gap(library="rigid-small", family="desktop"),
     InvalidInstance, r"^family='desktop': no library of that family in rigid-small"),
    ("gap-heuristics-empty", lambda i: resilsched.gap(heuristics=[], family="rigid"),
     InvalidOption, r"^heuristics=\[\] is empty \(give None for every registered heuristic\)"),
    # a short relative path, so that the message (cut to 40 characters) does not depend on
    # where the checkout lives
    ("gap-instances-path", lambda i: resilsched.gap(instances="examples/rigid-small.json"),
     InvalidOption, r"^instances='examples/rigid-small\.json' must be a list of instances"),
    ("gap-instances-instance", lambda i: resilsched.gap(instances=i["rigid"]), InvalidOption,
     r"^instances: RigidInstance\(.* must be a list of instances"),
    ("gap-instances-empty",
     lambda i: resilsched.gap(instances=[], family="rigid", heuristics=["R-LIST-0"]),
     InvalidOption, r"^instances=\[\] is empty \(give None for the smoke suites\)"),
    ("gap-family-of-no-instance",
     lambda i: resilsched.gap(instances=[i["rigid"]], family="moldable"), InvalidOption,
     r"^family='moldable' is none of the families of the instances \(rigid\)"),
    ("gap-store-without-library", lambda i: resilsched.gap(store="x.sqlite"), InvalidOption,
     r"^store='x\.sqlite' applies to a library's run only \(give library=\)"),
    ("gap-resolve-without-library", lambda i: resilsched.gap(resolve=True), InvalidOption,
     r"^resolve=True applies to a library's run only"),
    ("gap-dask-without-library", lambda i: resilsched.gap(dask="local"), InvalidOption,
     r"^dask='local' applies to a library's run only"),
    ("gap-jobs-zero", lambda i: resilsched.gap(library="rigid-small", jobs=0), InvalidOption,
     r"^jobs=0 must be a positive integer$"),
    ("gap-jobs-str", lambda i: resilsched.gap(library="rigid-small", jobs="2"), InvalidOption,
     r"^jobs='2' must be a positive integer$"),
    ("gap-jobs-float", lambda i: resilsched.gap(library="rigid-small", jobs=1.5),
     InvalidOption, r"^jobs=1\.5 must be a positive integer$"),
    ("gap-progress-str",
     lambda i: resilsched.gap(instances=[i["rigid"]], heuristics=["R-LIST-0"], progress="x"),
     InvalidOption, r"^progress='x' must be True or False"),
]


@pytest.mark.parametrize(("call", "error", "message"), [c[1:] for c in BAD_CALLS],
                         ids=[c[0] for c in BAD_CALLS])
def test_a_bad_argument_is_one_line_naming_it(inst, call, error, message):
    with pytest.raises(error, match=message) as caught:
        call(inst)
    assert "\n" not in str(caught.value)


def test_solve_refuses_a_bad_option_before_any_phase_runs(inst):
    phases: list[str] = []
    with pytest.raises(InvalidOption, match="--param bogus: is not a parameter"):
        resilsched.solve(inst["rigid"], time_limit=5, bogus=1, progress=phases.append)
    assert phases == []


def test_good_arguments_still_pass(inst):
    """The checks refuse nothing valid: a numpy integer seed, a family given to `load`, the
    reader options of a trace, a key function, `online-optimal` on a rigid instance at a q-bar."""
    import numpy as np

    drawn = resilsched.scenario(inst["rigid"], qbar=0.3, seed=np.int64(7))
    assert drawn == resilsched.scenario(inst["rigid"], qbar=0.3, seed=7)
    assert resilsched.load(RIGID, family="rigid").P == 4
    assert resilsched.load(SWF, P=16, statuses=[1]).P == 16
    run = resilsched.simulate(inst["rigid"], "R-LIST-0", priority=lambda instance, j: j)
    assert run.objective is not None
    sol = resilsched.solve(inst["rigid"], method="online-optimal", time_limit=10, qbar=0.1)
    assert sol.objective is not None


@pytest.mark.parametrize("method", [None, "cpsat-scenario"])
def test_solve_tells_its_phases_to_a_progress_function(inst, method):
    # progress= was passed to the model twice (in the options and by the portfolio): TypeError
    phases: list[str] = []
    sol = resilsched.solve(inst["rigid"], method=method, time_limit=10, progress=phases.append)
    assert sol.status.value == "optimal" and phases and all(isinstance(m, str) for m in phases)
