"""Rigid-job heuristics under silent errors (spec 002 §2-§5), one function per heuristic.

| heuristic | function | module |
|---|---|---|
| R-LIST-0 | `r_list_0` | `rlist` (and `greedy`, its fast path) |
| R-LIST-1 | `r_list_1` | `rlist` |
| R-LIST-Q | `r_list_q` | `rlist` |
| R-SHELF-B, R-SHELF-NB | `r_shelf_b`, `r_shelf_nb` | `rshelf` |
| R-SHELFFILL-B, R-SHELFFILL-NB | `r_shelffill_b`, `r_shelffill_nb` | `rshelf` |

Each is ``fn(instance, scenario=None, priority=None, *, seed=0, <params>, record=True) ->
HeuristicResult``: it runs one priority rule (`priorities`, default LPT) on one failure scenario
through the shared event engine (`resilsched.heuristics.engine`); ``objective`` is the makespan
and ``schedule`` the attempt-level `Schedule`. ``record=False`` is the fast path of experiments:
the same makespan, no attempt log, from the compiled core when it is built (`compiled`, issue
15) else from the Python engine; `many.makespans` simulates many scenarios of one instance in
one call. The registry (`resilsched.families.rigid`) names them; look a heuristic up by name
there, not here.

>>> from resilsched.instances.rigid import RigidInstance
>>> inst = RigidInstance.build(2, [(1, 1), (1, 2), (1, 2)])
>>> r_list_0(inst, inst.scenario([1, 0, 0]), "LPT").objective
4
"""

from resilsched.heuristics.rigid.common import Secondary
from resilsched.heuristics.rigid.priorities import PRIORITIES
from resilsched.heuristics.rigid.rlist import Profile, RList, r_list_0, r_list_1, r_list_q
from resilsched.heuristics.rigid.rshelf import (
    RShelf,
    r_shelf_b,
    r_shelf_nb,
    r_shelffill_b,
    r_shelffill_nb,
)

__all__ = ["PRIORITIES", "Profile", "RList", "RShelf", "Secondary", "r_list_0", "r_list_1",
           "r_list_q", "r_shelf_b", "r_shelf_nb", "r_shelffill_b", "r_shelffill_nb"]
