"""Moldable-job heuristics under silent errors (spec 000 §3).

One function per registered heuristic, each with the contract of `resilsched.plugin`
(``fn(instance, scenario=None, priority=None, *, seed=0, <params>) -> HeuristicResult``, the
makespan as objective and the attempt-level `Schedule` checked by
`resilsched.validation.validate_attempts`):

==============  =================  ==========================================================
registry name   function           algorithm
==============  =================  ==========================================================
``LPA-LIST``    `lpa_list`         Algorithm 2 (Local Processor Allocation) + LIST, §3.2
``BATCH-LIST``  `batch_list`       doubling batches allotted by MT-ALLOTMENT + LIST, §3.4, §3.7
``MINTIME``     `mintime_list`     p_j = argmin t_j(p) + LIST, §3.5
``MINAREA``     `minarea_list`     p_j = argmin a_j(p) + LIST, §3.5
``LPA-PROOF``   `lpa_proof_list`   the proofs' allocations (Thms 1-6) + LIST, §3.3
==============  =================  ==========================================================

Modules: `allocation` (the allocation rules), `listsched` (Algorithm 1 as an engine policy),
`fixed` (the four fixed-allocation heuristics), `mt_allotment` and `batch` (BATCH-LIST),
`simulator` (the experiments' fast path, `Simulator`) and `_kernel` (its LIST loop: the compiled
core, `resilsched.engine`, or Python).

>>> from resilsched.instances.moldable import MoldableInstance, Roofline
>>> from resilsched.instances.failures import Scenario
>>> inst = MoldableInstance(4, (Roofline(8, 2), Roofline(8, 2), Roofline(4, 4)))
>>> lpa_list(inst, Scenario((1, 0, 0)), "LPT").objective
9.0
"""

from __future__ import annotations

from resilsched.heuristics.moldable.allocation import lpa, lpa_proof, minarea, mintime
from resilsched.heuristics.moldable.batch import BatchPlanner, batch_list, batch_params
from resilsched.heuristics.moldable.fixed import (
    list_schedule,
    lpa_list,
    lpa_proof_list,
    minarea_list,
    mintime_list,
)
from resilsched.heuristics.moldable.listsched import PRIORITIES
from resilsched.heuristics.moldable.mt_allotment import MTAllotment
from resilsched.heuristics.moldable.simulator import Simulator

__all__ = ["PRIORITIES", "BatchPlanner", "MTAllotment", "Simulator", "batch_list",
           "batch_params", "list_schedule", "lpa", "lpa_list", "lpa_proof", "lpa_proof_list",
           "minarea", "minarea_list", "mintime", "mintime_list"]
