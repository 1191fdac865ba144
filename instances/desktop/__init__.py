"""Desktop grids with predicted availabilities (spec 004): instance type, disturbances, the
synthetic trace and job generators, the CSV trace reader and named presets."""

from resilsched.instances.desktop.disturbance import Disturbance, sample_disturbance
from resilsched.instances.desktop.model import DesktopInstance, Machine

__all__ = ["DesktopInstance", "Disturbance", "Machine", "sample_disturbance"]
