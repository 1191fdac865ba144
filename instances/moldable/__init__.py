"""Moldable jobs under silent errors (spec 000): speedup models, instances, generators, fixtures."""

from resilsched.instances.moldable.model import MoldableInstance
from resilsched.instances.moldable.speedup import (
    MODELS,
    Amdahl,
    Communication,
    Mix,
    Power,
    Roofline,
    Speedup,
    Table,
    pareto_front_of,
    speedup_from_dict,
)

__all__ = ["MODELS", "Amdahl", "Communication", "Mix", "MoldableInstance", "Power", "Roofline",
           "Speedup", "Table", "pareto_front_of", "speedup_from_dict"]
