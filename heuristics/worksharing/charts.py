"""Group execution charts and their performance constants (spec 003 §2.8, §3.2, §3.3).

A group chart C_hat is a g x m matrix (m = n/g groups) whose entries are a permutation of
1..n: C_hat[r][j] is the step at which every chunk of group j is executed for the (r+1)-th time.
Its performance constant is K = sum_j prod_r C_hat[r][j] (smaller is better), and for a slice sl
cut into n chunks under linear risk (assumption (8)) E = sl - K (g/kappa) (sl kappa/n)^(g+1).

Charts (rows r = 0..g-1, columns j = 1..m, 1-based steps):

- cyclic: C[r][j] = j + r m;
- reverse: C[0][j] = j, C[r][j] = (r+1) m - j + 1 for r >= 1;
- mirror: cyclic for r < floor(g/2), reverse after ([ERRATUM] (g-k) not (p-k); §6 Q13);
- snake: cyclic on even rows, reverse on odd rows;
- fat-snake: row triples (1 + j' + 3km, 3(k+1)m - 2j' - 1, 3(k+1)m - 2j'), leftover rows cyclic;
- greedy: row by row, the column with the largest product so far gets the smallest step of the
  row; ties by column index (§6 Q8); exact integer products for linear risk, or a general weight.

`expand_chart` turns a chart into per-worker chunk orders (§3.2): at step C_hat[r][j] worker i
runs chunk j g + (i + r) mod g; chunks >= N_real are dummies (padding of the last group) and
idle slots are compressed away ("a computer that still has work is never idle").
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

import numpy as np

CHART_NAMES = ("cyclic", "reverse", "mirror", "snake", "fat-snake", "greedy")


def _rows_cyclic(g: int, m: int) -> np.ndarray:
    return np.arange(1, g * m + 1, dtype=np.int64).reshape(g, m)


def _set_reverse_rows(C: np.ndarray, rows) -> np.ndarray:
    """Row r becomes (r+1) m - j + 1, j = 1..m (reverse order of its block of steps)."""
    rows = np.asarray(list(rows), dtype=np.int64)
    if rows.size:
        m = C.shape[1]
        C[rows] = (rows[:, None] + 1) * m - np.arange(1, m + 1)[None, :] + 1
    return C


def chart_cyclic(g: int, m: int) -> np.ndarray:
    """(a) Cyclic: C[r][j] = j + r m."""
    return _rows_cyclic(g, m)


def chart_reverse(g: int, m: int) -> np.ndarray:
    """(b) Reverse: once in order, then in reverse order g-1 times."""
    return _set_reverse_rows(_rows_cyclic(g, m), range(1, g))


def chart_mirror(g: int, m: int) -> np.ndarray:
    """(c) Mirror: floor(g/2) cyclic rows then reverse rows."""
    return _set_reverse_rows(_rows_cyclic(g, m), range(g // 2, g))


def chart_snake(g: int, m: int) -> np.ndarray:
    """(d) Snake: cyclic on even rows, reverse on odd rows."""
    return _set_reverse_rows(_rows_cyclic(g, m), range(1, g, 2))


def chart_fat_snake(g: int, m: int) -> np.ndarray:
    """(e) Fat-snake: triples (cyclic, then the last 2m steps two at a time in reverse)."""
    C = _rows_cyclic(g, m)
    jp = np.arange(m)
    for k in range(g // 3):
        C[3 * k] = 1 + jp + 3 * k * m
        C[3 * k + 1] = 3 * (k + 1) * m - 2 * jp - 1
        C[3 * k + 2] = 3 * (k + 1) * m - 2 * jp
    return C


def chart_greedy(g: int, m: int, weight: Callable[[int], object] | None = None) -> np.ndarray:
    """(f) Greedy: balance the column products row by row (§3.3, tie-break by column index).

    ``weight(step)`` is the failure weight of a step: ``None`` = the step itself (linear risk,
    exact Python integers); for arbitrary risk Pr(step (sl/n + eps)) (§3.6, §6 Q7), compared in
    floating point. Python's sort is stable also with ``reverse=True``, so equal products keep
    ascending column order.
    """
    rows = [list(range(1, m + 1))]
    prod: list = list(range(1, m + 1)) if weight is None else [weight(s) for s in rows[0]]
    for r in range(1, g):
        order = sorted(range(m), key=prod.__getitem__, reverse=True)
        row = [0] * m
        base = r * m + 1
        if weight is None:
            for k, j in enumerate(order, start=base):
                row[j] = k
                prod[j] *= k
        else:
            for k, j in enumerate(order, start=base):
                row[j] = k
                prod[j] = prod[j] * weight(k)
        rows.append(row)
    return np.array(rows, dtype=np.int64)


def chart_greedy_weights(g: int, m: int, weights: np.ndarray) -> np.ndarray:
    """Greedy with per-step weights ``weights[s-1]`` (s = 1..g m), products in log space.

    Zero weights are handled exactly (log 0 = -inf sorts last), so a chunk certain to succeed
    for one worker gets the latest steps of the next rows.
    """
    with np.errstate(divide="ignore"):
        lw = np.log(np.asarray(weights, dtype=float))
    C = np.zeros((g, m), dtype=np.int64)
    C[0] = np.arange(1, m + 1)
    lp = lw[:m].copy()
    idx = np.arange(m)
    for r in range(1, g):
        order = np.lexsort((idx, -lp))
        steps = r * m + np.arange(1, m + 1)
        C[r, order] = steps
        lp[order] = lp[order] + lw[steps - 1]
    return C


CHARTS: dict[str, Callable[[int, int], np.ndarray]] = {
    "cyclic": chart_cyclic, "reverse": chart_reverse, "mirror": chart_mirror,
    "snake": chart_snake, "fat-snake": chart_fat_snake, "greedy": chart_greedy,
}


def is_valid_chart(C: np.ndarray) -> bool:
    """Entries form a permutation of 1..g m."""
    return bool(np.array_equal(np.sort(np.asarray(C).ravel()), np.arange(1, C.size + 1)))


def k_constant(C) -> int:
    """K = sum_j prod_r ``C[r][j]``, exact (Python integers)."""
    cols = np.asarray(C).T.tolist()  # Python ints: exact products
    return sum(map(math.prod, cols))


def k_min(n: int, g: int) -> float:
    """K_min = (n/g) (n!)^(g/n), the AM-GM lower bound on K of any group chart (§2.8)."""
    return math.exp(math.log(n / g) + g / n * math.lgamma(n + 1))


def k_upper(n: int, g: int) -> float:
    """K_upper = g! (n/g)^(g+1) (Prop. 2's normaliser)."""
    return math.exp(math.lgamma(g + 1) + (g + 1) * math.log(n / g))


# --- closed forms of §3.3 (independent formulas, used as test oracles) --------------------------

def k_cyclic_closed(g: int, m: int) -> int:
    return sum(math.prod(j + k * m for k in range(g)) for j in range(1, m + 1))


def k_reverse_closed(g: int, m: int) -> int:
    return sum(j * math.prod((k + 1) * m - j + 1 for k in range(1, g)) for j in range(1, m + 1))


def k_mirror_closed(g: int, m: int) -> int:
    """K_mirror for even g ([ERRATUM] (g - k) m, not (p - k) m)."""
    return sum(math.prod((j + k * m) * ((g - k) * m - j + 1) for k in range(g // 2))
               for j in range(1, m + 1))


def k_snake_closed(g: int, m: int) -> int:
    """K_snake for even g."""
    return sum(math.prod((j + 2 * k * m) * (2 * (k + 1) * m - j + 1) for k in range(g // 2))
               for j in range(1, m + 1))


def k_fat_closed(g: int, m: int) -> int:
    """K_fat for g divisible by 3."""
    return sum(math.prod((1 + jp + 3 * k * m) * (3 * (k + 1) * m - 2 * jp - 1)
                         * (3 * (k + 1) * m - 2 * jp) for k in range(g // 3))
               for jp in range(m))


def optimal_chart_bruteforce(g: int, m: int) -> tuple[int, np.ndarray]:
    """Exhaustive minimum-K group chart for tiny (g, m) (§6 Q16; test oracle only).

    Symmetry: columns are interchangeable, so row 0 is fixed to 1..m w.l.o.g. only up to a
    column permutation; we enumerate set partitions of 1..n into m columns of g steps.
    """
    n = g * m
    best = (None, None)

    def rec(remaining: list[int], cols: list[tuple[int, ...]]):
        nonlocal best
        if not remaining:
            K = sum(math.prod(c) for c in cols)
            if best[0] is None or K < best[0]:
                best = (K, list(cols))
            return
        first = remaining[0]
        for rest in itertools.combinations(remaining[1:], g - 1):
            col = (first,) + rest
            rem = [x for x in remaining if x not in col]
            rec(rem, cols + [col])

    rec(list(range(1, n + 1)), [])
    K, cols = best
    C = np.array([sorted(c) for c in cols], dtype=np.int64).T
    return int(K), C


# --- expansion to per-worker orders (§3.2) -------------------------------------------------------

def expand_chart(C: np.ndarray, n_real: int | None = None) -> list[np.ndarray]:
    """Per-worker chunk orders (0-based chunk ids) from a g x m group chart.

    Chunk c = j g + k is chunk k of group j. Dummy chunks (ids >= n_real) are dropped and idle
    slots compressed.
    """
    C = np.asarray(C)
    g, m = C.shape
    n_real = g * m if n_real is None else n_real
    rr, jj = np.meshgrid(np.arange(g), np.arange(m), indexing="ij")
    steps = C.ravel()
    order = np.argsort(steps, kind="stable")
    rs, js = rr.ravel()[order], jj.ravel()[order]
    out = []
    for i in range(g):
        chunk = js * g + (i + rs) % g
        out.append(chunk[chunk < n_real])
    return out


def chart_positions(C: np.ndarray, n_real: int) -> np.ndarray:
    """pos[c, i] = 1-based position of chunk c in worker i's compressed order (vectorised)."""
    C = np.asarray(C)
    g, m = C.shape
    order = np.argsort(C.ravel(), kind="stable")
    rs = order // m
    js = order % m
    chunks = js[None, :] * g + (np.arange(g)[:, None] + rs[None, :]) % g  # (g workers, n steps)
    real = chunks < n_real
    pos_at = np.cumsum(real, axis=1)
    pos = np.zeros((n_real, g), dtype=np.int64)
    wi, si = np.nonzero(real)
    pos[chunks[wi, si], wi] = pos_at[wi, si]
    return pos
