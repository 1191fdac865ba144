"""``resilsched plot``: draw a schedule in its family's picture (docs/plots.md).

``resilsched plot FILE (--heuristic H [--priority R] | --method M | --heuristic H --method M
--compare) [--failures ... | --qbar Q --seed S] [--param ...] --out OUT.png|.svg|.pdf
[--csv OUT.csv]``. The schedule is checked by the family's validator before it is drawn;
``--csv`` writes the segment table the drawing reads (one row per segment). Bad input (an
output in a missing folder, an unknown suffix, ``--compare`` without both sides, matplotlib
missing) is one ``error:`` line on standard error with exit status 2, before anything runs;
nothing is written then. A schedule the validator refuses is one line and exit status 1.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from resilsched.commands.args import (
    FORMATTER,
    examples,
    instance_arguments,
    json_flag,
    json_text,
    load,
    notes,
    output_file,
    seconds,
)
from resilsched.errors import InvalidInstance, InvalidSchedule

EXIT_USAGE = 2
EXIT_INVALID = 1


def _output(value: str, option: str, suffixes: tuple[str, ...], source: str) -> Path:
    """`value` as a file the command may write: a known suffix, an existing folder, not a
    directory, not the input, writable."""
    path = Path(value)
    if path.suffix.lower() not in suffixes:
        raise InvalidInstance(f"{option}={value}", f"has the unknown suffix "
                                                   f"{path.suffix or '(none)'!r} (choose "
                                                   f"{', '.join(suffixes)})")
    try:
        _usable(path, value, option, source)
    except OSError as exc:  # a name too long, a folder one may not look into
        raise InvalidInstance(f"{option}={value}", f"cannot be written "
                                                   f"({exc.strerror or exc})") from None
    return path


def _usable(path: Path, value: str, option: str, source: str) -> None:
    output_file(value, option, source)
    existed = path.exists()  # opened for appending, to find out now, and left as it was
    with open(path, "ab"):
        pass
    if not existed:
        path.unlink()


def _check_options(args: argparse.Namespace) -> tuple[Path, Path | None]:
    """Everything that needs no instance, checked before anything runs."""
    from resilsched.plot.result import FORMATS

    if args.compare and (args.heuristic is None or args.method is None):
        missing = "--heuristic" if args.heuristic is None else "--method"
        raise InvalidInstance("--compare", f"draws the heuristic above the exact model: give "
                                           f"both --heuristic and --method ({missing} is "
                                           "missing)")
    if args.heuristic is None and args.method is None:
        raise InvalidInstance("plot", "needs --heuristic H or --method M (or both with "
                                      "--compare)")
    if args.heuristic is not None and args.method is not None and not args.compare:
        raise InvalidInstance("--heuristic and --method", "draw one schedule each: add "
                                                          "--compare to draw both")
    if args.priority is not None and args.heuristic is None:
        raise InvalidInstance("--priority", "applies to --heuristic")
    out = _output(args.out, "--out", tuple(FORMATS), args.file)
    csv = None if args.csv is None else _output(args.csv, "--csv", (".csv",), args.file)
    if csv is not None and csv.resolve() == out.resolve():
        raise InvalidInstance("--csv", f"={args.csv} is the --out file")
    return out, csv


def _split_params(pairs: list[str] | None, owners: list[Any]) -> list[dict[str, Any]]:
    """The ``--param`` pairs of each owner (heuristic, model): a name goes to every owner
    that has it, and must belong to one of them."""
    from resilsched.params import parse_params

    names = [{p.name for p in o.params} for o in owners]
    mine: list[list[str]] = [[] for _ in owners]
    for pair in pairs or []:
        name = pair.partition("=")[0].strip()
        hits = [r for r, known in enumerate(names) if name in known]
        for r in hits or [0]:  # unknown: refused by the first owner's parser, naming it
            mine[r].append(pair)
    return [parse_params(o.params, mine[r], o.name) for r, o in enumerate(owners)]


class RunFailed(Exception):
    """The heuristic raised, ran out of time or returned an invalid schedule: one line, exit 1."""


def _results(fam: Any, instance: Any, scenario: Any, args: argparse.Namespace,
             started: float) -> list[tuple[str, Any]]:
    """(panel, result) of the heuristic and/or the exact model, in drawing order, through the
    front door of ``simulate`` and ``solve`` (`resilsched.api`): a plug-in's result checked,
    the names stamped, the whole within ``--time-limit``."""
    from resilsched.api import simulate_with, solve_with
    from resilsched.deadline import Deadline, check_time_limit
    from resilsched.progress import Heartbeat
    from resilsched.registry import exact_model, heuristic, priority

    h = heuristic(fam, args.heuristic) if args.heuristic is not None else None
    model = exact_model(fam, args.method) if args.method is not None else None
    owners = [x for x in (h, model) if x is not None]
    params = dict(zip([id(o) for o in owners], _split_params(args.param, owners), strict=True))
    if h is not None:
        priority(h, args.priority)  # a bad rule is refused before anything runs
    if model is not None and model.averages_over_failures:
        raise InvalidInstance("--method", f"{model.name} averages over the failure model: "
                                          "it gives an expected makespan, not a schedule, so "
                                          "there is nothing to draw (draw a heuristic or a "
                                          "model of one scenario)")
    limit = check_time_limit(60.0 if args.time_limit is None else args.time_limit,
                             "--time-limit")
    deadline = Deadline(limit, start=started)
    out = []
    if h is not None:
        with Heartbeat(f"plot: {h.name}", deadline, enabled=not args.quiet):
            run = simulate_with(fam, h, instance, scenario, args.priority, args.seed,
                                params[id(h)], max(deadline.remaining(), 0.01))
        if isinstance(run.error, InvalidInstance):  # the heuristic refused its input
            raise run.error
        if not run.valid:
            raise RunFailed("; ".join(run.problems))
        out.append(("heuristic", run.result))
    if model is not None:
        with Heartbeat(f"plot: {model.name}", deadline, enabled=not args.quiet) as beat:
            out.append(("exact", solve_with(fam, instance, scenario, model, deadline,
                                            params[id(model)], beat.phase, portfolio=False)))
    return out


def run(args: argparse.Namespace) -> int:
    """Draw (and tabulate) the schedule(s); see the module docstring."""
    from resilsched.plot.axes import MatplotlibMissing, require_matplotlib
    from resilsched.plot.picture import NothingToDraw

    started = getattr(args, "started", time.perf_counter())
    try:
        out, csv = _check_options(args)
        require_matplotlib()
        return _draw(args, out, csv, started)
    except MatplotlibMissing as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except InvalidSchedule as exc:
        print(f"error: the schedule fails the family's validator, nothing drawn: {exc}",
              file=sys.stderr)
        return EXIT_INVALID
    except (RunFailed, NothingToDraw) as exc:
        print(f"error: {' '.join(str(exc).split())}", file=sys.stderr)
        return EXIT_INVALID


def _draw(args: argparse.Namespace, out: Path, csv: Path | None, started: float) -> int:
    from resilsched.api import scenario_of
    from resilsched.plot.result import (
        Headline,
        figure_of,
        label_of,
        objective_text,
        pictures_of,
        require_picture,
        save,
        scenario_text,
    )
    from resilsched.plot.segments import SegmentTable

    fam, instance = load(args)  # as solve and simulate read it, --P/--cores-per-node/--status
    require_picture(fam.name)
    scenario = scenario_of(fam, instance, args.failures, args.qbar, args.seed)
    notes(args)
    results = _results(fam, instance, scenario, args, started)
    pictures = pictures_of(fam, instance, scenario, results)
    drawn = scenario_text(fam, scenario)
    if args.qbar is not None and drawn:
        drawn += f", drawn at q-bar {args.qbar:g} with seed {args.seed}"
    name = getattr(instance, "name", "") or Path(args.file).stem
    fig = figure_of(pictures, Headline(f"{fam.name} instance {name}", drawn))
    table = SegmentTable()
    for pic in pictures:
        table.extend(pic.segments)
    for option, path, write in (("--out", out, lambda p: save(fig, p)),
                                ("--csv", csv, table.write_csv)):
        if path is not None:
            try:
                write(path)
            except OSError as exc:  # a full disk, a folder gone since the check
                raise InvalidInstance(f"{option}={path}", f"cannot be written "
                                                          f"({exc.strerror or exc})") from None
    summary = {"family": fam.name, "out": str(out), "csv": None if csv is None else str(csv),
               "segments": len(table), "scenario": drawn,
               "panels": [{"schedule": panel, "algorithm": label_of(res),
                           "objective": objective_text(fam, res),
                           "segments": len(pic.segments)}
                          for (panel, res), pic in zip(results, pictures, strict=True)],
               "wall_time": round(time.perf_counter() - started, 3)}
    if args.json:
        print(json_text(summary))
    else:
        panels = "; ".join(f"{p['algorithm']} {p['objective']}" for p in summary["panels"])
        extra = f" and {len(table)} segments to {csv}" if csv is not None else ""
        print(f"wrote {out}{extra}: {panels}")
    return 0


def add_parser(sub: Any) -> None:
    """Add ``plot`` to the subcommands `sub`."""
    p = sub.add_parser(
        "plot", help="draw a schedule: Gantt chart of the family, heuristic beside optimum",
        formatter_class=FORMATTER,
        description="Draw the schedule of a heuristic (--heuristic) or of an exact model\n"
                    "(--method), or both on one time axis (--compare), in the family's "
                    "picture:\nprocessors x time (rigid, moldable, coschedule), workers x time "
                    "with the risk\n(worksharing), processor counts per application "
                    "(malleable), plan and run\nper machine (desktop). The schedule is checked "
                    "by the family's validator first.\n--csv writes what is drawn, one row per "
                    "segment (docs/plots.md).",
        epilog=examples("""
