"""Worksharing family: evaluator, exact and certified models (spec 003 §1.4, §2)."""

from resilsched.models.worksharing.evaluate import (
    IntervalSchedule,
    PieceSchedule,
    expected_work,
    monte_carlo,
    realised_work,
)

__all__ = ["IntervalSchedule", "PieceSchedule", "expected_work", "monte_carlo", "realised_work"]
