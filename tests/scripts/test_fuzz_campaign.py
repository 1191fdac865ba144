"""A seeded slice of the campaign fuzzer (scripts/fuzz_campaign.py) in the suite: malformed
specs, foreign and corrupt stores and bad output paths give no traceback, no hang, no accepted
bad input and no wrong blame (exit 1), and every refusal is one line with exit status 2."""

from collections import Counter

from tests.support.fuzzing import checked, load


def test_fuzzed_campaign_inputs_are_refused_in_one_line_or_run():
    fuzz = load("fuzz_cli")
    cases = load("fuzz_campaign").make_campaign_cases(160, seed=5)
    outcomes = fuzz.run_all(cases, timeout=60.0, fork=False)
    counts = checked(fuzz, outcomes)
    assert counts["refusal"] >= 100 and counts["ok"] >= 20
    assert counts["ok"] + counts["refusal"] == len(outcomes)
    kinds = Counter(o.case.label.split()[0] for o in outcomes)
    assert min(kinds["spec"], kinds["store"], kinds["output"]) >= 20  # every surface
