"""Optimal values of the whole state space in floating point, and a certified lower bound.

Levels (sets D of done jobs) are solved in decreasing |D|: every outcome with a success lands
on a higher level, already solved, so within a level each action a of state s reads

    Q(s, a) = h_a + pin_a V(n_a),   h_a = delta_a + sum over the outcomes with a success of
                                          their probability times the (known) value,

with n_a the in-level successor (every ending job fails, probability pin_a < 1). The level is
solved by policy iteration in floats: a fixed policy gives each state one in-level successor
(a functional graph), evaluated exactly by pointer doubling (V = c + p V[n], composed 2^k
steps at a time until the products vanish), then each state takes its best action.

`lower_bound_factor` turns these values V into a *certified* lower bound on the optimal values
V*: L = (1 - eta) V with eta >= eps(s) / delta_min(s), where eps(s) bounds how far the exact
Bellman backup of V at s falls below V(s) (from the float backup and the rounding error of its
positive terms, at most gamma_k relative with k = 2n + 2^n + 2 operations). Then the exact
backup of L is >= L everywhere:

    T L(s) = min_a [delta_a + (1 - eta) sum_o p_o V(o)] >= (1 - eta) T V(s) + eta delta_min(s)
           >= (1 - eta) (V(s) - eps(s)) + eta delta_min(s) >= (1 - eta) V(s) = L(s),

so L <= T^k L -> V* (value iteration converges from any start: every policy leaves each level
with probability >= 1 - pin > 0 per step, so every policy is proper; Bertsekas and
Tsitsiklis, 1991). `resilsched.models.online.verify` uses L where exact values are not known.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from resilsched.models.online.space import OutOfTime, StateSpace

#: unit roundoff of IEEE double precision
UNIT_ROUNDOFF = 2.0**-53
#: relative margin below which a policy switch is not worth an iteration (floats)
SWITCH_TOL = 1e-12
#: most policy-iteration rounds per level (each at least halves nothing in theory, but they
#: end in a handful in practice; past this the float policy is left to the exact phase)
MAX_ROUNDS = 100


@dataclass
class FloatSolution:
    """Float values and the float-optimal action of every state (-1: terminal)."""

    values: np.ndarray
    policy: np.ndarray
    rounds: int


def _arrays(space: StateSpace) -> dict[str, np.ndarray]:
    problem = space.problem
    ended = np.frombuffer(space.ended, dtype=np.int64)
    out_lo = np.frombuffer(space.out_lo, dtype=np.int64)
    out_mask = np.frombuffer(space.out_mask, dtype=np.int64)
    counts = np.diff(out_lo)
    out_ended = np.repeat(ended, counts)
    width = problem.n
    keys = (out_ended << width) | out_mask
    uniq, inverse = np.unique(keys, return_inverse=True)
    table = np.array([problem.outcome_probability(int(k) >> width, int(k) & ((1 << width) - 1))[0]
                      for k in uniq], dtype=float)
    fails, finv = np.unique(ended, return_inverse=True)
    ftable = np.array([problem.fail_probability(int(e))[0] for e in fails], dtype=float)
    return {
        "act_lo": np.frombuffer(space.act_lo, dtype=np.int64),
        "delta": np.frombuffer(space.delta, dtype=np.int64).astype(float),
        "fail": np.frombuffer(space.fail, dtype=np.int64),
        "pin": ftable[finv] if len(ended) else np.zeros(0),
        "out_lo": out_lo,
        "out_state": np.frombuffer(space.out_state, dtype=np.int64),
        "out_prob": table[inverse] if len(keys) else np.zeros(0),
    }


def ranges(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The concatenation of range(lo[i], hi[i]) and the segment id of each element."""
    lens = hi - lo
    seg = np.repeat(np.arange(len(lo)), lens)
    if not len(seg):
        return seg, seg
    starts = np.cumsum(lens) - lens
    flat = np.arange(len(seg)) - np.repeat(starts, lens) + np.repeat(lo, lens)
    return flat, seg


def evaluate_functional(c: np.ndarray, p: np.ndarray, nxt: np.ndarray) -> np.ndarray:
    """V with V = c + p V[nxt] (each node one successor, 0 <= p < 1), by pointer doubling."""
    C, Pm, N = c.copy(), p.copy(), nxt.copy()
    for _ in range(64):
        if not len(Pm) or Pm.max() < 1e-20:
            break
        C = C + Pm * C[N]
        Pm = Pm * Pm[N]
        N = N[N]
    return C


