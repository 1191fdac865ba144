"""Worksharing family instances: risk functions, instances, generators (spec 003)."""

from resilsched.instances.worksharing.model import FAMILY, FORMAT_VERSION, WorksharingInstance
from resilsched.instances.worksharing.risk import (
    EmpiricalRisk,
    ExponentialRisk,
    LinearRisk,
    Risk,
    WeibullRisk,
    risk_from_dict,
)

__all__ = ["FAMILY", "FORMAT_VERSION", "WorksharingInstance", "LinearRisk", "ExponentialRisk",
           "WeibullRisk", "EmpiricalRisk", "Risk", "risk_from_dict"]
