"""A seeded slice of the online fuzz cases (scripts/fuzz_online.py) through the command-line
fuzzer: no traceback, no hang, no accepted invalid input; every refusal is one line on standard
error with exit status 2 and nothing on standard output."""

import random

from tests.support.fuzzing import checked, load


def test_fuzzed_online_command_lines_are_refused_in_one_line_or_run():
    fuzz = load("fuzz_cli")
    cases_module = load("fuzz_online")
    rng = random.Random(26)
    cases = [cases_module.make_online_case(rng) for _ in range(150)]
    outcomes = fuzz.run_all(cases, timeout=20.0, fork=False)
    counts = checked(fuzz, outcomes)
    assert counts["refusal"] >= 50 and counts["ok"] >= 40, counts
