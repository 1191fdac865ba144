"""What a family registers (docs/architecture.md, "Adding a family").

A family is its role modules (``instances/``, ``bounds/``, ``heuristics/``, ``models/``) plus
one module ``resilsched/families/<name>.py`` that builds a `Family` named ``FAMILY``. Every
entry points at the function itself; the registry (`resilsched.registry`) discovers the module,
and the CLI, the gap harness, campaigns and ``resilsched reproduce`` derive everything from it.

Signatures of the registered functions:

- heuristic: ``run(instance, scenario=None, priority=None, *, seed=0, **params) ->
  HeuristicResult``; its parameters are the fields of the frozen dataclass its registration
  names (``Heuristic(..., options=MyParams)``, `resilsched.params.params_of`), reachable as
  ``--param NAME=VALUE`` and passed to `run` as keyword arguments (those the user set). Users
  add their own without editing a family: by ``MODULE:FUNCTION`` reference or by an entry
  point of the group ``resilsched.heuristics`` (`resilsched.registry`), whose keyword-only
  arguments are their parameters (`resilsched.params.keyword_params`); what any heuristic
  returns is checked by `resilsched.checked` before it is believed;
- exact model: ``solve(instance, scenario=None, *, time_limit=None, **options) -> Solution``,
  the options being the fields of its `SolveOptions` class (read the same way);
- bound: ``compute(instance, scenario=None)`` <= OPT (>= OPT when maximising);
- objective: ``objective(case, schedule)``, the objective recomputed from a schedule alone
  (independently of the heuristic that built it);
- construction: ``build(instance, scenario=None) -> HeuristicResult`` (a schedule of the exact
  problem, e.g. a clairvoyant one that reads the failure scenario; `resilsched.portfolio`);
- generator (preset): ``generate(seed, count=None) -> list of instances``;
- reader: ``read(path, **options) -> list of instances`` for a file suffix (e.g. ``.swf``);
- reproduction: a module whose ``main(argv, prog) -> exit status`` runs it (``resilsched reproduce
  FAMILY``), named by its path in `Reproduction` and imported when it runs.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from resilsched.options import SolveOptions
from resilsched.params import Param, params_of
from resilsched.solution import HeuristicResult, Solution


@dataclass(frozen=True)
class Case:
    """One gap-report case: an instance and, for the failure families, a scenario."""

    name: str
    instance: Any
    scenario: Any = None


@dataclass(frozen=True)
class Heuristic:
    """A registered heuristic.

    `priorities` lists the rules it accepts (empty when it has none);
    ``guarantee(instance, priority)`` returns the proven ratio c with objective <= c * OPT
    (>= c * OPT when maximising), or None. `options` is its parameters dataclass (None: it
    takes none), whose fields are its `params` (``--param NAME=VALUE``), as an exact model's
    options class. `fast_path`: keyword arguments that make `run` return the same objective
    without what only a reader needs (the rigid heuristics' ``record=False``: no attempt log),
    which campaigns pass to the built-in heuristics. `key_priorities`: the priority may also
    be a key function ``key(instance, j)`` (smallest first; the list families' heuristics).
    `origin` says where the entry comes from: ``"builtin"`` (the family registers it),
    ``"reference"`` (a ``MODULE:FUNCTION`` given by the user) or ``"entry point of DIST"``.
    A `baseline` (e.g. a fault-free run of a faulty instance) does not solve the family's
    problem: `resilsched.portfolio` never takes its schedule. `batch` is its batch engine, what
    the family's many-scenario fast path runs for it (rigid: a `heuristics.rigid.many.Batch`,
    for ``many.makespans``; moldable: the allocation rule of ``Simulator.makespans``), or None.
    """

    name: str
    run: Callable[..., HeuristicResult]
    description: str
    priorities: tuple[str, ...] = ()
    default_priority: str | None = None
    guarantee: Callable[[Any, str | None], Any] | None = None
    options: type | None = None
    key_priorities: bool = False
    origin: str = "builtin"
    baseline: bool = False
    batch: Any = None
    fast_path: Mapping[str, Any] = field(default_factory=dict, hash=False)

    @property
    def params(self) -> tuple[Param, ...]:
        """Its ``--param`` names: the fields of `options` (`resilsched.params.params_of`)."""
        return params_of(self.options)

    @property
    def plugin(self) -> bool:
        """Whether the heuristic comes from outside the family's own registration."""
        return self.origin != "builtin"


@dataclass(frozen=True)
class ExactModel:
    """A registered exact model; `options` is the options class its ``solve`` builds. With
    `warm_start`, ``solve`` takes ``hint=`` a schedule of the family in the shape its
    heuristics return (their ``schedule``), which it checks and starts from
    (`resilsched.portfolio`)."""

    name: str
    solve: Callable[..., Solution]
    description: str
    options: type[SolveOptions] = SolveOptions
    warm_start: bool = False
    #: cheap checks ``check(instance, scenario, **options)`` of the options against the
    #: instance (InvalidInstance naming the option), run before any phase of the portfolio
    check: Callable[..., None] | None = None
    #: it solves the instance without the scenario it is given (a failure-free optimum):
    #: ``resilsched solve`` then says on standard error that a scenario with failures was unused
    ignores_scenario: bool = False
    #: without a scenario it draws the failures from its ``seed`` option, as the family's
    #: heuristics draw them from theirs (the malleable ``yardstick`` runs heuristics): a
    #: campaign task gives it the heuristics' seed, so every run of a case reads one trace
    draws_from_seed: bool = False

    @property
    def params(self) -> tuple[Param, ...]:
        """Its ``--param`` names: the fields of `options` (`resilsched.params.params_of`)."""
        return self.options.params()

    @property
    def averages_over_failures(self) -> bool:
        """Whether it averages over the failure model (an option ``qbar``: the online
        optimum's expected makespan) instead of solving one scenario; such a model takes no
        scenario and gives no schedule to draw."""
        return any(p.name == "qbar" for p in self.params)

    def check_options(self, time_limit: float | None, options: Mapping[str, Any]) -> None:
        """Refuse, before any work, a bad `time_limit` or option of a call (`InvalidOption`
        naming it and the rule, this model's name in the message); keyword-only arguments of
        ``solve`` itself (e.g. ``hint``) are left to it."""
        own = _keywords(self.solve)
        self.options.of(time_limit, {k: v for k, v in options.items() if k not in own},
                        self.name)

    def __call__(self, instance: Any, scenario: Any = None, *, time_limit: float | None = None,
                 **options: Any) -> Solution:
        """Solve through the registry: the options are checked with this model's name in the
        errors, and the result carries the registered name as its ``method``. Keyword-only
        arguments of ``solve`` itself (e.g. the rigid models' ``hint``) are passed unchecked."""
        self.check_options(time_limit, options)
        solution = self.solve(instance, scenario, time_limit=time_limit, **options)
        return dataclasses.replace(solution, method=self.name)


@functools.cache
def _keywords(fn: Callable[..., Any]) -> frozenset[str]:
    """The keyword-only parameters `fn` names (not ``**options``)."""
    return frozenset(p.name for p in inspect.signature(fn).parameters.values()
                     if p.kind is p.KEYWORD_ONLY)


@dataclass(frozen=True)
class Bound:
    """A registered bound: ``compute(instance, scenario)`` is <= OPT (>= OPT when maximising)."""

    name: str
    compute: Callable[..., Any]
    description: str


@dataclass(frozen=True)
class Construction:
    """A schedule the family builds for the portfolio (not a heuristic of the papers, e.g. a
    clairvoyant one): ``build(instance, scenario) -> HeuristicResult``, checked by the family's
    validator before `resilsched.portfolio` takes it. With `seeded` the portfolio passes
    ``seed=`` too, as to the heuristics (a scenario drawn from the seed, e.g. a malleable
    trace)."""

    name: str
    build: Callable[..., HeuristicResult]
    description: str
    seeded: bool = False


@dataclass(frozen=True)
class Generator:
    """A registered generator or preset: ``generate(seed, count) -> list of instances``."""

    name: str
    generate: Callable[..., list[Any]]
    description: str


@dataclass(frozen=True)
class Reproduction:
    """A paper reproduction: the module whose ``main(argv, prog) -> int`` runs it (imported
    when it runs, not when the family loads) and one line on what it regenerates."""

    module: str
    description: str

    def __post_init__(self) -> None:
        if not isinstance(self.module, str):  # the former shape, a main function
            raise TypeError(f"Reproduction: module must be the path of the module defining "
                            f"main(argv, prog), e.g. 'mypackage.reproduce' (not "
                            f"{type(self.module).__name__})")

    def main(self, argv: list[str], prog: str) -> int:
        """Run the reproduction with the options `argv`, its usage naming `prog`."""
        return importlib.import_module(self.module).main(argv, prog)


@dataclass
class Family:
    """Everything the toolkit knows about one problem family.

    `objective_unit` is printed after objective values (``"s"`` for makespans). `scenario` turns
    ``(instance, failures-or-None)`` into a checked scenario (None for families without one),
    `sample_scenario` draws one ``(instance, qbar, seed)``; `validate(case, result)` is the
    independent checker of heuristic results. `group(instance)` splits the gap report's rows
    (e.g. the desktop family's ``"slack"`` / ``"noslack"`` cases, two problems with their own
    optima); `metrics` names entries of ``HeuristicResult.extra`` the report aggregates beside
    the gap (mean and max; e.g. ``"stability"``). `objective(case, schedule)` recomputes the
    objective from a heuristic's schedule, independently of the heuristic (None: the family's
    `validate` must compare the claimed objective with the schedule itself).
    `choose_exact(instance)` names the exact model `resilsched.portfolio` runs on an instance
    (default: `default_exact`), e.g. the one that handles its size; `constructions` are
    schedules it builds beside the heuristics. `another_problem(case, result)` says why a
    valid run solves another problem than the case's (the malleable fault-free baselines on an
    instance with failures, decision MA-28), or returns None (None: every run solves the
    case's problem): such a run is still validated, but the gap report does not score it
    against the case's reference (`resilsched.checked.Checked.another_problem`).
    """

    name: str
    spec: str
    sense: str  # "min" or "max"
    objective_name: str
    from_dict: Callable[[dict], Any]
    smoke_suite: Callable[[], list[Case]]
    default_exact: str
    objective_unit: str = ""
    heuristics: dict[str, Heuristic] = field(default_factory=dict)
    exact: dict[str, ExactModel] = field(default_factory=dict)
    bounds: dict[str, Bound] = field(default_factory=dict)
    generators: dict[str, Generator] = field(default_factory=dict)
    #: file suffix (".swf") -> reader(path, **options) returning a list of instances
    readers: dict[str, Callable[..., list[Any]]] = field(default_factory=dict)
    scenario: Callable[[Any, Any], Any] | None = None
    sample_scenario: Callable[[Any, float, int], Any] | None = None
    validate: Callable[[Case, HeuristicResult], None] | None = None
    reproduction: Reproduction | None = None
    group: Callable[[Any], str | None] | None = None
    metrics: tuple[str, ...] = ()
    objective: Callable[[Case, Any], Any] | None = None
    choose_exact: Callable[[Any], str] | None = None
    constructions: dict[str, Construction] = field(default_factory=dict)
    another_problem: Callable[[Case, HeuristicResult], str | None] | None = None

    def add(self, item: Heuristic | ExactModel | Bound | Generator | Construction) -> None:
        table = {
            Heuristic: self.heuristics,
            ExactModel: self.exact,
            Bound: self.bounds,
            Generator: self.generators,
            Construction: self.constructions,
        }[type(item)]
        if item.name in table:
            raise ValueError(f"{self.name}: {item.name!r} is registered twice")
        table[item.name] = item

    def unit(self, value: Any) -> str:
        """`value` followed by the objective's unit."""
        return f"{value} {self.objective_unit}".rstrip()
