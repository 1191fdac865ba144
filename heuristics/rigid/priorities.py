"""Priority rules for rigid jobs (spec 002 §3, ambiguities A5, A6, A16).

Every rule is an ascending sort key computed from the error-free data (p_j, t_j, a_j = p_j t_j);
ties are broken by the job index j, and a failed job is reinserted with its own key, so it regains
its original rank (A5).

| rule   | highest priority to          | key            |
|--------|------------------------------|----------------|
| LPT    | larger t_j                   | (-t_j, j)      |
| SPT    | smaller t_j                  | (t_j, j)       |
| HPA    | larger p_j                   | (-p_j, j)      |
| LPA    | smaller p_j                  | (p_j, j)       |
| LA     | larger a_j                   | (-a_j, j)      |
| SA     | smaller a_j                  | (a_j, j)       |
| Random | random                       | (u_j, j), u_j ~ U(0, 1) |
| LJF    | large jobs (2 p_j >= P + 1)  | large: (0, -p_j, j)  |
|        | first, by decreasing p_j     | small: (1, *secondary key); secondary rule default LPT |

Random draws one key per job from ``numpy.random.default_rng(seed)`` at the start of a run (one
key per job per (job set, scenario) when the caller passes one seed per scenario); with
``redraw_on_failure=True`` a failed job draws a fresh key when it is reinserted (the [CODE]
behaviour, A6). LJF's secondary rule may be any other rule, Random included (A16).

A priority may also be a key function of one's own, ``key(instance, j) -> number``: the job
with the smallest key goes first, ties by j (`key_queue`; the registry resolves a
``MODULE:FUNCTION`` given on the command line to that function).

>>> from resilsched.instances.rigid import RigidInstance
>>> inst = RigidInstance.build(4, [(2, 3), (1, 2), (4, 1)])
>>> key_queue(inst, lambda instance, j: -instance.p[j]).items  # widest first
[2, 0, 1]
"""

from __future__ import annotations

import math
import numbers
from bisect import insort
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from resilsched.errors import InvalidInstance

PRIORITIES = ("LPT", "SPT", "HPA", "LPA", "LA", "SA", "Random", "LJF")


def check_priority(rule: str) -> str:
    """Return the canonical spelling of `rule` (case-insensitive) or raise `InvalidInstance`."""
    for name in PRIORITIES:
        if rule == name or (isinstance(rule, str) and rule.lower() == name.lower()):
            return name
    raise InvalidInstance("priority", f"{rule!r} is unknown (choose from {', '.join(PRIORITIES)})")


def priority_keys(
    p: Sequence[int],
    t: Sequence[Any],
    rule: str,
    *,
    P: int,
    u: Sequence[float] | None = None,
    ljf_secondary: str = "LPT",
) -> list[tuple]:
    """One ascending sort key per job for `rule` (spec 002 §3); each key ends with j.

    ``u`` are the random draws used by Random (also as LJF's secondary rule when it is Random).
    """
    rule = check_priority(rule)
    n = len(p)
    if rule == "LJF":
        secondary = check_priority(ljf_secondary)
        if secondary == "LJF":
            raise InvalidInstance("ljf_secondary", "'LJF' cannot be its own secondary rule")
        sec = priority_keys(p, t, secondary, P=P, u=u)
        return [(0, -p[j], j) if 2 * p[j] >= P + 1 else (1, *sec[j]) for j in range(n)]
    if rule == "LPT":
        return [(-t[j], j) for j in range(n)]
    if rule == "SPT":
        return [(t[j], j) for j in range(n)]
    if rule == "HPA":
        return [(-p[j], j) for j in range(n)]
    if rule == "LPA":
        return [(p[j], j) for j in range(n)]
    if rule == "LA":
        return [(-(p[j] * t[j]), j) for j in range(n)]
    if rule == "SA":
        return [(p[j] * t[j], j) for j in range(n)]
    # Random
    if u is None or len(u) != n:
        raise InvalidInstance("priority", "'Random' needs one random draw per job")
    return [(float(u[j]), j) for j in range(n)]


def key_name(key: Callable[..., Any]) -> str:
    """How results name a key-function priority: ``module:qualname``."""
    return f"{getattr(key, '__module__', '?')}:{getattr(key, '__qualname__', repr(key))}"


def key_values(instance: Any, key: Callable[[Any, int], Any], n: int) -> list[Any]:
    """``key(instance, j)`` for the jobs j < n, each checked to be a finite real number
    (`InvalidInstance` naming the job otherwise)."""
    values = []
    for j in range(n):
        value = key(instance, j)
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or (
                not isinstance(value, numbers.Rational) and not math.isfinite(value)):
            raise InvalidInstance("priority", f"{key_name(key)} gives job {j} the key "
                                              f"{value!r}, not a finite number")
        values.append(value)
    return values


