"""Exact models of k-in-p co-scheduling (spec 001 §2.3).

Each model is ``solve(instance, scenario=None, *, time_limit=None, **options) -> Solution``
with its options class in `options`, and answers honestly when time runs out (`outcome`):

- `enumeration`: subset DP over partitions into packs (Method 1), exact integer arithmetic;
- `matching`: exact 2-in-p by maximum-weight matching (networkx, rustworkx), exact weights;
- `ilp`: the ILP (1.12) of Thm 1.5 and its strong variant, Pyomo + HiGHS;
- `setpart`: set partitioning over packs (full MIP; column generation + closure), highspy,
  built from `pool` (the explicit pool of packs), `master` (the highspy master problem),
  `colgen` (pricing, cuts, the LP bound) and `subset_rows` (the cuts); its incumbent from
  `localsearch` (pair exchanges) and `lpdive` (LP dives), its proof from `closure` (closure
  rounds with a cutoff);
- `branchprice`: the same model by branch-and-price, pricing over the pool or with `oracle`
  (threshold knapsacks, any k), with `dive` (price-and-dive incumbents) and `cover` (the
  reduced-cost closure as an exact cover; its listing and search in C through `_cclosure`);
- `hardlimit`: solver phases in a forked child with a hard time limit; `exact`: exact integer
  times; `outcome`: the fallback answer and the honest `Solution`.

The packs a model returns (`resilsched.heuristics.coschedule.Packs`) and Algorithm 1 live with
the heuristics; the validator is `resilsched.validation.packs.check_packs`.
"""

from resilsched.models.coschedule.branchprice import solve_setpart_bp
from resilsched.models.coschedule.colgen import setpart_lp_bound
from resilsched.models.coschedule.enumeration import solve_enumeration
from resilsched.models.coschedule.ilp import solve_ilp, solve_ilp_strong
from resilsched.models.coschedule.matching import solve_matching, solve_matching_networkx
from resilsched.models.coschedule.setpart import solve_setpart_cg, solve_setpart_full

__all__ = ["setpart_lp_bound", "solve_enumeration", "solve_ilp", "solve_ilp_strong",
           "solve_matching", "solve_matching_networkx", "solve_setpart_bp", "solve_setpart_cg",
           "solve_setpart_full"]
