"""The PNG figures of the rigid reproduction (Figs. 4-8 and the Table 1 box plots).

Every axis is labelled with its quantity and unit (the normalised makespan T/L(f) is a ratio, no
unit; P counts processors; q-bar is a probability), algorithms and priority rules are spelled
out (spec 002 §5.1), and R-LIST-1/Q say which reservation mode (A3) they ran with.
matplotlib (extra ``resilsched[plot]``) is imported only here, when a plot is drawn.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from resilsched.reproduce.rigid.config import (
    FILLING,
    FIVE,
    LOOSE_FILL,
    MIRA_QBARS,
    PAPER_BEST,
    PRIORITIES7,
    RESERVING,
    SHELVES4,
    Config,
    fill_variant,
    unlabel,
)
from resilsched.reproduce.rigid.fillrule import fill_gains

#: The priority rules of §5.1, spelled out for the legends.
PRIORITY_NAMES = {"LPT": "LPT: longest time first", "SPT": "SPT: shortest time first",
                  "HPA": "HPA: most processors first", "LPA": "LPA: fewest processors first",
                  "LA": "LA: largest area first", "SA": "SA: smallest area first",
                  "Random": "Random order"}
RATIO = "normalised makespan T / L(f) (ratio, no unit)"
QBAR = "failure probability q-bar (per average job)"
PLATFORM = "platform size P (processors)"
DAY = "day of the trace"


def long_name(name: str) -> str:
    """``R-LIST-1, fixed reservations`` for a labelled heuristic (`config.label`)."""
    base, mode = unlabel(name)
    return f"{base}, {mode} reservations" if base in RESERVING else base


def _sorted(names: set[str]) -> list[str]:
    return sorted(names, key=lambda h: (FIVE.index(unlabel(h)[0]), h))


def _save(plt: Any, fig: Any, path: Path, made: list[Path], dpi: int = 110) -> None:
    fig.savefig(path, dpi=dpi)
    plt.close(fig)
    made.append(path)


def plots(cfg: Config, res: dict[str, Any] | None, t1: dict[str, Any] | None) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    made: list[Path] = []
    if res is not None:
        agg = res["agg"]
        P0, q0 = cfg.P_default, cfg.qbar_P_sweep
        if "fig4" in cfg.only:
            fig, axes = plt.subplots(1, 2, figsize=(11, 4.5))
            for h in SHELVES4:
                axes[0].plot(cfg.qbars, [agg[h, "LPT", q, P0]["mean"] for q in cfg.qbars],
                             marker="o", label=h)
                axes[1].plot(cfg.Ps, [agg[h, "LPT", q0, P]["mean"] for P in cfg.Ps],
                             marker="o", label=h)
            axes[0].set(xlabel=QBAR, ylabel=RATIO, title=f"(a) P = {P0} processors")
            axes[1].set(xlabel=PLATFORM, ylabel=RATIO, title=f"(b) q-bar = {q0}")
            axes[0].legend(fontsize=8, title="heuristic (LPT priority)")
            fig.suptitle(f"Fig. 4: shelf heuristics, LPT ({cfg.sets} job sets x "
                         f"{cfg.scenarios} failure scenarios)")
            fig.tight_layout()
            _save(plt, fig, cfg.out / "fig4.png", made)
        if "fill-rule" in cfg.only:
            _fill_rule_plot(plt, cfg, agg, made)
        for fig_name, xs, pt in (("fig5", cfg.qbars, lambda x: (x, P0)),
                                 ("fig6", cfg.Ps, lambda x: (q0, x))):
            if fig_name in cfg.only:
                _sweep(plt, cfg, agg, fig_name, xs, pt, made)
    if t1 is not None:
        _mira_plots(plt, cfg, t1, made)
    return made


def _fill_rule_plot(plt: Any, cfg: Config, agg: dict, made: list[Path]) -> None:
    """``--only fill-rule``: the gain of R-SHELFFILL over R-SHELF against P under both refill
    rules, with two standard errors, beside the paper's 4.8-4.9 % (averaged over P != 10000)."""
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for rule in ("own", LOOSE_FILL):
        for h in FILLING:
            fill = h if rule == "own" else f"{h}/{rule}"
            gains = fill_gains(cfg, agg, fill, h.replace("SHELFFILL", "SHELF"))
            ax.errorbar(cfg.Ps, [100 * g for g, _ in gains],
                        yerr=[0 if se is None else 200 * se for _, se in gains], marker="o",
                        capsize=3, linestyle="-" if rule == "own" else "--",
                        label=f"{h} over R-SHELF-{h.rsplit('-', 1)[1]}, fill={rule}")
    ax.axhline(4.85, color="grey", linewidth=0.8, linestyle=":",
               label="paper: 4.8-4.9 % on average over P != 10000")
    ax.set(xlabel=PLATFORM, ylabel="gain over R-SHELF (%)",
           title=f"Fig. 4(b), LPT, q-bar = {cfg.qbar_P_sweep}: both refill rules "
                 f"({cfg.sets} sets x {cfg.scenarios} scenarios)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    _save(plt, fig, cfg.out / "fill_rule.png", made)


def _sweep(plt: Any, cfg: Config, agg: dict, fig_name: str, xs: tuple, pt: Any,
           made: list[Path]) -> None:
    """Fig. 5 (q-bar sweep) or Fig. 6 (P sweep): one panel per heuristic with every
    priority, and a last panel with each heuristic's best priority (A20)."""
    xlabel = QBAR if fig_name == "fig5" else PLATFORM
    names = _sorted({k[0] for k in agg if unlabel(k[0])[0] in FIVE and not fill_variant(k[0])})
    cols = 3 if len(names) <= 5 else 4
    fig, axes = plt.subplots(2, cols, figsize=(5.2 * cols, 9.4))
    for ax, h in zip(axes.flat, names, strict=False):
        for pr in PRIORITIES7:
            ax.plot(xs, [agg[(h, pr) + pt(x)]["mean"] for x in xs], marker=".",
                    label=PRIORITY_NAMES[pr])
        ax.set_title(long_name(h), fontsize=10)
        ax.set(xlabel=xlabel, ylabel=RATIO)
    ax = axes.flat[len(names)]
    for unused in axes.flat[len(names) + 1:]:
        unused.axis("off")
    for h in names:
        best = PAPER_BEST[unlabel(h)[0]]
        ax.plot(xs, [agg[(h, best) + pt(x)]["mean"] for x in xs], marker="o",
                linestyle="--" if unlabel(h)[1] == "fixed" else "-",
                label=f"{long_name(h)}, {best}")
    ax.set_title("(f) each heuristic with its best priority (paper, A20)", fontsize=10)
    ax.set(xlabel=xlabel, ylabel=RATIO)
    ax.legend(fontsize=7)
    height = fig.get_figheight()
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", ncol=7, fontsize=8, title="priority rule",
               bbox_to_anchor=(0.5, 1 - 0.45 / height))
    what = f"Fig. 5: P = {cfg.P_default} processors" if fig_name == "fig5" \
        else f"Fig. 6: q-bar = {cfg.qbar_P_sweep}"
    fig.suptitle(f"{what}, mean over {cfg.sets} job sets x {cfg.scenarios} failure scenarios",
                 y=1 - 0.1 / height, va="top")
    fig.tight_layout(rect=(0, 0, 1, 1 - 1.0 / height))
    _save(plt, fig, cfg.out / f"{fig_name}.png", made)


