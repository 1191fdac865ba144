"""Parameters of heuristics and exact models: their declaration and ``--param`` parsing
(docs/architecture.md, "Options and parameters").

A heuristic's or a model's parameters are the fields of one frozen dataclass: a heuristic's
params class (named in its registration, `resilsched.plugin.Heuristic`), a model's options
class (a `resilsched.options.SolveOptions` subclass). Each field typed ``bool``, ``int``,
``float``, ``str`` or ``Literal[...]`` with a default is one `Param`; its
``field(metadata=...)`` may give ``help``, ``low`` and ``high``. `params_of` reads them, and
``resilsched list``, ``--param NAME=VALUE`` (`parse_params`), Python keywords and campaign
``params`` (`check_params`, `Param.check`) all derive from it. A bad value raises `InvalidOption`
naming ``--param NAME`` and the rule.

>>> from dataclasses import dataclass, field
>>> @dataclass(frozen=True)
... class EpsParams:
...     eps: float = field(default=0.3, metadata={"low": 0.05, "high": 1.0, "help": "accuracy"})
>>> [p.describe() for p in params_of(EpsParams)]
['eps=0.3 (float): accuracy']
>>> parse_params(params_of(EpsParams), ["eps=0.25"], "BATCH-LIST")
{'eps': 0.25}
>>> Param("mode", "first", str, ("first", "all")).parse("al", "X")
Traceback (most recent call last):
...
resilsched.errors.InvalidOption: --param mode='al' is not allowed for X (choose from first, all)
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import math
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from resilsched.errors import InvalidOption
from resilsched.numeric import strict_int

#: largest accepted seed (``--seed``, a campaign's ``seed``, the ``seed`` of the Python API)
MAX_SEED = 2**63 - 1

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


@dataclass(frozen=True)
class Param:
    """One parameter of a heuristic or an exact model (``--param NAME=VALUE``).

    `kind` is ``bool``, ``int``, ``float`` or ``str``; `choices`, when given, lists the allowed
    values; `low` and `high` bound a number. `parse` reads the command-line text, `check` a
    value given from Python; both raise `InvalidOption` naming ``--param NAME`` and the rule.
    """

    name: str
    default: Any
    kind: type
    choices: tuple[Any, ...] = ()
    help: str = ""
    low: float | None = None
    high: float | None = None

    def describe(self) -> str:
        """``name=default`` plus the type or the allowed values, for ``resilsched list``."""
        allowed = "|".join(map(str, self.choices)) if self.choices else self.kind.__name__
        return f"{self.name}={self.default} ({allowed})" + (f": {self.help}" if self.help else "")

    def parse(self, text: str, owner: str) -> Any:
        field_name = f"--param {self.name}"
        if self.kind is bool:
            low = text.strip().lower()
            if low in _TRUE:
                return True
            if low in _FALSE:
                return False
            raise InvalidOption(field_name, f"{text!r} is not a boolean for {owner} "
                                            "(true/false, 1/0, yes/no)")
        if self.kind in (int, float):
            try:
                value = self.kind(text)
            except ValueError:
                what = "an integer" if self.kind is int else "a number"
                raise InvalidOption(field_name, f"{text!r} is not {what} for {owner}") from None
            return self.check(value, owner)
        return self.check(text, owner)

    def check(self, value: Any, owner: str) -> Any:
        field_name = f"--param {self.name}"
        if self.kind is bool and not isinstance(value, bool):
            raise InvalidOption(field_name, f"{value!r} must be true or false for {owner}")
        if self.kind is int and (isinstance(value, bool) or not isinstance(value, int)):
            raise InvalidOption(field_name, f"{value!r} must be an integer for {owner}")
        if self.kind is float:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise InvalidOption(field_name, f"{value!r} must be a number for {owner}")
            if not math.isfinite(value):
                raise InvalidOption(field_name, f"{value!r} must be a finite number for {owner}")
            value = float(value)
        if self.kind is str and not isinstance(value, str):
            raise InvalidOption(field_name, f"{value!r} must be a string for {owner}")
        if self.kind in (int, float) and (
            (self.low is not None and value < self.low)
            or (self.high is not None and value > self.high)
        ):
            raise InvalidOption(field_name, f"{value!r} must be in [{self.low}, {self.high}] "
                                            f"for {owner}")
        if self.choices and value not in self.choices:
            raise InvalidOption(field_name, f"{value!r} is not allowed for {owner} "
                                            f"(choose from {', '.join(map(str, self.choices))})")
        return value


def check_seed(value: Any, field_name: str = "seed") -> int:
    """`value` as a seed: an integer in [0, `MAX_SEED`] (not a bool, a float or None, which
    numpy would refuse deep inside a draw or take as "fresh entropy"); `InvalidOption` else.

    >>> check_seed(7)
    7
    >>> check_seed(1.5)
    Traceback (most recent call last):
    ...
    resilsched.errors.InvalidOption: seed=1.5 must be an integer >= 0
    """
    return strict_int(value, field_name, 0, MAX_SEED, error=InvalidOption)


def _param(name: str, annotation: Any, default: Any) -> Param | None:
    """A `Param` for a value of type bool/int/float/str or a Literal of them; None otherwise."""
    if typing.get_origin(annotation) is Literal:
        choices = typing.get_args(annotation)
        return Param(name, default, type(choices[0]), tuple(choices))
    if annotation in (bool, int, float, str):
        return Param(name, default, annotation)
    if type(default) in (bool, int, float, str):
        return Param(name, default, type(default))
    return None


@functools.cache
def params_of(cls: type | None) -> tuple[Param, ...]:
    """The `Param` of every field of the parameters dataclass `cls` (None: no parameters).

    A field is a parameter when it is set by ``__init__``, has a default and is typed
    ``bool``, ``int``, ``float``, ``str`` or ``Literal[...]`` (or has a default of those
    types); others (``time_limit: float | None``, a callback) are not. ``metadata`` gives
    ``help``, ``low`` and ``high``.
    """
    if cls is None:
        return ()
    hints = typing.get_type_hints(cls)
    out = []
    for f in dataclasses.fields(cls):
        if not f.init:
            continue
        param = _param(f.name, hints[f.name], f.default)
        if param is not None:
            out.append(dataclasses.replace(param, help=f.metadata.get("help", ""),
                                           low=f.metadata.get("low"),
                                           high=f.metadata.get("high")))
    return tuple(out)


@functools.cache
def keyword_params(fn: Callable[..., Any]) -> type | None:
    """The parameters dataclass of a user's heuristic, which declares its parameters as
    keyword-only arguments with defaults (docs/own-heuristic.md): one field per such argument
    but ``seed`` that gives a `Param`; None when there is none.

    >>> def h(instance, scenario=None, priority=None, *, seed: int = 0, eps: float = 0.3): ...
    >>> [p.describe() for p in params_of(keyword_params(h))]
    ['eps=0.3 (float)']
    """
    fields = []
    for p in inspect.signature(fn, eval_str=True).parameters.values():
        if p.kind is not p.KEYWORD_ONLY or p.default is p.empty or p.name == "seed":
            continue
        param = _param(p.name, p.annotation, p.default)
        if param is not None:
            kind = p.annotation if typing.get_origin(p.annotation) is Literal else param.kind
            fields.append((p.name, kind, dataclasses.field(default=p.default)))
    if not fields:
        return None
    name = getattr(fn, "__name__", "heuristic")
    return dataclasses.make_dataclass(f"{name}_params", fields, frozen=True)


def _unknown(name: str, known: Mapping[str, Param], owner: str) -> InvalidOption:
    choices = ", ".join(known) or "none"
    return InvalidOption(f"--param {name}", f"is not a parameter of {owner} "
                                            f"(choose from {choices})")


def check_params(params: tuple[Param, ...], values: Mapping[str, Any], owner: str) -> dict:
    """`values` with every name known to `params` and every value of the right type."""
    known = {p.name: p for p in params}
    out = {}
    for name, value in values.items():
        if name not in known:
            raise _unknown(name, known, owner)
        out[name] = known[name].check(value, owner)
    return out


def parse_params(params: tuple[Param, ...], pairs: list[str] | None, owner: str) -> dict:
    """``["NAME=VALUE", ...]`` from the command line -> typed keyword arguments."""
    known = {p.name: p for p in params}
    out: dict[str, Any] = {}
    for pair in pairs or []:
        name, sep, text = pair.partition("=")
        name = name.strip()
        if not sep or not name:
            raise InvalidOption("--param", f"{pair!r} must be NAME=VALUE")
        if name not in known:
            raise _unknown(name, known, owner)
        if name in out:
            raise InvalidOption(f"--param {name}", "is given twice")
        out[name] = known[name].parse(text, owner)
    return out
