"""The static bound of the worksharing family (issue 23): an upper bound on the expected work of
every *static* schedule under linear risk, far tighter than the omniscient bound (which knows
the interruption times).

**Lagrangian bound.** Measure time in units of X (s = t/X, so Pr(s) = min(1, s)) and price
every unit of work a worker completes at time s by phi(s) >= 0. A schedule gives each position
x of the workload the first completion time s_j(x) on each worker j holding it; x is done with
probability 1 - prod_j min(1, s_j(x)) (spec 003 §1.4). Adding and subtracting the prices,

    E(Σ) = ∫ [1 - prod_j s_j(x) - sum_j phi(s_j(x))] dx + sum_j ∫ phi(s_j(x)) dx
         <= W V(phi) + p M(phi),

with V(phi) = sup over finite multisets {s_1..s_g} of 1 - prod min(1, s_i) - sum phi(s_i) (what
one unit of workload can gain after paying for its holders; at most W units are held) and
M(phi) = sup over one worker's chunk sequences of sum_i omega_i phi(s_i), s_i = (omega_1 + ...
+ omega_i + i eps)/X (what a worker can be paid: first occurrences weigh at most the chunk
sizes, phi >= 0). Every phi gives a valid bound.

**The prices phi_c** (0 < c <= 1): phi_c(s) = c (1 + ln(1/c)) - s on [0, c], c ln(1/s) on
[c, 1], 0 from 1 on; phi_c is continuous and decreasing. Then V(phi_c) = v(c) = 1 - c -
c ln(1/c). Proof: for items s_i >= c only, 1 - Q - c ln(1/Q) with Q = prod s_i is concave in
ln(1/Q) and largest at Q = c, where it is v(c); an item s < c raises the value by moving up to
c (the derivative is 1 - prod of the others >= 0), where phi_c(c) = c ln(1/c) is the late
formula, so it reduces to the first case; items at s >= 1 change neither term. (This is the
dual of the relaxation where positions choose their holders' times freely: its optimum
replicates every position until its failure probability is c, with the early work unshared;
for c = 1, phi_1(s) = 1 - s and the bound is p times the one-worker optimum, Theorem 4.)

**M(phi_c)** is bounded above by replacing phi_c on each cell [k h, (k+1) h) of a grid of step
h = 1/cells by its value at the cell's left end (phi_c is decreasing). For such a step price a
chunk ends best at the right end of its cell (a later end pays the longer chunk the same price
and shortens the next, priced no more) and two chunks never end in one cell (merging them saves
eps), so the supremum is the longest path over cells k_1 < k_2 < ... with gains
price_k (e_k - e_{k'} - eps), computed exactly in O(cells) by the convex hull trick
(`chunk_dp`; the query prices decrease and the lines arrive in decreasing slope; in C when
the optional extension ``resilsched._chunks`` is built, decision WS-21). The step
overestimates M by at most h per unit of work.

`static_dual` minimises W v(c) + p X M(phi_c) over c (a scan, then golden section), never
returning more than W, and gives the chunk sequence attaining M at the best c: the chunks of
the matching schedule (`resilsched.models.worksharing.static_types`).

>>> round(v_of(1.0), 12), round(v_of(0.5), 6)
(0.0, 0.153426)
>>> dual = static_dual(10.0, 25, 1.0, 0.001)
>>> 8.85 < dual.value < 8.86 and 0.12 < dual.c < 0.14
True
"""

from __future__ import annotations

import ctypes
import math
from dataclasses import dataclass

import numpy as np

from resilsched import engine
from resilsched.deadline import Deadline

#: grid of the c scan (log-spaced) before the golden-section refinement
SCAN = np.geomspace(1e-6, 1.0, 25)
#: golden-section steps around the best scan point
REFINE_STEPS = 24
#: cells of the step price while searching c, and for the final value
SEARCH_CELLS, FINAL_CELLS = 4_000, 40_000
#: relative safety margin on the float sums of the bound
SAFETY = 1e-9


def v_of(c: float) -> float:
    """V(phi_c) = 1 - c - c ln(1/c) (module docstring)."""
    return 1.0 - c - c * math.log(1.0 / c)


