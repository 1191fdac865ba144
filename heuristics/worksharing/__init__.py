"""Worksharing heuristics (spec 003 §3): group charts, partitioning, the schedule builders and
the registered heuristics (`run`), plus the one-worker closed forms they share with the exact
model (`one_worker`)."""

from resilsched.heuristics.worksharing.charts import CHARTS, expand_chart, k_constant, k_min
from resilsched.heuristics.worksharing.partition import Coterie, partition
from resilsched.heuristics.worksharing.plan import Plan
from resilsched.heuristics.worksharing.run import (
    brute,
    cyclic_rep,
    greedy,
    greedy_thm4,
    group_cyclic,
    group_fat_snake,
    group_mirror,
    group_reverse,
    group_snake,
    no_rep,
    random_rep,
)

__all__ = ["CHARTS", "expand_chart", "k_constant", "k_min", "Coterie", "partition", "Plan",
           "brute", "cyclic_rep", "greedy", "greedy_thm4", "group_cyclic", "group_fat_snake",
           "group_mirror", "group_reverse", "group_snake", "no_rep", "random_rep"]
