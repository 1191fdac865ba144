"""A seeded slice of the plot fuzzer (scripts/fuzz_plot.py) run through the command-line fuzzer:
bad outputs, sides and option values are refused in one line (exit 2) before anything is
written, good ones draw; never a traceback, a hang or an accepted invalid input."""

import importlib.util
import sys
from collections import Counter
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"

pytest.importorskip("matplotlib")


def _load(name: str):
    if str(SCRIPTS) not in sys.path:
        sys.path.insert(0, str(SCRIPTS))  # the fuzz modules import fuzz_cases beside them
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_fuzzed_plot_command_lines_are_refused_in_one_line_or_drawn():
    fuzz = _load("fuzz_cli")
    cases = _load("fuzz_plot").make_plot_cases(60, seed=24)
    assert len({c.label.split()[1] for c in cases}) == 6  # every surface is in the slice
    outcomes = fuzz.run_all(cases, timeout=60.0, fork=False)
    bad = [f"{o.kind}: {o.case.label}: {' '.join(o.case.argv)[:200]} -> {o.err.strip()[-300:]}"
           for o in outcomes if o.kind in fuzz.BAD]
    assert not bad, "\n".join(bad[:20])
    counts = Counter(o.kind for o in outcomes)
    assert counts["refusal"] >= 20 and counts["ok"] >= 10
    for o in outcomes:
        if o.kind == "refusal":
            assert o.code == 2 and o.out == "" and o.err.count("\n") == 1
