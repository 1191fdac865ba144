"""The explicit pool of packs of the set-partitioning models (spec 001 §2.3, decision C10).

Every pack B (1 <= |B| <= k, sum pmin_i <= p) with its cost c_B, Algorithm 1's optimal pack
time (vectorised, float). The pool holds C(n, 1) + ... + C(n, k) packs, at most
``max_pool`` (larger instances are refused with a one-line `InvalidInstance`); it is built in
chunks, each checked against the deadline, or by the C kernel `pk_pool` (``csrc/coschedule/
pool.h``, decision C29) when the extension is built: the same packs in the same order with the
same costs, 5-10x faster (4.5 M packs at n = 300, k = 3).
"""

from __future__ import annotations

import ctypes
import itertools
import math
from dataclasses import dataclass

import numpy as np

from resilsched.deadline import Deadline
from resilsched.errors import InvalidInstance
from resilsched.heuristics.coschedule import pack_costs_vectorized
from resilsched.instances.coschedule import CoscheduleInstance
from resilsched.models.coschedule import _cclosure
from resilsched.models.coschedule.hardlimit import PhaseTimeout
from resilsched.models.coschedule.options import MAX_POOL

CHUNK = 100_000


@dataclass
class PackPool:
    """All feasible packs grouped by size: ``packs[s]`` is (m_s, s) int32, ``costs[s]`` (m_s,)."""

    n: int
    packs: dict[int, np.ndarray]
    costs: dict[int, np.ndarray]

    @property
    def size(self) -> int:
        return sum(len(c) for c in self.costs.values())

    def reduced_costs(self, pi: np.ndarray, mu: float = 0.0) -> dict[int, np.ndarray]:
        """rc_B = c_B - sum_{i in B} pi_i - mu (mu: dual of the pack-count row).

        In C (`pk_reduced`, one pass, the same subtractions in the same order) when the kernels
        are built; else one gather per member position over contiguous columns (`members`): 5x
        faster than ``pi[packs].sum(axis=1)`` on 1.6 M packs of 4."""
        dll = _cclosure.lib()
        if dll is not None:
            duals = np.ascontiguousarray(pi, dtype=np.float64)
            out = {}
            for s, arr in self.packs.items():
                arr = self._contiguous(s)
                rc = np.empty(len(arr))
                dll.pk_reduced(len(arr), s, arr, self.costs[s], duals, float(mu), rc)
                out[s] = rc
            return out
        out = {}
        for s, cols in self.members().items():
            rc = self.costs[s] - mu
            for col in cols:
                rc -= pi[col]
            out[s] = rc
        return out

    def members(self) -> dict[int, list[np.ndarray]]:
        """By size s: the s member columns of ``packs[s]``, each contiguous (cached)."""
        cache = self.__dict__.get("_members")
        if cache is None:
            cache = {s: [np.ascontiguousarray(arr[:, j]) for j in range(s)]
                     for s, arr in self.packs.items()}
            self.__dict__["_members"] = cache
        return cache

    def _contiguous(self, s: int) -> np.ndarray:
        """``packs[s]`` as a C-contiguous int32 array (replaced in place when it was not)."""
        arr = np.ascontiguousarray(self.packs[s], dtype=np.int32)
        self.packs[s] = arr
        self.costs[s] = np.ascontiguousarray(self.costs[s], dtype=np.float64)
        return arr

    def negatives(self, rcs: dict[int, np.ndarray], below: float) -> tuple[float, int]:
        """(the least reduced cost, how many lie below `below`); 0.0 and 0 for no pack."""
        dll = _cclosure.lib()
        if dll is None:
            flat = np.concatenate([rcs[s] for s in sorted(rcs)])
            return (float(flat.min()) if len(flat) else 0.0), int((flat < below).sum())
        least, count = None, 0
        for s in sorted(rcs):
            rc = np.ascontiguousarray(rcs[s], dtype=np.float64)
            if not len(rc):
                continue
            low, under = ctypes.c_double(0.0), ctypes.c_int64(0)
            dll.pk_cheapest(len(rc), rc, float(below), 0, None, ctypes.byref(low),
                            ctypes.byref(under))
            least = low.value if least is None else min(least, low.value)
            count += under.value
        return (0.0 if least is None else least), count

    def cheapest(self, rcs: dict[int, np.ndarray], count: int
                 ) -> tuple[list[tuple[int, ...]], list[float]]:
        """The `count` packs of smallest reduced cost (`rcs` by size, as `reduced_costs`) and
        their costs, the columns a pricing round adds (in C, `pk_cheapest`: the smallest
        first, ties to the lower index, when the kernels are built)."""
        dll = _cclosure.lib()
        if dll is not None and count > 0:
            found = []
            for s in sorted(rcs):
                rc = np.ascontiguousarray(rcs[s], dtype=np.float64)
                rows = np.empty(min(count, len(rc)) or 1, dtype=np.int64)
                low, under = ctypes.c_double(0.0), ctypes.c_int64(0)
                got = dll.pk_cheapest(len(rc), rc, float(np.inf), len(rows), rows,
                                      ctypes.byref(low), ctypes.byref(under))
                if got < 0:
                    raise MemoryError("the pricing kernel could not allocate its heap")
                found += [(float(rc[r]), s, int(r)) for r in rows[:got]]
            found.sort()
            chosen = found[:count]
            return ([tuple(int(x) for x in self.packs[s][r]) for _, s, r in chosen],
                    [float(self.costs[s][r]) for _, s, r in chosen])
        sizes = sorted(rcs)
        flat = np.concatenate([rcs[s] for s in sizes])
        offsets = np.cumsum([0] + [len(rcs[s]) for s in sizes])
        packs, costs = [], []
        for g in np.argpartition(flat, count - 1)[:count]:
            a = int(np.searchsorted(offsets, g, side="right")) - 1
            s, r = sizes[a], int(g - offsets[a])
            packs.append(tuple(int(x) for x in self.packs[s][r]))
            costs.append(float(self.costs[s][r]))
        return packs, costs

    def subset(self, keep: dict[int, np.ndarray]) -> PackPool:
        """The pool of the rows where ``keep[s]`` (boolean, by size) holds."""
        return PackPool(self.n, {s: self.packs[s][keep[s]] for s in self.packs},
                        {s: self.costs[s][keep[s]] for s in self.packs})

    def select(self, keep: dict[int, np.ndarray]) -> list[tuple[tuple[int, ...], float]]:
        """(pack, cost) of the pool rows where ``keep[s]`` (boolean, by size) holds."""
        out = []
        for s in sorted(keep):
            rows = np.nonzero(keep[s])[0]
            out += zip(map(tuple, self.packs[s][rows].tolist()),
                       self.costs[s][rows].tolist(), strict=True)
        return out


