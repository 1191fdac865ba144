"""A seeded slice of the export fuzz cases (scripts/fuzz_export.py) through the command-line
fuzzer: no traceback, no hang, no accepted invalid input; every refusal is one line on standard
error with exit status 2 and nothing on standard output."""

import random

from tests.support.fuzzing import checked, load


def test_fuzzed_export_command_lines_are_refused_in_one_line_or_run():
    fuzz = load("fuzz_cli")
    cases_module = load("fuzz_export")
    rng = random.Random(21)
    cases = [cases_module.make_export_case(rng) for _ in range(160)]
    outcomes = fuzz.run_all(cases, timeout=20.0, fork=False)
    counts = checked(fuzz, outcomes)
    assert counts["refusal"] >= 60 and counts["ok"] >= 40, counts
