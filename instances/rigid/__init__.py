"""Rigid parallel jobs under silent errors (spec 002): instance type, failure calibration,
generators (synthetic §5.1, adversarial Props. 3-4), SWF reader and a Mira-like stand-in."""

from resilsched.instances.rigid.model import RigidInstance, RigidJob

__all__ = ["RigidInstance", "RigidJob"]
