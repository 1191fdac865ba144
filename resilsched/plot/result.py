"""From a result to its pictures: validate the schedule, lay out its segments, draw, save.

`picture_of` is the one path from a heuristic result or an exact model's solution to a
`Picture`: it takes the schedule out of the result (the family's module's ``unwrap``), checks it
with the family's validator (a heuristic result as it is; a solution's schedule as a heuristic
result of the model would be, objective included) and only then lays out its segments. A
schedule the validator refuses is never drawn: `InvalidSchedule` says why.

Families and their picture modules: rigid and moldable `resilsched.plot.attempts`,
coschedule, worksharing, malleable and desktop their namesakes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from resilsched.errors import InvalidInstance
from resilsched.plot.picture import NothingToDraw, Picture
from resilsched.plot.segments import SegmentTable
from resilsched.solution import HeuristicResult

#: the output formats of a picture (file suffix -> matplotlib format)
FORMATS = {".png": "png", ".svg": "svg", ".pdf": "pdf"}


def _module(family: str) -> Any:
    from resilsched.plot import attempts, coschedule, desktop, malleable, worksharing

    table = {"rigid": attempts, "moldable": attempts, "coschedule": coschedule,
             "worksharing": worksharing, "malleable": malleable, "desktop": desktop}
    if family not in table:
        why = NO_SCHEDULE.get(family, "has no picture")
        raise InvalidInstance("family", f"{family!r} {why}: resilsched plot draws the "
                                        f"schedules of {', '.join(sorted(table))}")
    return table[family]


#: families whose results are no schedule, and why (the refusal names them)
NO_SCHEDULE = {"online": "has no schedule to draw (its results are expected makespans of "
                         "online policies over the failure model, a study: docs/online.md)"}


def require_picture(family: str) -> None:
    """Raise `InvalidInstance` (naming the families drawn) unless `family` has a picture."""
    _module(family)


def has_picture(family: str) -> bool:
    """Whether `family` has a picture module."""
    try:
        _module(family)
    except InvalidInstance:
        return False
    return True


def checked_schedule(fam: Any, instance: Any, scenario: Any, result: Any) -> Any:
    """The schedule of `result`, after the family's validator passed on it."""
    from resilsched.plugin import Case

    if result.objective is None or not result.schedule:
        status = getattr(result.status, "value", result.status)
        raise NothingToDraw(f"{label_of(result)} found no schedule (status {status})")
    if fam.validate is None:
        raise NothingToDraw(f"family {fam.name!r} has no validator: nothing unchecked is drawn")
    inner = _module(fam.name).unwrap(result.schedule, instance)
    case = Case("plot", instance, scenario)
    if isinstance(result, HeuristicResult):
        fam.validate(case, result)
    else:
        fam.validate(case, HeuristicResult(result.objective, result.method, None, inner))
    return inner


def label_of(result: Any) -> str:
    """``H/PRIORITY`` of a heuristic result, the method of a solution; for the portfolio's
    (``resilsched.solve`` without a method), whose schedule it holds."""
    if isinstance(result, HeuristicResult):
        return result.heuristic + (f"/{result.priority}" if result.priority else "")
    portfolio = (getattr(result, "info", None) or {}).get("portfolio")
    if isinstance(portfolio, dict) and portfolio.get("solution"):
        return f"{portfolio['solution']} (portfolio)"
    return str(getattr(result, "method", "result"))


def objective_text(fam: Any, result: Any) -> str:
    """``makespan 12 s`` (and for a solution its status, and its bound unless optimal)."""
    unit = f" {fam.objective_unit}" if fam.objective_unit else ""
    name = fam.objective_name.replace("_", " ")
    text = f"{name} {float(result.objective):.6g}{unit}"
    if not isinstance(result, HeuristicResult):
        status = getattr(result.status, "value", result.status)
        text += f" ({status}" + ("" if status == "optimal" or result.bound is None else
                                 f", bound {float(result.bound):.6g}{unit}") + ")"
    return text


def scenario_text(fam: Any, scenario: Any) -> str:
    """What the scenario is, in a few words (empty for the families without scenarios)."""
    if fam.scenario is None:
        return ""
    if scenario is None:
        return "predicted trace" if fam.name == "desktop" else "no failures"
    failures = getattr(scenario, "failures", None)
    if failures is not None:
        total = int(sum(failures))
        if len(failures) <= 12:
            return f"failures {','.join(str(f) for f in failures)} ({total} in all)"
        return f"{total} failures on {len(failures)} jobs"
    if hasattr(scenario, "deltas"):
        moved = sum(d != 0 for row in scenario.deltas for d in row)
        return f"disturbed trace ({moved} unavailabilities shifted)"
    if hasattr(scenario, "__len__"):
        return f"failure trace of {len(scenario)} failures"
    return "failure trace drawn from the mtbf"


