"""``resilsched report STORE --out DIR``: markdown report, CSV tables and PNG plots of a
campaign store (docs/campaigns.md, "Reports"); errors as for ``campaign``
(`resilsched.commands.campaign.guarded`)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from resilsched.commands.args import FORMATTER, examples, json_flag
from resilsched.commands.campaign import files_text, guarded


def add_parser(sub: Any) -> None:
    """Add ``report`` to the subcommands `sub`."""
    p = sub.add_parser(
        "report", help="markdown report, CSV tables and PNG plots of a campaign store",
        formatter_class=FORMATTER,
        description="Per family: the normalized objective (objective / the family's first "
        "registered bound) and, when the campaign ran an exact model, the gap to its optimum; "
        "tables of mean, quartiles, 95th percentile and max per algorithm and swept parameter; "
        "box plots and sweep plots with 95 % confidence bands (docs/campaigns.md).",
        epilog=examples("resilsched report results.sqlite --out report/\n"
                        "resilsched report results.sqlite --out report/ --no-plots --json"))
    p.add_argument("store", metavar="STORE", help="SQLite result store of `campaign run`")
    p.add_argument("--out", required=True, help="output folder, created if missing (required)")
    p.add_argument("--campaign", default=None,
                   help="campaign name (default: the store's only campaign)")
    p.add_argument("--no-plots", action="store_true",
                   help="write no PNG (default: plots, which need resilsched[plot])")
    json_flag(p)
    p.set_defaults(func=guarded(report, files_text("reported")))


def report(args: argparse.Namespace) -> dict[str, Any]:
    """Write the report of ``args.store`` into ``args.out``; what was written."""
    from resilsched.campaign.report import write_report

    result = write_report(args.store, args.out, args.campaign, plots=not args.no_plots)
    left = result["left_out"]
    if left:
        print(f"warning: {len(left)} stored row(s) left out of the report, not valid JSON, "
              f"holding NaN/infinities or not rows of a spec campaign ({'; '.join(left[:3])}"
              f"{'; ...' if len(left) > 3 else ''}); report.md names them", file=sys.stderr)
    return result
