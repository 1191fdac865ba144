"""The experiments of the rigid reproduction: Figs. 4-6 on the synthetic sets, Table 1 and
Figs. 7-8 on Mira-like (or SWF) days (spec 002 §8-§9), and the aggregation of their per-set rows
(A11).

R-LIST-1/Q run once per reservation mode of ``cfg.reservations`` (A3), labelled by
`config.label`. On the Mira days a (day, q-bar) whose calibrated failure probabilities ask for
more expected attempts than the scenario sampler's cap (`instances.failures.MAX_ATTEMPTS`) is
left out and reported, and one whose largest job alone expects a chain of attempts longer than
`config.DOMINANCE` times the day's failure-free L is flagged: there every ratio tends to 1 by
construction (issue 14)."""

from __future__ import annotations

import csv
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from resilsched.bounds.rigid import lower_bound
from resilsched.errors import InvalidInstance
from resilsched.instances.failures import MAX_ATTEMPTS, check_expected_attempts
from resilsched.instances.rigid import RigidInstance
from resilsched.instances.rigid.mira_like import mira_like_days
from resilsched.instances.rigid.scenarios import (
    expected_total_failures,
    scenario_matrices,
    scenario_matrix,
)
from resilsched.instances.rigid.swf import read_swf
from resilsched.instances.rigid.synthetic import paper_sets
from resilsched.reproduce.rigid.config import (
    DOMINANCE,
    FILLING,
    FIVE,
    LOOSE_FILL,
    MIRA_QBARS,
    PRIORITIES7,
    SHELVES4,
    Config,
    label,
    log,
)
from resilsched.reproduce.rigid.tasks import file_sha256

#: ``runner(name, config, tasks, label) -> rows``: runs the tasks as campaign `name`.
Runner = Callable[[str, Mapping[str, Any], list[dict[str, Any]], str], list[dict[str, Any]]]


