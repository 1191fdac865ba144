"""Lower bounds on the optimal horizon lambda* of the desktop family (spec 004 §7.2).

Both are valid for the exact model of §7.1 under the rule the instance names (the paper has no
bound; DAslack starts from l = 0). With q_ik = e_i(k-1) + u_i(k):

- ``LB_big``: the longest job j* needs an interval with 2 t_ij* <= a_ik, and then
  lambda >= q_ik + S_ik + M_ik >= q_ik + 2 t_ij*; so LB_big = min over those (i, k) of
  q_ik + 2 t_ij*. Without the slack rule: min over t_ij* <= a_ik of q_ik + t_ij*.
- ``LB_cap``: with w_ik(lambda) = min(a_ik, lambda - q_ik) and tmin_i = min_j t_ij, a used
  interval holds S_ik <= w_ik - M_ik <= w_ik - tmin_i and needs w_ik >= 2 tmin_i
  (c_ik = w_ik - tmin_i then, else 0); without the rule S_ik <= w_ik and w_ik >= tmin_i
  (c_ik = w_ik then). The demand in reference units is D = sum_j min_i t_ij / b_i, and
  LB_cap = min{lambda : sum_ik c_ik(lambda) / b_i >= D}, found by bisection (the left side is
  non-decreasing in lambda). D is lowered by a relative 1e-9 so float rounding never makes
  the bound exceed the optimum.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from resilsched.instances.desktop import DesktopInstance

#: relative margin taken off the demand D (float rounding)
DEMAND_MARGIN = 1e-9


#: rows of t_ij read at once for the demand (keeps the float temporary small)
DEMAND_BLOCK = 64


def _intervals(instance: DesktopInstance) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(machine index, q, a) of every interval (i, k), k = 1..K_i."""
    flat = instance.flat
    mi = np.repeat(np.arange(instance.m), np.diff(flat["off"]))
    return mi, flat["q"], flat["a"]


def lb_big(instance: DesktopInstance, scenario: Any = None,
           slack_rule: bool | None = None) -> int:
    """LB_big (spec 7.2): the longest job in its earliest-ending admissible interval."""
    rule = instance.slack_rule if slack_rule is None else slack_rule
    mi, q, a = _intervals(instance)
    t = instance.longest_durations[mi]
    need = 2 * t if rule else t
    ok = need <= a
    return int((q[ok] + need[ok]).min())


def least_by_position(instance: DesktopInstance) -> np.ndarray:
    """min_i t_ij / b_i of every job (reference units), indexed by sorted position (`order`).

    Reads whichever t_ij matrix the instance holds (`sorted_durations`, the one the bin policies
    and the models use, when none is built)."""
    built = instance.__dict__
    b = np.asarray([float(x) for x in instance.b])
    if "durations_by_position" in built and "sorted_durations" not in built:
        T = instance.durations_by_position  # (n, m): one row per sorted position
        return np.concatenate([(T[lo:lo + DEMAND_BLOCK] / b).min(axis=1)
                               for lo in range(0, instance.n, DEMAND_BLOCK)])
    by_job = "durations" in built and "sorted_durations" not in built
    T = instance.durations if by_job else instance.sorted_durations
    least = np.full(instance.n, np.inf)
    for lo in range(0, instance.m, DEMAND_BLOCK):
        block = T[lo:lo + DEMAND_BLOCK] / b[lo:lo + DEMAND_BLOCK, None]
        np.minimum(least, block.min(axis=0), out=least)
    return least[np.asarray(instance.order)] if by_job else least


def demand(instance: DesktopInstance) -> float:
    """D = sum_j min_i t_ij / b_i, in reference units (spec 7.2), lowered by `DEMAND_MARGIN`;
    the minima are summed in job order."""
    least = least_by_position(instance)
    in_job_order = np.empty_like(least)
    in_job_order[np.asarray(instance.order)] = least
    return float(in_job_order.sum()) * (1 - DEMAND_MARGIN)


def lb_cap(instance: DesktopInstance, scenario: Any = None,
           slack_rule: bool | None = None) -> int:
    """LB_cap (spec 7.2): the smallest horizon whose usable capacity covers the demand."""
    rule = instance.slack_rule if slack_rule is None else slack_rule
    mi, q, a = _intervals(instance)
    need = demand(instance)
    b = np.asarray([float(x) for x in instance.b])
    tmin = instance.shortest_durations[mi]
    inv_b = 1.0 / b[mi]

    def capacity(lam: int) -> float:
        w = np.minimum(a, lam - q)
        if rule:
            c = np.where(w >= 2 * tmin, w - tmin, 0)
        else:
            c = np.where(w >= tmin, w, 0)
        return float((c * inv_b).sum())

    lo, hi = 0, int((q + a).max())
    if capacity(hi) < need:
        return hi
    while hi - lo > 1:  # capacity(lo) < demand <= capacity(hi)
        mid = (lo + hi) // 2
        if capacity(mid) >= need:
            hi = mid
        else:
            lo = mid
    return hi


def lower_bound(instance: DesktopInstance, scenario: Any = None,
                slack_rule: bool | None = None) -> int:
    """max(LB_big, LB_cap) (spec 7.2)."""
    return max(lb_big(instance, scenario, slack_rule), lb_cap(instance, scenario, slack_rule))
