"""The benchmarks page, docs/performance.md, as the benchmark scripts write it.

Every ``scripts/bench_*.py`` owns one marked section of the page::

    <!-- bench_rigid.py -->
    ### Rigid simulation (`scripts/bench_rigid.py`)
    ...one paragraph: the workload...
    | measured | goal | figure | command | machine |
    ...
    <!-- /bench_rigid.py -->

and ``--write [PAGE]`` replaces it with the rows it measured now: a row whose first cell (what
is measured) matches a new row is replaced in place, the other rows of the section stay (a run
of one part, e.g. ``bench_coschedule.py --kinp``, refreshes only its own rows), new rows go
last, and nothing outside the markers changes. A section not on the page yet is appended at
its end. Each row carries the command that regenerates it (the script's own arguments) and the
machine it ran on (the load average when the script started), so rows from runs at different
times say so.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shlex
import sys
import time
from dataclasses import dataclass
from pathlib import Path

PAGE = Path(__file__).resolve().parents[1] / "docs" / "performance.md"
HEADER = ["| measured | goal | figure | command | machine |", "|---|---|---|---|---|"]


@dataclass(frozen=True)
class Row:
    """One measurement: what is measured, the goal it answers ("-" if none) and the figure."""

    measured: str
    goal: str
    figure: str


def add_write_option(ap: argparse.ArgumentParser) -> None:
    """``--write [PAGE]``: replace this script's section of PAGE (default docs/performance.md)."""
    ap.add_argument("--write", nargs="?", const=PAGE, default=None, type=Path, metavar="PAGE",
                    help="replace this script's section of PAGE (default: docs/performance.md)")


def _command(script: str, argv: list[str]) -> str:
    """The command of this run, less ``--write [PAGE]``."""
    kept, skip = [], False
    for i, arg in enumerate(argv):
        if skip:
            skip = False
            continue
        if arg == "--write":
            skip = i + 1 < len(argv) and not argv[i + 1].startswith("-")
            continue
        if arg.startswith("--write="):
            continue
        kept.append(arg)
    return shlex.join(["python3", f"scripts/{script}", *kept])


class Run:
    """One run of a benchmark script: its command and its machine, taken when it starts."""

    def __init__(self, script_file: str, argv: list[str] | None = None) -> None:
        self.script = Path(script_file).name
        self.command = _command(self.script, sys.argv[1:] if argv is None else list(argv))
        load = os.getloadavg()[0]
        self.machine = (f"{platform.machine()}, {os.cpu_count()} cores, Python "
                        f"{platform.python_version()}, load {load:.1f}, "
                        f"{time.strftime('%Y-%m-%d', time.gmtime())}")

    def cells(self, row: Row) -> list[str]:
        return [row.measured, row.goal, row.figure, f"`{self.command}`", self.machine]

    def write(self, page: Path, title: str, intro: str, rows: list[Row]) -> None:
        """Replace this script's section of `page` with `rows` (other rows of it kept)."""
        text = page.read_text() if page.exists() else "# Benchmarks\n"
        begin, end = f"<!-- {self.script} -->", f"<!-- /{self.script} -->"
        new = [self.cells(r) for r in rows]
        if begin in text and end in text:
            a, b = text.index(begin), text.index(end) + len(end)
            fresh = {c[0]: c for c in new}
            old = _rows(text[a:b])
            kept = {c[0] for c in old}
            new = [fresh.get(c[0], c) for c in old] + [c for c in new if c[0] not in kept]
        else:
            text = text.rstrip("\n") + "\n\n"
            a = b = len(text)
        block = "\n".join([begin, f"### {title}", "", " ".join(intro.split()), "", *HEADER,
                           *(_line(c) for c in new), end])
        page.write_text(text[:a] + block + text[b:].rstrip("\n") + "\n")
        print(f"wrote the section of {self.script} in {page}", file=sys.stderr)


def _line(cells: list[str]) -> str:
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"


def _rows(section: str) -> list[list[str]]:
    """The table rows of a section, as cells (the header and its rule left out)."""
    out = []
    for line in section.splitlines():
        if line.startswith("| ") and line not in HEADER:
            cells = re.split(r"(?<!\\)\|", line.strip()[1:-1])
            out.append([c.strip().replace("\\|", "|") for c in cells])
    return out
