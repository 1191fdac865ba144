"""The markdown tables of the rigid reproduction's ``summary.md``: Figs. 4-8, Table 1, the
Mira days left out, and the claims per reservation mode, each beside the paper's numbers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from resilsched.reproduce.rigid.config import (
    FILLING,
    FIVE,
    LOOSE_FILL,
    MIRA_QBARS,
    PAPER_BEST,
    PAPER_TABLE1,
    PRIORITIES7,
    SHELVES4,
    SHORT,
    Config,
    fill_variant,
    short,
    unlabel,
)
from resilsched.reproduce.rigid.fillrule import fill_gains


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
    if "fill-rule" in cfg.only:
        parts.append(fill_rule_markdown(cfg, agg))
    names = [h for h in dict.fromkeys(k[0] for k in agg) if unlabel(h)[0] in FIVE
             and not fill_variant(h)]
    names.sort(key=lambda h: (FIVE.index(unlabel(h)[0]), h))

    def best(h: str) -> str:
        return PAPER_BEST[unlabel(h)[0]]

    if "fig5" in cfg.only:
        head = ["q-bar"] + [f"{short(h)}-{best(h)}" for h in names] + \
               [f"best prio (ours) {short(h)}" for h in names]
        rows = []
        for q in cfg.qbars:
            r = [q] + [f"{agg[h, best(h), q, cfg.P_default]['mean']:.3f}" for h in names]
            r += [min(PRIORITIES7, key=lambda pr, h=h: agg[h, pr, q, cfg.P_default]["mean"])
                  for h in names]
            rows.append(r)
        parts.append(f"Fig. 5(f) (P = {cfg.P_default}): mean T/L(f) with the paper's best "
                     "priority (A20), and the best priority we measure at each q-bar\n\n"
                     + md_table(head, rows))
    if "fig6" in cfg.only:
        q0 = cfg.qbar_P_sweep
        head = ["P"] + [f"{short(h)}-{best(h)}" for h in names] + \
               [f"best prio (ours) {short(h)}" for h in names]
        rows = []
        for P in cfg.Ps:
            r = [P] + [f"{agg[h, best(h), q0, P]['mean']:.3f}" for h in names]
            r += [min(PRIORITIES7, key=lambda pr, h=h: agg[h, pr, q0, P]["mean"]) for h in names]
            rows.append(r)
        parts.append(f"Fig. 6(f) (q-bar = {q0}): mean T/L(f)\n\n" + md_table(head, rows))
    return "\n\n".join(parts)


def fill_rule_markdown(cfg: Config, agg: dict[tuple, Any]) -> str:
    """Fig. 4(b) under both refill rules: mean T/L(f) of the four shelf heuristics and of
    R-SHELFFILL-B/NB with ``fill=any-queued``, and the gains over R-SHELF at every P."""
    q0 = cfg.qbar_P_sweep
    loose = [f"{h}/{LOOSE_FILL}" for h in FILLING]
    names = [*SHELVES4, *loose]
    pairs = [(h, h.replace("SHELFFILL", "SHELF")) for h in FILLING]
    pairs += [(f"{h}/{LOOSE_FILL}", h.replace("SHELFFILL", "SHELF")) for h in FILLING]
    gains = {fill: fill_gains(cfg, agg, fill, plain) for fill, plain in pairs}
    head = ["P"] + [short(h) for h in names] + [f"gain {short(f)}" for f, _ in pairs]
    rows = []
    for i, P in enumerate(cfg.Ps):
        r: list[Any] = [P] + [f"{agg[h, 'LPT', q0, P]['mean']:.3f}" for h in names]
        for f, _ in pairs:
            g, se = gains[f][i]
            r.append(f"{100 * g:+.1f}%" + ("" if se is None else f" ± {200 * se:.1f}"))
        rows.append(r)
    return (f"Fig. 4(b) under both refill rules (LPT, q-bar = {q0}): mean T/L(f); gain = "
            "mean(R-SHELF) / mean(R-SHELFFILL) - 1, ± two standard errors across sets; "
            "fill=own is the default (A17), any-queued starts any queued job that ends by the "
            "shelf's end (R32)\n\n" + md_table(head, rows))


def _mira_names(agg: dict[tuple, Any]) -> list[str]:
    names = [h for h in dict.fromkeys(k[0] for k in agg)]
    return sorted(names, key=lambda h: (FIVE.index(unlabel(h)[0]), h))


def table1_markdown(t1: dict[str, Any]) -> str:
    """Table 1 (LPT): mean, std and max across the per-day means, paper values in parentheses
    (R-LIST-1/Q once per reservation mode)."""
    agg = t1["agg"]
    names = _mira_names(agg)
    qs = [q for q in MIRA_QBARS if t1["kept"][q]]
    head = ["q-bar", "days", "avg #failures (ours / expected / paper)"] + \
           [f"{short(h)} avg (paper)" for h in names]
    rows, rows2 = [], []
    for q in qs:
        paper_f, paper = PAPER_TABLE1[q]
        dom = sum(d["qbar"] == q for d in t1["dominated"])
        days = f"{t1['kept'][q]} ({dom} dominated)" if dom else t1["kept"][q]
        rows.append([q, days, f"{t1['failures'][q]:.2f} / {t1['expected'][q]:.2f} / "
                     f"{paper_f}"] +
                    [f"{agg[h, 'LPT', q]['mean']:.3f} ({paper[unlabel(h)[0]][0]:.3f})"
                     for h in names])
        rows2.append([q] + [f"{agg[h, 'LPT', q]['std']:.2e} ({paper[unlabel(h)[0]][1]:.2e})"
                            for h in names] +
                     [f"{agg[h, 'LPT', q]['max']:.3f} ({paper[unlabel(h)[0]][2]:.3f})"
                      for h in names])
    head2 = ["q-bar"] + [f"{short(h)} std" for h in names] + [f"{short(h)} max" for h in names]
    text = (f"Table 1 analogue: {t1['source']}, {t1['jobs_per_day']:.1f} jobs/day, LPT; "
            "statistics across the per-day means (A11); paper values in parentheses\n\n"
            + md_table(head, rows) + "\n\n" + md_table(head2, rows2))
    warning = f"\n\n**{t1['warning']}**" if t1.get("warning") else ""
    return text + warning + degenerate_markdown(t1)


def degenerate_markdown(t1: dict[str, Any]) -> str:
    """The (day, q-bar) pairs left out or flagged by `experiments.degenerate_days`."""
    parts = []
    if t1["skipped"]:
        parts.append("**Left out** (the scenario sampler refuses the calibrated q_j: more "
                     "expected attempts than its cap):\n\n" + "\n".join(
                         f"- {s['name']}, q-bar {s['qbar']}: {s['reason']}"
                         for s in t1["skipped"]))
    if t1["dominated"]:
        parts.append("**Warning**, one job dominates (its expected chain of attempts exceeds "
                     "10 x the day's failure-free L, so every T/L(f) is close to 1 by "
                     "construction):\n\n" + "\n".join(
                         f"- {s['name']}, q-bar {s['qbar']}: job {s['job']}, chain "
                         f"{s['chain_over_L']:.3g} x L" for s in t1["dominated"]))
    return "".join("\n\n" + p for p in parts)


def fig78_markdown(t1: dict[str, Any]) -> str:
    """Figs. 7-8 in numbers: per heuristic and q-bar, the mean over days of each priority and
    the number of days where it is the best one."""
    agg = t1["agg"]
    rows = []
    for h in _mira_names(agg):
        for q in (q for q in MIRA_QBARS if t1["kept"][q]):
            days = agg[h, "LPT", q]["per_set"]
            wins = dict.fromkeys(PRIORITIES7, 0)
            for k in days:
                vals = {pr: agg[h, pr, q]["per_set"].get(k, float("inf")) for pr in PRIORITIES7}
                low = min(vals.values())
                for pr in PRIORITIES7:
                    wins[pr] += vals[pr] <= low + 1e-12
            rows.append([short(h), q] + [f"{agg[h, pr, q]['mean']:.3f} ({wins[pr]})"
                                         for pr in PRIORITIES7])
    return ("Figs. 7-8 analogue (every priority on every day): mean over days of the per-day "
            "mean T/L(f), and in parentheses the number of days where the priority is the best "
            "(ties counted for each)\n\n" + md_table(["heuristic", "q-bar", *PRIORITIES7], rows))


def claims_markdown(claims: list[tuple[str, str, str, str]]) -> str:
    return md_table(["claim", "paper", "ours", "verdict"], claims)


#: the ``--only`` experiment each claim comes from, by the prefix of its name
CLAIM_SOURCES = (("Fig4", "fig4"), ("Fig5", "fig5"), ("Fig6", "fig6"), ("§5.3", "fig5,fig6"),
                 ("Table1", "table1"), ("Fig7-8", "fig78"), ("Prop3", "prop3"),
                 ("Fill-rule", "fill-rule"))


def claim_source(claim: str) -> str:
    return next(only for prefix, only in CLAIM_SOURCES if claim.startswith(prefix))


def mode_verdict(verdict: str, others: dict[str, str]) -> str:
    """A "differs" verdict says when another reservation mode reproduces the claim."""
    if not verdict.startswith("differs"):
        return verdict
    fixes = [m for m, v in others.items() if v == "reproduced"]
    return verdict + (f"; reproduced with {', '.join(fixes)} reservations" if fixes else "")


def claims_by_mode_markdown(by_mode: dict[str, list[tuple[str, str, str, str]]],
                            command: str | None = None) -> str:
    """One table: claim, paper, then ours and the verdict under each reservation mode (the
    claims of every mode come from the same functions, in the same order) and, given the
    `command` of the run, the command that regenerates the claim (``RUN --only X``, RUN
    spelled out above the table)."""
    modes = list(by_mode)
    head = ["claim", "paper"]
    for m in modes:
        head += [f"ours ({m})", f"verdict ({m})"] if len(modes) > 1 else ["ours", "verdict"]
    if command:
        head.append("command")
    rows = []
    for parts in zip(*(by_mode[m] for m in modes), strict=True):
        row = [parts[0][0], parts[0][1]]
        verdicts = {m: c[3] for m, c in zip(modes, parts, strict=True)}
        for m, c in zip(modes, parts, strict=True):
            row += [c[2], mode_verdict(c[3], {k: v for k, v in verdicts.items() if k != m})]
        if command:
            row.append(f"`RUN --only {claim_source(parts[0][0])}`")
        rows.append(row)
    text = md_table(head, rows)
    return f"RUN = `{command}`\n\n{text}" if command else text


def verdict_counts(by_mode: dict[str, list[tuple[str, str, str, str]]]) -> str:
    """``fresh: 20 reproduced, 5 differ, 3 within noise; fixed: ...``."""
    out = []
    for m, claims in by_mode.items():
        v = [c[3] for c in claims]
        yes = sum(x.startswith("reproduced") for x in v)
        no = sum(x.startswith("differs") for x in v)
        out.append(f"{m}: {yes} reproduced, {no} differ, {len(v) - yes - no} undetermined")
    return "; ".join(out)
