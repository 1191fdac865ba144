"""Exact yardsticks for malleable applications (spec 001 Thm 1.4, Thm 1.7, §1.7).

- `solve_static` (``static-optimal``): the best even allocation without redistribution;
- `solve_faultfree` (``faultfree-optimal``): the fault-free optimum with redistribution at ends,
  by branch and bound, for tiny instances;
- `solve_yardstick` (``yardstick``): what the gap report scores realized makespans against.
"""

from resilsched.models.malleable.faultfree import solve_faultfree
from resilsched.models.malleable.static import solve_static

__all__ = ["solve_faultfree", "solve_static"]
