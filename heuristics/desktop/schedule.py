"""The solution object of the desktop family: an allocation pi of jobs to intervals (spec 1.4).

``intervals[(i, k)]`` is the tuple of jobs of availability k (from 1) of machine i (from 0), in
allocation order (the order the policy added them, which is also the runtime order, A-14).
`horizon` is the horizon lambda the algorithm reports (GreedySlack: H(pi); DAslack: the final u
of its binary search; exact models: the optimum found), `H` is H(pi) (spec F2) and `slack_rule`
says whether pi was built under the slack rule. Heuristics and exact models both return it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from resilsched.numeric import readable


@dataclass(frozen=True)
class DesktopSchedule:
    """pi as {(machine, interval k): jobs in allocation order} plus its horizon (spec 1.4)."""

    intervals: dict[tuple[int, int], tuple[int, ...]]
    horizon: int
    H: int
    slack_rule: bool
    policy: str = ""
    info: dict[str, Any] = field(default_factory=dict)

    def queue(self, i: int) -> list[int]:
        """Machine i's runtime FIFO order: the jobs of pi_i(1), then pi_i(2), ... (spec 1.5)."""
        return [j for (mi, _k), jobs in sorted(self.intervals.items()) if mi == i for j in jobs]

    def placement(self) -> dict[int, tuple[int, int]]:
        """job -> (machine, interval)."""
        return {j: ik for ik, jobs in self.intervals.items() for j in jobs}

    def used_machines(self) -> list[int]:
        return sorted({i for i, _ in self.intervals})

    def to_dict(self) -> dict[str, Any]:
        return {
            "policy": self.policy,
            "slack_rule": self.slack_rule,
            "horizon": self.horizon,
            "H": self.H,
            "intervals": [{"machine": i, "k": k, "jobs": list(jobs)}
                          for (i, k), jobs in sorted(self.intervals.items())],
            **({"info": self.info} if self.info else {}),
        }

    def lines(self, limit: int = 20) -> list[str]:
        rows = sorted(self.intervals.items())
        out = [f"{self.policy or 'allocation'}: horizon {self.horizon}, H(pi) {self.H}, "
               f"{sum(len(j) for _, j in rows)} jobs in {len(rows)} intervals, slack rule "
               f"{'on' if self.slack_rule else 'off'}"]
        for key in ("disturbed_makespan", "nominal_makespan"):
            if key in self.info:
                out.append(f"{key.replace('_', ' ')} {readable(self.info[key])}, stability "
                           f"sigma = makespan / horizon = {readable(self.info.get('stability'))}")
        for (i, k), jobs in rows[:limit]:
            out.append(f"machine {i} interval {k}: jobs {', '.join(map(str, jobs))}")
        if len(rows) > limit:
            out.append(f"... {len(rows) - limit} more intervals (--json prints them all)")
        return out
