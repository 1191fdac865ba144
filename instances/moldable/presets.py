"""Named instance libraries of the moldable family (spec 000 §5, §8).

``PRESETS[name] = (description, generate)`` with ``generate(seed, count=None) -> list``; every
library is a pure function of the seed.

- ``paper-<model>`` for the six models of §5: 30 job sets at the defaults (n = 500, P = 7500,
  lambda = 1e-7), set k drawn from child k of ``SeedSequence(seed)``;
- ``smoke``: 6 tiny exact instances (n = 3..4, P = 4..6, one per model kind) each with a stored
  failure scenario of at most `SMOKE_MAX_ATTEMPTS` attempts, drawn at lambda calibrated to
  q-bar = 0.3; CP-SAT proves their clairvoyant optimum in well under a second;
- ``library``: 100 tiny exact instances like ``smoke`` (n = 3..5, P = 4..8), the shipped
  certified library of ``resilsched library``;
- ``thm9``: the Theorem 9 instances for K = 2..6.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from resilsched.instances.failures import Scenario, sample_failures
from resilsched.instances.fields import count_or_default
from resilsched.instances.moldable.adversarial import thm9_instance
from resilsched.instances.moldable.generators import PAPER_MODELS, paper_instance, tiny_exact
from resilsched.instances.moldable.model import MoldableInstance

SMOKE_MODELS = ("roofline", "communication", "amdahl", "mix", "table", "table")
SMOKE_QBAR = 0.3
SMOKE_MAX_ATTEMPTS = 7
LIBRARY_MODELS = ("roofline", "communication", "amdahl", "mix", "table")
LIBRARY_COUNT = 100
LIBRARY_MAX_ATTEMPTS = 8


def _paper(model: str) -> Callable[[int, int | None], list[MoldableInstance]]:
    def generate(seed: int, count: int | None = None) -> list[MoldableInstance]:
        children = np.random.SeedSequence(int(seed)).spawn(count_or_default(count, 30))
        return [paper_instance(model, np.random.default_rng(c), name=f"{model}-{seed}-{k}")
                for k, c in enumerate(children)]

    generate.__doc__ = f"30 {model} job sets at the paper defaults (spec §5)."
    return generate


def _tiny(seed: int, count: int, models: tuple[str, ...], *, n_high: int, P_high: int,
          max_attempts: int, generator: str, prefix: str,
          record_draws: bool) -> list[MoldableInstance]:
    """Tiny exact instances with a stored scenario: instance k uses child k of
    ``SeedSequence(seed)``, the model ``models[k % len(models)]``, n ~ U{3..n_high},
    P ~ U{4..P_high}, and a scenario at q-bar = `SMOKE_QBAR` redrawn until it has at most
    `max_attempts` attempts (none fails after 1000 draws); named ``<prefix>-<model>-<seed>-<k>``,
    with the draws it took in its metadata when `record_draws`."""
    out = []
    for k, child in enumerate(np.random.SeedSequence(int(seed)).spawn(count)):
        rng = np.random.default_rng(child)
        model = models[k % len(models)]
        n = int(rng.integers(3, n_high, endpoint=True))
        P = int(rng.integers(4, P_high, endpoint=True))
        inst = tiny_exact(rng, n, P, model)
        lam = inst.lambda_from_qbar(SMOKE_QBAR)
        q = inst.q(lam)
        for draws in range(1, 1001):  # noqa: B007 (the count is recorded)
            f = sample_failures(q, 1, rng)[0]
            if int(f.sum()) + n <= max_attempts:
                break
        else:  # pragma: no cover - the cap is reached well within 1000 draws
            f = np.zeros(n, dtype=int)
        meta: dict[str, Any] = {"generator": generator, "seed": int(seed), "index": k,
                                "model": model, "qbar": SMOKE_QBAR}
        if record_draws:
            meta["scenario_draws"] = draws
        meta["max_attempts"] = max_attempts
        out.append(MoldableInstance(P, inst.jobs, f"{prefix}-{model}-{int(seed)}-{k}",
                                    Scenario(tuple(int(x) for x in f)), lam, meta))
    return out


def smoke(seed: int, count: int | None = None) -> list[MoldableInstance]:
    """Tiny exact instances with a stored scenario (see the module docstring)."""
    return _tiny(seed, count_or_default(count, len(SMOKE_MODELS)), SMOKE_MODELS, n_high=4,
                 P_high=6, max_attempts=SMOKE_MAX_ATTEMPTS, generator="smoke", prefix="smoke",
                 record_draws=False)


def library(seed: int, count: int | None = None) -> list[MoldableInstance]:
    """The shipped certified library (``resilsched library``): instance k uses child k of
    ``SeedSequence(seed)``, the speedup model ``LIBRARY_MODELS[k % 5]``, n ~ U{3..5},
    P ~ U{4..8}, and a scenario at q-bar = 0.3 redrawn until it has at most
    `LIBRARY_MAX_ATTEMPTS` attempts (`LIBRARY_COUNT` instances by default)."""
    return _tiny(seed, count_or_default(count, LIBRARY_COUNT), LIBRARY_MODELS, n_high=5,
                 P_high=8, max_attempts=LIBRARY_MAX_ATTEMPTS, generator="library",
                 prefix="moldable-lib", record_draws=True)


def thm9(seed: int, count: int | None = None) -> list[MoldableInstance]:
    """Theorem 9 instances K = 2..count+1 (default 5; the seed is unused)."""
    return [thm9_instance(K) for K in range(2, 2 + count_or_default(count, 5))]


PRESETS: dict[str, tuple[str, Callable[[int, int | None], list[MoldableInstance]]]] = {
    **{f"paper-{m}": (f"30 {m} job sets, n=500, P=7500, lambda=1e-7 (paper §5.1)", _paper(m))
       for m in PAPER_MODELS},
    "smoke": (f"{len(SMOKE_MODELS)} tiny exact instances (n 3..4, P 4..6; roofline, "
              "communication, amdahl, mix, 2 tables) with a stored scenario at "
              f"q-bar={SMOKE_QBAR} (<= {SMOKE_MAX_ATTEMPTS} attempts); CP-SAT proves each optimum "
              "in well under a second", smoke),
    "thm9": ("Theorem 9 instances, K = 2..6 (BATCH-LIST ratio K/2 + 2^(1-K) >= K/2)", thm9),
}

PRESETS["library"] = (f"{LIBRARY_COUNT} tiny exact instances (n 3..5, P 4..8, five models) "
                      f"with a stored scenario (<= {LIBRARY_MAX_ATTEMPTS} attempts): the shipped "
                      "certified library (resilsched library list)", library)
