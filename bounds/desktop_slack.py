"""LB_slack: a lower bound on lambda* of the desktop family that charges every used interval the
slack its own jobs need (issue 23; decision D-26).

LB_cap (`bounds.desktop`) charges a used interval the shortest job as its slack and lets any job
go anywhere its window holds it. Under the slack rule an interval (i, k) whose longest job is M
holds S_ik <= w_ik(lambda) - M of work, where w_ik(lambda) = min(a_ik, lambda - q_ik) (the rule
at k and (E6) of spec 7.1), and a job of duration t may sit in it only if
t <= e_ik = min(floor(w_ik / 2), a_i(k-1), a_i(k-2)) (d(k) >= 2t and the rule at k-1 and k-2:
d(k-1) >= M(k), d(k-2) >= M(k), with d <= a; interval 0 and below have infinite slack).

Relaxation. Split the jobs, in sorted order (`DesktopInstance.order`), into classes
h = 1..L of consecutive positions; theta_h is the first (shortest) job of class h and
t_i(h) = t_{i, theta_h} its duration on machine i, the shortest duration of the class there
(rounding is monotone). An interval whose longest job is in class h has M >= t_i(h), so it holds
at most v_ik(h) = (w_ik - t_i(h)) / b_i reference units of work, all of it in classes <= h,
and it can have such a head only if t_i(h) <= e_ik. With D_c the demand of class c in reference
units (each job counted at min_i t_ij / b_i, as LB_cap does), every schedule of horizon lambda
gives a fractional z (an interval's head class) with

    sum over h >= c of sum_ik z_ik(h) v_ik(h) >= sum over c' >= c of D_c'    for every c.

Certificate (LP duality, the weights of a dual-feasible function). For weights
0 <= W_1 <= ... <= W_L, every schedule of horizon lambda satisfies
F_lambda(W) = sum_ik max(0, max over eligible h of W_h v_ik(h)) >= G(W) = sum_h W_h D_h
(an interval with head h holds at most v_ik(h) of work, each unit of weight <= W_h). So
F_lambda(W) < G(W) proves lambda* > lambda, and since F only grows with lambda (windows and
eligibility grow), one W proves it for every smaller lambda too. The weights come from the duals
of the LP max rho s.t. the nested constraints hold with the demand scaled by rho (HiGHS), but
the certificate is recomputed here in float64 with a margin and never read from the solver: a
wrong or inaccurate LP answer can only make the bound weaker.
The LPs start on a coarse grid of classes (cheap, it climbs from LB_cap) and go on with a
fine one when its weights stop certifying; the value is not monotone in the grid (D-26).

Neighbours (D-28). The rule couples an interval to its successors: S_i(k) + M_i(k') <= a_ik for
k' = k+1, k+2, which the per-interval maximum ignores (it only asks t_i(h) <= a_i(k-1), a_i(k-2)
of the head). `_Relaxation.coupled` maximises instead, per machine, over whole sequences of
heads (h_1, h_2, ...) (0: an empty interval): interval k with head h holds at most
c_k = min(w_ik - t_i(h), a_ik - max(t_i(h), tau_k)) of work, used only if c_k >= t_i(h) (it holds
its head), where tau_k is the lower end of the *group* of the longer head of k+1 and k+2 (G
groups of consecutive classes, `GROUPS`: the successors are seen coarsely, which only weakens
the bound); an empty interval needs a_ik >= tau_k; every head also keeps the eligibility above.
A dynamic programme from the last interval open before lambda back to the first, over the
groups of the next two heads, gives F^c_lambda(W) <= F_lambda(W), again non-decreasing in
lambda, so the same weights certify some lambdas more. `lb_slack` bisects with it after the LPs.

Without the slack rule the head costs nothing and only the window limits a job
(v_ik = w_ik / b_i, t <= w_ik): the same certificate with the nested constraints of eligibility.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from resilsched.bounds.desktop import DEMAND_MARGIN, lb_big, lb_cap, least_by_position
from resilsched.deadline import Deadline
from resilsched.instances.desktop import DesktopInstance
from resilsched.instances.desktop.durations import duration_matrix
from resilsched.solution import Status
from resilsched.solvers import new_highs, run_highs

#: runs fn() within seconds, None when it does not finish: runner(fn, seconds)
Runner = Callable[[Callable[[], Any], float], Any]

#: job classes of the relaxation (consecutive sorted positions, equal counts)
CLASSES = 192
#: the first LPs use CLASSES / COARSE classes (cheaper) until their weights stop certifying
COARSE = 3
#: relative margin of the certificate F < G (float rounding of the sums)
CERT_MARGIN = 1e-9
#: LP solves at most (each moves the bound up; the last ones move it little)
MAX_ROUNDS = 12
#: seconds per column (eligible interval and head class) of one LP, to skip an LP that cannot
#: finish (measured 10-25 us at 500 hosts x 10,000 jobs on the loaded 2-core machine)
LP_COLUMN = 2e-5
#: an LP value rho up to 1 + this still gives its weights to the certificate (the interior
#: point's rho is off by ~1e-6 near 1, where the certificate still proves rho < 1)
RHO_TOLERANCE = 1e-4
#: largest (interval, class) table of one LP; more intervals get fewer classes
MAX_CELLS = 8_000_000
#: groups of classes with which `_Relaxation.coupled` sees the heads of the next two intervals
GROUPS = 24
#: seconds per open interval of one `_Relaxation.coupled` before the first is timed (measured
#: 0.1-0.25 ms at 500 hosts x 10,000 jobs, 187 classes, on the loaded 2-core machine)
COUPLED_INTERVAL = 3e-4


class _Relaxation:
    """The data of the relaxation that does not depend on lambda."""

    def __init__(self, instance: DesktopInstance, rule: bool, classes: int) -> None:
        flat = instance.flat
        off = flat["off"]
        self.rule = rule
        self.mi = np.repeat(np.arange(instance.m), np.diff(off))
        self.q, self.a = flat["q"].astype(np.int64), flat["a"].astype(np.int64)
        big = np.iinfo(np.int64).max
        k = np.arange(self.a.size) - off[self.mi]  # 0-based index of the interval
        prev1 = np.where(k >= 1, np.roll(self.a, 1), big)
        prev2 = np.where(k >= 2, np.roll(self.a, 2), big)
        self.prev = np.minimum(prev1, prev2) if rule else np.full(self.a.size, big)
        b = np.asarray([float(x) for x in instance.b])
        self.inv_b = 1.0 / b[self.mi]
        n = instance.n
        L = max(1, min(classes, n))
        self.starts = np.unique((np.arange(L) * n) // L)  # first sorted position of each class
        least = least_by_position(instance)
        self.D = np.add.reduceat(least, self.starts) * (1 - DEMAND_MARGIN)
        p_sorted = [instance.p[j] for j in np.asarray(instance.order)[self.starts].tolist()]
        self.head = duration_matrix(instance.b, p_sorted)  # (machines, L): t_i(h)

    def values(self, lam: int) -> tuple[np.ndarray, np.ndarray]:
        """(rows, v): the intervals open before lam and v_ik(h), -1 where h is not eligible."""
        rows = np.flatnonzero(self.q < lam)
        w = np.minimum(self.a[rows], lam - self.q[rows])
        head = self.head[self.mi[rows]]
        if self.rule:
            cap = np.minimum(w // 2, self.prev[rows])
            v = (w[:, None] - head) * self.inv_b[rows, None]
        else:
            cap = w
            v = np.repeat((w * self.inv_b[rows])[:, None], head.shape[1], axis=1)
        v[head > cap[:, None]] = -1.0
        return rows, v

    def certifies(self, lam: int, W: np.ndarray, coupled: bool = False) -> bool:
        """F_lam(W) < G(W) with the margin: no schedule has horizon lam (with `coupled`, the
        neighbours' F^c_lam(W) of `coupled`, under the slack rule)."""
        if coupled and self.rule:
            F = self.coupled(lam, W)
        else:
            _, v = self.values(lam)
            F = float(np.maximum(0.0, (v * W).max(axis=1, initial=0.0)).sum())
        G = float(W @ self.D)
        return F < G * (1 - CERT_MARGIN)

    def coupled(self, lam: int, W: np.ndarray, groups: int = GROUPS) -> float:
        """F^c_lam(W) (module docstring, Neighbours): per machine the best sequence of heads,
        the successors seen through `groups` groups of classes; <= F_lam(W)."""
        rows, v = self.values(lam)
        if rows.size == 0:
            return 0.0
        L = W.size
        size = min(groups, L)
        first = np.unique((np.arange(size) * L) // size)  # first class of each group
        G = first.size
        tau = np.zeros((self.head.shape[0], G + 1))
        tau[:, 1:] = self.head[:, first]
        w = np.minimum(self.a[rows], lam - self.q[rows])
        mach = self.mi[rows]
        top = np.maximum.outer(np.arange(G + 1), np.arange(G + 1))  # [z, z2] -> max group
        total = 0.0
        ends = np.flatnonzero(np.r_[mach[1:] != mach[:-1], True])
        begin = 0
        for end in ends.tolist():
            nxt = np.full((G + 1, G + 1), -np.inf)  # B_{k+1}[z, z2]: past the last, empty
            nxt[0, 0] = 0.0
            for r in range(end, begin - 1, -1):
                i = mach[r]
                t = self.head[i].astype(np.float64)[:, None]
                tm = tau[i][None, :]
                cap = np.minimum(w[r] - t, self.a[rows[r]] - np.maximum(t, tm))
                val = np.where((cap >= t) & (v[r][:, None] >= 0),
                               W[:, None] * cap * self.inv_b[rows[r]], -np.inf)
                best = np.empty((G + 1, G + 1))  # [group of the head, group max of next two]
                best[0] = np.where(self.a[rows[r]] >= tau[i], 0.0, -np.inf)
                best[1:] = np.maximum.reduceat(val, first, axis=0)
                nxt = (best[:, top] + nxt[None, :, :]).max(axis=2)  # B_k[x, z]
            total += max(0.0, float(nxt.max()))
            begin = end + 1
        return total

    def weights(self, lam: int, seconds: float = np.inf,
                runner: Runner | None = None) -> np.ndarray | None:
        """The LP's weights W at lam (None when the relaxation is feasible there, or the LP
        did not finish within `seconds`). HiGHS's interior point checks its time limit too
        rarely, so with a finite limit an LP whose estimate does not fit is skipped, and
        `runner(fn, seconds)` (the models give a forked child killed on time, returning None
        then) runs the others."""
        if not np.isfinite(seconds):
            return self._weights(lam, seconds)
        _, v = self.values(lam)
        if LP_COLUMN * np.count_nonzero(v > 0) > seconds:
            return None  # it would not finish: skip it rather than start it
        if runner is None:
            return self._weights(lam, seconds)
        return runner(lambda: self._weights(lam, seconds), seconds)

    def _weights(self, lam: int, seconds: float) -> np.ndarray | None:
        import highspy

        _, v = self.values(lam)
        R = np.cumsum(self.D[::-1])[::-1]  # demand of classes >= c
        L = self.D.size
        r_idx, h_idx = np.nonzero(v > 0)
        nz = r_idx.size
        nrows = v.shape[0]
        # the interior point method: 5-7x faster than the dual simplex here
        h = new_highs({"solver": "ipm"}, seconds=seconds)
        inf = highspy.kHighsInf
        ncol = nz + L + 1  # columns: z (nz, by interval), K_h (L), rho
        cost = np.zeros(ncol)
        cost[-1] = -1.0
        h.addVars(ncol, np.zeros(ncol), np.full(ncol, inf))
        h.changeColsCost(ncol, np.arange(ncol, dtype=np.int32), cost)
        # interval rows: sum_h z <= 1 (np.nonzero lists z by interval already)
        lens = [np.bincount(r_idx, minlength=nrows)]
        index = [np.arange(nz)]
        value = [np.ones(nz)]
        # K_h rows: sum_ik v z - K_h = 0
        by_h = np.argsort(h_idx, kind="stable")
        lens.append(np.bincount(h_idx, minlength=L) + 1)
        cols = np.split(by_h, np.cumsum(np.bincount(h_idx, minlength=L))[:-1])
        vals = v[r_idx, h_idx]
        index += [np.r_[c, nz + j] for j, c in enumerate(cols)]
        value += [np.r_[vals[c], -1.0] for c in cols]
        # nested rows: sum_{h >= c} K_h - rho R_c >= 0 (scaled by 1 / R_1)
        scale = 1.0 / R[0]
        lens.append(L - np.arange(L) + 1)
        index += [np.r_[np.arange(nz + c, nz + L), ncol - 1] for c in range(L)]
        value += [np.r_[np.full(L - c, scale), -R[c] * scale] for c in range(L)]
        lens_all = np.concatenate(lens)
        starts = np.r_[0, np.cumsum(lens_all)[:-1]].astype(np.int32)
        lower = np.r_[np.full(nrows, -inf), np.zeros(L), np.zeros(L)]
        upper = np.r_[np.ones(nrows), np.zeros(L), np.full(L, inf)]
        idx = np.concatenate(index).astype(np.int32)
        h.addRows(lower.size, lower, upper, idx.size, starts, idx, np.concatenate(value))
        if run_highs(h).status is not Status.OPTIMAL:
            return None
        if -h.getInfo().objective_function_value >= 1.0 + RHO_TOLERANCE:  # feasible LP
            return None
        dual = np.abs(np.asarray(h.getSolution().row_dual)[nrows + L:])
        W = np.cumsum(dual)
        return W if W[-1] > 0 else None


def lb_slack(instance: DesktopInstance, scenario: Any = None, slack_rule: bool | None = None,
             classes: int = CLASSES, deadline: Deadline | None = None,
             start: int | None = None, upper: int | None = None,
             runner: Runner | None = None,
             weights: dict[int, tuple[np.ndarray, np.ndarray]] | None = None) -> int:
    """LB_slack (module docstring): the largest lambda + 1 some LP's weights prove infeasible
    (per interval, then with the neighbours' coupling, `_Relaxation.coupled`), and never below
    max(LB_big, LB_cap) (or `start`, a bound the caller proved); `upper` (a horizon some
    allocation reaches) stops the search there. With a `deadline` the LP solves and the coupled
    passes stop when it passes (the bound found so far is returned), each LP run by `runner`
    (see `_Relaxation.weights`). `weights`, when given, receives per grid size the first
    sorted position of each class and the last weights W that certified on that grid (the
    warm start of `bounds.desktop_config`)."""
    rule = instance.slack_rule if slack_rule is None else slack_rule
    lo = start if start is not None else max(lb_big(instance, None, rule),
                                            lb_cap(instance, None, rule))
    fine = max(2, min(classes, MAX_CELLS // instance.K))
    grids = [max(2, fine // COARSE), fine] if fine // COARSE >= 2 else [fine]
    rel = _Relaxation(instance, rule, grids[0])
    hi = int((rel.q + rel.a).max())
    if upper is not None:
        hi = min(hi, upper)
    left = deadline.remaining if deadline is not None else (lambda: np.inf)
    last: dict[int, tuple[_Relaxation, np.ndarray]] = {}  # grid -> its last certifying weights
    for _ in range(MAX_ROUNDS):
        if left() <= 0:
            break
        W = rel.weights(lo, left(), runner)
        if W is None or not rel.certifies(lo, W):
            grids.pop(0)
            if not grids:
                break
            rel = _Relaxation(instance, rule, grids[0])  # the coarse grid is spent: refine
            continue
        last[rel.D.size] = rel, W
        if weights is not None:
            weights[rel.D.size] = rel.starts, W
        if rel.certifies(hi, W):  # nothing up to hi is possible (hi = upper: a caller's error)
            return hi + 1
        good, bad = lo, hi  # certifies(good), not certifies(bad)
        while bad - good > 1 and left() > 0:
            mid = (good + bad) // 2
            if rel.certifies(mid, W):
                good = mid
            else:
                bad = mid
        lo = good + 1
    spent = COUPLED_INTERVAL * int(np.count_nonzero(rel.q < hi))  # one pass, until timed
    for rel, W in last.values() if rule else ():  # the neighbours (D-28), the same weights
        good, bad = lo - 1, hi + 1  # lo is a bound already; F^c grows with lambda
        while bad - good > 1 and left() > spent:
            mid = (good + bad) // 2
            t0 = time.perf_counter()
            if rel.certifies(mid, W, coupled=True):
                good = mid
            else:
                bad = mid
            spent = time.perf_counter() - t0
        lo = good + 1
    return lo
