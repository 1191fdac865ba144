"""The time budget of the rigid exact models: phase shares, work rates, the safety net (spec 002
§11.2; brief of issue 10, contract 2).

Every phase of `resilsched.models.rigid.solve` takes its time from the call's deadline:

* the greedy schedules after the first get `GREEDY_SHARE` of the time left, the costly root
  bounds `ROOT_SHARE`, the schedule improvement `IMPROVE_SHARE`, the optional model clauses
  `BUILD_SHARE`;
* the parts that cannot be interrupted are sized before they start: the CP-SAT model is built
  only when `model_fits` (its cost is linear in the attempts), a knapsack of the configuration
  LP only when `resilsched.models.rigid.config_lp.affordable`, and the time the output takes
  afterwards (`OUTPUT_SECONDS_PER_ATTEMPT`) is kept aside from the start.

With ``deterministic=True`` the phases are limited by work instead (`Phase`: greedy
schedules, improvement rounds, dual-feasible cells, knapsacks, clauses, enumeration steps,
search nodes; CP-SAT's deterministic time at the rigid rate of
`resilsched.solvers.CP_SAT_UNITS_PER_SECOND`), at rates set below what a loaded 2-core
machine does (docs/performance.md), so that the same call gives the same result; the wall
clock then only acts as a safety net (`safety_net`).
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass

from resilsched.deadline import Deadline
from resilsched.models.rigid.config_lp import MAX_ROUNDS, knapsack_seconds
from resilsched.options import SolveOptions

#: Shares of the time left for the greedy schedules after the first, the costly root bounds
#: and the optional model clauses.
GREEDY_SHARE = 0.3
ROOT_SHARE = 0.15
BUILD_SHARE = 0.1
#: Share of the time left after the root bounds for the schedule improvement
#: (`resilsched.models.rigid.improve`, decision R30); it stops earlier when it stalls. On
#: rounded times, where CP-SAT can prove nothing, or from `LARGE_ATTEMPTS` attempts on, where
#: its 60 s found no better schedule than the improvement's, `IMPROVE_SHARE_LARGE`.
IMPROVE_SHARE = 0.5
IMPROVE_SHARE_LARGE = 0.9
LARGE_ATTEMPTS = 80
#: Share of the refutation search's time for building its cut pool.
POOL_SHARE = 0.25
#: Seconds per attempt to build the CP-SAT model and for CP-SAT to load and presolve it, the
#: part of the call that cannot be interrupted (0.1-0.5 ms measured on a loaded 2-core machine,
#: the most with the conflict cliques of many jobs).
BUILD_SECONDS_PER_ATTEMPT = 3e-4
#: Seconds per attempt kept at the end of the call for what follows the search: the schedule
#: in the instance's unit, the paper's bound, and the caller's `Solution.to_dict` and printing
#: (3-5e-5 s per attempt measured on a loaded machine, 0.35 s for 10^4 attempts).
OUTPUT_SECONDS_PER_ATTEMPT = 8e-5
#: Importing OR-Tools (and the pandas it loads) on the first solve: 0.5-2.3 s measured.
IMPORT_SECONDS = 1.0
#: Work per second of budget under ``deterministic=True`` (measured rates in the comments).
GREEDY_SECONDS_PER_ATTEMPT = 2e-5  # one greedy schedule (0.7-1.7e-5 s per attempt)
DFF_CELLS_PER_SECOND = 4e6  # widths x values of k screened (9e6 per second)
CLAUSES_PER_SECOND = 5e3  # forbidden-set clauses added to the model (about 1e4 per second)
STEPS_PER_SECOND = 1e5  # forbidden-set enumeration steps (2e5 per second)
NODES_PER_SECOND = 3e3  # refutation search nodes (6000-8500 measured)
#: ... in C (`resilsched.models.rigid.crefute`; 3-6e5 nodes per second measured at load 5-7)
C_NODES_PER_SECOND = 1e5
#: Improvement rounds x attempts^2 per second (one round, a knapsack list schedule and its
#: forward-backward passes, is quadratic in the attempts: 20-30 rounds per second measured at
#: 100 attempts on the loaded 2-core machine, 2-3e5; set below)
IMPROVE_WORK_PER_SECOND = 1.5e5
#: Most forbidden-set clauses in any case.
MAX_CLAUSES = 20_000


@dataclass(frozen=True)
class Phase:
    """Limits of one phase: a wall-clock deadline, and in deterministic mode work caps derived
    from its nominal budget `seconds` (None: no cap)."""

    deadline: Deadline | None
    seconds: float  # the phase's nominal budget (inf without a limit)
    deterministic: bool

    @property
    def capped(self) -> bool:
        return self.deterministic and not math.isinf(self.seconds)

    def schedules(self, attempts: int) -> int | None:
        """Greedy schedules after the first."""
        return int(self.seconds / (attempts * GREEDY_SECONDS_PER_ATTEMPT)) if self.capped \
            else None

    def max_k(self, widths: int) -> int | None:
        """Values of k of the dual-feasible screening (half of the phase)."""
        return max(1, int(0.5 * self.seconds * DFF_CELLS_PER_SECOND) // widths) if self.capped \
            else None

    def rounds(self, n: int, P: int) -> int:
        """Column-generation rounds (half of the phase): each costs a knapsack, and the
        certificate one more, so 0 (no LP) unless two fit."""
        if not self.capped:
            return MAX_ROUNDS
        return max(0, min(MAX_ROUNDS, int(0.5 * self.seconds / knapsack_seconds(n, P)) - 1))

    def improve_rounds(self, attempts: int) -> int | None:
        """Rounds of the schedule improvement (`IMPROVE_WORK_PER_SECOND`)."""
        return int(self.seconds * IMPROVE_WORK_PER_SECOND / max(1, attempts) ** 2) \
            if self.capped else None

    def max_clauses(self) -> int:
        return min(MAX_CLAUSES, int(self.seconds * CLAUSES_PER_SECOND)) if self.capped \
            else MAX_CLAUSES

    def max_steps(self) -> int | None:
        return int(self.seconds * STEPS_PER_SECOND) if self.capped else None


def safety_net(opts: SolveOptions) -> Deadline:
    """The wall-clock stop of ``deterministic=True``: 1.25 time_limit + 0.5 s from the start,
    inside the contract's 1.25 time_limit + 1 s, so that the work limits end the phases."""
    seconds = None if opts.time_limit is None else 1.25 * opts.time_limit + 0.5
    return Deadline(seconds, start=opts.deadline.start)


