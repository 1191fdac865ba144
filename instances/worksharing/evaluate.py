"""The worksharing objective: exact and Monte-Carlo expected work of static schedules (spec 003
§1.4). It sits beside the instance model because every role (bounds, heuristics, models, the
validator's tests) evaluates schedules with it.

A schedule gives each worker an ordered list of chunks; a chunk is a finite union of intervals of
the workload [0, W_ttl]. Chunk k of worker j ends at T_{j,k} = sum_{l<=k} (omega_{j,l} + eps)
(null chunks are skipped and cost nothing, §1.3). A work position x held by worker j is first
held in its chunk sigma(j, x); it fails iff every worker holding it is interrupted before the end
of that chunk, with probability P_fail(x) = prod_j Pr(T_{j,sigma(j,x)}) (independent workers, §6
Q1). The expected work is E = integral (1 - P_fail(x)) dx, computed exactly as a sum over the
*pieces* of the common refinement of all chunk boundaries (the X_1..X_m of Theorem 1's proof).

For interruption times tau_1..tau_p the realised work is the measure of the positions x with
T_{j,sigma(j,x)} <= tau_j for some j (success rule of §1.2).

Two representations share one evaluator:

- `PieceSchedule`: disjoint pieces with sizes, and per worker the piece ids in execution order,
  each with the number of the chunk it belongs to (one piece per chunk for the equal-chunk
  heuristics of §3, which is the fast path);
- `IntervalSchedule`: per worker, per chunk, a list of intervals (a, b); `to_pieces()` refines it.

Both evaluations are vectorised with numpy; identical worker sequences are merged in the Monte
Carlo (a set of workers running the same sequence behaves like one worker with tau = max tau).
Both schedules print themselves (`lines()`: one line per worker, its chunks as intervals of
the workload).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from resilsched.numeric import readable

Interval = tuple[float, float]


@dataclass(frozen=True, eq=False)
class PieceSchedule:
    """Disjoint pieces of the workload and, per worker, the pieces it runs in order.

    Parameters
    ----------
    W : total workload W_ttl (pieces need not cover it: the rest is never deployed).
    sizes : size of each piece (>= 0), ``sum(sizes) <= W``.
    seqs : per worker, the piece ids in execution order.
    chunk_of : per worker, the chunk number of each entry of ``seqs`` (nondecreasing); ``None``
        means every piece is its own chunk (equal-chunk schedules of §3).
    """

    W: float
    sizes: np.ndarray
    seqs: tuple[np.ndarray, ...]
    chunk_of: tuple[np.ndarray, ...] | None = None

    @property
    def p(self) -> int:
        return len(self.seqs)

    def end_times(self, eps: float) -> list[np.ndarray]:
        """Per worker, the end time of the chunk of each entry (first occurrences only).

        Entries that repeat a piece already run by the same worker get ``inf`` (the first
        occurrence decides, §1.4).
        """
        out = []
        for j, seq in enumerate(self.seqs):
            seq = np.asarray(seq, dtype=np.int64)
            if seq.size == 0:
                out.append(np.zeros(0))
                continue
            cof = (np.arange(seq.size) if self.chunk_of is None
                   else np.asarray(self.chunk_of[j], dtype=np.int64))
            csize = np.bincount(cof, weights=self.sizes[seq])
            nonnull = csize > 0
            cend = np.cumsum(csize + eps * nonnull)
            T = cend[cof]
            T = np.where(self.sizes[seq] > 0, T, np.inf)
            _, first = np.unique(seq, return_index=True)
            if first.size != seq.size:
                mask = np.ones(seq.size, dtype=bool)
                mask[first] = False
                T = np.where(mask, np.inf, T)
            out.append(T)
        return out

    def entries(self, eps: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(worker, piece, end time) of every first occurrence of a nonnull piece."""
        Ts = self.end_times(eps)
        wk = np.concatenate([np.full(len(s), j, dtype=np.int64) for j, s in enumerate(self.seqs)]
                            + [np.zeros(0, dtype=np.int64)])
        pc = np.concatenate([np.asarray(s, dtype=np.int64) for s in self.seqs]
                            + [np.zeros(0, dtype=np.int64)])
        T = np.concatenate(Ts + [np.zeros(0)])
        keep = np.isfinite(T)
        return wk[keep], pc[keep], T[keep]

    def chunk_lists(self) -> list[list[list[int]]]:
        """Per worker, the chunks as lists of piece ids (JSON-able)."""
        out = []
        for j, seq in enumerate(self.seqs):
            if self.chunk_of is None:
                out.append(np.asarray(seq, dtype=np.int64)[:, None].tolist())
                continue
            seq = [int(c) for c in seq]
            chunks: dict[int, list[int]] = {}
            for c, k in zip(seq, self.chunk_of[j], strict=True):
                chunks.setdefault(int(k), []).append(c)
            out.append([chunks[k] for k in sorted(chunks)])
        return out

    def offsets(self) -> np.ndarray:
        """Piece i is <offsets[i], offsets[i + 1]> (pieces laid end to end from 0)."""
        return np.concatenate([[0.0], np.cumsum(self.sizes)])

    def to_dict(self) -> dict[str, Any]:
        offs = self.offsets()
        return {"W": float(self.W), "pieces": np.stack([offs[:-1], offs[1:]], axis=1).tolist(),
                "workers": self.chunk_lists()}

    def lines(self) -> list[str]:
        """One line per worker: its chunks as intervals of the workload, in execution order."""
        offs = self.offsets()

        def intervals(chunk: list[int]) -> list[Interval]:
            return [(offs[c], offs[c + 1]) for c in chunk]

        return [worker_line(j, chunks, intervals) for j, chunks in enumerate(self.chunk_lists())]

    def to_intervals(self) -> IntervalSchedule:
        """The same schedule with piece i = <offset_i, offset_i + size_i> (laid end to end)."""
        offs = np.concatenate([[0.0], np.cumsum(self.sizes)])
        workers = []
        for chunks in self.chunk_lists():
            workers.append([[(float(offs[c]), float(offs[c + 1])) for c in ch] for ch in chunks])
        return IntervalSchedule(self.W, workers)


