"""Fig. 4(b) under both refill rules of R-SHELFFILL (``--only fill-rule``; issue 27, decision
R32): the gain over R-SHELF at every P, its profile, and the paper's 4.8-4.9 %.

The paper gives the gains averaged over P != 10000 and calls P = 10000 "a particular value where
both pairs of heuristics perform similarly" (spec 002 §9.2); its figure itself is not in the
text we have, so the profile is compared on those two features: the average level, and a gain
at P = 10000 below both neighbouring P of the grid. Whether SF-NB still differs from SF-B under
LPT (it does in the paper's Fig. 4 and Table 1) is checked per rule.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from resilsched.reproduce.rigid.claims import (
    Agg,
    Claim,
    count_verdict,
    diff,
    judge,
    mean_se,
    pm,
)
from resilsched.reproduce.rigid.config import LOOSE_FILL, SHORT, Config

#: Fig. 4(b)'s gains of R-SHELFFILL over R-SHELF (avg over P != 10000), spec §9.2
PAPER_FILL_GAIN = {"R-SHELFFILL-NB": 0.049, "R-SHELFFILL-B": 0.048}


def profile_shape(values: Sequence[float]) -> str:
    """The shape of a curve over increasing P by where its largest value lies: "falling" (at
    the first P), "rising" (at the last), "hump" (inside), "flat" (all equal)."""
    hi = int(np.argmax(values))
    if max(values) == min(values):
        return "flat"
    if hi == 0:
        return "falling"
    return "rising" if hi == len(values) - 1 else "hump"


def fill_gains(cfg: Config, agg: Agg, fill: str, plain: str) -> list[tuple[float, float | None]]:
    """Fig. 4(b): the relative gain mean(plain) / mean(fill) - 1 at every P, with its
    standard error (paired over the sets)."""
    q0 = cfg.qbar_P_sweep
    return [diff(agg, [(plain, "LPT", q0, P)], [(fill, "LPT", q0, P)], relative=True)
            for P in cfg.Ps]


def fill_rule_claims(cfg: Config, agg: Agg) -> list[Claim]:
    """``--only fill-rule`` (issue 27, R32): Fig. 4(b) under both refill rules of R-SHELFFILL.

    Per rule and heuristic: the gain over R-SHELF averaged over P != 10000 (the paper's 4.8 %
    and 4.9 %), and its profile over P against the paper's text, which calls P = 10000 "a
    particular value where both pairs of heuristics perform similarly" (a gain near zero there,
    about 5 % elsewhere): the gain at P = 10000 must lie below both neighbouring P of the grid
    beyond the noise. Then whether SF-NB and SF-B still differ under LPT, as they do in the
    paper (Fig. 4, Table 1: 1.441 vs 1.407 at q-bar = 0)."""
    P0, q0, Ps = cfg.P_default, cfg.qbar_P_sweep, list(cfg.Ps)
    others = [P for P in Ps if P != P0]
    i0 = Ps.index(P0)
    claims: list[Claim] = []
    for rule in ("own", LOOSE_FILL):
        for h in ("R-SHELFFILL-NB", "R-SHELFFILL-B"):
            fill = h if rule == "own" else f"{h}/{rule}"
            plain = h.replace("SHELFFILL", "SHELF")
            paper = PAPER_FILL_GAIN[h]
            name = f"{SHORT[h]} (fill={rule}) over {SHORT[plain]}"
            v, se = diff(agg, [(plain, "LPT", q0, P) for P in others],
                         [(fill, "LPT", q0, P) for P in others], relative=True)
            claims.append((f"Fill-rule: {name}, avg over P != {P0}", f"{100 * paper:.1f}%",
                           pm(v, se, True),
                           judge(lambda x, p=paper: x >= p / 2, v, se,
                                 "differs (same sign, less than half)" if v > 0
                                 else "differs")))
            gains = fill_gains(cfg, agg, fill, plain)
            curve = ", ".join(f"{P}: {100 * g:.1f}" for P, (g, _) in zip(Ps, gains, strict=True))
            shape = profile_shape([g for g, _ in gains])
            if 0 < i0 < len(Ps) - 1:
                parts = []
                for nb in (Ps[i0 - 1], Ps[i0 + 1]):
                    d, se_d = _gain_gap(agg, plain, fill, q0, nb, P0)
                    parts.append(judge(lambda x: x > 0, d, se_d))
                verdict = count_verdict(parts)
                if verdict == "differs":
                    verdict = f"differs (no dip at P = {P0}: {shape})"
            else:
                verdict = f"undetermined (P = {P0} has no neighbour on both sides in the grid)"
            claims.append((f"Fill-rule: profile over P of the gain of {name}",
                           f"near 0 at P = {P0} (\"a particular value\"), ~{100 * paper:.0f}% "
                           "elsewhere", f"{curve} % ({shape})", verdict))
    for rule in ("own", LOOSE_FILL):
        nb, b = (("R-SHELFFILL-NB", "R-SHELFFILL-B") if rule == "own" else
                 (f"R-SHELFFILL-NB/{rule}", f"R-SHELFFILL-B/{rule}"))
        pts = [(q0, P) for P in Ps]
        same = sum(agg[nb, "LPT", q, P]["per_set"] == agg[b, "LPT", q, P]["per_set"]
                   for q, P in pts)
        d, se = diff(agg, [(nb, "LPT", q, P) for q, P in pts], [(b, "LPT", q, P) for q, P in pts])
        if same == len(pts):
            ours, verdict = (f"identical at {same} of {len(pts)} P, on every set",
                             "differs (with LPT every job behind NB's first misfit is no "
                             "taller than the shelf: the refill at its start rebuilds B's "
                             "shelf)")
        else:
            ours, verdict = f"SF-NB - SF-B = {pm(d, se)} (mean over P)", judge(
                lambda x: x > 0, d, se)
        claims.append((f"Fill-rule: SF-NB worse than SF-B with LPT (fill={rule})",
                       "yes (Fig. 4; Table 1: 1.441 vs 1.407)", ours, verdict))
    return claims


def _gain_gap(agg: Agg, plain: str, fill: str, q: float, P: int, P0: int
              ) -> tuple[float, float | None]:
    """gain(P) - gain(P0) of `fill` over `plain` (the relative gains of `fill_gains`), paired
    over the sets present at both P."""
    def per(P_: int) -> dict[int, float]:
        a, b = agg[plain, "LPT", q, P_]["per_set"], agg[fill, "LPT", q, P_]["per_set"]
        base = agg[fill, "LPT", q, P_]["mean"]
        return {s: (a[s] - b[s]) / base for s in set(a) & set(b)}

    g, g0 = per(P), per(P0)
    return mean_se([g[s] - g0[s] for s in sorted(set(g) & set(g0))])
