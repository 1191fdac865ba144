"""The doctests of the moldable family's modules run with the suite."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "resilsched.bounds.moldable",
    "resilsched.heuristics.moldable",
    "resilsched.heuristics.moldable.allocation",
    "resilsched.heuristics.moldable.batch",
    "resilsched.heuristics.moldable.fixed",
    "resilsched.heuristics.moldable.simulator",
    "resilsched.models.moldable.data",
    "resilsched.models.moldable.solve",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted > 0
