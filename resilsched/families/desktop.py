"""Registration of the desktop-grid family (spec 004): two global policies whose priority is the
local policy, the exact horizon models, the lower bounds, presets, the CSV trace reader and the
paper reproduction.

The 20 variants of spec 3.4 are (GreedySlack | DAslack) x (LPT | SPT | FFD | FFI | DPslack) x
(slack rule | none). The heuristic names the global policy, its priority the local one, and the
instance names the rule (``"slack_rule"``; ``--param slack=on|off`` overrides it), because the rule
changes the problem: its optimum, the exact model's, is the gap reference. The smoke suite holds
every instance twice, once per rule, so ``resilsched gap --family desktop`` scores all 20 variants,
each against the optimum of its own problem (the 10 rows of the report each pool a variant with
its no-slack counterpart; the stability sigma of every run is in ``extra["stability"]``).
A scenario is a disturbance (`Disturbance`): ``--failures "d,d;d,d"`` gives the shifts per
machine (write ``--failures=-3,0;2`` when the first shift is negative), ``--qbar ALPHA --seed S``
draws them at level alpha in [0, 1] (spec 4.3).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from resilsched.errors import InvalidInstance
from resilsched.instances.desktop import DesktopInstance, Disturbance, sample_disturbance
from resilsched.plugin import (
    Bound,
    Case,
    Construction,
    ExactModel,
    Family,
    Generator,
    Heuristic,
    Reproduction,
)
from resilsched.solution import HeuristicResult

LOCAL = ("LPT", "SPT", "FFD", "FFI", "DPslack")


def smoke_instances(seed: int = 0, count: int | None = None) -> list[DesktopInstance]:
    """X1 and the first three tiny instances of ``SeedSequence(seed)`` that every variant can
    schedule, each under the slack rule and without it (8 instances)."""
    from dataclasses import replace

    from resilsched.heuristics.desktop import build
    from resilsched.instances.desktop.presets import tiny_instance, x1

    base = [x1()]
    for child in np.random.SeedSequence(seed).spawn(200):
        inst = tiny_instance(child, max_intervals=4, max_jobs=4, name=f"smoke-{len(base) - 1}")
        try:
            for rule in (True, False):
                for g in ("GreedySlack", "DAslack"):
                    for local in LOCAL:
                        build(inst, g, local, rule)
        except InvalidInstance:
            continue
        base.append(inst)
        if len(base) == 4:
            break
    out = []
    for inst in base:
        out += [inst, replace(inst, slack_rule=False, name=inst.name + "-noslack")]
    return out[:count] if count else out


def _every_variant_schedules(inst: DesktopInstance) -> bool:
    """The 10 variants of the instance's rule all place every job (none raises)."""
    from resilsched.heuristics.desktop import build

    try:
        for g in ("GreedySlack", "DAslack"):
            for local in LOCAL:
                build(inst, g, local, inst.slack_rule)
    except InvalidInstance:
        return False
    return True


def library_instances(seed: int = 1, count: int | None = None) -> list[DesktopInstance]:
    """The shipped certified library ``desktop-small`` (issue 13): `count` (default 100) small
    instances, even indices under the slack rule, odd ones without it (the gap report's two
    groups), 1-3 machines of 2-5 availabilities, 3-8 jobs (`tiny_instance`), each kept only
    when the 10 variants of its rule can schedule it, and each carrying a disturbance at
    alpha = 1 (spec 4.3) in ``"failures"`` so that the gap report measures stability (and checks
    Proposition 1 where H1 holds). Instance k draws from child k of ``SeedSequence(seed)``
    (retried with that child's own children), so it does not depend on `count`."""
    from dataclasses import replace

    from resilsched.instances.desktop.presets import tiny_instance
    from resilsched.instances.fields import count_or_default

    count = count_or_default(count, 100)
    out = []
    for k, child in enumerate(np.random.SeedSequence(seed).spawn(count)):
        rule = k % 2 == 0
        for attempt in child.spawn(100):
            inst = tiny_instance(attempt, slack_rule=rule, max_machines=3, max_intervals=5,
                                 max_jobs=8, name=f"desktop-small-{seed}-{k}")
            if len(inst.p) >= 3 and _every_variant_schedules(inst):
                break
        else:
            raise InvalidInstance("seed", f"no schedulable instance for index {k} in 100 draws")
        deltas = sample_disturbance(inst, attempt.spawn(1)[0], alpha=1.0).to_list()
        out.append(replace(inst, metadata={"failures": deltas}))
    return out


def _smoke_suite() -> list[Case]:
    return [Case(inst.name, inst, sample_disturbance(inst, [2026, k]))
            for k, inst in enumerate(smoke_instances())]


def _scenario(instance: DesktopInstance, failures: Any) -> Disturbance | None:
    """``--failures`` or, without it, the instance's stored ``"failures"`` (the toolkit's name,
    docs/architecture.md; ``"deltas"`` is read too): one list of shifts per machine."""
    if failures is None:
        stored = instance.metadata.get("failures", instance.metadata.get("deltas"))
        return None if stored is None else Disturbance.parse(stored, instance)
    return Disturbance.parse(failures, instance)


def _sample(instance: DesktopInstance, qbar: float, seed: int) -> Disturbance:
    return sample_disturbance(instance, seed, alpha=qbar)


#: largest n * K for which the gap report measures the exact worst case of a schedule
EXACT_WORST_SIZE = 60


