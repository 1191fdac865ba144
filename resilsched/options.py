"""Parameters of heuristics and exact models, solver settings and deadlines (docs/architecture.md,
"Adding a family").

- `Param` describes one tunable parameter: its name, type, default and allowed values. The
  parameters of a heuristic are the keyword-only arguments of its function
  (`params_of`), so the registry, ``resilsched list`` and ``--param NAME=VALUE`` on the command
  line all derive from the function itself.
- `SolveOptions` is the one options object of the exact models: every model has the signature
  ``solve(instance, scenario=None, *, time_limit=None, **options)`` and turns ``time_limit`` and
  ``options`` into its options class with ``Options.of(time_limit, options)``; a model with knobs
  of its own subclasses it (the subclass's fields are its ``--param`` names).
- `Deadline` is the clock of a whole command: every phase of a model (bounds, presolve, search,
  post-processing) takes its share of what remains, so that ``--time-limit`` bounds the command.

>>> p = Param("eps", 0.3, float)
>>> p.parse("0.25", "BATCH-LIST")
0.25
>>> Param("mode", "first", str, ("first", "all")).parse("al", "X")
Traceback (most recent call last):
...
resilsched.errors.InvalidInstance: --param mode='al' is not allowed for X (choose from first, all)
>>> SolveOptions.of(2.5, {}).time_limit
2.5
"""

from __future__ import annotations

import dataclasses
import inspect
import math
import time
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Self

from resilsched.errors import InvalidInstance

#: Longest accepted time limit (one week); shortest (10 ms): below it no phase can run.
MAX_TIME_LIMIT = 7 * 24 * 3600.0
MIN_TIME_LIMIT = 0.01
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


@dataclass(frozen=True)
class Param:
    """One parameter of a heuristic or an exact model (``--param NAME=VALUE``).

    `kind` is ``bool``, ``int``, ``float`` or ``str``; `choices`, when given, lists the allowed
    values. `parse` reads the command-line text, `check` a value given from Python; both raise
    `InvalidInstance` naming ``--param NAME`` and the rule.
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
            raise InvalidInstance(field_name, f"{text!r} is not a boolean for {owner} "
                                              "(true/false, 1/0, yes/no)")
        if self.kind in (int, float):
            try:
                value = self.kind(text)
            except ValueError:
                what = "an integer" if self.kind is int else "a number"
                raise InvalidInstance(field_name, f"{text!r} is not {what} for {owner}") from None
            return self.check(value, owner)
        return self.check(text, owner)

    def check(self, value: Any, owner: str) -> Any:
        field_name = f"--param {self.name}"
        if self.kind is bool and not isinstance(value, bool):
            raise InvalidInstance(field_name, f"{value!r} must be true or false for {owner}")
        if self.kind is int and (isinstance(value, bool) or not isinstance(value, int)):
            raise InvalidInstance(field_name, f"{value!r} must be an integer for {owner}")
        if self.kind is float:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise InvalidInstance(field_name, f"{value!r} must be a number for {owner}")
            if not math.isfinite(value):
                raise InvalidInstance(field_name, f"{value!r} must be a finite number for {owner}")
            value = float(value)
        if self.kind is str and not isinstance(value, str):
            raise InvalidInstance(field_name, f"{value!r} must be a string for {owner}")
        if self.kind in (int, float) and (
            (self.low is not None and value < self.low)
            or (self.high is not None and value > self.high)
        ):
            raise InvalidInstance(field_name, f"{value!r} must be in [{self.low}, {self.high}] "
                                              f"for {owner}")
        if self.choices and value not in self.choices:
            raise InvalidInstance(field_name, f"{value!r} is not allowed for {owner} "
                                              f"(choose from {', '.join(map(str, self.choices))})")
        return value


def _param(name: str, annotation: Any, default: Any, help: str = "") -> Param | None:
    """A `Param` for a keyword of type bool/int/float/str or a Literal of them; None otherwise."""
    if typing.get_origin(annotation) is Literal:
        choices = typing.get_args(annotation)
        return Param(name, default, type(choices[0]), tuple(choices), help)
    if annotation in (bool, int, float, str):
        return Param(name, default, annotation, (), help)
    if type(default) in (bool, int, float, str):
        return Param(name, default, type(default), (), help)
    return None


def params_of(fn: Callable[..., Any], skip: frozenset[str] = frozenset({"seed"}),
              help: Mapping[str, str] | None = None) -> tuple[Param, ...]:
    """The `Param` of every keyword-only argument of `fn` that has a default, except `skip`.

    >>> def h(instance, scenario=None, priority=None, *, seed: int = 0, eps: float = 0.3): ...
    >>> [p.describe() for p in params_of(h)]
    ['eps=0.3 (float)']
    """
    help = help or {}
    out = []
    for p in inspect.signature(fn, eval_str=True).parameters.values():
        if p.kind is not p.KEYWORD_ONLY or p.default is p.empty or p.name in skip:
            continue
        param = _param(p.name, p.annotation, p.default, help.get(p.name, ""))
        if param is not None:
            out.append(param)
    return tuple(out)


def check_params(params: tuple[Param, ...], values: Mapping[str, Any], owner: str) -> dict:
    """`values` with every name known to `params` and every value of the right type."""
    known = {p.name: p for p in params}
    out = {}
    for name, value in values.items():
        if name not in known:
            choices = ", ".join(known) or "none"
            raise InvalidInstance(f"--param {name}", f"is not a parameter of {owner} "
                                                     f"(choose from {choices})")
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
            raise InvalidInstance("--param", f"{pair!r} must be NAME=VALUE")
        if name not in known:
            choices = ", ".join(known) or "none"
            raise InvalidInstance(f"--param {name}", f"is not a parameter of {owner} "
                                                     f"(choose from {choices})")
        if name in out:
            raise InvalidInstance(f"--param {name}", "is given twice")
        out[name] = known[name].parse(text, owner)
    return out


def check_time_limit(value: Any, field_name: str = "time_limit") -> float | None:
    """None, or a finite number of seconds in [MIN_TIME_LIMIT, MAX_TIME_LIMIT]."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidInstance(field_name, f"{value!r} must be a number of seconds")
    if not math.isfinite(value) or not MIN_TIME_LIMIT <= value <= MAX_TIME_LIMIT:
        raise InvalidInstance(field_name, f"{value!r} must be a finite number of seconds in "
                                          f"[{MIN_TIME_LIMIT}, {MAX_TIME_LIMIT:.0f}]")
    return float(value)


