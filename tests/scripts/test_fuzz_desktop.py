"""A seeded slice of the desktop fuzzer (scripts/fuzz_desktop.py) run through the command-line
fuzzer: mutated instances and traces, bad disturbances and parameters give a result or a
one-line refusal (exit 2), never a traceback, a hang or an accepted invalid input."""


from tests.support.fuzzing import checked, load

#: kinds whose files take seconds to write and parse (their limits:
#: tests/instances/desktop/test_durations)
HEAVY = ("size intervals", "size machines", "size cells", "csv machines")



def test_fuzzed_desktop_inputs_are_refused_in_one_line_or_run():
    fuzz = load("fuzz_cli")
    cases = [c for c in load("fuzz_desktop").make_desktop_cases(160, seed=21)
             if not any(h in c.label for h in HEAVY)][:70]
    assert len({c.label.split()[1] for c in cases}) >= 5  # every surface is in the slice
    outcomes = fuzz.run_all(cases, timeout=30.0, fork=False)
    counts = checked(fuzz, outcomes)
    assert counts["refusal"] >= 40 and counts["ok"] >= 10
