"""Hypothesis strategies shared by the rigid-family tests."""

from __future__ import annotations

from hypothesis import strategies as st

from resilsched.instances.failures import Scenario
from resilsched.instances.rigid import RigidInstance


@st.composite
def tiny_cases(draw):
    """A tiny rigid instance and failure scenario (spec 002 §11.5 item 1): P <= 6, n <= 6,
    integer lengths <= 6, at most 2 failures per job."""
    P = draw(st.integers(1, 6))
    n = draw(st.integers(1, 6))
    jobs = [(draw(st.integers(1, P)), draw(st.integers(1, 6))) for _ in range(n)]
    f = tuple(draw(st.integers(0, 2)) for _ in range(n))
    return RigidInstance.build(P, jobs), Scenario(f)