def solve_levels(space: StateSpace, expired: Callable[[], bool] = lambda: False
                 ) -> tuple[FloatSolution, dict[str, np.ndarray]]:
    """Policy iteration per level, in decreasing |D| (module docstring)."""
    a = _arrays(space)
    n_states = space.size
    values = np.zeros(n_states)
    policy = np.full(n_states, -1, dtype=np.int64)
    done = np.array([s[0] for s in space.states], dtype=np.int64)
    levels = np.bitwise_count(done.astype(np.uint64)) if n_states else done
    local = np.zeros(n_states, dtype=np.int64)
    rounds = 0
    act_lo, out_lo = a["act_lo"], a["out_lo"]
    for level in range(space.problem.n - 1, -1, -1):
        if expired():
            raise OutOfTime
        members = np.flatnonzero(levels == level)
        if not len(members):
            continue
        local[members] = np.arange(len(members))
        acts, owner = ranges(act_lo[members], act_lo[members + 1])
        flat, seg = ranges(out_lo[acts], out_lo[acts + 1])
        gain = np.bincount(seg, weights=a["out_prob"][flat] * values[a["out_state"][flat]],
                           minlength=len(acts))
        h = a["delta"][acts] + gain
        pin = a["pin"][acts]
        nxt = local[a["fail"][acts]]
        starts = segment_starts(act_lo, members)
        # first policy: as if each action's in-level successor were the state itself
        guess = h / (1.0 - pin)
        choice = _argmin_segments(guess, starts, owner)
        for _ in range(MAX_ROUNDS):
            rounds += 1
            v = evaluate_functional(h[choice], pin[choice], nxt[choice])
            cand = h + pin * v[nxt]
            best = _argmin_segments(cand, starts, owner)
            better = cand[best] < v * (1.0 - SWITCH_TOL)
            if not better.any():
                break
            choice = np.where(better, best, choice)
        values[members] = v
        policy[members] = acts[choice]
    return FloatSolution(values, policy, rounds), a


def segment_starts(act_lo: np.ndarray, members: np.ndarray) -> np.ndarray:
    """Where the actions of each member state start in the concatenation of their ranges."""
    counts = act_lo[members + 1] - act_lo[members]
    return np.cumsum(counts) - counts


def _argmin_segments(x: np.ndarray, starts: np.ndarray, owner: np.ndarray) -> np.ndarray:
    """Per segment (the actions of one state), the index of its smallest entry (first one)."""
    mins = np.minimum.reduceat(x, starts)
    hit = np.flatnonzero(x == mins[owner])
    first = np.full(len(starts), -1, dtype=np.int64)
    # the first hit of each segment: hits are in increasing order, so assign in reverse
    first[owner[hit[::-1]]] = hit[::-1]
    return first


def lower_bound_factor(space: StateSpace, sol: FloatSolution, a: dict[str, np.ndarray]) -> float:
    """The eta of the module docstring: (1 - eta) * values is a certified lower bound on the
    optimal values of every state (eta >= 0; 0 when every value is 0)."""
    n = space.problem.n
    k = 2 * n + 2 + 2**n
    gamma = k * UNIT_ROUNDOFF / (1 - k * UNIT_ROUNDOFF)
    act_lo, out_lo = a["act_lo"], a["out_lo"]
    members = np.flatnonzero(act_lo[1:] > act_lo[:-1])  # non-terminal states
    if not len(members):
        return 0.0
    acts, owner = ranges(act_lo[members], act_lo[members + 1])
    flat, seg = ranges(out_lo[acts], out_lo[acts + 1])
    values = sol.values
    gain = np.bincount(seg, weights=a["out_prob"][flat] * values[a["out_state"][flat]],
                       minlength=len(acts))
    cand = a["delta"][acts] + gain + a["pin"][acts] * values[a["fail"][acts]]
    starts = segment_starts(act_lo, members)
    backup = np.minimum.reduceat(cand, starts)
    dmin = np.minimum.reduceat(a["delta"][acts], starts)
    v = values[members]
    eps = np.maximum(v - backup * (1.0 - 2.0 * gamma), 0.0) + 4.0 * UNIT_ROUNDOFF * v
    eta = float(np.max(eps / dmin)) * (1.0 + 1e-6)
    return eta