class Deadline:
    """A point in time a command must finish by: ``remaining()`` seconds are left.

    ``Deadline(None)`` never expires. `share(f)` is the budget of a phase that may take the
    fraction `f` of what remains.

    >>> d = Deadline(10.0)
    >>> 9.0 < d.remaining() <= 10.0 and not d.expired()
    True
    >>> Deadline(None).remaining()
    inf
    """

    def __init__(self, seconds: float | None, start: float | None = None):
        self.start = time.perf_counter() if start is None else start
        self.seconds = seconds
        self.end = math.inf if seconds is None else self.start + seconds

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def remaining(self) -> float:
        return max(0.0, self.end - time.perf_counter())

    def expired(self) -> bool:
        return time.perf_counter() >= self.end

    def share(self, fraction: float) -> float:
        """Seconds for a phase allowed `fraction` of the remaining time (inf without a limit)."""
        return self.remaining() * fraction


@dataclass(frozen=True)
class SolveOptions:
    """Settings every exact model understands (subclass it for a model's own knobs).

    Attributes
    ----------
    time_limit : seconds for the whole call, every phase included (None: no limit).
    workers : CP-SAT threads (0: 1 under ``deterministic``, else 2); HiGHS always runs one
        (the worker rule of `resilsched.solvers`).
    seed : the solver's random seed.
    deterministic : reproducible runs (campaigns): a fixed worker count and, for CP-SAT, a
        deterministic time limit (the search's budget from the time limit, in the family's
        CP-SAT units: `resilsched.solvers`), so that the same call gives the same result on
        any machine.
    progress : called with a one-line message at each phase (the CLI prints them on stderr).
    """

    time_limit: float | None = None
    workers: int = field(default=0, metadata={
        "low": 0, "high": 256,
        "help": "CP-SAT threads, 0 = 1 when deterministic, else 2 (HiGHS runs one)"})
    seed: int = field(default=0, metadata={"low": 0, "high": 2**31 - 1,
                                           "help": "solver random seed"})
    deterministic: bool = field(default=False, metadata={
        "help": "reproducible: fixed threads and a deterministic time limit"})
    progress: Callable[[str], None] | None = field(default=None, compare=False, repr=False)
    deadline: Deadline = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "deadline", Deadline(self.time_limit))

    @classmethod
    def of(cls, time_limit: float | None = None, options: Mapping[str, Any] | None = None,
           owner: str = "this model") -> Self:
        """Validated options from a model's ``time_limit`` and ``**options``."""
        values = dict(options or {})
        progress = values.pop("progress", None)
        values = check_params(cls.params(), values, owner)
        return cls(time_limit=check_time_limit(time_limit), progress=progress, **values)

    @classmethod
    def params(cls) -> tuple[Param, ...]:
        """The ``--param`` names of this options class: every simple field but time_limit."""
        hints = typing.get_type_hints(cls)
        out = []
        for f in dataclasses.fields(cls):
            if not f.init or f.name in ("time_limit", "progress"):
                continue
            param = _param(f.name, hints[f.name], f.default, f.metadata.get("help", ""))
            if param is not None:
                out.append(dataclasses.replace(param, low=f.metadata.get("low"),
                                               high=f.metadata.get("high")))
        return tuple(out)

    def say(self, message: str) -> None:
        """Report a phase to the progress callback, if any."""
        if self.progress is not None:
            self.progress(message)
