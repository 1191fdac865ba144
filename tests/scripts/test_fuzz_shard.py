"""A seeded slice of the shard fuzzer (scripts/fuzz_shard.py) in the suite: malformed
``--shard`` values and merges of foreign, corrupt or mismatched stores into bad outputs give no
traceback, no hang and no accepted bad input; every refusal is one line with exit status 2, and
a merge that finds tasks missing reports them (exit 1)."""

from collections import Counter

from tests.support.fuzzing import checked, load


def test_fuzzed_shards_and_merges_are_refused_in_one_line_or_run():
    fuzz = load("fuzz_cli")
    cases = load("fuzz_shard").make_shard_cases(120, seed=3)
    outcomes = fuzz.run_all(cases, timeout=60.0, fork=False)
    counts = checked(fuzz, outcomes)
    assert counts["refusal"] >= 40 and counts["ok"] >= 15
    assert counts["ok"] + counts["refusal"] == len(outcomes)
    kinds = Counter(o.case.label.split()[0] for o in outcomes)
    assert min(kinds["shard"], kinds["merge"]) >= 30  # both surfaces
    assert any(o.code == 1 for o in outcomes)  # an incomplete merge, reported
