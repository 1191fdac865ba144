"""``setpart-bp``: branch-and-price over packs, priced over the explicit pool or by an oracle
(spec 001 §2.3; decisions C22, C24, C25).

- `solve`: the model (`solve_setpart_bp`): its master, the Ryan-Foster tree search, the root
  MIP;
- `pricing_oracle`: the threshold-knapsack pricing oracle (any k, no pool) and its listing of
  a reduced-cost closure;
- `exact_cover`: the reduced-cost closure rounds solved as exact covers (in C through
  `_cclosure` when built);
- incumbents, never proofs: `price_and_dive` (price-and-dive) and `task_moves` (moves and swaps
  of tasks between packs).
"""
