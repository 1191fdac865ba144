"""``resilsched trace FILE.swf``: one line per day of a workload trace, the instances
``--index`` picks."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from resilsched.commands.args import (
    FORMATTER,
    UsageError,
    emit,
    examples,
    json_flag,
    notes,
    trace_arguments,
    trace_options,
)


def add_parser(sub: Any) -> None:
    """Add ``trace`` to the subcommands `sub`."""
    p = sub.add_parser(
        "trace", formatter_class=FORMATTER,
        help="list the days of a workload trace (.swf): the instances --index picks",
        description="Read a Standard Workload Format trace as `solve`/`simulate` do and print "
        "one line per day: the index to give --index, the date, the jobs kept, the widest job "
        "(processors), the total area and the lines dropped that day. How many lines were "
        "dropped and why goes to standard error.",
        epilog=examples("resilsched trace log.swf\n"
                        "resilsched trace log.swf --status 1 --cores-per-node 4 --json"),
    )
    p.add_argument("file", help="the trace file (.swf)")
    trace_arguments(p)
    json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """One line per day of the trace ``args.file``."""
    from resilsched.instances.rigid.swf import day_table
    from resilsched.io import read_instances
    from resilsched.registry import available_families, get_family, reader_for

    path = Path(args.file)
    if not any(reader_for(get_family(n), path) for n in available_families()):
        raise UsageError(f"{args.file}: is not a trace file (.swf)")
    fam, days = read_instances(path, **trace_options(args))
    rows = day_table(days)
    notes(args)
    lines = [f"{'index':>5}  {'day':<12} {'jobs':>6} {'widest (procs)':>14} "
             f"{'area (proc-s)':>16} {'dropped':>7}"]
    lines += [f"{r['index']:>5}  {r['day']:<12} {r['jobs']:>6} {r['max_width']:>14} "
              f"{r['area']:>16,.6g} {r['dropped']:>7}" for r in rows]
    lines.append(f"{len(rows)} day(s), P={days[0].P if days else '-'}: "
                 f"resilsched solve {args.file} --index K")
    emit({"file": str(path), "family": fam.name, "P": days[0].P if days else None,
          "days": rows}, args.json, "\n".join(lines))
    return 0
