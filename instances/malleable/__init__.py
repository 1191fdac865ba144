"""Malleable applications under fail-stop failures (spec 001 §1.4-1.6, §3, §4).

`MalleableInstance` (the JSON contract), the formulas of spec §3.1 (`Formulas`), failure traces
(`FailureTrace`, `DrawnTrace`) and seeded generators.
"""

from resilsched.instances.malleable.formulas import Formulas, formulas_of
from resilsched.instances.malleable.generators import generate, paper_instance, tiny_instance
from resilsched.instances.malleable.model import YEAR, MalleableInstance, MalleableTask
from resilsched.instances.malleable.traces import (
    DrawnTrace,
    FailureTrace,
    scenario_of,
    trace_for,
)

__all__ = [
    "YEAR",
    "DrawnTrace",
    "FailureTrace",
    "Formulas",
    "MalleableInstance",
    "MalleableTask",
    "formulas_of",
    "generate",
    "paper_instance",
    "scenario_of",
    "tiny_instance",
    "trace_for",
]
