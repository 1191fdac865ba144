"""The experiments of the rigid reproduction: Figs. 4-6 on the synthetic sets and Table 1 on
Mira-like (or SWF) days (spec 002 §8-§9), and the aggregation of their per-set rows (A11)."""

from __future__ import annotations

import csv
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from resilsched.errors import InvalidInstance
from resilsched.instances.rigid.mira_like import mira_like_days
from resilsched.instances.rigid.scenarios import expected_total_failures, scenario_matrices
from resilsched.instances.rigid.swf import read_swf
from resilsched.instances.rigid.synthetic import paper_sets
from resilsched.reproduce.rigid.config import (
    FIVE,
    MIRA_QBARS,
    PRIORITIES7,
    SHELVES4,
    Config,
    log,
)
from resilsched.reproduce.rigid.tasks import file_sha256

#: ``runner(name, config, tasks, label) -> rows``: runs the tasks as campaign `name`.
Runner = Callable[[str, Mapping[str, Any], list[dict[str, Any]], str], list[dict[str, Any]]]


def aggregate(rows: list[dict[str, Any]], keys: Sequence[str]) -> dict[tuple, dict[str, float]]:
    """Mean, std and max across job sets of the per-set mean ratio (A11), plus the pooled max."""
    groups: dict[tuple, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[tuple(r[k] for k in keys)].append(r)
    out = {}
    for key, rs in groups.items():
        means = np.array([r["mean_ratio"] for r in rs])
        out[key] = {"mean": float(means.mean()), "std": float(means.std(ddof=0)),
                    "max": float(means.max()), "pooled_max": max(r["max_ratio"] for r in rs),
                    "sets": len(rs), "mean_failures": float(np.mean([r["mean_failures"]
                                                                       for r in rs]))}
    return out


def write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    if not rows:
        return
    with path.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def read_rows(path: Path) -> list[dict[str, Any]]:
    """Per-set rows written by `write_csv` (for ``--reuse``), with their numeric types."""
    types = {"qbar": float, "P": int, "set": int, "mean_ratio": float, "max_ratio": float,
             "scenarios": int, "mean_failures": float}
    with path.open(newline="") as fh:
        return [{k: types.get(k, str)(v) for k, v in r.items()} for r in csv.DictReader(fh)]


def agg_rows(agg: dict[tuple, dict[str, float]], keys: Sequence[str]) -> list[dict[str, Any]]:
    return [{**dict(zip(keys, k, strict=True)), **v} for k, v in sorted(agg.items())]


def synthetic(cfg: Config, runner: Runner) -> dict[str, Any]:
    """Figs. 4-6 on the synthetic sets (spec §9.2-9.4)."""
    sets = paper_sets(cfg.seed, cfg.sets)
    qbars = sorted(set(cfg.qbars) | ({cfg.qbar_P_sweep} if {"fig4", "fig6"} & set(cfg.only)
                                      else set()))
    mats = {q: scenario_matrices(sets, q, cfg.scenarios, [cfg.seed, int(round(q * 1000))])
            for q in qbars}
    # (heuristic, priority) -> set of (q, P) points, merged over the requested figures
    want: dict[tuple[str, str], set[tuple[float, int]]] = defaultdict(set)
    if "fig4" in cfg.only:
        for h in SHELVES4:
            want[h, "LPT"] |= {(q, cfg.P_default) for q in cfg.qbars}
            want[h, "LPT"] |= {(cfg.qbar_P_sweep, P) for P in cfg.Ps}
    if "fig5" in cfg.only:
        for h in FIVE:
            for pr in PRIORITIES7:
                want[h, pr] |= {(q, cfg.P_default) for q in cfg.qbars}
    if "fig6" in cfg.only:
        for h in FIVE:
            for pr in PRIORITIES7:
                want[h, pr] |= {(cfg.qbar_P_sweep, P) for P in cfg.Ps}
    tasks = []
    for (h, pr), points in sorted(want.items()):
        for k, inst in enumerate(sets):
            tasks.append({"instance": inst, "heuristic": h, "priority": pr, "set": k,
                          "points": [(q, P, mats[q][k]) for q, P in sorted(points)]})
    # expensive tasks first, for a better load balance
    tasks.sort(key=lambda t: -sum(m.sum() + m.shape[0] for _, _, m in t["points"]))
    log(f"[synthetic] {len(sets)} sets x {cfg.scenarios} scenarios, {len(want)} "
        f"(heuristic, priority) pairs, {len(tasks)} tasks")
    config = {"seed": cfg.seed, "scenarios": cfg.scenarios}  # set k does not depend on cfg.sets
    rows = (read_rows(cfg.reuse / "synthetic_per_set.csv") if cfg.reuse
            else runner("rigid-synthetic", config, tasks, "synthetic"))
    agg = aggregate(rows, ("heuristic", "priority", "qbar", "P"))
    expected = {q: float(np.mean([expected_total_failures(x, q) for x in sets])) for q in qbars}
    return {"rows": rows, "agg": agg, "expected_failures": expected}


def table1(cfg: Config, runner: Runner) -> dict[str, Any]:
    """The five heuristics with LPT on Mira-like days (or SWF days), q-bar in {0, 0.05, 0.1}."""
    # day k depends neither on cfg.mira_days nor on the days after it
    config: dict[str, Any] = {"seed": cfg.seed, "scenarios": cfg.mira_scenarios}
    if cfg.swf:
        days = read_swf(cfg.swf, P=cfg.swf_P, cores_per_node=cfg.cores_per_node)
        days = days[: cfg.mira_days]
        if not days:
            raise InvalidInstance("--swf", f"{cfg.swf} holds no day with jobs")
        source = f"SWF {cfg.swf} (first {len(days)} days, cores/node {cfg.cores_per_node})"
        config |= {"swf_sha256": file_sha256(cfg.swf), "cores_per_node": cfg.cores_per_node,
                   "swf_P": cfg.swf_P}
    else:
        days = mira_like_days(cfg.mira_seed, cfg.mira_days)
        source = f"Mira-like stand-in, seed {cfg.mira_seed}, {len(days)} days"
        config |= {"mira_seed": cfg.mira_seed}
    mats = {q: scenario_matrices(days, q, cfg.mira_scenarios, [cfg.seed, 7, int(round(q * 1000))])
            for q in MIRA_QBARS}
    tasks = [{"instance": d, "heuristic": h, "priority": "LPT", "set": k,
              "points": [(q, d.P, mats[q][k]) for q in MIRA_QBARS]}
             for h in FIVE for k, d in enumerate(days)]
    tasks.sort(key=lambda t: -sum(m.sum() + m.shape[0] for _, _, m in t["points"]))
    log(f"[table1] {source}: {len(days)} days x {cfg.mira_scenarios} scenarios, "
        f"{len(tasks)} tasks")
    rows = (read_rows(cfg.reuse / "table1_per_day.csv") if cfg.reuse
            else runner("rigid-table1", config, tasks, "table1"))
    agg = aggregate(rows, ("heuristic", "qbar"))
    failures = {q: float(np.mean([m.sum(axis=1).mean() for m in mats[q]])) for q in MIRA_QBARS}
    expected = {q: float(np.mean([expected_total_failures(d, q) for d in days]))
                for q in MIRA_QBARS}
    return {"rows": rows, "agg": agg, "failures": failures, "expected": expected,
            "source": source, "jobs_per_day": float(np.mean([d.n for d in days]))}
