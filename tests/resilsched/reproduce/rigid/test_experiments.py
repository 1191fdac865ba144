"""Reduced reproduction of the rigid-job experiments (spec 002 §9), run with ``pytest -m slow``.

Runs `resilsched.reproduce.rigid` (``resilsched reproduce rigid``) on a small configuration and
checks the qualitative claims of the paper that our numbers support (docs/reproduction.md lists
the ones they do not).
"""

from __future__ import annotations

import pytest

from resilsched.reproduce import rigid as reproduce_rigid


@pytest.fixture(scope="module")
def reproduction(tmp_path_factory):
    rr = reproduce_rigid
    out = tmp_path_factory.mktemp("rigid")
    cfg = rr.parse_args(["--sets", "4", "--scenarios", "8", "--qbars", "0,0.1,0.3,0.5",
                         "--Ps", "5000,10000,15000,20000", "--mira-days", "6",
                         "--mira-scenarios", "4", "--jobs", "2", "--out", str(out),
                         "--reservations", "fresh,fixed", "--prop3-samples", "5000",
                         "--only", "fig4,fig5,fig6,table1,fig78,prop3"])
    return rr, cfg, rr.run(cfg)


@pytest.mark.slow
def test_outputs_written(reproduction):
    _, cfg, result = reproduction
    for name in ("synthetic.csv", "synthetic_per_set.csv", "table1.csv", "table1_per_day.csv",
                 "prop3.csv", "summary.md", "fig4.png", "fig5.png", "fig6.png", "table1.png",
                 "fig7.png", "fig8.png"):
        assert (cfg.out / name).stat().st_size > 0, name
    assert "Claims (spec §9)" in result["summary"]
    assert set(result["claims_by_mode"]) == {"fresh", "fixed"}
    # one row per claim in each mode, the same claims in the same order
    fresh, fixed = result["claims_by_mode"]["fresh"], result["claims_by_mode"]["fixed"]
    assert [c[0] for c in fresh] == [c[0] for c in fixed]
    assert "ours (fixed)" in result["summary"] and "nan" not in result["summary"].lower()


@pytest.mark.slow
def test_fixed_reservations_raise_the_reserving_heuristics(reproduction):
    """Issue 14: with the authors' fixed reservations R-LIST-Q-LPT rises with failures well
    above its fresh-round curve (the paper's 20-30% rise); R-LIST-0 has no reservations and
    does not change with the mode."""
    _, cfg, result = reproduction
    agg = result["synthetic"]["agg"]
    P0 = cfg.P_default
    fresh = agg["R-LIST-Q", "LPT", 0.3, P0]["mean"] / agg["R-LIST-Q", "LPT", 0.0, P0]["mean"]
    fixed = agg["R-LIST-Q/fixed", "LPT", 0.3, P0]["mean"] / \
        agg["R-LIST-Q/fixed", "LPT", 0.0, P0]["mean"]
    assert fixed - 1 > 0.15 and fixed > fresh + 0.1
    assert ("R-LIST-0/fixed", "LA", 0.3, P0) not in agg
    # without failures fixed and fresh reservations give different but valid schedules; the
    # q-bar = 0 rows of both modes are failure-free, so every ratio is at least 1
    for h in ("R-LIST-1/fixed", "R-LIST-Q/fixed"):
        assert all(agg[h, pr, 0.0, P0]["mean"] >= 1 for pr in ("LPT", "LA"))


@pytest.mark.slow
def test_ratios_respect_lower_bound_and_greedy_guarantee(reproduction):
    _, _, result = reproduction
    rows = result["synthetic"]["rows"] + result["table1"]["rows"]
    assert all(r["mean_ratio"] >= 1 - 1e-9 for r in rows)  # T >= L(f)
    # Proposition 2's proof only uses t_max(f) and A(f)/P, so greedy satisfies
    # T_G <= (2 - 1/P) L(f) in every scenario, whatever the priority (spec §6.2).
    greedy = [r for r in rows if r["heuristic"] == "R-LIST-0"]
    assert greedy and all(r["max_ratio"] <= 2 - 1 / r["P"] + 1e-9 for r in greedy)


