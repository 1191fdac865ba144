"""The pictures ``resilsched report`` gains: performance profiles (one curve per heuristic
setting) and each heuristic's worst case drawn above its optimum, recomputed from the stored
case (drawn scenarios and random priorities included) and refused when a run does not give the
stored objective again."""

from __future__ import annotations

from pathlib import Path

import pytest

from resilsched.campaign.export import open_store
from resilsched.campaign.metrics import collect

pytest.importorskip("matplotlib")

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def store(small_exact_store):
    """Rigid (drawn scenarios, a random priority, a parameter grid) and co-scheduling cases,
    each with its exact reference."""
    return small_exact_store


def test_report_draws_profiles_and_worst_cases(small_exact_report):
    code, err, out = small_exact_report.code, small_exact_report.err, small_exact_report.folder
    assert code == 0, err
    names = {p.name for p in out.glob("*.png")}
    assert {"rigid-gap-profile.png", "coschedule-gap-profile.png"} <= names
    worst = sorted(n for n in names if "-worst-" in n)
    assert worst == ["coschedule-worst-PACK-APPROX--priority-fixed.png",
                     *(f"rigid-worst-R-LIST-0--priority-{p}--redraw-on-failure-{r}.png"
                       for p in ("LPT", "Random") for r in ("False", "True"))]
    for name in worst + ["rigid-gap-profile.png"]:
        data = (out / name).read_bytes()
        assert data.startswith(PNG) and len(data) > 10_000, name
    md = (out / "report.md").read_text()
    assert "performance profile of the gap of the makespan to the optimum (%)" in md
    assert "above the optimum of cpsat-scenario](rigid-worst-R-LIST-0--priority-Random--" in md
    assert "not drawn" not in md  # every worst case was recomputed to its stored values


def _family_rows(store: Path, family: str):
    with open_store(store) as s:
        stored = list(s.rows("small-exact"))
        config = s.config("small-exact")
    families, _ = collect((k, f, r) for k, f, r, _, _ in stored)
    return families[family], [(f, r) for _, f, r, _, _ in stored], config


def test_a_worst_case_that_does_not_reproduce_is_said_not_drawn(store, tmp_path):
    from resilsched.campaign.plots import _worst, worst_case_figures

    fr, pairs, config = _family_rows(store, "rigid")
    first = _worst(fr, pairs)[0]
    tampered = [(f, {**r, "objective": r["objective"] + 1} if f is first.fields else r)
                for f, r in pairs]
    made = worst_case_figures(fr, tampered, config, tmp_path)
    notes = [caption for caption, path in made if not path.name]
    assert len(notes) == 1 and "not drawn: run again" in notes[0]
    assert "the store holds" in notes[0]


def test_without_the_spec_sources_the_worst_case_is_said_not_drawn(store, tmp_path):
    from resilsched.campaign.plots import worst_case_figures

    fr, pairs, config = _family_rows(store, "coschedule")
    moved = {**config, "instances": [{**src, "seed": 99} for src in config["instances"]]}
    made = worst_case_figures(fr, pairs, moved, tmp_path)
    assert made and all(not path.name and "no longer in the spec's sources" in caption
                        for caption, path in made)


def test_log_axes_have_plain_tick_labels():
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from resilsched.campaign.plots import _plain_ticks

    fig = Figure()
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ax.plot([1, 3, 50], [0, 0.5, 1])
    ax.set_xscale("log")
    _plain_ticks(ax)
    fig.canvas.draw()
    labels = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
    assert labels and all("^" not in t and "times" not in t for t in labels)
    assert "10" in labels
