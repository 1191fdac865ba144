"""``resilsched.cli``: what the command does for every subcommand, before its handler runs.
(The subcommands' own tests are in tests/resilsched/commands/.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="sets a pipe's size")
def test_a_non_blocking_pipe_from_the_parent_gets_the_whole_json():
    """A parent that shares a non-blocking pipe (as some runners and profilers leave their
    standard output) with a reader that lags: every byte arrives, not the first 4 KiB with
    exit status 0."""
    import fcntl

    read, write = os.pipe()
    fcntl.fcntl(write, fcntl.F_SETPIPE_SZ, 4096)  # the output is fifteen times that
    os.set_blocking(write, False)
    proc = subprocess.Popen([sys.executable, "-m", "resilsched", "list", "--json"],
                            stdout=write, stderr=subprocess.PIPE)
    os.close(write)
    chunks = []
    while chunk := os.read(read, 1024):
        chunks.append(chunk)
    os.close(read)
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 0 and err == b""
    out = b"".join(chunks)
    assert len(out) > 4 * 4096
    assert set(json.loads(out)["families"]) >= {"rigid", "desktop"}
