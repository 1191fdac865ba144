"""An independent oracle of the online optimum: every deterministic stationary policy of a tiny
instance, each evaluated by Gaussian elimination in Fractions.

Shares no code with `resilsched.models.online`: its own states (times as Fractions, no
scaling), its own transitions, its own linear algebra. Job j has modes ``[(p, t), ...]`` (one
for a rigid job). A state is (done jobs, running jobs with their processors and remaining
times); an action starts a set of waiting jobs, each in one of its modes, that fits (idling
allowed unless nothing runs).
"""

from __future__ import annotations

import itertools
from fractions import Fraction


def _actions(P, modes, state):
    done, running = state
    busy = set(done) | {j for j, _, _ in running}
    waiting = [j for j in range(len(modes)) if j not in busy]
    free = P - sum(p for _, p, _ in running)
    out = []
    for r in range(len(waiting) + 1):
        for subset in itertools.combinations(waiting, r):
            for picks in itertools.product(*(modes[j] for j in subset)):
                if sum(p for p, _ in picks) <= free and (subset or running):
                    out.append(tuple((j, p, t) for j, (p, t) in zip(subset, picks,
                                                                     strict=True)))
    return out


def _transitions(q, state, action):
    """[(probability, next state)] and the time advance."""
    done, running = state
    entries = list(running) + list(action)
    delta = min(r for _, _, r in entries)
    ending = [j for j, _, r in entries if r == delta]
    rest = tuple(sorted((j, p, r - delta) for j, p, r in entries if r != delta))
    out = []
    for pattern in itertools.product((True, False), repeat=len(ending)):
        prob = Fraction(1)
        new_done = set(done)
        for j, ok in zip(ending, pattern, strict=True):
            prob *= (1 - q[j]) if ok else q[j]
            if ok:
                new_done.add(j)
        out.append((prob, (frozenset(new_done), rest)))
    return delta, out


def _solve(matrix, rhs):
    """Gauss-Jordan elimination in Fractions (the system is non-singular)."""
    n = len(rhs)
    a = [row[:] + [rhs[i]] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = next(r for r in range(col, n) if a[r][col] != 0)
        a[col], a[pivot] = a[pivot], a[col]
        inv = 1 / a[col][col]
        a[col] = [x * inv for x in a[col]]
        for r in range(n):
            if r != col and a[r][col] != 0:
                f = a[r][col]
                a[r] = [x - f * y for x, y in zip(a[r], a[col], strict=True)]
    return [a[i][n] for i in range(n)]


def policy_value(P, modes, q, choice):
    """E[makespan] from time 0 of the policy state -> choice[state] (defined on every state it
    reaches), by one linear system V(s) - sum_s' P(s, s') V(s') = delta(s) over those states."""
    states = _reached(modes, q, choice)
    index = {s: i for i, s in enumerate(states)}
    n = len(states)
    matrix = [[Fraction(0)] * n for _ in range(n)]
    rhs = [Fraction(0)] * n
    for s in states:
        i = index[s]
        matrix[i][i] += 1
        if len(s[0]) == len(modes):
            continue
        delta, outs = _transitions(q, s, choice[s])
        rhs[i] = Fraction(delta)
        for prob, nxt in outs:
            matrix[i][index[nxt]] -= prob
    return _solve(matrix, rhs)[index[START]]


START = (frozenset(), ())


def _reached(modes, q, choice):
    """The states reached from time 0 under `choice`; stops at (and lists) a state without a
    choice, which is returned last."""
    seen, order, stack = {START}, [START], [START]
    while stack:
        s = stack.pop()
        if len(s[0]) == len(modes):
            continue
        if s not in choice:
            return [*order, s]
        for _, nxt in _transitions(q, s, choice[s])[1]:
            if nxt not in seen:
                seen.add(nxt)
                order.append(nxt)
                stack.append(nxt)
    return order


def brute_force(P, modes, q, limit=100_000):
    """The minimum over every deterministic stationary policy, enumerated by their choices in
    the states they reach (the others do not matter): at most `limit` of them. `modes[j]` is
    job j's list of (p, t)."""
    modes = [[(int(p), Fraction(t)) for p, t in row] for row in modes]
    q = [Fraction(x) for x in q]
    best, count = None, 0

    def branch(choice):
        nonlocal best, count
        reached = _reached(modes, q, choice)
        last = reached[-1]
        if len(last[0]) < len(modes) and last not in choice:
            for a in _actions(P, modes, last):
                branch({**choice, last: a})
            return
        count += 1
        if count > limit:
            raise ValueError(f"more than {limit} policies: too many for the brute force")
        value = policy_value(P, modes, q, choice)
        if best is None or value < best:
            best = value

    branch({})
    return best, count


def brute_force_rigid(P, p, t, q, limit=100_000):
    """`brute_force` for rigid jobs (p_j, t_j)."""
    return brute_force(P, [[(pj, tj)] for pj, tj in zip(p, t, strict=True)], q, limit)
