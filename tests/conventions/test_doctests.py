"""The docstring examples of every module run, and pass (docs/architecture.md, "Tests")."""

from __future__ import annotations

import doctest
import importlib

import pytest

from tests.conventions.test_dependencies import MODULES


def _has_examples(path) -> bool:
    return ">>>" in path.read_text()


@pytest.mark.parametrize("module", sorted(m for m, p in MODULES.items() if _has_examples(p)))
def test_doctests(module):
    mod = importlib.import_module(module)
    result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed"
