"""The JSON number rule of a command's ``--json`` output, checked on a parsed document.

docs/architecture.md ("`objective` and `bound` are always JSON numbers"): every number is a
JSON number (or null); an exact value that is a non-integral rational is given beside it as the
string ``NAME_exact`` (``"end": 4.5, "end_exact": "9/2"``), and a list of numbers with such
elements has beside it the list ``NAME_exact`` of the same shape, each element the exact
``"p/q"`` or null (`resilsched.solution.output_jsonable`).

`number_strings` walks a document and names every string that reads as a number outside an
``_exact`` field; `exact_mismatches` names every ``_exact`` field whose value is not that of its
number. A test asserts both are empty.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import Any

#: a string that is a number: an integer, a fraction ``p/q``, a decimal or a float literal
NUMBER_STRING = re.compile(r"^\s*[-+]?(\d+/\d+|\d+(\.\d*)?([eE][-+]?\d+)?"
                           r"|\.\d+([eE][-+]?\d+)?)\s*$")
#: a string that is a fraction ``p/q``: what `resilsched.solution.json_number` writes
FRACTION_STRING = re.compile(r"^-?\d+/\d+$")
#: the suffix of the exact twin of a number
EXACT = "_exact"


def _walk(x: Any, path: str):
    """``(path, key, value, parent)`` of every value of `x`, depth first (key None in lists)."""
    if isinstance(x, dict):
        for k, v in x.items():
            sub = f"{path}.{k}"
            yield sub, k, v, x
            yield from _walk(v, sub)
    elif isinstance(x, list):
        for i, v in enumerate(x):
            sub = f"{path}[{i}]"
            yield sub, None, v, x
            yield from _walk(v, sub)


def _inside_exact(path: str) -> bool:
    """Whether `path` lies in an ``_exact`` field (its own string values are exact numbers)."""
    return any(part.split("[")[0].endswith(EXACT) for part in path.split("."))


def number_strings(doc: Any, pattern: re.Pattern[str] = NUMBER_STRING,
                   allowed: frozenset[str] = frozenset()) -> list[str]:
    """``"path: 'value'"`` for every string of `doc` matching `pattern` outside an ``_exact``
    field and outside a field named in `allowed` (labels that may read as numbers: a version,
    a seed given as text).

    >>> number_strings({"end": "11/2", "end_exact": "11/2", "name": "R-LIST-0"})
    ["$.end: '11/2'"]
    """
    return [f"{path}: {value!r}" for path, key, value, _ in _walk(doc, "$")
            if isinstance(value, str) and pattern.match(value) and not _inside_exact(path)
            and key not in allowed]


def _same(exact: Any, number: Any) -> bool:
    """Whether the exact twin `exact` (a string, a list of them or nulls) is `number`."""
    if isinstance(exact, list):
        return (isinstance(number, list) and len(exact) == len(number)
                and all(_same(e, n) for e, n in zip(exact, number, strict=True)))
    if exact is None:
        return True
    if not (isinstance(exact, str) and FRACTION_STRING.match(exact)):
        return False
    value = Fraction(exact)
    return (value.denominator != 1 and isinstance(number, float)
            and math.isclose(float(value), number, rel_tol=1e-12, abs_tol=1e-300))


def exact_mismatches(doc: Any) -> list[str]:
    """``"path: why"`` for every ``NAME_exact`` field of `doc` whose value is not a
    non-integral ``"p/q"`` (or a list of them and nulls, shaped as its number) equal to the
    number ``NAME`` beside it, or that holds a fraction with no ``NAME`` beside it. (A
    ``NAME_exact`` with neither is a field of its own: ``list``'s ``default_exact``, a model.)

    >>> exact_mismatches({"end": 4.5, "end_exact": "9/2", "t": [1, 1.5], "t_exact": [None, "3/2"]})
    []
    >>> exact_mismatches({"end": 4.0, "end_exact": "9/2"})
    ["$.end_exact: '9/2' beside 4.0"]
    """
    out = []
    for path, key, value, parent in _walk(doc, "$"):
        if not (isinstance(key, str) and key.endswith(EXACT)) or _inside_exact(path[:-len(key)]):
            continue
        name = key[:-len(EXACT)]
        if name not in parent:
            if isinstance(value, str) and FRACTION_STRING.match(value):
                out.append(f"{path}: no {name!r} beside it")
        elif not _same(value, parent[name]):
            out.append(f"{path}: {value!r} beside {parent[name]!r}")
    return out
