"""Co-scheduling heuristics and polynomial algorithms (spec 001 §2.2, §2.4).

- `onepack`: Algorithm 1 (optimal allocation of one pack, Thm 1.3), the O(k p^2) DP, the
  vectorised Algorithm 1 over many packs and the pair-cost matrix of Thm 1.1;
- `packs`: `Packs`, the solution object of the family, built by `make_packs`;
- `packing`: MAKE-PACK (Algorithm 2) and PACK-APPROX (Algorithm 3), and their registered forms.
"""

from resilsched.heuristics.coschedule.onepack import (
    optimal_pack,
    optimal_pack_dp,
    pack_costs_vectorized,
    pair_cost_matrix,
    pair_costs,
)
from resilsched.heuristics.coschedule.packing import (
    LOOP_BOUNDS,
    PackApproxResult,
    make_pack,
    pack_approx,
    run_make_pack,
    run_pack_approx,
)
from resilsched.heuristics.coschedule.packs import Pack, Packs, make_packs

__all__ = ["LOOP_BOUNDS", "Pack", "PackApproxResult", "Packs", "make_pack", "make_packs",
           "optimal_pack", "optimal_pack_dp", "pack_approx", "pack_costs_vectorized",
           "pair_cost_matrix", "pair_costs", "run_make_pack", "run_pack_approx"]
