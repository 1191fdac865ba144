"""docs/_hooks/docstrings.py: the house's docstrings, rewritten into numpy style for the API
reference (compact parameter lines, paragraph returns, bare doctests), numpy style left alone."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

HOOK = Path(__file__).resolve().parents[2] / "docs" / "_hooks" / "docstrings.py"


@pytest.fixture(scope="module")
def hook():
    pytest.importorskip("griffe", reason="the docs extra: pip install -e '.[docs]'")
    spec = importlib.util.spec_from_file_location("docstrings_hook", HOOK)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_compact_parameters_become_descriptions(hook):
    doc = ("Do.\n\n    Parameters\n    ----------\n    p, t : processors and duration of each"
           " job.\n    queue : the queue Q. With m = 0 the\n        rest.\n    x : int\n"
           "        a numpy one.\n    y : float, optional\n")
    assert hook.rewrite(doc) == (
        "Do.\n\n    Parameters\n    ----------\n    p, t\n        processors and duration of each"
        " job.\n    queue\n        the queue Q. With m = 0 the\n        rest.\n    x : int\n"
        "        a numpy one.\n    y : float, optional")


def test_a_paragraph_of_returns_describes_the_return_type(hook):
    doc = "Do.\n\nReturns\n-------\nSolution with a status, and\nmore.\n\nRaises\n------\nX : when."
    assert hook.rewrite(doc) == ("Do.\n\nReturns\n-------\n:\n    Solution with a status, and\n"
                                 "    more.\n\nRaises\n------\nX : when.")
    numpy = "Do.\n\nReturns\n-------\nint\n    the count."
    assert hook.rewrite(numpy) == numpy


def test_bare_doctests_are_fenced_and_examples_sections_kept(hook):
    fenced = "Do.\n\n```pycon\n>>> f(1)\n2\n```\n\nMore."
    assert hook.rewrite("Do.\n\n>>> f(1)\n2\n\nMore.") == fenced
    examples = "Do.\n\nExamples\n--------\n>>> f(1)\n2"
    assert hook.rewrite(examples) == examples


def test_index_expressions_become_code_outside_code(hook):
    assert hook.rewrite("K = sum_j prod_r C_hat[r][j], and ``t[i][j]`` stays.") == \
        "K = sum_j prod_r ``C_hat[r][j]``, and ``t[i][j]`` stays."
    examples = "Examples\n--------\n>>> a[0][1]\n2"
    assert hook.rewrite(examples) == examples


def test_doctests_after_a_section_become_an_examples_section(hook):
    doc = "Do.\n\nReturns\n-------\nint\n    the count.\n\n>>> f(1)\n2"
    assert hook.rewrite(doc) == ("Do.\n\nReturns\n-------\nint\n    the count.\n\nExamples\n"
                                 "--------\n>>> f(1)\n2")