def pool_size(n: int, k: int) -> int:
    return sum(math.comb(n, s) for s in range(1, k + 1))


def check_pool_size(inst: CoscheduleInstance, max_pool: int = MAX_POOL) -> None:
    """Refuse instances whose pool would not fit (`InvalidInstance` naming n and k)."""
    size = pool_size(inst.n, inst.k)
    if size > max_pool:
        raise InvalidInstance("tasks", f"n={inst.n}, k={inst.k} gives {size} packs > "
                              f"max_pool={max_pool} (too many columns for the explicit pool)")


def build_pool(inst: CoscheduleInstance, deadline: Deadline | None = None,
               max_pool: int = MAX_POOL) -> PackPool:
    """Every pack of size 1..k with sum pmin <= p, costed by vectorised Algorithm 1.

    Raises `PhaseTimeout` when `deadline` expires between two chunks.
    """
    check_pool_size(inst, max_pool)
    n, k = inst.n, inst.k
    mat = inst.matrix()
    pmin = np.asarray(inst.pmin, dtype=np.int64)
    dll = _cclosure.lib()
    if dll is not None and k <= 64:
        return _native_pool(dll, inst, mat, pmin, deadline)
    packs, costs = {}, {}
    for s in range(1, k + 1):
        combos = itertools.combinations(range(n), s)
        arrs, css = [], []
        while True:
            if deadline is not None and deadline.expired():
                raise PhaseTimeout("building the pool of packs")
            arr = np.fromiter(itertools.chain.from_iterable(itertools.islice(combos, CHUNK)),
                              dtype=np.int32).reshape(-1, s)
            if len(arr) == 0:
                break
            arr = arr[pmin[arr].sum(axis=1) <= inst.p]
            arrs.append(arr)
            css.append(pack_costs_vectorized(mat, pmin, inst.p, arr)[0])
        packs[s] = np.concatenate(arrs) if arrs else np.zeros((0, s), np.int32)
        costs[s] = np.concatenate(css) if css else np.zeros(0)
    return PackPool(n, packs, costs)


def _native_pool(dll, inst: CoscheduleInstance, mat: np.ndarray, pmin: np.ndarray,
                 deadline: Deadline | None) -> PackPool:
    """`build_pool` by the C kernel `pk_pool` (module docstring)."""
    table = np.ascontiguousarray(mat, dtype=np.float64)
    packs, costs = {}, {}
    for s in range(1, inst.k + 1):
        room = math.comb(inst.n, s)
        arr = np.empty((room, s), dtype=np.int32)
        cost = np.empty(room)
        if deadline is not None and deadline.expired():
            raise PhaseTimeout("building the pool of packs")
        left = math.inf if deadline is None else deadline.remaining()
        seconds = left if math.isfinite(left) else 0.0  # 0: no clock
        got = dll.pk_pool(inst.n, s, inst.p, pmin, table, table.shape[1], room, float(seconds),
                          arr, cost)
        if got == -2:
            raise PhaseTimeout("building the pool of packs")
        packs[s], costs[s] = arr[:got].copy(), cost[:got].copy()
    return PackPool(inst.n, packs, costs)
