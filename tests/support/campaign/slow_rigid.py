"""R-LIST-0 20 ms slower, a plug-in heuristic (``tests.support.campaign.slow_rigid:run``) for
campaigns that a test stops mid-run (tests/docs/test_slurm.py): a registered heuristic's task
takes a few ms on the compiled core, too little for the stop to land before the end."""

from __future__ import annotations

import time

from resilsched.heuristics.rigid.rlist import r_list_0


def run(instance, scenario=None, priority=None, *, seed: int = 0):
    """R-LIST-0 (its default priority) after 20 ms."""
    time.sleep(0.02)
    return r_list_0(instance, scenario, priority, seed=seed)