def price(s: np.ndarray, c: float) -> np.ndarray:
    """phi_c(s) (module docstring), vectorised over normalised times s >= 0."""
    s = np.asarray(s, dtype=float)
    late = c * np.log(1.0 / np.clip(s, c, 1.0))
    return np.where(s < c, c * (1.0 + math.log(1.0 / c)) - s, np.where(s < 1.0, late, 0.0))


@dataclass(frozen=True)
class ChunkPath:
    """The best chunk sequence of `chunk_dp`: its value and the cells where its chunks end."""

    value: float
    cells: tuple[int, ...]


_F64 = engine.array(np.float64)
#: ws_chunk_dp(K, prices, ends, eps, value, cells) -> the number of cells, or -1 (out of memory)
EXTENSION = engine.Extension("_chunks", "static bound's chunk program",
                             "the pure-Python program", {
                                 "ws_chunk_dp": (ctypes.c_int64, (ctypes.c_int, _F64, _F64,
                                                                  ctypes.c_double, _F64,
                                                                  engine.array(np.int64))),
                             })


def chunk_dp(prices: np.ndarray, ends: np.ndarray, eps: float) -> ChunkPath:
    """max over cells k_1 < ... < k_m of sum_i prices[k_i] (ends[k_i] - ends[k_{i-1}] - eps)
    (`chunk_dp_python`), by the C twin when the engine is "c" and ``resilsched._chunks`` is
    built: the same double operations in the same order, so the same value and cells.

    >>> chunk_dp(np.array([1.0, 0.5, 0.0]), np.array([1.0, 2.0, 3.0]), 0.5)
    ChunkPath(value=0.75, cells=(0, 1))
    """
    dll = engine.library(EXTENSION)
    if dll is None or len(prices) >= 2**31 - 2:
        return chunk_dp_python(prices, ends, eps)
    p = np.ascontiguousarray(prices, dtype=np.float64)
    e = np.ascontiguousarray(ends, dtype=np.float64)
    if p.ndim != 1 or e.shape != p.shape:  # the C loop reads ends[k] for every price
        raise ValueError(f"chunk_dp: {p.shape} prices but {e.shape} ends")
    value = np.zeros(1, dtype=np.float64)
    cells = np.empty(max(1, len(p)), dtype=np.int64)
    count = dll.ws_chunk_dp(len(p), p, e, float(eps), value, cells)
    if count < 0:
        raise MemoryError("static bound's chunk program: out of memory")
    return ChunkPath(float(value[0]), tuple(cells[:count].tolist()))  # Python ints


def chunk_dp_python(prices: np.ndarray, ends: np.ndarray, eps: float) -> ChunkPath:
    """max over cells k_1 < ... < k_m of sum_i prices[k_i] (ends[k_i] - ends[k_{i-1}] - eps),
    every term's length >= 0 (ends[k_0] = 0), and 0 for no chunk.

    `prices` must be non-increasing and >= 0, `ends` increasing and > 0. The best predecessor
    of cell k maximises best[j] - prices[k] ends[j]: the upper envelope of lines of slope
    -ends[j] (added in decreasing slope as they become eligible, ends[j] <= ends[k] - eps)
    queried at the non-increasing prices[k], a monotone convex hull trick.

    >>> chunk_dp_python(np.array([1.0, 0.5, 0.0]), np.array([1.0, 2.0, 3.0]), 0.5)
    ChunkPath(value=0.75, cells=(0, 1))
    """
    prices = [float(x) for x in prices]
    ends = [float(x) for x in ends]
    K = len(prices)
    best = [-math.inf] * K
    prev = [-1] * K
    # the hull: parallel lists of slopes, intercepts and predecessor cells (-1: time 0)
    slope: list[float] = []
    icpt: list[float] = []
    who: list[int] = []
    head = 0
    started = False
    nxt = 0

    def add(m: float, b: float, j: int) -> None:
        nonlocal head
        while len(slope) - head >= 2:
            m1, b1, m2, b2 = slope[-2], icpt[-2], slope[-1], icpt[-1]
            # the last line is useless when the new one overtakes the one before it first
            if (b - b2) * (m1 - m2) >= (b2 - b1) * (m2 - m):
                slope.pop()
                icpt.pop()
                who.pop()
            else:
                break
        slope.append(m)
        icpt.append(b)
        who.append(j)
        head = min(head, len(slope) - 1)

    for k in range(K):
        if not started:
            if ends[k] < eps:
                continue
            add(0.0, 0.0, -1)
            started = True
        limit = ends[k] - eps
        while nxt < k and ends[nxt] <= limit:
            if best[nxt] > -math.inf:
                add(-ends[nxt], best[nxt], nxt)
            nxt += 1
        x = prices[k]
        while head + 1 < len(slope) and icpt[head + 1] + slope[head + 1] * x >= \
                icpt[head] + slope[head] * x:
            head += 1
        best[k] = x * (ends[k] - eps) + icpt[head] + slope[head] * x
        prev[k] = who[head]
    top = max(range(K), key=best.__getitem__, default=-1)
    if top < 0 or best[top] <= 0:
        return ChunkPath(0.0, ())
    cells = []
    while top >= 0:
        cells.append(top)
        top = prev[top]
    return ChunkPath(best[cells[0]], tuple(reversed(cells)))


