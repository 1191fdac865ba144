"""The argument parser of the ``resilsched`` command (docs/architecture.md, "Contracts users
script against").

Every option says its default in its help text, and every numeric option is checked here, at
the boundary, against a documented range (docs/decisions.md T8):

- ``--seed``: an integer in [0, 2^63 - 1];
- ``--count``: an integer in [1, `MAX_COUNT`] (10,000);
- ``--qbar``: a number in [0, 1] (the family's hook checks its own range: q-bar < 1 for the
  failure families);
- ``--index``: an integer >= 0 (and below the file's instance count);
- ``--P``, ``--cores-per-node``: integers in [1, `MAX_PROCESSORS`] (10^7);
- ``--time-limit``: a finite number of seconds in [0.01, one week] (`options.check_time_limit`);
- ``--failures``: one non-negative integer per job, at most 100,000 attempts in all
  (`instances.failures.Scenario.parse`); for malleable instances a JSON failure trace
  ``[[time, processor], ...]`` (`instances.malleable.scenario_of`).

A bad option is a one-line ``error: argument --seed: ...`` on standard error and exit status 2,
like every other bad input (`OneLineParser`).
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from typing import NoReturn

from resilsched import __version__
from resilsched.commands import campaign as campaign_commands
from resilsched.commands import export as export_commands
from resilsched.commands import library as library_commands
from resilsched.commands import plot as plot_commands
from resilsched.instances.fields import MAX_COUNT, MAX_PROCESSORS

MAX_SEED = 2**63 - 1
MAX_INDEX = 10**9


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on standard error, exit status 2."""

    def error(self, message: str) -> NoReturn:
        first = message.splitlines()[0] if message else "bad arguments"
        print(f"error: {first} (see `{self.prog} --help`)", file=sys.stderr)
        raise SystemExit(2)


class ReproductionParser(argparse.ArgumentParser):
    """The parser of a reproduction's own options: a bad option is one line
    ``prog: error: message`` on standard error, exit status 2 (no usage dump)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def integer(low: int, high: int, what: str = "an integer") -> Callable[[str], int]:
    """argparse type: an integer in [low, high]; anything else is a one-line error naming the
    option (also used by the reproductions' own parsers)."""
    def parse(text: str) -> int:
        try:
            value = int(text.strip()) if len(text) <= 40 else None
        except ValueError:
            value = None
        if value is None:
            raise argparse.ArgumentTypeError(f"{text[:40]!r} is not {what}")
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} must be in [{low}, {high}]")
        return value

    parse.__name__ = what
    return parse


_integer = integer


def _qbar(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a number") from None
    if not (math.isfinite(value) and 0 <= value <= 1):  # the family checks its own range
        raise argparse.ArgumentTypeError(f"{value} must be in [0, 1]")
    return value


def _seconds(text: str) -> float:
    """A number; its range is checked by the command (`options.check_time_limit`)."""
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a number of seconds") from None


def _statuses(text: str) -> list[int]:
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text[:40]!r} must list SWF status codes, e.g. 1 or 0,1") from None
    if not values or any(not -1 <= v <= 99 for v in values):
        raise argparse.ArgumentTypeError(f"{text[:40]!r} must list status codes in [-1, 99]")
    return values


SEED = _integer(0, MAX_SEED)
COUNT = _integer(1, MAX_COUNT)
INDEX = _integer(0, MAX_INDEX)
POSITIVE = _integer(1, MAX_PROCESSORS, "a positive integer")


def _examples(text: str) -> str:
    return "examples:\n" + "\n".join(f"  {line}" for line in text.strip().splitlines())


def _json(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true",
                   help="print one JSON object on standard output (default: text)")


