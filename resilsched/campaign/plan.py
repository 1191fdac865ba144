"""From a checked spec to the campaign's tasks: the cross product, with common random numbers.

docs/campaigns.md, "Tasks and keys". One task per (instance, algorithm, priority, parameter
combination, q-bar, scenario index). Its fields, which make its key in the store, hold everything
its row depends on:

    family, instance (name), instance_sha (sha256 of the instance's JSON, 16 hex digits),
    algorithm, kind, priority, params, qbar, scenario (index), scenario_seed
    (+ time_limit and workers for exact models)

Common random numbers: scenario k of an instance is drawn from a seed derived from
(``[scenarios].seed``, the instance's digest, k) only, so every algorithm and every q-bar value
sees the same random stream for it; the heuristic's own seed (random priorities) comes from the
same triple through a separate stream. Reordering the instances or the algorithms of a spec
changes no draw. The seeds are derived in the worker (`resilsched.campaign.tasks.Work.stream`),
so planning a million tasks takes seconds; `plan` reports its progress per instance.

Shards (``campaign run --shard I/N``, docs/campaigns.md "A SLURM job array"): task `t` belongs
to shard ``int(t.key[:16], 16) % N + 1``, a pure function of its key and N, so every machine
computes the same slices, whatever the order of the spec or the tasks; the N slices partition
the campaign.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from typing import Any

from resilsched.campaign.engine import Task
from resilsched.campaign.experiment import ExperimentSpec
from resilsched.campaign.spec import CampaignSpec, InstanceSource, SpecError, library_files
from resilsched.campaign.store import canonical_json
from resilsched.campaign.tasks import Work, attempt, draw_seeds
from resilsched.errors import InvalidInstance
from resilsched.registry import get_family, heuristic

__all__ = ["MAX_SHARDS", "check_parameters", "count_tasks", "draw_seeds", "instance_digest",
           "load_instances", "parameterised", "plan", "shard_of", "shard_slice"]


def instance_digest(instance: Any) -> str:
    """First 16 hex digits of the sha256 of the instance's canonical JSON."""
    return hashlib.sha256(canonical_json(instance.to_dict()).encode()).hexdigest()[:16]


def load_instances(source: InstanceSource) -> list[tuple[str, Any]]:
    """(name, instance) of a source: the preset's instances, or every instance of the library's
    files (a file holding several gives ``<file>-<k>`` names to the unnamed ones)."""
    from resilsched.io import read_instances

    fam = get_family(source.family)
    if source.library is None:
        made = fam.generators[source.preset].generate(source.seed, source.count)
        return [(getattr(inst, "name", "") or f"{source.preset}-{source.seed}-{k}", inst)
                for k, inst in enumerate(made)]
    out = []
    for path in library_files(source.library):
        try:
            _, insts = read_instances(path)
        except InvalidInstance as exc:
            raise SpecError(f"{path}: {exc}") from None
        for k, inst in enumerate(insts):
            default = path.stem if len(insts) == 1 else f"{path.stem}-{k}"
            out.append((getattr(inst, "name", "") or default, inst))
    return out


def _scenarios(spec: CampaignSpec, has_scenarios: bool
               ) -> list[tuple[float | None, int, bool]]:
    """(qbar, scenario index, drawn) of the tasks of one instance and setting."""
    if spec.scenarios is None or not has_scenarios:
        return [(None, 0, False)]
    return [(q, k, True) for q in spec.scenarios.qbar for k in range(spec.scenarios.count)]


def count_tasks(spec: CampaignSpec | ExperimentSpec, per_instance: bool = False) -> int:
    """How many tasks `plan` lists (preset counts known, one instance per library source
    otherwise: a lower bound), or per instance of each family when `per_instance` (0 for an
    experiment: its tasks are listed by its reproduction's code)."""
    if isinstance(spec, ExperimentSpec):
        return 0
    total = 0
    for source in spec.instances:
        fam = get_family(source.family)
        settings = sum(len(a.priorities) * len(a.grid) for a in spec.algorithms
                       if a.family == fam.name)
        instances = 1 if per_instance else (
            len(library_files(source.library)) if source.library else source.count or 1)
        total += settings * len(_scenarios(spec, fam.sample_scenario is not None)) * instances
    return total


#: tasks between two calls of `plan`'s progress callback (and one after each instance)
PROGRESS_EVERY = 10_000


