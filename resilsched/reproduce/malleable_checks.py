"""Two checks of the malleable claims that the figures alone do not decide (issue 27).

``resilsched reproduce malleable --only CHECK`` runs one of them instead of the figures, each
(x, repetition) one task of the campaign ``malleable-<check>`` (resumable like the figures), on
the instances and traces of the figure it explains (the same seeds, so its default runs are the
figure's runs):

- ``r1-cause`` (R1, Fig. 1.4 grid, fault-free): the fluid lower bound (`bounds.malleable`,
  MA-7) over the no-redistribution makespan caps what any schedule can gain, whatever the
  redistribution cost RC; the two END heuristics again with RC almost free (checkpoint factor
  c = `RC_FREE`, which only RC reads without failures); and the shrinks (a phase on fewer
  processors than the application's previous one) that ENDGREEDY pays RC for.
- ``r3-rule`` (R3, Fig. 1.6 grid): ITERATEDGREEDY against no redistribution, per run and on
  the ratio of means, under the default look-ahead rule and the paper's literal
  ``improve_rule=strict_step`` (A-11); and SAF against IG (the best END heuristic of each).
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from resilsched.campaign import Task

CHECKS = ("r1-cause", "r3-rule")
#: checkpoint factor standing for "redistribution almost free" (RC = S + m c / 2 + p beta)
RC_FREE = 1e-12
#: r3-rule: (label, heuristic, improve_rule)
R3_RUNS = (("NOREDIST", "NOREDIST", None),
           ("ENDLOCAL-IG", "ENDLOCAL-IG", "lookahead"), ("ENDGREEDY-IG", "ENDGREEDY-IG",
                                                         "lookahead"),
           ("ENDLOCAL-IG strict_step", "ENDLOCAL-IG", "strict_step"),
           ("ENDGREEDY-IG strict_step", "ENDGREEDY-IG", "strict_step"),
           ("ENDLOCAL-SAF", "ENDLOCAL-SAF", "lookahead"),
           ("ENDGREEDY-SAF", "ENDGREEDY-SAF", "lookahead"))
#: the IG runs of `R3_RUNS` (the SAF ones feed the SAF-vs-IG line)
R3_IG = tuple(lab for lab, name, _ in R3_RUNS if name.endswith("-IG"))
FIGURE = {"r1-cause": "1.4", "r3-rule": "1.6"}


def shrinks(phases) -> int:
    """Phases on fewer processors than the same application's previous phase."""
    last: dict[int, int] = {}
    count = 0
    for ph in phases:
        app, k = ph[0], ph[3]
        count += app in last and k < last[app]
        last[app] = k
    return count


def check_tasks(check: str, reps: int, seed: int, scale: int) -> list[Task]:
    """The tasks of `check`: the figure's points and seeds (`malleable.tasks_for`)."""
    from resilsched.reproduce.malleable_grid import FIGURES, settings

    fig = FIGURE[check]
    code = list(FIGURES).index(fig)
    out = []
    for xi, x in enumerate(FIGURES[fig][1]):
        s = settings(fig, x, scale)
        for r in range(reps):
            fields = {"check": check, "x": x, "rep": r, "seed": seed, "scale": scale}
            out.append(Task(fields, {"check": check, "settings": s, "seed": [seed, code, xi, r]}))
    return out


def run_check(payload: dict[str, Any]) -> dict[str, Any]:
    """One repetition of a check (campaign task): makespans, and shrinks / the fluid bound."""
    from resilsched.bounds.malleable import fluid_bound
    from resilsched.registry import get_family
    from resilsched.reproduce.malleable_grid import point_instance

    fam = get_family("malleable")
    inst, seed = point_instance(payload["settings"], payload["seed"])
    out: dict[str, Any] = {"makespan": {}, "shrinks": {}}
    t0 = time.process_time()
    if payload["check"] == "r1-cause":
        out["fluid"] = fluid_bound(inst)
        free = inst.replace(checkpoint_factor=RC_FREE)
        for tag, case in (("", inst), (" RC~0", free)):
            for name in ("FF-NOREDIST", "FF-ENDLOCAL", "FF-ENDGREEDY"):
                if tag and name == "FF-NOREDIST":
                    continue
                res = fam.heuristics[name].run(case, None, None, seed=seed)
                out["makespan"][name + tag] = res.objective
                out["shrinks"][name + tag] = shrinks(res.schedule.phases)
    else:
        for label, name, rule in R3_RUNS:
            kw = {} if rule is None else {"improve_rule": rule}
            out["makespan"][label] = fam.heuristics[name].run(inst, None, None, seed=seed,
                                                              **kw).objective
    out["seconds"] = time.process_time() - t0
    return out


def _points(check: str, results: list[dict], reps: int) -> list[tuple[Any, list[dict]]]:
    from resilsched.reproduce.malleable_grid import FIGURES

    values = FIGURES[FIGURE[check]][1]
    return [(x, results[i * reps:(i + 1) * reps]) for i, x in enumerate(values)]


def _ratio(runs: list[dict], key: str, ref: str) -> float:
    return float(np.mean([r["makespan"][key] for r in runs])
                 / np.mean([r["makespan"][ref] for r in runs]))


def _paired(runs: list[dict], a: str, b: str, ref: str) -> tuple[float, float]:
    """Mean of (a - b) / ref per run, in points, and its 95 % half-width."""
    d = np.array([(r["makespan"][a] - r["makespan"][b]) / r["makespan"][ref] for r in runs])
    half = 1.96 * d.std(ddof=1) / math.sqrt(d.size) if d.size > 1 else float("nan")
    return 100 * float(d.mean()), 100 * half


