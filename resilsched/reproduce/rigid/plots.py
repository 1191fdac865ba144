"""The PNG figures of the rigid reproduction (Figs. 4-6 and the Table 1 box plots).

matplotlib (extra ``resilsched[plot]``) is imported only here, when a plot is drawn.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from resilsched.reproduce.rigid.config import (
    FIVE,
    MIRA_QBARS,
    PAPER_BEST,
    PRIORITIES7,
    SHELVES4,
    SHORT,
    Config,
)


def plots(cfg: Config, res: dict[str, Any] | None, t1: dict[str, Any] | None) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    made = []
    if res is not None:
        agg = res["agg"]
        P0, q0 = cfg.P_default, cfg.qbar_P_sweep
        if "fig4" in cfg.only:
            fig, axes = plt.subplots(1, 2, figsize=(10, 4))
            for h in SHELVES4:
                axes[0].plot(cfg.qbars, [agg[h, "LPT", q, P0]["mean"] for q in cfg.qbars],
                             marker="o", label=h)
                axes[1].plot(cfg.Ps, [agg[h, "LPT", q0, P]["mean"] for P in cfg.Ps],
                             marker="o", label=h)
            axes[0].set(xlabel="q-bar", ylabel="normalised makespan T/L(f)",
                        title=f"(a) P = {P0}")
            axes[1].set(xlabel="P", title=f"(b) q-bar = {q0}")
            axes[0].legend(fontsize=8)
            fig.suptitle("Fig. 4: shelf heuristics, LPT")
            fig.tight_layout()
            made.append(cfg.out / "fig4.png")
            fig.savefig(made[-1], dpi=110)
            plt.close(fig)
        for fig_name, xs, pt in (("fig5", cfg.qbars, lambda x: (x, P0)),
                                 ("fig6", cfg.Ps, lambda x: (q0, x))):
            if fig_name not in cfg.only:
                continue
            fig, axes = plt.subplots(2, 3, figsize=(14, 8))
            for ax, h in zip(axes.flat, FIVE, strict=False):
                for pr in PRIORITIES7:
                    ax.plot(xs, [agg[(h, pr) + pt(x)]["mean"] for x in xs], marker=".", label=pr)
                ax.set(title=h, xlabel="q-bar" if fig_name == "fig5" else "P",
                       ylabel="T/L(f)")
            axes.flat[0].legend(fontsize=7)
            ax = axes.flat[5]
            for h in FIVE:
                ax.plot(xs, [agg[(h, PAPER_BEST[h]) + pt(x)]["mean"] for x in xs], marker="o",
                        label=f"{h}-{PAPER_BEST[h]}")
            ax.set(title="(f) best priorities (A20)", xlabel="q-bar" if fig_name == "fig5"
                   else "P")
            ax.legend(fontsize=7)
            what = f"Fig. 5: P = {P0}" if fig_name == "fig5" else f"Fig. 6: q-bar = {q0}"
            fig.suptitle(f"{what} ({cfg.sets} sets x {cfg.scenarios} scenarios)")
            fig.tight_layout()
            made.append(cfg.out / f"{fig_name}.png")
            fig.savefig(made[-1], dpi=110)
            plt.close(fig)
    if t1 is not None:
        per_day: dict[tuple[str, float], list[float]] = defaultdict(list)
        for r in t1["rows"]:
            per_day[r["heuristic"], r["qbar"]].append(r["mean_ratio"])
        fig, axes = plt.subplots(1, 3, figsize=(13, 4), sharey=True)
        for ax, q in zip(axes, MIRA_QBARS, strict=True):
            ax.boxplot([per_day[h, q] for h in FIVE])
            ax.set_xticks(range(1, 6), [SHORT[h] for h in FIVE])
            ax.set(title=f"q-bar = {q} (avg failures {t1['failures'][q]:.1f})")
        axes[0].set_ylabel("per-day mean T/L(f), LPT")
        fig.suptitle(f"Figs. 7-8 / Table 1 analogue: {t1['source']}")
        fig.tight_layout()
        made.append(cfg.out / "table1.png")
        fig.savefig(made[-1], dpi=110)
        plt.close(fig)
    return made