@dataclass(frozen=True, eq=False)
class IntervalSchedule:
    """Per worker, per chunk, a list of intervals (a, b) of [0, W] (spec §1.4)."""

    W: float
    workers: Sequence[Sequence[Sequence[Interval]]]

    def to_pieces(self) -> PieceSchedule:
        """Refine all chunk boundaries into disjoint pieces (the partition X_1..X_m)."""
        pts = {0.0}
        for chunks in self.workers:
            for ch in chunks:
                for a, b in ch:
                    if not (0 <= a <= b <= self.W * (1 + 1e-12) + 1e-15):
                        raise ValueError(f"interval ({a}, {b}) is not inside [0, {self.W}]")
                    pts.add(float(a))
                    pts.add(float(b))
        bounds = np.array(sorted(pts))
        sizes = np.diff(bounds)
        seqs, cofs = [], []
        for chunks in self.workers:
            s: list[int] = []
            c: list[int] = []
            for k, ch in enumerate(chunks):
                for a, b in ch:
                    lo = int(np.searchsorted(bounds, a))
                    hi = int(np.searchsorted(bounds, b))
                    s.extend(range(lo, hi))
                    c.extend([k] * (hi - lo))
            seqs.append(np.array(s, dtype=np.int64))
            cofs.append(np.array(c, dtype=np.int64))
        return PieceSchedule(self.W, sizes, tuple(seqs), tuple(cofs))

    def to_dict(self) -> dict[str, Any]:
        return {"W": self.W, "workers": [[[list(iv) for iv in ch] for ch in chunks]
                                         for chunks in self.workers]}

    def lines(self) -> list[str]:
        """One line per worker: its chunks as intervals of the workload, in execution order."""
        return [worker_line(j, chunks) for j, chunks in enumerate(self.workers)]


#: chunks shown in full on a worker's line; longer lists show their first and last ones
LINE_CHUNKS = 8


def worker_line(j: int, chunks: Sequence[Any],
                intervals: Callable[[Any], Sequence[Interval]] | None = None) -> str:
    """``worker 0: 3 chunks [0, 0.25] [0.25, 0.5] [0.5, 0.6]+[0.8, 0.9]``: adjacent intervals
    of a chunk are merged, a chunk made of several intervals joins them with ``+``;
    ``intervals(chunk)`` gives the intervals of a chunk (default: the chunk is its intervals)."""
    def show(chunk: Any) -> str:
        merged: list[list[float]] = []
        for a, b in (chunk if intervals is None else intervals(chunk)):
            if merged and abs(merged[-1][1] - a) <= 1e-12 * max(1.0, abs(a)):
                merged[-1][1] = b
            else:
                merged.append([a, b])
        return "+".join(f"[{readable(float(a))}, {readable(float(b))}]" for a, b in merged) or "[]"

    k = len(chunks)
    if k <= LINE_CHUNKS:
        shown = " ".join(show(ch) for ch in chunks)
    else:
        head = " ".join(show(ch) for ch in chunks[:LINE_CHUNKS - 2])
        shown = f"{head} ... {show(chunks[-2])} {show(chunks[-1])}"
    return f"worker {j}: {k} chunk{'s' if k != 1 else ''}" + (f" {shown}" if k else "")


def _as_pieces(schedule: PieceSchedule | IntervalSchedule) -> PieceSchedule:
    return schedule.to_pieces() if isinstance(schedule, IntervalSchedule) else schedule


