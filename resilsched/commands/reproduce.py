"""``resilsched reproduce FAMILY [OPTIONS...]``: hand the options after FAMILY to that
family's paper reproduction (`Family.reproduction`) and pass its exit status on."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
from typing import Any

from resilsched.commands.args import FORMATTER, OneLineParser, examples


class ReproduceParser(OneLineParser):
    """The ``reproduce`` subcommand, whose help lists the registered reproductions when asked
    for (building it imports every family, which plain ``resilsched --help`` should not)."""

    def format_help(self) -> str:
        from resilsched.registry import reproductions

        table = "\n".join(f"  {name:<12} {fam.reproduction.description}"
                          for name, fam in reproductions().items())
        # from the template each time: the parser is built once per process (`resilsched.cli`)
        template = self.__dict__.setdefault("_template", self.description)
        self.description = template.replace("{table}", table)
        return super().format_help()


def add_parser(sub: Any) -> None:
    """Add ``reproduce`` to the subcommands `sub`."""
    p = sub.add_parser(
        "reproduce", formatter_class=FORMATTER,
        help="reproduce a paper's figures and tables (CSV, PNG, summary)",
        description="Run the paper reproduction of a family, printing the computed numbers "
        "beside\nthe paper's:\n{table}\n"
        "The options after FAMILY are that reproduction's own: see\n"
        "`resilsched reproduce FAMILY --help`. Results are stored as they finish in\n"
        "<out>/campaign.sqlite, so rerunning an interrupted command (Ctrl-C, exit status 130)\n"
        "computes only the missing tasks. Exit status: the reproduction's (0, 2, 130).\n"
        "With --json (before or after FAMILY) the printed summary comes back as the \"output\"\n"
        "field of one JSON object {family, exit_status, output}.",
        epilog=examples(
            "resilsched reproduce rigid --help\n"
            "resilsched reproduce rigid       # scaled-down Figs. 4-6, Table 1, Prop. 3\n"
            "resilsched reproduce moldable --sets 30 --scenarios 20 --csv table1.csv\n"
            "resilsched reproduce worksharing e5 --trials 1000"),
    )
    p.__class__ = ReproduceParser  # its help lists the registered reproductions
    p.add_argument("--json", action="store_true",
                   help="print {family, exit_status, output} as one JSON object (default: text)")
    p.add_argument("family", metavar="FAMILY", help="a family with a reproduction (listed above)")
    p.add_argument("options", nargs=argparse.REMAINDER, metavar="OPTIONS...",
                   help="options of the family's reproduction (default: none)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the reproduction of ``args.family`` with ``args.options``; its exit status."""
    from resilsched.registry import reproduction

    fam = reproduction(args.family)
    options = list(args.options)
    as_json = args.json or "--json" in options  # the flag may follow FAMILY too
    options = [o for o in options if o != "--json"]
    captured = io.StringIO()
    with contextlib.redirect_stdout(captured) if as_json else contextlib.nullcontext():
        try:
            code = fam.reproduction.main(options, prog=f"resilsched reproduce {fam.name}")
        except SystemExit as exc:  # its argparse: --help (0) or bad options (2)
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    if as_json:
        print(json.dumps({"family": fam.name, "exit_status": code,
                          "output": captured.getvalue()}))
    return code
