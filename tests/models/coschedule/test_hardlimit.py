"""The forked hard limit of solver phases (decision C16) and the deadline checks of the pool."""

from __future__ import annotations

import os
import time

import pytest

from resilsched.deadline import Deadline
from resilsched.instances.coschedule import random_instance
from resilsched.models.coschedule.hardlimit import PhaseTimeout, run_limited
from resilsched.models.coschedule.setpart.pool import build_pool
from resilsched.models.coschedule.setpart.subset_rows import SubsetRowCuts

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")


def test_result_and_exception_come_back():
    assert run_limited(lambda: {"packs": [(0, 1)], "pid": os.getpid()}, 5)["pid"] != os.getpid()
    with pytest.raises(ZeroDivisionError):
        run_limited(lambda: 1 / 0, 5)


def test_a_phase_that_ignores_its_limit_is_killed():
    t0 = time.perf_counter()
    with pytest.raises(PhaseTimeout):
        run_limited(lambda: time.sleep(30), 0.3)
    assert time.perf_counter() - t0 < 2.0
    with pytest.raises(PhaseTimeout):
        run_limited(lambda: 1, 0.0)


def test_without_a_limit_the_phase_runs_here():
    assert run_limited(os.getpid, float("inf")) == os.getpid()


def test_pool_and_cut_index_stop_at_the_deadline():
    inst = random_instance(0, 150, 16, 3, kind="amdahl")
    with pytest.raises(PhaseTimeout):
        build_pool(inst, Deadline(0.01))
    small = build_pool(random_instance(0, 40, 16, 3, kind="amdahl"))
    with pytest.raises(PhaseTimeout):
        SubsetRowCuts(40, small.packs, Deadline(0.0))
