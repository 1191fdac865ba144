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
changes no draw.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Any

import numpy as np

from resilsched.campaign.engine import Task
from resilsched.campaign.spec import CampaignSpec, InstanceSource, SpecError, library_files
from resilsched.campaign.store import canonical_json
from resilsched.campaign.tasks import Work
from resilsched.errors import InvalidInstance
from resilsched.registry import get_family


def instance_digest(instance: Any) -> str:
    """First 16 hex digits of the sha256 of the instance's canonical JSON."""
    return hashlib.sha256(canonical_json(instance.to_dict()).encode()).hexdigest()[:16]


def draw_seeds(seed: int, digest: str, index: int) -> tuple[int, int]:
    """(scenario seed, heuristic seed) of scenario `index` of the instance with `digest`."""
    state = np.random.SeedSequence([seed, int(digest, 16), index]).generate_state(2)
    return int(state[0]), int(state[1])


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


def _scenarios(spec: CampaignSpec, has_scenarios: bool, digest: str
               ) -> Iterator[tuple[float | None, int, int | None, int]]:
    """(qbar, index, scenario seed or None, heuristic seed) for one instance."""
    seed = 0 if spec.scenarios is None else spec.scenarios.seed
    if spec.scenarios is None or not has_scenarios:
        yield None, 0, None, draw_seeds(seed, digest, 0)[1]
        return
    seeds = [draw_seeds(seed, digest, k) for k in range(spec.scenarios.count)]
    for q in spec.scenarios.qbar:
        for k, (s_seed, h_seed) in enumerate(seeds):
            yield q, k, s_seed, h_seed


def plan(spec: CampaignSpec) -> list[Task]:
    """Every task of the campaign, instances outermost (see the module doc)."""
    tasks = []
    for source in spec.instances:
        fam = get_family(source.family)
        algorithms = [a for a in spec.algorithms if a.family == fam.name]
        for name, inst in load_instances(source):
            digest = instance_digest(inst)
            draws = list(_scenarios(spec, fam.sample_scenario is not None, digest))
            base = {"family": fam.name, "instance": name, "instance_sha": digest}
            for alg in algorithms:
                extra = ({} if alg.kind == "heuristic"
                         else {"time_limit": alg.time_limit, "workers": alg.workers})
                for prio in alg.priorities:
                    for params in alg.grid:
                        for q, k, s_seed, h_seed in draws:
                            fields = {**base, "algorithm": alg.name, "kind": alg.kind,
                                      "priority": prio, "params": params, "qbar": q,
                                      "scenario": k, "scenario_seed":
                                      None if s_seed is None else spec.scenarios.seed,
                                      **extra}
                            work = Work(fam.name, inst, alg.kind, alg.name, prio, params, q,
                                        s_seed, h_seed, alg.time_limit, alg.workers)
                            tasks.append(Task(fields, work))
    return tasks
