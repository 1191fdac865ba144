"""DPslack local policy (spec 004 §3.2.5, Algorithm 4 with the fixes of A-9).

For each bin (i, k) in the view's order, the candidates are the remaining jobs with
t <= longestJob(i, k) (a prefix C = c_1 <= ... <= c_N of the sorted remaining jobs, A-9 a),
evaluated once with the bin empty (A-9 d). With P(j, l) the largest subset sum of c_1..c_j that
is <= l (plain knapsack), the slack table of Algorithm 4 reaches, for the largest selected job r,

    val(r) = c_r + P(r-1, A - c_r - d_r),   d_r = max(c_r, M(k+1), M(k+2)),   A = a'(k),

and the printed backtrack selects the *smallest* r attaining max_r val(r), then, from
l = A - c_r - d_r down the rows r-1..1, every j with P(j, l) != P(j-1, l) (l -= c_j). Assigned
jobs leave the pool (A-9 b); INVALID (None) when jobs remain after the last bin (A-9 c). Without
the slack rule the bin takes the plain subset-sum optimum P(N, a'(k)) with the same backtrack
(§3.4).

`select_reference` is the literal table version (tests, tiny bins). `select` computes the same
rows as bitsets (Python integers: bit x of R_j set iff some subset of c_1..c_j sums to x, so
P(j, l) is the highest set bit <= l), row by row, and stops as soon as no later r can beat the
best val(r) (val(r) <= A - d_r, non-increasing in r) or when A - c_r - d_r < 0; it returns the
same set in the same order (r first, then the backtracked jobs in decreasing size). A row that
the previous duration left unchanged is closed under adding it, so a run of equal durations
(the clipped p_max) adds no work once saturated.
"""

from __future__ import annotations

from bisect import bisect_left

import numpy as np

import resilsched.heuristics.desktop._ckernel as _ckernel
from resilsched.errors import HeuristicRefusal
from resilsched.heuristics.desktop.binpack import bin_policy_c
from resilsched.heuristics.desktop.state import State, View

#: most bits the knapsack rows of one DPslack bin may hold in all (512 MiB, decision D-8): a
#: bin of 10^12 s would otherwise ask for rows of 10^12 bits
MAX_DP_BITS = 1 << 32


def _room(used: int, width: int, c: list[int], A: int) -> int:
    """`used` + the bits of one more row of `width` + 1 bits, or a `HeuristicRefusal` when that
    passes `MAX_DP_BITS`."""
    used += width + 1
    if used > MAX_DP_BITS:
        raise HeuristicRefusal("DPslack", f"a bin of {A} s with {len(c)} candidate jobs needs "
                                          f"knapsack rows of more than {MAX_DP_BITS} bits (D-8);"
                                          " use another local policy")
    return used


def _grow(rows: list[int], c: list[int], j: int, width: int, mask: int, used: int,
          A: int) -> int:
    """Append to `rows` the bitset row of the sums of c[0..j], from the last row (bits above
    `width` cut by `mask`; the last row itself, the same object, when c[j] changes nothing);
    the bits used so far (`_room`)."""
    prev = rows[-1]
    if j >= 1 and prev is rows[-2] and c[j] == c[j - 1]:
        rows.append(prev)  # unchanged by this duration already: closed under + c[j]
        return used
    used = _room(used, width, c, A)
    nxt = prev | (prev << c[j])
    if nxt.bit_length() > width + 1:
        nxt &= mask
    rows.append(nxt if nxt != prev else prev)
    return used


def select_reference(c: list[int], A: int, m1: int, m2: int, slack: bool) -> list[int]:
    """Algorithm 4 for one bin with explicit P and P_s tables (indices into `c`, in order)."""
    N = len(c)
    P = [[0] * (A + 1) for _ in range(N + 1)]
    Ps = [[0] * (A + 1) for _ in range(N + 1)]
    for j in range(1, N + 1):
        cj = c[j - 1]
        dj = max(cj, m1, m2)
        for lv in range(A + 1):
            P[j][lv] = P[j - 1][lv]
            Ps[j][lv] = Ps[j - 1][lv]
            if cj <= lv:
                P[j][lv] = max(P[j][lv], P[j - 1][lv - cj] + cj)
                if cj + dj <= lv:
                    Ps[j][lv] = max(Ps[j][lv], P[j - 1][lv - cj - dj] + cj)
    out = []
    lv, s = A, slack
    for j in range(N, 0, -1):
        cj = c[j - 1]
        if (Ps[j][lv] != Ps[j - 1][lv] or not s) and (P[j][lv] != P[j - 1][lv] or s):
            out.append(j - 1)
            lv -= cj
            if s:
                lv -= max(cj, m1, m2)
                s = False
    return out


def _top(row: int, lv: int) -> int:
    """P(j, l): the highest set bit of `row` at or below l (row always holds bit 0)."""
    high = row >> lv
    if high & 1:  # an exact fill, the common case once the sums are dense
        return lv
    if not high:
        return row.bit_length() - 1
    return (row & ((1 << lv) - 1)).bit_length() - 1