def piece_failure(schedule: PieceSchedule | IntervalSchedule, risk, eps: float) -> np.ndarray:
    """P_fail of every piece: product over its holders of Pr(T) (1 for pieces nobody holds)."""
    s = _as_pieces(schedule)
    _, pc, T = s.entries(eps)
    pf = np.ones(len(s.sizes))
    if pc.size:
        order = np.argsort(pc, kind="stable")
        pcs = pc[order]
        fail = np.minimum(1.0, risk.cdf(T[order]))
        starts = np.flatnonzero(np.r_[True, pcs[1:] != pcs[:-1]])
        pf[pcs[starts]] = np.multiply.reduceat(fail, starts)
    return pf


def expected_work(schedule: PieceSchedule | IntervalSchedule, risk, eps: float = 0.0) -> float:
    """Exact E[W_cmp] = sum over pieces of size * (1 - P_fail) (spec §1.4)."""
    s = _as_pieces(schedule)
    return float(np.dot(s.sizes, 1.0 - piece_failure(s, risk, eps)))


def _merged_workers(s: PieceSchedule, eps: float):
    """Entries grouped by distinct worker sequence: (worker groups, pieces, times, group index)."""
    Ts = s.end_times(eps)
    key_to_group: dict[bytes, int] = {}
    groups: list[list[int]] = []
    for j, seq in enumerate(s.seqs):
        key = np.asarray(seq, dtype=np.int64).tobytes() + b"|" + Ts[j].tobytes()
        if key not in key_to_group:
            key_to_group[key] = len(groups)
            groups.append([])
        groups[key_to_group[key]].append(j)
    pcs, Tl, gl = [], [], []
    for g, members in enumerate(groups):
        j = members[0]
        keep = np.isfinite(Ts[j])
        pcs.append(np.asarray(s.seqs[j], dtype=np.int64)[keep])
        Tl.append(Ts[j][keep])
        gl.append(np.full(int(keep.sum()), g, dtype=np.int64))
    pc = np.concatenate(pcs) if pcs else np.zeros(0, dtype=np.int64)
    T = np.concatenate(Tl) if Tl else np.zeros(0)
    gi = np.concatenate(gl) if gl else np.zeros(0, dtype=np.int64)
    order = np.argsort(pc, kind="stable")
    return groups, pc[order], T[order], gi[order]


def realised_work(schedule: PieceSchedule | IntervalSchedule, eps: float,
                  taus: np.ndarray, block_elems: int = 4_000_000) -> np.ndarray:
    """Realised work W_cmp for each row of ``taus`` (shape trials x p), spec §1.4.

    Vectorised: a piece is done in trial t iff some holder j has T <= tau_j(t).
    """
    s = _as_pieces(schedule)
    taus = np.atleast_2d(np.asarray(taus, dtype=float))
    if taus.shape[1] != s.p:
        raise ValueError(f"taus has {taus.shape[1]} columns, schedule has {s.p} workers")
    groups, pc, T, gi = _merged_workers(s, eps)
    trials = taus.shape[0]
    out = np.zeros(trials)
    if pc.size == 0:
        return out
    # effective tau of a group of identical workers: the max
    teff = np.stack([taus[:, g].max(axis=1) for g in groups], axis=1)
    starts = np.flatnonzero(np.r_[True, pc[1:] != pc[:-1]])
    w = s.sizes[pc[starts]]
    step = max(1, block_elems // max(1, pc.size))
    for b in range(0, trials, step):
        done = T[None, :] <= teff[b:b + step][:, gi]
        out[b:b + step] = np.logical_or.reduceat(done, starts, axis=1) @ w
    return out


def sample_taus(risk, p: int, trials: int, rng: np.random.Generator) -> np.ndarray:
    """Independent interruption times, shape (trials, p), from a seeded generator."""
    return np.asarray(risk.sample(rng, (trials, p)), dtype=float)


def monte_carlo(schedule: PieceSchedule | IntervalSchedule, risk, eps: float, trials: int,
                rng: np.random.Generator) -> tuple[float, float]:
    """Monte-Carlo estimate of E[W_cmp]: (mean, standard error)."""
    s = _as_pieces(schedule)
    x = realised_work(s, eps, sample_taus(risk, s.p, trials, rng))
    return float(x.mean()), float(x.std(ddof=1) / np.sqrt(trials)) if trials > 1 else 0.0


def omniscient_work(W: float, eps: float, taus: np.ndarray) -> np.ndarray:
    """Realised work of the omniscient reference: min(W, sum_j max(0, tau_j - eps)) (§3.5, Q10)."""
    taus = np.atleast_2d(np.asarray(taus, dtype=float))
    return np.minimum(W, np.maximum(taus - eps, 0.0).sum(axis=1))


def equal_chunks(W: float, n: int, deployed: float | None = None) -> np.ndarray:
    """Sizes of n equal chunks of the deployed workload (default all of W)."""
    d = W if deployed is None else deployed
    return np.full(n, d / n)
