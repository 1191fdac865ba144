"""Subset-row cuts for the set-partitioning master of the co-scheduling family (spec 001 §2.3).

For any three tasks S = {a, b, c}, a partition holds at most one pack with two or more of them
(two such packs would share a task), so

    sum_{B : |B ∩ S| >= 2} z_B <= 1

is valid for every co-schedule (the rank-1 Chvátal-Gomory cut of the three rows of S with
multipliers 1/2). The LP of the set-partitioning model violates it when it mixes, e.g., the
packs {a,b}, {b,c} and {a,c} at 1/2 each. With dual sigma_S <= 0 of the cut, the reduced cost of
pack B gains -sigma_S for every cut with |B ∩ S| >= 2, so pricing over the explicit pool stays
one numpy pass per cut (`SubsetRowCuts.members` lists the pool rows a cut touches).

Lagrangian argument (why the bound and the reduced-cost closure of `colgen` stay valid): for a
partition x, cost(x) = D + sum_B rc_B x_B + mu (|x| - ceil(n/k)) + sum_S sigma_S (a_S(x) - 1),
where D is the dual objective and a_S(x) <= 1 the cut's left-hand side; the last two terms are
>= 0 (mu >= 0, sigma_S <= 0), hence cost(x) >= D + sum_B rc_B x_B.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Iterable, Sequence

import numpy as np

from resilsched.deadline import Deadline
from resilsched.models.coschedule.hardlimit import PhaseTimeout

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
        # per pack size s and member positions (u, v): the pool rows sorted by the pair key
        # i * n + j of their members u, v, and the sorted keys (pair -> rows by two searches)
        self._pair_index: list[tuple[int, np.ndarray, np.ndarray]] = []
        for s, arr in packs.items():
            for u, v in itertools.combinations(range(s), 2):
                if deadline is not None and deadline.expired():
                    raise PhaseTimeout("indexing the pool for subset-row cuts")
                key = arr[:, u].astype(np.int64) * n + arr[:, v]
                order = np.argsort(key, kind="stable")
                self._pair_index.append((s, order, key[order]))
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
            key = i * self.n + j
            for s, order, keys in self._pair_index:
                lo, hi = np.searchsorted(keys, [key, key + 1])
                if hi > lo:
                    rows[s].append(order[lo:hi])
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

        Exact separation over all triples touched by two members of a support pack: with
        W_ij the LP weight of the packs holding tasks i and j, and T_S that of the packs holding
        all of S, the left-hand side of S = {a, b, c} is W_ab + W_ac + W_bc - 2 T_S. The most
        violated first, each task in at most `MAX_USES` of the returned cuts.
        """
        n = self.n
        pair = np.zeros((n, n))
        whole: dict[Triple, float] = defaultdict(float)
        for pack, value in support:
            members = sorted(pack)
            for i, j in itertools.combinations(members, 2):
                pair[i, j] += value
                pair[j, i] += value
            for t in itertools.combinations(members, 3):
                whole[t] += value  # type: ignore[index]
        lhs: dict[Triple, float] = {}
        rows, cols = np.nonzero(np.triu(pair, 1))
        for i, j in zip(rows.tolist(), cols.tolist(), strict=True):
            total = pair[i, j] + pair[i] + pair[j]
            total[[i, j]] = 0.0
            for m in np.nonzero(total > 1 + MIN_VIOLATION)[0].tolist():
                t = tuple(sorted((i, j, m)))
                if t not in lhs:
                    lhs[t] = float(total[m]) - 2 * whole.get(t, 0.0)  # type: ignore[index]
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