def _trace_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--P", type=POSITIVE, metavar="N",
                   help="trace files: processor count; jobs wider than N are dropped, with a "
                   "warning (default: the header's MaxProcs, or MaxNodes with --cores-per-node)")
    p.add_argument("--cores-per-node", type=POSITIVE, metavar="C",
                   help="trace files: divide processor counts by C to count nodes; a value that "
                   "does not match the header's MaxProcs/MaxNodes is warned about (default 1)")
    p.add_argument("--status", type=_statuses, metavar="CODES",
                   help="trace files: keep only jobs whose SWF status (field 11) is listed, "
                   "e.g. 1 (completed) or 0,1 (default: every status, spec 002 A14)")


def _instance_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help='instance file: JSON (with "family"), or a trace such as .swf')
    p.add_argument("--index", type=INDEX, default=0,
                   help="which instance of a multi-instance file, from 0 (an SWF trace holds "
                   "one per day: `resilsched trace FILE.swf` lists them; default 0)")
    p.add_argument("--failures", metavar="F1,F2,...",
                   help="failure scenario: failures per job, e.g. 0,2,1; at most 100000 "
                   'attempts in all (default: the instance\'s "failures", else none). '
                   "malleable: a failure trace as JSON, '[[time, processor], ...]' with "
                   "0-based processor ids, at most 100000 entries (default: the instance's, "
                   "else drawn from its mtbf with --seed)")
    p.add_argument("--qbar", type=_qbar,
                   help="draw the scenario at average failure probability q-bar in [0, 1) "
                   "(desktop: the disturbance level alpha in [0, 1]; default: no draw)")
    p.add_argument("--seed", type=SEED, default=0,
                   help=f"seed for --qbar draws and random priorities, in [0, {MAX_SEED}] "
                   "(default 0)")
    _trace_options(p)
    p.add_argument("--param", action="append", metavar="NAME=VALUE",
                   help="a parameter of the heuristic or model, repeatable (names, types and "
                   "defaults: resilsched list -v; default: none)")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="no progress lines on standard error (default: progress after 3 s)")


def _gap_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--family", help="only this family (default: all)")
    p.add_argument("--heuristic", action="append", metavar="NAME|MODULE:FUNCTION",
                   help="score only this heuristic, repeatable: a registered name or your own "
                   "function (MODULE:FUNCTION, importable from the current directory; give "
                   "--family or --library for it) (default: every registered heuristic)")
    p.add_argument("--time-limit", type=_seconds, default=None,
                   help="seconds per exact solve and per heuristic run of a case, in [0.01, "
                   "604800] (default 10)")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="no progress on standard error (default: a bar on a terminal, else a "
                   "line every 10 s and at the end)")
    library_commands.add_gap_args(p)
    _json(p)


