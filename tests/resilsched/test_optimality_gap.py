"""Certified gaps (resilsched.optimality_gap): the true mean gap to the optimum lies in the
certified interval wherever the unproven optima lie, and a pair of heuristics is ranked only
when every placement of the optima gives the same order."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from resilsched.gap import GapReport, HeuristicStats, format_report
from resilsched.optimality_gap import certify_family, relative_gap


def _report(sense: str, cases: list[tuple[float, float, bool]], values: list[list[float]]
            ) -> GapReport:
    """cases: (best schedule, bound, proven); values[h][i]: heuristic h on case i."""
    report = GapReport(["f"], None)
    for i, (best, bound, proven) in enumerate(cases):
        report.cases.append({"family": "f", "case": f"c{i}",
                             "reference": "optimal" if proven else "bound",
                             "objective": best, "bound": best if proven else bound})
    for k, row in enumerate(values):
        h = HeuristicStats("f", f"H{k}", None)
        for i, v in enumerate(row):
            h.objectives[None, f"c{i}"] = v
        report.heuristics.append(h)
    return report


@st.composite
def instances(draw: st.DrawFn) -> tuple[str, list, list, list[float]]:
    """A sense, cases (best, bound, proven), heuristic values, and one placement of the optima."""
    sense = draw(st.sampled_from(["min", "max"]))
    n = draw(st.integers(1, 5))
    cases, optima = [], []
    for _ in range(n):
        lo = draw(st.floats(1.0, 100.0))
        width = draw(st.floats(0.0, 0.3))
        proven = draw(st.booleans())
        hi = lo if proven else lo * (1 + width)
        t = draw(st.floats(0.0, 1.0))
        opt = lo + t * (hi - lo)
        # min: best schedule hi, bound lo; max: best schedule lo, bound hi
        cases.append((hi, lo, proven) if sense == "min" else (lo, hi, proven))
        optima.append(opt)
    k = draw(st.integers(2, 4))
    values = []
    for _ in range(k):
        row = []
        for best, _bound, _p in cases:
            excess = draw(st.floats(0.0, 0.5))
            row.append(best * (1 + excess) if sense == "min" else best * (1 - excess / 2))
        values.append(row)
    return sense, cases, values, optima


@settings(max_examples=200, deadline=None)
@given(instances())
def test_the_true_mean_gap_lies_in_the_certified_interval_and_ranked_pairs_keep_their_order(
        data: tuple[str, list, list, list[float]]) -> None:
    sense, cases, values, optima = data
    report = _report(sense, cases, values)
    certify_family(report, "f", sense)
    if all(p for _, _, p in cases):
        assert all(h.certified is None for h in report.heuristics)
        return
    true = [sum(relative_gap(v, o, sense) for v, o in zip(row, optima, strict=True)) / len(row)
            for row in values]
    for h, gap in zip(report.heuristics, true, strict=True):
        lo, hi = h.certified
        assert lo - 1e-12 <= gap <= hi + 1e-12
    for (i, a), (j, b) in itertools.permutations(enumerate(report.heuristics), 2):
        if b.label not in a.not_ranked:
            # ranked: the order is the same wherever the optima lie, so also at `optima`
            diff = true[i] - true[j]
            ends = [[cases[c][0], cases[c][1]] for c in range(len(cases))]
            corner = [sum(relative_gap(values[i][c], o[c], sense)
                          - relative_gap(values[j][c], o[c], sense) for c in range(len(cases)))
                      for o in itertools.product(*ends)]
            assert all(x > 0 for x in corner) or all(x < 0 for x in corner)
            assert diff == 0 or (diff > 0) == (corner[0] > 0)


def test_a_tie_and_an_undecided_pair_are_not_ranked_and_a_clear_one_is() -> None:
    # one unproven case: optimum in [90, 100] (min); H0 = H1 (tied), H2 much worse
    report = _report("min", [(100.0, 90.0, False)], [[110.0], [110.0], [150.0]])
    certify_family(report, "f", "min")
    h0, h1, h2 = report.heuristics
    assert h0.not_ranked == ["H1"] and h2.not_ranked == []
    assert h0.certified == (relative_gap(110.0, 100.0, "min"), relative_gap(110.0, 90.0, "min"))
    # two cases where the order of the mean gaps depends on the optima: H0 better on a case
    # with a wide interval, H1 on one with a narrow one
    report = _report("min", [(100.0, 50.0, False), (100.0, 99.0, False)],
                     [[100.0, 130.0], [125.0, 100.0]])
    certify_family(report, "f", "min")
    assert report.heuristics[0].not_ranked == ["H1"]
    text = format_report(report)
    assert "gap to OPT" in text and "H0 ~ H1" in text


def test_a_family_proven_everywhere_prints_as_before() -> None:
    report = _report("min", [(100.0, 100.0, True)], [[110.0], [120.0]])
    certify_family(report, "f", "min")
    assert all(h.certified is None and h.not_ranked is None for h in report.heuristics)
    text = format_report(report)
    assert "gap to OPT" not in text and "not ranked" not in text
    assert "certified_gap" not in report.heuristics[0].to_dict()
