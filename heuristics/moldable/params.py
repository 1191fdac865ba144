"""The parameters of the moldable heuristics (``--param NAME=VALUE``): BATCH-LIST's
(`resilsched.params`; spec 000 §3.4, §3.7, §6.3, §7 item 13). The other moldable heuristics
take none.

`resilsched.heuristics.moldable.batch.batch_list` takes these as keyword-only arguments with
the same defaults (tests/resilsched/test_params.py checks it) and checks them
(`resilsched.heuristics.moldable.batch.batch_params`); eps bounds the DP grid K ~ g/eps + g.

>>> from resilsched.params import params_of
>>> [(p.name, p.default, p.low, p.high) for p in params_of(BatchParams)][:3]
[('eps', 0.3, 0.05, 1.0), ('eps2', 0.03, 0.001, 1.0), ('area_slack', 1.1, 1.0, 4.0)]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

#: order of a job's g allotted attempts inside a batch (spec §7 item 13)
AttemptOrder = Literal["desc_p", "asc_p", "dp_order", "first_only"]


@dataclass(frozen=True)
class BatchParams:
    """BATCH-LIST: MT-ALLOTMENT's accuracy, the bisection's stop, the DP's area factor, the
    order of a batch's attempts and the exact first batch."""

    eps: float = field(default=0.3, metadata={
        "low": 0.05, "high": 1.0,
        "help": "MT-ALLOTMENT accuracy: quantum Z = eps X / g, in [0.05, 1]"})
    eps2: float = field(default=0.03, metadata={
        "low": 0.001, "high": 1.0,
        "help": "bisection stops at Xmax/Xmin <= 1 + eps2, in [0.001, 1]"})
    area_slack: float = field(default=1.1, metadata={
        "low": 1.0, "high": 4.0,
        "help": "area factor of the DP's acceptance test ([R]: 1.1), in [1, 4]"})
    attempt_order: AttemptOrder = field(default="desc_p", metadata={
        "help": "order of a job's g allotted attempts inside a batch"})
    g1_exact: bool = field(default=False, metadata={
        "help": "exact min_p L for the first batch (threshold search, no slack)"})
