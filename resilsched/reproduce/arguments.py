"""argparse types shared by the reproductions' own option parsers (`resilsched.reproduce`): a
bad value is a one-line error naming the option (`commands.args.ReproductionParser`, exit 2)."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from resilsched.commands.args import integer, real


def count(high: int) -> Callable[[str], int]:
    """argparse type: a count in [1, high], refused up front above it (`commands.args.integer`)."""
    return integer(1, high)


def seed(bits: int) -> Callable[[str], int]:
    """argparse type: a seed in [0, 2^bits), written as Python's ``int()`` reads it.

    >>> seed(32)("7")
    7
    >>> seed(32)(str(2**32))
    Traceback (most recent call last):
    argparse.ArgumentTypeError: 4294967296 must be in [0, 2^32)
    """
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if not 0 <= value < 2**bits:
            raise argparse.ArgumentTypeError(f"{value} must be in [0, 2^{bits})")
        return value

    return parse


def number(low: float, high: float) -> Callable[[str], float]:
    """argparse type: a finite number in [low, high], refused in one line otherwise.

    >>> number(0, 1)("0.25")
    0.25
    >>> number(0, 1)("nan")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: nan must be in [0, 1]
    """
    def parse(text: str) -> float:
        value = real(text)
        if not low <= value <= high:  # NaN fails both comparisons
            raise argparse.ArgumentTypeError(f"{text[:40]} must be in [{low:g}, {high:g}]")
        return value

    return parse
