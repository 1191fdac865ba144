"""Common-random-numbers failure scenarios for rigid job sets (spec 002 §1.2, §8.3).

For a job set and an average failure probability q-bar, lambda is calibrated on *that* set,
lambda = -ln(1 - q-bar) / a-bar, so q_j = 1 - (1 - q-bar)^(a_j / a-bar) and f_j is geometric:
P(f_j = k) = q_j^k (1 - q_j). The paper draws 1000 scenarios per (set, q-bar) and replays the same
scenarios for every heuristic and priority rule (common random numbers); q_j does not depend on
P, so the P sweep reuses them too (spec §8.3, [INFERRED]).

A scenario matrix is a ``(count, n)`` integer array whose row s is the scenario f^(s). It is a pure
function of (job areas, q-bar, count, seed): the sampling itself is
`resilsched.instances.failures.sample_failures`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from resilsched.errors import InvalidInstance
from resilsched.instances.failures import Scenario, sample_failures
from resilsched.instances.rigid.model import RigidInstance
from resilsched.numeric import strict_int


def _check_count(count: int) -> int:
    return strict_int(count, "count")


def scenario_matrix(instance: RigidInstance, qbar: float, count: int,
                    seed: int | np.random.SeedSequence | np.random.Generator) -> np.ndarray:
    """`count` failure scenarios for `instance` at q-bar, as a ``(count, n)`` int64 array.

    q_j is calibrated on this job set (spec §1.2); q-bar = 0 gives the all-zero matrix. The same
    (instance areas, q-bar, seed) always give the same matrix, independent of P.

    >>> from resilsched.instances.rigid.synthetic import tiny_rigid
    >>> m = scenario_matrix(tiny_rigid(0, n=3, P=4, tmax=5), 0.3, 4, seed=1)
    >>> m.shape, m.dtype.kind, bool((m >= 0).all())
    ((4, 3), 'i', True)
    """
    count = _check_count(count)
    q = instance.q(qbar)
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    return np.asarray(sample_failures(q, count, rng), dtype=np.int64).reshape(count, instance.n)


def scenario_matrices(instances: Sequence[RigidInstance], qbar: float, count: int,
                      seed: int | Sequence[int]) -> list[np.ndarray]:
    """One scenario matrix per job set; set k uses child k of ``SeedSequence(seed)``.

    Matrix k does not depend on how many sets are asked for, and is reused for every heuristic,
    priority rule and platform size P (common random numbers, spec §8.3). `seed` may be a list
    of ints, e.g. ``[base_seed, q_key]`` for one independent stream per q-bar level.
    """
    entropy = int(seed) if isinstance(seed, (int, np.integer)) else [int(x) for x in seed]
    children = np.random.SeedSequence(entropy).spawn(len(instances))
    return [scenario_matrix(inst, qbar, count, child)
            for inst, child in zip(instances, children, strict=True)]


def scenarios_from_matrix(matrix: np.ndarray) -> list[Scenario]:
    """The rows of a scenario matrix as `Scenario` objects."""
    return [Scenario(tuple(int(x) for x in row)) for row in np.asarray(matrix)]


def expected_total_failures(instance: RigidInstance, qbar: float) -> float:
    """E[sum_j f_j] = sum_j ((1 - q-bar)^(-a_j / a-bar) - 1) = sum_j (e^(lambda a_j) - 1)."""
    if not 0 <= qbar < 1:
        raise InvalidInstance("qbar", f"{qbar} must be in [0, 1)")
    a = np.asarray([float(x) for x in instance.areas])
    return float(np.sum(np.expm1(-np.log1p(-qbar) * a / a.mean())))