def phase(opts: SolveOptions, share: float) -> Phase:
    """`share` of the remaining time; in deterministic mode a share of the time limit, with
    `safety_net` as the only wall-clock stop."""
    if opts.time_limit is None:
        return Phase(None, math.inf, opts.deterministic)
    if opts.deterministic:
        return Phase(safety_net(opts), share * opts.time_limit, True)
    seconds = opts.deadline.share(share)
    return Phase(Deadline(seconds), seconds, False)


def model_fits(opts: SolveOptions, attempts: int) -> bool:
    """Whether building the CP-SAT model of `attempts` intervals takes at most half of the time
    left, and importing OR-Tools (when not done yet) fits in the time left plus the contract's
    margin 0.25 time_limit + 1 s (0.5 s of it kept for the output). Under
    ``deterministic=True`` both are judged on the time limit (the import counted whether done
    or not), a rule that reads neither the clock nor the process's state. Else the greedy
    schedule is the answer."""
    if opts.time_limit is None:
        return True
    cost = attempts * BUILD_SECONDS_PER_ATTEMPT
    imported = "ortools.sat.python.cp_model" in sys.modules and not opts.deterministic
    load = 0.0 if imported else IMPORT_SECONDS
    left = (1.0 - ROOT_SHARE - GREEDY_SHARE) * opts.time_limit if opts.deterministic \
        else opts.deadline.remaining()
    return cost <= 0.5 * left and load <= left + 0.25 * opts.time_limit + 0.5
