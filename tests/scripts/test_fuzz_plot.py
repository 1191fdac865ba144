"""A seeded slice of the plot fuzzer (scripts/fuzz_plot.py) run through the command-line fuzzer:
bad outputs, sides and option values are refused in one line (exit 2) before anything is
written, good ones draw; never a traceback, a hang or an accepted invalid input."""


import pytest

from tests.support.fuzzing import checked, load

pytest.importorskip("matplotlib")



def test_fuzzed_plot_command_lines_are_refused_in_one_line_or_drawn():
    fuzz = load("fuzz_cli")
    cases = load("fuzz_plot").make_plot_cases(60, seed=24)
    assert len({c.label.split()[1] for c in cases}) == 6  # every surface is in the slice
    outcomes = fuzz.run_all(cases, timeout=60.0, fork=False)
    counts = checked(fuzz, outcomes)
    assert counts["refusal"] >= 20 and counts["ok"] >= 10
