"""``resilsched export FILE --to batsim --out OUT``: one instance in another tool's format
(docs/interop.md).

The command reads FILE and writes only OUT: a directory, a missing folder or the input file
itself as OUT is refused before anything is written. What the conversion leaves out (a stored
failure scenario without ``--attempts``, the lines an SWF trace drops) is said on standard
error once the file is written; bad input is one ``error:`` line with exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from resilsched.commands.args import (
    FORMATTER,
    INDEX,
    examples,
    json_text,
    load,
    notes,
    output_file,
    trace_arguments,
)
from resilsched.errors import InvalidInstance

#: the name of each format's output in the summary line
WHAT = {"batsim": "Batsim {batsim_version} workload"}


def summary_line(summary: dict[str, Any]) -> str:
    """The text summary of an export: ``wrote 4 jobs on 4 resources (Batsim 4 workload, all
    submitted at 0) to OUT``, the failed attempts counted where there are some."""
    what = [WHAT.get(summary["format"], summary["format"]).format(**summary)]
    if summary.get("submit_times") is not None:
        shift = summary.get("submit_shift")
        what.append("all submitted at 0" if not summary["submit_times"] else
                    "submitted at their submit times" + (f" - {shift} s" if shift else ""))
    failed = summary.get("failed_attempts") or 0
    jobs = f"{summary['jobs']} job{'s' * (summary['jobs'] != 1)}"
    if failed:
        jobs += f" ({failed} of them failed attempt{'s' * (failed != 1)})"
    return f"wrote {jobs} on {summary['nb_res']} resources ({', '.join(what)}) to {summary['out']}"


def run(args: argparse.Namespace) -> int:
    """Export instance ``--index`` of ``args.file``; print a summary (``--json``: an object)."""
    from resilsched.export import export

    out = output_file(args.out, "--out", args.file, "is the input file: the export would "
                      "overwrite the instance it reads")
    family, instance = load(args)  # as solve and simulate read it (trace options included)
    result = export(family, instance, args.to, attempts=args.attempts,
                    version=args.batsim_version, release_at_zero=args.release_at_zero)
    text = json.dumps(result.document, indent=1, allow_nan=False) + "\n"
    try:
        out.write_text(text)
    except OSError as exc:
        raise InvalidInstance(f"--out={args.out}", f"cannot be written ({exc.strerror})") \
            from None
    notes(args)
    for line in result.notes:
        print(line, file=sys.stderr)
    summary = {"format": args.to, "out": str(out), **result.summary}
    if args.json:
        print(json_text(summary, indent=1))
    else:
        print(summary_line(summary))
    return 0


def add_parser(sub: Any) -> None:
    """Add ``export`` to the subcommands `sub`."""
    p = sub.add_parser(
        "export", help="export an instance to another tool's format (Batsim workloads)",
        formatter_class=FORMATTER,
        description="Writes a rigid instance as a Batsim JSON workload: one job per rigid job\n"
                    "(res = p_j, a delay profile of t_j seconds, walltime t_j (1 + 1e-6) so that\n"
                    "Batsim never kills it, submitted at 0, or at its SWF submit time for a day\n"
                    "of a trace); with --attempts, each failed attempt of the instance's stored\n"
                    "scenario as a job of its own that fails. The Batsim platform needs at least\n"
                    "P compute hosts (docs/interop.md).",
        epilog=examples(
            "resilsched export inst.json --to batsim --out workload.json\n"
            "resilsched export inst.json --to batsim --attempts --out w.json\n"
            "resilsched export trace.swf --index 2 --to batsim --batsim-version 5 "
            "--out day2.json"))
    p.add_argument("file", help="instance file (JSON with \"family\", or an SWF trace)")
    p.add_argument("--to", required=True, choices=["batsim"],
                   help="target format: batsim (required)")
    p.add_argument("--out", required=True,
                   help="output file, overwritten; its folder must exist (required)")
    p.add_argument("--index", type=INDEX, default=0,
                   help="which instance of a multi-instance file, from 0; an SWF trace holds "
                        "one per day (default 0)")
    p.add_argument("--attempts", action="store_true",
                   help="also export the failed attempts of the instance's stored scenario "
                        "(default: one job per rigid job)")
    p.add_argument("--batsim-version", type=int, choices=[4, 5], default=4,
                   help="Batsim major version: 4 writes delay profiles as \"delay\", 5 as "
                        "\"DelayProfile\" (default 4)")
    p.add_argument("--release-at-zero", action="store_true",
                   help="submit every job at 0 (the papers' batch model) even for a day of an "
                        "SWF trace (default: the trace's submit times, shifted to start at 0)")
    trace_arguments(p)
    p.add_argument("--json", action="store_true",
                   help="print one JSON object on standard output (default: text)")
    p.set_defaults(func=run)
