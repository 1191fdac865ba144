"""``resilsched reproduce FAMILY`` with a bad option: one line ``prog: error: ...`` on standard
error, exit status 2, nothing on standard output, no usage block (issue 21, section 7).

Every registered reproduction is driven with options that its parser must refuse before
anything runs (an unknown option, a non-integer and a zero ``--jobs``).
"""

from __future__ import annotations

import pytest

from resilsched.registry import reproductions

BAD_OPTIONS = [
    (["--no-such-option"], ""),  # worksharing first says that its experiment is missing
    (["--jobs", "x"], "argument --jobs: "),
]


def _cases():
    for family in sorted(reproductions()):
        for argv, message in BAD_OPTIONS:
            yield pytest.param(family, argv, message, id=f"{family}-{argv[0]}")
        yield pytest.param(family, ["--jobs", "0"], "argument --jobs: 0 must be in [1, ",
                           id=f"{family}-jobs0")


@pytest.mark.parametrize("family, argv, message", list(_cases()))
def test_a_bad_option_is_one_line_and_exit_2(run, family, argv, message):
    code, out, err = run("reproduce", family, *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "usage:" not in err, err
    assert err.startswith(f"resilsched reproduce {family}: error: {message}"), err
