"""Lower bounds for k-in-p co-scheduling (spec 001 §7, ``bounds/kinp.py`` [INFERRED] entries).

Let a_i = t_{i,p} (the shortest time of T_i, by (1.1)) and w_i = pmin_i t_{i,pmin_i} (its
smallest work, by (1.2); t_{i,1} in the paper). For every co-schedule of cost C:

- area: C >= sum_i w_i / p, since each pack b of cost C_b offers p C_b processor-time and task i
  uses sigma(i) t_{i,sigma(i)} >= w_i of it;
- max: C >= max_i a_i;
- pack count: with at most k' tasks per pack (k' = min(k, largest s with the s smallest pmin
  summing to <= p)), sort a non-increasingly; the r-th largest pack cost is at least the
  (r k' + 1)-th largest a, so C >= sum_{r=0}^{ceil(n/k')-1} a_(r k' + 1);
- combined: the maximum of the above.

Each returns the instance's own number type (Fraction for the area of integer tables).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from resilsched.instances.coschedule import CoscheduleInstance


def _div(x: Any, p: int) -> Any:
    return Fraction(x, p) if isinstance(x, (int, Fraction)) else x / p


def lb_area(inst: CoscheduleInstance, scenario=None) -> Any:
    """sum_i pmin_i t_{i,pmin_i} / p."""
    return _div(sum(inst.pmin[i] * inst.t(i, inst.pmin[i]) for i in range(inst.n)), inst.p)


def lb_max(inst: CoscheduleInstance, scenario=None) -> Any:
    """max_i t_{i,p}."""
    return max(inst.t(i, inst.p) for i in range(inst.n))


def effective_k(inst: CoscheduleInstance) -> int:
    """Largest number of tasks any pack can hold: min(k, s) with s the most pmin's fitting in p."""
    total, s = 0, 0
    for x in sorted(inst.pmin):
        if total + x > inst.p:
            break
        total += x
        s += 1
    return max(1, min(inst.k, s))


def lb_packs(inst: CoscheduleInstance, scenario=None) -> Any:
    """sum_r a_(r k' + 1) over a = t_{.,p} sorted non-increasingly (the pack-count bound)."""
    a = sorted((inst.t(i, inst.p) for i in range(inst.n)), reverse=True)
    return sum(a[:: effective_k(inst)], 0)


def lb_combined(inst: CoscheduleInstance, scenario=None) -> Any:
    """max(area, pack count) (the pack-count bound already dominates max_i t_{i,p})."""
    return max(lb_area(inst), lb_packs(inst))