def _bound(fam: Any, instance: Any, scenario: Any) -> tuple[str, Any] | None:
    """The family's first registered bound, for the families that minimise a time."""
    if fam.sense != "min" or fam.objective_unit != "s" or not fam.bounds:
        return None
    name, entry = next(iter(fam.bounds.items()))
    value = entry.compute(instance, scenario)
    return None if value is None else (name, value)


def picture_of(fam: Any, instance: Any, scenario: Any, result: Any,
               schedule: str = "heuristic", until: float | None = None) -> Picture:
    """The validated picture of `result` (``schedule`` names its panel in the table),
    drawn up to `until` where the family clips its picture (desktop traces)."""
    inner = checked_schedule(fam, instance, scenario, result)
    table = SegmentTable(schedule)
    pic = _module(fam.name).picture(instance, inner, scenario, table,
                                    _bound(fam, instance, scenario), until)
    pic.title = f"{label_of(result)}: {objective_text(fam, result)}"
    return pic


def pictures_of(fam: Any, instance: Any, scenario: Any,
                results: list[tuple[str, Any]]) -> list[Picture]:
    """The pictures of (panel, result) pairs on one time axis: a picture that ends before
    the others is laid out again up to the common horizon (a desktop trace is drawn as far
    as the axis goes)."""
    pictures = [picture_of(fam, instance, scenario, res, panel) for panel, res in results]
    horizon = max(p.horizon for p in pictures)
    return [p if p.horizon >= horizon else
            picture_of(fam, instance, scenario, res, panel, until=horizon)
            for p, (panel, res) in zip(pictures, results, strict=True)]


@dataclass(frozen=True)
class Headline:
    """The words of a figure's title: the instance, the scenario (and how it was drawn)."""

    instance: str
    scenario: str = ""

    def text(self) -> str:
        return " | ".join(x for x in (self.instance, self.scenario) if x)


def figure_of(pictures: list[Picture], headline: Headline) -> Any:
    """One figure, the pictures stacked on one time axis (the heuristic above the optimum)."""
    from resilsched.plot.axes import figure
    from resilsched.plot.draw import draw_picture

    heights = [_panel_height(p) for p in pictures]
    fig = figure(12.0, sum(heights) + 0.9)
    axes = fig.subplots(len(pictures), 1, sharex=True, squeeze=False,
                        gridspec_kw={"height_ratios": heights})[:, 0]
    horizon = max(p.horizon for p in pictures)
    for r, (ax, pic) in enumerate(zip(axes, pictures, strict=True)):
        draw_picture(ax, pic, horizon, xlabel=r == len(pictures) - 1)
    fig.suptitle(headline.text(), fontsize=11, x=0.01, ha="left")
    return fig


def _panel_height(pic: Picture) -> float:
    """Inches for one panel: room for its lanes, at least for its legend."""
    named = len(pic.lane_ticks) if pic.lane_ticks is not None else 0
    legend = 0.22 * (len({k for k in pic.segments.column("kind")}) + len(pic.lines)
                     + len(pic.notes) + (pic.curve is not None)) + 0.6
    return min(12.0, max(2.8, 0.24 * min(named, 60) + 1.2, legend))


def save(fig: Any, path: str | Path) -> Path:
    """Write `fig` to `path` in the format its suffix names (`FORMATS`)."""
    path = Path(path)
    fig.savefig(path, format=FORMATS[path.suffix.lower()], dpi=110)
    return path


def plot_result(result: Any, ax: Any = None, *, instance: Any, scenario: Any = None) -> Any:
    """Draw `result` (a `HeuristicResult` or `Solution` computed on `instance`) on `ax`
    (default: a new pyplot figure) and return the axes.

    `scenario` is the one the result was computed on (default: the instance's stored one, as
    ``resilsched simulate`` takes it). The schedule is checked by the family's validator
    first: a schedule it refuses raises `InvalidSchedule` and nothing is drawn.
    """
    from resilsched.plot.axes import new_axes, require_matplotlib
    from resilsched.plot.draw import draw_picture
    from resilsched.registry import get_family

    require_matplotlib()
    fam = get_family(instance.to_dict()["family"])
    if scenario is None and fam.scenario is not None:
        scenario = fam.scenario(instance, None)
    pic = picture_of(fam, instance, scenario, result)
    words = [getattr(instance, "name", "") or fam.name, scenario_text(fam, scenario)]
    pic.title = " | ".join(w for w in words if w) + "\n" + pic.title
    if ax is None:
        ax = new_axes(_panel_height(pic))
    return draw_picture(ax, pic)
