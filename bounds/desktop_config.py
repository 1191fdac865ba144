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

from resilsched.bounds.desktop import least_by_position
from resilsched.bounds.desktop_slack import lb_slack
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
#: the master's class duals are boxed by this multiple of the best weights so far
BOX = 3.0
#: largest tables `lb_config` builds (cells; two float64 arrays of this size)
MAX_CELLS = 10_000_000
#: `lb_config` searches at most this far above its start (relative)
SPAN = 0.05
#: seconds per job and table cell of `ConfigRelaxation.tables` (measured 1.3 ns at 500 hosts
#: x 10,000 jobs on the loaded 2-core machine, kept about twice as high)
TABLE_CELL = 3e-9


@dataclass
class _Table:
    """The knapsack tables of one item profile for per-job values v."""

    G: np.ndarray  # (L, C + 1): g_h(C), the jobs of classes <= h but the last of class h
    prev: np.ndarray  # (L, C + 1): f_{h-1}(C)
    prefix: list[np.ndarray]  # per class: sizes of its m shortest jobs, m = 0..n_c


@dataclass
class ConfigRelaxation:
    """The data of the configuration relaxation that does not depend on lambda or the values.

    `starts`: the first sorted position of each class (default `classes` equal counts);
    `exact`: one table per machine in seconds (else one shared table in reference units of
    `grain`); `horizon`: no lambda above it is asked (it bounds the tables)."""

    instance: DesktopInstance
    rule: bool
    classes: int = CLASSES
    exact: bool = False
    grain: float = GRAIN
    horizon: int | None = None
    starts: np.ndarray | None = None
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
        if self.starts is None:
            L = max(1, min(self.classes, n))
            self.starts = np.unique((np.arange(L) * n) // L)
        self.count = np.diff(np.r_[self.starts, n])
        self.last = self.starts + self.count - 1  # the longest job of each class
        self.cls = np.repeat(np.arange(self.starts.size), self.count)  # class of a position
        p_sorted = [inst.p[j] for j in np.asarray(inst.order)[self.starts].tolist()]
        self.head = duration_matrix(inst.b, p_sorted)  # (machines, L): t_i(h)
        self.factor = 2 if self.rule else 1
        if self.exact:  # one table per machine, sizes t_ij in seconds
            T = inst.sorted_durations
            self.profiles = [np.asarray(T[i], dtype=np.int64) for i in range(inst.m)]
            self.group = self.mi
        else:
            least = least_by_position(inst)
            self.profiles = [np.floor(least * (1 - FLOOR_SLACK) / self.grain).astype(np.int64)]
            self.group = np.zeros(self.a.size, dtype=np.int64)
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

    def cells(self) -> int:
        """Table cells of one `tables` call (its memory is twice this in float64)."""
        return self.starts.size * sum(c + 1 for c in self.cmax)

    def seconds(self) -> float:
        """Estimate of one `tables` call: one pass over a table row per job."""
        return TABLE_CELL * self.instance.n * sum(c + 1 for c in self.cmax)

    def tables(self, v: np.ndarray) -> list[_Table]:
        """The knapsack tables g_h, f_{h-1} of every profile for per-job values v (sorted
        positions, >= 0, non-decreasing within each class)."""
        if np.any(v < 0) or np.any(np.diff(v)[np.diff(self.cls) == 0] < 0):
            raise ValueError("values: must be >= 0 and non-decreasing within each class")
        out = []
        L = self.starts.size
        for prof, C in zip(self.profiles, self.cmax, strict=True):
            f = np.zeros(C + 1)
            G = np.empty((L, C + 1))
            prev = np.empty((L, C + 1))
            prefix = []
            for c in range(L):
                s, n_c = int(self.starts[c]), int(self.count[c])
                prefix.append(np.r_[0, np.cumsum(prof[s:s + n_c])])
                prev[c] = f
                for j in range(s, s + n_c):
                    if j == s + n_c - 1:
                        G[c] = f
                    size = int(prof[j])
                    if size <= C:  # 0/1: the right side is evaluated before the write
                        np.maximum(f[size:], f[:C + 1 - size] + v[j], out=f[size:])
            out.append(_Table(G, prev, prefix))
        return out

    def open_rows(self, lam: int) -> tuple[np.ndarray, np.ndarray]:
        """(rows, w): the intervals open before lam and their windows."""
        rows = np.flatnonzero(self.q < lam)
        return rows, np.minimum(self.a[rows], lam - self.q[rows])

    def price(self, lam: int, v: np.ndarray, tabs: list[_Table]
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(rows, value, head, capacity index): every open interval's bound on its best
        configuration value at lam (0: empty), its head class (-1: empty) and table index."""
        rows, w = self.open_rows(lam)
        L = self.starts.size
        value = np.zeros(rows.size)
        head = np.full(rows.size, -1)
        cap_at = np.zeros(rows.size, dtype=np.int64)
        limit = np.minimum(w // 2, self.prev[rows]) if self.rule else w
        top = v[self.last]  # the head's value: the largest of its class
        for g, tab in enumerate(tabs):
            sel = np.flatnonzero(self.group[rows] == g)
            if sel.size == 0:
                continue
            r = rows[sel]
            hs = np.broadcast_to(np.arange(L), (sel.size, L))
            cap = self._capacity(np.repeat(r, L), np.repeat(w[sel], L), hs.ravel()).reshape(-1, L)
            ok = (self.head[self.mi[r]] <= limit[sel, None]) & (cap >= 0)
            vals = np.where(ok, top[None, :] + tab.G[hs, np.clip(cap, 0, None)], -np.inf)
            best = vals.argmax(axis=1)
            bv = vals[np.arange(sel.size), best]
            take = bv > 0
            value[sel[take]] = bv[take]
            head[sel[take]] = best[take]
            cap_at[sel[take]] = cap[np.arange(sel.size), best][take]
        return rows, value, head, cap_at

    def ratio(self, lam: int, v: np.ndarray, tabs: list[_Table] | None = None) -> float:
        """F_lam(v) / G(v) (the Farley value: > the configuration LP's rho at lam)."""
        tabs = self.tables(v) if tabs is None else tabs
        _, value, _, _ = self.price(lam, v, tabs)
        return float(value.sum()) / float(v.sum())

    def certifies(self, lam: int, v: np.ndarray, tabs: list[_Table] | None = None) -> bool:
        """F_lam(v) < G(v) with the margin: no schedule has horizon lam."""
        tabs = self.tables(v) if tabs is None else tabs
        _, value, _, _ = self.price(lam, v, tabs)
        return float(value.sum()) < float(v.sum()) * (1 - CERT_MARGIN)

    def configuration(self, tab: _Table, y: np.ndarray, h: int, cap: int) -> np.ndarray:
        """The count vector of a best configuration with head class h and table index cap,
        for values y constant in each class (y: one per class; `tab` computed with them)."""
        out = np.zeros(self.starts.size, dtype=np.int64)
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
    """The restricted master LP (max rho) over the columns found so far, each class row with
    a penalised slack (its cost bounds the class's dual: box stabilisation)."""

    def __init__(self, rel: ConfigRelaxation, seconds: float | None) -> None:
        import highspy

        self.rel = rel
        self.h = new_highs({"solver": "simplex"}, seconds=seconds)
        inf = highspy.kHighsInf
        L = rel.starts.size
        self.L, self.K = L, rel.a.size
        n = float(rel.count.sum())
        self.n = n
        # rho: column 0, cost -1 (HiGHS minimises); rows (1/n)(sum s_c x + sigma_c - rho n_c)
        self.h.addVar(0.0, inf)
        self.h.changeColCost(0, -1.0)
        self.h.addRows(L, np.zeros(L), np.full(L, inf), L, np.arange(L, dtype=np.int32),
                       np.zeros(L, dtype=np.int32), -rel.count / n)
        self.h.addRows(self.K, np.full(self.K, -inf), np.ones(self.K), 0,
                       np.zeros(self.K, dtype=np.int32), np.zeros(0, dtype=np.int32),
                       np.zeros(0))
        for c in range(L):  # sigma_c: columns 1..L
            self.h.addCol(0.0, 0.0, inf, 1, np.asarray([c], np.int32), np.asarray([1.0 / n]))
        self.seen: set[tuple[int, bytes]] = set()

    def box(self, pi: np.ndarray) -> None:
        """Per-job dual of class c at most pi_c."""
        self.h.changeColsCost(self.L, np.arange(1, self.L + 1, dtype=np.int32),
                              np.asarray(pi, dtype=np.float64))

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

    def solve(self) -> tuple[float, np.ndarray] | None:
        """(rho, y): the master's value and class duals (per job of the class); None when
        HiGHS does not finish."""
        if run_highs(self.h).status is not Status.OPTIMAL:
            return None
        rho = -self.h.getInfo().objective_function_value
        dual = np.abs(np.asarray(self.h.getSolution().row_dual))
        return rho, dual[: self.L] / self.n


def _by_class(rel: ConfigRelaxation, v: np.ndarray) -> np.ndarray:
    """Class means of per-job values (one per class)."""
    return np.add.reduceat(v, rel.starts) / rel.count


def column_generation(rel: ConfigRelaxation, lam: int, master: _Master, v0: np.ndarray,
                      rounds: int = MAX_ROUNDS, deadline: Deadline | None = None,
                      log: list | None = None, converge: bool = False,
                      alpha: float = SMOOTHING, box: float = BOX) -> np.ndarray | None:
    """Per-job values that certify lam, None when none was found (the master became
    feasible, no column priced out, rounds ran out or the deadline passed). Tries v0, then
    prices the master's duals smoothed towards the best values so far (Wentges), the duals
    boxed by `box` times them. With `converge`, goes on until the master's value meets the
    best Farley value (both logged)."""
    left = deadline.remaining if deadline is not None else (lambda: np.inf)
    if rel.seconds() > left():
        return None
    best = v0 / v0.sum()
    best_ratio = rel.ratio(lam, best)
    if log is not None:
        log.append((lam, -1, best_ratio, best_ratio, 0.0))
    if best_ratio < 1 - CERT_MARGIN and not converge:
        return best
    y_dual = None
    rho = 0.0
    for it in range(rounds):
        if rel.seconds() > left():
            break
        centre = _by_class(rel, best)
        y = centre if y_dual is None else alpha * centre + (1 - alpha) * y_dual
        y = y / float(y @ rel.count)
        v = y[rel.cls]
        tabs = rel.tables(v)
        rows, value, head, cap = rel.price(lam, v, tabs)
        F = float(value.sum())
        if F < best_ratio:
            best, best_ratio = v, F
        if log is not None:
            log.append((lam, it, F, best_ratio, rho))
        if best_ratio < 1 - CERT_MARGIN and not converge:
            return best
        added = 0
        for r, h, c in zip(rows.tolist(), head.tolist(), cap.tolist(), strict=True):
            if h >= 0:
                added += master.add(r, rel.configuration(tabs[rel.group[r]], y, h, c))
        if added == 0 and y_dual is not None and alpha > 0:
            alpha = 0.0  # a mispricing: price the master's own duals next
            continue
        if added == 0:
            break
        master.box(box * _by_class(rel, best))
        res = master.solve()
        if res is None:
            break
        rho, y_dual = res
        if rho >= 1.0 + 1e-9 and not converge:
            break  # the relaxation holds the jobs at lam
        if not np.any(y_dual > 0) or (converge and best_ratio - rho < 1e-6):
            break
    return best if best_ratio < 1 - CERT_MARGIN else None


def lb_config(instance: DesktopInstance, slack_rule: bool | None = None,
              classes: int = CLASSES, exact: bool | None = None, grain: float = GRAIN,
              start: int | None = None, upper: int | None = None,
              deadline: Deadline | None = None, rounds: int = MAX_ROUNDS,
              weights: dict[int, tuple[np.ndarray, np.ndarray]] | None = None,
              max_cells: int = MAX_CELLS, log: list | None = None) -> int:
    """LB_config (module docstring): the largest lambda + 1 some weights prove infeasible,
    never below `start` (a bound the caller proved; default LB_slack, whose last weights are
    the first tried, or those of `weights`, as `lb_slack` fills it). The search stops at
    `upper` (a horizon some allocation reaches) and at `SPAN` above the start (the tables
    cover that far). Tables of more than `max_cells` cells (per-machine ones when they fit,
    else shared ones; `exact` forces one kind) are not built: the answer is then `start`.
    With a `deadline`, each table is computed only when its estimate fits and the master's
    LPs are limited to the time left."""
    rule = instance.slack_rule if slack_rule is None else slack_rule
    warm: dict = {} if weights is None else weights
    if start is None:
        start = lb_slack(instance, slack_rule=rule, upper=upper, weights=warm)
    flat = instance.flat
    hi = min(int((flat["q"] + flat["a"]).max()), start + int(np.ceil(SPAN * start)))
    if upper is not None:
        hi = min(hi, upper)
    if start > hi:
        return start
    starts = warm[max(warm)][0] if warm else None  # the finest grid's classes
    rel = None
    for kind in ((True, False) if exact is None else (exact,)):
        candidate = ConfigRelaxation(instance, rule, classes, kind, grain, hi, starts)
        if candidate.cells() <= max_cells:
            rel = candidate
            break
    if rel is None:
        return start
    v0 = least_by_position(instance)
    if warm:
        v0 = warm[max(warm)][1][rel.cls] * v0  # W_c per reference unit: per job W_c p'_j
    left = deadline.remaining if deadline is not None else (lambda: np.inf)
    if rel.seconds() > left():
        return start
    master = _Master(rel, left() if np.isfinite(left()) else None)
    lo = start
    while lo <= hi and left() > 0:
        t0 = time.perf_counter()
        v = column_generation(rel, lo, master, v0, rounds, deadline=deadline, log=log)
        if v is None or rel.seconds() > left():
            break
        v0 = v
        tabs = rel.tables(v)
        if rel.certifies(hi, v, tabs):
            return hi + 1
        good, bad = lo, hi
        while bad - good > 1:
            mid = (good + bad) // 2
            if rel.certifies(mid, v, tabs):
                good = mid
            else:
                bad = mid
        lo = good + 1
        if log is not None:
            log.append(("bound", lo, time.perf_counter() - t0))
    return lo
