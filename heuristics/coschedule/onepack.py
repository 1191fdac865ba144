"""Optimal schedule of one pack (spec 001 §2.2): Algorithm 1 and the O(k p^2) DP.

Given a pack B of tasks and p processors, a 1-pack-schedule is sigma: B -> {pmin_i..p} with
sum sigma(i) <= p; its cost is max_{i in B} t_{i,sigma(i)}. Both functions return
``(cost, sigma)`` with sigma aligned with `tasks`, and ``(inf, ())`` when sum pmin_i > p.
Costs are computed in the instance's own number type (exact for ints and Fractions).
`pack_costs_vectorized` runs Algorithm 1 on many packs at once (numpy floats) and
`pair_cost_matrix` gives the cost of every pack of two tasks (Thm 1.1). Both are polynomial, so
they live with the heuristics; the exact models import them from here.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from resilsched.instances.coschedule import CoscheduleInstance

INF = math.inf


def optimal_pack(inst: CoscheduleInstance, tasks: Sequence[int],
                 p: int | None = None) -> tuple[Any, tuple[int, ...]]:
    """Algorithm 1 (Optimal-1-pack-schedule, Thm 1.3), heap-based, O(k log k + p log k).

    Every task starts at pmin_i (1 in the paper); each of the remaining processors goes to the
    currently longest task (ties: lowest position in `tasks`). Optimal under (1.1) (Thm 1.3; the
    proof uses only (1.1), which the instance validates for j >= pmin_i).

    >>> from resilsched.instances.coschedule import CoscheduleInstance
    >>> inst = CoscheduleInstance(p=4, k=2, times=((8, 4, 3, 3), (6, 5, 4, 4)))
    >>> optimal_pack(inst, [0, 1])
    (5, (2, 2))
    """
    p = inst.p if p is None else p
    sigma = [inst.pmin[i] for i in tasks]
    avail = p - sum(sigma)
    if avail < 0 or not tasks:
        return (INF, ()) if tasks else (0, ())
    heap = [(-inst.t(i, s), pos) for pos, (i, s) in enumerate(zip(tasks, sigma, strict=True))]
    heapq.heapify(heap)
    while avail > 0:
        _, pos = heapq.heappop(heap)
        sigma[pos] += 1
        avail -= 1
        heapq.heappush(heap, (-inst.t(tasks[pos], sigma[pos]), pos))
    return max(inst.t(i, s) for i, s in zip(tasks, sigma, strict=True)), tuple(sigma)


def optimal_pack_dp(inst: CoscheduleInstance, tasks: Sequence[int],
                    p: int | None = None) -> tuple[Any, tuple[int, ...]]:
    """The DP of §2.2, O(k p^2): c(1,q) = t_{1,q}; c(i,q) = min_{q'} max(c(i-1, q-q'), t_{i,q'}).

    Exact without (1.1) (the reference oracle of spec A-30). t_{i,q} = +inf for q < pmin_i.
    """
    p = inst.p if p is None else p
    if not tasks:
        return 0, ()
    k = len(tasks)
    c = [[INF] * (p + 1) for _ in range(k)]
    arg = [[0] * (p + 1) for _ in range(k)]
    for q in range(1, p + 1):
        c[0][q] = inst.t(tasks[0], q)
        arg[0][q] = q
    for a in range(1, k):
        for q in range(1, p + 1):
            best, bq = INF, 0
            for q1 in range(1, q):
                v = max(c[a - 1][q - q1], inst.t(tasks[a], q1))
                if v < best:
                    best, bq = v, q1
            c[a][q], arg[a][q] = best, bq
    if c[k - 1][p] == INF:
        return INF, ()
    sigma, q = [0] * k, p
    for a in range(k - 1, -1, -1):
        sigma[a] = arg[a][q]
        q -= sigma[a]
    return c[k - 1][p], tuple(sigma)


def pack_costs_vectorized(mat: np.ndarray, pmin: np.ndarray, p: int,
                          packs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Algorithm 1 run on many packs of equal size at once (numpy, float).

    Parameters
    ----------
    mat : (n, p+1) float times, ``CoscheduleInstance.matrix()`` (inf below pmin).
    pmin : (n,) minimum processor counts.
    packs : (m, s) task indices, one pack per row.

    Returns
    -------
    (costs, sigma) : costs (m,), +inf for packs with sum pmin > p; sigma (m, s) allocations.
    Same rule as `optimal_pack`: the longest task gets the next processor, ties to the lowest
    column; rows stop when their processors run out.
    """
    m, s = packs.shape
    width = mat.shape[1]
    flat_mat = np.ascontiguousarray(mat).ravel()
    task = np.ascontiguousarray(packs, dtype=np.int64).ravel()
    sigma = pmin[task].astype(np.int64)  # flat (m * s,), row-major like `packs`
    avail = p - sigma.reshape(m, s).sum(axis=1)
    cur_flat = flat_mat[task * width + sigma]
    cur = cur_flat.reshape(m, s)  # a view: writes to cur_flat show in cur
    rows = np.nonzero(avail > 0)[0]
    while rows.size:
        if rows.size == m:  # every row still has processors: no gather of the active rows
            flat = rows * s + cur.argmax(axis=1)
        else:
            flat = rows * s + cur[rows].argmax(axis=1)
        sigma[flat] += 1
        cur_flat[flat] = flat_mat[task[flat] * width + sigma[flat]]
        avail[rows] -= 1
        rows = rows[avail[rows] > 0]
    costs = cur.max(axis=1)
    costs[avail < 0] = np.inf
    sigma = sigma.reshape(m, s)
    return costs, sigma


def pair_costs(mat: np.ndarray, p: int, big=np.inf) -> np.ndarray:
    """W[i, i'] = min_j max(mat[i, p-j], mat[i', j]) for i != i' and W[i, i] = mat[i, p].

    `mat` is (n, p+1) with `big` (above every time) at j = 0 and below pmin_i; any dtype with
    numpy's minimum/maximum (float, int64, or object arrays of Python ints for exact sums), so
    the costs are exactly entries of `mat` (or `big` when pmin_i + pmin_i' > p).
    """
    n = len(mat)
    w = np.full((n, n), big, dtype=mat.dtype)
    for j in range(1, p):
        # task i on p-j processors, task i' on j processors
        cand = np.maximum(mat[:, p - j][:, None], mat[:, j][None, :])
        np.minimum(w, cand, out=w)
    w = np.minimum(w, w.T)
    np.fill_diagonal(w, mat[:, p])
    return w


def pair_cost_matrix(inst: CoscheduleInstance) -> np.ndarray:
    """W[i, i'] = optimal cost of the pack {T_i, T_i'} (Thm 1.1: min_j max(t_{i,p-j}, t_{i',j})).

    Vectorised over all pairs, O(n^2 p) float work; +inf when pmin_i + pmin_i' > p; the diagonal
    holds t_{i,p} (the task alone). Equals Algorithm 1 on every pair (tests).
    """
    return pair_costs(inst.matrix(), inst.p)
