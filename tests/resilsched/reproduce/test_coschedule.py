"""`resilsched reproduce coschedule` (issue 27): the co-scheduling theorems checked on seeded
random instances against independent oracles, one claims row each."""

from __future__ import annotations

import pytest

from resilsched.reproduce.coschedule import (
    brute_pack,
    claim_rows,
    claim_tasks,
    main,
    run_check,
)


@pytest.fixture(scope="module")
def reduced():
    """Three instances per check (the ILP, seconds per solve, runs on the first)."""
    tasks = claim_tasks(3, 2026)
    return tasks, [run_check(t.payload) for t in tasks]


def test_reduced_claims_are_reproduced(reduced):
    tasks, results = reduced
    rows = claim_rows(tasks, results)
    assert [r[0].split(":")[0] for r in rows] == ["Thm 1.3", "Thms 1.1, 1.5", "Thm 1.6",
                                                  "Erratum (spec A-28)"]
    assert all(r[3].startswith("reproduced") for r in rows), rows
    assert "the ILP (1.12) also equal on the 1 of them" in rows[1][2]


def test_a_mismatch_or_a_ratio_above_3_reads_differs(reduced):
    import copy

    tasks, results = reduced
    results = copy.deepcopy(results)
    for t, r in zip(tasks, results, strict=True):
        if t.payload["check"] == "onepack":
            r["mismatches"] = ["x"]
        if t.payload["check"] == "approx":
            r["worst"]["fixed"] = 3.5
    rows = claim_rows(tasks, results)
    assert rows[0][3].startswith("differs") and rows[2][3] == "differs"


def test_brute_force_oracle_on_a_hand_instance():
    from resilsched.instances.coschedule import CoscheduleInstance

    inst = CoscheduleInstance(p=4, k=2, times=((8, 4, 3, 3), (6, 5, 4, 4)))
    assert brute_pack(inst, [0, 1]) == 5  # sigma (2, 2): max(4, 5)


@pytest.mark.parametrize("options, message", [
    (["--instances", "0"], "argument --instances: 0 must be in [1, 100000]"),
    (["--seed", "-1"], "argument --seed: -1 must be in [0, 2^32)"),
    (["--jobs", "x"], "argument --jobs: 'x' is not an integer"),
])
def test_bad_options_are_one_line_errors(capsys, options, message):
    with pytest.raises(SystemExit) as exc:
        main(options, prog="rc")
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"rc: error: {message}") and err.count("\n") == 1


def test_command_resumes_from_its_store(tmp_path, capsys):
    argv = ["--instances", "1", "--out", str(tmp_path)]
    assert main(argv) == 0
    first = capsys.readouterr()
    assert main(argv) == 0
    again = capsys.readouterr()
    assert again.out == first.out and "0 already stored" not in again.err
    assert "| Thm 1.6" in (tmp_path / "summary.md").read_text()


def test_registered_as_the_family_reproduction():
    from resilsched.families.coschedule import FAMILY

    assert FAMILY.reproduction is not None