@pytest.mark.slow
def test_priority_claims(reproduction):
    rr, cfg, result = reproduction
    agg = result["synthetic"]["agg"]
    pts5 = [(q, cfg.P_default) for q in cfg.qbars]
    # §9.3: LPT and LA are the best priorities; the list heuristics prefer LA or LPT, shelves LPT
    for h in rr.FIVE:
        assert rr.best_priority(agg, h, pts5) in ("LA", "LPT"), h
    for h in ("R-SHELFFILL-B", "R-SHELFFILL-NB"):
        assert rr.best_priority(agg, h, pts5) == "LPT", h


@pytest.mark.slow
def test_list_beats_shelf_and_ratios_are_small(reproduction):
    rr, cfg, result = reproduction
    agg = result["synthetic"]["agg"]
    P0 = cfg.P_default
    for q in cfg.qbars:
        l0 = agg["R-LIST-0", "LA", q, P0]["mean"]
        assert l0 < agg["R-SHELFFILL-NB", "LPT", q, P0]["mean"]
        assert l0 < agg["R-SHELFFILL-B", "LPT", q, P0]["mean"]
        assert l0 < 1.2
    # R-SHELFFILL-NB is the worst of the five at q-bar = 0.3 (paper: up to 18% above R-LIST-0)
    worst = max(rr.FIVE, key=lambda h: agg[h, rr.PAPER_BEST[h], 0.3, P0]["mean"])
    assert worst == "R-SHELFFILL-NB"


@pytest.mark.slow
def test_table1_claims(reproduction):
    rr, _, result = reproduction
    agg = result["table1"]["agg"]
    lists = ("R-LIST-0", "R-LIST-1", "R-LIST-Q")
    for q in rr.MIRA_QBARS:
        assert max(agg[h, "LPT", q]["max"] for h in lists) < 1.5
        assert min(agg[h, "LPT", q]["mean"] for h in ("R-SHELFFILL-B", "R-SHELFFILL-NB")) > \
            min(agg[h, "LPT", q]["mean"] for h in lists)
    # Figs. 7-8: every priority on every day, for every heuristic and mode
    for h in (*rr.FIVE, "R-LIST-1/fixed", "R-LIST-Q/fixed"):
        for pr in rr.PRIORITIES7:
            assert agg[h, pr, 0.0]["sets"] == 6, (h, pr)


@pytest.mark.slow
def test_prop3_numbers(reproduction):
    _, _, result = reproduction
    by = {(r["scale"], r["lambda"]): r["ratio"] for r in result["prop3"]}
    assert round(by[1000, 1e-7], 5) == 1.00005 and round(by[1000, 1e-3], 2) == 1.07


@pytest.mark.slow
def test_shelf_curves_decrease_with_qbar_except_lpt(reproduction):
    """§9.3: shelf heuristics' normalised makespan decreases with q-bar, except under LPT."""
    _, cfg, result = reproduction
    agg = result["synthetic"]["agg"]
    P0, q_end = cfg.P_default, max(cfg.qbars)
    for h in ("R-SHELFFILL-B", "R-SHELFFILL-NB"):
        assert agg[h, "LPT", q_end, P0]["mean"] > agg[h, "LPT", 0.0, P0]["mean"], h
        for pr in ("HPA", "LPA", "LA", "SA", "Random"):
            assert agg[h, pr, q_end, P0]["mean"] < agg[h, pr, 0.0, P0]["mean"], (h, pr)


@pytest.mark.slow
def test_table1_through_swf_equals_generator(tmp_path):
    """The SWF path end to end: Mira-like days written as SWF and read back give the same table."""
    from resilsched.instances.rigid.mira_like import mira_like_days, write_swf

    rr = reproduce_rigid
    write_swf(mira_like_days(3, days=3), tmp_path / "mira.swf")
    common = ["--only", "table1", "--mira-days", "3", "--mira-scenarios", "3", "--jobs", "1",
              "--no-plots", "--mira-seed", "3"]
    direct = rr.run(rr.parse_args(common + ["--out", str(tmp_path / "a")]))["table1"]
    via = rr.run(rr.parse_args(common + ["--out", str(tmp_path / "b"),
                                         "--swf", str(tmp_path / "mira.swf")]))["table1"]
    key = lambda r: (r["heuristic"], r["priority"], r["qbar"], r["set"])  # noqa: E731
    assert sorted(direct["rows"], key=key) == sorted(via["rows"], key=key)
    assert "SWF" in via["source"]
