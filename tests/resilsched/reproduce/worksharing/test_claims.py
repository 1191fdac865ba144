"""Issue 27: the worksharing claims checked per configuration, Fig. 5's reading of E5, the
Table 3 / props commands and no-rep's chunk-count rules (WS-20)."""

from __future__ import annotations

import csv
import math

import numpy as np
import pytest

from resilsched.errors import InvalidInstance
from resilsched.heuristics.worksharing.run import greedy, no_rep
from resilsched.heuristics.worksharing.schedules import (
    NO_REP_RULES,
    _norep_expected,
    no_rep_count,
)
from resilsched.instances.worksharing import LinearRisk, WorksharingInstance
from resilsched.reproduce import worksharing as reproduction
from resilsched.reproduce.worksharing.claims import (
    ConfigRatios,
    best_average_reach,
    check_lines,
    shortfalls,
)
from resilsched.reproduce.worksharing.props import kforms_lines, prop1_lines, prop2_lines
from resilsched.reproduce.worksharing.table3 import table1_lines, table3_lines


def test_best_average_reach_is_where_the_best_x_average_crosses_the_level():
    rng = np.random.default_rng(3)
    for _ in range(20):
        r = np.minimum(1.0, rng.uniform(0.9, 1.05, size=rng.integers(1, 60)))
        level = float(rng.uniform(0.95, 1.0))
        s = np.sort(r)[::-1]
        ks = [k for k in range(1, s.size + 1) if s[:k].mean() >= level]
        expected = 100.0 * max(ks) / s.size if ks else 0.0
        assert best_average_reach(r, level) == pytest.approx(expected)
    # the best-x average reaches further than the per-instance share
    r = np.array([1.0] * 10 + [0.992] * 20 + [0.5] * 70)
    assert np.mean(r > 0.995) == 0.1 and best_average_reach(r, 0.995) == 26.0


def _config(a: list[float], b: list[float], eps: float = 0.1) -> ConfigRatios:
    return ConfigRatios(5, 2.0, eps, None, {"greedy": np.array(a), "no-rep": np.array(b)})


def test_shortfalls_are_per_configuration_with_a_paired_half_width():
    configs = [_config([0.9, 0.8, 0.7], [0.95, 0.85, 0.74]),   # greedy below, beyond noise
               _config([0.9, 0.8], [0.9, 0.8]),                  # a tie is no shortfall
               _config([0.9, 0.8], [0.5, 0.6])]                  # greedy above
    found = shortfalls(configs, "greedy", ["no-rep"])
    assert len(found) == 1 and found[0].config is configs[0]
    assert found[0].points == pytest.approx(100 * np.mean([0.05, 0.05, 0.04]))
    d = np.array([0.05, 0.05, 0.04])
    assert found[0].half == pytest.approx(100 * 1.96 * d.std(ddof=1) / math.sqrt(3))
    assert found[0].beyond_noise


def test_check_lines_counts_and_writes_every_shortfall(tmp_path):
    configs = [_config([0.9, 0.8, 0.7], [0.95, 0.85, 0.74]), _config([0.9], [0.5])]
    lines = check_lines("e6", configs, tmp_path)
    text = "\n".join(lines)
    assert "greedy below no-rep: in 1 of 2 configurations, 1 beyond" in text
    rows = list(csv.DictReader(open(tmp_path / "e6_per_config.csv")))
    assert len(rows) == 2  # the same shortfall under two claims of E6
    assert {r["rival"] for r in rows} == {"no-rep"}


def test_table3_and_table1_equal_the_paper():
    t3 = "\n".join(table3_lines())
    assert "7 of 7 K values equal the paper's" in t3 and "K = 23780 (proven)" in t3
    assert "48 of 48 entries equal the paper's" in "\n".join(table1_lines())


def test_props_reduced():
    """Prop. 1 on small charts, Prop. 2 and the K forms on a few instances of Table 4."""
    p1 = "\n".join(prop1_lines(g_max=3, m_max=3, random_charts=18))
    assert "(no violation)" in p1
    grid = [(2, 4), (3, 9), (4, 20), (5, 25)]
    p2 = prop2_lines(grid)
    assert all(line.endswith(" 0") for line in p2[2:]), p2
    kf = "\n".join(kforms_lines(grid))
    assert "K_min = (n/g)(n!)^(g/n) = 23779.07" in kf and "4 of 4 instances (0 violations)" in kf


