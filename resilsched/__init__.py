"""resilsched: exact formulations beside heuristics for resilient scheduling.

Role subpackages: `resilsched.instances`, `resilsched.heuristics`, `resilsched.models`,
`resilsched.bounds`; shared types here (`InvalidInstance`, `Solution`, `Status`).
"""

from resilsched.errors import HeuristicRefusal, InvalidInstance, InvalidSchedule
from resilsched.solution import HeuristicResult, Solution, Status

__version__ = "0.1.0"

__all__ = [
    "HeuristicRefusal",
    "InvalidInstance",
    "InvalidSchedule",
    "HeuristicResult",
    "Solution",
    "Status",
    "__version__",
]
