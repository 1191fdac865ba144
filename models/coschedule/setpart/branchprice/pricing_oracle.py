"""Pricing packs with an oracle instead of an explicit pool (spec 001 §2.2-2.3, decision C22).

The reduced cost of a pack B (|B| <= k, sum pmin_i <= p) under task duals pi and a constant
mu is rc_B = c_B - sum_{i in B} pi_i - mu, where c_B is Algorithm 1's optimal pack time. For a
threshold T let q_i(T) = min{j >= pmin_i : t_{i,j} <= T} (p + 1 when t_{i,p} > T); since
t_{i,j} weakly decreases in j (1.1), c_B <= T iff sum_{i in B} q_i(T) <= p. Every c_B is one
of the instance's times, so

    min_B rc_B = min over times T of  T - max{ pi(B) : sum_{i in B} q_i(T) <= p, |B| <= k } - mu,

a cardinality-constrained 0/1 knapsack per threshold (weights q_i(T) <= p, capacity p). It is
exact: the Lagrangian bound sum pi + mu ceil(n/k) + n min(0, min rc) of column generation stays
valid whatever the number of packs (C(40, <= 16) ~ 10^11 at p = 16).

`PackOracle.price` solves all thresholds at once: a suffix DP over the items, vectorised over
thresholds (numpy; O(items x thresholds x (k+1) x (p+1)), the cardinality axis dropped when
k >= p since every q_i >= 1). Tasks with pi_i <= 0 are left out (removing such a task from a
pack never raises its reduced cost). Ryan-Foster branching decisions are honoured exactly:
``together`` pairs merge their tasks into one item (weights and duals added), ``apart`` pairs
are conflicts, handled by a depth-first search bounded by the conflict-free suffix DP (exact;
when its node budget runs out, the relaxation's value still bounds min rc from below and the
result says ``exact=False``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from resilsched.heuristics.coschedule import optimal_pack
from resilsched.instances.coschedule import CoscheduleInstance
from resilsched.models.coschedule import _cclosure
from resilsched.models.coschedule._cclosure import masks_of, tasks_of

#: a depth-first search (conflicts) gives up after this many nodes per threshold
DFS_NODES = 20_000
#: the enumeration checks its deadline every this many search nodes
CHECK_NODES = 8192

Branch = tuple[int, int, bool]  # (i, j, together)


@dataclass
class PricingResult:
    """`min_rc`: a lower bound on the smallest reduced cost of an allowed pack (min(0, .));
    it is the exact minimum when `exact`. `packs`/`costs`: packs of negative reduced cost
    (ascending task tuples) with their float costs c_B, most negative first."""

    min_rc: float
    exact: bool
    packs: list[tuple[int, ...]]
    costs: list[float]


def _components(n: int, branches: list[Branch]) -> list[int]:
    """Union-find root of every task under the ``together`` decisions."""
    root = list(range(n))

    def find(a: int) -> int:
        while root[a] != a:
            root[a] = root[root[a]]
            a = root[a]
        return a

    for i, j, together in branches:
        if together:
            root[find(i)] = find(j)
    return [find(a) for a in range(n)]


class PackOracle:
    """Exact pricing over every pack of a k-in-p instance (module docstring)."""

    def __init__(self, inst: CoscheduleInstance):
        self.inst = inst
        self.n, self.p, self.k = inst.n, inst.p, inst.k
        mat = inst.matrix()[:, 1:]  # (n, p): t_{i,j}, inf below pmin
        values = np.unique(mat[np.isfinite(mat)])
        self.thresholds = values  # ascending
        # q[t, i] = 1 + #{j : t_{i,j} > T_t}; t_{i,.} is non-increasing, so that is min j ok
        self.q = (1 + (mat[None, :, :] > values[:, None, None]).sum(axis=2)).astype(np.int64)
        self.cards = self.k < self.p  # the cardinality axis is needed only when k < p

    def price(self, pi: np.ndarray, mu: float = 0.0, branches: list[Branch] | None = None,
              count: int = 50, tol: float = 1e-9) -> PricingResult:
        """Exact pricing (module docstring): min rc over the packs allowed by `branches`, and
        up to `count` packs of reduced cost below ``-tol``."""
        branches = branches or []
        n, p = self.n, self.p
        comp = _components(n, branches)
        groups: dict[int, list[int]] = {}
        for i in range(n):
            groups.setdefault(comp[i], []).append(i)
        items = [g for g in groups.values()
                 if float(pi[g].sum()) > 0 and len(g) <= self.k]
        if not items:
            return PricingResult(0.0, True, [], [])
        profit = np.array([float(pi[g].sum()) for g in items])
        size = np.array([len(g) for g in items])
        weight = np.minimum(np.stack([self.q[:, g].sum(axis=1) for g in items], axis=1), p + 1)
        index = {comp[g[0]]: a for a, g in enumerate(items)}
        conflicts: dict[int, set[int]] = {}
        for i, j, together in branches:
            if not together and comp[i] in index and comp[j] in index:
                a, b = index[comp[i]], index[comp[j]]
                conflicts.setdefault(a, set()).add(b)
                conflicts.setdefault(b, set()).add(a)
        # thresholds that could give a negative reduced cost: T < best profit at the largest T
        top = self._suffix(profit, size, weight[-1:])[0][0, -1, -1]
        keep = np.nonzero(self.thresholds < top + mu - tol)[0]
        if len(keep) == 0:
            return PricingResult(0.0, True, [], [])
        thr = self.thresholds[keep]
        table = self._suffix(profit, size, weight[keep])
        best = table[0][:, -1, -1]  # conflict-free maximum profit per threshold
        relaxed = thr - best - mu
        found: dict[tuple[int, ...], float] = {}
        exact = True
        min_rc = 0.0
        order = np.argsort(relaxed, kind="stable")
        for pos, t in enumerate(order):
            if relaxed[t] >= -tol:
                break
            if len(found) >= 4 * count:  # the thresholds left are bounded by their relaxation
                min_rc = min(min_rc, float(relaxed[order[pos]]))
                break
            if conflicts:
                chosen, done = self._search(table, t, profit, size, weight[keep[t]],
                                            conflicts, float(thr[t] - mu + tol))
                exact &= done
                if not done:
                    min_rc = min(min_rc, float(relaxed[t]))
            else:
                chosen = self._walk(table, t, profit, size, weight[keep[t]])
            if chosen is None:
                continue
            pack = tuple(sorted(i for a in chosen for i in items[a]))
            if pack not in found:
                found[pack] = float(thr[t]) - float(pi[list(pack)].sum()) - mu
            min_rc = min(min_rc, found[pack])
        return self._columns(found, pi, mu, count, min_rc, exact, tol)

    def _columns(self, found: dict[tuple[int, ...], float], pi: np.ndarray, mu: float,
                 count: int, min_rc: float, exact: bool, tol: float) -> PricingResult:
        """True costs (Algorithm 1, c_B <= T) of the packs found, the `count` most negative."""
        rows = []
        for pack in found:
            cost = float(optimal_pack(self.inst, pack)[0])
            rc = cost - float(pi[list(pack)].sum()) - mu
            if rc < -tol:
                rows.append((rc, pack, cost))
        rows.sort()
        rows = rows[:count]
        if rows:
            min_rc = min(min_rc, rows[0][0])
        return PricingResult(min_rc, exact, [r[1] for r in rows], [r[2] for r in rows])

    def _suffix(self, profit: np.ndarray, size: np.ndarray, weight: np.ndarray
                ) -> list[np.ndarray]:
        """G[r][t, a, c]: best profit of items r.. with at most a more tasks (axis of size 1
        when cardinality is implied) and total weight <= c, for each threshold row of
        `weight` (thresholds x items)."""
        m, p = len(profit), self.p
        nt = weight.shape[0]
        cards = self.k + 1 if self.cards else 1
        cap = np.arange(p + 1)
        table = [np.zeros((nt, cards, p + 1))]
        for r in range(m - 1, -1, -1):
            nxt = table[-1]
            src = cap[None, :] - weight[:, r][:, None]  # (nt, p+1)
            ok = src >= 0
            s = int(size[r]) if self.cards else 0
            cur = nxt.copy()
            if s < cards:
                part = nxt[:, :cards - s, :]
                idx = np.broadcast_to(np.maximum(src, 0)[:, None, :], part.shape)
                cand = np.take_along_axis(part, idx, axis=2) + profit[r]
                cand = np.where(ok[:, None, :], cand, -np.inf)
                np.maximum(cur[:, s:, :], cand, out=cur[:, s:, :])
            table.append(cur)
        table.reverse()
        return table

    def _walk(self, table: list[np.ndarray], t: int, profit: np.ndarray, size: np.ndarray,
              weight: np.ndarray) -> list[int]:
        """The optimal item set at threshold row `t` (no conflicts), read off the suffix DP."""
        a = table[0].shape[1] - 1
        c = self.p
        chosen = []
        for r in range(len(profit)):
            s = int(size[r]) if self.cards else 0
            w = int(weight[r])
            if w <= c and s <= a and table[r][t, a, c] > table[r + 1][t, a, c]:
                chosen.append(r)
                a, c = a - s, c - w
        return chosen

    def _search(self, table: list[np.ndarray], t: int, profit: np.ndarray, size: np.ndarray,
                weight: np.ndarray, conflicts: dict[int, set[int]], floor: float
                ) -> tuple[list[int] | None, bool]:
        """Depth-first search for the best conflict-free item set of profit > `floor`, bounded
        by the suffix DP; (set or None, finished within `DFS_NODES`)."""
        m = len(profit)
        best: list = [floor, None]
        nodes = 0
        stack = [(0, table[0].shape[1] - 1, self.p, 0.0, ())]
        while stack:
            r, a, c, gain, chosen = stack.pop()
            nodes += 1
            if nodes > DFS_NODES:
                return best[1], False
            if gain + table[r][t, a, c] <= best[0]:
                continue
            if r == m:
                best[0], best[1] = gain, list(chosen)
                continue
            stack.append((r + 1, a, c, gain, chosen))  # skip item r (explored second)
            s = int(size[r]) if self.cards else 0
            w = int(weight[r])
            if w <= c and s <= a and not conflicts.get(r, set()).intersection(chosen):
                stack.append((r + 1, a - s, c - w, gain + profit[r], chosen + (r,)))
        return best[1], True

    def enumerate_below(self, pi: np.ndarray, mu: float, delta: float, limit: int,
                        deadline=None, native: bool = True
                        ) -> tuple[list[tuple[int, ...]], list[float], list[float]] | None:
        """`enumerate_masks` with the packs as ascending task tuples and lists of floats."""
        listed = self.enumerate_masks(pi, mu, delta, limit, deadline, native)
        if listed is None:
            return None
        masks, costs, gains = listed
        return [tasks_of(int(m)) for m in masks], costs.tolist(), gains.tolist()

    def enumerate_masks(self, pi: np.ndarray, mu: float, delta: float, limit: int,
                        deadline=None, native: bool = True
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """Every pack B with rc_B = c_B - pi(B) - mu <= `delta` (no branching decisions),
        each once, found at its own cost T = c_B: (bit masks of the packs, costs c_B, pi(B));
        None when there are more than `limit` of them or `deadline` expires (the reduced-cost
        closure of `exact_cover`).

        At threshold T (previous threshold T'), c_B = T iff sum q_i(T) <= p < sum q_i(T'):
        B holds a task whose q changes between T' and T (usually the one task with a time equal
        to T), so the search starts from each such task in turn (excluding the earlier ones),
        then adds tasks in index order while the suffix DP bound can still reach
        pi(B) >= T - mu - delta. The search of one threshold runs in C (`_cclosure.pk_enum`)
        when the kernels are built, n <= 63 and `native`; else in Python (`_packs_at`).
        """
        n, p = self.n, self.p
        dll = _cclosure.lib() if native and n <= _cclosure.MAX_TASKS else None
        profit = np.asarray(pi, dtype=float)
        size = np.ones(n, dtype=np.int64)
        top = self._suffix(profit, size, self.q[-1:])[0][0, -1, -1]
        keep = np.nonzero(self.thresholds <= top + mu + delta)[0]
        masks: list[np.ndarray] = []
        costs: list[np.ndarray] = []
        gains: list[np.ndarray] = []
        total = 0
        if len(keep) > 0:
            table = self._suffix(profit, size, self.q[keep])
            stacked = np.stack(table, axis=1) if dll is not None else None  # (t, n+1, a, c)
            cards = table[0].shape[1] - 1
            step = 1 if self.cards else 0
            prof = profit.tolist()
            for t, row in enumerate(keep):
                need = float(self.thresholds[row]) - mu - delta  # pi(B) >= need
                if table[0][t, cards, p] < need:
                    continue
                if deadline is not None and deadline.expired():
                    return None
                wp = self.q[row - 1] if row > 0 else np.full(n, p + 1, dtype=np.int64)
                if dll is not None:
                    # seconds left (> 0), or 0: no clock
                    seconds = max(deadline.remaining(), 1e-6) if deadline is not None else 0.0
                    got = _cclosure.enum_packs(dll, self.q[row], wp, stacked[t], profit, need,
                                               p, cards, step, limit - total, seconds)
                    if got is None:
                        return None
                    found_masks, found_gains = got
                else:
                    bound = [table[r][t].tolist() for r in range(n + 1)]
                    found = _packs_at(self.q[row].tolist(), wp.tolist(), bound, prof, need, p,
                                      cards, step, limit - total, deadline)
                    if found is None:
                        return None
                    found_masks = masks_of([b for b, _ in found], n)
                    found_gains = np.array([g for _, g in found], dtype=float)
                masks.append(found_masks)
                gains.append(found_gains)
                costs.append(np.full(len(found_masks), float(self.thresholds[row])))
                total += len(found_masks)
        if not masks:
            return masks_of([], n), np.zeros(0), np.zeros(0)
        return np.concatenate(masks), np.concatenate(costs), np.concatenate(gains)


def _packs_at(w: list[int], wp: list[int], bound: list, prof: list[float], need: float, p: int,
              cards: int, step: int, room: int, deadline=None
              ) -> list[tuple[tuple, float]] | None:
    """(pack, pi(B)) of every B with sum w <= p < sum wp, |B| <= cards (when `step`) and
    pi(B) >= need, for one threshold of `PackOracle.enumerate_below`; `bound[r][a][c]` is the
    suffix DP (best profit of tasks r.. within a tasks and weight c). None beyond `room` packs
    or when `deadline` expires (checked every `CHECK_NODES` nodes)."""
    n = len(w)
    crit = [i for i in range(n) if wp[i] != w[i]]
    found: list[tuple[tuple, float]] = []
    nodes = [0]

    def grow(r: int, a: int, c: int, gain: float, chosen: tuple, heavy: int,
             skip: set) -> bool:
        nodes[0] += 1
        if nodes[0] % CHECK_NODES == 0 and deadline is not None and deadline.expired():
            return False
        if gain >= need and heavy > p:
            found.append((chosen, gain))
            if len(found) > room:
                return False
        for j in range(r, n):
            if gain + bound[j][a][c] < need:
                break  # the suffix DP from j bounds every later choice as well
            wj = w[j]
            if wj > c or step > a or j in skip:
                continue
            g = gain + prof[j]
            if g + bound[j + 1][a - step][c - wj] >= need and not grow(
                    j + 1, a - step, c - wj, g, chosen + (j,), heavy + wp[j], skip):
                return False
        return True

    for pos, i in enumerate(crit):
        if w[i] > p or prof[i] + bound[0][cards - step][p - w[i]] < need:
            continue
        if not grow(0, cards - step, p - w[i], prof[i], (i,), wp[i], set(crit[:pos + 1])):
            return None
    return found
