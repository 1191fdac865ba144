"""A seeded slice of the malleable fuzz surface (scripts/fuzz_malleable.py, issue 21) through the
command-line fuzzer: huge sizes, giant integers, failure rates that cannot finish and bad traces
are refused in one line (exit 2), valid instances run; no traceback, no hang."""

import random

from tests.support.fuzzing import checked, load


def test_fuzzed_malleable_instances_are_refused_in_one_line_or_run():
    fuzz = load("fuzz_cli")
    surface = load("fuzz_malleable")
    rng = random.Random(21)
    cases = [surface.make_malleable_case(rng) for _ in range(160)]
    # every case known to be invalid (but two of each of the megabyte files, a second each to
    # read), and a few valid runs (not the 10^7-processor ones)
    big = [c for c in cases if c.label in ("malleable-size-cells", "malleable-size-trace")]
    skip = {id(c) for c in big[4:]}
    refuse = [c for c in cases if c.expect == "refuse" and id(c) not in skip]
    quick = [c for c in cases if c.expect == "any" and "10000000" not in c.label][:15]
    assert {c.label.split("-")[1] for c in refuse} == {"size", "field", "rate", "trace"}
    outcomes = fuzz.run_all(refuse + quick, timeout=20.0, fork=False)
    counts = checked(fuzz, outcomes)
    assert counts["refusal"] >= len(refuse) and counts["ok"] >= 5
