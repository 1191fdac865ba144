"""``resilsched check [--thresholds FILE]``: the CI form of ``gap`` (its options and report,
`resilsched.commands.gap`); exit status 1 on a violation or a gap above its threshold."""

from __future__ import annotations

import argparse
from typing import Any

from resilsched.commands import gap
from resilsched.commands.args import FORMATTER, emit, examples


def add_parser(sub: Any) -> None:
    """Add ``check`` to the subcommands `sub`."""
    p = sub.add_parser(
        "check", formatter_class=FORMATTER,
        help="CI form of gap: exit 1 on a violation or a gap above a threshold",
        description="Like gap, then exit status 1 when a guarantee is violated or a gap exceeds "
        "its threshold. The thresholds file holds fractions (0.05 = 5%), like the --json "
        "gaps; the text output prints gaps and thresholds in percent. Threshold file: "
        '{"max_gap": 1.0, "rigid": {"R-LIST-0": {"max_gap": 0.5}, "R-LIST-0/LA": '
        '{"mean_gap": 0.1}}}; the most specific entry wins; unknown families, heuristics and '
        "keys are refused. examples/thresholds.json passes on the built-in suite.",
        epilog=examples(
            "resilsched check\n"
            "resilsched check --thresholds examples/thresholds.json\n"
            "resilsched check --thresholds examples/thresholds.json --family rigid --json"),
    )
    gap.add_arguments(p)
    p.add_argument("--thresholds", metavar="FILE",
                   help="JSON file of max_gap/mean_gap thresholds, as fractions (0.05 = 5%%); "
                   "see examples/thresholds.json (default: none, only violations fail)")
    p.set_defaults(func=run)


def _load_thresholds(path: str | None, heuristics: list[str] | None) -> dict[str, Any]:
    """The thresholds file, checked against the registered heuristics and those named by
    ``--heuristic`` (a reference may have thresholds of its own)."""
    if path is None:
        return {}
    from resilsched.gap import check_threshold_file
    from resilsched.io import read_json
    from resilsched.references import is_reference
    from resilsched.registry import all_families, heuristic

    families = all_families()
    refs = [name for name in heuristics or () if is_reference(name)]
    scored = {f.name: [heuristic(f, ref) for ref in refs] for f in families} if refs else None
    return check_threshold_file(read_json(path), families, path, scored)


def run(args: argparse.Namespace) -> int:
    """Run the gap report, then check it against the thresholds (exit status 1 on a
    failure)."""
    from resilsched.gap import check_thresholds, format_report

    thresholds = _load_thresholds(args.thresholds, args.heuristic)
    report = gap.report(args)
    failures = check_thresholds(report, thresholds)
    d = report.to_dict()
    d["passed"] = not failures
    d["failures"] = failures
    unit = ("gaps and thresholds in percent of the reference; the thresholds file and --json "
            "hold fractions, 0.05 = 5%")
    text = (
        format_report(report)
        + "\n"
        + (
            f"check passed ({unit})"
            if not failures
            else f"check FAILED ({unit}):\n" + "\n".join(f"  {f}" for f in failures)
        )
    )
    emit(d, args.json, text)
    return 0 if not failures else 1
