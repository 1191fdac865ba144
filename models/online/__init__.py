"""Optimal online policies on small instances (issue 26), one module per concern.

- `problem`: jobs with their modes, exact q_j, times scaled to integers, the state-count bound;
- `space`: the states of the decision process (jobs done, running attempts with their
  remaining times) and every action and outcome, explored from time 0;
- `floatdp`: policy iteration in floats per level, and the certified lower bound;
- `exact`: a fixed policy's exact expected makespan (functional graphs, cycles in closed form);
- `verify`: the proof in Fractions that the policy is optimal (policy iteration where it is not);
- `policy`: policies over nodes, `DecisionTable` (query, replay, Monte-Carlo);
- `heuristics`: the rigid and moldable heuristics as policies (their own decisions);
- `expectation`: E[T_OPT(f)] and any heuristic's E[T_H] over the scenarios, enumerated with a
  rigorous tail or sampled;
- `solve`: the exact model ``online-optimal`` (`solve_rigid`, `solve_moldable`,
  `OnlineOptions`).

Dependencies run down this list (no module imports a later one, but `policy` builds on
`exact`).
"""
