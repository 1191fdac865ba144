"""Seeded fuzzing of the moldable family's boundary: parameters, scenarios, time limits and
reproduction options never give a traceback or a hang; a refusal is one line, exit status 2."""

from __future__ import annotations

import json
import random

import pytest

from tests.resilsched.families.test_moldable import INSTANCE

VALUES = ["0", "-1", "1e308", "nan", "inf", "-inf", "0.3", "1", "2", "true", "no", "", "x",
          "desc_p", "asc_p", "first_only", "1.5", "4.5", "0.001", "1e-9", "3/4", "None"]
NAMES = ["eps", "eps2", "area_slack", "attempt_order", "g1_exact", "seed", "gamma", "",
         "max_intervals", "workers", "deterministic", "incumbent", "max_scale"]
FAILURES = ["0,0,0,0", "0,1,0,2", "1,2", "0,0,0,0,0", "-1,0,0,0", "a,0,0,0", "1e29,0,0,0",
            "0.5,0,0,0", "0,0,0,2000000", "0,,0,0", "3,3,3,3", "0,0,0,70000", ""]
LIMITS = ["2", "0.5", "nan", "inf", "-1", "1e-6", "0", "1e308", "0.05"]


def _one_line_refusal_or_success(code: int, out: str, err: str) -> None:
    assert "Traceback" not in err
    assert code in (0, 2), (code, err)
    if code == 2:
        assert out == "" and err.startswith("error: ") and err.count("\n") == 1, err


@pytest.mark.parametrize("seed", range(4))
def test_fuzz_simulate_and_solve(run, tmp_path, seed):
    rng = random.Random(seed)
    path = tmp_path / "m.json"
    path.write_text(json.dumps(INSTANCE))
    for _ in range(30):
        heuristic = rng.choice(["LPA-LIST", "BATCH-LIST", "MINTIME", "MINAREA", "LPA-PROOF"])
        argv = ["simulate", path, "--heuristic", heuristic, "-q", "--json"]
        for _ in range(rng.randrange(3)):
            argv += ["--param", f"{rng.choice(NAMES)}={rng.choice(VALUES)}"]
        if rng.random() < 0.5:
            argv += [f"--failures={rng.choice(FAILURES)}"]
        _one_line_refusal_or_success(*run(*argv))
    for _ in range(8):
        argv = ["solve", path, "-q", "--json", f"--time-limit={rng.choice(LIMITS)}"]
        if rng.random() < 0.5:
            argv += ["--param", f"{rng.choice(NAMES)}={rng.choice(VALUES)}"]
        if rng.random() < 0.5:
            argv += [f"--failures={rng.choice(FAILURES)}"]
        _one_line_refusal_or_success(*run(*argv))


OPTIONS = ["--sets", "--scenarios", "--seed", "--area-slack", "--sweep-sets",
           "--sweep-scenarios", "--grids", "--algos", "--jobs", "--csv", "--out", "--store"]
ARGS = ["0", "-3", "x", "nan", "1e308", "2.5", "P,n", "lambda,lambda", "LPA,BATCH", "FOO", ",",
        "/nonexistent/a/b", "99999999999", "4", "1.0"]


@pytest.mark.parametrize("seed", range(3))
def test_fuzz_reproduction_options(capsys, monkeypatch, tmp_path, seed):
    from resilsched.reproduce.moldable import main

    monkeypatch.chdir(tmp_path)  # valid --out/--csv/--store values are relative paths
    rng = random.Random(100 + seed)
    for _ in range(30):
        argv = []
        for _ in range(1 + rng.randrange(2)):
            argv.append(f"{rng.choice(OPTIONS)}={rng.choice(ARGS)}")
        argv += ["--no-table"]  # nothing is computed when every option is valid
        try:
            code = main(argv, prog="rm")
        except SystemExit as exc:
            code = exc.code
        err = capsys.readouterr().err
        assert "Traceback" not in err
        assert code in (0, 2), (argv, err)
        if code == 2:
            assert err.startswith("rm: error: ") and err.count("\n") == 1, (argv, err)
