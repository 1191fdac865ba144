"""Worksharing heuristics: group charts, partitioning, baselines, experiments (spec 003 §3, §4)."""

from resilsched.heuristics.worksharing.charts import CHARTS, expand_chart, k_constant, k_min
from resilsched.heuristics.worksharing.partition import Coterie, partition
from resilsched.heuristics.worksharing.schedules import (
    BASELINES,
    GROUP_HEURISTICS,
    Plan,
    run_heuristic,
)

__all__ = ["CHARTS", "expand_chart", "k_constant", "k_min", "Coterie", "partition", "BASELINES",
           "GROUP_HEURISTICS", "Plan", "run_heuristic"]