def _validate(case: Case, result: HeuristicResult) -> None:
    """The independent allocation checks, plus Proposition 1 where it applies (H1 holds and the
    schedule keeps the slack rule): sigma <= 1 on the case's disturbance and, on tiny
    instances, under the exact worst-case disturbance. A breach raises `InvalidSchedule`, a
    violation in ``resilsched gap``."""
    from resilsched.errors import InvalidSchedule
    from resilsched.models.desktop.worst_case import worst_disturbance
    from resilsched.validation.desktop import validate_desktop_schedule

    inst, sched = case.instance, result.schedule
    validate_desktop_schedule(inst, sched, last_interval=result.heuristic != "GreedySlack")
    if not (sched.slack_rule and inst.assumption_h1):
        return
    sigma = result.extra.get("stability")
    if sigma is not None and sigma > 1:
        raise InvalidSchedule(f"Proposition 1: sigma = {sigma} > 1 on the case's disturbance")
    if inst.n * inst.K <= EXACT_WORST_SIZE:
        worst = worst_disturbance(inst, sched)
        if worst.makespan > sched.horizon:
            raise InvalidSchedule(f"Proposition 1: worst disturbed makespan {worst.makespan} > "
                                  f"horizon {sched.horizon} (deltas {worst.deltas})")


def _size_fit(instance: DesktopInstance, scenario: Any = None) -> HeuristicResult:
    from resilsched.heuristics.desktop import size_fit_construction

    return size_fit_construction(instance, scenario)


def _lb_slack(instance: DesktopInstance, scenario: Any = None) -> int:
    from resilsched.bounds.desktop_slack import lb_slack

    return lb_slack(instance, scenario)


def _heuristics() -> list[Heuristic]:
    from resilsched.heuristics.desktop import da_slack_heuristic, greedy_slack_heuristic
    from resilsched.heuristics.desktop.params import DesktopParams

    return [
        Heuristic("GreedySlack", greedy_slack_heuristic,
                  "Algorithm 5: unavailabilities advanced to the worst case, bins by end date, "
                  "one call of the local policy (priority); lambda = H(pi)",
                  priorities=LOCAL, default_priority="LPT", options=DesktopParams),
        Heuristic("DAslack", da_slack_heuristic,
                  "Algorithm 6 (branch fixed): binary search on lambda, intervals cut at lambda, "
                  "bins by length, the local policy (priority) at every probe",
                  priorities=LOCAL, default_priority="LPT", options=DesktopParams),
    ]


def _exact() -> list[ExactModel]:
    from resilsched.models.desktop import cpsat, milp
    from resilsched.models.desktop.common import HorizonOptions

    return [
        ExactModel("cpsat", cpsat.solve, "CP-SAT horizon model E1-E6 under the instance's rule "
                   "(spec 7.1)", options=HorizonOptions),
        ExactModel("milp", milp.solve, "the same model as a HiGHS MILP (cross-check, spec 7.1)",
                   options=HorizonOptions),
    ]


def _read_csv(path, **options) -> list[DesktopInstance]:
    from resilsched.instances.desktop.trace import read_availability_csv

    return read_availability_csv(path, **options)


def _slack_group(instance: DesktopInstance) -> str:
    """The gap report's rows: variants with the slack rule and without it are two problems,
    each scored against its own optimum (spec 004 §3.4)."""
    return "slack" if instance.slack_rule else "noslack"


def _build() -> Family:
    from resilsched.bounds import desktop as bounds
    from resilsched.instances.desktop.presets import PRESETS

    fam = Family(
        name="desktop",
        spec="004",
        sense="min",
        objective_name="horizon",
        objective_unit="s",
        from_dict=DesktopInstance.from_dict,
        smoke_suite=_smoke_suite,
        default_exact="cpsat",
        readers={".csv": _read_csv},
        scenario=_scenario,
        sample_scenario=_sample,
        validate=_validate,
        objective=lambda case, allocation: allocation.horizon,
        group=_slack_group,
        metrics=("stability",),
        reproduction=Reproduction(
            "resilsched.reproduce.desktop",
            "spec 004 §4.5: the 20 variants on synthetic traces, Figs. 5-7 (CSV, PNG, summary.md "
            "in results/desktop/)"),
    )
    for h in _heuristics():
        fam.add(h)
    for model in _exact():
        fam.add(model)
    fam.add(Bound("LB_big", bounds.lb_big, "longest job in its earliest admissible interval "
                                           "(spec 7.2)"))
    fam.add(Bound("LB_cap", bounds.lb_cap, "smallest horizon whose usable capacity covers the "
                                           "demand (spec 7.2)"))
    fam.add(Construction("SizeFit", _size_fit, "large jobs to large intervals: windows in "
                         "non-increasing length, each takes the longest jobs that fit, bisected "
                         "on the horizon (D-27)"))
    fam.add(Bound("LB_slack", _lb_slack, "each interval charged its own jobs' slack: an LP "
                  "relaxation over job classes, certified by its dual weights (D-26)"))
    presets = dict(PRESETS)
    presets["smoke"] = ("the gap-report suite: X1 and 3 tiny instances every variant can "
                        "schedule, each with and without the slack rule", smoke_instances)
    presets["library"] = ("the shipped certified library desktop-small: 100 instances of 1-3 "
                          "machines, 2-5 availabilities and 3-8 jobs, half without the slack "
                          "rule, each with a sampled disturbance (resilsched library list)",
                          library_instances)
    for name, (description, make) in presets.items():
        fam.add(Generator(name, make, description))
    return fam


FAMILY = _build()
