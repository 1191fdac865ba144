#!/usr/bin/env python3
"""How much of each heuristic's gap to the clairvoyant optimum no online policy can avoid
(issue 26; docs/online.md).

For every instance of the library ``rigid-online`` (job sets at several q-bar levels, each
with its failure model), three expected makespans:

- E[T_OPT(f)], the clairvoyant optimum averaged over the scenarios (enumerated, an interval:
  `resilsched.models.online.expectation.clairvoyant_expectation`);
- E[T_online-OPT], the optimal online policy (``online-optimal``, exact);
- E[T_H] of every rigid heuristic with every priority rule, as the policy it is (exact).

The gap of a heuristic to the clairvoyant optimum, (E[T_H] - E[T_OPT]) / E[T_OPT], splits into
the *unavoidable* part (E[T_online-OPT] - E[T_OPT]) / E[T_OPT], the value of clairvoyance, and
the *avoidable* part (E[T_H] - E[T_online-OPT]) / E[T_OPT]. The script writes one CSV row per
instance and heuristic/priority, prints the summary table by q-bar (markdown) and draws the
split per heuristic (priority LPT) and q-bar as a PNG:

    python scripts/online_study.py                       # the study of docs/online.md
    python scripts/online_study.py --limit 8 --png /tmp/s.png --csv /tmp/s.csv

The CSV goes to results/online/study.csv (not in the repository), the PNG to
docs/online-study.png.
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from collections import defaultdict
from pathlib import Path

from resilsched.heuristics.rigid import PRIORITIES
from resilsched.library.catalog import find
from resilsched.models.online.expectation import clairvoyant_expectation
from resilsched.models.online.heuristics import RIGID, rigid_policy
from resilsched.models.online.policy import expected_makespan
from resilsched.models.online.problem import rigid_problem
from resilsched.models.online.solve import solve_rigid
from resilsched.registry import get_family

ROOT = Path(__file__).resolve().parents[1]
FIELDS = ("instance", "qbar", "n", "P", "heuristic", "priority", "e_heuristic", "e_online",
          "e_clairvoyant_low", "e_clairvoyant_high", "scenarios", "tail_mass")


def study(library: str, limit: int | None, max_scenarios: int, quiet: bool) -> list[dict]:
    """One row per instance and heuristic/priority (module docstring)."""
    (lib,) = find(library)
    fam = get_family(lib.family)
    entries = list(lib.entries())[:limit]
    rows = []
    cache: dict = {}  # T_OPT(f) per job set and scenario, shared by its q-bar levels
    t0 = time.perf_counter()
    for k, entry in enumerate(entries, 1):
        inst = fam.from_dict({key: v for key, v in entry.data.items() if key != "metadata"})
        online = solve_rigid(inst)
        if not online.is_optimal:
            raise RuntimeError(f"{entry.label}: online-optimal ended {online.status}")
        clair = clairvoyant_expectation(inst.rigid, inst.q, max_scenarios=max_scenarios,
                                        time_limit=10.0, policy=online.payload, cache=cache)
        if clair.low > online.objective:
            raise RuntimeError(f"{entry.label}: E[T_OPT] >= {float(clair.low)} exceeds the "
                               f"online optimum {float(online.objective)}")
        problem = rigid_problem(inst.rigid, inst.q)
        for h in RIGID:
            for prio in PRIORITIES:
                value, _ = expected_makespan(rigid_policy(problem, h, prio))
                if value < online.objective:
                    raise RuntimeError(f"{entry.label}: {h}/{prio} beats the online optimum")
                rows.append({
                    "instance": entry.name, "qbar": entry.data.get("qbar_level"),
                    "n": inst.n, "P": inst.P, "heuristic": h, "priority": prio,
                    "e_heuristic": float(value), "e_online": float(online.objective),
                    "e_clairvoyant_low": float(clair.low),
                    "e_clairvoyant_high": float(clair.high), "scenarios": clair.scenarios,
                    "tail_mass": float(clair.tail)})
        if not quiet:
            print(f"[{k}/{len(entries)}] {entry.name}: online {float(online.objective):.4f}, "
                  f"clairvoyant [{float(clair.low):.4f}, {float(clair.high):.4f}] "
                  f"({clair.scenarios} scenarios), {time.perf_counter() - t0:.0f} s",
                  file=sys.stderr, flush=True)
    return rows


def _parts(row: dict) -> tuple[float, float, float, float, float]:
    """(total gap, unavoidable, avoidable) to the clairvoyant optimum at the midpoint of its
    interval, and the bounds of the unavoidable part over the interval."""
    low, high = row["e_clairvoyant_low"], row["e_clairvoyant_high"]
    clair = (low + high) / 2
    unavoidable = (row["e_online"] - clair) / clair
    avoidable = (row["e_heuristic"] - row["e_online"]) / clair
    return (unavoidable + avoidable, unavoidable, avoidable, (row["e_online"] - high) / high,
            (row["e_online"] - low) / low)


def summary(rows: list[dict], priority: str = "LPT") -> tuple[list[str], dict]:
    """The markdown table by q-bar and heuristic (rule `priority`), and the plotted means
    (unavoidable, avoidable, unavoidable low, unavoidable high)."""
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for row in rows:
        if row["priority"] == priority:
            groups[(float(row["qbar"]), row["heuristic"])].append(row)
    lines = ["| q-bar | heuristic | gap to clairvoyant | unavoidable | (its bounds) | "
             "avoidable | unavoidable share |",
             "|---|---|---|---|---|---|---|"]
    means = {}
    order = list(RIGID)
    for (qbar, h), group in sorted(groups.items(), key=lambda kv: (kv[0][0],
                                                                  order.index(kv[0][1]))):
        parts = [_parts(r) for r in group]
        total, unav, av, lo, hi = (sum(p[i] for p in parts) / len(parts) for i in range(5))
        share = unav / total if total > 0 else float("nan")
        means[(qbar, h)] = (unav, av, lo, hi)
        lines.append(f"| {qbar:g} | {h} | {100 * total:.2f}% | {100 * unav:.2f}% | "
                     f"[{100 * lo:.2f}%, {100 * hi:.2f}%] | {100 * av:.2f}% | "
                     f"{100 * share:.0f}% |")
    return lines, means


def plot(means: dict, path: Path, priority: str = "LPT") -> None:
    """Stacked bars: the unavoidable and avoidable parts of each heuristic's gap, per q-bar;
    the black bars span the unavoidable part's bounds (the clairvoyant interval)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    qbars = sorted({q for q, _ in means})
    names = list(RIGID)
    fig, axes = plt.subplots(1, len(qbars), figsize=(3.4 * len(qbars), 4.4), sharey=True)
    axes = list(axes) if len(qbars) > 1 else [axes]
    for ax, qbar in zip(axes, qbars, strict=True):
        got = [means.get((qbar, h), (0.0, 0.0, 0.0, 0.0)) for h in names]
        unav = [100 * g[0] for g in got]
        av = [100 * g[1] for g in got]
        xs = list(range(len(names)))
        ax.bar(xs, unav, color="#4c72b0", label="unavoidable: E[T_online-OPT] vs E[T_OPT(f)]")
        ax.bar(xs, av, bottom=unav, color="#dd8452",
               label="avoidable: the heuristic vs E[T_online-OPT]")
        ax.errorbar(xs, unav, yerr=[[u - 100 * g[2] for u, g in zip(unav, got, strict=True)],
                                    [100 * g[3] - u for u, g in zip(unav, got, strict=True)]],
                    fmt="none", ecolor="black", elinewidth=1, capsize=2)
        ax.set_xticks(xs, [h.replace("R-", "") for h in names], rotation=60, ha="right",
                      fontsize=8)
        ax.set_title(f"q-bar = {qbar:g}")
        ax.grid(axis="y", alpha=0.3)
    axes[0].set_ylabel(f"mean gap to E[T_OPT(f)] in %, priority {priority}")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=2, fontsize=9, frameon=False)
    fig.suptitle("Each heuristic's gap to the clairvoyant optimum, split at the optimal online "
                 "policy (library rigid-online, 25 job sets per q-bar)", fontsize=10)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="online_study.py", description=__doc__.split("\n")[0])
    parser.add_argument("--library", default="rigid-online", help="library name or folder")
    parser.add_argument("--limit", type=int, default=None, help="only the first N instances")
    parser.add_argument("--max-scenarios", type=int, default=1000,
                        help="most scenarios enumerated per instance for E[T_OPT(f)]")
    parser.add_argument("--csv", type=Path, default=Path("results") / "online" / "study.csv",
                        help="one row per instance and heuristic/priority (default "
                             "results/online/study.csv)")
    parser.add_argument("--png", type=Path, default=ROOT / "docs" / "online-study.png")
    parser.add_argument("-q", "--quiet", action="store_true")
    args = parser.parse_args(argv)
    rows = study(args.library, args.limit, args.max_scenarios, args.quiet)
    args.csv.parent.mkdir(parents=True, exist_ok=True)
    with args.csv.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=FIELDS)
        writer.writeheader()
        writer.writerows(rows)
    lines, means = summary(rows)
    plot(means, args.png)
    print("\n".join(lines))
    best = [r for r in rows if r["e_heuristic"] == r["e_online"]]
    print(f"\n{len({r['instance'] for r in rows})} instances; {len(best)} of {len(rows)} "
          "heuristic/priority pairs reach the online optimum exactly; "
          f"wrote {args.csv} and {args.png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
