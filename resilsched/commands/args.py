"""What the subcommands of ``resilsched`` share: the parser classes, the argparse types of the
options and their ranges, the option groups several commands take, reading the instance
argument, and printing the result (docs/architecture.md, "Contracts users script against").

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
like every other bad input (`OneLineParser`); a bad value found by a command raises
`UsageError` (or `InvalidInstance`), which `resilsched.cli.main` prints as one line.

Percent signs follow argparse: an argument's ``help`` is %-formatted (``5%%`` prints ``5%``),
a ``description`` or ``epilog`` is printed as written (``5%``; decision T23). Every ``--help``
is checked for a literal ``%%`` by tests/e2e/test_help_texts.py.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from resilsched.deadline import check_time_limit
from resilsched.instances.fields import MAX_COUNT, MAX_PROCESSORS
from resilsched.params import MAX_SEED
from resilsched.solution import output_jsonable

MAX_INDEX = 10**9
#: the help layout of every subcommand (descriptions and examples printed as written)
FORMATTER = argparse.RawDescriptionHelpFormatter


class UsageError(Exception):
    """Bad command-line input found by a command: one line, exit status 2."""


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on standard error, exit status 2."""

    def error(self, message: str) -> NoReturn:
        first = message.splitlines()[0] if message else "bad arguments"
        print(f"error: {first} (see `{self.prog} --help`)", file=sys.stderr)
        raise SystemExit(2)

    def parse_args(self, args: Any = None, namespace: Any = None) -> argparse.Namespace:
        """`argparse.ArgumentParser.parse_args`, but arguments no parser knows are refused by
        the deepest subcommand chosen, so the line points at its help (``resilsched plot
        --help``), not the top level's."""
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            self._chosen(parsed).error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed

    def _chosen(self, parsed: argparse.Namespace) -> argparse.ArgumentParser:
        """The deepest subcommand parser `parsed` went through (this parser without one)."""
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                sub = action.choices.get(getattr(parsed, action.dest, None) or "")
                if sub is not None:
                    return sub._chosen(parsed) if isinstance(sub, OneLineParser) else sub
        return self


class ReproductionParser(argparse.ArgumentParser):
    """The parser of a reproduction's own options: a bad option is one line
    ``prog: error: message`` on standard error, exit status 2 (no usage dump)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


class VersionAction(argparse.Action):
    """``--version``: print `resilsched.versions.show_versions` (resilsched, Python, the solver
    stack, the compiled modules) and exit with status 0."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS,
                 default: str = argparse.SUPPRESS, help: str | None = None) -> None:
        super().__init__(option_strings, dest, nargs=0, default=default,
                         help=help or "print the versions of resilsched, Python, the solver "
                         "stack and the compiled modules, then exit")

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        from resilsched.versions import show_versions

        show_versions()
        parser.exit()


# --- argparse types ---------------------------------------------------------------------------
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


def real(text: str, what: str = "a number") -> float:
    """``float(text)``, or the one-line argparse error ``'TEXT' is not WHAT`` (TEXT cut at 40
    characters); the argparse types of numbers read through it."""
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not {what}") from None


def qbar(text: str) -> float:
    """argparse type: a number in [0, 1] (the family checks its own range)."""
    value = real(text)
    if not (math.isfinite(value) and 0 <= value <= 1):
        raise argparse.ArgumentTypeError(f"{value} must be in [0, 1]")
    return value


def seconds(text: str) -> float:
    """argparse type: a number; its range is checked by the command (`time_limit`)."""
    return real(text, "a number of seconds")


def statuses(text: str) -> list[int]:
    """argparse type: a comma-separated list of SWF status codes in [-1, 99]
    (`resilsched.instances.rigid.swf.STATUS_CODES`)."""
    from resilsched.instances.rigid.swf import STATUS_CODES

    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text[:40]!r} must list SWF status codes, e.g. 1 or 0,1") from None
    if not values or any(v not in STATUS_CODES for v in values):
        raise argparse.ArgumentTypeError(f"{text[:40]!r} must list status codes in "
                                         f"[{STATUS_CODES[0]}, {STATUS_CODES[-1]}]")
    return values