def build_parser(commands: dict[str, Callable], reproduce_parser: type) -> argparse.ArgumentParser:
    """The parser; `commands` maps each subcommand to its function."""
    fmt = argparse.RawDescriptionHelpFormatter
    parser = OneLineParser(
        prog="resilsched", formatter_class=fmt,
        description="Resilient scheduling: exact formulations beside heuristics, "
        "and the gaps between them.",
        epilog=_examples("""
resilsched gap                       # the main job: gap report on the built-in smoke suite
resilsched list --family rigid       # what is registered
resilsched solve inst.json --json    # exact optimum of an instance
resilsched simulate inst.json --heuristic R-LIST-0 --priority LA --failures 0,2,1
resilsched trace log.swf             # the days of a Parallel Workloads Archive trace
resilsched reproduce rigid --help    # paper figures and tables
"""),
    )
    parser.add_argument("--version", action="version", version=f"resilsched {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True,
                                parser_class=OneLineParser)

    p = sub.add_parser("list", formatter_class=fmt,
                       help="list the registered families, heuristics, models, bounds, presets",
                       epilog=_examples("resilsched list\nresilsched list --family rigid --json"))
    p.add_argument("--family", help="only this family (default: every family)")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="also list the solver options (--param) of the exact models "
                   "(default: off)")
    _json(p)
    p.set_defaults(func=commands["list"])

    p = sub.add_parser(
        "generate", formatter_class=fmt,
        help="generate an instance library with a manifest of seeds and hashes",
        description="Write the instances of a preset as JSON files plus manifest.json "
        "(preset, seed, versions, sha256 of every file). The same seed always gives "
        "byte-identical files.",
        epilog=_examples(
            "resilsched generate --family rigid --preset paper-default --seed 1 --out lib/\n"
            "resilsched generate --family rigid --preset smoke --seed 0 --count 3 --out smoke/"),
    )
    p.add_argument("--family", required=True, help="family name (see `resilsched list`; "
                   "required)")
    p.add_argument("--preset", required=True, help="generator name (see `resilsched list`; "
                   "required)")
    p.add_argument("--seed", type=SEED, default=0,
                   help=f"generator seed, in [0, {MAX_SEED}] (default 0)")
    p.add_argument("--count", type=COUNT, default=None,
                   help=f"number of instances, in [1, {MAX_COUNT}] (default: the preset's)")
    p.add_argument("--out", required=True,
                   help="output directory, created if missing; existing files of the same "
                   "names are overwritten (required)")
    library_commands.add_generate_args(p)
    _json(p)
    p.set_defaults(func=commands["generate"])

    p = sub.add_parser(
        "solve", formatter_class=fmt, help="solve an instance with an exact model",
        description="Solve an instance exactly (within --time-limit). The status is honest: "
        "'optimal' only when proven, otherwise 'feasible' with the proven bound.",
        epilog=_examples(
            "resilsched solve inst.json\n"
            "resilsched solve inst.json --method cpsat-scenario --failures 0,2,1 --json\n"
            "resilsched solve trace.swf --index 3 --time-limit 30"),
    )
    _instance_args(p)
    p.add_argument("--method", help="exact model name (default: the family's reference model)")
    p.add_argument("--time-limit", type=_seconds, default=None,
                   help="seconds for the whole command, loading included, in [0.01, 604800] "
                   "(default 60)")
    _json(p)
    p.set_defaults(func=commands["solve"])

    p = sub.add_parser(
        "simulate", formatter_class=fmt, help="run one heuristic on an instance",
        epilog=_examples(
            "resilsched simulate inst.json --heuristic R-LIST-0 --priority LA\n"
            "resilsched simulate inst.json --heuristic R-SHELF-B --qbar 0.3 --seed 7 --json\n"
            "resilsched simulate inst.json --heuristic mymodule:my_list  # your own"),
    )
    _instance_args(p)
    p.add_argument("--heuristic", required=True, metavar="NAME|MODULE:FUNCTION",
                   help="heuristic name (see `resilsched list`) or your own function "
                   "run(instance, scenario=None, priority=None, *, seed=0, **params), as "
                   "MODULE:FUNCTION importable from the current directory (required)")
    p.add_argument("--priority", metavar="RULE|MODULE:FUNCTION",
                   help="priority rule, for heuristics that take one; rigid and moldable also "
                   "take a key function key(instance, j) as MODULE:FUNCTION, smallest first "
                   "(default: the heuristic's)")
    p.add_argument("--time-limit", type=_seconds, default=None,
                   help="seconds the heuristic may run, in [0.01, 604800] (default: no limit)")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="also print the schedule (default: off)")
    _json(p)
    p.set_defaults(func=commands["simulate"])

    p = sub.add_parser(
        "gap", formatter_class=fmt,
        help="gap report: every heuristic against the exact optimum (the main job)",
        description="Runs every registered heuristic (and priority rule), or those --heuristic "
        "names (your own MODULE:FUNCTION included), on the built-in smoke "
        "suite, solves each case exactly, and reports per heuristic the mean and worst gap to "
        "the optimum (or to the proven bound when optimality was not proven) and every "
        "violation of a proven guarantee. The table prints gaps in percent of the reference; "
        "--json gives them as fractions (0.05 = 5%%), an infinite gap (a reference of 0) as "
        "null.",
        epilog=_examples("resilsched gap\nresilsched gap --family rigid --json\n"
                         "resilsched gap --library rigid-small --heuristic mymodule:my_list"),
    )
    _gap_args(p)
    p.set_defaults(func=commands["gap"])

    p = sub.add_parser(
        "check", formatter_class=fmt,
        help="CI form of gap: exit 1 on a violation or a gap above a threshold",
        description="Like gap, then exit status 1 when a guarantee is violated or a gap exceeds "
        "its threshold. The thresholds file holds fractions (0.05 = 5%%), like the --json "
        "gaps; the text output prints gaps and thresholds in percent. Threshold file: "
        '{"max_gap": 1.0, "rigid": {"R-LIST-0": {"max_gap": 0.5}, "R-LIST-0/LA": '
        '{"mean_gap": 0.1}}}; the most specific entry wins; unknown families, heuristics and '
        "keys are refused. examples/thresholds.json passes on the built-in suite.",
        epilog=_examples(
            "resilsched check\n"
            "resilsched check --thresholds examples/thresholds.json\n"
            "resilsched check --thresholds examples/thresholds.json --family rigid --json"),
    )
    _gap_args(p)
    p.add_argument("--thresholds", metavar="FILE",
                   help="JSON file of max_gap/mean_gap thresholds, as fractions (0.05 = 5%%); "
                   "see examples/thresholds.json (default: none, only violations fail)")
    p.set_defaults(func=commands["check"])

    p = sub.add_parser(
        "trace", formatter_class=fmt,
        help="list the days of a workload trace (.swf): the instances --index picks",
        description="Read a Standard Workload Format trace as `solve`/`simulate` do and print "
        "one line per day: the index to give --index, the date, the jobs kept, the widest job "
        "(processors), the total area and the lines dropped that day. How many lines were "
        "dropped and why goes to standard error.",
        epilog=_examples("resilsched trace log.swf\n"
                         "resilsched trace log.swf --status 1 --cores-per-node 4 --json"),
    )
    p.add_argument("file", help="the trace file (.swf)")
    _trace_options(p)
    _json(p)
    p.set_defaults(func=commands["trace"])

    p = sub.add_parser(
        "reproduce", formatter_class=fmt,
        help="reproduce a paper's figures and tables (CSV, PNG, summary)",
        description="Run the paper reproduction of a family, printing the computed numbers "
        "beside\nthe paper's:\n{table}\n"
        "The options after FAMILY are that reproduction's own: see\n"
        "`resilsched reproduce FAMILY --help`. Results are stored as they finish in\n"
        "<out>/campaign.sqlite, so rerunning an interrupted command (Ctrl-C, exit status 130)\n"
        "computes only the missing tasks. Exit status: the reproduction's (0, 2, 130).\n"
        "With --json (before or after FAMILY) the printed summary comes back as the \"output\"\n"
        "field of one JSON object {family, exit_status, output}.",
        epilog=_examples(
            "resilsched reproduce rigid --help\n"
            "resilsched reproduce rigid                    # scaled-down Figs. 4-6, Table 1\n"
            "resilsched reproduce moldable --sets 30 --scenarios 20 --csv table1.csv\n"
            "resilsched reproduce worksharing e5 --trials 1000"),
    )
    p.__class__ = reproduce_parser  # its help lists the registered reproductions
    p.add_argument("--json", action="store_true",
                   help="print {family, exit_status, output} as one JSON object (default: text)")
    p.add_argument("family", metavar="FAMILY", help="a family with a reproduction (listed above)")
    p.add_argument("options", nargs=argparse.REMAINDER, metavar="OPTIONS...",
                   help="options of the family's reproduction (default: none)")
    p.set_defaults(func=commands["reproduce"])
    campaign_commands.add_parsers(sub)
    library_commands.add_parsers(sub)  # library list/verify/path
    export_commands.add_parsers(sub)
    plot_commands.add_parsers(sub)
    return parser
