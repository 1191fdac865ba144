"""Exact CP-SAT models of the rigid-job family (spec 002 §1.3, §7, §11.2).

Three models, all returning `resilsched.solution.Solution`:

* `solve_failure_free` — P|size_j|C_max: one interval per job, one cumulative of capacity P.
  The cumulative is exact for non-contiguous allocation (§1.1): sweeping by start time, the
  processors free at a start are always enough, whichever ones they are.
* `solve_scenario` — the clairvoyant optimum T_OPT(f) for a known failure scenario f (§1.3,
  §11.2): job j runs m_j = f_j + 1 attempts x_{j,1..m_j}, each an interval of length t_j and
  demand p_j, chained start(x_{j,k+1}) >= end(x_{j,k}) (Eq. 3), all attempts in one cumulative
  of capacity P (Eq. 2); minimise C >= end(x_{j,m_j}) (Eq. 1).
* `solve_scenario_merged` — the merged shortcut, one interval of length m_j t_j per job. Its
  optimum is only an UPPER bound on T_OPT(f) (it forbids other jobs from running between two
  attempts of j); see the split-vs-merged counterexample of §11.2.

Times must be integers for CP-SAT: they are multiplied by the LCM of their denominators
(`resilsched.numeric.integer_scale`), and objective and bound are reported back in the
instance's time unit, as a `Fraction` (an `int` when the instance has integer times; a float
when the times had to be rounded). Float
times that have no exact small scale are rounded UP to the capped scale: a schedule of the
rounded instance, run with the true (shorter or equal) durations, is still feasible, so the
objective reported is the true makespan of a real schedule, the bound is the paper's L(f)
only, and the status is at best FEASIBLE (``exact_scaling=False``).

The strengthened model (`strengthen=True`, default) first takes out the jobs that fit beside
no other job (`split_isolated`: they run alone, back to back at time 0, an exact reduction),
then adds constraints that remove no optimal value (each proven in its docstring, and checked
against brute force in tests/rigid):

* `add_conflict_cliques_no_overlap` — jobs with pairwise p_i + p_j > P never overlap (§7);
* `add_forbidden_set_clauses` — ordering literals and one clause per minimal forbidden set of
  at most 3 jobs (some pair of its attempts must be disjoint);
* `add_symmetry_breaking` — attempts of jobs with equal (p, t) are ordered column by column;
* `lower_bound_scaled` — C >= max(L(f), clique chains, dual-feasible-function energy bounds,
  the configuration LP (`configuration_lp_bound`)),
  the lower end of C's domain;
* a hint and a horizon from a greedy list schedule, and a tight domain for every start.

When CP-SAT stops without a proof, the rest of the time limit (``refute_share``) goes to the
exact branch and bound of `resilsched.models.rigid_refute`, which refutes C <= T for T = bound,
bound + 1, ... and so raises the proven bound (decision R7).
"""

from __future__ import annotations

import functools
import itertools
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import highspy
import numpy as np
from ortools.sat.python import cp_model

from resilsched.errors import InvalidInstance
from resilsched.instances.failures import Scenario
from resilsched.instances.rigid import RigidInstance
from resilsched.numeric import integer_scale
from resilsched.schedule import Attempt, Schedule, SchedulePayload
from resilsched.solution import Solution, Status

SOLVER = "cp-sat"  # "cp-sat+refute" when the refutation search of decision R7 ran too

#: Largest time scale tried for float instances before rounding (see the module docstring).
MAX_SCALE = 10**6

#: Share of the time limit kept for the refutation search after CP-SAT (decision R7).
REFUTE_SHARE = 0.75


