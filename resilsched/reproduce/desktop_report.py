"""Tables, claim verdicts (spec 004 §5, R1-R10) and the boxplots of Figs. 5-7 for
`resilsched.reproduce.desktop`.

Every statistic is per absorb setting (the instances as generated, and after
`absorb_short(2 p_max)`, A-11). Medians are over instances (Fig. 5: horizon ratio to the
smallest horizon of the 20 variants on that instance; Fig. 6: sigma = disturbed makespan /
lambda, per-instance maximum over the runs, A-17, and pooled over all runs; Fig. 7: CPU time of
the build). The thresholds that turn a sentence of the paper into a verdict are stated next to
each verdict.
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

from resilsched.heuristics.desktop.policies import VARIANTS

LOCALS = ("LPT", "SPT", "FFD", "FFI", "DPslack")
GLOBALS = ("GS", "DA")


def _med(xs: list[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


def _by_variant(recs: list[dict], key: str) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for r in recs:
        val = r[key] if key != "sigma_max" else max(r["sigmas"], default=0.0)
        out.setdefault(r["variant"], []).append(val)
    return out


def _slack(v: str) -> bool:
    return not v.endswith("-noslack")


def claims(recs: list[dict]) -> list[str]:
    """The verdicts on R1-R10 for one absorb setting (spec 5, reproduction targets)."""
    ratio = {v: _med(x) for v, x in _by_variant(recs, "ratio").items()}
    cpu = {v: _med(x) for v, x in _by_variant(recs, "cpu").items()}
    pooled: dict[str, list[float]] = {}
    for r in recs:
        pooled.setdefault(r["variant"], []).extend(r["sigmas"])
    sig = {v: _med(x) for v, x in pooled.items()}
    slack = sorted((v for v in ratio if _slack(v)), key=lambda v: ratio[v])
    have = set(ratio)
    out = []

    def verdict(rid: str, ok: bool | None, text: str, partly: bool = False) -> None:
        word = "holds" if ok else ("partly" if partly else "does not hold")
        out.append(f"- **{rid}** {'n/a' if ok is None else word}: {text}")

    lpt = [ratio[v] for v in ("GS-LPT", "DA-LPT") if v in have]
    verdict("R1", all(1.4 <= x <= 1.6 for x in lpt) if lpt else None,
            "median horizon ratio of LPT (GS, DA) = "
            f"{', '.join(f'{x:.3f}' for x in lpt)} (paper: about 1.5; holds in [1.4, 1.6]; "
            "the ratio moves with the job sizes: `--only r1-sizes`)",
            partly=bool(lpt) and all(x > 1 for x in lpt))
    pairs = {}
    by_inst: dict[tuple, dict[str, int]] = {}
    for r in recs:
        by_inst.setdefault((r["machine_set"], r["job_set"]), {})[r["variant"]] = r["horizon"]
    for g in GLOBALS:
        for loc in LOCALS:
            a, b = f"{g}-{loc}", f"{g}-{loc}-noslack"
            xs = [h[a] / h[b] for h in by_inst.values() if a in h and b in h]
            if xs:
                pairs[a] = _med(xs)
    if pairs:
        low = min(pairs.values())
        verdict("R2", low >= 1.5, "median slack / no-slack horizon per variant: "
                + ", ".join(f"{k} {x:.2f}" for k, x in pairs.items())
                + " (paper: at least 1.5 for all)", partly=low > 1)
    top5 = slack[:5]
    verdict("R3", sum(v.startswith("DA") for v in top5) >= 3 if top5 else None,
            f"best slack variants by median ratio: {', '.join(top5)} (holds if >= 3 are DAslack)")
    conds, text = [], []
    for loc in LOCALS:
        if f"GS-{loc}" in have and f"DA-{loc}" in have:
            gs, da = ratio[f"GS-{loc}"], ratio[f"DA-{loc}"]
            conds.append(da < gs if loc in ("FFD", "FFI", "DPslack") else da >= 0.99 * gs)
            text.append(f"{loc} GS {gs:.3f} / DA {da:.3f}")
    if conds:
        verdict("R4", all(conds), "; ".join(text) + " (DA better for FFD, FFI, DPslack; not "
                "better than 1% for LPT, SPT)", partly=sum(conds) >= 3)
    bins = [ratio[f"GS-{x}"] for x in ("FFI", "FFD", "DPslack") if f"GS-{x}" in have]
    if "GS-LPT" in have and bins:
        verdict("R5", ratio["GS-LPT"] < min(bins), f"GS-LPT {ratio['GS-LPT']:.3f} vs GS "
                "FFI/FFD/DPslack " + ", ".join(f"{x:.3f}" for x in bins))
    if len(slack) >= 3:
        ok = set(slack[:2]) == {"GS-LPT", "DA-LPT"} and slack[2] == "DA-FFD"
        part = bool({"GS-LPT", "DA-LPT", "DA-FFD"} & set(slack[:3]))
        verdict("R6", ok, "slack variants ranked by median ratio: "
                + ", ".join(f"{v} {ratio[v]:.3f}" for v in slack[:5])
                + " (paper: LPT with both, then DA-FFD)", partly=part)
    bad = {v: sum(s > 1 for s in pooled[v]) for v in pooled if _slack(v)}
    runs = sum(len(pooled[v]) for v in pooled if _slack(v))
    worst = max((max(pooled[v]) for v in pooled if _slack(v) and pooled[v]), default=0)
    ns = [v for v in pooled if not _slack(v)]
    ns_bad = sum(sum(s > 1 for s in pooled[v]) for v in ns)
    ns_all = sum(len(pooled[v]) for v in ns)
    verdict("R7", sum(bad.values()) == 0 if runs else None,
            f"{sum(bad.values())} of {runs} disturbed runs of slack variants have sigma > 1 "
            f"(max sigma {worst:.6f}); no-slack variants: {ns_bad} of {ns_all} runs with "
            "sigma > 1 (target 2 of spec 5)")
    stable = sorted((v for v in sig if _slack(v)), key=lambda v: sig[v])[:3]
    least = set(slack[-3:])
    want = {"GS-FFI", "GS-SPT", "GS-DPslack"}
    verdict("R8", set(stable) == want and least == want,
            "lowest median sigma (slack): " + ", ".join(f"{v} {sig[v]:.3f}" for v in stable)
            + f"; least efficient: {', '.join(slack[-3:])} (paper: GS-FFI, GS-SPT, GS-DPslack "
            "for both)", partly=len(set(stable) & want) >= 2)
    ratios = {}
    for loc in LOCALS:
        g = [cpu[v] for v in (f"GS-{loc}", f"GS-{loc}-noslack") if v in cpu]
        d = [cpu[v] for v in (f"DA-{loc}", f"DA-{loc}-noslack") if v in cpu]
        if g and d and min(g) > 0:
            ratios[loc] = _med(d) / _med(g)
    if ratios:
        spread = max(ratios.values()) / min(ratios.values())
        verdict("R9", spread <= 2, "DA / GS time ratio per local policy: "
                + ", ".join(f"{k} {x:.1f}" for k, x in ratios.items())
                + f" (max / min {spread:.1f}; holds if <= 2)", partly=spread <= 3)
    per_local = {loc: _med([cpu[v] for v in cpu if v.split("-")[1] == loc]) for loc in LOCALS
                 if any(v.split("-")[1] == loc for v in cpu)}
    if len(per_local) == len(LOCALS):
        fast, slow = min(per_local, key=per_local.get), max(per_local, key=per_local.get)
        verdict("R10", fast == "FFI" and slow == "DPslack", "median CPU time per local policy: "
                + ", ".join(f"{k} {x:.3f} s" for k, x in per_local.items())
                + f" (fastest {fast}, slowest {slow}; paper: FFI, DPslack)",
                partly=fast == "FFI" or slow == "DPslack")
    return out


def table(recs: list[dict]) -> list[str]:
    ratio, smax = _by_variant(recs, "ratio"), _by_variant(recs, "sigma_max")
    cpu, wall = _by_variant(recs, "cpu"), _by_variant(recs, "wall")
    pooled: dict[str, list[float]] = {}
    for r in recs:
        pooled.setdefault(r["variant"], []).extend(r["sigmas"])
    out = ["| variant | median ratio (Fig. 5) | median sigma max (Fig. 6) | max sigma | runs "
           "sigma > 1 | median CPU s (Fig. 7) | median wall s |", "|---|---|---|---|---|---|---|"]
    for v in VARIANTS:
        if v not in ratio:
            continue
        over = sum(s > 1 for s in pooled[v])
        out.append(f"| {v} | {_med(ratio[v]):.3f} | {_med(smax[v]):.3f} | "
                   f"{max(pooled[v], default=0):.4f} | {over}/{len(pooled[v])} | "
                   f"{_med(cpu[v]):.3f} | {_med(wall[v]):.3f} |")
    return out


def summary(recs: list[dict], args: Any, elapsed: float) -> str:
    head = [f"# Desktop grids (spec 004 §4.5): {args.machine_sets} machine sets x {args.job_sets}"
            f" job sets, {args.hosts} hosts, {args.job_count} jobs, {args.runs} disturbed runs "
            f"(alpha {args.alpha}), traces of {args.span_days:g} days, seed {args.seed}", ""]
    for absorb in (False, True):
        part = [r for r in recs if r["absorb"] == absorb]
        if not part:
            continue
        inst = {(r["machine_set"], r["job_set"]): r["h1"] for r in part}
        head += [f"## absorb_short {'on (2 p_max)' if absorb else 'off'}: {len(inst)} instances, "
                 f"H1 (2 p_max <= a_min) holds on {sum(inst.values())}", ""]
        head += table(part) + ["", "Claims (spec 5):", ""] + claims(part) + [""]
    head.append(f"Wall time {elapsed:.0f} s")
    return "\n".join(head) + "\n"


def plots(recs: list[dict], out: Path) -> list[Path]:
    """Figs. 5-7 as boxplots (one set per absorb setting); matplotlib imported only here."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    made = []
    for absorb in (False, True):
        part = [r for r in recs if r["absorb"] == absorb]
        if not part:
            continue
        tag = "_absorb" if absorb else ""
        note = " (absorb_short on)" if absorb else ""
        ratio, smax = _by_variant(part, "ratio"), _by_variant(part, "sigma_max")
        pooled: dict[str, list[float]] = {}
        for r in part:
            pooled.setdefault(r["variant"], []).extend(r["sigmas"])
        names = [v for v in VARIANTS if v in ratio]
        for fname, data, ylabel, title in (
            ("fig5_horizon_ratio", ratio, "horizon / min horizon of the instance",
             "Fig. 5: horizon ratio"),
            ("fig6_stability", smax, "sigma = disturbed makespan / horizon (max over runs)",
             "Fig. 6: stability, per-instance maximum"),
            ("fig6_stability_pooled", pooled, "sigma of every disturbed run",
             "Fig. 6: stability, all runs"),
        ):
            stab = "stability" in fname
            made.append(_box(plt, out / f"{fname}{tag}.png", names, data, ylabel,
                             title + note, line=1.0 if stab else None, log=stab,
                             zoom=[v for v in names if _slack(v)] if stab else None))
        cpu = _by_variant(part, "cpu")
        order = sorted(names, key=lambda v: _med(cpu[v]))
        made.append(_box(plt, out / f"fig7_time{tag}.png", order, cpu, "build time (CPU s)",
                         "Fig. 7: execution time" + note, log=True))
    return made


def _box(plt: Any, path: Path, names: list[str], data: dict, ylabel: str, title: str,
         line: float | None = None, log: bool = False, zoom: list[str] | None = None) -> Path:
    """Boxplots (whiskers 1.5 IQR, spec 4.4); `zoom` adds a linear panel of those variants."""
    panels = [(names, log, title + "; shaded: without slack rule")]
    if zoom:
        panels.append((zoom, False, "the slack variants alone (linear scale)"))
    fig, axes = plt.subplots(len(panels), 1, figsize=(12, 4.8 * len(panels)), squeeze=False)
    for ax, (group, logy, head) in zip(axes[:, 0], panels, strict=True):
        ax.boxplot([data[v] for v in group], whis=1.5)
        ax.set_xticks(range(1, len(group) + 1), group, rotation=60, ha="right", fontsize=8)
        for k, v in enumerate(group, 1):
            if v.endswith("-noslack"):
                ax.axvspan(k - 0.5, k + 0.5, color="0.93", zorder=0)
        if line is not None:
            ax.axhline(line, color="tab:red", lw=0.8, ls="--")
        if logy:
            ax.set_yscale("log")
        ax.set_ylabel(ylabel)
        ax.set_title(head)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
