"""Independent validators of what heuristics and models return (docs/architecture.md,
"Conventions"): one module per kind of solution object, sharing no code with the simulators or
solvers they check. Every schedule a test makes goes through one of them.
"""

from resilsched.validation.attempts import validate_attempts, validate_rigid_schedule
from resilsched.validation.packs import check_packs
from resilsched.validation.worksharing import validate_worksharing_schedule

__all__ = ["check_packs", "validate_attempts", "validate_rigid_schedule",
           "validate_worksharing_schedule"]
