"""Text tables and CSV rows of the moldable reproduction (spec 000 §6.1, Figs. 3-9).

Every function takes the aggregated `Results` (`experiments.collect`) and returns markdown
lines; `csv_rows` flattens them into one long table (one row per model, configuration,
algorithm and priority). Cells read "expected (maximum)" unless said otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from resilsched.instances.moldable.generators import PAPER_MODELS
from resilsched.reproduce.moldable.experiments import (
    COMBOS,
    DEFAULT,
    PAPER_TABLE1,
    PN,
    SWEEPS,
    Config,
    Results,
    Stat,
)


def _cell(s: Stat | None) -> str:
    return "-" if s is None else f"{s.expected:.3f} ({s.maximum:.3f})"


def _header(cols: Sequence[str], lead: Sequence[str]) -> list[str]:
    return ["| " + " | ".join([*lead, *cols]) + " |",
            "|" + "---|" * (len(lead) + len(cols))]


def aggregate(res: Results, model: str, algo: str, configs: Sequence[Config],
              priority: str = "LPT") -> tuple[float, float, int, int] | None:
    """Table 1 "over the entire set of experiments" (spec §6.1): the mean over `configs` of
    their expected values and the maximum over all their runs; with the number of
    configurations and of (set, scenario) runs. None when a configuration is missing."""
    stats = [res.get((model, c, algo, priority)) for c in configs]
    if not stats or any(s is None for s in stats):
        return None
    return (sum(s.expected for s in stats) / len(stats), max(s.maximum for s in stats),
            len(stats), sum(s.sets * s.scenarios for s in stats))


def table1(res: Results, algos: Sequence[str], configs: Sequence[Config] = (DEFAULT,),
           title: str = "") -> list[str]:
    """Table 1: per algorithm (LPT) and model, computed (paper); over `configs`."""
    lines = [title, "", *_header(PAPER_MODELS, ("algo", "stat"))]
    for a in algos:
        aggs = {m: aggregate(res, m, a, configs) for m in PAPER_MODELS}
        for i, name in enumerate(("Expected", "Maximum")):
            cells = ["-" if aggs[m] is None else
                     f"{aggs[m][i]:.3f} ({PAPER_TABLE1[a][m][i]})" for m in PAPER_MODELS]
            lines.append(f"| {a} | {name} | " + " | ".join(cells) + " |")
    return [*lines, ""]


def combos_table(res: Results, configs: Sequence[Config], title: str) -> list[str]:
    """Figs. 3 and 5-6: the 11 (algorithm, priority) combinations per model and configuration."""
    cols = [f"{a}-{p}" for a, p in COMBOS]
    lines = [title, "", *_header(cols, ("model", "P, n"))]
    for m in PAPER_MODELS:
        for c in configs:
            cells = [_cell(res.get((m, c, a, p))) for a, p in COMBOS]
            if any(x != "-" for x in cells):
                lines.append(f"| {m} | {c.P}, {c.n} | " + " | ".join(cells) + " |")
    return [*lines, ""]


def sweep_table(res: Results, name: str, algos: Sequence[str], title: str) -> list[str]:
    """Figs. 4 and 7-9: expected (maximum) per model and algorithm (LPT) along one sweep."""
    xs, configs = SWEEPS[name]
    lines = [title, "", *_header([f"{x:g}" for x in xs], ("model", "algo"))]
    for m in PAPER_MODELS:
        for a in algos:
            cells = [_cell(res.get((m, c, a, "LPT"))) for c in configs]
            if any(x != "-" for x in cells):
                lines.append(f"| {m} | {a} | " + " | ".join(cells) + " |")
    return [*lines, ""]


def all_configs(sweeps: Sequence[str]) -> list[Config]:
    """The distinct configurations of the "entire set of experiments" (spec §7 item 15): the
    defaults, the sweeps run and the four (P, n) combinations."""
    out = [DEFAULT, *PN]
    for name in sweeps:
        out += SWEEPS[name][1]
    return sorted(set(out))


def csv_rows(res: Results, experiment: dict[Config, set[str]]) -> list[dict[str, Any]]:
    """One row per result: experiment names of its configuration, model, P, n, lambda, algo,
    priority, expected, se (empty with one set: no spread to estimate), maximum, sets,
    scenarios, and the paper's Table 1 values (empty for the HPA and LA priorities)."""
    rows = []
    for (m, c, a, p), s in sorted(res.items(), key=lambda kv: (
            PAPER_MODELS.index(kv[0][0]), kv[0][1], kv[0][2], kv[0][3])):
        paper = PAPER_TABLE1[a][m] if p == "LPT" else ("", "")
        rows.append({"experiments": " ".join(sorted(experiment.get(c, ()))), "model": m,
                     "P": c.P, "n": c.n, "lambda": c.lam, "algo": a, "priority": p,
                     "expected": s.expected, "se": s.se if s.sets > 1 else "",
                     "maximum": s.maximum, "sets": s.sets, "scenarios": s.scenarios,
                     "paper_table1_expected": paper[0], "paper_table1_maximum": paper[1]})
    return rows
