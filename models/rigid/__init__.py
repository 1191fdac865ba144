"""Exact models of the rigid-job family (spec 002 §1.3, §7, §11.2), one module per concern.

- `scaling`: the scenario in integer time units (`ScaledScenario`, `scale_scenario`);
- `root_bounds` and `config_lp`: lower bounds computed before the search;
- `greedy`: the greedy list schedules that give the horizon and the hint;
- `improve`: better schedules before CP-SAT (knapsack list schedules, ruin and recreate,
  forward-backward passes; decision R30);
- `reductions`: the isolated-job reduction (decision R6);
- `constraints`: the CP-SAT attempt model, one builder per constraint, and `build_model`;
- `crefute`: the ctypes loader of the refutation search compiled in C (decision R25);
- `refute`: the branch and bound that refutes makespans after CP-SAT (decisions R7, R25), in
  Python (the oracle) or through `crefute`;
- `budget`: the shares of the time limit, the work rates of ``deterministic=True`` and the
  sizing of the parts that cannot be interrupted (`model_fits`, decisions R15-R18);
- `solve`: the entry points `solve_scenario`, `solve_failure_free`, `solve_scenario_merged`
  and their options `RigidSolveOptions`, with every phase under the deadline.

Dependencies run down this list (no module imports a later one).
"""

from resilsched.models.rigid.config_lp import (
    ConfigurationLP,
    configuration_lp_bound,
    knapsack_max,
    knapsack_table,
)
from resilsched.models.rigid.constraints import (
    AttemptVars,
    BuiltModel,
    add_attempt_chains,
    add_attempt_intervals,
    add_capacity,
    add_conflict_cliques_no_overlap,
    add_forbidden_set_clauses,
    add_hint,
    add_makespan,
    add_symmetry_breaking,
    add_wide_jobs_no_overlap,
    build_model,
    canonical_starts,
    minimal_forbidden_sets,
    symmetry_classes,
)
from resilsched.models.rigid.greedy import greedy_upper_bound, list_schedule
from resilsched.models.rigid.reductions import (
    compress_starts,
    isolated_jobs,
    place_isolated,
    split_isolated,
)
from resilsched.models.rigid.refute import CutPool, RefuteMemo, RefuteResult, refute_makespan
from resilsched.models.rigid.root_bounds import (
    chain_area_bound,
    clique_chain_bound,
    conflict_cliques,
    dff_energy_bound,
    dff_screen,
    iter_conflict_cliques,
    lower_bound_scaled,
    root_bound,
)
from resilsched.models.rigid.scaling import MAX_SCALE, ScaledScenario, scale_scenario
from resilsched.models.rigid.solve import (
    MAX_ATTEMPTS,
    REFUTE_SHARE,
    SOLVER,
    RigidSolveOptions,
    ScaledResult,
    solve_failure_free,
    solve_scaled,
    solve_scenario,
    solve_scenario_merged,
)

__all__ = [
    "MAX_ATTEMPTS", "MAX_SCALE", "REFUTE_SHARE", "SOLVER", "AttemptVars", "BuiltModel",
    "ConfigurationLP", "CutPool", "RefuteMemo", "RefuteResult", "RigidSolveOptions", "ScaledResult",
    "ScaledScenario", "add_attempt_chains", "add_attempt_intervals", "add_capacity",
    "add_conflict_cliques_no_overlap", "add_forbidden_set_clauses", "add_hint", "add_makespan",
    "add_symmetry_breaking", "add_wide_jobs_no_overlap", "build_model", "canonical_starts",
    "chain_area_bound", "clique_chain_bound", "compress_starts", "configuration_lp_bound",
    "conflict_cliques", "dff_energy_bound", "dff_screen", "greedy_upper_bound", "isolated_jobs",
    "iter_conflict_cliques", "knapsack_max", "knapsack_table", "list_schedule",
    "lower_bound_scaled", "minimal_forbidden_sets", "place_isolated", "refute_makespan",
    "root_bound", "scale_scenario", "solve_failure_free", "solve_scaled", "solve_scenario",
    "solve_scenario_merged", "split_isolated", "symmetry_classes",
]
