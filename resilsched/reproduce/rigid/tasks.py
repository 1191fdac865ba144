"""The simulation tasks of the rigid reproduction, run as resumable campaigns (spec 002 §8.3).

One task is (job set, heuristic, priority) over a list of (q-bar, P, scenario matrix) points;
`run_tasks` runs a list of them as the experiment ``name`` (`CAMPAIGNS`:
``rigid-synthetic``, ``rigid-table1``) of the result store (`resilsched.campaign.experiment`).
The heuristics are looked up by name in the registry.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from resilsched.bounds.rigid import lower_bounds
from resilsched.campaign import Task
from resilsched.campaign.experiment import Experiment, ExperimentRunner
from resilsched.heuristics.rigid.many import makespans as simulate_many
from resilsched.instances.rigid import RigidInstance
from resilsched.registry import get_family
from resilsched.registry import heuristic as get_heuristic
from resilsched.reproduce.rigid.config import Config, params_of_label, unlabel

#: the experiments; the task function is the package's `run_task` (by name), the spec form's
#: task lists and configurations those of `experiments.synthetic` and `experiments.table1`
CAMPAIGNS = {e.name: e for e in (
    Experiment("rigid-synthetic", "resilsched.reproduce.rigid:run_task",
               "rigid jobs: Figs. 4-6 on the synthetic sets (spec 002 §9.2-9.4)",
               plan="resilsched.reproduce.rigid:synthetic_tasks",
               options="resilsched.reproduce.rigid:parse_args",
               arguments=("sets", "scenarios", "qbars", "Ps", "full", "seed", "only",
                          "reservations"),
               configure="resilsched.reproduce.rigid.experiments:synthetic_config"),
    Experiment("rigid-table1", "resilsched.reproduce.rigid:run_task",
               "rigid jobs: Table 1 and Figs. 7-8 on Mira-like or SWF days",
               plan="resilsched.reproduce.rigid:table1_tasks",
               options="resilsched.reproduce.rigid:parse_args",
               arguments=("full", "seed", "mira_days", "mira_scenarios", "mira_seed", "swf",
                          "cores_per_node", "swf_P", "only", "reservations"),
               configure="resilsched.reproduce.rigid.experiments:table1_config"))}


def random_seed(set_index: int, scenario_index: int) -> int:
    """Seed of the Random priority for (job set, scenario) (A6)."""
    return 1_000_003 * set_index + scenario_index


def run_task(task: dict[str, Any]) -> list[dict[str, Any]]:
    """One (job set, heuristic, priority) over a list of (q-bar, P) points.

    Returns one row per point: the mean and max over scenarios of T/L(f), and the mean number
    of failures. With q-bar = 0 and a deterministic priority every scenario is the same, so a
    single simulation stands for all of them. The makespans come from the heuristic's fast path
    (``record=False``), all the scenarios of a point in one call of the compiled core when it is
    available (`resilsched.heuristics.rigid.many.makespans` with the heuristic's batch engine,
    the ``batch`` of its registry entry; the same values). A label
    ``R-LIST-1/fixed`` runs R-LIST-1 with ``reservations="fixed"`` (`config.label`), in the
    core too (``rigid_fixed.c``); ``R-SHELFFILL-B/any-queued`` runs R-SHELFFILL-B with
    ``fill="any-queued"`` (`config.params_of_label`).
    """
    inst: RigidInstance = task["instance"]
    h, prio, k = task["heuristic"], task["priority"], task["set"]
    base, _ = unlabel(h)
    params = params_of_label(h)
    batch = get_heuristic(get_family("rigid"), base).batch
    rows = []
    for q, P, matrix in task["points"]:
        inst_P = inst if P == inst.P else RigidInstance(P, inst.jobs, inst.name)
        mat = matrix
        if prio != "Random" and not mat.any():
            mat = mat[:1]
        seeds = [random_seed(k, s) for s in range(mat.shape[0])]
        makespans = simulate_many(batch, inst_P, mat, prio, seeds=seeds, **params)
        ratios = [float(T) / L for T, L in zip(makespans, lower_bounds(inst_P, mat),
                                               strict=True)]
        rows.append({"heuristic": h, "priority": prio, "qbar": q, "P": P, "set": k,
                     "mean_ratio": float(np.mean(ratios)), "max_ratio": float(np.max(ratios)),
                     "scenarios": int(matrix.shape[0]),
                     "mean_failures": float(matrix.sum(axis=1).mean())})
    return rows


def run_tasks(cfg: Config, name: str, config: Mapping[str, Any], tasks: list[dict[str, Any]],
              label: str) -> list[dict[str, Any]]:
    """Run `tasks` as the experiment `name` in ``cfg.store_path`` (resumable); rows in task
    order.

    A task's key is its (heuristic, priority, set, (q-bar, P) points); `config` holds what
    else determines its rows (seeds, scenario count, instance source). Pool of ``cfg.jobs``
    processes, inline with ``jobs <= 1``, or Dask with ``cfg.dask``; progress on stderr.
    """
    camp = campaign_tasks(tasks)
    with ExperimentRunner(cfg.store_path, jobs=cfg.jobs, dask=cfg.dask,
                          fresh=[name] if cfg.fresh else []) as runner:
        per_task = runner.run(CAMPAIGNS[name], camp, config=config, label=label)
    return [row for rows in per_task for row in rows]


def campaign_tasks(tasks: list[dict[str, Any]]) -> list[Task]:
    """The campaign's tasks: each keyed by its (heuristic, priority, set, (q-bar, P) points)."""
    return [Task({"heuristic": t["heuristic"], "priority": t["priority"], "set": t["set"],
                  "points": [(q, P) for q, P, _ in t["points"]]}, t) for t in tasks]


def file_sha256(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()
