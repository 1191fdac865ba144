"""``resilsched solve FILE [--method M] [--failures ... | --qbar Q] [--time-limit S] [-v]``:
solve an instance exactly. The whole command, loading included, runs within ``--time-limit``
(default 60 s). Without ``--method``, the portfolio (`resilsched.portfolio`); with it, that
model alone (decision T19)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from resilsched.commands.args import (
    FORMATTER,
    UsageError,
    emit,
    examples,
    instance_arguments,
    json_flag,
    load,
    notes,
    scenario,
    seconds,
    time_limit,
)
from resilsched.solution import SHOWN_LINES


def add_parser(sub: Any) -> None:
    """Add ``solve`` to the subcommands `sub`."""
    p = sub.add_parser(
        "solve", formatter_class=FORMATTER, help="solve an instance with an exact model",
        description="Solve an instance exactly (within --time-limit). The status is honest: "
        "'optimal' only when proven, otherwise 'feasible' with the proven bound.",
        epilog=examples(
            "resilsched solve inst.json\n"
            "resilsched solve inst.json --method cpsat-scenario --failures 0,2,1 --json\n"
            "resilsched solve trace.swf --index 3 --time-limit 30"),
    )
    instance_arguments(p)
    p.add_argument("--method", help="exact model name (default: the family's reference model)")
    p.add_argument("--time-limit", type=seconds, default=None,
                   help="seconds for the whole command, loading included, in [0.01, 604800] "
                   "(default 60)")
    p.add_argument("-v", "--verbose", action="store_true",
                   help=f"print the whole schedule (default: its first {SHOWN_LINES} lines; "
                   "--json always gives all of it)")
    json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Solve instance ``--index`` of ``args.file``; print the solution."""
    from resilsched.api import solve_with
    from resilsched.deadline import Deadline
    from resilsched.params import parse_params
    from resilsched.portfolio import pick_model
    from resilsched.progress import Heartbeat

    deadline = Deadline(time_limit(args, 60.0), start=args.started)
    fam, instance = load(args)
    model = pick_model(fam, instance, args.method)
    options = parse_params(model.params, args.param, model.name)
    if model.averages_over_failures:  # it takes the failure model, not a draw
        if args.failures is not None:
            raise UsageError(f"--failures: {model.name} averages over the failure model "
                             "(--qbar Q or the instance's own), it takes no scenario")
        if args.qbar is not None:
            if "qbar" in options:
                raise UsageError("--qbar and --param qbar= are the same option: give one")
            options["qbar"] = args.qbar
        drawn = None
    else:
        drawn = scenario(fam, instance, args)
    notes(args)
    unused = unused_scenario(model, drawn, args)
    if unused:
        print(unused, file=sys.stderr)
    label = model.name if args.method else f"portfolio ({model.name})"
    with Heartbeat(f"solve {label}", deadline, enabled=not args.quiet) as beat:
        sol = solve_with(fam, instance, drawn, model, deadline, options, beat.phase,
                         portfolio=args.method is None)
    d = {**sol.to_dict(), "wall_time": round(deadline.elapsed(), 6),
         "solver_time": round(sol.wall_time, 6), "family": fam.name,
         "unit": fam.objective_unit}
    if drawn is not None and hasattr(drawn, "to_list"):
        d["failures"] = drawn.to_list()
    emit(d, args.json, f"{fam.name} / " + sol.describe(objective_name(fam, model),
                                                        fam.objective_unit, args.verbose))
    return 0


def unused_scenario(model: Any, drawn: Any, args: argparse.Namespace) -> str | None:
    """The note that `model` does not use the scenario `drawn` (``--failures``, a ``--qbar``
    draw or the instance's own), when the model ignores scenarios and this one has failures;
    else None. The JSON's ``failures`` stay the scenario given."""
    counts = drawn.to_list() if model.ignores_scenario and hasattr(drawn, "to_list") else []
    if not any(counts):
        return None
    source = ("--failures" if args.failures is not None else
              f"the --qbar {args.qbar:g} draw" if args.qbar is not None else
              "the instance's stored failures")
    failed, jobs = sum(counts), sum(1 for c in counts if c)
    return (f"note: {model.name} does not use the failure scenario ({source}: {failed} failed "
            f"attempt{'s' * (failed != 1)} of {jobs} job{'s' * (jobs != 1)}); it gives the "
            "failure-free optimum")


def objective_name(fam: Any, model: Any) -> str:
    """What `model`'s objective is called in the text: the family's name for it, as an
    expectation (``expected makespan``) when the model averages over the failure model (the
    rigid family's ``online-optimal``) and the family's name does not say so already."""
    name = fam.objective_name
    if model.averages_over_failures and not name.startswith("expected"):
        return f"expected {name}"
    return name