def r1_lines(results: list[dict], reps: int, scale: int) -> list[str]:
    """R1's cause: the fluid cap, the END heuristics with RC ~ 0, and the shrinks."""
    pts = _points("r1-cause", results, reps)
    n = 1000 // scale
    lines = [f"R1 cause (Fig. 1.4 grid, n = {n}, {reps} repetitions, fault-free; ratios of mean "
             "makespans over FF-NOREDIST; the lookahead_pool default applies to failures only)",
             f"  {'p':>6s} {'fluid':>6s} {'max gain':>8s} {'ENDLOCAL':>8s} {'ENDGREEDY':>9s}  "
             f"{'EG-EL pts':>13s}  {'RC~0: EL':>8s} {'EG':>6s} {'EG-EL pts':>13s}  "
             f"{'shrinks EL/EG':>13s} {'RC~0':>9s}"]
    leads_free, caps = 0, []
    ref = "FF-NOREDIST"
    for x, runs in pts:
        fluid = float(np.mean([r["fluid"] for r in runs]) / np.mean([r["makespan"][ref]
                                                                     for r in runs]))
        caps.append((x, fluid))
        d, h = _paired(runs, "FF-ENDGREEDY", "FF-ENDLOCAL", ref)
        df, hf = _paired(runs, "FF-ENDGREEDY RC~0", "FF-ENDLOCAL RC~0", ref)
        leads_free += df + hf < 0
        sh = {k: float(np.mean([r["shrinks"][k] for r in runs]))
              for k in ("FF-ENDLOCAL", "FF-ENDGREEDY", "FF-ENDLOCAL RC~0", "FF-ENDGREEDY RC~0")}
        lines.append(
            f"  {x:6d} {fluid:6.3f} {100 * (1 - fluid):7.1f}% "
            f"{_ratio(runs, 'FF-ENDLOCAL', ref):8.3f} {_ratio(runs, 'FF-ENDGREEDY', ref):9.3f}  "
            f"{d:+6.2f} +-{h:4.2f}  {_ratio(runs, 'FF-ENDLOCAL RC~0', ref):8.3f} "
            f"{_ratio(runs, 'FF-ENDGREEDY RC~0', ref):6.3f} {df:+6.2f} +-{hf:4.2f}  "
            f"{sh['FF-ENDLOCAL']:6.0f}/{sh['FF-ENDGREEDY']:<6.0f} "
            f"{sh['FF-ENDLOCAL RC~0']:4.0f}/{sh['FF-ENDGREEDY RC~0']:<4.0f}")
    low = [(x, f) for x, f in caps if x < 4000]
    lines += [
        "  paper: redistribution gains more than 20 % below 4000 processors. The fluid lower "
        "bound (no RC, no failures, fractional counts) caps the gain of every schedule at "
        + ", ".join(f"{100 * (1 - f):.1f} % (p = {x})" for x, f in low)
        + f"; with RC ~ 0 (c = {RC_FREE:g}) ENDGREEDY is below ENDLOCAL beyond the paired 95 % "
        f"half-width at {leads_free} of {len(pts)} p (columns 'EG-EL pts': ENDGREEDY minus "
        "ENDLOCAL, points of the reference; 'shrinks': phases on fewer processors than the "
        "application's previous one, mean per run)"]
    return lines


def r3_lines(results: list[dict], reps: int, scale: int) -> list[str]:
    """R3's "IG even worse than without redistribution", per run and on the means."""
    pts = _points("r3-rule", results, reps)
    labels = list(R3_IG)
    lines = [f"R3 IG vs no redistribution (Fig. 1.6 grid, n = {100 // scale}, p = "
             f"{5000 // scale}, {reps} repetitions; lookahead_pool faulty_only, the default "
             "since MA-9): ratio of means / mean of per-run ratios / runs above 1 / largest run",
             "  MTBF  " + "  ".join(f"{lab:>30s}" for lab in labels)]
    worse_mean = {lab: 0 for lab in labels}
    worse_runs = {lab: 0 for lab in labels}
    for x, runs in pts:
        cells = []
        for lab in labels:
            per = np.array([r["makespan"][lab] / r["makespan"]["NOREDIST"] for r in runs])
            rom = _ratio(runs, lab, "NOREDIST")
            worse_mean[lab] += rom > 1
            worse_runs[lab] += int(np.sum(per > 1))
            cells.append(f"{rom:.3f} / {per.mean():.3f} / {int(np.sum(per > 1)):2d} / "
                         f"{per.max():.3f}")
        lines.append(f"  {x:4g}y " + "  ".join(f"{c:>30s}" for c in cells))
    total = len(pts) * reps
    lines.append("  SAF vs IG (ratio of means, best END heuristic of each; default rule): "
                 + ", ".join(f"{x:g}y IG {_best(runs, '-IG'):.3f} SAF {_best(runs, '-SAF'):.3f}"
                             for x, runs in pts))
    lines.append("  paper: 'IG even worse than without redistribution' at a low MTBF; above 1: "
                 + "; ".join(f"{lab}: ratio of means at {worse_mean[lab]} of {len(pts)} MTBF, "
                             f"single runs {worse_runs[lab]} of {total}" for lab in labels))
    return lines


def _best(runs: list[dict], suffix: str) -> float:
    return min(_ratio(runs, lab, "NOREDIST") for lab in ("ENDLOCAL" + suffix,
                                                         "ENDGREEDY" + suffix))


def report_lines(check: str, results: list[dict], reps: int, scale: int) -> list[str]:
    return (r1_lines if check == "r1-cause" else r3_lines)(results, reps, scale)
