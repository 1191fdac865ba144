"""The ``resilsched`` command (docs/architecture.md, "Contracts users script against").

Each subcommand is a module of `resilsched.commands` (``list``, ``generate``, ``solve``,
``simulate``, ``gap``, ``check``, ``trace``, ``reproduce``, ``campaign``, ``report``,
``library``, ``export``, ``plot``) owning its options and its handler; this module builds the
parser from them (`build_parser`) and runs one command with the common error handling
(`main`). Every command accepts ``--json`` and then prints exactly one JSON object on standard
output (for ``reproduce``, before FAMILY), with JSON numbers only (NaN and infinities become
null). Bad input, of any kind, gives a one-line ``error: <field>=<value> <rule>`` on standard
error, nothing on standard output, and exit status 2 (``scripts/fuzz_cli.py`` checks it on
thousands of malformed inputs).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import time
from collections.abc import Sequence

from resilsched.commands import COMMANDS
from resilsched.commands.args import (
    FORMATTER,
    OneLineParser,
    UsageError,
    VersionAction,
    examples,
)
from resilsched.commands.args import emit as _emit  # noqa: F401  (tests print through it)
from resilsched.errors import InvalidInstance
from resilsched.registry import UnknownName


def build_parser() -> argparse.ArgumentParser:
    """The ``resilsched`` argument parser: every module of `resilsched.commands.COMMANDS`
    adds its subcommand."""
    parser = OneLineParser(
        prog="resilsched", formatter_class=FORMATTER,
        description="Resilient scheduling: exact formulations beside heuristics, "
        "and the gaps between them.",
        epilog=examples("""
resilsched gap                       # the main job: gap report on the built-in smoke suite
resilsched list --family rigid       # what is registered
resilsched solve inst.json --json    # exact optimum of an instance
resilsched simulate inst.json --heuristic R-LIST-0 --priority LA --failures 0,2,1
resilsched trace log.swf             # the days of a Parallel Workloads Archive trace
resilsched reproduce rigid --help    # paper figures and tables
"""),
    )
    parser.add_argument("--version", action=VersionAction)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True,
                                parser_class=OneLineParser)
    for name in COMMANDS:
        importlib.import_module(f"resilsched.commands.{name}").add_parser(sub)
    return parser


#: the parser `main` uses, built on its first call: a build takes milliseconds (every option's
#: help text goes through gettext) and parsing never changes it, so each in-process call (the
#: test suite, the fuzzer) need not build its own
_PARSER: argparse.ArgumentParser | None = None


def _parser() -> argparse.ArgumentParser:
    """The process's `build_parser` parser (built once)."""
    global _PARSER
    if _PARSER is None:
        _PARSER = build_parser()
    return _PARSER


def blocking_output() -> None:
    """Make standard output and error blocking where they are not. A parent may leave them
    non-blocking (the flag belongs to the pipe it shares with this process): Python then drops,
    silently and with exit status 0, what does not fit in the pipe when the reader lags, a
    ``--json`` object cut in the middle. Streams without a descriptor (in-process callers'
    captures) are left as they are."""
    for stream in (sys.stdout, sys.stderr):
        try:
            fd = stream.fileno()
            if not os.get_blocking(fd):
                os.set_blocking(fd, True)
        except (AttributeError, OSError, ValueError):  # None, a StringIO, a closed stream
            continue


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns its exit status (2 for bad input, after one line on stderr)."""
    started = time.perf_counter()
    blocking_output()
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version (0) or a bad option (2, one line printed)
        return exc.code if isinstance(exc.code, int) else 0
    args.started = started
    try:
        return args.func(args)
    except (InvalidInstance, UnknownName, UsageError) as exc:
        msg = exc.args[0] if isinstance(exc, UnknownName) and exc.args else str(exc)
        print(f"error: {' '.join(msg.split())}", file=sys.stderr)
        return 2
    except (MemoryError, RecursionError) as exc:  # resources, not a bug: say so in one line
        what = "out of memory" if isinstance(exc, MemoryError) else "input nested too deeply"
        print(f"error: {what}: the input is too large for this machine", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