@pytest.mark.parametrize("p, W, eps", [(5, 2.0, 0.01), (10, 7.0, 0.001), (25, 3.0, 0.1)])
def test_no_rep_rules(p, W, eps):
    inst = WorksharingInstance(W, p, LinearRisk(1.0), eps)
    counts = {rule: no_rep_count(inst, rule) for rule in NO_REP_RULES}
    best = max(range(1, 2 * counts["grid"] + p), key=lambda N: _norep_expected(
        W, p, N, inst.risk, eps))
    top = _norep_expected(W, p, best, inst.risk, eps)
    for rule in ("grid", "binary", "per-worker"):  # searches, exact only where unimodal
        assert 0.98 * top <= _norep_expected(W, p, counts[rule], inst.risk, eps) <= top + 1e-12
    assert counts["per-worker"] % p == 0
    assert counts["greedy"] == sum(greedy(inst).schedule.chunk_counts)
    for rule, N in counts.items():
        r = no_rep(inst, chunk_rule=rule)
        assert r.schedule.chunk_counts == (N,)
        assert r.objective == pytest.approx(_norep_expected(W, p, N, inst.risk, eps))
    assert no_rep(inst).schedule.chunk_counts == (counts["grid"],)  # default unchanged


def test_no_rep_binary_is_bounded_at_any_size():
    """p X / eps = 10^3 x 10^8 chunk counts: the search stays within NO_REP_BINARY_CAP."""
    from resilsched.heuristics.worksharing.schedules import NO_REP_BINARY_CAP

    inst = WorksharingInstance(500.0, 1000, LinearRisk(1.0), 1e-8)
    assert 1 <= no_rep_count(inst, "binary") <= NO_REP_BINARY_CAP


def test_no_rep_rule_refused_by_name():
    inst = WorksharingInstance(2.0, 2, LinearRisk(1.0), 0.01)
    with pytest.raises(InvalidInstance, match="chunk_rule"):
        no_rep(inst, chunk_rule="cubic")


def test_cli_table3_and_bad_rule(run, tmp_path):
    code, out, _ = run("reproduce", "worksharing", "table3", "--out", tmp_path)
    assert code == 0 and "7 of 7 K values" in out
    code, out, err = run("reproduce", "worksharing", "e5", "--no-rep-rule", "cubic")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "argument --no-rep-rule: invalid choice: 'cubic'" in err


def test_e5_prints_both_readings_and_resumes(tmp_path, capsys):
    argv = ["e5", "--p", "5", "--trials", "20", "--jobs", "1", "--out", str(tmp_path)]
    assert reproduction.main(argv) == 0
    first = capsys.readouterr().out
    assert "per instance (paper > 21 %" in first and "Fig. 5's reading" in first
    assert "greedy below another heuristic: in " in first
    assert (tmp_path / "e5_per_config.csv").exists()
    assert reproduction.main(argv) == 0
    again = capsys.readouterr().out  # resumed from the store: the same output but the timing
    assert again.splitlines()[1:] == first.splitlines()[1:]


def test_e5_variants_check_the_e5_claims(tmp_path, capsys):
    assert reproduction.main(["e5", "--p", "5", "--trials", "5", "--jobs", "1", "--chunk-search",
                              "binary", "--no-rep-rule", "greedy", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "greedy below another heuristic: in " in out and "no-rep's: greedy" in out
    assert (tmp_path / "e5_binary_norep-greedy_per_config.csv").exists()


def test_norep_rules_reduced(tmp_path, capsys):
    assert reproduction.main(["norep-rules", "--p", "5", "--trials", "5", "--jobs", "1",
                              "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    for rule in NO_REP_RULES:
        assert f"\n  {rule} " in out
    assert "nearest rule: " in out


@pytest.mark.slow
def test_props_full(run, tmp_path):
    code, out, _ = run("reproduce", "worksharing", "props", "--out", tmp_path)
    assert code == 0
    assert "(no violation)" in out and "4043 of 4043 instances (0 violations)" in out
    table = out.split("violations\n")[1].split("K_min and K_upper")[0]
    assert all(line.split()[-1] == "0" for line in table.strip().splitlines())


def test_the_rule_type_names_the_rules():
    from typing import get_args

    from resilsched.heuristics.worksharing.params import NoRepRule

    assert get_args(NoRepRule) == NO_REP_RULES
