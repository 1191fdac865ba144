"""Two checks of the desktop claims that the main run does not decide (issue 27).

``resilsched reproduce desktop --only CHECK`` runs one of them on the instances of the main run
(the same machine and job sets, sizes and seeds; instances as generated, absorb off), each
instance one task of the campaign ``desktop-<check>`` (resumable like the main run):

- ``r1-sizes`` (R1, "LPT's horizon about 1.5 x the smallest"): every job amount scaled by
  `SIZE_FACTORS` (p_j -> max(1, round(f p_j))) on the same traces; per factor the median over
  the instances of GS-LPT's and DA-LPT's horizon over the smallest of the variants that place
  the jobs (R1), and of GS-LPT over GS-LPT-noslack (R2's slack cost).
- ``r9-cost`` (R9, "DA / GS build-time ratio constant"): per local policy and rule, the CPU
  time of GreedySlack, of DAslack with its shortcuts (D-7, the default) and without them, the
  local-policy runs DAslack makes, and the CPU time of one such run over one GreedySlack call.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from typing import Any

from resilsched.campaign import Task

CHECKS = ("r1-sizes", "r9-cost")
SIZE_FACTORS = (0.5, 1.0, 2.0, 3.0)
POLICIES = ("LPT", "SPT", "FFD", "FFI", "DPslack")


def check_tasks(check: str, base: Sequence[Task]) -> list[Task]:
    """One task per instance of the main run's tasks `base` with absorb off."""
    out = []
    for t in base:
        if t.fields["absorb"]:
            continue
        f = {**t.fields, "check": check}
        f.pop("variants", None)
        out.append(Task(f, f))
    return out


def _scaled(inst, factor: float):
    from resilsched.instances.desktop import DesktopInstance

    if factor == 1.0:
        return inst
    p = tuple(max(1, int(round(factor * x))) for x in inst.p)
    return DesktopInstance(inst.machines, p, inst.slack_rule, f"{inst.name}-x{factor:g}")


def _horizons(inst) -> dict[str, float | None]:
    """Every variant's horizon on `inst`, None where it refuses (D-23)."""
    from resilsched.errors import InvalidInstance
    from resilsched.heuristics.desktop.policies import GLOBAL, LOCAL, VARIANTS, parse_variant

    out: dict[str, float | None] = {}
    for name in VARIANTS:
        g, loc, slack = parse_variant(name)
        try:
            out[name] = float(GLOBAL[g](inst, LOCAL[loc], slack).horizon)
        except InvalidInstance:
            out[name] = None
    return out


def _cost(inst) -> dict[str, dict[str, float]]:
    """CPU seconds of GS, DA (shortcuts) and DA (none) per local policy and rule, and runs."""
    from resilsched.heuristics.desktop.policies import LOCAL, da_slack, greedy_slack, variant_name

    inst.sorted_durations, inst.durations_by_position  # noqa: B018  (instance data, untimed)
    out = {}
    for loc in POLICIES:
        for slack in (True, False):
            row: dict[str, float] = {}
            for key, build, kw in (("gs", greedy_slack, {}), ("da", da_slack, {}),
                                   ("da_plain", da_slack, {"shortcuts": False})):
                c0 = time.process_time()
                sched = build(inst, LOCAL[loc], slack, **kw)
                row[key] = time.process_time() - c0
                if key != "gs":
                    row[f"{key}_runs"] = float(sched.info["runs"])
            out[variant_name("DAslack", loc, slack).removeprefix("DA-")] = row
    return out


def run_check(task: dict[str, Any]) -> dict[str, Any]:
    """One instance of a check (campaign task)."""
    from resilsched.reproduce.desktop_grid import task_instance

    inst = task_instance({**task, "absorb": False})
    if task["check"] == "r1-sizes":
        return {"factors": {f"{f:g}": _horizons(_scaled(inst, f)) for f in SIZE_FACTORS}}
    return {"cost": _cost(inst)}


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def r1_lines(results: Sequence[dict], size: str) -> list[str]:
    lines = [f"R1 job sizes (instances as generated, {size}; median over the instances; 'of' = "
             "variants that placed the jobs)",
             f"  {'factor':>6s} {'GS-LPT / best':>13s} {'DA-LPT / best':>13s} "
             f"{'GS-LPT / GS-LPT-noslack':>23s} {'variants placing':>16s}"]
    for f in SIZE_FACTORS:
        gs, da, slack, placed = [], [], [], []
        for res in results:
            h = res["factors"][f"{f:g}"]
            ok = [v for v in h.values() if v is not None]
            placed.append(len(ok))
            if not ok:
                continue
            best = min(ok)
            if h["GS-LPT"] is not None:
                gs.append(h["GS-LPT"] / best)
                if h["GS-LPT-noslack"] is not None:
                    slack.append(h["GS-LPT"] / h["GS-LPT-noslack"])
            if h["DA-LPT"] is not None:
                da.append(h["DA-LPT"] / best)
        lines.append(f"  {f:6g} {_median(gs):13.3f} {_median(da):13.3f} {_median(slack):23.3f} "
                     f"{min(placed):>8d}-{max(placed)} of 20")
    lines.append("  paper: LPT's horizon about 1.5 x the smallest of the 20 (R1), the slack rule "
                 "costs at least 50 % (R2); the ratios move with the job sizes on the same trace")
    return lines


def r9_lines(results: Sequence[dict], size: str) -> list[str]:
    keys = list(results[0]["cost"])
    lines = [f"R9 build cost (instances as generated, {size}; CPU seconds, median over the "
             "instances; DA runs = local-policy runs of DAslack's search)",
             f"  {'policy':14s} {'GS s':>7s} {'DA s':>7s} {'DA/GS':>6s} {'runs':>5s}  "
             f"{'DA plain s':>10s} {'DA/GS':>6s} {'runs':>5s}  {'plain run / GS call':>19s}"]
    spans: dict[str, list[float]] = {"da": [], "da_plain": []}
    for k in keys:
        rows = [r["cost"][k] for r in results]
        gs = _median([r["gs"] for r in rows])
        med = {c: _median([r[c] for r in rows]) for c in ("da", "da_plain", "da_runs",
                                                           "da_plain_runs")}
        for c in spans:
            spans[c].append(med[c] / gs)
        per_run = _median([r["da_plain"] / r["da_plain_runs"] / r["gs"] for r in rows])
        lines.append(f"  {k:14s} {gs:7.3f} {med['da']:7.3f} {med['da'] / gs:6.1f} "
                     f"{med['da_runs']:5.0f}  {med['da_plain']:10.3f} "
                     f"{med['da_plain'] / gs:6.1f} {med['da_plain_runs']:5.0f}  {per_run:19.2f}")
    lines.append(f"  DA / GS spans {min(spans['da']):.1f}-{max(spans['da']):.1f} with the "
                 f"shortcuts (D-7), {min(spans['da_plain']):.1f}-{max(spans['da_plain']):.1f} "
                 "without; paper: a constant ratio")
    return lines


def report_lines(check: str, results: Sequence[dict], size: str) -> list[str]:
    return (r1_lines if check == "r1-sizes" else r9_lines)(results, size)