def key_queue(instance: Any, key: Callable[[Any, int], Any]) -> PriorityQueue:
    """The queue of a key-function priority: job j's key is ``(key(instance, j), j)``, the
    smallest first (`key_values`)."""
    values = key_values(instance, key, len(instance.p))
    return PriorityQueue([(v, j) for j, v in enumerate(values)])


def priority_order(keys: Sequence[tuple]) -> list[int]:
    """Jobs sorted by their keys (highest priority first)."""
    return sorted(range(len(keys)), key=keys.__getitem__)


class PriorityQueue:
    """The queue Q of pending jobs, always in priority order (spec 002 §3-§5).

    Holds job indices. `push` reinserts a job at its rank (binary search, O(log n) compares plus
    the list shift); with ``redraw=True`` (Random + ``redraw_on_failure``) the job first draws a
    new key from `rng`. `keep` drops the jobs a pass started in one O(|Q|) sweep.
    """

    __slots__ = ("items", "_key", "_rng", "_redraw")

    def __init__(self, keys: Sequence[tuple], *, rng: np.random.Generator | None = None,
                 redraw: Sequence[bool] | None = None, jobs: Iterable[int] | None = None):
        """``redraw[j]`` True: job j's key ends with ``(u_j, j)`` and is redrawn on reinsertion."""
        if redraw is not None and any(redraw):
            if rng is None:
                raise InvalidInstance("redraw_on_failure", "needs a random generator")
            self._key: list[Any] = list(keys)
        else:
            order = priority_order(keys)
            rank = [0] * len(keys)
            for r, j in enumerate(order):
                rank[j] = r
            self._key = rank
        self._rng = rng
        self._redraw = list(redraw) if redraw is not None and any(redraw) else None
        start = range(len(keys)) if jobs is None else jobs
        self.items: list[int] = sorted(start, key=self._key.__getitem__)

    def push(self, j: int) -> None:
        """Reinsert job j (after a failure) at its priority rank."""
        if self._redraw is not None and self._redraw[j]:
            key = self._key[j]
            self._key[j] = (*key[:-2], float(self._rng.random()), j)
        insort(self.items, j, key=self._key.__getitem__)

    def fixed_ranks(self) -> list[int] | None:
        """The rank of every job (0 = highest priority) when keys never change, i.e. unless
        Random redraws them (`FitIndex` needs a fixed order); else None."""
        return None if self._redraw is not None else list(self._key)

    def core_keys(self) -> tuple[list[float], list[float], list[bool] | None]:
        """The keys as the compiled core reads them (``csrc/core/queue.h``): job j's key is
        ``(k1[j], k2[j], j)``, smaller first. Fixed priorities give ``(rank, 0)``; redrawn keys
        are ``(u, j)`` (Random) or ``(0, -p_j, j)`` / ``(1, u, j)`` (LJF), with the flags of
        the jobs that redraw."""
        if self._redraw is None:
            return [float(r) for r in self._key], [0.0] * len(self._key), None
        k1 = [float(k[0]) if len(k) == 3 else 0.0 for k in self._key]
        k2 = [float(k[-2]) for k in self._key]
        return k1, k2, list(self._redraw)

    def core_draws(self, count: int) -> np.ndarray:
        """The next `count` fresh keys the queue would draw (the same stream, one value per
        reinsertion of a redrawing job); empty without redraws. Consumes them."""
        if self._redraw is None or self._rng is None:
            return np.empty(0)
        return self._rng.random(count)

    def keep(self, started: set[int]) -> None:
        """Remove the jobs in `started` from the queue."""
        self.items = [j for j in self.items if j not in started]

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self):
        return iter(self.items)


def make_queue(
    p: Sequence[int],
    t: Sequence[Any],
    rule: str,
    *,
    P: int,
    seed: int | np.random.Generator = 0,
    redraw_on_failure: bool = False,
    ljf_secondary: str = "LPT",
) -> PriorityQueue:
    """The initial queue (all jobs) for `rule`; Random keys come from ``default_rng(seed)``.

    ``redraw_on_failure`` only matters when Random is involved (as the rule or LJF's secondary).
    """
    rule = check_priority(rule)
    uses_random = rule == "Random" or (rule == "LJF" and check_priority(ljf_secondary) == "Random")
    rng = np.random.default_rng(seed) if uses_random else None
    u = rng.random(len(p)) if rng is not None else None
    keys = priority_keys(p, t, rule, P=P, u=u, ljf_secondary=ljf_secondary)
    redraw = None
    if redraw_on_failure and uses_random:
        # LJF draws only the small jobs' secondary keys; large jobs keep (0, -p_j, j).
        redraw = [rule == "Random" or k[0] == 1 for k in keys]
    return PriorityQueue(keys, rng=rng, redraw=redraw)