SEED = integer(0, MAX_SEED)
COUNT = integer(1, MAX_COUNT)
INDEX = integer(0, MAX_INDEX)
POSITIVE = integer(1, MAX_PROCESSORS, "a positive integer")


# --- option groups ----------------------------------------------------------------------------
def examples(text: str) -> str:
    """The ``examples:`` epilog of a command, one indented line per example."""
    return "examples:\n" + "\n".join(f"  {line}" for line in text.strip().splitlines())


def json_flag(p: argparse.ArgumentParser) -> None:
    """``--json``."""
    p.add_argument("--json", action="store_true",
                   help="print one JSON object on standard output (default: text)")


def trace_arguments(p: argparse.ArgumentParser) -> None:
    """``--P``, ``--cores-per-node``, ``--status``: how a trace file is read."""
    p.add_argument("--P", type=POSITIVE, metavar="N",
                   help="trace files: processor count; jobs wider than N are dropped, with a "
                   "warning (default: the header's MaxProcs, or MaxNodes with --cores-per-node)")
    p.add_argument("--cores-per-node", type=POSITIVE, metavar="C",
                   help="trace files: divide processor counts by C to count nodes; a value that "
                   "does not match the header's MaxProcs/MaxNodes is warned about (default 1)")
    p.add_argument("--status", type=statuses, metavar="CODES",
                   help="trace files: keep only jobs whose SWF status (field 11) is listed, "
                   "e.g. 1 (completed) or 0,1 (default: every status, spec 002 A14)")


def instance_arguments(p: argparse.ArgumentParser) -> None:
    """The instance file and its scenario, of ``solve``, ``simulate`` and ``plot``."""
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
    p.add_argument("--qbar", type=qbar,
                   help="draw the scenario at average failure probability q-bar in [0, 1) "
                   "(desktop: the disturbance level alpha in [0, 1]; default: no draw)")
    p.add_argument("--seed", type=SEED, default=0,
                   help=f"seed for --qbar draws and random priorities, in [0, {MAX_SEED}] "
                   "(default 0)")
    trace_arguments(p)
    p.add_argument("--param", action="append", metavar="NAME=VALUE",
                   help="a parameter of the heuristic or model, repeatable (names, types and "
                   "defaults: resilsched list -v; default: none)")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="no progress lines on standard error (default: progress after 3 s)")


# --- reading what the options name ------------------------------------------------------------
def time_limit(args: argparse.Namespace, default: float) -> float:
    """``--time-limit`` checked at the boundary (finite, within the accepted range)."""
    value = default if args.time_limit is None else args.time_limit
    return check_time_limit(value, "--time-limit")


def positive(value: int | None, option: str) -> int | None:
    """`value` of `option` when it is None or >= 1; `InvalidInstance` otherwise."""
    from resilsched.errors import InvalidInstance

    if value is not None and value < 1:
        raise InvalidInstance(option, f"{value} must be >= 1")
    return value


def output_file(value: str, option: str, source: str,
                input_rule: str = "is the input file") -> Path:
    """`value` of `option` as a file a command may write: not a directory, in a folder that
    exists, not the input file `source` (refused with `input_rule`); `InvalidInstance` naming
    the option otherwise."""
    from resilsched.errors import InvalidInstance

    path = Path(value)
    if path.is_dir():
        raise InvalidInstance(f"{option}={value}", "is a directory, not a file")
    parent = path.parent
    if not parent.is_dir():
        what = "is not a directory" if parent.exists() else "does not exist"
        raise InvalidInstance(f"{option}={value}", f"its folder {parent} {what}")
    if path.exists() and Path(source).exists() and path.samefile(source):
        raise InvalidInstance(f"{option}={value}", input_rule)
    return path