def aggregate(rows: list[dict[str, Any]], keys: Sequence[str]) -> dict[tuple, dict[str, float]]:
    """Mean, std and max across job sets of the per-set mean ratio (A11), plus the pooled max;
    ``per_set`` keeps each set's mean (set index -> value) for the noise estimates of the
    claims (not written to the CSV)."""
    groups: dict[tuple, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[tuple(r[k] for k in keys)].append(r)
    out = {}
    for key, rs in groups.items():
        means = np.array([r["mean_ratio"] for r in rs])
        out[key] = {"mean": float(means.mean()), "std": float(means.std(ddof=0)),
                    "max": float(means.max()), "pooled_max": max(r["max_ratio"] for r in rs),
                    "sets": len(rs), "mean_failures": float(np.mean([r["mean_failures"]
                                                                       for r in rs])),
                    "per_set": {int(r["set"]): float(r["mean_ratio"]) for r in rs}}
    return out


def labelled(cfg: Config, heuristics: Sequence[str]) -> list[str]:
    """`heuristics` with R-LIST-1/Q once per reservation mode of ``cfg.reservations``."""
    out: list[str] = []
    for h in heuristics:
        for mode in cfg.reservations:
            if label(h, mode) not in out:
                out.append(label(h, mode))
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


def agg_rows(agg: dict[tuple, dict[str, Any]], keys: Sequence[str]) -> list[dict[str, Any]]:
    return [{**dict(zip(keys, k, strict=True)), **{a: b for a, b in v.items() if a != "per_set"}}
            for k, v in sorted(agg.items())]


#: the experiments `synthetic` runs
SYNTHETIC = ("fig4", "fig5", "fig6", "fill-rule")


def synthetic_plan(cfg: Config) -> dict[str, Any]:
    """What `synthetic` runs: the ``sets``, ``qbars``, the ``tasks`` (expensive first) and the
    campaign's ``config``."""
    sets = paper_sets(cfg.seed, cfg.sets)
    sweep = {"fig4", "fig6", "fill-rule"} & set(cfg.only)
    qbars = sorted(set(cfg.qbars) | ({cfg.qbar_P_sweep} if sweep else set()))
    mats = {q: scenario_matrices(sets, q, cfg.scenarios, [cfg.seed, int(round(q * 1000))])
            for q in qbars}
    # (heuristic, priority) -> set of (q, P) points, merged over the requested figures
    want: dict[tuple[str, str], set[tuple[float, int]]] = defaultdict(set)
    if "fig4" in cfg.only:
        for h in SHELVES4:
            want[h, "LPT"] |= {(q, cfg.P_default) for q in cfg.qbars}
            want[h, "LPT"] |= {(cfg.qbar_P_sweep, P) for P in cfg.Ps}
    if "fill-rule" in cfg.only:
        for h in (*SHELVES4, *(f"{h}/{LOOSE_FILL}" for h in FILLING)):
            want[h, "LPT"] |= {(cfg.qbar_P_sweep, P) for P in cfg.Ps}
    if "fig5" in cfg.only:
        for h in labelled(cfg, FIVE):
            for pr in PRIORITIES7:
                want[h, pr] |= {(q, cfg.P_default) for q in cfg.qbars}
    if "fig6" in cfg.only:
        for h in labelled(cfg, FIVE):
            for pr in PRIORITIES7:
                want[h, pr] |= {(cfg.qbar_P_sweep, P) for P in cfg.Ps}
    tasks = []
    for (h, pr), points in sorted(want.items()):
        for k, inst in enumerate(sets):
            tasks.append({"instance": inst, "heuristic": h, "priority": pr, "set": k,
                          "points": [(q, P, mats[q][k]) for q, P in sorted(points)]})
    # expensive tasks first, for a better load balance
    tasks.sort(key=lambda t: -sum(m.sum() + m.shape[0] for _, _, m in t["points"]))
    return {"sets": sets, "qbars": qbars, "pairs": len(want), "tasks": tasks,
            "config": synthetic_config(cfg)}


def synthetic_config(cfg: Config) -> dict[str, Any]:
    """The configuration of ``rigid-synthetic`` (set k does not depend on ``cfg.sets``)."""
    return {"seed": cfg.seed, "scenarios": cfg.scenarios}


def synthetic(cfg: Config, runner: Runner) -> dict[str, Any]:
    """Figs. 4-6 on the synthetic sets (spec §9.2-9.4), and Fig. 4(b) under both refill rules
    of R-SHELFFILL (``fill-rule``, R32)."""
    p = synthetic_plan(cfg)
    sets, qbars, tasks = p["sets"], p["qbars"], p["tasks"]
    log(f"[synthetic] {len(sets)} sets x {cfg.scenarios} scenarios, {p['pairs']} "
        f"(heuristic, priority) pairs, {len(tasks)} tasks")
    rows = (read_rows(cfg.reuse / "synthetic_per_set.csv") if cfg.reuse
            else runner("rigid-synthetic", p["config"], tasks, "synthetic"))
    agg = aggregate(rows, ("heuristic", "priority", "qbar", "P"))
    expected = {q: float(np.mean([expected_total_failures(x, q) for x in sets])) for q in qbars}
    return {"rows": rows, "agg": agg, "expected_failures": expected}


def degenerate_days(days: Sequence[RigidInstance], qbars: Sequence[float]
                    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The (day, q-bar) pairs left out, and those flagged as dominated by one job.

    Left out: the scenario sampler's check (`check_expected_attempts`) refuses the day's
    calibrated q_j because the expected attempts exceed `MAX_ATTEMPTS`; its one-line reason
    names the job. Flagged: the largest expected chain t_j / (1 - q_j) of one job exceeds
    `DOMINANCE` times the day's failure-free L, so T/L(f) is close to 1 whatever the heuristic.
    """
    skipped, dominated = [], []
    for k, d in enumerate(days):
        base = float(lower_bound(d, [0] * d.n))
        for q in qbars:
            if q == 0:
                continue
            qj = d.q(q)
            try:
                check_expected_attempts(qj, MAX_ATTEMPTS)
            except InvalidInstance as e:
                with np.errstate(divide="ignore"):
                    attempts = 1.0 / (1.0 - np.asarray(qj, dtype=float))
                skipped.append({"day": k, "name": d.name or f"day {k}", "qbar": q,
                                "reason": str(e), "job": int(np.argmax(attempts)),
                                "one_minus_q": float(1.0 - max(qj)),
                                "attempts": float(attempts.sum())})
                continue
            chain = np.array([float(t) for t in d.t]) / (1.0 - np.asarray(qj, dtype=float))
            j = int(np.argmax(chain))
            if chain[j] > DOMINANCE * base:
                dominated.append({"day": k, "name": d.name or f"day {k}", "qbar": q, "job": j,
                                  "chain_over_L": float(chain[j] / base)})
    return skipped, dominated


def degenerate_warning(skipped: list[dict[str, Any]], dominated: list[dict[str, Any]],
                       days: int) -> str | None:
    """One line saying, per q-bar, how many days `degenerate_days` left out or flagged, with
    the worst case of each kind (None when no day is degenerate)."""
    parts = []
    for q in MIRA_QBARS:
        out = [s for s in skipped if s["qbar"] == q]
        dom = [s for s in dominated if s["qbar"] == q]
        if not out and not dom:
            continue
        text = []
        if out:
            worst = max(out, key=lambda s: s["attempts"])
            text.append(f"{len(out)}/{days} days left out (up to {worst['attempts']:.3g} "
                        f"expected attempts: {worst['name']}, job {worst['job']}, q_j = 1 - "
                        f"{worst['one_minus_q']:.2g})")
        if dom:
            worst = max(dom, key=lambda s: s["chain_over_L"])
            text.append(f"{len(dom)}/{days} days dominated by one job (up to "
                        f"{worst['chain_over_L']:.3g} x L, {worst['name']})")
        parts.append(f"q-bar {q}: " + ", ".join(text))
    if not parts:
        return None
    return ("warning: degenerate calibrated failure probabilities (q_j near 1: ratios tend to 1 "
            "whatever the heuristic; details in summary.md): " + "; ".join(parts))


def table1_plan(cfg: Config) -> dict[str, Any]:
    """What `table1` runs: the ``days`` and their ``source``, the degenerate pairs left out
    (``skipped``, ``dominated``, ``warning``), the scenario matrices ``mats`` (None where left
    out), the ``priorities``, the ``tasks`` (expensive first) and the campaign's ``config``."""
    if cfg.swf:
        days = read_swf(cfg.swf, P=cfg.swf_P, cores_per_node=cfg.cores_per_node)
        days = days[: cfg.mira_days]
        if not days:
            raise InvalidInstance("--swf", f"{cfg.swf} holds no day with jobs")
        source = f"SWF {cfg.swf} (first {len(days)} days, cores/node {cfg.cores_per_node})"
    else:
        days = mira_like_days(cfg.mira_seed, cfg.mira_days)
        source = f"Mira-like stand-in, seed {cfg.mira_seed}, {len(days)} days"
    config = table1_config(cfg)
    skipped, dominated = degenerate_days(days, MIRA_QBARS)
    out = {(s["day"], s["qbar"]) for s in skipped}
    warning = degenerate_warning(skipped, dominated, len(days))
    # the draws of scenario_matrices (child k of the q-bar's seed for day k), day by day
    mats: dict[float, list[np.ndarray | None]] = {}
    for q in MIRA_QBARS:
        children = np.random.SeedSequence([cfg.seed, 7, int(round(q * 1000))]).spawn(len(days))
        mats[q] = [None if (k, q) in out else scenario_matrix(d, q, cfg.mira_scenarios, child)
                   for k, (d, child) in enumerate(zip(days, children, strict=True))]
    priorities = PRIORITIES7 if "fig78" in cfg.only else ("LPT",)
    tasks = []
    for h in labelled(cfg, FIVE):
        for pr in priorities:
            for k, d in enumerate(days):
                points = [(q, d.P, mats[q][k]) for q in MIRA_QBARS if mats[q][k] is not None]
                if points:
                    tasks.append({"instance": d, "heuristic": h, "priority": pr, "set": k,
                                  "points": points})
    tasks.sort(key=lambda t: -sum(m.sum() + m.shape[0] for _, _, m in t["points"]))
    return {"days": days, "source": source, "skipped": skipped, "dominated": dominated,
            "warning": warning, "mats": mats, "priorities": priorities, "tasks": tasks,
            "config": config}


def table1_config(cfg: Config) -> dict[str, Any]:
    """The configuration of ``rigid-table1`` (day k depends neither on ``cfg.mira_days`` nor on
    the days after it)."""
    config: dict[str, Any] = {"seed": cfg.seed, "scenarios": cfg.mira_scenarios}
    if cfg.swf:
        return config | {"swf_sha256": file_sha256(cfg.swf),
                         "cores_per_node": cfg.cores_per_node, "swf_P": cfg.swf_P}
    return config | {"mira_seed": cfg.mira_seed}


def table1(cfg: Config, runner: Runner) -> dict[str, Any]:
    """The five heuristics with LPT (Table 1) and, with ``fig78``, every priority (Figs. 7-8)
    on Mira-like days (or SWF days), q-bar in {0, 0.05, 0.1}; degenerate (day, q-bar) pairs
    are left out and reported (`degenerate_days`)."""
    p = table1_plan(cfg)
    days, source, mats, priorities, tasks = (p["days"], p["source"], p["mats"],
                                             p["priorities"], p["tasks"])
    skipped, dominated, warning = p["skipped"], p["dominated"], p["warning"]
    if warning:
        log(f"[table1] {warning}")
    log(f"[table1] {source}: {len(days)} days x {cfg.mira_scenarios} scenarios, "
        f"{len(priorities)} priorities, {len(tasks)} tasks")
    rows = (read_rows(cfg.reuse / "table1_per_day.csv") if cfg.reuse
            else runner("rigid-table1", p["config"], tasks, "table1"))
    agg = aggregate(rows, ("heuristic", "priority", "qbar"))
    kept = {q: [k for k in range(len(days)) if mats[q][k] is not None] for q in MIRA_QBARS}
    failures = {q: float(np.mean([mats[q][k].sum(axis=1).mean() for k in kept[q]]))
                if kept[q] else float("nan") for q in MIRA_QBARS}
    expected = {q: float(np.mean([expected_total_failures(days[k], q) for k in kept[q]]))
                if kept[q] else float("nan") for q in MIRA_QBARS}
    return {"rows": rows, "agg": agg, "failures": failures, "expected": expected,
            "source": source, "jobs_per_day": float(np.mean([d.n for d in days])),
            "days": len(days), "kept": {q: len(v) for q, v in kept.items()},
            "skipped": skipped, "dominated": dominated, "priorities": priorities,
            "warning": warning}
