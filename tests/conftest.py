"""Fixtures shared by every test folder."""

import pytest

from resilsched.cli import main


@pytest.fixture
def run(capsys):
    """Run the CLI in-process: returns (exit status, stdout, stderr)."""

    def _run(*argv):
        code = main([str(a) for a in argv])
        out, err = capsys.readouterr()
        return code, out, err

    return _run
