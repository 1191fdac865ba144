"""WIDEST-LIST: rigid jobs, the widest first, on the event engine (docs/own-heuristic.md)."""

from resilsched import HeuristicResult
from resilsched.heuristics.engine import run_engine
from resilsched.schedule import Schedule


def widest(instance, j):
    """Priority key: the widest job first (the smallest key goes first)."""
    return -instance.p[j]


class Greedy:
    """At every event, start the queued jobs that fit, in key order; failed jobs requeue."""

    def __init__(self, instance, key, backfill):
        self.p, self.backfill = instance.p, backfill
        self.rank = {j: (key(instance, j), j) for j in range(len(instance.p))}
        self.queue = sorted(self.rank, key=self.rank.get)

    def on_completions(self, t, completed, state):
        failed = [j for j, fail in completed if fail]
        self.queue = sorted(self.queue + failed, key=self.rank.get)

    def decide(self, t, state):
        start, free = [], state.free
        for j in list(self.queue):
            if self.p[j] <= free:
                self.queue.remove(j)
                start.append((j, self.p[j]))
                free -= self.p[j]
            elif not self.backfill:
                break
        return start


def widest_list(instance, scenario=None, priority=None, *, seed: int = 0, backfill: bool = True):
    """WIDEST-LIST: greedy list scheduling, the widest job first (backfill=false: a pass stops
    at the first job that does not fit)."""
    failures = (scenario or instance.scenario()).failures
    run = run_engine(instance.P, failures, lambda j, p: instance.t[j],
                     Greedy(instance, widest, backfill))
    return HeuristicResult(run.makespan, "WIDEST-LIST", None, Schedule(run.attempts, run.makespan))
