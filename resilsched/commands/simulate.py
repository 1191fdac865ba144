"""``resilsched simulate FILE --heuristic NAME|MODULE:FUNCTION [--priority RULE]``: run one
heuristic on an instance. A plug-in's result is checked first: its exception or an infeasible
schedule is one line ``error: ...`` and exit status 1, an objective its schedule disagrees
with is replaced by the recomputed one after a ``warning:`` line."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from resilsched.commands.args import (
    FORMATTER,
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


def add_parser(sub: Any) -> None:
    """Add ``simulate`` to the subcommands `sub`."""
    p = sub.add_parser(
        "simulate", formatter_class=FORMATTER, help="run one heuristic on an instance",
        epilog=examples(
            "resilsched simulate inst.json --heuristic R-LIST-0 --priority LA\n"
            "resilsched simulate inst.json --heuristic R-SHELF-B --qbar 0.3 --seed 7 --json\n"
            "resilsched simulate inst.json --heuristic mymodule:my_list  # your own"),
    )
    instance_arguments(p)
    p.add_argument("--heuristic", required=True, metavar="NAME|MODULE:FUNCTION",
                   help="heuristic name (see `resilsched list`) or your own function "
                   "run(instance, scenario=None, priority=None, *, seed=0, **params), as "
                   "MODULE:FUNCTION importable from the current directory (required)")
    p.add_argument("--priority", metavar="RULE|MODULE:FUNCTION",
                   help="priority rule, for heuristics that take one; rigid and moldable also "
                   "take a key function key(instance, j) as MODULE:FUNCTION, smallest first "
                   "(default: the heuristic's)")
    p.add_argument("--time-limit", type=seconds, default=None,
                   help="seconds the heuristic may run, in [0.01, 604800] (default: no limit)")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="also print the schedule (default: off)")
    json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the heuristic on instance ``--index`` of ``args.file``; print its result."""
    from resilsched.api import simulate_with
    from resilsched.deadline import Deadline
    from resilsched.errors import InvalidInstance
    from resilsched.params import parse_params
    from resilsched.progress import Heartbeat
    from resilsched.registry import heuristic, priority

    limit = None if args.time_limit is None else time_limit(args, 0.0)
    fam, instance = load(args)
    h = heuristic(fam, args.heuristic)
    priority(h, args.priority)  # a bad rule or reference is refused before anything runs
    params = parse_params(h.params, args.param, h.name)
    drawn = scenario(fam, instance, args)
    notes(args)
    with Heartbeat(f"simulate {h.name}", Deadline(limit, start=args.started),
                   enabled=not args.quiet) as beat:
        outcome = simulate_with(fam, h, instance, drawn, args.priority, args.seed, params,
                                limit)
        beat.succeeded = outcome.valid  # a time-out or an invalid schedule is not "done"
    if isinstance(outcome.error, InvalidInstance):  # the plug-in refused its input: bad input
        raise outcome.error
    if not outcome.valid:
        print(f"error: {' '.join('; '.join(outcome.problems).split())}", file=sys.stderr)
        return 1
    for problem in outcome.problems:
        print(f"warning: {problem}", file=sys.stderr)
    res = outcome.result
    d = {**res.to_dict(), "family": fam.name, "unit": fam.objective_unit,
         "wall_time": round(time.perf_counter() - args.started, 6)}
    if params:
        d["params"] = params
    if drawn is not None and hasattr(drawn, "to_list"):
        d["failures"] = drawn.to_list()
    text = res.describe(fam.objective_name, fam.objective_unit, verbose=args.verbose)
    emit(d, args.json, f"{fam.name} / {text}")
    return 0
