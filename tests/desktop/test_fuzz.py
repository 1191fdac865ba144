"""A seeded slice of the desktop fuzzer (scripts/fuzz_desktop.py) run through the command-line
fuzzer: mutated instances and traces, bad disturbances and parameters give a result or a
one-line refusal (exit 2), never a traceback, a hang or an accepted invalid input."""

import importlib.util
import sys
from collections import Counter
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"
#: kinds whose files take seconds to write and parse (their limits: tests/desktop/test_limits)
HEAVY = ("size intervals", "size machines", "size cells", "csv machines")


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_fuzzed_desktop_inputs_are_refused_in_one_line_or_run():
    fuzz = _load("fuzz_cli")
    cases = [c for c in _load("fuzz_desktop").make_desktop_cases(160, seed=21)
             if not any(h in c.label for h in HEAVY)][:70]
    assert len({c.label.split()[1] for c in cases}) >= 5  # every surface is in the slice
    outcomes = fuzz.run_all(cases, timeout=30.0, fork=False)
    bad = [f"{o.kind}: {o.case.label}: {' '.join(o.case.argv)[:200]} -> {o.err.strip()[-300:]}"
           for o in outcomes if o.kind in fuzz.BAD]
    assert not bad, "\n".join(bad[:20])
    counts = Counter(o.kind for o in outcomes)
    assert counts["refusal"] >= 40 and counts["ok"] >= 10
    for o in outcomes:
        if o.kind == "refusal":
            assert o.code == 2 and o.out == "" and o.err.count("\n") == 1
