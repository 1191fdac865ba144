"""Exact models of k-in-p co-scheduling (spec 001 §2.2-2.3).

- `onepack`: Algorithm 1 (heap), the O(k p^2) DP, brute force, vectorised pack costs;
- `enumeration`: subset DP over partitions into packs (Method 1);
- `ilp`: the ILP (1.12) of Thm 1.5 and its strong variant, Pyomo + HiGHS;
- `setpart`: set partitioning over packs (full MIP; column generation + closure), highspy;
- `matching`: exact 2-in-p by maximum-weight matching (networkx, rustworkx);
- `common`: the packs payload and its validator.
"""

from resilsched.models.coschedule.common import check_packs, make_payload
from resilsched.models.coschedule.enumeration import solve_enumeration
from resilsched.models.coschedule.ilp import solve_ilp, solve_ilp_strong
from resilsched.models.coschedule.matching import solve_matching
from resilsched.models.coschedule.onepack import (
    optimal_pack,
    optimal_pack_brute,
    optimal_pack_dp,
    pack_costs_vectorized,
    pair_cost_matrix,
)
from resilsched.models.coschedule.setpart import (
    setpart_lp_bound,
    solve_setpart_cg,
    solve_setpart_full,
)

__all__ = ["check_packs", "make_payload", "optimal_pack", "optimal_pack_brute",
           "optimal_pack_dp", "pack_costs_vectorized", "pair_cost_matrix", "setpart_lp_bound",
           "solve_enumeration", "solve_ilp", "solve_ilp_strong", "solve_matching",
           "solve_setpart_cg", "solve_setpart_full"]
