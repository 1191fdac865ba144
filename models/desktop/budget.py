"""Cost estimates of the phases of the desktop horizon models (decisions D-12, D-25).

Every phase that cannot be interrupted (a duration matrix, LB_cap, a heuristic run, the model
size, the model build) runs only when its estimate fits the time it is given, so that
``--time-limit`` bounds the whole ``solve`` up to the largest accepted instances (5,000 machines
x 10,000 jobs). The rates were measured on that instance (CPU time of one process on a shared
two-core machine) and are kept about twice as high.
"""

from __future__ import annotations

from resilsched.instances.desktop import DesktopInstance

#: seconds per cell to build one t_ij matrix (measured 9-15 ns)
CELL = 3e-8
#: seconds per cell of the demand of LB_cap, the matrix built (measured 2.3 ns)
DEMAND_CELL = 5e-9
#: seconds per cell of a local policy's vector work (LPT/SPT: numpy over machines per job;
#: measured 4 ns)
RUN_CELL = 8e-9
#: seconds per interval and per job of one local-policy run with its view and schedule
#: (GreedySlack: 0.10-0.20 s for 4.3e5 intervals and jobs)
RUN_ITEM = 1e-6
#: GreedySlack runs one DAslack call costs (a binary search over up to 2^40 horizons, less the
#: probes its shortcuts skip; measured 6 for FFI, 10 for LPT)
DA_RUNS = 20
#: seconds per interval and per bisection step of LB_cap (measured 7.6 ns)
CAP_ITEM = 1.5e-8
#: bisection steps of LB_cap (the horizon is below 2^40 s)
CAP_STEPS = 41
#: seconds per admissible x_jik and per interval to build a model (measured ~10 us and ~25 us)
BUILD_PAIR = 5e-5
BUILD_INTERVAL = 1e-4


def matrix_cost(instance: DesktopInstance, name: str) -> float:
    """Seconds to build the t_ij matrix `name` (``durations``, ``sorted_durations`` or
    ``durations_by_position``): 0 once the instance holds it."""
    return 0.0 if name in instance.__dict__ else CELL * instance.m * instance.n


def lb_cap_cost(instance: DesktopInstance) -> float:
    """Seconds for LB_cap: the demand reads every t_ij, the bisection every interval."""
    built = ("durations", "sorted_durations", "durations_by_position")
    matrix = 0.0 if any(name in instance.__dict__ for name in built) \
        else matrix_cost(instance, "sorted_durations")
    return matrix + DEMAND_CELL * instance.m * instance.n \
        + CAP_ITEM * instance.K * CAP_STEPS


def variant_cost(instance: DesktopInstance, global_policy: str, local: str) -> float:
    """Seconds for one variant (spec 3.4), its duration matrix included."""
    by_job = local in ("LPT", "SPT")
    matrix = matrix_cost(instance, "durations_by_position" if by_job else "sorted_durations")
    run = RUN_ITEM * (instance.K + instance.n)
    if by_job:
        run += RUN_CELL * instance.m * instance.n
    return matrix + run * (DA_RUNS if global_policy == "DAslack" else 1)


def build_cost(pairs: int, instance: DesktopInstance) -> float:
    """Seconds to build the model with `pairs` admissible x_jik over the instance's intervals."""
    return BUILD_PAIR * pairs + BUILD_INTERVAL * instance.K
