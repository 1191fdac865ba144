"""The parameters of the malleable heuristics (``--param NAME=VALUE``): the simulator's
switches A-6 to A-16 (`resilsched.heuristics.malleable.state.Options`) and the step of A-18
(`resilsched.params`).

Every heuristic of `resilsched.heuristics.malleable.run` takes these as keyword-only arguments
with the same defaults (tests/resilsched/test_params.py checks it); the family's registration
(`resilsched.families.malleable`) names the dataclass.

>>> from resilsched.params import params_of
>>> [p.name for p in params_of(MalleableParams)][-2:]
['refill', 'step']
"""

from __future__ import annotations

from dataclasses import dataclass

from resilsched.heuristics.malleable.run import (
    Baseline,
    EndMode,
    ImproveRule,
    LookaheadPool,
    OnStuck,
    Progress,
    Step,
)


@dataclass(frozen=True)
class MalleableParams:
    """The switches of spec 001 §6: A-6 (end_mode), A-9 (progress), A-10 (baseline), A-11
    (improve_rule), A-12 (on_stuck), A-14 (lookahead_release, lookahead_pool), A-15 (refill),
    A-18 (step: 1 in the fault-free context); the defaults are the spec's recommendations."""

    end_mode: EndMode = "realized"
    progress: Progress = "clamp"
    baseline: Baseline = "stale"
    improve_rule: ImproveRule = "lookahead"
    on_stuck: OnStuck = "stop"
    lookahead_release: bool = True
    lookahead_pool: LookaheadPool = "faulty_only"
    refill: bool = False
    step: Step = 2
