"""A seeded slice of the online fuzz cases (scripts/fuzz_online.py) through the command-line
fuzzer: no traceback, no hang, no accepted invalid input; every refusal is one line on standard
error with exit status 2 and nothing on standard output."""

import importlib.util
import random
import sys
from collections import Counter
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


def _load(name):
    if str(SCRIPTS) not in sys.path:
        sys.path.insert(0, str(SCRIPTS))
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_fuzzed_online_command_lines_are_refused_in_one_line_or_run():
    fuzz = _load("fuzz_cli")
    cases_module = _load("fuzz_online")
    rng = random.Random(26)
    cases = [cases_module.make_online_case(rng) for _ in range(150)]
    outcomes = fuzz.run_all(cases, timeout=20.0, fork=False)
    counts = Counter(o.kind for o in outcomes)
    bad = [f"{o.kind}: {o.case.label}: {' '.join(o.case.argv)} -> {o.err.strip()[-300:]}"
           for o in outcomes if o.kind in fuzz.BAD]
    assert not bad, "\n".join(bad[:20])
    assert counts["refusal"] >= 50 and counts["ok"] >= 40, counts
    for o in outcomes:
        if o.kind == "refusal":
            assert o.code == 2 and o.out == "" and o.err.count("\n") == 1
