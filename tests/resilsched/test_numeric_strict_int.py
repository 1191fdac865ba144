"""`resilsched.numeric.strict_int`: the one check of an integer argument or option."""

from __future__ import annotations

import numpy as np
import pytest

from resilsched.errors import InvalidInstance, InvalidOption
from resilsched.instances.fields import bounded_int
from resilsched.numeric import strict_int


@pytest.mark.parametrize("value", [0, 7, np.int64(7), np.uint8(7)])
def test_accepts_integers_numpy_ones_too(value):
    out = strict_int(value, "n")
    assert out == int(value) and type(out) is int


@pytest.mark.parametrize("value, message", [
    (True, "n=True must be an integer >= 0"),
    (False, "n=False must be an integer >= 0"),
    (4.0, "n=4.0 must be an integer >= 0"),  # bounded_int takes 4.0 (instance files); not this
    ("4", "n='4' must be an integer >= 0"),
    (None, "n=None must be an integer >= 0"),
    (-1, "n=-1 must be an integer >= 0"),
])
def test_refuses_non_integers_and_names_the_field(value, message):
    with pytest.raises(InvalidInstance) as info:
        strict_int(value, "n")
    assert str(info.value) == message
    assert info.value.field == "n"


def test_low_and_high():
    assert strict_int(1, "P", 1, 8) == 1 and strict_int(8, "P", 1, 8) == 8
    with pytest.raises(InvalidInstance, match=r"^P=0 must be a positive integer$"):
        strict_int(0, "P", 1, 8)
    with pytest.raises(InvalidInstance, match=r"^P=9 exceeds the maximum 8$"):
        strict_int(9, "P", 1, 8)
    with pytest.raises(InvalidInstance, match=r"^P=2 must be an integer >= 3$"):
        strict_int(2, "P", 3)


def test_huge_integers_are_printed_safely():
    with pytest.raises(InvalidInstance) as info:
        strict_int(10**5000, "seed", 0, 10)
    assert str(info.value) == "seed: <an integer of more than 4300 digits> exceeds the maximum 10"
    with pytest.raises(InvalidInstance) as info:
        strict_int(-(10**50), "seed")
    assert len(str(info.value)) < 80 and "must be an integer >= 0" in str(info.value)


def test_error_type_is_the_callers():
    with pytest.raises(InvalidOption, match=r"^--seed=1\.5 must be an integer >= 0$"):
        strict_int(1.5, "--seed", error=InvalidOption)


def test_bounded_int_shares_the_messages_and_takes_whole_floats():
    assert bounded_int(4.0, "P", 1) == 4
    for value in (2.5, float("nan"), True, "4"):
        with pytest.raises(InvalidInstance, match="must be a positive integer"):
            bounded_int(value, "P", 1)
    with pytest.raises(InvalidInstance, match=r"^P=9 exceeds the maximum 8$"):
        bounded_int(9, "P", 1, 8)
