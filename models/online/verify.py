"""The optimal online policy, proven optimal in exact arithmetic (issue 26).

`optimal_policy` starts from the float-optimal policy mu of `resilsched.models.online.floatdp`
and proves it optimal, improving it where the proof finds a better action:

1. S = the states reachable from time 0 under mu; V_mu on S exactly (`exact.evaluate`);
2. for every state s of S and every action a: Q_B(s, a) >= V_mu(s), where Q_B backs up
   B = V_mu on S and B = L off S, L = (1 - eta) V_float the certified lower bound on V*
   (`floatdp.lower_bound_factor`). Each check is first made in floats with a rigorous margin
   (positive terms: relative error at most gamma_k, plus one rounding per value), and only
   near-ties are redone in Fractions;
3. a check that fails in Fractions with an outcome off S adds that outcome's mu-reachable
   states to S (their exact values under mu; S stays closed under mu and the values already
   known do not change) and is made again; a check that fails with every outcome in S is a
   strict improvement: after the pass, mu takes those actions (policy iteration) and the
   proof restarts from step 1.

Termination: each restart strictly improves mu (policy iteration over finitely many policies),
and S only grows between restarts (bounded by the state space).

Optimality when a pass ends with no failed check (V_mu(s_0) = V*(s_0)): V_mu >= V* on S,
since mu is a policy. Let Delta_l = max over the states s of S on level l of V_mu(s) - V*(s),
and assume Delta = 0 on every higher level. Take s attaining Delta_l and an optimal action a*
at s: V*(s) = Q*(s, a*), and V_mu(s) <= Q_B(s, a*) by the check. Their difference is a sum
over the outcomes of a* of P(o) (B(o) - V*(o)): <= 0 off S (B = L <= V*), 0 on higher levels
of S, and <= pin Delta_l for the in-level outcome in S. So Delta_l <= pin Delta_l with
pin < 1: Delta_l = 0. By induction over the levels, V_mu = V* on S, at s_0 in particular.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from resilsched.models.online.exact import Move, evaluate, reach
from resilsched.models.online.floatdp import UNIT_ROUNDOFF, FloatSolution, ranges
from resilsched.models.online.space import OutOfTime, StateSpace


@dataclass
class Proof:
    """The proven optimal policy: its action per state of S (indices into the state space),
    the exact values on S (scaled units), and what the proof did."""

    policy: dict[int, int]
    values: dict[int, Fraction]
    checks: int = 0
    exact_checks: int = 0
    expansions: int = 0
    improvements: int = 0
    restarts: int = 0


class _Checker:
    """The checks of step 2 on one state space (module docstring)."""

    def __init__(self, space: StateSpace, floats: FloatSolution, arrays: dict[str, np.ndarray],
                 eta: float):
        self.space = space
        self.problem = space.problem
        self.a = arrays
        self.eta = eta
        self.low = Fraction(1) - Fraction(eta)
        self.vf = floats.values
        n = self.problem.n
        k = 2 * n + 2 + 2**n
        gamma = k * UNIT_ROUNDOFF / (1 - k * UNIT_ROUNDOFF) + 4 * UNIT_ROUNDOFF
        self.down = 1.0 - 2.0 * gamma
        self.up = 1.0 + 4.0 * UNIT_ROUNDOFF
        #: the backed-up values in floats: L off S, float(V_mu) on S
        self.b = (1.0 - eta) * floats.values

    def move(self, policy: dict[int, int]) -> Callable[[int], Move | None]:
        sp = self.space

        def fn(i: int) -> Move | None:
            act = policy[i]
            if act < 0:
                return None
            lo, hi = sp.out_lo[act], sp.out_lo[act + 1]
            outs = tuple(zip(sp.out_state[lo:hi], sp.out_mask[lo:hi], strict=True))
            return Move(sp.delta[act], sp.ended[act], sp.fail[act], outs)
        return fn

    def level(self, i: int) -> int:
        return self.space.states[i][0].bit_count()

    def set_values(self, values: dict[int, Fraction], states: Iterable[int]) -> None:
        for i in states:
            self.b[i] = float(values[i])

    def uncertified(self, states: list[int], policy: dict[int, int]) -> list[tuple[int, int]]:
        """The (state, action) pairs of `states` whose check the float margin cannot settle."""
        a = self.a
        members = np.array(states, dtype=np.int64)
        act_lo, out_lo = a["act_lo"], a["out_lo"]
        acts, owner = ranges(act_lo[members], act_lo[members + 1])
        if not len(acts):
            return []
        flat, seg = ranges(out_lo[acts], out_lo[acts + 1])
        b = self.b
        cand = a["delta"][acts] + a["pin"][acts] * b[a["fail"][acts]] + np.bincount(
            seg, weights=a["out_prob"][flat] * b[a["out_state"][flat]], minlength=len(acts))
        chosen = np.array([policy[i] for i in states], dtype=np.int64)[owner]
        limit = b[members][owner] * self.up
        doubt = np.flatnonzero((cand * self.down < limit) & (acts != chosen))
        return [(int(members[owner[k]]), int(acts[k])) for k in doubt]

    def q_exact(self, act: int, values: dict[int, Fraction]) -> tuple[Fraction, list[int]]:
        """Q_B(s, act) in Fractions and the outcomes off S it had to bound by L."""
        sp = self.space
        prob = self.problem.outcome_probability
        ended = sp.ended[act]
        off: list[int] = []

        def b(i: int) -> Fraction:
            v = values.get(i)
            if v is None:
                off.append(i)
                return self.low * Fraction(float(self.vf[i]))
            return v
        total = Fraction(sp.delta[act]) + prob(ended, 0)[1] * b(sp.fail[act])
        for o in range(sp.out_lo[act], sp.out_lo[act + 1]):
            total += prob(ended, sp.out_mask[o])[1] * b(sp.out_state[o])
        return total, off


def optimal_policy(space: StateSpace, floats: FloatSolution, arrays: dict[str, np.ndarray],
                   eta: float, expired: Callable[[], bool] = lambda: False) -> Proof:
    """Prove the float policy optimal (or improve it until it is): the module docstring."""
    ck = _Checker(space, floats, arrays, eta)
    policy = {i: int(a) for i, a in enumerate(floats.policy.tolist())}
    proof = Proof(policy, {})
    values: dict[int, Fraction] = {}
    switches: dict[int, tuple[Fraction, int]] = {}
    while True:
        fn = ck.move(policy)
        moves = reach(0, fn, expired)
        values = evaluate(space.problem, moves, ck.level, _unchanged(moves, values, switches),
                          expired)
        ck.b = (1.0 - eta) * floats.values
        ck.set_values(values, moves)
        switches = {}
        pending = list(moves)
        while pending:
            if expired():
                raise OutOfTime
            batch, pending = pending, []
            proof.checks += sum(len(space.actions_of(i)) for i in batch)
            for s, act in ck.uncertified(batch, policy):
                if expired():
                    raise OutOfTime
                while True:
                    proof.exact_checks += 1
                    q, off = ck.q_exact(act, values)
                    if q >= values[s]:
                        break
                    if not off:
                        best = switches.get(s)
                        if best is None or q < best[0]:
                            switches[s] = (q, act)
                        break
                    proof.expansions += 1
                    for i in off:
                        if i in values:
                            continue
                        added = reach(i, fn, expired, moves)
                        evaluate(space.problem, added, ck.level, values, expired)
                        ck.set_values(values, added)
                        pending.extend(added)
        if not switches:
            proof.values = values
            proof.policy = {i: policy[i] for i in moves}
            return proof
        proof.improvements += len(switches)
        proof.restarts += 1
        for s, (_, act) in switches.items():
            policy[s] = act


def _unchanged(moves: dict[int, Move | None], values: dict[int, Fraction],
               switched: dict[int, tuple[Fraction, int]]) -> dict[int, Fraction]:
    """The values that a policy switch at the states of `switched` leaves as they are: those
    of the states of `moves` from which no switched state can be reached."""
    if not values:
        return {}
    parents: dict[int, list[int]] = {}
    for x, m in moves.items():
        if m is not None:
            for y in (m.fail, *(z for z, _ in m.outcomes)):
                parents.setdefault(y, []).append(x)
    dirty = {s for s in switched if s in moves}
    stack = list(dirty)
    while stack:
        for x in parents.get(stack.pop(), ()):
            if x not in dirty:
                dirty.add(x)
                stack.append(x)
    return {x: v for x, v in values.items() if x in moves and x not in dirty}