def trace_options(args: argparse.Namespace) -> dict[str, Any]:
    """The reader options of a trace file; refused for a JSON instance, where they would be
    silently ignored. Sets ``args.notes``, the lines loading will have to say (`notes`)."""
    options = {"P": args.P, "cores_per_node": args.cores_per_node, "statuses": args.status}
    options = {k: v for k, v in options.items() if v is not None}
    if Path(args.file).suffix.lower() == ".json" and options:
        flag = {"P": "--P", "cores_per_node": "--cores-per-node", "statuses": "--status"}
        raise UsageError(f"{flag[next(iter(options))]}: applies to trace files (.swf), not to "
                         f"the JSON instance {args.file}")
    args.notes = []
    if Path(args.file).suffix.lower() != ".json":
        options["warn"] = args.notes.append
    return options


def load(args: argparse.Namespace) -> tuple[Any, Any]:
    """(family, instance ``--index``) of the instance file ``args.file``."""
    from resilsched.io import read_instances

    fam, instances = read_instances(args.file, **trace_options(args))
    if not 0 <= args.index < len(instances):
        raise UsageError(f"--index={args.index} is out of range: {args.file} holds "
                         f"{len(instances)} instance(s)")
    return fam, instances[args.index]


def scenario(fam: Any, instance: Any, args: argparse.Namespace) -> Any:
    """The failure scenario of ``--failures`` / ``--qbar --seed`` (else the instance's)."""
    from resilsched.api import scenario_of

    return scenario_of(fam, instance, args.failures, args.qbar, args.seed)


def notes(args: argparse.Namespace) -> None:
    """Print what loading the input had to say (dropped trace lines, warnings) on standard
    error, once the command has passed every check (a refusal stays one line)."""
    for line in getattr(args, "notes", []):
        if not getattr(args, "quiet", False) or "warning:" in line:
            print(line, file=sys.stderr)
    args.notes = []


# --- output -----------------------------------------------------------------------------------
def finite(obj: Any) -> Any:
    """`obj` with every NaN or infinite float replaced by None (JSON has no such numbers)."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [finite(v) for v in obj]
    return obj


def json_text(obj: Any, indent: int | None = None) -> str:
    """`obj` as the JSON text a command prints for ``--json``: every number a JSON number, an
    exact non-integral Fraction given beside it as ``NAME_exact``
    (`resilsched.solution.output_jsonable`), NaN and infinities as null (`finite`).

    Parameters
    ----------
    obj : the command's result (JSON types, Fractions, typed payloads with ``to_dict``).
    indent : as `json.dumps` (default: one line).

    Returns
    -------
    str
        The JSON text, without a final newline.
    """
    return json.dumps(_ready(obj), indent=indent, allow_nan=False)


def _ready(obj: Any) -> Any:
    """`obj` in JSON types as ``--json`` prints it: `output_jsonable`, then `finite`."""
    return finite(output_jsonable(obj))


def emit(obj: dict[str, Any], as_json: bool, text: str) -> None:
    """Print `obj` as one JSON object (``--json``: every number a JSON number, an exact
    non-integral Fraction beside it as ``NAME_exact``, `resilsched.solution.output_jsonable`;
    NaN and infinities as null; indented for a reader when short, compact for large payloads)
    or else `text`."""
    if as_json:
        obj = _ready(obj)
        compact = json.dumps(obj, allow_nan=False)
        # indented for a reader when short; compact for large payloads (C encoder, 10x faster)
        plain = len(compact) < 200 or len(compact) > 100_000
        print(compact if plain else json.dumps(obj, indent=1, allow_nan=False))
    else:
        print(text)


def emit_indented(obj: dict[str, Any], as_json: bool, text: str) -> None:
    """Print `obj` as one indented JSON object (``--json``) or else `text`: the output of the
    ``library`` commands and ``generate --solve``, indented whatever its length; its numbers
    as `emit` writes them."""
    print(json_text(obj, indent=1) if as_json else text)
