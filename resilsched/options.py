"""The options of the exact models (docs/architecture.md, "Options and parameters").

`SolveOptions` is the one options object of the exact models: every model has the signature
``solve(instance, scenario=None, *, time_limit=None, **options)`` and turns ``time_limit`` and
``options`` into its options class with ``Options.of(time_limit, options)``; a model with knobs
of its own subclasses it (the subclass's fields are its ``--param`` names, read by
`resilsched.params.params_of` as a heuristic's params class is). Its `deadline` is the clock of
the call (`resilsched.deadline.Deadline`).

>>> SolveOptions.of(2.5, {}).time_limit
2.5
>>> [p.name for p in SolveOptions.params()]
['workers', 'seed', 'deterministic']
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Self

from resilsched.deadline import Deadline, check_time_limit
from resilsched.errors import InvalidOption
from resilsched.params import Param, check_params, params_of


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
        if progress is not None and not callable(progress):
            raise InvalidOption("progress", f"{progress!r} must be a function of one message "
                                            "(or None)")
        values = check_params(cls.params(), values, owner)
        return cls(time_limit=check_time_limit(time_limit), progress=progress, **values)

    @classmethod
    def params(cls) -> tuple[Param, ...]:
        """The ``--param`` names of this options class (`resilsched.params.params_of`): every
        simple field; not ``time_limit`` (``--time-limit``) nor ``progress``."""
        return params_of(cls)

    def say(self, message: str) -> None:
        """Report a phase to the progress callback, if any."""
        if self.progress is not None:
            self.progress(message)
