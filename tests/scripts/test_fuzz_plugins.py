"""A seeded slice of the reference fuzz cases (scripts/fuzz_plugins.py) through the command-line
fuzzer: every bad ``MODULE:FUNCTION`` is a one-line refusal, exit status 2, naming it."""

import random
from collections import Counter

from tests.support.fuzzing import load


def test_bad_references_are_refused_in_one_line():
    load("fuzz_cases")
    fuzz = load("fuzz_cli")
    cases = [load("fuzz_plugins").make_plugins_case(random.Random(k)) for k in range(120)]
    assert len({c.label for c in cases}) >= 20
    outcomes = fuzz.run_all(cases, timeout=20.0, fork=False)
    bad = [f"{o.kind}: {' '.join(o.case.argv)} -> {o.err.strip()[-300:]}" for o in outcomes
           if o.kind != "refusal"]
    assert not bad, "\n".join(bad[:10])
    assert Counter(o.code for o in outcomes) == {2: len(cases)}
    for o in outcomes:
        argv = o.case.argv
        ref = argv[max(i for i, a in enumerate(argv) if a in ("--heuristic", "--priority")) + 1]
        assert o.err.startswith("error: ") and ref.strip() in o.err, (ref, o.err)
