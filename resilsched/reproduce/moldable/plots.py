"""The PNG figures of the moldable reproduction (spec 000 §5: Figs. 3-9).

Bars are expected T/L' and the top of each line the maximum ("the bars represent expected
performance and the top endpoints of the lines represent worst-case performance", Fig. 3);
sweep curves are expected values with their 95 % band (mean +- 1.96 standard errors over the
sets), and in Fig. 4 the maxima as dotted lines. matplotlib (extra ``resilsched[plot]``) is
imported only here.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from resilsched.instances.moldable.generators import PAPER_MODELS
from resilsched.reproduce.moldable.experiments import COMBOS, DEFAULT, PN, SWEEPS, Results

COLORS = {"LPA": "tab:red", "BATCH": "tab:blue", "MINTIME": "tab:green", "MINAREA": "goldenrod"}
HATCH = {"LPT": "", "HPA": "//", "LA": ".."}
#: the algorithms' names in the figures (spec 000 §5)
NAMES = {"LPA": "LPA-LIST", "BATCH": "BATCH-LIST", "MINTIME": "MINTIME-LIST",
         "MINAREA": "MINAREA-LIST"}
#: the priority rules spelled out (spec 000 §5)
PRIORITY_NOTE = ("priorities: LPT = longest processing time first, HPA = highest processor "
                 "allocation first, LA = largest area first")
RATIO = "normalised makespan T / L' (ratio, no unit)"
#: the sweep axes with their units
AXES = {"P": "number of processors P", "n": "number of jobs n",
        "lambda": "error rate lambda (silent errors per unit of work)"}
#: sweep curves whose mean exceeds this are left out of Figs. 7-9 (the paper omits the
#: baselines where they perform badly), and listed in the panel's title instead
SWEEP_CAP = 3.5


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _bars(ax, res: Results, model: str, configs, width: float) -> None:
    """Grouped bars: one group per configuration, one bar per combination, max as a line."""
    for i, (a, p) in enumerate(COMBOS):
        xs, ys, tops = [], [], []
        for g, c in enumerate(configs):
            s = res.get((model, c, a, p))
            if s is not None:
                xs.append(g + (i - (len(COMBOS) - 1) / 2) * width)
                ys.append(s.expected)
                tops.append(s.maximum)
        if not xs:
            continue
        ax.bar(xs, ys, width=width, color=COLORS[a], hatch=HATCH[p], edgecolor="black",
               linewidth=0.3, label=f"{NAMES[a]}, {p}")
        ax.vlines(xs, ys, tops, color="black", linewidth=0.8)
        ax.scatter(xs, tops, marker="_", color="black", s=20, linewidths=0.8)
    _plain_log(ax)
    ax.axhline(1.0, color="grey", linewidth=0.5)
    ax.set_xticks(range(len(configs)), [f"P={c.P}\nn={c.n}" for c in configs], fontsize=7)
    ax.set_xlabel("platform (P processors) and workload (n jobs)", fontsize=8)
    ax.set_ylabel(RATIO.replace("(ratio", "(log scale, ratio"), fontsize=8)


def _plain_log(ax) -> None:
    """Log-scale y axis with plain numbers (2, 5, 10, 20) instead of powers of ten."""
    from matplotlib.ticker import FuncFormatter

    def minor(v: float, _) -> str:  # label 2 and 5 times a power of ten only (no overlaps)
        lead = v / 10 ** np.floor(np.log10(v)) if v > 0 else 0.0
        return f"{v:g}" if min(abs(lead - 2), abs(lead - 5)) < 1e-6 else ""

    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_formatter(FuncFormatter(minor))
    ax.tick_params(axis="y", which="minor", labelsize=7)


def _save(fig, path: Path, made: list[Path], note: str = PRIORITY_NOTE, legend=None) -> None:
    """Write `fig` with `note` at the bottom and, if `legend` (an axis) is given, its legend
    below the panels (bars would hide it inside)."""
    fig.text(0.5, 0.005, note, ha="center", va="bottom", fontsize=8)
    bottom = 0.03 * (1 + note.count("\n")) * 5 / fig.get_size_inches()[1]
    if legend is not None:
        handles, labels = legend.get_legend_handles_labels()
        height = fig.get_size_inches()[1]
        fig.legend(handles, labels, loc="lower center", ncol=6, fontsize=7,
                   bbox_to_anchor=(0.5, 0.25 / height))
        bottom = 1.0 / height
    fig.tight_layout(rect=(0, bottom, 1, 1))
    fig.savefig(path, dpi=110)
    made.append(path)


def plots(res: Results, out: Path, figures: bool, sweeps: Sequence[str]) -> list[Path]:
    """Draw what `res` holds; return the files written."""
    plt = _plt()
    made: list[Path] = []
    if figures:
        fig, axes = plt.subplots(1, 2, figsize=(14, 4.5), gridspec_kw={"width_ratios": [1, 3]})
        _bars(axes[0], res, "mix", [DEFAULT], 0.08)
        _bars(axes[1], res, "mix", list(PN), 0.075)
        axes[0].set_title(f"mix, defaults (Fig. 3 left), lambda = {DEFAULT.lam:g}", fontsize=9)
        axes[1].set_title("mix, four (P, n) combinations (Fig. 3 right); bars: expected, "
                          "line tops: worst case", fontsize=9)
        _save(fig, out / "fig3.png", made, legend=axes[1])
        plt.close(fig)
        for name, configs, width in (("fig5", [DEFAULT], 0.08), ("fig6", list(PN), 0.075)):
            fig, axes = plt.subplots(2, 3, figsize=(16 if name == "fig6" else 12, 8))
            for ax, m in zip(axes.flat, PAPER_MODELS, strict=True):
                _bars(ax, res, m, configs, width)
                ax.set_title(m)
            fig.suptitle("Fig. 5: the 11 algorithm and priority combinations at the defaults "
                         f"(P = {DEFAULT.P}, n = {DEFAULT.n}, lambda = {DEFAULT.lam:g})"
                         if name == "fig5" else "Fig. 6: the 11 combinations at four (P, n) "
                         f"combinations, lambda = {DEFAULT.lam:g}; bars: expected, line tops: "
                         "worst case")
            _save(fig, out / f"{name}.png", made, legend=axes.flat[0])
            plt.close(fig)
    for fig_name, model_set in (("fig4", ("mix",)), ("fig789", PAPER_MODELS)):
        for name in sweeps:
            xs, configs = SWEEPS[name]
            fig, axes = plt.subplots(1, 1, figsize=(8, 5)) if len(model_set) == 1 else \
                plt.subplots(2, 3, figsize=(14, 8))
            for ax, m in zip(np.atleast_1d(axes).flat, model_set, strict=True):
                left_out = []
                for a in COLORS:
                    st = [res.get((m, c, a, "LPT")) for c in configs]
                    if any(s is None for s in st):
                        continue
                    y = np.array([s.expected for s in st])
                    if y.mean() > SWEEP_CAP and len(model_set) > 1:
                        left_out.append(a)
                        continue
                    band = 1.96 * np.nan_to_num(np.array([s.se for s in st]))
                    ax.plot(xs, y, marker="o", markersize=3, color=COLORS[a], label=NAMES[a])
                    ax.fill_between(xs, y - band, y + band, color=COLORS[a], alpha=0.15)
                    if len(model_set) == 1:  # Fig. 4: the maxima as dotted lines
                        ax.plot(xs, [s.maximum for s in st], linestyle=":", color=COLORS[a],
                                linewidth=1)
                ax.set_xscale("log" if name == "lambda" else "linear")
                ax.set_xlabel(AXES[name], fontsize=8)
                if len(model_set) == 1:  # Fig. 4 keeps MINAREA: log scale
                    _plain_log(ax)
                    ax.set_ylabel(RATIO.replace("(ratio", "(log scale, ratio"), fontsize=8)
                else:
                    ax.set_ylabel("expected " + RATIO, fontsize=8)
                ax.set_title(m + (f" (off scale: {', '.join(NAMES[a] for a in left_out)})"
                                  if left_out else ""), fontsize=9)
                ax.legend(fontsize=7)
            num = {"P": 7, "n": 8, "lambda": 9}[name]
            title = (f"Fig. 4: mix, sweep over {name}, LPT priority" if fig_name == "fig4" else
                     f"Fig. {num}: sweep over {name}, LPT priority")
            fig.suptitle(title)
            stem = f"fig4_{name}" if fig_name == "fig4" else f"fig{num}"
            note = ("LPT priority (longest processing time first); lines: expected value with "
                    "its 95 % band over the job sets" + ("\ndotted: worst case (maximum over "
                                                         "all runs)" if fig_name == "fig4" else ""))
            _save(fig, out / f"{stem}.png", made, note)
            plt.close(fig)
    return made
