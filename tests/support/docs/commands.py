"""Running a command line the documentation shows, as written (tests/docs/test_commands.py,
tests/docs/test_slurm.py).

A ``resilsched ...`` line whose only shell syntax is a pattern (``shard-*.sqlite``) runs in the
test's process (the CLI's `main`, through the `run` fixture of tests/conftest.py) with the words
bash expands it to; any other line (pipes, redirections, variables, command substitution,
``mkdir``, ``cp``, ...) runs through bash, with this environment's `resilsched` on the PATH.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

#: the characters of a line that only bash can run
SHELL = re.compile(r"[$`|&;<>*?]")
#: what bash expands in a simple command's words without running anything: a pattern
PATTERN = re.compile(r"[*?]")
#: the environment of the lines bash runs: this interpreter's `resilsched` and `python3` first
ENV = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}


def in_process(line: str) -> bool:
    """Whether `line` is a ``resilsched`` command that `run_line` runs in this process."""
    return line.startswith("resilsched ") and not SHELL.search(PATTERN.sub("", line))


def expanded(line: str, cwd: Path) -> list[str]:
    """The words of the simple command `line` as bash gives them to the program (its patterns
    matched in `cwd`, one left as it is when it matches nothing): bash prints them, one per
    NUL, instead of running the command."""
    done = subprocess.run(["bash", "-c", "printf '%s\\0' " + line], cwd=cwd, capture_output=True,
                          text=True, timeout=60, check=True)
    return done.stdout.split("\0")[:-1]


def run_line(line: str, run: Callable[..., tuple[int, str, str]], cwd: Path) \
        -> tuple[int, str, str]:
    """Run one command line in `cwd` (the current directory for one run in-process); its exit
    status, standard output and standard error.

    Parameters
    ----------
    line
        The command line, as the page shows it (continuations joined, comment left out).
    run
        The `run` fixture: the CLI in-process, returning (status, stdout, stderr).
    cwd
        The user's folder.
    """
    if in_process(line):
        argv = expanded(line, cwd) if PATTERN.search(line) else shlex.split(line)
        assert argv[0] == "resilsched", argv
        here = Path.cwd()
        os.chdir(cwd)
        try:
            return run(*argv[1:])
        finally:
            os.chdir(here)
    done = subprocess.run(["bash", "-c", line], cwd=cwd, env=ENV, capture_output=True, text=True,
                          timeout=600)
    return done.returncode, done.stdout, done.stderr
