"""The experiments of the moldable paper (spec 000 §5): configurations, tasks, aggregation.

A *configuration* is (P, n, lambda); the paper's are the defaults (7500, 500, 1e-7), the P, n
and lambda sweeps of Figs. 4 and 7-9 (one parameter varied at a time, spec §5 grids) and the
four (P, n) combinations of Figs. 3-right and 6. A *task* is one job set of a configuration and
model: it draws the set and its failure scenarios (f_j geometric with q_j = 1 - exp(-lambda
w_j), common random numbers for every algorithm and priority) and returns, per (algorithm,
priority) combination, the mean and the maximum over the scenarios of T / L'(J, f) (spec §2.2).

Seeds: set k of model m in configuration c is child k of SeedSequence([seed, m, id(c)]), with
id = 0 at the defaults (the Table 1 sets of earlier versions) and an encoding of (P, n, lambda)
elsewhere, so a configuration draws the same sets in every experiment that uses it (Table 1,
Fig. 5 and the sweeps share the default sets) and a set does not depend on how many are drawn.

Aggregation (spec §5, §7 item 21): "expected" = mean over sets of the per-set mean over
scenarios (an expectation of ratios), "maximum" = max over all (set, scenario) pairs; the
standard error of the expected value is the standard deviation of the per-set means over
sqrt(sets).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from resilsched.bounds.moldable import extremes
from resilsched.campaign import Task
from resilsched.heuristics.moldable import Simulator, lpa, minarea, mintime
from resilsched.instances.moldable.generators import (
    DEFAULT_LAMBDA,
    DEFAULT_N,
    DEFAULT_P,
    LAMBDA_GRID,
    MIX_MODELS,
    N_GRID,
    P_GRID,
    PAPER_MODELS,
    PN_COMBOS,
    paper_instance,
)

#: the paper's algorithms: the allocation rule of a fixed-allocation LIST heuristic (LPA-LIST,
#: MINTIME, MINAREA), or None for BATCH-LIST
ALGOS = {"LPA": lpa, "BATCH": None, "MINTIME": mintime, "MINAREA": minarea}
PRIORITIES = ("LPT", "HPA", "LA")
#: the 11 combinations of Figs. 3 and 5: MINAREA gives every job one processor, so its LA
#: order is its LPT order and the paper leaves it out (§5.2)
COMBOS = tuple((a, p) for a in ALGOS for p in PRIORITIES if (a, p) != ("MINAREA", "LA"))
PAPER_TABLE1 = {  # spec §6.1 (expected, maximum), "over the entire set of experiments"
    "LPA": {"roofline": (1.057, 1.219), "communication": (1.312, 2.241), "amdahl": (1.961, 2.349),
            "mix-low-com": (1.896, 1.987), "mix": (1.867, 1.995), "power": (1.861, 9.655)},
    "BATCH": {"roofline": (1.158, 1.999), "communication": (1.434, 2.449),
              "amdahl": (1.529, 2.874), "mix-low-com": (1.548, 3.674), "mix": (1.571, 4.164),
              "power": (1.549, 3.975)},
    "MINTIME": {"roofline": (1.057, 1.219), "communication": (2.044, 2.666),
                "amdahl": (15.567, 49.795), "mix-low-com": (2.810, 12.611),
                "mix": (2.704, 27.174), "power": (20.386, 61.726)},
    "MINAREA": {"roofline": (114.079, 1217.13), "communication": (122.199, 871.38),
                "amdahl": (23.594, 199.572), "mix-low-com": (16.875, 259.163),
                "mix": (9.686, 120.9), "power": (2.571, 27.109)},
}


@dataclass(frozen=True, order=True)
class Config:
    """One experimental setting (P, n, lambda) (spec §5)."""

    P: int
    n: int
    lam: float

    @property
    def id(self) -> int:
        """Seed word of the configuration: 0 at the defaults, else (P, n, lambda in units of
        1e-9) packed into one integer."""
        if self == DEFAULT:
            return 0
        return (self.P * 10_000 + self.n) * 10_000 + int(round(self.lam * 1e9))

    def label(self) -> str:
        return f"P={self.P}, n={self.n}, lambda={self.lam:g}"


DEFAULT = Config(DEFAULT_P, DEFAULT_N, DEFAULT_LAMBDA)
#: the one-parameter sweeps of Figs. 4 and 7-9: name -> (x values, configurations)
SWEEPS: dict[str, tuple[tuple, tuple[Config, ...]]] = {
    "P": (P_GRID, tuple(Config(P, DEFAULT_N, DEFAULT_LAMBDA) for P in P_GRID)),
    "n": (N_GRID, tuple(Config(DEFAULT_P, n, DEFAULT_LAMBDA) for n in N_GRID)),
    "lambda": (LAMBDA_GRID, tuple(Config(DEFAULT_P, DEFAULT_N, lam) for lam in LAMBDA_GRID)),
}
#: the four (P, n) combinations of Figs. 3 (right) and 6
PN: tuple[Config, ...] = tuple(Config(P, n, DEFAULT_LAMBDA) for P, n in PN_COMBOS)


#: BATCH-LIST's MT-ALLOTMENT accuracies in every default task (spec 000 §5: eps = 0.3, eps2 =
#: 0.03); ``--batch-eps`` / ``--batch-eps2`` change them (decision M30)
BATCH_EPS, BATCH_EPS2 = 0.3, 0.03


def label(algo: str, priority: str) -> str:
    """Result key of a combination, e.g. ``LPA/LPT``."""
    return f"{algo}/{priority}"


def set_tasks(model: str, cfg: Config, sets: int, scenarios: int, seed: int,
              combos: Sequence[tuple[str, str]], area_slack: float = 1.1,
              g1_exact: bool = False, attempt_order: str = "desc_p",
              mix_gamma_scale: float = 1.0, eps: float = BATCH_EPS,
              eps2: float = BATCH_EPS2) -> list[Task]:
    """One task per job set of (model, configuration); its fields are all `run_set` needs.

    ``mix_gamma_scale`` (the mix models' sequential fraction scaled, issue 27) is a field of
    the mix models' tasks only when it is not 1, and BATCH-LIST's ``eps`` / ``eps2`` (issue 27's
    look inside BATCH-LIST) only when they differ from 0.3 / 0.03, so the default tasks keep
    their keys (and their stored results)."""
    base = {"model": model, "P": cfg.P, "n": cfg.n, "lambda": cfg.lam, "scenarios": scenarios,
            "seed": seed, "config": cfg.id, "combos": [list(c) for c in combos],
            "area_slack": area_slack, "g1_exact": g1_exact, "attempt_order": attempt_order}
    if mix_gamma_scale != 1.0 and model in MIX_MODELS:
        base["mix_gamma_scale"] = mix_gamma_scale
    for name, value, default in (("eps", eps, BATCH_EPS), ("eps2", eps2, BATCH_EPS2)):
        if value != default:
            base[name] = value
    return [Task(f, f) for f in ({**base, "set": k} for k in range(sets))]


def run_set(task: dict[str, Any]) -> dict[str, list[float]]:
    """Set ``task["set"]`` of a configuration: ``ALGO/PRIORITY`` -> [mean, max] of T/L' over
    its scenarios (child k of SeedSequence([seed, model index, config])); with
    ``mix_gamma_scale`` the mix jobs' gamma is scaled after the same draws."""
    k, model, n, P = task["set"], task["model"], task["n"], task["P"]
    child = np.random.SeedSequence([task["seed"], PAPER_MODELS.index(model), task["config"]],
                                   spawn_key=(k,))
    rng = np.random.default_rng(child)
    inst = paper_instance(model, rng, n=n, P=P, lam=task["lambda"], name=f"{model}-{k}",
                          mix_gamma_scale=task.get("mix_gamma_scale", 1.0))
    F = rng.geometric(1.0 - inst.q(), size=(task["scenarios"], n)) - 1
    tmin, amin = extremes(inst)
    m = F + 1.0
    lp = np.maximum((m * tmin).max(axis=1), (m * amin).sum(axis=1) / P)
    sim = Simulator(inst, area_slack=task["area_slack"], g1_exact=task["g1_exact"],
                    attempt_order=task["attempt_order"], eps=task.get("eps", BATCH_EPS),
                    eps2=task.get("eps2", BATCH_EPS2))
    out = {}
    for a, pr in task["combos"]:
        r = makespans(sim, F, a, pr) / lp
        out[label(a, pr)] = [float(r.mean()), float(r.max())]
    return out


def makespan(sim: Simulator, failures: np.ndarray, algo: str, priority: str) -> float:
    """Makespan of the paper's algorithm `algo` (a key of `ALGOS`) on one scenario."""
    rule = ALGOS[algo]
    if rule is None:
        return sim.batch_makespan(failures, priority)
    return sim.makespan(failures, rule, priority)


def makespans(sim: Simulator, F: np.ndarray, algo: str, priority: str) -> np.ndarray:
    """`makespan` for every scenario (row) of ``F``: the fixed-allocation algorithms simulate
    all of them in one call of the compiled core."""
    rule = ALGOS[algo]
    if rule is None:
        return np.array([sim.batch_makespan(f, priority) for f in F])
    return sim.makespans(F, rule, priority)


@dataclass(frozen=True)
class Stat:
    """Expected value (mean of per-set means), its standard error, maximum, and the sizes."""

    expected: float
    se: float
    maximum: float
    sets: int
    scenarios: int


def stat(results: Sequence[dict[str, list[float]]], key: str, scenarios: int) -> Stat:
    means = np.array([r[key][0] for r in results])
    se = float(means.std(ddof=1) / math.sqrt(means.size)) if means.size > 1 else math.nan
    return Stat(float(means.mean()), se, max(r[key][1] for r in results), means.size,
                scenarios)


#: (model, configuration, algorithm, priority) -> statistics
Results = dict[tuple[str, Config, str, str], Stat]


@dataclass(frozen=True)
class Request:
    """Which combinations to compute on which configurations, with how many sets/scenarios."""

    configs: tuple[Config, ...]
    combos: tuple[tuple[str, str], ...]
    sets: int
    scenarios: int


def collect(requests: Sequence[Request], seed: int, batch: dict[str, Any],
            run: Callable[[Sequence[Task]], list[Any]],
            models: Sequence[str] = PAPER_MODELS) -> Results:
    """Run every request in one campaign call (tasks shared between requests run once).

    The tasks run set-major (set 0 of every configuration and model, then set 1, ...), so a run
    stopped part-way has the same number of complete sets everywhere: rerunning with that many
    sets computes nothing new and prints complete tables.
    """
    groups, tasks, order = _listed(requests, seed, batch, models)
    ran = run([tasks[i] for i in order])
    done: list[Any] = [None] * len(tasks)
    for i, r in zip(order, ran, strict=True):
        done[i] = r
    out: Results = {}
    for model, cfg, req, start, count in groups:
        part = done[start:start + count]
        for a, pr in req.combos:
            new = stat(part, label(a, pr), req.scenarios)
            old = out.get((model, cfg, a, pr))
            if old is None or old.sets * old.scenarios < new.sets * new.scenarios:
                out[model, cfg, a, pr] = new  # the largest run of a configuration wins
    return out


def _listed(requests: Sequence[Request], seed: int, batch: dict[str, Any],
            models: Sequence[str]) -> tuple[list[tuple], list[Task], list[int]]:
    """(groups, tasks, the set-major order of the tasks) of `collect`."""
    groups = []
    tasks: list[Task] = []
    for req in requests:
        for cfg in req.configs:
            for model in models:
                ts = set_tasks(model, cfg, req.sets, req.scenarios, seed, req.combos, **batch)
                groups.append((model, cfg, req, len(tasks), len(ts)))
                tasks += ts
    order = sorted(range(len(tasks)), key=lambda i: tasks[i].payload["set"])  # stable
    return groups, tasks, order


def request_tasks(requests: Sequence[Request], seed: int, batch: dict[str, Any],
                  models: Sequence[str] = PAPER_MODELS) -> list[Task]:
    """The tasks `collect` runs, in its order (nothing runs)."""
    _, tasks, order = _listed(requests, seed, batch, models)
    return [tasks[i] for i in order]


def run_config(model: str, P: int, n: int, lam: float, sets: int, scenarios: int, seed: int,
               config: int | None = None, algos=tuple(ALGOS), priority: str = "LPT",
               area_slack: float = 1.1, g1_exact: bool = False,
               attempt_order: str = "desc_p") -> dict[str, tuple[float, float]]:
    """(expected, maximum) of T/L' per algorithm for one configuration, run inline.

    ``config`` is ignored (kept for callers of earlier versions): the seed word is
    ``Config(P, n, lam).id``.
    """
    cfg = Config(P, n, lam)
    combos = tuple((a, priority) for a in algos)
    res = [run_set(t.payload) for t in set_tasks(model, cfg, sets, scenarios, seed, combos,
                                                 area_slack, g1_exact, attempt_order)]
    return {a: (stat(res, label(a, priority), scenarios).expected,
                stat(res, label(a, priority), scenarios).maximum) for a in algos}
