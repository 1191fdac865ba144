"""A seeded slice of the campaign fuzzer (scripts/fuzz_campaign.py) in the suite: malformed
specs, foreign and corrupt stores and bad output paths give no traceback, no hang, no accepted
bad input and no wrong blame (exit 1), and every refusal is one line with exit status 2."""

import importlib.util
import sys
from collections import Counter
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_fuzzed_campaign_inputs_are_refused_in_one_line_or_run():
    fuzz = _load("fuzz_cli")
    cases = _load("fuzz_campaign").make_campaign_cases(160, seed=5)
    outcomes = fuzz.run_all(cases, timeout=60.0, fork=False)
    counts = Counter(o.kind for o in outcomes)
    bad = [f"{o.kind}: {o.case.label}: {' '.join(o.case.argv)} -> {o.err.strip()[-300:]}"
           for o in outcomes if o.kind in fuzz.BAD]
    assert not bad, "\n".join(bad[:20])
    assert counts["refusal"] >= 100 and counts["ok"] >= 20
    assert counts["ok"] + counts["refusal"] == len(outcomes)
    for o in outcomes:
        if o.kind == "refusal":
            assert o.code == 2 and o.out == "" and o.err.count("\n") == 1
    kinds = Counter(o.case.label.split()[0] for o in outcomes)
    assert min(kinds["spec"], kinds["store"], kinds["output"]) >= 20  # every surface
