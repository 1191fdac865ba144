"""``setpart-cg``: column generation, cuts and reduced-cost closure over the explicit pool of
packs (spec 001 §2.3; decisions C10, C13-C14, C26-C29).

- `solve`: the model (`solve_setpart_cg`) and the order of its phases;
- `root_lp`: the root LP by column generation with subset-row cuts (also the bound
  ``setpart-lp``);
- incumbents, never proofs: `pair_exchange` (two packs re-split), `lp_dive` (LP dives over the
  pool), `lns` (large-neighbourhood search re-partitioning the tasks of a few packs);
- the proof: `closure_rounds` (cutoff rounds over growing reduced-cost closures) answered by
  `closure_search` (the exact depth-first search in C, HiGHS's MIP without the kernels).
"""
