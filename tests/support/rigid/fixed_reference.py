"""An independent reference of R-LIST-1/Q with fixed reservations (issue 14, spec 002 §4.3 A3),
written from the words of the issue and sharing no code with `heuristics/rigid/rlist.py`.

It keeps the list of pending events the issue speaks of: ends of running or reserved attempts
add processors, reserved starts take them. At time 0 and after every completion (all
completions of one instant first, A1) a pass handles the m highest-priority waiting jobs (m = 1,
or the whole queue): each starts now if it fits, else is reserved at the first pending event
time where it fits; either way it leaves the queue (a reservation puts its start and its end
among the pending events). Then every other waiting job, in priority order, starts now if it
fits. A job fits at T when, walking the pending events in time order (ends
before starts at equal times) from the free count at T up to T + t_j, the free count never drops
below p_j. Reservations are never cancelled or moved; a failed job re-enters the queue.

Exact arithmetic only (int or Fraction times). Returns ``{(job, k): start}`` and the makespan.
"""

from __future__ import annotations

from typing import Any

END, START = 0, 1  # at equal times, ends (completions) come before reserved starts


def simulate_fixed(P: int, jobs: list[tuple[int, Any]], failures: list[int],
                   order: list[int], m: int | str) -> tuple[dict[tuple[int, int], Any], Any]:
    n = len(jobs)
    rank = {j: i for i, j in enumerate(order)}
    pending: list[tuple[Any, int, int]] = []  # (time, END or START, job)
    free = P
    done = [0] * n
    waiting = set(range(n))
    starts: dict[tuple[int, int], Any] = {}
    makespan: Any = 0

    def count_at(T: Any) -> int:
        """Free processors once every pending event at or before T has happened."""
        c = free
        for time, kind, k in pending:
            if time <= T:
                c += jobs[k][0] if kind == END else -jobs[k][0]
        return c

    def fits(j: int, T: Any) -> bool:
        p, t = jobs[j]
        c = count_at(T)
        if c < p:
            return False
        for time, kind, k in sorted(pending):
            if T < time < T + t:
                c += jobs[k][0] if kind == END else -jobs[k][0]
                if c < p:
                    return False
        return True

    def start_now(j: int, T: Any) -> None:
        nonlocal free
        free -= jobs[j][0]
        starts[j, done[j] + 1] = T
        pending.append((T + jobs[j][1], END, j))

    def scheduling_pass(T: Any) -> None:
        queue = sorted(waiting, key=rank.__getitem__)
        heads = len(queue) if m == "Q" else min(m, len(queue))
        for j in queue[:heads]:
            waiting.discard(j)
            if fits(j, T):
                start_now(j, T)
            else:
                later = sorted({time for time, _, _ in pending if time > T})
                s = next(x for x in later if fits(j, x))
                pending.extend([(s, START, j), (s + jobs[j][1], END, j)])
        for j in queue[heads:]:
            if fits(j, T):
                waiting.discard(j)
                start_now(j, T)

    scheduling_pass(0)
    while pending:
        T = min(time for time, _, _ in pending)
        now = sorted(e for e in pending if e[0] == T)
        pending[:] = [e for e in pending if e[0] != T]
        completed = False
        for _, kind, j in now:  # ends first (END < START)
            if kind == END:
                completed = True
                free += jobs[j][0]
                done[j] += 1
                if done[j] <= failures[j]:
                    waiting.add(j)
                else:
                    makespan = max(makespan, T)
            else:  # a reserved start: its end is already pending
                free -= jobs[j][0]
                starts[j, done[j] + 1] = T
        if completed:  # a reserved start alone triggers no pass
            scheduling_pass(T)
    assert not waiting, "jobs left waiting with nothing pending"
    return starts, makespan
