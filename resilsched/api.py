"""The Python front door: ``import resilsched`` (README, "In Python").

Six functions, each going through the registry (so a built-in heuristic, an entry-point plug-in
and a ``MODULE:FUNCTION`` reference are used alike) and returning a typed result:

- `load(path, index=0)`: an instance of any family from a file;
- `scenario(instance, failures=None, qbar=None, seed=0)`: a checked failure scenario (the
  instance's stored one by default), or one drawn at q-bar;
- `simulate(instance, heuristic, scenario=None, priority=None, seed=0, **params)`: a
  `HeuristicResult` (``objective``, ``bound`` None, ``status`` feasible, ``schedule``,
  ``to_dict()``); a plug-in's result is checked first (`resilsched.checked`);
- `solve(instance, method=None, scenario=None, time_limit=60, **options)`: a `Solution`
  (``objective``, ``bound``, ``status``, ``schedule``, ``to_dict()``), the same call as
  ``resilsched solve`` (`solve_with`);
- `bounds(instance, scenario=None)`: the family's bounds, `Bounds` (``bound`` the tightest);
- `gap(heuristics=None, library=None, instances=None, family=None, time_limit=10)`: the
  `resilsched.gap.GapReport` of ``resilsched gap``.

The results carry the registered names (``heuristic``, ``method``), stamped by the registry.
Everything is imported on first use: ``import resilsched`` loads no solver.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from resilsched.deadline import Deadline, check_time_limit
from resilsched.errors import InvalidInstance, InvalidOption, InvalidSchedule, show
from resilsched.numeric import strict_int
from resilsched.params import check_params, check_seed
from resilsched.plugin import Case, ExactModel, Family
from resilsched.references import is_reference, reference_of
from resilsched.registry import UnknownName, family_of, get_family
from resilsched.registry import heuristic as heuristic_of
from resilsched.registry import priority as priority_of
from resilsched.solution import HeuristicResult, Solution, computed_on, number_fields

#: seconds per exact solve (and per heuristic run) of `gap` when no time limit is given
GAP_TIME_LIMIT = 10.0


def load(path: str | Path, index: int = 0, **reader_options: Any) -> Any:
    """The instance number `index` of a file (JSON of any family, or a trace such as .swf).

    `reader_options` go to the reader of a trace file (``.swf``: ``P``, ``cores_per_node``,
    ``statuses``, ...); a JSON file takes none (but ``family``, its family when it names
    none). A bad path, index or option is refused before the file is read.

    >>> import resilsched
    >>> resilsched.load("examples/rigid-small.json").P
    4
    """
    from resilsched.io import read_instances

    if not isinstance(path, (str, os.PathLike)):
        raise InvalidOption("path", f"{show(path)} must be a file path (str or os.PathLike)")
    index = strict_int(index, "index", error=InvalidOption)
    _, instances = read_instances(path, **reader_options)
    if index >= len(instances):
        raise InvalidInstance("index", f"{index!r} is out of range: {path} holds "
                                       f"{len(instances)} instance(s)")
    return instances[index]


def scenario(instance: Any, failures: Any = None, qbar: float | None = None,
             seed: int = 0) -> Any:
    """The scenario of `instance`: `failures` checked by its family (a list of failure counts
    for rigid and moldable jobs, a failure trace for malleable applications, a disturbance for
    desktop grids; None: the instance's stored one), or one drawn at `qbar` from `seed` (an
    integer in [0, 2^63 - 1]). None for the families without scenarios."""
    fam = family_of(instance)
    return scenario_of(fam, instance, failures, qbar, check_seed(seed),
                       fields=("failures", "qbar"))


def scenario_of(fam: Family, instance: Any, failures: Any = None, qbar: float | None = None,
                seed: int = 0, *, fields: Sequence[str] = ("--failures", "--qbar")) -> Any:
    """`scenario` for a known family (the command line's ``--failures`` / ``--qbar``, the
    names its errors give; `fields` the caller's names for them)."""
    if fam.scenario is None:
        if failures is not None or qbar is not None:
            raise InvalidInstance("/".join(fields), f"family {fam.name!r} has no failure "
                                                    "scenarios")
        return None
    if failures is not None and qbar is not None:
        raise InvalidInstance(" and ".join(fields), "are exclusive: give the scenario or "
                                                    "how to draw it")
    if qbar is not None:
        return fam.sample_scenario(instance, qbar, seed)
    return fam.scenario(instance, failures)


def simulate(instance: Any, heuristic: str | Callable[..., Any], scenario: Any = None,
             priority: Any = None, seed: int = 0, *, time_limit: float | None = None,
             **params: Any) -> HeuristicResult:
    """Run one heuristic: a registered name, a ``MODULE:FUNCTION`` reference or a function
    with the heuristic signature; `priority` a rule name or, for the list families, a key
    function ``key(instance, j)`` (or its reference), smallest first.

    A plug-in's result is checked (`resilsched.checked`): an infeasible schedule raises
    `InvalidSchedule`, an objective its schedule disagrees with is replaced by the recomputed
    one with a warning, an exception of the plug-in propagates.
    """
    fam = family_of(instance)
    h = heuristic_of(fam, heuristic, "heuristic")
    priority_of(h, priority, "priority")  # a bad rule or key is refused before anything runs
    seed = check_seed(seed)
    params = check_params(h.params, params, h.name)
    limit = check_time_limit(time_limit)
    sc = scenario_of(fam, instance, scenario, fields=("scenario",))
    run = simulate_with(fam, h, instance, sc, priority, seed, params, limit)
    if run.error is not None:
        raise run.error
    if not run.valid:
        raise InvalidSchedule("; ".join(run.problems))
    for problem in run.problems:
        warnings.warn(problem, stacklevel=2)
    return computed_on(run.result, instance, sc)


def simulate_with(fam: Family, h: Any, instance: Any, sc: Any, priority: Any, seed: int,
                  params: Mapping[str, Any], time_limit: float | None):
    """The one simulation of `simulate` and ``resilsched simulate``: plug-ins (and built-in
    heuristics given a key function of one's own) through the checks of
    `resilsched.checked`, built-in heuristics trusted (their exceptions propagate). Returns
    the `resilsched.checked.Checked` run."""
    from resilsched.checked import run_checked

    own = h.plugin or callable(priority) or is_reference(priority)
    return run_checked(fam, h, Case("simulate", instance, sc), priority, seed=seed,
                       params=params, time_limit=time_limit, check=own)


def solve(instance: Any, method: str | None = None, scenario: Any = None,
          time_limit: float | None = 60, **options: Any) -> Solution:
    """The toolkit's tightest certified interval within `time_limit` seconds: without
    `method`, the best checked schedule of every heuristic, construction and the exact model
    the family picks for the instance's size, and the best valid bound (`resilsched.portfolio`,
    decision T19); with `method`, that exact model alone. `status` is ``optimal`` only with a
    proof, `bound` is always valid, ``objective_source``/``bound_source`` name where each came
    from.

    The same call as ``resilsched solve`` (`solve_with`): `method`, `time_limit`, `options`
    and `scenario` are checked before any phase runs; a model that averages over the failure
    model (``online-optimal``, option ``qbar``) takes no scenario. ``progress=`` a function of
    one message is told each phase, as ``resilsched solve`` prints them."""
    from resilsched.portfolio import pick_model

    fam = family_of(instance)
    model = pick_model(fam, instance, method, "method")
    limit = check_time_limit(time_limit, "time_limit")
    model.check_options(limit, options)
    if model.averages_over_failures:  # as ``resilsched solve``
        if scenario is not None:
            raise InvalidInstance("scenario", f"{model.name} averages over the failure model "
                                              "(its option qbar or the instance's own), it "
                                              "takes no scenario")
        sc = None
    else:
        sc = scenario_of(fam, instance, scenario, fields=("scenario",))
    deadline = Deadline(limit)
    options = dict(options)
    progress = options.pop("progress", None)  # the phases' messages, not a model option
    return computed_on(solve_with(fam, instance, sc, model, deadline, options, progress,
                                  portfolio=method is None), instance, sc)


def solve_with(fam: Family, instance: Any, sc: Any, model: ExactModel, deadline: Deadline,
               options: Mapping[str, Any], progress: Callable[[str], None] | None = None, *,
               portfolio: bool) -> Solution:
    """The one solve of `solve` and ``resilsched solve``: with `portfolio`, `certified_solve`
    around `model`; without, `model` alone (its result stamped with its name by the registry,
    both sources naming it). Every phase ends by `deadline`."""
    import dataclasses

    from resilsched.portfolio import certified_solve

    if portfolio:
        return certified_solve(fam, instance, sc, method=model.name, deadline=deadline,
                               options=dict(options), progress=progress)
    sol = model(instance, sc, time_limit=max(deadline.remaining(), 0.01), progress=progress,
                **options)
    return dataclasses.replace(
        sol, objective_source=None if sol.objective is None else model.name,
        bound_source=None if sol.bound is None else model.name)


@dataclass(frozen=True)
class Bounds:
    """The family's bounds on one instance and scenario: `values` by bound name, `bound` the
    tightest (the largest lower bound when minimising, the smallest upper bound when
    maximising). Bounds build no schedule and prove no optimum: `objective`, `status` and
    `schedule` are None."""

    family: str
    sense: str
    values: dict[str, Any]

    objective = None
    status = None
    schedule = None

    @property
    def bound(self) -> Any:
        known = [v for v in self.values.values() if v is not None]
        if not known:
            return None
        return max(known) if self.sense == "min" else min(known)

    def to_dict(self) -> dict[str, Any]:
        return {**number_fields("bound", self.bound), "family": self.family,
                "bounds": {name: number_fields("value", v)["value"]
                           for name, v in self.values.items()}}


def bounds(instance: Any, scenario: Any = None) -> Bounds:
    """Every bound the instance's family registers, on `scenario` (default: the stored one)."""
    fam = family_of(instance)
    sc = scenario_of(fam, instance, scenario, fields=("scenario",))
    return Bounds(fam.name, fam.sense, {name: b.compute(instance, sc)
                                        for name, b in fam.bounds.items()})


class GapNames(NamedTuple):
    """What the errors of `gap` call its arguments: the function's parameters by default,
    the command line's flags for ``resilsched gap`` (`GAP_FLAGS`)."""

    heuristics: str = "heuristics"
    library: str = "library"
    family: str = "family"


#: the names ``resilsched gap`` gives `gap_named`
GAP_FLAGS = GapNames("--heuristic", "--library", "--family")


def selection(heuristics: Iterable[Any] | None, families: Sequence[Family],
              names: GapNames) -> dict[str, list[str]] | None:
    """family name -> the heuristics to score (registered names, ``MODULE:FUNCTION``
    references), each checked now; None (every heuristic) when `heuristics` is None. Errors
    call the arguments by `names`.

    A registered name is looked up in every family of `families`; a reference says no family,
    so `families` must then be one (`family`, or the family of the `library`)."""
    if heuristics is None:
        return None
    field = names.heuristics
    out: dict[str, list[str]] = {}
    for name in heuristics:
        if callable(name):
            ref = reference_of(name)
            if ref is None:
                raise InvalidInstance(f"{field} {getattr(name, '__name__', name)!r}",
                                      "cannot be imported back by worker processes: define "
                                      "it in a module and give MODULE:FUNCTION")
            name = ref
        if is_reference(name):
            if len(families) != 1:
                raise InvalidInstance(f"{field} {name}", "a MODULE:FUNCTION reference does "
                                      f"not say its family: give {names.family} (one of "
                                      f"{', '.join(f.name for f in families)})")
            found = [(families[0], heuristic_of(families[0], name, field))]
        else:
            found = [(fam, fam.heuristics[k]) for fam in families for k in fam.heuristics
                     if isinstance(name, str) and k.lower() == name.lower()]
            if not found:
                known = sorted({k for fam in families for k in fam.heuristics})
                raise UnknownName(f"{field}={name!r} is unknown (choose from "
                                  f"{', '.join(known)}, or give MODULE:FUNCTION)")
        for fam, h in found:
            if h.name not in out.setdefault(fam.name, []):
                out[fam.name].append(h.name)
    return out


def gap(heuristics: Iterable[Any] | None = None, library: str | Sequence[str] | None = None,
        instances: Iterable[Any] | None = None, family: str | None = None,
        time_limit: float | None = None, jobs: int | None = 1, store: str | None = None, *,
        dask: Any = None, resolve: bool = False, progress: bool = False):
    """The gap report (`resilsched.gap.GapReport`, ``to_dict()`` is ``resilsched gap --json``).

    Cases: the stored certificates of `library` (shipped names or folders, on the campaign
    engine with `jobs` processes or the `dask` scheduler, resumable in `store`, re-solved
    with `resolve`), or `instances` (objects or files, solved now), else the smoke suites;
    `heuristics` names what to score (default: every registered heuristic), `family`
    restricts the families. `time_limit` (default 10 s) bounds each exact solve and each
    heuristic run. `progress` draws a progress bar on standard error.

    `heuristics`, `library` (but a single name) and `instances` are lists, never empty; each
    argument is checked before any case runs.
    """
    return gap_named(GapNames(), heuristics, library, instances, family, time_limit, jobs,
                     store, dask=dask, resolve=resolve, progress=progress)


def gap_named(names: GapNames, heuristics: Iterable[Any] | None,
              library: str | Sequence[str] | None, instances: Iterable[Any] | None,
              family: str | None, time_limit: float | None, jobs: int | None,
              store: str | None, *, dask: Any, resolve: bool, progress: bool):
    """`gap`, its errors calling the arguments by `names` (``resilsched gap``: its flags)."""
    from resilsched.gap import run_gap
    from resilsched.progress import ProgressBar

    limit = check_time_limit(GAP_TIME_LIMIT if time_limit is None else time_limit,
                             "time_limit")
    heuristics = _listed(heuristics, "heuristics", "heuristic names (or functions)",
                         "every registered heuristic")
    instances = _listed(instances, "instances", "instances (or their files)",
                        "the smoke suites")
    if not isinstance(progress, bool):
        raise InvalidOption("progress", f"{show(progress)} must be True or False")
    if library is None:
        for name, value in (("store", store), ("dask", dask), ("resolve", resolve or None)):
            if value is not None:  # it would be ignored: only a library's run is a campaign
                raise InvalidOption(name, f"{show(value)} applies to a library's run only "
                                          "(give library=)")
    else:
        if instances is not None:
            raise InvalidInstance("library and instances", "are exclusive")
        libs = [library] if isinstance(library, str) else _listed(
            library, "library", "library names or folders")
        for lib in libs:
            if not isinstance(lib, str):
                raise InvalidOption("library", f"{show(lib)} must be a library name or folder")
        if jobs is not None:
            jobs = strict_int(jobs, "jobs", 1, error=InvalidOption)
        return library_gap(libs, heuristics, family, time_limit, jobs=jobs, dask=dask,
                           store=store, resolve=resolve, progress=progress, names=names)
    cases: dict[str, list[Case]] = {}
    for k, item in enumerate(instances or ()):
        inst = load(item) if isinstance(item, (str, Path)) else item
        fam = family_of(inst)
        cases.setdefault(fam.name, []).append(
            Case(getattr(inst, "name", "") or f"instance-{k}", inst, scenario_of(fam, inst)))
    wanted = [family] if family is not None else (list(cases) or None)
    fams = _families(wanted, names.family)
    if cases and family not in (None, *cases):
        raise InvalidOption(names.family, f"{family!r} is none of the families of the "
                                          f"instances ({', '.join(cases)})")
    chosen = selection(heuristics, fams, names)
    if chosen is not None:
        fams = [f for f in fams if f.name in chosen]
    return run_gap(fams, limit, cases=cases or None, heuristics=chosen,
                   progress=ProgressBar("gap") if progress else None)


def _listed(value: Any, field: str, what: str, default: str = "") -> list[Any] | None:
    """`value` as a list (None stays None): an iterable holding at least one item, not a
    string, a path or a mapping (which would be taken apart); `InvalidOption` naming `field`
    otherwise (`default` says what None gives)."""
    if value is None:
        return None
    if isinstance(value, (str, bytes, os.PathLike, Mapping)) or not isinstance(value, Iterable):
        raise InvalidOption(field, f"{show(value)} must be a list of {what}")
    items = list(value)
    if not items:
        raise InvalidOption(field, f"[] is empty (give None for {default})" if default
                            else "[] is empty")
    return items


def _families(names: Sequence[str] | None, field: str = "family") -> list[Family]:
    from resilsched.registry import available_families

    return [get_family(n, field) for n in (names or available_families())]


def library_gap(what: Sequence[str], heuristics: Iterable[Any] | None, family: str | None,
                time_limit: float | None, *, jobs: int | None = None, dask: Any = None,
                store: str | None = None, resolve: bool = False, progress: bool = False,
                names: GapNames):
    """`gap` on libraries (``resilsched gap --library``): the libraries named (filtered by
    `family`), the heuristics selected among their families', scored on the campaign
    engine. `time_limit` bounds each heuristic run (default `GAP_TIME_LIMIT`) and, with
    `resolve`, each re-solve (default: the stored limits); errors name the arguments by
    `names`."""
    from resilsched.campaign import ResultStore
    from resilsched.library.catalog import find
    from resilsched.library.gap import run_library_gap

    libs = list({str(lib.path): lib for name in what
                 for lib in find(name, names.library)}.values())
    if family is not None:
        libs = [lib for lib in libs if lib.family == family]
        if not libs:
            raise InvalidInstance(names.family, f"{family!r}: no library of that family in "
                                              f"{', '.join(what)}")
    chosen = selection(heuristics, _families(list(dict.fromkeys(lib.family for lib in libs))),
                       names)
    if chosen is not None:
        libs = [lib for lib in libs if lib.family in chosen]
    limit = check_time_limit(time_limit)  # checked by the caller, naming it
    results = ResultStore(store or ":memory:")
    try:
        return run_library_gap(libs, store=results, jobs=jobs, dask=dask, resolve=resolve,
                               time_limit=limit, progress=progress, heuristics=chosen,
                               heuristic_time_limit=GAP_TIME_LIMIT if limit is None else limit)
    finally:
        results.close()
