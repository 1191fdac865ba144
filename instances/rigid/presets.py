"""Named instance libraries of the rigid family (spec 002 §8, §9; ambiguity A7).

``PRESETS[name] = (description, generate)`` with ``generate(seed, count=None) -> list`` of
`RigidInstance`; ``count=None`` gives the preset's default size. Every library is a pure function
of the seed (bit-identical ``to_dict`` on every machine).

- ``paper-default``: the 30 synthetic sets of §5.1 (n = 100, P = 10000, p ~ U{50..2000},
  t ~ U[100, 20000]).
- ``fig4``, ``fig5``, ``fig6``: the same job sets. The figures differ only in the sweep, which is
  an experiment setting, not part of the instances: Fig. 4 runs the four shelf heuristics with LPT
  over q-bar in {0, 0.1, ..., 0.9} at P = 10000 and over P in {5000, ..., 20000} at q-bar = 0.3;
  Fig. 5 runs five heuristics x seven priorities over q-bar at P = 10000; Fig. 6 runs them over P
  at q-bar = 0.3 (A7; see scripts/reproduce_rigid.py). The sweep is recorded in each instance's
  ``metadata["sweep"]``; for the P sweep the instance's P is the default 10000 and the
  experiment rebuilds the set with each P (all p_j <= 2000 fit every P).
- ``mira-like``: 30 Mira-like day-sets (spec §8.4), P = 49152.
- ``smoke``: 12 small integer instances (n in 5..9, P in 4..16, t in 1..20), each with a stored
  failure scenario drawn at q-bar = 0.3 conditioned on at most `SMOKE_MAX_ATTEMPTS` attempts, so
  that CP-SAT proves the clairvoyant optimum in a fraction of a second: the built-in smoke suite
  of the gap report.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from resilsched.instances.failures import Scenario, sample_failures
from resilsched.instances.fields import count_or_default
from resilsched.instances.rigid.mira_like import mira_like_days
from resilsched.instances.rigid.model import RigidInstance
from resilsched.instances.rigid.synthetic import PAPER_SETS, paper_sets, tiny_rigid

SMOKE_COUNT = 12
SMOKE_QBAR = 0.3
SMOKE_MAX_ATTEMPTS = 18
SMOKE_N = (5, 9)
LIBRARY_COUNT = 100
LIBRARY_N = (4, 9)

QBAR_GRID = tuple(round(0.1 * k, 1) for k in range(10))  # A7: 0, 0.1, ..., 0.9
P_GRID = tuple(range(5000, 20001, 1000))  # A7: 5000, 6000, ..., 20000 (includes 10000)

SWEEPS: dict[str, dict[str, Any]] = {
    "fig4": {"heuristics": ["R-SHELF-B", "R-SHELF-NB", "R-SHELFFILL-B", "R-SHELFFILL-NB"],
             "priorities": ["LPT"], "qbar": list(QBAR_GRID), "P_at_qbar": 10000,
             "P": list(P_GRID), "qbar_at_P": 0.3},
    "fig5": {"heuristics": ["R-LIST-0", "R-LIST-1", "R-LIST-Q", "R-SHELFFILL-B", "R-SHELFFILL-NB"],
             "priorities": ["LPT", "SPT", "HPA", "LPA", "LA", "SA", "Random"],
             "qbar": list(QBAR_GRID), "P_at_qbar": 10000},
    "fig6": {"heuristics": ["R-LIST-0", "R-LIST-1", "R-LIST-Q", "R-SHELFFILL-B", "R-SHELFFILL-NB"],
             "priorities": ["LPT", "SPT", "HPA", "LPA", "LA", "SA", "Random"],
             "P": list(P_GRID), "qbar_at_P": 0.3},
}


def paper_default(seed: int, count: int | None = None) -> list[RigidInstance]:
    """The 30 synthetic job sets of the paper (spec §8.2)."""
    return paper_sets(seed, count_or_default(count, PAPER_SETS))


def _figure(fig: str) -> Callable[[int, int | None], list[RigidInstance]]:
    def generate(seed: int, count: int | None = None) -> list[RigidInstance]:
        out = []
        for inst in paper_sets(seed, count_or_default(count, PAPER_SETS)):
            meta = dict(inst.metadata)
            meta["sweep"] = {"figure": fig, **SWEEPS[fig]}
            out.append(RigidInstance(inst.P, inst.jobs, inst.name, None, meta))
        return out

    generate.__doc__ = f"The paper-default job sets, tagged with the {fig} sweep (spec §9)."
    return generate


def mira_like(seed: int, count: int | None = None) -> list[RigidInstance]:
    """30 Mira-like day-sets (spec §8.4)."""
    return mira_like_days(seed, count_or_default(count, 30))


def smoke(seed: int, count: int | None = None) -> list[RigidInstance]:
    """Small integer instances with a stored scenario (q-bar = 0.3, <= 18 attempts).

    Instance k uses child k of ``SeedSequence(seed)``: n ~ U{5..9}, P ~ U{4..16},
    p_j ~ U{1..P}, t_j ~ U{1..20}; the scenario is redrawn from the same generator until it has
    at most `SMOKE_MAX_ATTEMPTS` attempts (a conditioned draw, recorded in the metadata).
    """
    return _small(seed, count_or_default(count, SMOKE_COUNT), "smoke", SMOKE_N)


def library(seed: int, count: int | None = None) -> list[RigidInstance]:
    """The shipped certified library (``resilsched library``): `smoke`'s distribution with
    n ~ U{4..9}, `LIBRARY_COUNT` instances by default, named ``rigid-lib-<seed>-<k>``."""
    return _small(seed, count_or_default(count, LIBRARY_COUNT), "library", LIBRARY_N)


def _small(seed: int, count: int, label: str, n_range: tuple[int, int]) -> list[RigidInstance]:
    """Instance k from child k of ``SeedSequence(seed)`` (see `smoke`)."""
    out = []
    children = np.random.SeedSequence(int(seed)).spawn(count)
    for k, child in enumerate(children):
        rng = np.random.default_rng(child)
        n = int(rng.integers(*n_range, endpoint=True))
        P = int(rng.integers(4, 16, endpoint=True))
        inst = tiny_rigid(rng, n=n, P=P, tmax=20)
        q = inst.q(SMOKE_QBAR)
        draws = 0
        while True:
            draws += 1
            f = sample_failures(q, 1, rng)[0]
            if int(f.sum()) + n <= SMOKE_MAX_ATTEMPTS:
                break
            if draws == 1000:  # pragma: no cover - P(sum f > 7) is far below 1 at q-bar = 0.3
                f = np.zeros(n, dtype=int)
                break
        meta = {
            "generator": label,
            "seed": int(seed),
            "index": k,
            "params": {"n": n, "P": P, "p": [1, P], "t": [1, 20]},
            "qbar": SMOKE_QBAR,
            "scenario_draws": draws,
            "max_attempts": SMOKE_MAX_ATTEMPTS,
        }
        name = f"smoke-{int(seed)}-{k}" if label == "smoke" else f"rigid-lib-{int(seed)}-{k}"
        out.append(RigidInstance(P, inst.jobs, name, Scenario(tuple(int(x) for x in f)), meta))
    return out


PRESETS: dict[str, tuple[str, Callable[[int, int | None], list[RigidInstance]]]] = {
    "paper-default": ("30 synthetic sets, n=100, P=10000, p~U{50..2000}, t~U[100,20000] "
                      "(paper §5.1)", paper_default),
    "fig4": ("paper-default sets; Fig. 4 sweep: 4 shelf heuristics, LPT, q-bar 0..0.9 at "
             "P=10000 and P 5000..20000 at q-bar=0.3", _figure("fig4")),
    "fig5": ("paper-default sets; Fig. 5 sweep: 5 heuristics x 7 priorities, q-bar 0..0.9, "
             "P=10000", _figure("fig5")),
    "fig6": ("paper-default sets; Fig. 6 sweep: 5 heuristics x 7 priorities, P 5000..20000, "
             "q-bar=0.3", _figure("fig6")),
    "mira-like": ("30 Mira-like day-sets, 66..277 jobs, BG/Q partitions, P=49152 "
                  "(stand-in for the June 2019 trace, spec §8.4)", mira_like),
    "smoke": (f"{SMOKE_COUNT} small integer instances (n {SMOKE_N[0]}..{SMOKE_N[1]}, P 4..16, "
              f"t 1..20) with a stored scenario at q-bar={SMOKE_QBAR} (<= {SMOKE_MAX_ATTEMPTS} "
              "attempts); CP-SAT solves each in well under a second", smoke),
}

PRESETS["library"] = (f"{LIBRARY_COUNT} small instances like smoke (n 4..9) with a stored "
                      "scenario: the shipped certified library (resilsched library list)",
                      library)
