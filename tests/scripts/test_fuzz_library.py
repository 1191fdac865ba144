"""A seeded slice of the tampered-library fuzzer (scripts/fuzz_library.py) in the suite:
mutated copies of small shipped libraries give no traceback and no hang, every mutation known
to make a certificate not hold fails verification (exit 1, one FAILED verdict per failing
instance), every manifest that cannot be read is one refusal (exit 2), and nothing tampered is
accepted."""

import random
from collections import Counter

from tests.support.fuzzing import load

#: the outcomes each expectation allows
ALLOWED = {"refuse": {"refusal"}, "fail": {"failed"}, "any": {"ok", "refusal", "failed"}}



def test_tampered_libraries_fail_or_are_refused_never_accepted():
    fuzz = load("fuzz_cli")
    cases_module = load("fuzz_library")
    rng = random.Random(21)
    cases = [cases_module.make_library_case(rng) for _ in range(90)]
    outcomes = fuzz.run_all(cases, timeout=30.0, fork=False)
    wrong = [f"{o.kind} (expected {o.case.expect}): {o.case.label}: {' '.join(o.case.argv)} "
             f"-> {o.code}: {o.err.strip()[-300:]} {o.out[:200]!r}"
             for o in outcomes if o.kind not in ALLOWED[o.case.expect]]
    assert not wrong, "\n".join(wrong[:20])
    counts = Counter(o.case.expect for o in outcomes)
    assert counts["fail"] >= 25 and counts["refuse"] >= 20 and counts["any"] >= 5, counts
    assert {c.argv[0] for c in cases} == {"library", "gap"}
