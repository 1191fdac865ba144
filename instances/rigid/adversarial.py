"""Adversarial rigid instances from the paper's lower-bound proofs (spec 002 §6.3, §6.4, §11.2).

All times are exact `Fraction`s, so the simulators run in exact arithmetic on them.

- `prop3_instance` (Proposition 3): every shelf algorithm has makespan H_P while OPT = 1.
- `prop4_instance` (Proposition 4): R-SHELFFILL-LPT has makespan P while OPT < 2; comes with an
  explicit certificate schedule of makespan 1 + (1+eps)(P-1)/P.
- `split_vs_merged` [OURS] (§11.2): merging the attempts of a job into one interval is not
  exact; per-attempt OPT = 3, merged OPT = 4, R-LIST-0-LPT = 4.
"""

from __future__ import annotations

from fractions import Fraction

from resilsched.errors import InvalidInstance
from resilsched.instances.failures import Scenario
from resilsched.instances.rigid.model import RigidInstance
from resilsched.numeric import strict_int
from resilsched.schedule import Attempt, Schedule


def _check_P(P: int, least: int) -> int:
    return strict_int(P, "P", least)


def prop3_instance(P: int) -> tuple[RigidInstance, Scenario]:
    """Proposition 3: P jobs with p_j = 1, t_j = 1/j, failing f_j = j - 1 times (j = 1..P).

    Any shelf algorithm needs a shelf of height 1/i for every i, so T_S = H_P; OPT runs every
    job on its own processor, back to back: T_OPT = 1.
    """
    P = _check_P(P, 1)
    inst = RigidInstance.build(P, [(1, Fraction(1, j)) for j in range(1, P + 1)],
                               name=f"prop3-P{P}", metadata={"reference": "spec 002 §6.3"})
    return inst, Scenario(tuple(range(P)))


def prop4_instance(P: int, eps: Fraction = Fraction(1, 100)
                   ) -> tuple[RigidInstance, Scenario, Schedule]:
    """Proposition 4: P sets of uniprocessor jobs; set i (i = 1..P) holds

    - the long job L_i, t = 1/P^(i-1), failing P^(i-1) - 1 times (its attempts total 1);
    - (P-1) P^(i-1) fillers of t = (1+eps)/P^i that never fail.

    Jobs are listed set by set (L_1, fillers_1, L_2, ...), P + P^P - 1 of them. LPT handles
    them in that order (needs 0 < eps < P - 1), and R-SHELFFILL-LPT then builds P^(i-1)
    shelves of height 1/P^(i-1) per set: makespan exactly P.

    The certificate runs L_i's attempts back to back on processor i during [0, 1], then set
    i's fillers on the same processor: makespan 1 + (1+eps)(P-1)/P (< 2 when eps < 1/(P-1)).

    Returns ``(instance, scenario, certificate)``.
    """
    P = _check_P(P, 2)
    eps = Fraction(eps)
    if not 0 < eps < P - 1:
        raise InvalidInstance("eps", f"{eps} must satisfy 0 < eps < P - 1 = {P - 1}")
    jobs: list[tuple[int, Fraction]] = []
    fails: list[int] = []
    attempts: list[Attempt] = []
    for i in range(1, P + 1):
        long_t = Fraction(1, P ** (i - 1))
        n_long = P ** (i - 1)
        j = len(jobs)
        jobs.append((1, long_t))
        fails.append(n_long - 1)
        for k in range(1, n_long + 1):
            attempts.append(Attempt(j, k, (k - 1) * long_t, k * long_t, 1, k < n_long))
        filler_t = (1 + eps) / P**i
        clock = Fraction(1)
        for _ in range((P - 1) * P ** (i - 1)):
            j = len(jobs)
            jobs.append((1, filler_t))
            fails.append(0)
            attempts.append(Attempt(j, 1, clock, clock + filler_t, 1, False))
            clock += filler_t
    inst = RigidInstance.build(P, jobs, name=f"prop4-P{P}",
                               metadata={"reference": "spec 002 §6.4", "eps": str(eps)})
    opt = 1 + (1 + eps) * Fraction(P - 1, P)
    return inst, Scenario(tuple(fails)), Schedule(tuple(attempts), opt)


def split_vs_merged() -> tuple[RigidInstance, Scenario]:
    """[OURS] P = 2; A: p = 1, t = 1, f = 1; L1, L2: p = 1, t = 2, f = 0 (spec 002 §11.2).

    Per-attempt OPT = 3 (A1 [0,1], L1 [0,2], L2 [1,3], A2 [2,3]); with A's two attempts merged
    into one interval of length 2 the optimum is 4; R-LIST-0-LPT also gives 4.
    """
    inst = RigidInstance.build(2, [(1, 1), (1, 2), (1, 2)], name="split-vs-merged",
                               metadata={"reference": "spec 002 §11.2 [OURS]"})
    return inst, Scenario((1, 0, 0))
