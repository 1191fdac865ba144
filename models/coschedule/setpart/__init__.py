"""Set partitioning over packs priced by Algorithm 1 (spec 001 §2.3, the stronger exact model).

Every pack B (|B| <= k, sum pmin_i <= p) is a column with cost c_B = Algorithm 1's optimal pack
time. A co-schedule is a partition of the tasks into packs::

    min sum_B c_B z_B   s.t.  sum_{B ni i} z_B = 1  for every task i,   z_B in {0, 1}

Its LP relaxation is much tighter than the LP of (1.12). Three registered models solve it with
HiGHS (highspy), one module or subpackage each, over shared parts:

- shared: `pool` (the explicit pool of packs and its pricing), `master` (the highspy master
  problem: task rows, the pack-count cut, columns, LP duals, the MIP over pool packs) and
  `subset_rows` (the subset-row cuts and the Lagrangian identity every bound and closure of
  the column-generation models rests on);
- `full`: ``setpart-full``, one MIP over every pack of the pool;
- `colgen`: ``setpart-cg``, column generation with cuts over the explicit pool, closed by
  rounds of reduced-cost closures answered by an exact search (the default model while the
  pool fits, and the bound ``setpart-lp``);
- `branchprice`: ``setpart-bp``, branch-and-price priced over the pool or by a
  threshold-knapsack oracle without any pool (any k, p-in-p included), whose closures are
  solved as exact covers (``resilsched solve`` uses it when the pool would not fit).

The two column-generation methods stay separate because neither dominates (measurements in
docs/architecture.md): where the pool fits, ``setpart-cg`` proves k-in-p instances that
``setpart-bp`` leaves open; at p-in-p the pool does not fit and only ``setpart-bp`` runs.
"""