resilsched plot examples/rigid-small.json --heuristic R-LIST-0 --out rigid.png
resilsched plot examples/rigid-small.json --heuristic R-LIST-0 --method cpsat-scenario \\
    --compare --out compare.png --csv compare.csv
resilsched plot examples/desktop-small.json --method cpsat --out desktop.svg"""))
    instance_arguments(p)  # the file, --index, the scenario, --param, the trace options, -q
    p.add_argument("--heuristic", help="heuristic to draw (see `resilsched list`; default: "
                                       "none, then --method is needed)")
    p.add_argument("--priority", help="its priority rule (default: the heuristic's)")
    p.add_argument("--method", help="exact model to draw (see `resilsched list`; default: "
                                    "none, then --heuristic is needed)")
    p.add_argument("--compare", action="store_true",
                   help="draw --heuristic above --method on one time axis (default: one)")
    p.add_argument("--out", required=True,
                   help="picture file, .png, .svg or .pdf; its folder must exist (required)")
    p.add_argument("--csv", help="also write the segments drawn, one row each, to this .csv "
                                 "file (default: none)")
    p.add_argument("--time-limit", type=seconds, default=None,
                   help="seconds for the whole command, in [0.01, 604800] (default 60)")
    json_flag(p)
    p.set_defaults(func=run)
