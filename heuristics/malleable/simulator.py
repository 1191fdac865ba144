"""The event-driven simulator of spec 001 §3.3 (chapter §1.5.1).

Events are application ends and failures of the trace, in time order; at equal times ends come
first, by application index (A-31). A failure counts only if its processor belongs to a running
application that is working (t >= t_lastR: failures during downtime, recovery, redistribution and
the checkpoint after it, or on idle processors, are discarded, A-7). Then:

- end of T_i at t: its processors become idle; the END policy (ENDLOCAL/ENDGREEDY) runs over the
  applications with t_lastR <= t if at least 2 processors are idle;
- failure of T_f at t: T_f rolls back to its last checkpoint and restarts at t + D + R (A-8);
  the applications that will end by then (E_i <= t_lastR_f) end now, at E_i, and release their
  processors (A-14; they trigger no END policy, A-34); if T_f is the longest (t^U_f >= every
  t^U, A-32) the FAIL policy (SAF/IG) runs over T_f and the applications with t_lastR <= t.
  Where those processors go is `lookahead_pool` (A-14): 'faulty_only' (default): at once to
  T_f only (it restarts after they are free), the rest held until E_i; 'at_end': held until
  E_i; 'any': to every policy at once (the literal reading, under which other applications
  compute on them while their owners still run: the validator refuses such runs, MA-9/MA-14).

The makespan is the last realized end. A run reads one trace (`instances.malleable.traces`), so
every policy of a repetition meets the same failures (common random numbers).
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable

import numpy as np

from resilsched.heuristics.malleable.policies import initial_allocation
from resilsched.heuristics.malleable.state import Options, RunState
from resilsched.instances.malleable.formulas import formulas_of

EndPolicy = Callable[[RunState, float, np.ndarray], None]
FailPolicy = Callable[[RunState, float, int, np.ndarray], None]


def simulate(inst, trace, end_policy: EndPolicy | None, fail_policy: FailPolicy | None,
             opts: Options | None = None, *, fault_free: bool = False,
             initial: np.ndarray | None = None, order: list[int] | None = None
             ) -> tuple[RunState, list]:
    """Run the policies on `inst` under `trace`; returns the final state and the trace read.

    With `fault_free` the instance is run without failures and checkpoints (lambda = 0), the
    fault-free context of the baselines (§3.3). `initial` replaces the initial allocation of
    §3.2 and `order` the order in which the idle processor ids are handed out (default
    0, 1, ..., p - 1, MA-13); the clairvoyant construction sets both (MA-25).
    """
    if fault_free and not inst.fault_free:
        inst = inst.replace(mtbf=None, failures=None)
    F = formulas_of(inst)
    st = RunState(inst, F, opts or Options())
    if order is not None:
        st.pool = deque(order)
    st.start(initial_allocation(st) if initial is None else np.asarray(initial, dtype=np.int64))
    cursor = trace.cursor() if not inst.fault_free else None
    held: list[list] = []  # A-14 'at_end' / 'faulty_only': [free at, ids, count]
    while True:
        nxt = st.next_end()
        if nxt is None:
            break
        ic, tc = nxt
        if cursor is not None and cursor.time < tc:
            tf, proc = cursor.time, cursor.proc
            cursor.advance()
            _release_held(st, held, tf)
            if st.watch:
                st.check_fatal(tf, proc)
            f = int(st.owner[proc])
            if f < 0 or not st.running[f] or tf < st.tlast[f]:
                st.counts["discarded"] += 1
                continue
            _on_failure(st, tf, f, proc, fail_policy, held)
            continue
        _release_held(st, held, tc)
        st.finish_app(np.array([ic]), np.array([tc]), tc)
        if end_policy is not None and st.free >= 2:
            elig = np.flatnonzero(st.running & (st.tlast <= tc))
            if elig.size:
                st.counts["end_calls"] += 1
                end_policy(st, tc, elig)
    _release_held(st, held, math.inf)
    assert not st.running.any()
    return st, ([] if cursor is None else cursor.consumed())


def _on_failure(st: RunState, t: float, f: int, proc: int, fail_policy: FailPolicy | None,
                held: list) -> None:
    st.fail(f, t, proc)
    if st.opts.lookahead_release:
        done = np.flatnonzero(st.running & (st.E <= st.tlast[f]))
        done = done[done != f]
        if done.size:
            st.counts["lookahead_finished"] += int(done.size)
            if st.opts.lookahead_pool in ("at_end", "faulty_only"):
                for i in done.tolist():  # idle only once really free (MA-9)
                    e = float(st.E[i])
                    count = int(st.sigma[i])
                    # 'faulty_only': released now (T_f may take them), idle for others at E_i
                    at = t if st.opts.lookahead_pool == "faulty_only" else e
                    ids = st.finish_app(np.array([i]), np.array([e]), at, hold=True)
                    held.append([e, ids.tolist(), count])
            else:
                st.finish_app(done, st.E[done], t)
    if fail_policy is None:
        return
    live = st.running
    if st.tU[f] < st.tU[live].max():
        return
    elig = np.flatnonzero(live & (st.tlast <= t))
    elig = elig[elig != f]
    st.counts["fail_calls"] += 1
    if st.opts.lookahead_pool == "faulty_only":  # what is free when T_f restarts, for T_f
        st.reserve(f, [h for h in held if h[0] <= st.tlast[f]])
    fail_policy(st, t, f, elig)
    st.reserve(-1, [])


def _release_held(st: RunState, held: list, t: float) -> None:
    """Held processors become idle once their applications have ended."""
    keep = []
    for h in held:
        if h[0] <= t:
            st.give_back(h[1], h[2])
        else:
            keep.append(h)
    held[:] = keep