def select(c: list[int], A: int, m1: int, m2: int, slack: bool) -> list[int]:
    """The selection of `select_reference`, computed with bitset rows (module docstring)."""
    N = len(c)
    if N == 0:
        return []
    if not slack:
        return _subset_sum(c, A)
    width = A - 2 * c[0]
    if width < 0 or c[0] + max(c[0], m1, m2) > A:
        return []
    if sum(c) + max(c[-1], m1, m2) <= A:  # everything fits: r = N, then all (same set)
        return list(range(N - 1, -1, -1))
    used = _room(0, width, c, A)
    mask = (2 << width) - 1
    rows = [1]
    best, rstar = 0, 0
    for r in range(1, N + 1):
        cr = c[r - 1]
        dr = max(cr, m1, m2)
        lr = A - cr - dr
        if lr < 0 or A - dr <= best:
            break
        val = cr + _top(rows[r - 1], lr)
        if val > best:
            best, rstar = val, r
        used = _grow(rows, c, r - 1, width, mask, used, A)
    if rstar == 0:
        return []
    cr = c[rstar - 1]
    lv = A - cr - max(cr, m1, m2)
    return _backtrack(rows, c, rstar - 1, lv, [rstar - 1])


def _subset_sum(c: list[int], A: int) -> list[int]:
    """No slack rule: the plain subset-sum optimum P(N, A) and its backtrack (§3.4).

    Rows stop once bit A is reached (later rows are then never selected); when all candidates
    fit, all are taken.
    """
    if sum(c) <= A:
        return list(range(len(c) - 1, -1, -1))
    used = _room(0, A, c, A)
    mask = (2 << A) - 1
    rows = [1]
    for j in range(len(c)):
        used = _grow(rows, c, j, A, mask, used, A)
        if rows[-1] >> A:
            break
    return _backtrack(rows, c, len(rows) - 1, A, [])


def _backtrack(rows: list[int], c: list[int], top: int, lv: int, out: list[int]) -> list[int]:
    """Rows top..1: select j when P(j, l) != P(j-1, l), then l -= c_j."""
    below = _top(rows[top], lv) if top >= 0 else 0
    for j in range(top, 0, -1):
        if lv < 0:
            break
        here = below
        below = _top(rows[j - 1], lv) if rows[j - 1] is not rows[j] else here
        if here != below:
            out.append(j - 1)
            lv -= c[j - 1]
            if j - 1 >= 1:
                below = _top(rows[j - 1], lv)
    return out


def _select_c(dll, rows: np.ndarray):
    """`select` through the C kernel (same selection), Python when its buffer is too small."""
    out = np.zeros(1, dtype=np.int64)

    def run(c: np.ndarray, A: int, m1: int, m2: int, slack: bool) -> list[int]:
        nonlocal out
        if len(out) < len(c):
            out = np.zeros(len(c), dtype=np.int64)
        cnt = dll.dp_select(c, len(c), A, m1, m2, int(slack), out, rows, len(rows))
        if cnt < 0:
            return select(c.tolist(), A, m1, m2, slack)
        return out[:cnt].tolist()

    return run


def dpslack(view: View, sorted_durations: np.ndarray, slack: bool,
            selector=None) -> State | None:
    """DPslack over the bins of `view` (sorted_durations: (m, n) ascending); `selector`
    defaults to the C kernel when available, else `select`."""
    as_array = False
    if selector is None:
        done = bin_policy_c("DPslack", view, sorted_durations, slack)
        if done is not False:
            return done
        dll = _ckernel.lib()
        if dll is not None:
            selector = _select_c(dll, np.empty(_ckernel.DP_WORDS, dtype=np.uint64))
            as_array = True
        else:
            selector = select
    state = State(view, slack)
    n = sorted_durations.shape[1]
    alive = list(range(n))
    for i, k in view.order:
        if not alive:
            break
        lj = state.longest_job(i, k)
        if lj < 1:
            continue
        row = sorted_durations[i]
        cnt = bisect_left(alive, int(np.searchsorted(row, lj, side="right")))
        if cnt == 0:
            continue
        cand = alive[:cnt]
        arr = row[cand]
        c = arr if as_array else arr.tolist()
        A = state.avail[i][k] - state.S[i][k]
        M, K = state.M[i], len(state.avail[i])
        m1 = M[k + 1] if k + 1 < K else 0
        m2 = M[k + 2] if k + 2 < K else 0
        chosen = selector(c, A, m1, m2, slack)
        ts = [int(c[x]) for x in chosen]
        state.fill(i, k, [cand[x] for x in chosen], sum(ts), max(ts, default=0))
        gone = {cand[x] for x in chosen}
        if len(gone) > 8:
            alive = [p for p in alive if p not in gone]
        else:
            for p in gone:
                del alive[bisect_left(alive, p)]
    return state if not alive else None