def plan(spec: CampaignSpec | ExperimentSpec,
         progress: Callable[[int], None] | None = None) -> list[Task]:
    """Every task of the campaign, instances outermost (see the module doc); `progress` is
    called with the number of tasks listed so far every `PROGRESS_EVERY` tasks and after each
    instance. An experiment's tasks are its own (`ExperimentSpec.tasks`)."""
    if isinstance(spec, ExperimentSpec):
        tasks = spec.tasks()
        if progress is not None:
            progress(len(tasks))
        return tasks
    tasks = []
    seed = 0 if spec.scenarios is None else spec.scenarios.seed
    for source in spec.instances:
        fam = get_family(source.family)
        algorithms = [a for a in spec.algorithms if a.family == fam.name]
        draws = _scenarios(spec, fam.sample_scenario is not None)
        for name, inst in load_instances(source):
            digest = instance_digest(inst)
            base = {"family": fam.name, "instance": name, "instance_sha": digest}
            for alg in algorithms:
                extra = ({"time_limit": alg.time_limit} if alg.kind == "exact"
                         or alg.time_limit is not None else {})
                if alg.kind == "exact":
                    extra["workers"] = alg.workers
                for prio in alg.priorities:
                    for params in alg.grid:
                        head = {**base, "algorithm": alg.name, "kind": alg.kind,
                                "priority": prio, "params": params}
                        for q, k, drawn in draws:
                            fields = {**head, "qbar": q, "scenario": k,
                                      "scenario_seed": seed if drawn else None, **extra}
                            work = Work(fam.name, inst, alg.kind, alg.name, prio, params, q,
                                        (seed, digest, k), drawn, alg.time_limit, alg.workers)
                            tasks.append(Task(fields, work))
                            if progress is not None and len(tasks) % PROGRESS_EVERY == 0:
                                progress(len(tasks))
            if progress is not None:
                progress(len(tasks))
    return tasks


def parameterised(tasks: list[Task]) -> list[Task]:
    """The first task of each heuristic setting whose parameters differ from the defaults."""
    seen, out = set(), []
    for task in tasks:
        f = task.fields
        if not f["params"] or f["kind"] != "heuristic":
            continue  # no parameter set: the defaults
        setting = (f["family"], f["algorithm"], f["priority"], tuple(sorted(f["params"].items())))
        if setting in seen:
            continue
        seen.add(setting)
        entry = heuristic(get_family(f["family"]), f["algorithm"])  # names and references
        defaults = {p.name: p.default for p in entry.params}
        if any(defaults.get(k) != v for k, v in f["params"].items()):
            out.append(task)
    return out


def check_parameters(spec: CampaignSpec, tasks: list[Task]
                     ) -> list[tuple[Task, dict[str, Any], float]]:
    """Try the parameters of the spec on its instances before the campaign runs.

    Some rules of a heuristic's parameters depend on the instance (worksharing's ``n``: at
    most 2 x 10^7 chunk entries for W and the workers), so they can be checked only with one.
    `tasks` (the `parameterised` ones not stored yet) are run now; a refusal naming one of
    their parameters (``--param NAME``, the rules of the command line) is a `SpecError` naming
    the spec entry and the instance. Returns the (task, row, seconds) of the tasks run, to be
    stored: their wall time, measured as a worker measures a task's.
    """
    algorithms = {(a.family, a.name): a for a in spec.algorithms if a.kind == "heuristic"}
    out = []
    for task in tasks:
        f = task.fields
        t0 = time.perf_counter()
        row, refusal = attempt(task.payload)
        seconds = time.perf_counter() - t0
        if refusal is not None and getattr(refusal, "field", "").startswith("--param "):
            where = algorithms[f["family"], f["algorithm"]].where
            name = refusal.field.removeprefix("--param ").strip()
            raise SpecError(f"{spec.source}: " + str(InvalidInstance(
                f"{where}.params.{name}", f"{refusal.rule} (on instance {f['instance']})")))
        out.append((task, row, seconds))
    return out


#: most slices a campaign is cut into (``--shard I/N``)
MAX_SHARDS = 1_000_000


def shard_of(key: str, count: int) -> int:
    """The shard (1 to `count`) of the task whose key is `key`: its first 64 bits modulo
    `count`, plus one.

    >>> shard_of("00000000000000ff" + "0" * 48, 4), shard_of("f" * 64, 1)
    (4, 1)
    """
    return int(key[:16], 16) % count + 1


def shard_slice(tasks: list[Task], index: int, count: int) -> list[Task]:
    """The tasks of shard `index` of `count` (`shard_of`), in their order."""
    return [t for t in tasks if shard_of(t.key, count) == index]
