"""LB_config: a lower bound on lambda* of the desktop family from a configuration relaxation
over the intervals, solved by column generation (issue 23; decision D-30).

`LB_slack` (`bounds.desktop_slack`) lets an interval hold exactly its capacity in work, a
fraction of a job included. Here an interval holds a whole set of jobs. The jobs, in sorted
order (`DesktopInstance.order`), form L classes of consecutive positions (n_c jobs in class c);
a *configuration* of interval (i, k) is a count vector (jobs per class) of a job set that fits
it at horizon lambda: under the slack rule the longest job (the head, class h, at least
t_i(h), the shortest duration of its class on machine i) has t_i(h) <= e_ik =
min(floor(w_ik / 2), a_i(k-1), a_i(k-2)), and the other jobs, of positions before the head's
(classes < h, at most n_h - 1 of class h), have durations summing to at most
w_ik - 2 t_i(h), with w_ik = min(a_ik, lambda - q_ik) (the model's (E3), (E4) at k and (E6)).
Without the rule the head costs nothing: t_i(h) <= w_ik and the others sum to w_ik - t_i(h).

Certificate (Farley / Lagrangian, as for LB_slack). For class weights y >= 0, every schedule of
horizon lambda gives, interval by interval, a configuration, so
F_lambda(y) = sum_ik max(0, max over configurations s of y . s) >= G(y) = sum_c y_c n_c.
F < G proves lambda* > lambda, and for every smaller lambda (F grows with lambda). The inner
maximum is a knapsack, computed exactly by a dynamic programme over capacities (below) and not
read from any solver, so an unconverged column generation, or a wrong dual, only weakens it.

Pricing. Jobs of one class have the same weight, so a class's best subset of m jobs is its m
shortest. With f_c(C) the best weight of jobs of classes <= c of total size <= C and
g_h(C) the same with at most n_h - 1 jobs of class h, an interval with head h is worth
y_h + g_h(C_ik(h)). The sizes: ``exact`` tables (one per machine) use t_ij in seconds and
C = w - 2 t_i(h); shared tables (one for all machines) use the reference work
p'_j = min_i t_ij / b_i <= t_ij / b_i of the demand and C = (w - 2 t_i(h)) / b_i, both floored
to a grain g (sum floor(p' / g) <= floor(C / g) whenever sum p' <= C, so the floor only
relaxes). The tables do not depend on lambda: a bisection over lambda costs only look-ups.

Column generation. The master LP max rho s.t. sum_s x_iks <= 1 per interval and
sum x_iks s_c >= rho n_c per class (HiGHS, dual simplex, warm started as columns arrive);
its class duals are the next y, the priced configurations its next columns, until none has a
positive reduced cost or the certificate holds. Columns stay valid when lambda grows.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from resilsched.deadline import Deadline
from resilsched.instances.desktop import DesktopInstance
from resilsched.instances.desktop.durations import duration_matrix
from resilsched.solution import Status
from resilsched.solvers import new_highs, run_highs

#: relative margin of the certificate F < G (float rounding of the sums)
CERT_MARGIN = 1e-9
#: a float size is lowered by this relative amount before it is floored (and a capacity
#: raised): rounding can then only relax the knapsack
FLOOR_SLACK = 1e-12
#: job classes of the shared tables
CLASSES = 192
#: grain of the shared tables, in reference seconds
GRAIN = 1.0
#: column-generation rounds per lambda
MAX_ROUNDS = 60
#: weight of the best weights so far in the priced weights (Wentges smoothing)
SMOOTHING = 0.5


@dataclass
class _Table:
    """The knapsack tables of one item profile for weights y."""

    G: np.ndarray  # (L, C + 1): g_h(C)
    prev: np.ndarray  # (L, C + 1): f_{h-1}(C)
    prefix: list[np.ndarray]  # per class: sizes of its m shortest jobs, m = 0..n_c


@dataclass
class ConfigRelaxation:
    """The data of the configuration relaxation that does not depend on lambda or y."""

    instance: DesktopInstance
    rule: bool
    classes: int = CLASSES
    exact: bool = False
    grain: float = GRAIN
    horizon: int | None = None  # no lambda above it is asked (it bounds the tables)
    mi: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        inst = self.instance
        flat = inst.flat
        off = flat["off"]
        self.mi = np.repeat(np.arange(inst.m), np.diff(off))
        self.q, self.a = flat["q"].astype(np.int64), flat["a"].astype(np.int64)
        big = np.iinfo(np.int64).max
        k = np.arange(self.a.size) - off[self.mi]
        prev1 = np.where(k >= 1, np.roll(self.a, 1), big)
        prev2 = np.where(k >= 2, np.roll(self.a, 2), big)
        self.prev = np.minimum(prev1, prev2) if self.rule else np.full(self.a.size, big)
        self.inv_b = 1.0 / np.asarray([float(x) for x in inst.b])[self.mi]
        n = inst.n
        L = max(1, min(self.classes, n))
        self.starts = np.unique((np.arange(L) * n) // L)
        self.count = np.diff(np.r_[self.starts, n])
        p_sorted = [inst.p[j] for j in np.asarray(inst.order)[self.starts].tolist()]
        self.head = duration_matrix(inst.b, p_sorted)  # (machines, L): t_i(h)
        self.factor = 2 if self.rule else 1
        if self.exact:  # one table per machine, sizes t_ij in seconds
            T = inst.sorted_durations
            self.profiles = [np.asarray(T[i], dtype=np.int64) for i in range(inst.m)]
            self.group = self.mi
        else:
            from resilsched.bounds.desktop import least_by_position

            least = least_by_position(inst)
            self.profiles = [np.floor(least * (1 - FLOOR_SLACK) / self.grain).astype(np.int64)]
            self.group = np.zeros(self.a.size, dtype=np.int64)
        # largest capacity any interval can ask for (w <= a, the shortest head)
        w = self.a if self.horizon is None else np.minimum(self.a, self.horizon - self.q)
        caps = self._capacity(np.arange(self.a.size), w, np.zeros(self.a.size, np.int64))
        self.cmax = [int(caps[self.group == g].max(initial=0)) for g in range(len(self.profiles))]

    def _capacity(self, rows: np.ndarray, w: np.ndarray, h: np.ndarray) -> np.ndarray:
        """Table index of the room left for the other jobs, head class h (>= 0 where the
        head fits the window)."""
        room = w - self.factor * self.head[self.mi[rows], h]
        if self.exact:
            return room
        return np.floor(room * self.inv_b[rows] * (1 + FLOOR_SLACK) / self.grain).astype(np.int64)

    def tables(self, y: np.ndarray) -> list[_Table]:
        """The knapsack tables g_h, f_{h-1} of every profile for class weights y."""
        out = []
        for prof, C in zip(self.profiles, self.cmax, strict=True):
            L = self.starts.size
            f = np.zeros(C + 1)
            G = np.empty((L, C + 1))
            prev = np.empty((L, C + 1))
            prefix = []
            for c in range(L):
                s, n_c = int(self.starts[c]), int(self.count[c])
                pre = np.r_[0, np.cumsum(prof[s:s + n_c])]
                prefix.append(pre)
                prev[c] = f
                g = f.copy()
                for m in range(1, n_c):  # g_c: at most n_c - 1 jobs of the class
                    shift = int(pre[m])
                    if shift > C:
                        break
                    np.maximum(g[shift:], f[:C + 1 - shift] + m * y[c], out=g[shift:])
                G[c] = g
                shift = int(pre[n_c])
                if shift <= C:  # f_c: all n_c of them too
                    g = g.copy()
                    np.maximum(g[shift:], f[:C + 1 - shift] + n_c * y[c], out=g[shift:])
                f = g
            out.append(_Table(G, prev, prefix))
        return out

    def open_rows(self, lam: int) -> tuple[np.ndarray, np.ndarray]:
        """(rows, w): the intervals open before lam and their windows."""
        rows = np.flatnonzero(self.q < lam)
        return rows, np.minimum(self.a[rows], lam - self.q[rows])

    def price(self, lam: int, y: np.ndarray, tabs: list[_Table]
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(rows, value, head, capacity index): every open interval's best configuration
        value at lam (0: empty), its head class (-1: empty) and its table index."""
        rows, w = self.open_rows(lam)
        L = self.starts.size
        value = np.zeros(rows.size)
        head = np.full(rows.size, -1)
        cap_at = np.zeros(rows.size, dtype=np.int64)
        limit = np.minimum(w // 2, self.prev[rows]) if self.rule else w
        for g, tab in enumerate(tabs):
            sel = np.flatnonzero(self.group[rows] == g)
            if sel.size == 0:
                continue
            r = rows[sel]
            hs = np.broadcast_to(np.arange(L), (sel.size, L))
            cap = self._capacity(np.repeat(r, L), np.repeat(w[sel], L), hs.ravel()).reshape(-1, L)
            ok = (self.head[self.mi[r]] <= limit[sel, None]) & (cap >= 0)
            vals = np.where(ok, y[None, :] + tab.G[hs, np.clip(cap, 0, None)], -np.inf)
            best = vals.argmax(axis=1)
            bv = vals[np.arange(sel.size), best]
            take = bv > 0
            value[sel[take]] = bv[take]
            head[sel[take]] = best[take]
            cap_at[sel[take]] = cap[np.arange(sel.size), best][take]
        return rows, value, head, cap_at

    def certifies(self, lam: int, y: np.ndarray, tabs: list[_Table] | None = None) -> bool:
        """F_lam(y) < G(y) with the margin: no schedule has horizon lam."""
        tabs = self.tables(y) if tabs is None else tabs
        _, value, _, _ = self.price(lam, y, tabs)
        return float(value.sum()) < float(y @ self.count) * (1 - CERT_MARGIN)

    def configuration(self, tab: _Table, y: np.ndarray, h: int, cap: int) -> np.ndarray:
        """The count vector of a best configuration with head class h and table index cap."""
        L = self.starts.size
        out = np.zeros(L, dtype=np.int64)
        out[h] = 1
        C = cap
        for c in range(h, -1, -1):
            pre = tab.prefix[c]
            top = self.count[c] - 1 if c == h else self.count[c]
            m = np.arange(top + 1)
            m = m[pre[: top + 1] <= C]
            vals = tab.prev[c][C - pre[m]] + m * y[c]
            pick = int(m[int(vals.argmax())])
            out[c] += pick
            C -= int(pre[pick])
        return out


class _Master:
    """The restricted master LP (max rho) over the columns found so far."""

    def __init__(self, rel: ConfigRelaxation, seconds: float | None) -> None:
        import highspy

        self.rel = rel
        self.h = new_highs({"solver": "simplex"}, seconds=seconds)
        inf = highspy.kHighsInf
        L = rel.starts.size
        self.L, self.K = L, rel.a.size
        n = float(rel.count.sum())
        # rho: column 0, cost -1 (HiGHS minimises)
        self.h.addVar(0.0, inf)
        self.h.changeColCost(0, -1.0)
        # class rows: sum s_c x - rho n_c / n >= 0 (counts scaled by 1 / n)
        idx = np.zeros(L, dtype=np.int32)
        self.h.addRows(L, np.zeros(L), np.full(L, inf), L, np.arange(L, dtype=np.int32), idx,
                       -rel.count / n)
        self.h.addRows(self.K, np.full(self.K, -inf), np.ones(self.K), 0,
                       np.zeros(self.K, dtype=np.int32), np.zeros(0, dtype=np.int32),
                       np.zeros(0))
        self.n = n
        self.seen: set[tuple[int, bytes]] = set()

    def add(self, row: int, config: np.ndarray) -> bool:
        key = (row, config.tobytes())
        if key in self.seen:
            return False
        self.seen.add(key)
        nz = np.flatnonzero(config)
        idx = np.r_[nz, self.L + row].astype(np.int32)
        val = np.r_[config[nz] / self.n, 1.0]
        self.h.addCol(0.0, 0.0, np.inf, idx.size, idx, val)
        return True

    def solve(self) -> tuple[float, np.ndarray, np.ndarray] | None:
        """(rho, y, u): the master's value, class duals (per job of the class, scaled) and
        interval duals; None when HiGHS does not finish."""
        if run_highs(self.h).status is not Status.OPTIMAL:
            return None
        rho = -self.h.getInfo().objective_function_value
        dual = np.abs(np.asarray(self.h.getSolution().row_dual))
        return rho, dual[: self.L] / self.n, dual[self.L:]


def column_generation(rel: ConfigRelaxation, lam: int, master: _Master, y0: np.ndarray,
                      rounds: int = MAX_ROUNDS, deadline: Deadline | None = None,
                      log: list | None = None, converge: bool = False,
                      alpha: float = SMOOTHING) -> np.ndarray | None:
    """Weights y that certify lam (None when the master becomes feasible, rounds run out or
    the deadline passes first). Starts by pricing y0; prices the duals smoothed towards the
    best weights so far (Wentges). With `converge`, goes on until the master's value meets
    the best Farley value (both logged) and returns the best weights if they certify."""
    left = deadline.remaining if deadline is not None else (lambda: np.inf)
    best_y, best_ratio = None, np.inf
    y_dual = None
    rho = 0.0
    for it in range(rounds):
        if left() <= 0:
            break
        if y_dual is None or best_y is None:
            y = y0 if y_dual is None else y_dual
        else:
            y = alpha * best_y + (1 - alpha) * y_dual
        G = float(y @ rel.count)
        y = y / G
        tabs = rel.tables(y)
        rows, value, head, cap = rel.price(lam, y, tabs)
        F = float(value.sum())
        if F < best_ratio:
            best_y, best_ratio = y, F
        if log is not None:
            log.append((lam, it, F, best_ratio, rho))
        if best_ratio < 1 - CERT_MARGIN and not converge:
            return best_y
        added = 0
        for r, h, c in zip(rows.tolist(), head.tolist(), cap.tolist(), strict=True):
            if h < 0:
                continue
            config = rel.configuration(tabs[rel.group[r]], y, h, c)
            added += master.add(r, config)
        if added == 0:
            if y_dual is not None and alpha > 0 and best_y is not y_dual:
                alpha = 0.0  # a mispricing: price the master's own duals
                continue
            break
        res = master.solve()
        if res is None:
            break
        rho, y_dual, _ = res
        if rho >= 1.0 + 1e-9 and not converge:
            break  # the relaxation holds the jobs at lam
        if not np.any(y_dual > 0):
            break
        if converge and best_ratio - rho < 1e-6:
            break
    if best_y is not None and best_ratio < 1 - CERT_MARGIN:
        return best_y
    return None


def lb_config(instance: DesktopInstance, slack_rule: bool | None = None,
              classes: int = CLASSES, exact: bool | None = None, grain: float = GRAIN,
              start: int | None = None, upper: int | None = None,
              deadline: Deadline | None = None, log: list | None = None) -> int:
    """LB_config (module docstring): the largest lambda + 1 the column generation's weights
    prove infeasible, never below `start` (default LB_slack)."""
    rule = instance.slack_rule if slack_rule is None else slack_rule
    if start is None:
        from resilsched.bounds.desktop_slack import lb_slack

        start = lb_slack(instance, slack_rule=rule)
    exact = instance.m * instance.n <= 200_000 if exact is None else exact
    hi = int((instance.flat["q"] + instance.flat["a"]).max())
    if upper is not None:
        hi = min(hi, upper)
    rel = ConfigRelaxation(instance, rule, classes, exact, grain, hi)
    left = deadline.remaining if deadline is not None else (lambda: np.inf)
    master = _Master(rel, left() if np.isfinite(left()) else None)
    from resilsched.bounds.desktop import least_by_position

    least = least_by_position(instance)
    y = np.add.reduceat(least, rel.starts) / rel.count  # work per job of the class
    lo = start
    while lo <= hi and left() > 0:
        t0 = time.perf_counter()
        W = column_generation(rel, lo, master, y, deadline=deadline, log=log)
        if W is None:
            break
        y = W
        tabs = rel.tables(W)
        if rel.certifies(hi, W, tabs):
            return hi + 1
        good, bad = lo, hi
        while bad - good > 1:
            mid = (good + bad) // 2
            if rel.certifies(mid, W, tabs):
                good = mid
            else:
                bad = mid
        lo = good + 1
        if log is not None:
            log.append(("bound", lo, time.perf_counter() - t0))
    return lo
