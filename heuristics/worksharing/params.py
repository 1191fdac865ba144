"""The parameters of the worksharing heuristics (``--param NAME=VALUE``), one frozen dataclass
per set (`resilsched.params`; spec 003 §3.1, §3.4, §5.2.3, §6 Q2, Q9; decisions WS-3, WS-17,
WS-20).

- ``n``: chunks per unit of work (Section 6's n, §6 Q2); 0 chooses the chunk count of every
  slice by maximising the expected work (§3.4, §6 Q9);
- ``lam``: the partition's lambda, the largest interruption probability accepted for one
  worker's load (§3.1; maxsl = Pr^-1(lambda)); 0 = 1 for risks with a finite horizon, 0.9
  otherwise (WS-3). Only the heuristics that use maxsl take it;
- ``chunk_search`` (group heuristics, with ``n = 0``): ``grid`` maximises the exact expected
  work over a geometric grid with refinement (§6 Q9); ``binary`` is the paper's own rule
  (§5.2.3): binary search over [1 .. X/eps] on Eq. 9, assuming unimodality (WS-17);
- ``chunk_rule`` (no-rep, with ``n = 0``): how no-rep's chunk count is chosen, ``grid``,
  ``binary``, ``per-worker`` or ``greedy`` (WS-20).

The values are checked against the instance by the heuristics (`resilsched.heuristics.
worksharing.run`): ``n`` against the schedule's size, ``lam`` against the risk.

>>> from resilsched.params import params_of
>>> [p.name for p in params_of(GroupParams)]
['n', 'lam', 'chunk_search']
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

#: how a group heuristic chooses its chunk counts when ``n = 0`` (`group_plan`)
ChunkSearch = Literal["grid", "binary"]
#: how no-rep chooses its chunk count when ``n = 0`` (`NO_REP_RULES`, decision WS-20)
NoRepRule = Literal["grid", "binary", "per-worker", "greedy"]


@dataclass(frozen=True)
class ChunkParams:
    """brute: the chunk count."""

    n: float = field(default=0.0, metadata={
        "help": "chunks per unit of work (spec 003 §6 Q2); 0 = chosen by maximising the "
                "expected work"})


@dataclass(frozen=True)
class RepParams(ChunkParams):
    """cyclic-rep and random-rep: the chunk count and the partition's lambda."""

    lam: float = field(default=0.0, metadata={
        "help": "partition lambda in (0, 1] (spec 003 §3.1); 0 = 1 for a finite horizon, "
                "else 0.9"})


@dataclass(frozen=True)
class GroupParams(RepParams):
    """The group heuristics (greedy, greedy-thm4, group-*): and the automatic chunk search."""

    chunk_search: ChunkSearch = field(default="grid", metadata={
        "help": "automatic chunk count of a slice (n = 0): grid = maximise the exact expected "
                "work (spec 003 §6 Q9), binary = the paper's binary search over [1 .. X/eps] "
                "(§5.2.3)"})


@dataclass(frozen=True)
class NoRepParams(ChunkParams):
    """no-rep: the chunk count and the rule that chooses it automatically."""

    chunk_rule: NoRepRule = field(default="grid", metadata={
        "help": "no-rep's chunk count (n = 0): grid = maximise its expected work (spec 003 "
                "§6 Q9), binary = the paper's binary search, per-worker = the same count on "
                "every worker, greedy = greedy's chunk size (decision WS-20)"})
