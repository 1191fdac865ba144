"""Subset-row cuts for the set-partitioning master of the co-scheduling family (spec 001 §2.3).

For any three tasks S = {a, b, c}, a partition holds at most one pack with two or more of them
(two such packs would share a task), so

    sum_{B : |B ∩ S| >= 2} z_B <= 1

is valid for every co-schedule (the rank-1 Chvátal-Gomory cut of the three rows of S with
multipliers 1/2). The LP of the set-partitioning model violates it when it mixes, e.g., the
packs {a,b}, {b,c} and {a,c} at 1/2 each. With dual sigma_S <= 0 of the cut, the reduced cost of
pack B gains -sigma_S for every cut with |B ∩ S| >= 2, so pricing over the explicit pool stays
one numpy pass per cut (`SubsetRowCuts.members` lists the pool rows a cut touches).

Lagrangian argument (why the bound and the reduced-cost closure of `setpart` stay valid): for a
partition x, cost(x) = D + sum_B rc_B x_B + mu (|x| - ceil(n/k)) + sum_S sigma_S (a_S(x) - 1),
where D is the dual objective and a_S(x) <= 1 the cut's left-hand side; the last two terms are
>= 0 (mu >= 0, sigma_S <= 0), hence cost(x) >= D + sum_B rc_B x_B.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Iterable, Sequence

import numpy as np

from resilsched.models.coschedule.hardlimit import PhaseTimeout
from resilsched.options import Deadline

Triple = tuple[int, int, int]

#: a triple enters when its left-hand side exceeds 1 by more than this
MIN_VIOLATION = 1e-3
#: per separation round: at most this many cuts, each task in at most `MAX_USES` of them
MAX_CUTS_PER_ROUND = 50
MAX_USES = 3


class SubsetRowCuts:
    """The cuts added so far, and where they hit the pool of packs.

    `packs[s]` is the pool's (m_s, s) array of packs of size s (members ascending), as in
    `pool.PackPool`. Indexing the pool by pairs of tasks checks `deadline` (`PhaseTimeout`).
    """

    def __init__(self, n: int, packs: dict[int, np.ndarray], deadline: Deadline | None = None):
        self.n = n
        self.triples: list[Triple] = []
        self._by_pair: dict[tuple[int, int], list[int]] = defaultdict(list)  # pair -> cut ids
        self._pool_rows: dict[int, dict[int, np.ndarray]] = {}  # pair key -> size -> pool rows
        for s, arr in packs.items():
            if len(arr) == 0:
                continue
            for u, v in itertools.combinations(range(s), 2):
                key = arr[:, u].astype(np.int64) * n + arr[:, v]
                order = np.argsort(key, kind="stable")
                sorted_keys = key[order]
                cut_at = np.flatnonzero(np.diff(sorted_keys)) + 1
                for q, part in enumerate(np.split(order, cut_at)):
                    if q % 4096 == 0 and deadline is not None and deadline.expired():
                        raise PhaseTimeout("indexing the pool for subset-row cuts")
                    pair = int(key[part[0]])
                    prev = self._pool_rows.setdefault(pair, {}).get(s)
                    self._pool_rows[pair][s] = part if prev is None else np.concatenate(
                        [prev, part])
        self.members: list[dict[int, np.ndarray]] = []  # per cut: size -> pool rows

    def __len__(self) -> int:
        return len(self.triples)

    def add(self, triple: Sequence[int]) -> int:
        """Register the cut of `triple`; returns its index."""
        a, b, c = sorted(int(x) for x in triple)
        q = len(self.triples)
        self.triples.append((a, b, c))
        rows: dict[int, list[np.ndarray]] = defaultdict(list)
        for i, j in ((a, b), (a, c), (b, c)):
            self._by_pair[(i, j)].append(q)
            for s, r in self._pool_rows.get(i * self.n + j, {}).items():
                rows[s].append(r)
        self.members.append({s: np.unique(np.concatenate(r)) for s, r in rows.items()})
        return q

    def cuts_of(self, pack: Sequence[int]) -> list[int]:
        """Indices of the cuts whose left-hand side contains `pack` (|pack ∩ S| >= 2)."""
        hit: set[int] = set()
        for pair in itertools.combinations(sorted(pack), 2):
            hit.update(self._by_pair.get(pair, ()))
        return sorted(hit)

    def lower_reduced_costs(self, rcs: dict[int, np.ndarray], sigma: np.ndarray) -> None:
        """rc_B -= sigma_S for every cut S touching B (in place; sigma <= 0 raises rc)."""
        for q in np.flatnonzero(sigma):
            for s, rows in self.members[q].items():
                rcs[s][rows] -= sigma[q]

    def separate(self, support: Iterable[tuple[Sequence[int], float]]) -> list[Triple]:
        """Violated, not yet added triples for an LP solution given as (pack, value) pairs.

        Exact separation over all triples touched by two members of a support pack; the most
        violated first, each task in at most `MAX_USES` of the returned cuts.
        """
        lhs: dict[Triple, float] = defaultdict(float)
        for pack, value in support:
            if len(pack) < 2:
                continue
            hit: set[Triple] = set()
            for i, j in itertools.combinations(sorted(pack), 2):
                for m in range(self.n):
                    if m != i and m != j:
                        hit.add(tuple(sorted((i, j, m))))  # type: ignore[arg-type]
            for t in hit:
                lhs[t] += value
        have = set(self.triples)
        violated = sorted(((v, t) for t, v in lhs.items()
                           if v > 1 + MIN_VIOLATION and t not in have), reverse=True)
        chosen: list[Triple] = []
        uses: dict[int, int] = defaultdict(int)
        for _, t in violated:
            if any(uses[i] >= MAX_USES for i in t):
                continue
            chosen.append(t)
            for i in t:
                uses[i] += 1
            if len(chosen) >= MAX_CUTS_PER_ROUND:
                break
        return chosen