# ---------------------------------------------------------------------------------------------
# Data: the scenario in integer time units
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ScaledScenario:
    """A rigid instance under scenario f with times multiplied by `scale` (§11.2).

    Attributes
    ----------
    P : processors.
    p : p_j per job.
    t : scaled integer attempt length per job (rounded up when `exact` is False).
    m : number of attempts m_j = f_j + 1 per job (1 for the failure-free and merged models).
    scale : the integer factor applied to the instance's times.
    exact : False when some t_j had to be rounded.
    """

    P: int
    p: tuple[int, ...]
    t: tuple[int, ...]
    m: tuple[int, ...]
    scale: int
    exact: bool

    @property
    def n(self) -> int:
        return len(self.p)

    def trivial_lower_bound(self) -> int:
        """ceil(L(f)) in scaled units (§1.3, §7).

        max(max_j m_j t_j, ceil(sum_j m_j p_j t_j / P)).
        """
        chain = max(mj * tj for mj, tj in zip(self.m, self.t, strict=True))
        area = sum(mj * pj * tj for mj, pj, tj in zip(self.m, self.p, self.t, strict=True))
        return max(chain, -(-area // self.P))


def scale_scenario(
    instance: RigidInstance, scenario: Scenario, merged: bool = False, max_scale: int = MAX_SCALE
) -> ScaledScenario:
    """Scale the times of `instance` to integers under `scenario` (§11.2 "Times must be integers").

    With ``merged=True`` each job becomes one interval of length m_j t_j (`solve_scenario_merged`).
    """
    f = scenario.failures
    if len(f) != instance.n:
        raise InvalidInstance("failures",
                              f"has {len(f)} entries but the instance has {instance.n} jobs")
    scale, exact = integer_scale(instance.t, max_scale=max_scale)
    if not exact:
        scale = max_scale  # round on the finest grid allowed, never on a coarse exact LCM
    ts = []
    for tj in instance.t:
        if exact:
            v = tj if isinstance(tj, (int, Fraction)) else Fraction(tj).limit_denominator(max_scale)
            ts.append(int(v * scale))
        else:
            # round the exact binary value up: the real attempt never outlasts its model
            ts.append(max(1, math.ceil(Fraction(tj) * scale)))
    m = [fj + 1 for fj in f]
    if merged:
        ts = [mj * tj for mj, tj in zip(m, ts, strict=True)]
        m = [1] * len(m)
    return ScaledScenario(instance.P, tuple(instance.p), tuple(ts), tuple(m), scale, exact)


# ---------------------------------------------------------------------------------------------
# Upper bound: a greedy list schedule (hint and horizon)
# ---------------------------------------------------------------------------------------------
def _list_schedule(data: ScaledScenario, key: Sequence[Any]) -> list[list[int]]:
    """Greedy list scheduling of the attempt chains (R-LIST-0 style, spec 002 §4).

    At every event (time 0 and each attempt end) the ready jobs, in increasing `key`, start
    their next attempt when it fits in the free processors. Returns the start times per job.
    """
    n = data.n
    starts: list[list[int]] = [[] for _ in range(n)]
    ready = [0] * n
    running: list[tuple[int, int]] = []  # (end, job)
    order = sorted(range(n), key=lambda j: (key[j], j))
    now = 0
    left = sum(data.m)
    while left:
        running = [(e, j) for e, j in running if e > now]
        free = data.P - sum(data.p[j] for _, j in running)
        busy = {j for _, j in running}
        for j in order:
            startable = j not in busy and ready[j] <= now and data.p[j] <= free
            if startable and len(starts[j]) < data.m[j]:
                starts[j].append(now)
                ready[j] = now + data.t[j]
                running.append((ready[j], j))
                free -= data.p[j]
                left -= 1
        if left:
            now = min(e for e, _ in running)
    return starts


def greedy_upper_bound(data: ScaledScenario) -> tuple[int, list[list[int]]]:
    """Best of a few greedy list schedules: (makespan, starts) in scaled units.

    Priorities tried: longest remaining chain m_j t_j, LPT (t_j), largest area, widest p_j.
    """
    keys = [
        [-(data.m[j] * data.t[j]) for j in range(data.n)],
        [-data.t[j] for j in range(data.n)],
        [-(data.m[j] * data.t[j] * data.p[j]) for j in range(data.n)],
        [-data.p[j] for j in range(data.n)],
    ]
    best: tuple[int, list[list[int]]] | None = None
    for key in keys:
        starts = _list_schedule(data, key)
        mk = max(s[-1] + data.t[j] for j, s in enumerate(starts))
        if best is None or mk < best[0]:
            best = (mk, starts)
    assert best is not None
    return best


# ---------------------------------------------------------------------------------------------
# Lower bounds (constants)
# ---------------------------------------------------------------------------------------------
def conflict_cliques(p: Sequence[int], P: int) -> list[list[int]]:
    """Maximal sets of jobs with pairwise p_i + p_j > P (spec 002 §7, "[INFERRED] chain").

    A set is such a clique iff its two narrowest members already sum to more than P. So every
    maximal clique is W = {j : p_j > P/2} extended by at most one job k with p_k <= P/2, namely
    C_k = {k} u {j : p_j > P - p_k}; the list holds W and each C_k not contained in another,
    only those with at least two jobs.
    """
    n = len(p)
    wide = [j for j in range(n) if 2 * p[j] > P]
    cands = [wide]
    for k in range(n):
        if 2 * p[k] <= P:
            others = [j for j in range(n) if j != k and p[j] + p[k] > P]
            cands.append(sorted([k, *others]))
    sets = {tuple(c) for c in cands if len(c) >= 2}
    maximal = [list(c) for c in sets if not any(set(c) < set(d) for d in sets)]
    return sorted(maximal)


def clique_chain_bound(data: ScaledScenario) -> int:
    """max over conflict cliques K of sum_{j in K} m_j t_j (§7 LB_big, generalised to cliques).

    Jobs of a clique never run at the same time, so their attempts are processed one by one.
    """
    best = 0
    for clique in conflict_cliques(data.p, data.P):
        best = max(best, sum(data.m[j] * data.t[j] for j in clique))
    return best


def dff_functions(P: int) -> list[Callable[[int], Fraction]]:
    """Dual-feasible functions u: {0..P} -> Q+ (sum_i p_i <= P implies sum_i u(p_i) <= u(P)),
    the two classical families of Fekete and Schepers (2001), for every parameter:

    * u_eps(x) = P if x > P - eps, 0 if x < eps, x otherwise, for 1 <= eps <= P/2;
    * u^(k)(x) = x if (k+1) x / P is an integer, else floor((k+1) x / P) P / k, for k = 1..P.
    """

    def u_eps(x: int, e: int) -> Fraction:
        return Fraction(P if x > P - e else (0 if x < e else x))

    def u_k(x: int, k: int) -> Fraction:
        if ((k + 1) * x) % P == 0:
            return Fraction(x)
        return Fraction(((k + 1) * x) // P * P, k)

    out: list[Callable[[int], Fraction]] = []
    out += [functools.partial(u_eps, e=eps) for eps in range(1, P // 2 + 1)]
    out += [functools.partial(u_k, k=k) for k in range(1, P + 1)]
    return out


def dff_energy_bound(data: ScaledScenario) -> int:
    """Energy bound with dual-feasible functions: ceil(sum_j m_j t_j u(p_j) / u(P)) [OURS].

    At every instant the running jobs use at most P processors, so for a dual-feasible u
    (`dff_functions`) sum_j u(p_j) x (time j runs) <= u(P) x C; integrating gives
    C >= sum_j m_j t_j u(p_j) / u(P). With u = identity this is the area bound of Eq. (6).
    """
    P = data.P
    work = [(data.m[j] * data.t[j], data.p[j]) for j in range(data.n)]
    best = 0
    for u in dff_functions(P):
        num = sum(Fraction(d) * u(x) for d, x in work)
        den = u(P)
        if den > 0:
            best = max(best, math.ceil(num / den))
    return best


def _knapsack(weights: Sequence[int], values: Sequence[Any], capacity: int
              ) -> tuple[Any, list[int]]:
    """max sum_{j in K} values_j s.t. sum_{j in K} weights_j <= capacity (0/1 DP over the
    capacity); returns (max, K). Exact (int64) for integer values, float otherwise."""
    n = len(weights)
    is_int = all(isinstance(v, (int, np.integer)) for v in values)
    best = np.zeros(capacity + 1, dtype=np.int64 if is_int else float)
    take = np.zeros((n, capacity + 1), dtype=bool)
    for j in range(n):
        w, v = int(weights[j]), values[j]
        if v <= 0 or w > capacity:
            continue
        cand = best[: capacity + 1 - w] + v
        better = cand > best[w:]
        take[j, w:] = better
        best[w:] = np.where(better, cand, best[w:])
    chosen, c = [], capacity
    for j in range(n - 1, -1, -1):
        if take[j, c]:
            chosen.append(j)
            c -= int(weights[j])
    value = best[capacity]
    return (int(value) if is_int else float(value)), sorted(chosen)


class ConfigurationLP:
    """The configuration LP of `configuration_lp_bound` for a fixed (p, P) [OURS].

    ``duals(w)`` solves min sum_K y_K s.t. sum_{K ni j} y_K >= w_j, y >= 0, over the sets K of
    jobs with sum_{j in K} p_j <= P, by column generation (HiGHS LP, knapsack pricing), and
    returns its duals pi >= 0. The columns and the HiGHS basis are kept between calls, so
    re-solving for a nearby w (the remaining work of a search node, `rigid_refute`) is cheap.
    ``certificate(pi)`` turns any pi into an exact integer cut (see `configuration_lp_bound`).
    """

    def __init__(self, p: Sequence[int], P: int, max_rounds: int = 500) -> None:
        self.p, self.P, self.max_rounds = list(p), P, max_rounds
        n = len(self.p)
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("threads", 1)
        h.addRows(n, np.zeros(n), np.full(n, highspy.kHighsInf), 0,
                  np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0))
        self.highs = h
        self.seen: set[tuple[int, ...]] = set()
        for j in range(n):
            self._add([j])

    def _add(self, config: list[int]) -> None:
        self.seen.add(tuple(config))
        self.highs.addCol(1.0, 0.0, highspy.kHighsInf, len(config),
                          np.array(config, np.int32), np.ones(len(config)))

    def duals(self, w: Sequence[float]) -> np.ndarray:
        """Optimal duals pi (floats, >= 0) of the LP with work vector `w`."""
        h = self.highs
        for j, wj in enumerate(w):
            h.changeRowBounds(j, float(wj), highspy.kHighsInf)
        pi = np.zeros(len(self.p))
        for _ in range(self.max_rounds):
            h.run()
            pi = np.maximum(0.0, np.array(h.getSolution().row_dual))
            z, config = _knapsack(self.p, list(pi), self.P)
            if z <= 1 + 1e-9 or tuple(config) in self.seen:
                break
            self._add(config)
        return pi

    def certificate(self, pi: Sequence[float]) -> tuple[list[int], int]:
        """(pi_int, z): pi rounded down to integers (x 2^20) and z = max_K sum_{j in K} pi_int_j
        (exact knapsack). sum_j pi_int_j x_j <= z holds at every instant of every schedule,
        x_j = 1 while job j runs; so remaining work d needs time >= sum pi_int d / z."""
        ints = [int(math.floor(x * 2**20)) for x in pi]
        z, _ = _knapsack(self.p, ints, self.P)
        return ints, int(z)


def configuration_lp_bound(data: ScaledScenario, max_rounds: int = 500) -> int:
    """Preemptive configuration-LP bound [OURS]; exact integer certificate.

    With w_j = m_j t_j: min sum_K y_K s.t. sum_{K ni j} y_K >= w_j, y >= 0, over the sets K of
    jobs with sum_{j in K} p_j <= P. Valid: cut any schedule at its events; between two events
    the running attempts form such a set (capacity, Eq. 2) holding each job at most once (its
    attempts are chained, Eq. 3), and job j runs w_j in total, so C >= sum_K y_K. It dominates
    L(f) and the clique chains (a set holds at most one job of a conflict clique) and, unlike
    them, sees jobs that compete for the same spare capacity beside a long chain.

    Solved by column generation (`ConfigurationLP`: HiGHS LP, knapsack pricing). The bound
    returned does not trust floating point: for ANY pi >= 0, scaling pi by 1 / z(pi) with
    z(pi) = max_K sum_{j in K} pi_j gives a dual-feasible point, so C >= sum_j w_j pi_j / z(pi).
    It is evaluated with pi rounded down to integers (pi * 2^20) and an exact integer knapsack.
    """
    if data.n == 0:
        return 0
    w = [data.m[j] * data.t[j] for j in range(data.n)]
    lp = ConfigurationLP(data.p, data.P, max_rounds)
    ints, z_int = lp.certificate(lp.duals(w))
    if z_int <= 0:
        return 0
    num = sum(wj * pj for wj, pj in zip(w, ints, strict=True))
    return -(-num // z_int)


def lower_bound_scaled(data: ScaledScenario, strengthen: bool = True) -> int:
    """Proven lower bound on the scaled optimum: ceil(L(f)), and with `strengthen` the clique
    chain, dual-feasible-function and configuration-LP bounds."""
    lb = data.trivial_lower_bound()
    if strengthen:
        lb = max(lb, clique_chain_bound(data), dff_energy_bound(data),
                 configuration_lp_bound(data))
    return lb


# ---------------------------------------------------------------------------------------------
# Reduction: jobs that always run alone
# ---------------------------------------------------------------------------------------------
def isolated_jobs(p: Sequence[int], P: int) -> list[int]:
    """Jobs j with p_j + p_k > P for every other job k: they fit beside no job [OURS]."""
    if len(p) < 2:
        return []
    order = sorted(range(len(p)), key=lambda j: p[j])
    narrowest, second = order[0], order[1]
    return [j for j in range(len(p))
            if p[j] + p[second if j == narrowest else narrowest] > P]


def split_isolated(data: ScaledScenario, isolated: Sequence[int]
                   ) -> tuple[ScaledScenario, list[int]]:
    """The scenario without the `isolated` jobs, and the kept job indices (decision R6).

    Exact reduction: T_OPT(f) = T_OPT(rest) + sum_{j isolated} m_j t_j. No attempt of an
    isolated job overlaps any other attempt (capacity, Eq. 2; chain, Eq. 3), so cutting each of
    them out of an optimal schedule and shifting what follows left by t_j keeps every
    constraint of the rest; conversely the rest's schedule delayed by that sum, after the
    isolated attempts run back to back from 0, is feasible (`place_isolated`).
    """
    gone = set(isolated)
    kept = [j for j in range(data.n) if j not in gone]
    rest = ScaledScenario(data.P, tuple(data.p[j] for j in kept), tuple(data.t[j] for j in kept),
                          tuple(data.m[j] for j in kept), data.scale, data.exact)
    return rest, kept


def compress_starts(data: ScaledScenario, starts: list[list[int]], isolated: Sequence[int]
                    ) -> list[list[int]]:
    """A schedule of `data` restricted to the kept jobs with the isolated attempts cut out:
    each start moves left by the length of the isolated attempts that end by it."""
    ends = [(s + data.t[j], data.t[j]) for j in isolated for s in starts[j]]

    def shift(x: int) -> int:
        return sum(length for end, length in ends if end <= x)

    gone = set(isolated)
    return [[s - shift(s) for s in starts[j]] for j in range(data.n) if j not in gone]


def place_isolated(data: ScaledScenario, isolated: Sequence[int], kept: Sequence[int],
                   rest_starts: list[list[int]]) -> list[list[int]]:
    """Full start times: isolated attempts back to back from 0, then the rest's schedule."""
    starts: list[list[int]] = [[] for _ in range(data.n)]
    now = 0
    for j in isolated:
        for _ in range(data.m[j]):
            starts[j].append(now)
            now += data.t[j]
    for j, row in zip(kept, rest_starts, strict=True):
        starts[j] = [s + now for s in row]
    return starts


# ---------------------------------------------------------------------------------------------
# Model builders
# ---------------------------------------------------------------------------------------------
@dataclass
class AttemptVars:
    """CP-SAT variables: ``start[j][k]``, ``interval[j][k]`` for attempt k of job j, and C."""

    start: list[list[cp_model.IntVar]]
    interval: list[list[cp_model.IntervalVar]]
    makespan: cp_model.IntVar


def add_attempt_intervals(
    model: cp_model.CpModel, data: ScaledScenario, horizon: int, lower: int
) -> AttemptVars:
    """One fixed-length interval per attempt x_{j,k} (length t_j, §11.2), and C in [lower, horizon].

    Domains are tight but valid: attempt k (0-based) of job j cannot start before k t_j (its
    predecessors run before it) nor after horizon - (m_j - k) t_j (it and its successors must
    end by the horizon, an upper bound on the optimum).
    """
    start, interval = [], []
    for j in range(data.n):
        tj, mj = data.t[j], data.m[j]
        sj, ij = [], []
        for k in range(mj):
            s = model.new_int_var(k * tj, horizon - (mj - k) * tj, f"s_{j}_{k}")
            sj.append(s)
            ij.append(model.new_fixed_size_interval_var(s, tj, f"x_{j}_{k}"))
        start.append(sj)
        interval.append(ij)
    makespan = model.new_int_var(lower, horizon, "C")
    return AttemptVars(start, interval, makespan)


def add_attempt_chains(model: cp_model.CpModel, data: ScaledScenario, v: AttemptVars) -> None:
    """Eq. (3) of §1.3: start(x_{j,k+1}) >= end(x_{j,k}); attempts of a job run one by one."""
    for j in range(data.n):
        for k in range(data.m[j] - 1):
            model.add(v.start[j][k + 1] >= v.start[j][k] + data.t[j])


def add_capacity(model: cp_model.CpModel, data: ScaledScenario, v: AttemptVars) -> None:
    """Eq. (2) of §1.3: one cumulative of capacity P over all attempts, demand p_j.

    Exact for non-contiguous allocation (§1.1, §11.2).
    """
    intervals = [iv for row in v.interval for iv in row]
    demands = [data.p[j] for j in range(data.n) for _ in range(data.m[j])]
    model.add_cumulative(intervals, demands, data.P)


def add_makespan(model: cp_model.CpModel, data: ScaledScenario, v: AttemptVars) -> None:
    """Eq. (1) of §1.3: C >= end of the last (successful) attempt of every job; minimise C."""
    for j in range(data.n):
        model.add(v.makespan >= v.start[j][-1] + data.t[j])
    model.minimize(v.makespan)


def add_conflict_cliques_no_overlap(
    model: cp_model.CpModel, data: ScaledScenario, v: AttemptVars
) -> list[list[int]]:
    """Redundant NoOverlap over all attempts of each conflict clique (spec 002 §7, §11.2).

    Two attempts of jobs with p_i + p_j > P cannot overlap under the capacity (Eq. 2), and two
    attempts of the same job cannot overlap under the chain (Eq. 3); so the disjunction holds in
    every feasible schedule and removes none. Includes the wide jobs p_j > P/2 of §11.2
    (`add_wide_jobs_no_overlap` is the special case). Returns the cliques used.
    """
    cliques = conflict_cliques(data.p, data.P)
    for clique in cliques:
        model.add_no_overlap([iv for j in clique for iv in v.interval[j]])
    return cliques


def add_wide_jobs_no_overlap(model: cp_model.CpModel, data: ScaledScenario, v: AttemptVars) -> None:
    """NoOverlap over the attempts of the jobs with p_j > P/2, as named in §11.2.

    Not used by `build_model`: `add_conflict_cliques_no_overlap` adds it (W is one of the
    cliques) together with the other maximal cliques.
    """
    wide = [iv for j in range(data.n) if 2 * data.p[j] > data.P for iv in v.interval[j]]
    if len(wide) >= 2:
        model.add_no_overlap(wide)


def minimal_forbidden_sets(p: Sequence[int], P: int, max_size: int) -> list[tuple[int, ...]]:
    """Sets S of jobs, |S| <= max_size, with sum p > P but sum p - min p <= P (minimal).

    Removing any member of a minimal set brings it within capacity; pairs are the conflict
    pairs of `conflict_cliques`.
    """
    n = len(p)
    out: list[tuple[int, ...]] = []
    for size in range(2, max_size + 1):
        for S in itertools.combinations(range(n), size):
            widths = [p[j] for j in S]
            total = sum(widths)
            if total > P and total - min(widths) <= P:
                out.append(S)
    return out


def add_forbidden_set_clauses(
    model: cp_model.CpModel, data: ScaledScenario, v: AttemptVars, max_size: int = 3,
    max_clauses: int = 20000,
) -> int:
    """Redundant precedence literals and minimal-forbidden-set clauses [OURS], after the
    forbidden-set view of the capacity constraint (Eq. 2 of §1.3).

    For attempts a, b of different jobs a literal before(a, b) => end(a) <= start(b). For every
    minimal forbidden set S of jobs (sum p > P, |S| <= `max_size`) and every choice of one
    attempt per job of S, the clause "some pair of these attempts is ordered" is added.

    Why no schedule is lost: if the chosen attempts pairwise overlapped, intervals having the
    Helly property, they would share an instant where they use sum_S p > P processors. So some
    pair is disjoint, and setting every before(a, b) to "a ends before b starts" satisfies all
    clauses. The clauses let CP-SAT learn conflicts on orderings (as in disjunctive scheduling),
    which the cumulative alone does not. Stops adding clauses after `max_clauses` (the model
    stays valid, only weaker). Returns the number of clauses.
    """
    before: dict[tuple[tuple[int, int], tuple[int, int]], cp_model.IntVar] = {}

    def lit(a: tuple[int, int], b: tuple[int, int]) -> cp_model.IntVar:
        if (a, b) not in before:
            x = model.new_bool_var(f"before_{a[0]}_{a[1]}_{b[0]}_{b[1]}")
            model.add(v.start[a[0]][a[1]] + data.t[a[0]] <= v.start[b[0]][b[1]]).only_enforce_if(x)
            before[(a, b)] = x
        return before[(a, b)]

    count = 0
    for S in minimal_forbidden_sets(data.p, data.P, max_size):
        for ks in itertools.product(*[range(data.m[j]) for j in S]):
            if count >= max_clauses:
                return count
            atts = list(zip(S, ks, strict=True))
            lits = []
            for a, b in itertools.combinations(atts, 2):
                lits += [lit(a, b), lit(b, a)]
            model.add_bool_or(lits)
            count += 1
    return count


def symmetry_classes(data: ScaledScenario) -> list[list[int]]:
    """Jobs grouped by equal (p_j, t_j), each group sorted by (m_j, j); groups of size >= 2."""
    groups: dict[tuple[int, int], list[int]] = {}
    for j in range(data.n):
        groups.setdefault((data.p[j], data.t[j]), []).append(j)
    return [sorted(g, key=lambda j: (data.m[j], j)) for g in groups.values() if len(g) >= 2]


def add_symmetry_breaking(model: cp_model.CpModel, data: ScaledScenario, v: AttemptVars) -> int:
    """Order the attempts of jobs with equal (p, t), aligned on their last attempts [OURS].

    For consecutive jobs a, b of a class (m_a <= m_b, d = m_b - m_a) impose
    start(x_{a,k}) <= start(x_{b,d+k}) for k = 1..m_a.

    Why no optimal value is lost: number the attempts of each job from its last one backwards;
    "column" c holds the c-th last attempt of every job of the class that has one, and the jobs
    present in column c+1 are a top segment (largest m) of those in column c. Re-assign, in
    every column, the start times in increasing order to the jobs in class order. The multiset
    of intervals (all of length t and width p) is unchanged, so capacity and makespan are too.
    Chains survive: the r-th job of column c+1 is the (r + delta)-th job of column c, and the
    (r + delta)-th smallest value of column c is at least the r-th smallest among the column-c
    values of column c+1's jobs, each >= that job's column-(c+1) value + t. The re-assigned
    schedule meets every constraint added here. Returns the number of constraints added.
    """
    count = 0
    for cls in symmetry_classes(data):
        for a, b in zip(cls, cls[1:], strict=False):
            d = data.m[b] - data.m[a]
            for k in range(data.m[a]):
                model.add(v.start[a][k] <= v.start[b][d + k])
                count += 1
    return count


def canonical_starts(data: ScaledScenario, starts: list[list[int]]) -> list[list[int]]:
    """The column-sorted schedule of `add_symmetry_breaking` (used to make the hint satisfy it)."""
    out = [list(s) for s in starts]
    for cls in symmetry_classes(data):
        longest = max(data.m[j] for j in cls)
        for c in range(1, longest + 1):  # c-th last attempt
            members = [j for j in cls if data.m[j] >= c]
            values = sorted(out[j][data.m[j] - c] for j in members)
            for j, val in zip(members, values, strict=True):
                out[j][data.m[j] - c] = val
    return out


def add_hint(
    model: cp_model.CpModel, data: ScaledScenario, v: AttemptVars, starts: list[list[int]]
) -> None:
    """Solution hint: the start times of a feasible schedule (the greedy one by default)."""
    for j in range(data.n):
        for k in range(data.m[j]):
            model.add_hint(v.start[j][k], starts[j][k])
    model.add_hint(v.makespan, max(s[-1] + data.t[j] for j, s in enumerate(starts)))


@dataclass
class BuiltModel:
    """A CP-SAT model with its variables and the facts needed to report the result."""

    model: cp_model.CpModel
    vars: AttemptVars
    lower: int
    horizon: int
    greedy: list[list[int]]


def build_model(
    data: ScaledScenario, strengthen: bool = True, hint: list[list[int]] | None = None,
    forbidden_set_size: int = 3,
) -> BuiltModel:
    """Assemble the attempt model of §11.2 (plain) or with the redundant constraints."""
    horizon, greedy = greedy_upper_bound(data)
    if hint is not None:
        mk = max(s[-1] + data.t[j] for j, s in enumerate(hint))
        if mk < horizon:
            horizon, greedy = mk, hint
    lower = lower_bound_scaled(data, strengthen)
    model = cp_model.CpModel()
    v = add_attempt_intervals(model, data, horizon, min(lower, horizon))
    add_attempt_chains(model, data, v)
    add_capacity(model, data, v)
    add_makespan(model, data, v)
    if strengthen:
        add_conflict_cliques_no_overlap(model, data, v)
        add_symmetry_breaking(model, data, v)
        if forbidden_set_size >= 2:
            add_forbidden_set_clauses(model, data, v, forbidden_set_size)
        greedy = canonical_starts(data, greedy)
    add_hint(model, data, v, greedy)
    return BuiltModel(model, v, lower, horizon, greedy)


# ---------------------------------------------------------------------------------------------
# Solve and report
# ---------------------------------------------------------------------------------------------
def _to_time(value: int, data: ScaledScenario, instance: RigidInstance) -> Any:
    """A scaled integer time back in the instance's unit (int, Fraction, or float if rounded)."""
    if not data.exact:
        return value / data.scale
    if data.scale == 1 and all(isinstance(tj, int) for tj in instance.t):
        return int(value)
    return Fraction(value, data.scale)


def _paper_lower_bound(instance: RigidInstance, scenario: Scenario) -> Any:
    """L(f) = max(max_j (f_j+1) t_j, sum_j (f_j+1) p_j t_j / P) in the instance's unit (§1.3)."""
    f = scenario.failures
    chain = max((fj + 1) * tj for fj, tj in zip(f, instance.t, strict=True))
    area = sum((fj + 1) * pj * tj for fj, pj, tj in zip(f, instance.p, instance.t, strict=True))
    exact = all(isinstance(tj, (int, Fraction)) for tj in instance.t)
    return max(chain, Fraction(area) / instance.P if exact else area / instance.P)


def _schedule(
    instance: RigidInstance, scenario: Scenario, data: ScaledScenario, starts: list[list[int]],
    merged: bool,
) -> Schedule:
    """Attempt schedule in the instance's unit; a merged job is split back into its attempts."""
    attempts = []
    f = scenario.failures
    for j in range(instance.n):
        tj = instance.t[j]
        if merged:
            begin = _to_time(starts[j][0], data, instance)
            begins = [begin + k * tj for k in range(f[j] + 1)]
        else:
            begins = [_to_time(s, data, instance) for s in starts[j]]
        for k, s in enumerate(begins):
            attempts.append(Attempt(j, k + 1, s, s + tj, instance.p[j], k < f[j]))
    makespan = max(a.end for a in attempts)
    return Schedule(tuple(attempts), makespan)


def _scaled_hint(data: ScaledScenario, hint: list[list[Any]]) -> list[list[int]]:
    """Check a user hint (start times per job and attempt) and scale it; `InvalidInstance` if it
    is not a feasible schedule of the scenario (a wrong hint would give a wrong horizon)."""
    if len(hint) != data.n or any(len(row) != data.m[j] for j, row in enumerate(hint)):
        raise InvalidInstance("hint", "needs f_j + 1 start times for every job j")
    starts = []
    for j, row in enumerate(hint):
        scaled = [Fraction(s) * data.scale for s in row]
        if any(s.denominator != 1 or s < 0 for s in scaled):
            raise InvalidInstance(f"hint[{j}]", "start times must be >= 0 on the time grid")
        starts.append([int(s) for s in scaled])
        if any(b < a + data.t[j] for a, b in zip(starts[j], starts[j][1:], strict=False)):
            raise InvalidInstance(f"hint[{j}]", "attempts overlap (Eq. 3)")
    events = sorted((s, data.p[j]) for j in range(data.n) for s in starts[j])
    for s, _ in events:
        used = sum(data.p[j] for j in range(data.n) for a in starts[j] if a <= s < a + data.t[j])
        if used > data.P:
            raise InvalidInstance("hint",
                                  f"uses {used} > P={data.P} processors at {s}/{data.scale}")
    return starts


@dataclass
class ScaledResult:
    """Outcome of `solve_scaled` in scaled integer units.

    ``status`` is "OPTIMAL" when optimality is proven (by CP-SAT, by the refutation search, or
    because the reduction leaves nothing to solve), else CP-SAT's status name ("FEASIBLE",
    "INFEASIBLE", "UNKNOWN", ...); ``starts`` the start times per
    job and attempt (None without a schedule); ``bound`` the proven lower bound; ``lower`` the
    constant root bound and ``horizon`` the greedy (or hinted) upper bound, both of the whole
    scenario; ``isolated`` the jobs taken out by `split_isolated`; ``refuted`` how many
    makespans the refutation search ruled out after CP-SAT; ``cp_sat_status`` CP-SAT's own;
    ``searched`` whether the refutation search ran.
    """

    status: str
    starts: list[list[int]] | None
    objective: int | None
    bound: int
    lower: int
    horizon: int
    isolated: list[int]
    refuted: int = 0
    cp_sat_status: str = ""
    searched: bool = False


def solve_scaled(
    data: ScaledScenario,
    strengthen: bool = True,
    hint: list[list[int]] | None = None,
    time_limit: float = 60.0,
    workers: int = 2,
    forbidden_set_size: int = 3,
    refute_share: float = 0.0,
) -> ScaledResult:
    """Solve the scaled attempt model; with `strengthen`, after `split_isolated`.

    The jobs that fit beside no other job are taken out, the rest is solved by CP-SAT, and the
    schedule is rebuilt with the isolated attempts back to back at time 0 (decision R6):
    objective and bound both grow by their total length, which is exact by `split_isolated`.

    With ``refute_share > 0`` CP-SAT gets (1 - refute_share) of the time, and if it stops
    without a proof the rest goes to `rigid_refute.refute_makespan` on T = bound, bound + 1, ...
    (decision R7): each refuted T raises the bound, a schedule found ends the search as optimal.
    """
    isolated = isolated_jobs(data.p, data.P) if strengthen else []
    rest, kept = split_isolated(data, isolated)
    offset = sum(data.m[j] * data.t[j] for j in isolated)
    rest_hint = None if hint is None else compress_starts(data, hint, isolated)
    if rest.n == 0:
        starts = place_isolated(data, isolated, kept, [])
        return ScaledResult("OPTIMAL", starts, offset, offset, offset, offset, isolated, 0,
                            "NOT_RUN")
    t0 = time.perf_counter()
    share = min(max(float(refute_share), 0.0), 1.0)
    built = build_model(rest, strengthen=strengthen, hint=rest_hint,
                        forbidden_set_size=forbidden_set_size)
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = max(0.0, float(time_limit) * (1.0 - share))
    solver.parameters.num_workers = max(1, int(workers))
    code = solver.solve(built.model)
    lower, horizon = built.lower + offset, built.horizon + offset
    if code in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        status = solver.status_name(code)
        rest_starts = [[solver.value(s) for s in row] for row in built.vars.start]
        objective = int(solver.objective_value)
        bound = max(math.ceil(solver.best_objective_bound - 1e-9), built.lower)
    elif share > 0 and code == cp_model.UNKNOWN:  # no schedule yet: start from the greedy one
        status, rest_starts, objective, bound = "FEASIBLE", built.greedy, built.horizon, built.lower
    else:
        return ScaledResult(solver.status_name(code), None, None, lower, lower, horizon,
                            isolated, 0, solver.status_name(code))
    left = float(time_limit) - (time.perf_counter() - t0)
    refuted, searched = 0, False
    if share > 0 and status != "OPTIMAL":
        from resilsched.models.rigid_refute import refute_makespan  # it imports this module

        while bound < objective and left > 0:
            res = refute_makespan(rest, bound, left)
            searched = True
            left = float(time_limit) - (time.perf_counter() - t0)
            if res.status == "infeasible":
                bound += 1
                refuted += 1
            elif res.status == "feasible" and res.starts is not None:
                rest_starts = res.starts  # ends by `bound`, and every smaller T was refuted
                objective = max(s[-1] + tj for s, tj in zip(rest_starts, rest.t, strict=True))
            else:
                break
        if bound >= objective:
            status = "OPTIMAL"
    return ScaledResult(status, place_isolated(data, isolated, kept, rest_starts),
                        objective + offset, bound + offset, lower, horizon, isolated, refuted,
                        solver.status_name(code), searched)


def _solve(
    instance: RigidInstance,
    scenario: Scenario,
    method: str,
    merged: bool,
    time_limit: float,
    workers: int,
    hint: list[list[Any]] | None,
    strengthen: bool,
    max_scale: int = MAX_SCALE,
    forbidden_set_size: int = 3,
    refute_share: float = 0.0,
) -> Solution:
    t0 = time.perf_counter()
    data = scale_scenario(instance, scenario, merged=merged, max_scale=max_scale)
    int_hint = None
    if hint is not None and data.exact and not merged:
        int_hint = _scaled_hint(data, hint)
    share = refute_share if strengthen and not merged and data.exact else 0.0
    res = solve_scaled(data, strengthen, int_hint, time_limit, workers, forbidden_set_size, share)
    wall = time.perf_counter() - t0

    paper_lb = _paper_lower_bound(instance, scenario)
    info: dict[str, Any] = {
        "lower_bound_scaled": res.lower,
        "horizon_scaled": res.horizon,
        "attempt_intervals": sum(data.m) if not merged else data.n,
        "isolated_jobs": res.isolated,
        "refuted_by_search": res.refuted,
        "strengthened": bool(strengthen),
        "cp_sat_status": res.cp_sat_status,
    }
    if res.starts is None:
        status = Status.INFEASIBLE if res.status == "INFEASIBLE" else Status.NO_SOLUTION
        exact_model = data.exact and not merged
        bound = max(paper_lb, _to_time(res.lower, data, instance)) if exact_model else paper_lb
        return Solution(None, bound, status, method, SOLVER, wall, data.scale, data.exact,
                        {"info": info})
    sched = _schedule(instance, scenario, data, res.starts, merged)
    if data.exact:
        objective = _to_time(res.objective, data, instance)
        bound = _to_time(res.bound, data, instance)
        if bound > objective:  # a wrong "proven" bound: fail loudly rather than report it
            raise RuntimeError(f"lower bound {bound} exceeds the schedule found ({objective})")
        optimal = res.status == "OPTIMAL" and not merged
        status = Status.OPTIMAL if optimal else Status.FEASIBLE
        if merged:
            # The merged optimum is an upper bound on T_OPT(f), not a bound below it.
            bound = paper_lb
    else:
        objective = sched.makespan  # true makespan with the original durations
        bound = paper_lb
        status = Status.FEASIBLE
    payload = SchedulePayload(sched, info)
    solver = SOLVER + "+refute" if res.searched else SOLVER
    return Solution(objective, bound, status, method, solver, wall, data.scale, data.exact,
                    payload)


def solve_scenario(
    instance: RigidInstance,
    scenario: Scenario | Sequence[int] | None = None,
    time_limit: float = 60.0,
    workers: int = 2,
    hint: list[list[Any]] | None = None,
    strengthen: bool = True,
    forbidden_set_size: int = 3,
    refute_share: float = REFUTE_SHARE,
) -> Solution:
    """Clairvoyant optimum T_OPT(f) with one interval per attempt (spec 002 §1.3, §11.2).

    Parameters
    ----------
    instance : the rigid instance.
    scenario : failure counts f (a `Scenario` or a list); default: the instance's stored
        scenario, else failure-free.
    time_limit : total time limit in seconds (CP-SAT, then the refutation search).
    workers : CP-SAT worker threads (keep <= 2 on shared machines).
    hint : optional start times per job and attempt (instance units), used as the hint and
        horizon when better than the built-in greedy schedule.
    strengthen : add the redundant constraints of the module docstring (False gives the plain
        cumulative model of §11.2, kept as a baseline).
    forbidden_set_size : largest minimal forbidden set turned into clauses by
        `add_forbidden_set_clauses` (0 disables them; only used when `strengthen`).
    refute_share : fraction of `time_limit` kept for `rigid_refute.refute_makespan` when CP-SAT
        stops without a proof (decision R7; 0 gives CP-SAT the whole limit; only used when
        `strengthen` and the scaling is exact).

    Returns
    -------
    Solution with ``status`` OPTIMAL only when optimality is proven (by CP-SAT, or by refuting
    every smaller makespan) on an exactly scaled instance, ``bound`` the proven lower bound
    (>= L(f)), ``payload.schedule`` the schedule.
    """
    sc = instance.scenario(scenario)
    return _solve(instance, sc, "cpsat-scenario", False, time_limit, workers, hint, strengthen,
                  forbidden_set_size=forbidden_set_size, refute_share=refute_share)


def solve_failure_free(
    instance: RigidInstance,
    time_limit: float = 60.0,
    workers: int = 2,
    hint: list[list[Any]] | None = None,
    strengthen: bool = True,
) -> Solution:
    """P|size_j|C_max: the failure-free optimum (spec 002 §11.2), one interval per job."""
    sc = Scenario.failure_free(instance.n)
    return _solve(instance, sc, "cpsat-failure-free", False, time_limit, workers, hint, strengthen,
                  refute_share=REFUTE_SHARE)


def solve_scenario_merged(
    instance: RigidInstance,
    scenario: Scenario | Sequence[int] | None = None,
    time_limit: float = 60.0,
    workers: int = 2,
    hint: list[list[Any]] | None = None,
    strengthen: bool = True,
) -> Solution:
    """Merged shortcut: one interval of length (f_j+1) t_j per job (spec 002 §11.2).

    Only an UPPER bound on T_OPT(f): it forces the attempts of a job to run back to back on the
    same processors. Its status is therefore at best FEASIBLE (a schedule of the real problem
    whose optimality is not claimed), and ``bound`` is L(f).
    """
    del hint  # the merged model builds its own greedy hint
    sc = instance.scenario(scenario)
    return _solve(instance, sc, "cpsat-merged", True, time_limit, workers, None,
                  strengthen)