@dataclass(frozen=True)
class StaticDual:
    """The static bound of one instance and what attains it.

    `value`: min(W, W v(c) + p X M(phi_c)) at the best `c` found, an upper bound on E[W_cmp]
    of every static schedule; `chunk_ends`: the end times (in time units) of the chunk
    sequence attaining M at that c, on the grid of `cells` cells (empty when value = W).
    """

    value: float
    c: float
    chunk_ends: np.ndarray
    cells: int


def _evaluate(W: float, p: int, X: float, eps: float, c: float, cells: int
              ) -> tuple[float, ChunkPath]:
    h = 1.0 / cells
    left = np.arange(cells) * h
    path = chunk_dp(price(left, c), left + h, eps / X)
    return (W * v_of(c) + p * X * path.value) * (1 + SAFETY), path


def static_dual(W: float, p: int, X: float, eps: float, deadline: Deadline | None = None,
                search_cells: int = SEARCH_CELLS, final_cells: int = FINAL_CELLS
                ) -> StaticDual:
    """The static bound of W units on p workers, linear risk of horizon X, chunk cost eps.

    The scan over `SCAN` and the golden section run on `search_cells` cells and stop early at
    `deadline` (every value computed is a valid bound); the best c is evaluated again on
    `final_cells` cells when time allows.
    """
    deadline = deadline or Deadline(None)
    found: dict[float, float] = {}

    def U(c: float) -> float:
        if c not in found:
            found[c] = _evaluate(W, p, X, eps, c, search_cells)[0]
        return found[c]

    for c in SCAN:
        U(float(c))
        if deadline.expired():
            break
    best = min(found, key=found.__getitem__)
    i = int(np.searchsorted(SCAN, best))
    lo = float(SCAN[max(i - 1, 0)])
    hi = float(SCAN[min(i + 1, len(SCAN) - 1)])
    gr = (math.sqrt(5) - 1) / 2
    a, b = hi - gr * (hi - lo), lo + gr * (hi - lo)
    for _ in range(REFINE_STEPS):
        if deadline.expired():
            break
        if U(a) < U(b):
            hi, b = b, a
            a = hi - gr * (hi - lo)
        else:
            lo, a = a, b
            b = lo + gr * (hi - lo)
    c = min(found, key=found.__getitem__)
    cells = search_cells
    value, path = _evaluate(W, p, X, eps, c, search_cells)
    if final_cells > search_cells and not deadline.expired():
        fine, fine_path = _evaluate(W, p, X, eps, c, final_cells)
        if fine < value:
            value, path, cells = fine, fine_path, final_cells
    if value >= W:
        return StaticDual(float(W), c, np.zeros(0), cells)
    ends = (np.asarray(path.cells, dtype=float) + 1) / cells * X
    return StaticDual(float(value), c, ends, cells)
