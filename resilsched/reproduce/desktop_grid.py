"""The instances of the desktop reproduction (spec 4.1-4.2), shared by the main run
(`desktop`) and the checks (`desktop_checks`)."""

from __future__ import annotations

import functools
from typing import Any


@functools.lru_cache(maxsize=4)
def _machines(hosts: int, seed: int, span_days: float):
    from resilsched.instances.desktop.generators import AvailabilityModel, availability_machines

    return availability_machines(hosts, seed, AvailabilityModel(span=span_days * 86400))


def task_instance(task: dict[str, Any]):
    """The instance of a task (spec 4.1-4.2, absorbed at 2 p_max when asked)."""
    from resilsched.instances.desktop import DesktopInstance
    from resilsched.instances.desktop.generators import absorb_short, job_amounts

    ms, js = task["machine_set"], task["job_set"]
    machines = _machines(task["hosts"], task["seed"] + ms, task["span_days"])
    p = job_amounts(task["job_count"], 100 + task["seed"] + js)
    inst = DesktopInstance(machines, p, True, f"m{ms}-j{js}")
    return absorb_short(inst) if task["absorb"] else inst
