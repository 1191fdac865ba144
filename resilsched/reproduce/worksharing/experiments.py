"""Simulation experiments of spec 003 §4.2-§4.3 (E1-E6 and the trace runs), vectorised.

One *configuration* (p, W, eps, risk, chunk policy) is simulated on ``trials`` independent
draws of the interruption times (tau_1..tau_p), shared by every heuristic (common random
numbers). Per draw (= one "instance" of the paper) the ratio W_cmp(heuristic) / W_omni is
recorded, with W_omni = min(W, sum_j (tau_j - eps)^+) and ratio := 1 when W_omni = 0 (§3.5).
The heuristics are the registered functions (`resilsched.heuristics.worksharing.run`), given
by name through the family's registry (`heuristics_named`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from resilsched.instances.worksharing.evaluate import omniscient_work, realised_work, sample_taus
from resilsched.instances.worksharing.model import WorksharingInstance
from resilsched.instances.worksharing.risk import LinearRisk

E5_HEURISTICS = ("greedy", "brute", "no-rep", "cyclic-rep")


def heuristics_named(names: Iterable[str]) -> dict[str, Any]:
    """The registered worksharing heuristics `names`, name -> registry entry
    (`resilsched.plugin.Heuristic`: its ``run`` and its ``params``)."""
    from resilsched.registry import get_family, heuristic

    family = get_family("worksharing")
    return {name: heuristic(family, name) for name in names}


@dataclass
class ConfigResult:
    """Ratios (trials,) per heuristic plus the expected work of each schedule."""

    p: int
    W: float
    eps: float
    ratios: dict[str, np.ndarray]
    expected: dict[str, float]
    chunks: dict[str, list[int]]


def config_seed(base: int, p: int, W: float, eps: float, extra: int = 0) -> list[int]:
    """A reproducible seed sequence entropy for one configuration."""
    return [base, p, int(round(W * 1000)), int(round(eps * 1e6)), extra]


def run_config(p: int, W: float, eps: float, heuristics: Mapping[str, Any],
               n: float | None = None, trials: int = 1000, seed: int = 0, risk=None,
               trace_id: int = 0, chunk_search: str = "grid",
               no_rep_rule: str = "grid") -> ConfigResult:
    """Simulate one configuration (automatic chunk count when ``n`` is None, i.e. E5).

    `heuristics` are registry entries (`heuristics_named`). ``chunk_search`` goes to the
    heuristics whose params have it (the group schedules: ``grid`` or the paper's ``binary``
    search of §5.2.3), ``no_rep_rule`` to no-rep (its ``chunk_rule``, decision WS-20); the
    others choose their counts as before (§6 Q9).
    """
    risk = LinearRisk(1.0) if risk is None else risk
    inst = WorksharingInstance(float(W), int(p), risk, float(eps))
    rng = np.random.default_rng(config_seed(seed, p, W, eps, trace_id))
    taus = sample_taus(risk, p, trials, rng)
    omni = omniscient_work(inst.W, inst.eps, taus)
    zero = omni <= 0
    ratios, expected, chunks = {}, {}, {}
    for name, h in heuristics.items():
        params = {p.name for p in h.params}
        extra = {k: v for k, v in (("chunk_search", chunk_search), ("chunk_rule", no_rep_rule))
                 if k in params}
        res = h.run(inst, seed=seed, n=0.0 if n is None else float(n), **extra)
        wc = realised_work(res.schedule.schedule, inst.eps, taus)
        ratios[name] = np.where(zero, 1.0, wc / np.where(zero, 1.0, omni))
        expected[name] = float(res.objective)
        chunks[name] = list(res.schedule.chunk_counts)
    return ConfigResult(p, float(W), float(eps), ratios, expected, chunks)


def best_fraction_curve(r: np.ndarray, xs=(1, 5, 10, 25, 50, 75, 100)) -> dict[int, float]:
    """Fig. 5/7: average ratio over the x % most favourable instances."""
    s = np.sort(r)[::-1]
    return {x: float(s[: max(1, int(round(len(s) * x / 100)))].mean()) for x in xs}