def _mira_plots(plt: Any, cfg: Config, t1: dict[str, Any], made: list[Path]) -> None:
    """Table 1 box plots (LPT) and, with ``fig78``, Figs. 7-8: per day, every priority."""
    names = _sorted({r["heuristic"] for r in t1["rows"]})
    qs = [q for q in MIRA_QBARS if t1["kept"][q]]
    per_day: dict[tuple[str, str, float], dict[int, float]] = defaultdict(dict)
    for r in t1["rows"]:
        per_day[r["heuristic"], r["priority"], r["qbar"]][int(r["set"])] = r["mean_ratio"]
    fig, axes = plt.subplots(1, len(qs), figsize=(5.5 * len(qs), 5.2), sharey=True,
                             squeeze=False)
    for ax, q in zip(axes[0], qs, strict=True):
        ax.boxplot([list(per_day[h, "LPT", q].values()) for h in names])
        ax.set_xticks(range(1, len(names) + 1),
                      [long_name(h).replace(", ", "\n") for h in names], fontsize=7,
                      rotation=60)
        ax.set_title(f"q-bar = {q} (avg failures per day {t1['failures'][q]:.1f})", fontsize=10)
    axes[0][0].set_ylabel("per-day mean of T / L(f), LPT (ratio, no unit)")
    fig.suptitle(f"Table 1 analogue: {t1['source']}, spread over the days")
    fig.tight_layout()
    _save(plt, fig, cfg.out / "table1.png", made)
    if "fig78" not in cfg.only:
        return
    for fig_name, rows_of in (("fig7", [h for h in names if unlabel(h)[0].startswith("R-LIST")]),
                              ("fig8", [h for h in names if unlabel(h)[0].startswith("R-SHELF")])):
        fig, axes = plt.subplots(len(rows_of), len(qs), figsize=(5.2 * len(qs),
                                 3.0 * len(rows_of) + 1.2), sharey="row", squeeze=False)
        for i, h in enumerate(rows_of):
            for ax, q in zip(axes[i], qs, strict=True):
                for pr in PRIORITIES7:
                    days = sorted(per_day[h, pr, q])
                    ax.plot([k + 1 for k in days], [per_day[h, pr, q][k] for k in days],
                            marker=".", linewidth=0.8, label=PRIORITY_NAMES[pr])
                ax.set_title(f"{long_name(h)}, q-bar = {q}\n(avg failures per day "
                             f"{t1['failures'][q]:.1f})", fontsize=9)
                ax.set_xlabel(DAY, fontsize=8)
                ax.xaxis.get_major_locator().set_params(integer=True)
            axes[i][0].set_ylabel("T / L(f) (ratio, no unit)", fontsize=9)
        height = fig.get_figheight()
        handles, labels = axes[0][0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="upper center", ncol=4, fontsize=8,
                   title="priority rule", bbox_to_anchor=(0.5, 1 - 0.45 / height))
        kind = "Fig. 7: list heuristics" if fig_name == "fig7" else "Fig. 8: shelf heuristics"
        fig.suptitle(f"{kind}, {t1['source']}, mean over {cfg.mira_scenarios} failure "
                     "scenarios per day", y=1 - 0.1 / height, va="top")
        fig.tight_layout(rect=(0, 0, 1, 1 - 1.25 / height))
        _save(plt, fig, cfg.out / f"{fig_name}.png", made, dpi=100)
