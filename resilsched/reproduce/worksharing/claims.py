"""The worksharing paper's claims checked on the reproduction's per-trial ratios (issue 27).

- `best_average_reach`: Fig. 5's reading of "greedy is almost optimal (> 99.5 %) in more than
  21 % of the instances": the largest share x of instances whose *average* ratio (the x % best
  instances of the heuristic) stays at or above the level, beside the per-instance share.
- `shortfalls`: the per-configuration claims of §6.2 ("on every instance greedy exhibits the
  best performance", "cyclic-rep achieves better performance than no-rep in all cases",
  "greedy and cyclic-rep always have better performance than no-rep", "greedy is never
  outperformed"): every configuration where a heuristic's mean ratio falls below a rival's,
  with the paired difference (the heuristics share the draws) and its 95 % half-width.

A difference of mean ratios below `TIE` is a float tie (identical schedules summed in another
order), not a shortfall.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

#: differences of mean ratios at most this are float ties, not shortfalls
TIE = 1e-9


@dataclass(frozen=True)
class ConfigRatios:
    """One configuration of an experiment and the per-trial ratios of each heuristic."""

    p: int
    W: float
    eps: float
    n: float | None
    ratios: dict[str, np.ndarray]

    def where(self) -> str:
        n = "" if self.n is None else f", n = {self.n:g}"
        return f"p = {self.p}, W = {self.W:g}, eps = {self.eps:g}{n}"


@dataclass(frozen=True)
class Shortfall:
    """`leader`'s mean ratio is below `rival`'s on one configuration, by `points` (percentage
    points of the ratio to omniscient), with the paired 95 % half-width `half` (points)."""

    config: ConfigRatios
    leader: str
    rival: str
    points: float
    half: float

    @property
    def beyond_noise(self) -> bool:
        return self.points > self.half


def best_average_reach(ratios: np.ndarray, level: float = 0.995) -> float:
    """Largest x (percent of the instances) whose best-x % average ratio is >= `level`.

    The average over the x % best instances falls as x grows (Fig. 5's curve), so this is where
    that curve crosses `level`; 0 when even the best instance is below it.

    >>> best_average_reach(np.array([1.0, 1.0, 0.99, 0.5]), 0.995)
    75.0
    """
    s = np.sort(np.asarray(ratios, dtype=float))[::-1]
    mean_best = np.cumsum(s) / np.arange(1, s.size + 1)
    ok = np.flatnonzero(mean_best >= level)
    return float(100.0 * (ok[-1] + 1) / s.size) if ok.size else 0.0


def shortfalls(configs: Iterable[ConfigRatios], leader: str,
               rivals: Sequence[str]) -> list[Shortfall]:
    """Every (configuration, rival) where `leader`'s mean ratio is below the rival's by more
    than `TIE`; the half-width is 1.96 sd / sqrt(trials) of the paired differences."""
    out = []
    for c in configs:
        if leader not in c.ratios:
            continue
        for rival in rivals:
            if rival == leader or rival not in c.ratios:
                continue
            d = c.ratios[rival] - c.ratios[leader]
            if d.mean() <= TIE:
                continue
            half = 1.96 * d.std(ddof=1) / np.sqrt(d.size) if d.size > 1 else float("inf")
            out.append(Shortfall(c, leader, rival, 100 * float(d.mean()), 100 * float(half)))
    return out


def _span(values: Iterable[float], fmt: str = "{:g}") -> str:
    vals = sorted(set(values))
    if not vals:
        return "-"
    return fmt.format(vals[0]) if len(vals) == 1 else (
        f"{fmt.format(vals[0])}..{fmt.format(vals[-1])}")


def describe(found: Sequence[Shortfall], total: int, leader: str, rivals: str,
             paper: str) -> str:
    """One line: how many of `total` configurations `found` covers, beyond the noise or not,
    the largest shortfall and where the ones beyond the noise lie."""
    configs = {id(s.config): s.config for s in found}
    if not configs:
        return f"  {leader} below {rivals}: in 0 of {total} configurations (paper: {paper})"
    beyond = [s for s in found if s.beyond_noise]
    worst = max(found, key=lambda s: s.points)
    noisy = {id(s.config) for s in beyond}
    text = (f"  {leader} below {rivals}: in {len(configs)} of {total} configurations, "
            f"{len(noisy)} beyond the paired 95 % half-width; worst {worst.points:.3g} points "
            f"(+- {worst.half:.2g}) below {worst.rival} at {worst.config.where()}")
    if beyond:
        text += (f"; beyond the noise: eps {_span(s.config.eps for s in beyond)}, p "
                 f"{_span(s.config.p for s in beyond)}, W {_span(s.config.W for s in beyond)}")
    return text + f" (paper: {paper})"


#: (leader, rivals or None for every other heuristic, what the paper says) per experiment
CLAIMS: dict[str, tuple[tuple[str, tuple[str, ...] | None, str], ...]] = {
    "e1": (("greedy", None, "'on every instance greedy exhibits the best performance'"),
           ("cyclic-rep", ("no-rep",), "'in all cases cyclic-rep achieves better performance "
                                       "than no-rep'")),
    "e6": (("greedy", ("no-rep",), "'cyclic-rep and greedy always have better performance "
                                   "than no-rep'"),
           ("cyclic-rep", ("no-rep",), "the same sentence"),
           ("greedy", None, "'never outperformed by any other heuristic' (summary of §6.2)")),
}
for _e in ("e2", "e3", "e4", "e5"):
    CLAIMS[_e] = (("greedy", None, "'never outperformed by any other heuristic' (summary)"),
                  ("cyclic-rep", ("no-rep",), "cyclic-rep better than no-rep (E1's sentence)"))


def check_lines(experiment: str, configs: Sequence[ConfigRatios], out: Path,
                stem: str | None = None) -> list[str]:
    """The per-configuration checks of `experiment` (a key of `CLAIMS`) as printed lines; every
    shortfall is a row of ``<stem>_per_config.csv`` in `out` (`stem` defaults to
    `experiment`)."""
    names = list(configs[0].ratios) if configs else []
    lines = [f"  per configuration ({len(configs)} configurations, paired differences of the "
             "mean ratios over the shared draws):"]
    rows: list[Shortfall] = []
    for leader, rivals, paper in CLAIMS[experiment]:
        if leader not in names:
            continue
        against = [r for r in (rivals or names) if r != leader and r in names]
        if not against:
            continue
        found = shortfalls(configs, leader, against)
        rows += found
        label = "another heuristic" if rivals is None else " / ".join(against)
        lines.append(describe(found, len(configs), leader, label, paper))
    with open(out / f"{stem or experiment}_per_config.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["p", "W", "eps", "n", "heuristic", "rival", "heuristic_mean", "rival_mean",
                    "shortfall_points", "half_width_points", "beyond_noise"])
        for s in rows:
            c = s.config
            w.writerow([c.p, c.W, c.eps, "auto" if c.n is None else c.n, s.leader, s.rival,
                        f"{c.ratios[s.leader].mean():.6f}", f"{c.ratios[s.rival].mean():.6f}",
                        f"{s.points:.4f}", f"{s.half:.4f}", s.beyond_noise])
    return lines
