"""Worksharing family: evaluator, exact and certified models (spec 003 §1.4, §2).

HiGHS is only ever loaded in a child process (see `highs_qp`), so importing this package is
safe next to OR-Tools.
"""

from resilsched.models.worksharing.evaluate import (
    IntervalSchedule,
    PieceSchedule,
    expected_work,
    monte_carlo,
    realised_work,
)

__all__ = ["IntervalSchedule", "PieceSchedule", "expected_work", "monte_carlo", "realised_work"]
