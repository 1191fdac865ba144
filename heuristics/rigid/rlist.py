"""R-LIST: list scheduling with m reservations and backfilling (spec 002 §4, Algorithm 1).

The registered heuristics are `r_list_0` (R-LIST-0), `r_list_1` (R-LIST-1) and `r_list_q`
(R-LIST-Q); `RList` is their policy for the event engine and `Profile` its availability profile.

At time 0 and after every batch of completions (spec 002 §2), failed jobs go back into the queue Q
at their priority rank and one pass runs (spec 002 §4.3):

- *reservation phase*: each of the first m jobs of Q, in order, gets the earliest start
  ``s >= t`` at which it fits for its whole duration t_j in the availability profile (running
  attempts plus the reservations already placed); a reservation at ``s = t`` is a start;
- *backfilling phase*: every later job of Q that fits now for its whole duration, without
  touching any reservation (A4: profile check over ``[t, t + t_j)``), starts now.

Variants (spec 002 §4.2): m = 0 is GREEDY ("R-LIST-0"; the profile only holds running attempts,
whose usage never increases, so the test is just ``p_j <= free``: every fitting job starts, no
break at the first one that does not fit); m = 1 is EASY-style ("R-LIST-1"); m = "Q" gives every
queued job a reservation, m = |Q| re-evaluated at each pass ("R-LIST-Q", conservative).

Options (ambiguities A2, A3; docs/decisions.md A2, A3, R21):

- ``classic_easy=False`` (default, position-based, as the paper's pseudocode): the top-m queue
  *positions* form the reservation set even if some of them start now. ``True``: keep reserving
  until m jobs hold a *future* reservation (jobs that can start now just start).
- ``reservations`` (A3), the lifetime of a reservation:

  - ``"fresh"`` (default, the paper's analysis, §4.1): all reservations are deleted at each
    event and recomputed from the updated queue;
  - ``"persistent"`` (spec 002 §4.3's reading of [CODE]): reservations survive successful
    completions and are all cancelled when some attempt fails; at each pass the next m jobs
    *without* a reservation get one (against the running attempts plus the surviving
    reservations), so they accumulate. With m = "Q" it coincides with "fresh" (every job holds
    a reservation; with exact run times a recomputed reservation never moves), so it matters
    for R-LIST-1 only. ``persistent_reservations=True`` is its former spelling, still accepted;
  - ``"fixed"`` (the authors' public simulator as issue 14 describes it): a reservation, once
    made, is never cancelled or moved, neither on completions nor on failures (float noise
    aside: R28 below). A pass handles
    the m highest-priority *waiting* jobs (jobs neither running nor reserved; m = |Q|
    recomputed at every pass for R-LIST-Q): each starts now if it fits, else is reserved at the
    first pending event time where it fits, and either way leaves the queue; then every other
    waiting job, in priority order, starts now if it fits. A job fits at time T when, walking
    the pending events (ends add processors, reserved starts take them; completions before
    reserved starts at equal times) from the free count at T up to T + t_j, the free count
    never drops below p_j: exactly the profile test over ``[T, T + t_j)`` with the held
    reservations in the profile. A failed job re-enters the queue at its priority rank and
    waits behind the reservations already made, which is what sets this mode apart from the
    others for R-LIST-Q too.

Each reservation start is the end of a running attempt or of an earlier reservation, i.e. a
future completion, so a job reserved at s is started by the pass at s (in "fixed" mode a
reserved start therefore never needs a pass of its own, as in the authors' simulator). Every
reservation fits for its whole window when it is made, and later starts fit around it, so held
reservations stay feasible whatever fails.

With float times that argument needs transitive equality, which the tolerance is not: a profile
may merge two ends that the event loop does not group with the pass time, and a job started
within the tolerance of its reserved start ends that much off its reserved end (R27, R28). So in
"persistent" and "fixed" modes a held job whose time has come is placed again at its earliest
fit and starts only if it fits now, else it is held at the new fit (with exact times it always
fits now, so no reservation moves), and a pass that would leave nothing running cancels the held
reservations and runs again (with exact times it never happens). In "fixed" mode these two rules
are the only moves and cancellations of a reservation, and only float noise triggers them.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Sequence
from typing import Any, Literal

from resilsched.errors import InvalidInstance
from resilsched.heuristics.engine import (
    Decision,
    EngineState,
    same_time_function,
    time_le_function,
)
from resilsched.heuristics.rigid import compiled
from resilsched.heuristics.rigid.common import Secondary, changed, finish, prepare
from resilsched.heuristics.rigid.fitindex import FitIndex
from resilsched.heuristics.rigid.greedy import greedy_makespan
from resilsched.heuristics.rigid.priorities import PriorityQueue
from resilsched.instances.failures import Scenario
from resilsched.instances.rigid import RigidInstance
from resilsched.numeric import REL_TOL
from resilsched.solution import HeuristicResult

#: Lifetime of a reservation (A3; module docstring).
Reservations = Literal["fresh", "persistent", "fixed"]
RESERVATION_MODES: tuple[str, ...] = ("fresh", "persistent", "fixed")


class Profile:
    """Processor availability on [t, inf) as a step function (spec 002 §4.3, §11.3).

    ``times[0] = t < times[1] < ...`` are breakpoints; ``avail[i]`` free processors on
    ``[times[i], times[i+1])``, the last value holding to infinity. Built from the running
    attempts (``(end, p)`` pairs); `reserve` subtracts a window. Every query is O(K) in the
    number K of breakpoints.

    Comparisons are exact for ``exact=True``; otherwise "x <= y" is taken with the relative
    1e-9 tolerance of `resilsched.numeric.time_le` (inlined: times are non-negative).
    """

    __slots__ = ("times", "avail", "_eps")

    def __init__(self, t: Any, P: int, running: Iterable[tuple[Any, int]],
                 exact: bool | None = None):
        eps = 0 if exact else REL_TOL
        self._eps = eps
        ends = sorted(running, key=lambda e: e[0])
        used = sum(p for _, p in ends)
        times = [t]
        avail = [P - used]
        last = t
        for end, p in ends:
            if end - last <= eps * (end if end > 1 else 1):
                avail[-1] += p
            else:
                times.append(end)
                avail.append(avail[-1] + p)
                last = end
        self.times = times
        self.avail = avail

    @property
    def free_now(self) -> int:
        """Processors free at the current time t (after the windows reserved at t)."""
        return self.avail[0]

    def earliest_fit(self, p: int, dur: Any) -> Any:
        """Earliest ``s >= t`` with ``avail >= p`` on all of ``[s, s + dur)``.

        The candidates are t and the breakpoints where availability rises to >= p; one forward
        sweep keeps the start of the current run of segments with ``avail >= p``.
        """
        times, avail, eps = self.times, self.avail, self._eps
        last = len(times) - 1
        need = None  # end of the window started at the current candidate
        for i in range(last + 1):
            if avail[i] >= p:
                if need is None:
                    start = times[i]
                    need = start + dur
                if i == last:
                    return start
                nxt = times[i + 1]
                if need <= nxt or need - nxt <= eps * (need if need > 1 else 1):
                    return start
            else:
                need = None
        raise InvalidInstance("p", f"{p} exceeds the processors of the platform")

    def fits_now(self, p: int, dur: Any) -> bool:
        """True if ``avail >= p`` on all of ``[t, t + dur)``."""
        times, avail, eps = self.times, self.avail, self._eps
        if avail[0] < p:
            return False
        need = times[0] + dur
        tol = eps * (need if need > 1 else 1)
        last = len(times) - 1
        for i in range(last):
            nxt = times[i + 1]
            if need - nxt <= tol:
                return True
            if avail[i + 1] < p:
                return False
        return True

    def _index(self, x: Any) -> int:
        """Index of breakpoint x, inserting it (with the availability it splits) if absent."""
        times = self.times
        eps = self._eps
        k = bisect_left(times, x)
        if k < len(times):
            y = times[k]
            if y - x <= eps * (y if y > 1 else 1):
                return k
        y = times[k - 1]
        if x - y <= eps * (x if x > 1 else 1):
            return k - 1
        times.insert(k, x)
        self.avail.insert(k, self.avail[k - 1])
        return k

    def reserve(self, start: Any, end: Any, p: int) -> None:
        """Take p processors on ``[start, end)``."""
        a = self._index(start)
        b = self._index(end)
        avail = self.avail
        for i in range(a, b):
            avail[i] -= p


class RList:
    """Policy object of R-LIST for `resilsched.heuristics.engine.run_engine`.

    Parameters
    ----------
    p, t : processors and duration of each job.
    P : processors of the platform.
    queue : the priority queue Q (all jobs at the start). With m = 0 and fixed priorities the
        policy keeps Q in a `FitIndex` from then on and leaves `queue` as it was.
    m : 0, 1 or "Q".
    classic_easy, reservations : see the module docstring (A2, A3);
        ``persistent_reservations=True`` is the former spelling of ``reservations="persistent"``.
    exact : time arithmetic (see `run_engine`).
    """

    def __init__(self, p: Sequence[int], t: Sequence[Any], P: int, queue: PriorityQueue,
                 m: int | str, *, classic_easy: bool = False, reservations: str = "fresh",
                 persistent_reservations: bool = False, exact: bool | None = None):
        if m not in (0, 1, "Q"):
            raise InvalidInstance("m", f"{m!r} must be 0, 1 or 'Q'")
        mode = reservation_mode(reservations, persistent_reservations)
        self.p = p
        self.t = t
        self.P = P
        self.queue = queue
        self.m = m
        self.classic_easy = classic_easy
        self.mode = mode
        self.persistent = mode != "fresh"  # reservations held from one pass to the next
        self.exact = exact
        self.minp = min(p)
        self.reservations: dict[int, Any] = {}  # held reservations: job -> reserved start
        self._same = same_time_function(exact)
        self._le = time_le_function(exact)
        self._fit: FitIndex | None = None
        # GREEDY, and EASY with fresh position-based reservations (the defaults), keep the queue
        # in a `FitIndex` (fixed priorities only): same starts, no scan of the whole queue
        indexed = m == 0 or (m == 1 and not classic_easy and mode == "fresh")
        ranks = queue.fixed_ranks() if indexed else None
        if ranks is not None:
            self._rank = ranks
            self._order = [0] * len(ranks)
            for j, r in enumerate(ranks):
                self._order[r] = j
            widths = [P + 1] * len(ranks)
            for j in queue.items:
                widths[ranks[j]] = p[j]
            self._fit = FitIndex(widths, P + 1)

    # -- engine callbacks ------------------------------------------------------------------
    def on_completions(self, t: Any, completed: list[tuple[int, bool]],
                       state: EngineState) -> None:
        any_failed = False
        for j, failed in completed:
            if failed:
                if self._fit is not None:
                    self._fit.set(self._rank[j], self.p[j])
                else:
                    self.queue.push(j)
                any_failed = True
        if any_failed and self.mode == "persistent":
            self.reservations.clear()  # "fixed" keeps them: never cancelled nor moved

    def decide(self, t: Any, state: EngineState) -> list[Decision]:
        if self.m == 0:
            return self._greedy(state.free)
        if self._fit is not None:
            return self._easy_indexed(t, state)
        return self._reserve_and_backfill(t, state)

    # -- passes ----------------------------------------------------------------------------
    def _greedy(self, free: int) -> list[Decision]:
        """m = 0: start every queued job, in priority order, that fits the free processors
        (by `FitIndex` when the priorities are fixed: the same starts in O(k log n))."""
        if free < self.minp:
            return []
        p, minp = self.p, self.minp
        out: list[Decision] = []
        fit = self._fit
        if fit is not None:
            pos = fit.first_fitting(free)
            while pos >= 0:
                j = self._order[pos]
                out.append((j, p[j]))
                free -= p[j]
                fit.set(pos, self.P + 1)
                pos = fit.first_fitting(free) if free >= minp else -1
            return out
        for j in self.queue.items:
            pj = p[j]
            if pj <= free:
                out.append((j, pj))
                free -= pj
                if free < minp:
                    break
        if out:
            self.queue.keep({j for j, _ in out})
        return out

    def _easy_indexed(self, t: Any, state: EngineState) -> list[Decision]:
        """`_reserve_and_backfill` for m = 1 with fresh position-based reservations, by
        `FitIndex`: the head of Q gets its reservation (a start if it is now), then the
        backfilling visits only the later jobs no wider than the processors free now (the
        others fail `Profile.fits_now` at once), O(log n) each."""
        fit, order, p, dur = self._fit, self._order, self.p, self.t
        assert fit is not None
        head = fit.first_fitting(self.P)  # the first queued job: every width is <= P
        if head < 0:
            return []
        prof = Profile(t, self.P, ((end, q) for _, end, q in state.running.values()), self.exact)
        j = order[head]
        s = prof.earliest_fit(p[j], dur[j])
        prof.reserve(s, s + dur[j], p[j])
        started: list[Decision] = []
        if self._same(s, t):
            started.append((j, p[j]))
            fit.set(head, self.P + 1)
        avail = prof.avail  # updated in place by `reserve`
        pos = fit.next_fitting(avail[0], head + 1)
        while pos >= 0:
            j = order[pos]
            if prof.fits_now(p[j], dur[j]):
                prof.reserve(t, t + dur[j], p[j])
                started.append((j, p[j]))
                fit.set(pos, self.P + 1)
            pos = fit.next_fitting(avail[0], pos + 1)
        return started

    def _reserve_and_backfill(self, t: Any, state: EngineState) -> list[Decision]:
        p, dur = self.p, self.t
        L = self.queue.items
        if not L:
            return []
        prof = Profile(t, self.P, ((end, q) for _, end, q in state.running.values()), self.exact)
        held = self.reservations
        started: list[Decision] = []
        if self.persistent:
            started = self._held(t, L, prof)
        m_eff = len(L) if self.m == "Q" else self.m
        # suffix minimum of p over L: once free_now is below it, nobody else can start now
        suffix_min = [0] * (len(L) + 1)
        suffix_min[len(L)] = self.P + 1
        for i in range(len(L) - 1, -1, -1):
            suffix_min[i] = min(p[L[i]], suffix_min[i + 1])
        heads = 0  # jobs handled by the reservation phase in this pass (position-based m)
        future = 0  # new future reservations made in this pass (classic EASY counts these)
        same = self._same
        due = {j for j, _ in started}
        for idx, j in enumerate(L):
            if not self.persistent and prof.free_now < suffix_min[idx]:
                break  # fresh round: later reservations are discarded anyway
            if self.persistent and (j in held or j in due):
                continue
            if (future < m_eff) if self.classic_easy else (heads < m_eff):
                heads += 1
                s = prof.earliest_fit(p[j], dur[j])
                prof.reserve(s, s + dur[j], p[j])
                if same(s, t):
                    started.append((j, p[j]))
                else:
                    future += 1
                    if self.persistent:
                        held[j] = s
            elif prof.fits_now(p[j], dur[j]):
                prof.reserve(t, t + dur[j], p[j])
                started.append((j, p[j]))
        if started:
            self.queue.keep({j for j, _ in started})
        elif held and not state.running:
            # no event would ever come: cancel the holds, the held jobs wait again (R27, R28)
            held.clear()
            return self._reserve_and_backfill(t, state)
        return started

    def _held(self, t: Any, L: Sequence[int], prof: Profile) -> list[Decision]:
        """Put the held reservations (persistent and fixed modes) into `prof` and start the jobs
        whose reserved start has come (``s <= t`` up to the tolerance): in queue order
        ("persistent", R27) or in the order the reservations were made ("fixed", R28: the
        compiled core keeps no held job in its queue).

        A job due now is placed again at its earliest fit in the profile of the running
        attempts and the other held reservations: with exact times that is t (a held
        reservation fits for its whole window, A3), but the float tolerance is not transitive
        (the profile that made the reservation may have merged an end that the event loop
        does not group with t), so the job starts only if it fits now, else it is held at the
        new fit.
        """
        p, dur, held, le = self.p, self.t, self.reservations, self._le
        order = held if self.mode == "fixed" else [j for j in L if j in held]
        due = [j for j in order if le(held[j], t)]
        for j in due:
            del held[j]
        for j, s in held.items():
            prof.reserve(s, s + dur[j], p[j])
        started: list[Decision] = []
        for j in due:
            s = prof.earliest_fit(p[j], dur[j])
            prof.reserve(s, s + dur[j], p[j])
            if self._same(s, t):
                started.append((j, p[j]))
            else:
                held[j] = s
        return started


# -- the registered heuristics --------------------------------------------------------------------

#: Most n^2 x attempts of an R-LIST-Q run: each event re-reserves every queued job in a profile
#: of up to n breakpoints (conservative backfilling, O(n) each), about 2e-9 s per unit measured
#: (1500 jobs: 7 s), so a few seconds at most; the paper's sets (n = 100) and Mira days
#: (n <= 300) stay far below.
MAX_Q_STEPS = 2 * 10**9

def r_list_0(instance: RigidInstance, scenario: Scenario | Sequence[int] | None = None,
             priority: str | None = None, *, seed: int = 0, redraw_on_failure: bool = False,
             ljf_secondary: Secondary = "LPT", record: bool = True) -> HeuristicResult:
    """R-LIST-0, GREEDY (Algorithm 1 with m = 0, spec 002 §4.2): at every event start, in
    priority order, every queued job that fits the free processors. Ratio 2 - 1/P with any
    priority (Proposition 2).

    `seed` feeds the Random priority; `redraw_on_failure` and `ljf_secondary` are the priority
    options of A6 and A16. ``record=False`` is the fast path of experiments: the makespan only,
    from the compiled core (`compiled`), else a dedicated loop without the engine
    (`greedy_makespan`), same value.

    >>> from resilsched.instances.rigid import RigidInstance
    >>> inst = RigidInstance.build(2, [(1, 1), (1, 2), (1, 2)])
    >>> r_list_0(inst, inst.scenario([1, 0, 0]), "LPT").objective
    4
    """
    run = prepare(instance, scenario, priority, seed, redraw_on_failure, ljf_secondary)
    if not record:
        mk = compiled.makespan(compiled.GREEDY, instance.P, instance.p, instance.t, run.queue,
                               run.failures)
        if mk is None:  # no compiled core: the Python fast path
            mk = greedy_makespan(instance.p, instance.t, instance.P, run.failures, run.queue,
                                 run.exact)
        return HeuristicResult(objective=mk, heuristic="R-LIST-0", priority=run.priority)
    policy = RList(instance.p, instance.t, instance.P, run.queue, 0, exact=run.exact)
    options = changed(redraw_on_failure=redraw_on_failure, ljf_secondary=ljf_secondary)
    return finish("R-LIST-0", run, policy, record, options)


def reservation_mode(reservations: str, persistent_reservations: bool = False) -> str:
    """The reservation mode (A3) from ``reservations`` and the former flag
    ``persistent_reservations`` (True means "persistent"; with "fixed" it is a contradiction)."""
    if reservations not in RESERVATION_MODES:
        raise InvalidInstance("reservations", f"{reservations!r} must be one of "
                                              f"{', '.join(RESERVATION_MODES)}")
    if not isinstance(persistent_reservations, bool):
        raise InvalidInstance("persistent_reservations",
                              f"{persistent_reservations!r} must be a boolean")
    if persistent_reservations:
        if reservations == "fixed":
            raise InvalidInstance("persistent_reservations", "true contradicts "
                                  "reservations=fixed (it means reservations=persistent)")
        return "persistent"
    return reservations


def _reserving(name: str, m: int | str, instance: RigidInstance,
               scenario: Scenario | Sequence[int] | None, priority: str | None, seed: int,
               redraw_on_failure: bool, ljf_secondary: str, classic_easy: bool,
               reservations: str, persistent_reservations: bool,
               record: bool) -> HeuristicResult:
    mode = reservation_mode(reservations, persistent_reservations)
    run = prepare(instance, scenario, priority, seed, redraw_on_failure, ljf_secondary)
    if m == "Q":
        steps = (sum(run.failures) + instance.n) * instance.n ** 2
        if steps > MAX_Q_STEPS:
            raise InvalidInstance("jobs", f"R-LIST-Q reserves every queued job at every event: "
                                  f"{instance.n} jobs x {instance.n} x "
                                  f"{sum(run.failures) + instance.n} attempts = {steps:.2g} "
                                  f"profile steps, at most {MAX_Q_STEPS:.0e} (R-LIST-1 and "
                                  "R-LIST-0 scale to 10^4 jobs)")
    if not record:
        engine = (compiled.fixed_rlist(m, classic_easy) if mode == "fixed"
                  else compiled.rlist(m, classic_easy, mode == "persistent"))
        mk = compiled.makespan(engine, instance.P, instance.p, instance.t, run.queue,
                               run.failures)
        if mk is not None:
            return HeuristicResult(objective=mk, heuristic=name, priority=run.priority)
    policy = RList(instance.p, instance.t, instance.P, run.queue, m, classic_easy=classic_easy,
                   reservations=mode, exact=run.exact)
    options = changed(redraw_on_failure=redraw_on_failure, ljf_secondary=ljf_secondary,
                      classic_easy=classic_easy, reservations=mode)
    return finish(name, run, policy, record, options)


def r_list_1(instance: RigidInstance, scenario: Scenario | Sequence[int] | None = None,
             priority: str | None = None, *, seed: int = 0, redraw_on_failure: bool = False,
             ljf_secondary: Secondary = "LPT", classic_easy: bool = False,
             reservations: Reservations = "fresh", persistent_reservations: bool = False,
             record: bool = True) -> HeuristicResult:
    """R-LIST-1, EASY-like (Algorithm 1 with m = 1, spec 002 §4.2): one reservation for the
    head of the queue, backfilling that never delays it. Ratio 3 - 4/(P+1) with LJF
    (Proposition 1) with fresh or persistent reservations; not with ``reservations="fixed"``
    (docs/decisions.md R21 gives an instance where it fails).

    `classic_easy` and `reservations` are the semantic options A2 and A3 (module docstring;
    ``persistent_reservations=True`` is the former spelling of ``reservations="persistent"``);
    the others as in `r_list_0`; ``record=False`` gives the makespan only.

    >>> from resilsched.instances.rigid import RigidInstance
    >>> inst = RigidInstance.build(4, [(2, 1), (2, 2), (3, 5), (1, 3)])
    >>> r_list_1(inst, [0, 0, 1, 0], "HPA").objective
    12
    >>> r_list_1(inst, [0, 0, 1, 0], "HPA", reservations="fixed").objective
    13
    """
    return _reserving("R-LIST-1", 1, instance, scenario, priority, seed, redraw_on_failure,
                      ljf_secondary, classic_easy, reservations, persistent_reservations,
                      record)


def r_list_q(instance: RigidInstance, scenario: Scenario | Sequence[int] | None = None,
             priority: str | None = None, *, seed: int = 0, redraw_on_failure: bool = False,
             ljf_secondary: Secondary = "LPT", classic_easy: bool = False,
             reservations: Reservations = "fresh", persistent_reservations: bool = False,
             record: bool = True) -> HeuristicResult:
    """R-LIST-Q, conservative (Algorithm 1 with m = |Q|, spec 002 §4.2): a reservation for
    every queued job, recomputed at each pass. Ratio 3 - 4/(P+1) with LJF (Proposition 1),
    again not with ``reservations="fixed"``.

    Options as in `r_list_1` (with m = |Q| "fresh" and "persistent" coincide; "fixed" differs:
    a failed job waits behind every reservation made before it failed).
    """
    return _reserving("R-LIST-Q", "Q", instance, scenario, priority, seed, redraw_on_failure,
                      ljf_secondary, classic_easy, reservations, persistent_reservations,
                      record)
