"""Claims R1-R5 of spec 001 §5 checked on the reproduced figures, the summary and the plots.

The acceptance criteria are the spec's [REC] list: (a) Fig. 1.4: ENDGREEDY <= ENDLOCAL + eps,
both < 0.8 at p in {2000, 3000}, both -> 1 at p = 10000; (b) Fig. 1.5: best combination < 0.6
at n = 1000, the ratio decreases with n, IG < SAF for the same END heuristic; (c) Fig. 1.6: IG's
ratio rises as the MTBF falls, SAF <= IG at MTBF <= 10 years; (d) Fig. 1.7: the faulty/fault-free
gap shrinks as c decreases (and the heuristics' makespans, in days, fall with c; the normalised
ratio need not, since the reference improves too); R5: a smaller f makes redistribution more
efficient. Trends tolerate a step back of TREND (about the 95% half-width at 10 repetitions).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

EPS = 0.01  # "slightly better", "about equal": one point of normalised makespan
TREND = 0.02  # a trend tolerates steps back of two points (about the 95% half-width at 10 reps)


def _series(rows: list[dict], method: str) -> list[tuple[Any, float]]:
    return [(r["x"], r["ratio"]) for r in rows if r["method"] == method]


def _at(rows: list[dict], method: str, x: Any) -> float | None:
    for r in rows:
        if r["method"] == method and r["x"] == x:
            return r["ratio"]
    return None


def _days(rows: list[dict], method: str, x: Any) -> float:
    for r in rows:
        if r["method"] == method and r["x"] == x:
            return r["mean_days"]
    raise KeyError((method, x))


def _decreasing(values: list[float], slack: float = EPS) -> bool:
    return all(b <= a + slack for a, b in zip(values, values[1:], strict=False))


def claims(tables: dict[str, list[dict]]) -> list[tuple[str, str, str, str]]:
    """(id, claim, verdict, evidence) for every claim whose figure was run."""
    out = []
    if "1.4" in tables:
        t = tables["1.4"]
        el, eg = _series(t, "FF-ENDLOCAL"), _series(t, "FF-ENDGREEDY")
        ps = [x for x, _ in eg]
        low = [p for p in ps if p < 4000]
        ok_order = all(g <= loc + EPS for (_, loc), (_, g) in zip(el, eg, strict=True))
        ok_gain = all(_at(t, m, p) < 0.8 for m in ("FF-ENDLOCAL", "FF-ENDGREEDY") for p in low)
        last = [_at(t, m, ps[-1]) for m in ("FF-ENDLOCAL", "FF-ENDGREEDY")]
        ok_conv = all(v > 0.95 for v in last) and _decreasing([-v for _, v in eg], 0.02)
        verdict = "holds" if ok_order and ok_gain and ok_conv else (
            "partly" if ok_order or ok_conv else "fails")
        ev = (f"ENDGREEDY <= ENDLOCAL + {EPS} at every p: {ok_order}; ratios at p < 4000: "
              + ", ".join(f"p={p}: {_at(t, 'FF-ENDLOCAL', p):.3f}/{_at(t, 'FF-ENDGREEDY', p):.3f}"
                          for p in low)
              + f"; at p={ps[-1]}: {last[0]:.3f}/{last[1]:.3f} (ENDLOCAL/ENDGREEDY)")
        out.append(("R1", "Fig 1.4: gain > 20% below 4000 processors, ENDGREEDY slightly "
                          "better, converging to no redistribution", verdict, ev))
    if "1.5" in tables:
        t = tables["1.5"]
        ns = sorted({r["x"] for r in t})
        best = {n: min(_at(t, m, n) for m in ("ENDLOCAL-SAF", "ENDLOCAL-IG", "ENDGREEDY-SAF",
                                               "ENDGREEDY-IG")) for n in ns}
        ok_gain = best[ns[-1]] < 0.6
        ok_trend = best[ns[-1]] < best[ns[0]] and _decreasing([best[n] for n in ns], TREND)
        ig_wins = sum(_at(t, f"{e}-IG", n) <= _at(t, f"{e}-SAF", n) + 1e-12
                      for e in ("ENDLOCAL", "ENDGREEDY") for n in ns)
        eg_ig = max(abs(_at(t, "ENDGREEDY-IG", n) - _at(t, "ENDLOCAL-IG", n)) for n in ns)
        eg_saf = sum(_at(t, "ENDGREEDY-SAF", n) <= _at(t, "ENDLOCAL-SAF", n) + 1e-12
                     for n in ns)
        total = 2 * len(ns)
        verdict = "holds" if ok_gain and ok_trend and ig_wins == total else (
            "partly" if ok_gain or ok_trend else "fails")
        ev = (f"best ratio at n={ns[-1]}: {best[ns[-1]]:.3f} (< 0.6: {ok_gain}); at n={ns[0]}: "
              f"{best[ns[0]]:.3f}; decreasing in n: {ok_trend}; IG <= SAF in {ig_wins}/{total} "
              f"(END, n) pairs; |ENDGREEDY-IG - ENDLOCAL-IG| <= {eg_ig:.3f}; ENDGREEDY-SAF <= "
              f"ENDLOCAL-SAF at {eg_saf}/{len(ns)} n")
        out.append(("R2", "Fig 1.5: gain > 40% at n = 1000, growing with n; IG beats SAF; "
                          "ENDGREEDY helps SAF, not IG", verdict, ev))
    if "1.6" in tables:
        t = tables["1.6"]
        ys = sorted({r["x"] for r in t})
        ig = [min(_at(t, "ENDLOCAL-IG", y), _at(t, "ENDGREEDY-IG", y)) for y in ys]
        saf = [min(_at(t, "ENDLOCAL-SAF", y), _at(t, "ENDGREEDY-SAF", y)) for y in ys]
        rises = ig[0] > ig[-1] and _decreasing(ig, 0.02)
        low = [k for k, y in enumerate(ys) if y <= 10]
        saf_wins = all(saf[k] <= ig[k] + 1e-12 for k in low)
        verdict = "holds" if rises and saf_wins else ("partly" if rises or saf_wins else "fails")
        ev = ("best IG ratio by MTBF: " + ", ".join(f"{y}y {v:.3f}" for y, v in zip(ys, ig,
                                                                                  strict=True))
              + "; best SAF: " + ", ".join(f"{y}y {v:.3f}" for y, v in zip(ys, saf, strict=True)))
        out.append(("R3", "Fig 1.6: lower MTBF hurts IG; SAF beats IG at MTBF <= 10 years",
                    verdict, ev))
    if "1.7" in tables:
        t = tables["1.7"]
        cs = sorted({r["x"] for r in t})
        heur = ("ENDLOCAL-IG", "ENDGREEDY-IG", "ENDLOCAL-SAF", "ENDGREEDY-SAF")
        best = [min(_at(t, m, c) for m in heur) for c in cs]
        days = [min(_days(t, m, c) for m in heur) for c in cs]
        ff = [_at(t, "FF-ENDGREEDY", c) for c in cs]
        gap = [b - f for b, f in zip(best, ff, strict=True)]
        ok_gap = all(a <= b + 1e-9 for a, b in zip(gap, gap[1:], strict=False))
        ok_perf = all(a <= b + 1e-9 for a, b in zip(days, days[1:], strict=False))
        verdict = "holds" if ok_gap and ok_perf else ("partly" if ok_gap or ok_perf else "fails")
        ev = ("gap best heuristic - fault-free ENDGREEDY (normalised): "
              + ", ".join(f"c={c}: {g:.3f}" for c, g in zip(cs, gap, strict=True))
              + "; best heuristic (days): "
              + ", ".join(f"c={c}: {d:.0f}" for c, d in zip(cs, days, strict=True))
              + "; normalised ratio: " + ", ".join(f"{b:.3f}" for b in best))
        out.append(("R4", "Fig 1.7: smaller c, better heuristics and a smaller faulty/fault-free "
                          "gap", verdict, ev))
    if "f" in tables:
        t = tables["f"]
        fs = sorted({r["x"] for r in t})
        best = [min(_at(t, m, f) for m in ("ENDLOCAL-IG", "ENDGREEDY-IG", "ENDLOCAL-SAF",
                                           "ENDGREEDY-SAF")) for f in fs]
        ok = best[0] < best[-1] and all(a <= b + TREND for a, b in zip(best, best[1:],
                                                                       strict=False))
        verdict = "holds" if ok else ("partly" if best[0] < best[-1] else "fails")
        ev = "best ratio by f: " + ", ".join(f"f={f}: {b:.3f}" for f, b in zip(fs, best,
                                                                            strict=True))
        out.append(("R5", "[2]: a smaller sequential fraction f makes redistribution more "
                          "efficient", verdict, ev))
    return out


def summary(tables, sanity, verdicts, args, seconds: float) -> str:
    """The Markdown summary written to ``summary.md``."""
    lines = [f"# Malleable reproduction (spec 001 §5): {args.reps} repetitions, scale "
             f"1/{args.scale}, seed {args.seed}, {seconds:.0f} s", ""]
    for fig, rows in tables.items():
        methods = list(dict.fromkeys(r["method"] for r in rows))
        xs = list(dict.fromkeys(r["x"] for r in rows))
        param = rows[0]["parameter"]
        lines += [f"## Figure {fig}: normalised makespan (ratio of means) vs {param}",
                  "", "| " + param + " | " + " | ".join(methods) + " |",
                  "|" + "---|" * (len(methods) + 1)]
        for x in xs:
            cells = [f"{_at(rows, m, x):.3f}" for m in methods]
            lines.append(f"| {x} | " + " | ".join(cells) + " |")
        ref = [r for r in rows if r["method"] == methods[0]]
        lines += ["", "reference mean makespan (days): "
                  + ", ".join(f"{r['x']}: {r['mean_days']:.1f}" for r in ref), ""]
    if sanity:
        lines += ["## Failures per run (spec §4 table)", "",
                  "| n | p | MTBF (y) | spec | trace failures during the run | struck "
                  "applications | fault-free (days) | faulty, no redistribution (days) |",
                  "|---|---|---|---|---|---|---|---|"]
        for r in sanity:
            lines.append(f"| {r['n']} | {r['p']} | {r['mtbf_years']} | {r['spec_failures']} | "
                         f"{r['trace_failures']:.1f} | {r['failures_struck']:.1f} | "
                         f"{r['fault_free_days']:.0f} | {r['noredist_days']:.0f} |")
        lines.append("")
    if verdicts:
        lines += ["## Claims", "", "| claim | statement | verdict | evidence |",
                  "|---|---|---|---|"]
        lines += [f"| {c} | {s} | {v} | {e} |" for c, s, v, e in verdicts]
    return "\n".join(lines) + "\n"


def plot(fig: str, rows: list[dict], out: Path) -> Path:
    """Normalised makespan vs the swept parameter, one line per method, 95% bars."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    param = rows[0]["parameter"]
    methods = list(dict.fromkeys(r["method"] for r in rows))
    figure, ax = plt.subplots(figsize=(6.4, 4.2))
    styles = {"NOREDIST": ("k", "--"), "FF-NOREDIST": ("k", "--"),
              "FF-ENDLOCAL": ("tab:green", ":"), "FF-ENDGREEDY": ("tab:olive", ":")}
    for m in methods:
        pts = [r for r in rows if r["method"] == m]
        color, ls = styles.get(m, (None, "-"))
        ax.errorbar([r["x"] for r in pts], [r["ratio"] for r in pts],
                    yerr=[r["ci95"] for r in pts], label=m, color=color, linestyle=ls,
                    marker="o", markersize=3, capsize=2)
    if param == "c":
        ax.set_xscale("log")
    label = {"p": "processors p", "n": "applications n", "mtbf_years": "MTBF (years)",
             "c": "checkpoint factor c", "f": "sequential fraction f"}[param]
    ax.set_xlabel(label)
    ax.set_ylabel(f"makespan / {methods[0]}")
    ax.set_title(f"Figure {fig}" if fig != "f" else "f sweep ([2])")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    path = out / f"fig{fig.replace('.', '_')}.png"
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path
