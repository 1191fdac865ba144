"""Issue 27's moldable checks: Theorems 1-10 and the calibration by computation (`--theorems`),
and the opt-in scaled mix generator (`--mix-gamma-scale`, default draws unchanged)."""

from __future__ import annotations

import hashlib
import json
import math

import numpy as np
import pytest

from resilsched.instances.moldable.generators import MIX_MODELS, PAPER_MODELS, paper_instance
from resilsched.reproduce.moldable.experiments import DEFAULT, run_set, set_tasks
from resilsched.reproduce.moldable.theorems import run_check, theorem_rows, theorem_tasks

#: sha256 of 3 sets per model (n 50, P 300) drawn by main's generator before the option
DEFAULT_DRAWS = "7a186a51e682669312d821d3c9d80c31c7174597be6b880d675b3748f45b1085"


def _digest(**kw) -> str:
    h = hashlib.sha256()
    for m in PAPER_MODELS:
        for k in range(3):
            inst = paper_instance(m, np.random.default_rng([2021, k]), n=50, P=300, lam=1e-7,
                                  **kw)
            h.update(json.dumps(inst.to_dict(), sort_keys=True).encode())
    return h.hexdigest()


def test_default_generation_is_byte_identical():
    assert _digest() == DEFAULT_DRAWS
    assert _digest(mix_gamma_scale=1.0) == DEFAULT_DRAWS


@pytest.mark.parametrize("model", PAPER_MODELS)
def test_gamma_scale_changes_only_the_mix_gammas(model):
    base = paper_instance(model, 7, n=40, P=100)
    scaled = paper_instance(model, 7, n=40, P=100, mix_gamma_scale=2.5)
    if model not in MIX_MODELS:
        assert scaled.to_dict() == base.to_dict()
        return
    assert scaled.metadata["mix_gamma_scale"] == 2.5
    for a, b in zip(base.jobs, scaled.jobs, strict=True):
        assert (a.w, a.pbar, a.c) == (b.w, b.pbar, b.c)
        assert b.gamma == min(1.0, 2.5 * a.gamma)


def test_scaled_tasks_keep_the_default_keys_and_move_minarea():
    combos = (("MINAREA", "LPT"),)
    plain = set_tasks("mix", DEFAULT, 1, 5, 2021, combos)[0].payload
    assert "mix_gamma_scale" not in plain
    assert set_tasks("mix", DEFAULT, 1, 5, 2021, combos, mix_gamma_scale=1.0)[0].payload == plain
    assert "mix_gamma_scale" not in set_tasks("amdahl", DEFAULT, 1, 5, 2021, combos,
                                              mix_gamma_scale=2.5)[0].payload
    scaled = set_tasks("mix", DEFAULT, 1, 5, 2021, combos, mix_gamma_scale=2.5)[0].payload
    # MINAREA ~ 1 / the largest gamma of the set: scaling gamma by 2.5 divides it by about 2.5
    ratio = run_set(plain)["MINAREA/LPT"][0] / run_set(scaled)["MINAREA/LPT"][0]
    assert 1.8 < ratio < 3.2


def _rows(reduced: bool):
    tasks = theorem_tasks(2021, reduced=reduced)
    return theorem_rows(tasks, [run_check(t.payload) for t in tasks])


def test_theorem_rows_reduced():
    rows = _rows(True)
    assert [r[0].split(":")[0] for r in rows] == [
        *(f"Thm {i}" for i in range(1, 11)), "§5.1 calibration"]
    assert all(r[3].startswith("reproduced") for r in rows), [r for r in rows
                                                            if not r[3].startswith("repro")]


def test_theorem_checks_compute_what_they_claim():
    """The exact checks against closed forms: Thm 9's K/2 + 2^(1-K), Thm 7's sqrt P / 2 and the
    calibration's 1 - exp(-lambda w)."""
    t9 = run_check({"check": "thm9", "Ks": [3, 5]})["rows"]
    assert [r["ratio"] for r in t9] == [1.5 + 0.25, 2.5 + 1 / 16]
    t7 = run_check({"check": "thm7", "Ps": [16, 64]})["rows"]
    assert [r["least"] for r in t7] == [2.0, 4.0]
    assert all(r["lpa"] <= r["bound6"] for r in t7)
    cal = run_check({"check": "calibration", "sets": 1, "seed": 2021})
    at = next(r for r in cal["rows"] if r["lambda"] == 1e-7)
    assert at["q_lo"] == pytest.approx(-math.expm1(-5e-4))
    assert at["q_hi"] == pytest.approx(-math.expm1(-0.4))
    assert at["q_lo"] <= at["drawn_lo"] <= at["drawn_hi"] <= at["q_hi"]


def test_a_broken_bound_is_reported_as_differs():
    tasks = theorem_tasks(2021, reduced=True)
    results = [run_check(t.payload) for t in tasks]
    for t, r in zip(tasks, results, strict=True):
        if t.payload["check"] == "runs" and t.payload["model"] == "roofline":
            r["max_ratio"] = 2.5  # above Thm 1's 2
    row = theorem_rows(tasks, results)[0]
    assert row[3].startswith("differs")


@pytest.mark.slow
def test_theorems_command_full(tmp_path, capsys):
    from resilsched.reproduce.moldable import main

    assert main(["--no-table", "--theorems", "--jobs", "1", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| Thm") or
            line.startswith("| §5.1")]
    assert len(rows) == 11 and all("| reproduced" in r for r in rows)
    assert "Theorems 1-10" in (tmp_path / "summary.md").read_text()
