"""A seeded slice of the command-line fuzzer (scripts/fuzz_cli.py) in the suite: a few hundred
malformed inputs over every command and family give no traceback, no hang, no accepted invalid
input, and every refusal is one line on standard error with exit status 2."""

import importlib.util
import sys
from collections import Counter
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "fuzz_cli.py"


def _fuzzer():
    spec = importlib.util.spec_from_file_location("fuzz_cli", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["fuzz_cli"] = module
    spec.loader.exec_module(module)
    return module


def test_fuzzed_command_lines_are_refused_in_one_line_or_run():
    fuzz = _fuzzer()
    cases = fuzz.make_cases(1200, seed=11)
    # every case known to be invalid (refused before any solver runs: fast), and a few valid
    # heuristic runs; exact solves on fuzzed instances are left to the full script run
    refuse = [c for c in cases if c.expect == "refuse"][:230]
    quick = [c for c in cases if c.expect == "any" and c.argv[0] in ("simulate", "list", "trace")
             and "big-list" not in c.label][:20]
    outcomes = fuzz.run_all(refuse + quick, timeout=20.0, fork=False)
    counts = Counter(o.kind for o in outcomes)
    bad = [f"{o.kind}: {o.case.label}: {' '.join(o.case.argv)} -> {o.err.strip()[-300:]}"
           for o in outcomes if o.kind in fuzz.BAD]
    assert not bad, "\n".join(bad[:20])
    assert counts["refusal"] >= 220 and counts["ok"] + counts["refusal"] == len(outcomes)
    for o in outcomes:
        if o.kind == "refusal":
            assert o.code == 2 and o.out == "" and o.err.count("\n") == 1
