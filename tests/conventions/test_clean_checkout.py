"""A run that leaves a file in the checkout fails and names it (tests/conftest.py's
`pytest_sessionfinish`): a test run by a nested pytest, with the suite's conftest as its
plug-in, writes one file into the checkout's root."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(not (ROOT / ".git").exists(), reason="not a git checkout")
def test_a_file_left_in_the_checkout_fails_the_run(tmp_path):
    leak = f"left-by-a-test-{uuid.uuid4().hex}.txt"
    test = tmp_path / "test_leaks.py"
    test.write_text(f"def test_writes_into_the_checkout():\n"
                    f"    open({str(ROOT / leak)!r}, 'w').close()\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST")}
    try:
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                               "-p", "tests.conftest", str(test)], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=300)
    finally:
        (ROOT / leak).unlink(missing_ok=True)
    assert "1 passed" in done.stdout, done.stdout + done.stderr
    assert done.returncode == 1
    assert f"error: the tests left {leak} in the checkout" in done.stderr
