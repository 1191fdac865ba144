"""The parameters of the desktop heuristics (``--param NAME=VALUE``): the slack rule and the
fill of FFD and FFI (`resilsched.params`; spec 004 §3.4, decision D-24).

GreedySlack and DAslack (`resilsched.heuristics.desktop`) take these as keyword-only arguments
with the same defaults (tests/resilsched/test_params.py checks it); the family's registration
(`resilsched.families.desktop`) names the dataclass.

>>> from resilsched.params import params_of
>>> [p.describe() for p in params_of(DesktopParams)]
['slack=instance (instance|on|off)', 'fill=interval (interval|job)']
"""

from __future__ import annotations

from dataclasses import dataclass

from resilsched.heuristics.desktop import Fill, Slack


@dataclass(frozen=True)
class DesktopParams:
    """``slack``: the instance's slack rule (``instance``) or ``on`` / ``off``; ``fill``: FFD
    and FFI bin by bin (``interval``, Algorithm 3) or job by job (``job``, the prose, D-24)."""

    slack: Slack = "instance"
    fill: Fill = "interval"
