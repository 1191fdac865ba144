"""The task of a spec campaign: one algorithm on one instance and one failure scenario.

docs/campaigns.md, "Rows". `run_task` runs in the worker processes: it draws the scenario from
the seed in its payload (the same draw for every algorithm: common random numbers), computes the
family's reference bound on it, runs the heuristic or the exact model and returns one JSON row:

- ``objective``: the heuristic's or the model's objective (``objective_exact`` beside it when it
  is a non-integral fraction), in the family's unit;
- ``reference_bound``: the family's first registered bound on that instance and scenario (rigid:
  L(f), moldable: L'(J, f), co-scheduling: the area bound, worksharing: the omniscient upper
  bound), and ``ratio`` = objective / reference_bound, the normalized objective of the reports;
- ``failures``: the total number of failures of the scenario (None without scenario);
- ``another_problem`` (families with `Family.another_problem` only, e.g. malleable): why the
  run solves another problem than its case's (a fault-free baseline on an instance with
  failures, decision MA-28), else None; the report counts such a row but measures no gap or
  ratio of it. Heuristics, checked or on their fast path, get it from `run_checked`, exact
  models from the family's hook on their solution;
- exact models also give ``status`` and ``solver_bound`` (the solver's proven bound); a model
  that draws the failures from its seed as the heuristics do (``ExactModel.draws_from_seed``,
  the malleable ``yardstick``) gets the task's heuristic seed, so it reads their trace;
- a heuristic of one's own (``MODULE:FUNCTION``, an entry point, a key-function priority) is
  run through `resilsched.checked.run_checked`: its objective is recomputed from its schedule
  (None when it raised or its schedule is invalid) and ``violations`` lists what was found.

A task whose heuristic or model refuses its instance (or whose scenario cannot be drawn) raises
one of `REFUSALS` (the toolkit's refusal type, `InvalidInstance`): its row then says so,
``{"status": "refused", "reason": "<the one-line message>", "objective": null, ...}``. A refusal
is a result, stored once like any other: the campaign goes on and a resumed run does not retry
it. Any other exception is a failure of the task (the run stops, exit status 1).

The seeds of a task (its scenario's and its heuristic's) are derived in the worker from its
`Work.stream` (`draw_seeds`), so listing a million tasks does not wait for a million seed
derivations.

Nothing in a row depends on the executor, the order of completion or the wall time (kept in the
store's ``seconds`` column), so the same campaign gives the same rows everywhere. Exact models
run with ``deterministic=True`` and a fixed worker count when they accept those options.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from resilsched import registry
from resilsched.checked import another_problem, run_checked
from resilsched.errors import InvalidInstance
from resilsched.plugin import Case, Family
from resilsched.references import is_reference
from resilsched.registry import get_family
from resilsched.solution import HeuristicResult, number_fields

#: exceptions that mean "this algorithm refuses this input", stored as a refused row (a family's
#: own refusal type joins by subclassing InvalidInstance, or by being added here)
REFUSALS: tuple[type[Exception], ...] = (InvalidInstance,)
#: the longest reason stored in a refused row
MAX_REASON = 500


def draw_seeds(seed: int, digest: str, index: int) -> tuple[int, int]:
    """(scenario seed, heuristic seed) of scenario `index` of the instance with `digest`."""
    state = np.random.SeedSequence([seed, int(digest, 16), index]).generate_state(2)
    return int(state[0]), int(state[1])


@dataclass(frozen=True)
class Work:
    """The payload of a campaign task (what the worker needs; the task's fields identify it).

    `stream` is (``[scenarios].seed``, instance digest, scenario index), the source of the
    task's seeds (`draw_seeds`); `drawn` says whether a scenario is drawn at `qbar` from it
    (else the instance's own scenario: its stored one, or none).
    """

    family: str
    instance: Any
    kind: str  # "heuristic" or "exact"
    algorithm: str
    priority: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict)
    qbar: float | None = None
    stream: tuple[int, str, int] = (0, "0", 0)
    drawn: bool = False
    time_limit: float | None = None
    workers: int = 1

    @functools.cached_property
    def _seeds(self) -> tuple[int, int]:
        return draw_seeds(*self.stream)

    @property
    def scenario_seed(self) -> int | None:
        """The seed the scenario is drawn from (None: the instance's own scenario)."""
        return self._seeds[0] if self.drawn else None

    @property
    def seed(self) -> int:
        """The heuristic's seed (random priorities, random choices)."""
        return self._seeds[1]


@functools.cache
def _family(name: str) -> Family:
    return get_family(name)


def scenario_of(fam: Family, work: Work) -> Any:
    """The task's scenario: drawn at `work.qbar` from `work.scenario_seed`, or the instance's
    own (None for families without scenarios)."""
    if fam.scenario is None:
        return None
    if work.scenario_seed is None:
        return fam.scenario(work.instance, None)
    return fam.sample_scenario(work.instance, work.qbar, work.scenario_seed)


def reference_bound(fam: Family, instance: Any, scenario: Any) -> Any:
    """The family's first registered bound on (instance, scenario), or None if it has none."""
    for bound in fam.bounds.values():
        return bound.compute(instance, scenario)
    return None


def ratio(objective: Any, bound: Any) -> float | None:
    """objective / bound as a float (exact division for ints and Fractions), None if
    undefined."""
    if objective is None or bound is None or bound == 0:
        return None
    if isinstance(objective, (int, Fraction)) and isinstance(bound, (int, Fraction)):
        return float(Fraction(objective) / Fraction(bound))
    return float(objective) / float(bound)


def run_task(work: Work) -> dict[str, Any]:
    """Run one campaign task; returns its row (see the module doc)."""
    return attempt(work)[0]


def attempt(work: Work) -> tuple[dict[str, Any], Exception | None]:
    """The row of one campaign task, and the refusal (one of `REFUSALS`) it records, if any."""
    fam = _family(work.family)
    try:
        return _row(fam, work), None
    except REFUSALS as exc:
        reason = " ".join(str(exc).split())
        return {"status": "refused", "reason": reason[:MAX_REASON], "objective": None,
                "reference_bound": None, "ratio": None, "failures": None}, exc


def _row(fam: Family, work: Work) -> dict[str, Any]:
    scenario = scenario_of(fam, work)
    bound = reference_bound(fam, work.instance, scenario)
    case = Case(work.family, work.instance, scenario)
    row: dict[str, Any] = {}
    if work.kind == "heuristic":  # a registered name, or MODULE:FUNCTION imported here
        h = registry.heuristic(fam, work.algorithm)
        own = h.plugin or is_reference(work.priority)  # user code: checked, never trusted
        # a built-in heuristic runs its registered fast path: a campaign needs the objective;
        # both paths ask the family whether the run solves the case's problem (`run_checked`)
        fast = {} if own else h.fast_path
        run = run_checked(fam, h, case, work.priority,
                          seed=work.seed, params={**work.params, **fast},
                          time_limit=work.time_limit, check=own)
        objective = run.scored if own or run.result is None else run.result.objective
        other = run.another_problem
        if run.problems:
            row["violations"] = list(run.problems)
    else:
        model = fam.exact[work.algorithm]
        known = {p.name for p in model.params}
        options = dict(work.params)
        if "deterministic" in known:
            options["deterministic"] = True
        if "workers" in known:
            options["workers"] = work.workers
        if model.draws_from_seed:  # the trace the heuristics draw (common random numbers)
            options.setdefault("seed", work.seed)
        sol = model(work.instance, scenario, time_limit=work.time_limit, **options)
        objective = sol.objective
        other = another_problem(fam, case, HeuristicResult(sol.objective, work.algorithm, None,
                                                           sol.payload))
        row["status"] = sol.status.value
        row.update(number_fields("solver_bound", sol.bound))
    if fam.another_problem is not None:  # MA-28: the report counts such a row, unmeasured
        row["another_problem"] = other
    row.update(number_fields("objective", objective))
    row.update(number_fields("reference_bound", bound))
    row["ratio"] = ratio(objective, bound)
    failures = getattr(scenario, "failures", None)
    row["failures"] = None if failures is None else int(sum(failures))
    return row
