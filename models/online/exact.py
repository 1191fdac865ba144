"""Exact expected makespan of a fixed policy, in rational arithmetic (issue 26).

A fixed policy gives each node (a state, plus whatever the policy remembers) one *move*: the
time advance delta, the ending jobs E, the in-level successor (every job of E fails,
probability pin = prod_{j in E} q_j) and the other successors (a non-empty set S of E
succeeds). The value V(x), the expected time from x to the end of the last job, solves

    V(x) = c(x) + pin(x) V(next(x)),   c(x) = delta(x) + sum_{S != {}} P(S) V(x_S),

where every x_S lies on a higher level (more jobs done), solved first. Within a level each
node has exactly one successor, next(x): the level's nodes form a *functional graph*, whose
every component is one cycle with trees hanging on it. A cycle x_1 -> ... -> x_k -> x_1
solves in closed form,

    V(x_1) = (c_1 + pin_1 c_2 + pin_1 pin_2 c_3 + ... + pin_1...pin_{k-1} c_k)
             / (1 - pin_1 ... pin_k),

(the denominator is > 0: every pin_i <= max q_j < 1), the rest of the cycle and then the
trees follow by V(x) = c(x) + pin(x) V(next(x)), each node once: linear time in the number of
nodes and outcomes, with Fractions (one job alone gives V = t / (1 - q)).
"""

from __future__ import annotations

import decimal
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from resilsched.models.online.problem import OnlineProblem
from resilsched.models.online.space import OutOfTime


class ExactValue(Fraction):
    """A Fraction whose decimal text has no length limit.

    Python refuses to turn an int of more than 4300 digits into text; the exact values of the
    decision process with q_j calibrated from floats reach tens of thousands (each cycle
    divides by 1 - prod q_j, a number of 53 bits per factor). Their ``str`` (what
    ``objective_exact`` and the certificates hold) goes through `decimal`, which has no limit.
    """

    __slots__ = ()

    def __str__(self) -> str:
        if self.denominator == 1:
            return _digits(self.numerator)
        return f"{_digits(self.numerator)}/{_digits(self.denominator)}"

    def __repr__(self) -> str:
        return f"ExactValue({self})"


def _digits(k: int) -> str:
    try:
        return str(k)
    except ValueError:  # beyond sys.get_int_max_str_digits()
        ctx = decimal.Context(prec=decimal.MAX_PREC, Emax=decimal.MAX_EMAX)
        return format(ctx.create_decimal(k), "f")


def exact_value(x: Fraction) -> int | ExactValue:
    """`x` as an int when integral, else as an `ExactValue`."""
    if x.denominator == 1:
        return int(x)
    return ExactValue(x.numerator, x.denominator)


@dataclass(frozen=True)
class Move:
    """What a fixed policy does at a node (see the module docstring)."""

    delta: int
    ended: int
    fail: Hashable
    outcomes: tuple[tuple[Hashable, int], ...]


def reach(root: Hashable, move: Callable[[Hashable], Move | None],
          expired: Callable[[], bool] = lambda: False,
          known: dict[Hashable, Move | None] | None = None) -> dict[Hashable, Move | None]:
    """Every node reachable from `root` under the policy, with its move (None: terminal).

    With `known`, the nodes are added to it (nodes already there are not expanded again) and
    the dict returned holds only the new ones."""
    moves: dict[Hashable, Move | None] = {} if known is None else known
    added: dict[Hashable, Move | None] = {}
    if root in moves:
        return added
    stack = [root]
    moves[root] = added[root] = move(root)
    count = 0
    while stack:
        count += 1
        if not count & 255 and expired():
            raise OutOfTime
        m = moves[stack.pop()]
        if m is None:
            continue
        for nxt in (m.fail, *(x for x, _ in m.outcomes)):
            if nxt not in moves:
                moves[nxt] = added[nxt] = move(nxt)
                stack.append(nxt)
    return added if known is not None else moves


def evaluate(problem: OnlineProblem, moves: dict[Hashable, Move | None],
             level: Callable[[Hashable], int], values: dict[Hashable, Fraction] | None = None,
             expired: Callable[[], bool] = lambda: False) -> dict[Hashable, Fraction]:
    """Exact values (in scaled time units) of every node of `moves` (a set closed under the
    policy, as `reach` gives); values already in `values` are kept and reused."""
    values = {} if values is None else values
    by_level: dict[int, list[Hashable]] = {}
    for x, m in moves.items():
        if x in values:
            continue
        if m is None:
            values[x] = Fraction(0)
            continue
        by_level.setdefault(level(x), []).append(x)
    prob = problem.outcome_probability
    for lev in sorted(by_level, reverse=True):
        if expired():
            raise OutOfTime
        nodes = by_level[lev]
        const: dict[Hashable, Fraction] = {}
        for i, x in enumerate(nodes):
            if not i & 3 and expired():  # one node's sum over big rationals can take 0.1 s
                raise OutOfTime
            m = moves[x]
            c = Fraction(m.delta)
            for y, s in m.outcomes:
                c += prob(m.ended, s)[1] * values[y]
            const[x] = c
        _solve_level(problem, nodes, moves, const, values, level, lev, expired)
    return values


def _solve_level(problem: OnlineProblem, nodes: list[Hashable], moves: dict[Hashable, Any],
                 const: dict[Hashable, Fraction], values: dict[Hashable, Fraction],
                 level: Callable[[Hashable], int], lev: int,
                 expired: Callable[[], bool]) -> None:
    """The functional graph of one level: cycles in closed form, then the trees."""
    fail_p = problem.fail_probability
    on_path: dict[Hashable, int] = {}
    for count, start in enumerate(nodes):
        if start in values:
            continue
        if not count & 7 and expired():
            raise OutOfTime
        path: list[Hashable] = []
        x = start
        while x not in values and x not in on_path:
            if level(x) != lev:
                raise RuntimeError(f"in-level successor {x!r} is on level {level(x)}, not {lev}")
            on_path[x] = len(path)
            path.append(x)
            x = moves[x].fail
        if x not in values:  # a cycle: path[i:] returns to x = path[i]
            i = on_path[x]
            cycle = path[i:]
            num, prod = Fraction(0), Fraction(1)
            for y in cycle:
                num += prod * const[y]
                prod *= fail_p(moves[y].ended)[1]
            values[x] = num / (1 - prod)
            for y in reversed(cycle[1:]):
                m = moves[y]
                values[y] = const[y] + fail_p(m.ended)[1] * values[m.fail]
            path = path[:i]
        for y in reversed(path):
            m = moves[y]
            values[y] = const[y] + fail_p(m.ended)[1] * values[m.fail]
        on_path.clear()
