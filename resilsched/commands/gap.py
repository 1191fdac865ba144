"""``resilsched gap [--family F] [--heuristic NAME|MODULE:FUNCTION ...] [--library NAME|DIR]``:
every heuristic against the exact optimum (docs/architecture.md, "The main job: gap reports").

The report is `resilsched.gap.GapReport`: on the built-in smoke suites it is computed by
`resilsched.gap.run_gap` (the exact models solved now, in this process); with ``--library``
by `resilsched.api.library_gap` (the stored certificates, on the campaign engine: ``--store``
makes it resumable, ``--jobs``/``--dask`` parallel). `add_arguments` and `report` are shared
with ``check``.
"""

from __future__ import annotations

import argparse
from typing import Any

from resilsched.commands.args import (
    FORMATTER,
    UsageError,
    emit,
    examples,
    json_flag,
    positive,
    seconds,
    time_limit,
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``gap`` and ``check``."""
    p.add_argument("--family", help="only this family (default: all)")
    p.add_argument("--heuristic", action="append", metavar="NAME|MODULE:FUNCTION",
                   help="score only this heuristic, repeatable: a registered name or your own "
                   "function (MODULE:FUNCTION, importable from the current directory; give "
                   "--family or --library for it) (default: every registered heuristic)")
    p.add_argument("--time-limit", type=seconds, default=None,
                   help="seconds per exact solve and per heuristic run of a case, in [0.01, "
                   "604800] (default 10)")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="no progress on standard error (default: a bar on a terminal, else a "
                   "line every 10 s and at the end)")
    p.add_argument("--library", action="append", metavar="NAME|DIR",
                   help="score every heuristic against the stored certificates of a library: "
                        "a shipped name (resilsched library list), 'all', a library folder, "
                        "or a folder of library folders; repeatable (default: the built-in "
                        "smoke suite, solved now)")
    p.add_argument("--resolve", action="store_true",
                   help="with --library: solve every instance again (the manifest's model "
                        "and options, --time-limit or the manifest's limit) instead of trusting "
                        "the stored certificates (default: no solving; the stored ones must "
                        "name the manifest's model and match their files)")
    p.add_argument("--store", default=None, metavar="PATH",
                   help="with --library: campaign result store (SQLite) that makes the run "
                        "resumable (default: in memory, nothing kept)")
    p.add_argument("--jobs", type=int, default=None,
                   help="with --library: worker processes (default: all cores; 1 runs inline)")
    p.add_argument("--dask", default=None, metavar="ADDRESS|local",
                   help="with --library: run the tasks on Dask distributed (default: no Dask)")
    json_flag(p)


def add_parser(sub: Any) -> None:
    """Add ``gap`` to the subcommands `sub`."""
    p = sub.add_parser(
        "gap", formatter_class=FORMATTER,
        help="gap report: every heuristic against the exact optimum (the main job)",
        description="Runs every registered heuristic (and priority rule), or those --heuristic "
        "names (your own MODULE:FUNCTION included), on the built-in smoke "
        "suite, solves each case exactly, and reports per heuristic the mean and worst gap to "
        "the optimum (or to the proven bound when optimality was not proven) and every "
        "violation of a proven guarantee. The table prints gaps in percent of the reference; "
        "--json gives them as fractions (0.05 = 5%), an infinite gap (a reference of 0) as "
        "null.",
        epilog=examples("resilsched gap\nresilsched gap --family rigid --json\n"
                        "resilsched gap --library rigid-small --heuristic mymodule:my_list"),
    )
    add_arguments(p)
    p.set_defaults(func=run)


def report(args: argparse.Namespace) -> Any:
    """The `GapReport` of the options (`resilsched.api.gap`): on the libraries of
    ``--library`` (filtered by ``--family``), else on the built-in smoke suites."""
    from resilsched.api import GAP_FLAGS, gap_named
    from resilsched.campaign import CampaignError

    if args.library:  # against stored certificates, on the campaign engine
        positive(args.jobs, "--jobs")
    else:  # they would be ignored: the smoke suite is solved now, in this process
        for flag in ("--store", "--dask", "--jobs", "--resolve"):
            if getattr(args, flag[2:]) not in (None, False):
                raise UsageError(f"{flag}: applies with --library only (the smoke suite is "
                                 "solved now, in this process)")
    time_limit(args, 10.0)  # checked here, to name the option
    try:
        return gap_named(GAP_FLAGS, args.heuristic, args.library or None, None, args.family,
                         args.time_limit, args.jobs, args.store, dask=args.dask,
                         resolve=args.resolve, progress=not args.quiet)
    except CampaignError as exc:  # a store of another configuration, Dask missing
        raise UsageError(str(exc)) from None


def run(args: argparse.Namespace) -> int:
    """Print the gap report (``--json``: `GapReport.to_dict`)."""
    from resilsched.gap import format_report

    found = report(args)
    emit(found.to_dict(), args.json, format_report(found))
    return 0
