"""The markdown tables of the rigid reproduction's ``summary.md``: Figs. 4-6, Table 1 and the
claims, each beside the paper's numbers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from resilsched.reproduce.rigid.config import (
    FIVE,
    MIRA_QBARS,
    PAPER_BEST,
    PAPER_TABLE1,
    PRIORITIES7,
    SHELVES4,
    SHORT,
    Config,
)


def md_table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(x) for x in r) + " |" for r in rows]
    return "\n".join(lines)


def synthetic_tables(cfg: Config, res: dict[str, Any], best5: dict[str, str]) -> str:
    agg = res["agg"]
    parts = []
    if "fig4" in cfg.only:
        head = ["q-bar"] + [SHORT[h] for h in SHELVES4]
        rows = [[q] + [f"{agg[h, 'LPT', q, cfg.P_default]['mean']:.3f}" for h in SHELVES4]
                for q in cfg.qbars]
        parts.append(f"Fig. 4(a) (LPT, P = {cfg.P_default}): mean T/L(f)\n\n"
                     + md_table(head, rows))
        rows = [[P] + [f"{agg[h, 'LPT', cfg.qbar_P_sweep, P]['mean']:.3f}" for h in SHELVES4]
                for P in cfg.Ps]
        parts.append(f"Fig. 4(b) (LPT, q-bar = {cfg.qbar_P_sweep}): mean T/L(f)\n\n"
                     + md_table(["P"] + head[1:], rows))
    if "fig5" in cfg.only:
        head = ["q-bar"] + [f"{SHORT[h]}-{PAPER_BEST[h]}" for h in FIVE] + \
               [f"best prio (ours) {SHORT[h]}" for h in FIVE]
        rows = []
        for q in cfg.qbars:
            r = [q] + [f"{agg[h, PAPER_BEST[h], q, cfg.P_default]['mean']:.3f}" for h in FIVE]
            r += [min(PRIORITIES7, key=lambda pr, h=h: agg[h, pr, q, cfg.P_default]["mean"])
                  for h in FIVE]
            rows.append(r)
        parts.append(f"Fig. 5(f) (P = {cfg.P_default}): mean T/L(f) with the paper's best "
                     "priority (A20), and the best priority we measure at each q-bar\n\n"
                     + md_table(head, rows))
    if "fig6" in cfg.only:
        q0 = cfg.qbar_P_sweep
        head = ["P"] + [f"{SHORT[h]}-{PAPER_BEST[h]}" for h in FIVE] + \
               [f"best prio (ours) {SHORT[h]}" for h in FIVE]
        rows = []
        for P in cfg.Ps:
            r = [P] + [f"{agg[h, PAPER_BEST[h], q0, P]['mean']:.3f}" for h in FIVE]
            r += [min(PRIORITIES7, key=lambda pr, h=h: agg[h, pr, q0, P]["mean"]) for h in FIVE]
            rows.append(r)
        parts.append(f"Fig. 6(f) (q-bar = {q0}): mean T/L(f)\n\n" + md_table(head, rows))
    return "\n\n".join(parts)


def table1_markdown(t1: dict[str, Any]) -> str:
    agg = t1["agg"]
    head = ["q-bar", "avg #failures (ours / expected / paper)"] + \
           [f"{SHORT[h]} avg (paper)" for h in FIVE]
    rows, rows2 = [], []
    for q in MIRA_QBARS:
        paper_f, paper = PAPER_TABLE1[q]
        rows.append([q, f"{t1['failures'][q]:.2f} / {t1['expected'][q]:.2f} / {paper_f}"] +
                    [f"{agg[h, q]['mean']:.3f} ({paper[h][0]:.3f})" for h in FIVE])
        rows2.append([q] + [f"{agg[h, q]['std']:.2e} ({paper[h][1]:.2e})" for h in FIVE] +
                     [f"{agg[h, q]['max']:.3f} ({paper[h][2]:.3f})" for h in FIVE])
    head2 = ["q-bar"] + [f"{SHORT[h]} std" for h in FIVE] + [f"{SHORT[h]} max" for h in FIVE]
    return (f"Table 1 analogue: {t1['source']}, {t1['jobs_per_day']:.1f} jobs/day, LPT; "
            "statistics across the per-day means (A11); paper values in parentheses\n\n"
            + md_table(head, rows) + "\n\n" + md_table(head2, rows2))


def claims_markdown(claims: list[tuple[str, str, str, str]]) -> str:
    return md_table(["claim", "paper", "ours", "verdict"], claims)
