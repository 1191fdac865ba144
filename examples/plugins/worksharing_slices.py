"""EQUAL-SLICES: each worker alone computes its slice of the load, in equal chunks (one's own
heuristic, no replication).

Built from public pieces: the schedule is an `IntervalSchedule` of the workload, valued by the
exact expected-work evaluator (docs/own-heuristic.md).
"""

import numpy as np

from resilsched import HeuristicResult
from resilsched.instances.worksharing.evaluate import IntervalSchedule, expected_work


def equal_slices(instance, scenario=None, priority=None, *, seed: int = 0, chunks: int = 4):
    """EQUAL-SLICES: worker j runs slice j of [0, W] (W / p each) as `chunks` equal chunks."""
    p = instance.workers
    if instance.max_chunks is not None:
        chunks = min(chunks, instance.max_chunks)
    edges = np.linspace(0.0, instance.W, p * chunks + 1)
    workers = [[[(edges[j * chunks + c], edges[j * chunks + c + 1])] for c in range(chunks)]
               for j in range(p)]
    schedule = IntervalSchedule(instance.W, workers).to_pieces()
    value = expected_work(schedule, instance.risk, instance.epsilon)
    return HeuristicResult(value, "EQUAL-SLICES", None, schedule)
