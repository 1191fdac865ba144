"""Exact models of k-in-p co-scheduling (spec 001 §2.3).

Each model is ``solve(instance, scenario=None, *, time_limit=None, **options) -> Solution``
with its options class in `options`, and answers honestly when time runs out (`answer`).
The layout follows the methods:

- `enumeration`: subset DP over partitions into packs (Method 1), exact integer arithmetic;
- `matching`: exact 2-in-p by maximum-weight matching (networkx, rustworkx), exact weights;
- `ilp`: the ILP (1.12) of Thm 1.5 and its strong variant, Pyomo + HiGHS;
- `setpart`: set partitioning over packs, highspy; its shared parts (`setpart.pool`, the
  explicit pool of packs; `setpart.master`, the master problem; `setpart.subset_rows`, the
  cuts) and its three models: `setpart.full` (``setpart-full``, one MIP over every pack),
  `setpart.colgen` (``setpart-cg``: column generation with cuts, incumbents by pair
  exchanges, LP dives or large-neighbourhood search, proof by closure rounds answered by an
  exact search) and `setpart.branchprice` (``setpart-bp``: branch-and-price, pricing over the
  pool or with a threshold-knapsack oracle for any k, closures solved as exact covers);
- shared by all: `answer` (the fallback incumbent, certified bounds and the honest
  `Solution`), `integer_times` (exact integer times for the combinatorial models),
  `hardlimit` (solver phases in a forked child with a hard time limit, also used by other
  families) and `_cclosure` (the loader of the C kernels of the set-partitioning models).

The packs a model returns (`resilsched.heuristics.coschedule.Packs`) and Algorithm 1 live with
the heuristics; the validator is `resilsched.validation.packs.check_packs`.
"""

from resilsched.models.coschedule.enumeration import solve_enumeration
from resilsched.models.coschedule.ilp import solve_ilp, solve_ilp_strong
from resilsched.models.coschedule.matching import solve_matching, solve_matching_networkx
from resilsched.models.coschedule.setpart.branchprice.solve import solve_setpart_bp
from resilsched.models.coschedule.setpart.colgen.root_lp import setpart_lp_bound
from resilsched.models.coschedule.setpart.colgen.solve import solve_setpart_cg
from resilsched.models.coschedule.setpart.full import solve_setpart_full

__all__ = ["setpart_lp_bound", "solve_enumeration", "solve_ilp", "solve_ilp_strong",
           "solve_matching", "solve_matching_networkx", "solve_setpart_bp", "solve_setpart_cg",
           "solve_setpart_full"]
