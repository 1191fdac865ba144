"""Lower-bound instances of the paper's proofs as deterministic fixtures (spec 000 §4.1).

- `thm7_profile(P)`: the concave profile of Theorem 7 (local allocations are Omega(sqrt P)),
  exact `Fraction` times, t(1) = 1, t(sqrt P) = 1/2, t(P) = 1/sqrt P.
- `thm7_instance(P, p_local)`: 1 job if the local allocation p_local <= sqrt P, else P jobs; the
  optimum is 1/sqrt P, resp. 1.
- `thm9_instance(K)`: K sequential jobs t_j = 2^-j on K processors with f_j = 2^(j-1) - 1;
  OPT = 1/2 and BATCH-LIST takes K/4 (ratio K/2 = ceil(log2(f_max + 2))/2).
- `thm10_cluster_sizes(K, q)`: the cluster sizes n_j of Theorem 10 (symbolic use only).
"""

from __future__ import annotations

import math
from fractions import Fraction

from resilsched.errors import InvalidInstance
from resilsched.instances.failures import Scenario
from resilsched.instances.moldable.model import MoldableInstance
from resilsched.instances.moldable.speedup import Table


def _sqrt_int(P: int) -> int:
    s = math.isqrt(P)
    if P < 4 or s * s != P:
        raise InvalidInstance("P", f"{P} must be a perfect square >= 4 (Theorem 7)")
    return s


def thm7_profile(P: int) -> Table:
    """t(p) = (sqrtP - 1)/(p + sqrtP - 2) for p <= sqrtP, (P - sqrtP)/(p (sqrtP - 2) + P) after."""
    s = _sqrt_int(P)
    times = []
    for p in range(1, P + 1):
        if p <= s:
            times.append(Fraction(s - 1, p + s - 2))
        else:
            times.append(Fraction(P - s, p * (s - 2) + P))
    return Table(tuple(int(t) if t.denominator == 1 else t for t in times))


def thm7_instance(P: int, p_local: int) -> tuple[MoldableInstance, Fraction]:
    """The Theorem 7 instance for a local allocation ``p_local``, and its optimum."""
    s = _sqrt_int(P)
    prof = thm7_profile(P)
    if p_local <= s:
        return MoldableInstance(P, (prof,), f"thm7-P{P}-n1"), Fraction(1, s)
    return MoldableInstance(P, (prof,) * P, f"thm7-P{P}-nP"), Fraction(1)


def thm9_instance(K: int) -> MoldableInstance:
    """Theorem 9: K sequential jobs t_j = 2^-j (j = 1..K) on P = K, f_j = 2^(j-1) - 1."""
    if K < 2:
        raise InvalidInstance("K", f"{K} must be >= 2")
    jobs = tuple(Table((Fraction(1, 2**j),) * K) for j in range(1, K + 1))
    f = Scenario(tuple(2 ** (j - 1) - 1 for j in range(1, K + 1)))
    return MoldableInstance(K, jobs, f"thm9-K{K}", f, metadata={"optimum": "1/2"})


def thm10_cluster_sizes(K: int, q: list[float]) -> list[int]:
    """n_j = floor(2^(K+j-1) ln(1/q_j) / q_j^(2^(K+j-1) - 1)) (App. C; astronomically large)."""
    out = []
    for j, qj in enumerate(q, start=1):
        e = 2 ** (K + j - 1)
        out.append(math.floor(e * math.log(1 / qj) / qj ** (e - 1)))
    return out
