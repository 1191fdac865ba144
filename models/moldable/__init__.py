"""Exact models of the moldable family (spec 000 §1.5, §8 "models/").

- `solve_scenario` / `solve_failure_free` (`solve`): the CP-SAT clairvoyant optimum
  T_OPT(J, f) and the failure-free optimum, with the options `MoldableOptions`;
- `data`: candidate allocations (time-Pareto fronts, thinned when the model is too large) and
  integer times; `cpsat`: the model's variables and constraints, one builder per part;
- `expected_ratio` (`expected`): Eq. 4 by enumeration on tiny instances.
"""

from __future__ import annotations

from resilsched.models.moldable.expected import expected_ratio
from resilsched.models.moldable.solve import MoldableOptions, solve_failure_free, solve_scenario

__all__ = ["MoldableOptions", "expected_ratio", "solve_failure_free", "solve_scenario"]
