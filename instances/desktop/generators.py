"""Seeded synthetic stand-ins for the SETI@home and Docking@Home traces (spec 004 §4.1, §4.2).

Availabilities (§4.1): every host is an independent alternating renewal process, availability
A then unavailability U, in integer seconds >= 1, started at -W (warm-up, default 7 days) and cut
at the origin 0 ("the middle of the trace"): a host available at 0 gets e(0) = 0 and its first
availability truncated to start at 0; a host unavailable at 0 gets e(0) = the end of that
unavailability (interval 0, never disturbed). The trace runs until e(K) >= span (default 30
days). Defaults: A ~ Weibull(shape 0.4, scale 1.489 h) (mean 4.95 h, 94.5% of available time in
availabilities > 2 h), U ~ LogNormal(median 3 h, sigma 1.0), each with a per-host log-normal
factor (sigma 0.5, mean 1) on its scale; speeds s_i ~ LogNormal(0, 0.35) and b_i = s_ref / s_i
with s_ref the median speed of the set (A-31).

Jobs (§4.2): p_j ~ LogNormal(median 1800 s, sigma 0.5) clipped to [60, 3600] and rounded to
integers.

`absorb_short` (§4.1 item 6, A-11) merges every availability shorter than a threshold (default
2 p_max, which enforces H1) with its neighbouring unavailabilities.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from resilsched.errors import InvalidInstance
from resilsched.instances.desktop.model import MAX_TIME, DesktopInstance, Machine
from resilsched.numeric import strict_int

HOUR = 3600
DAY = 24 * HOUR


def _rng(seed: Any) -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, np.random.SeedSequence):
        return np.random.default_rng(seed)
    return np.random.default_rng(strict_int(seed, "seed"))


def _positive(x: Any, name: str, high: float = float(MAX_TIME)) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
        raise InvalidInstance(name, f"{x!r} must be a finite number")
    if not 0 < x <= high:
        raise InvalidInstance(name, f"{x} must be in (0, {high:g}]")
    return float(x)


def _count(x: Any, name: str, high: int) -> int:
    return strict_int(x, name, 1, high)


@dataclass(frozen=True)
class AvailabilityModel:
    """Parameters of the synthetic availability traces (spec 4.1); times in seconds."""

    weibull_shape: float = 0.4
    weibull_scale: float = 1.489 * HOUR
    unavail_median: float = 3.0 * HOUR
    unavail_sigma: float = 1.0
    host_sigma: float = 0.5
    speed_sigma: float = 0.35
    warmup: float = 7 * DAY
    span: float = 30 * DAY

    def check(self) -> AvailabilityModel:
        for name in ("weibull_shape", "weibull_scale", "unavail_median", "warmup", "span"):
            _positive(getattr(self, name), name)
        for name in ("unavail_sigma", "host_sigma", "speed_sigma"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 5:
                raise InvalidInstance(name, f"{v!r} must be a number in [0, 5]")
        if self.span + self.warmup > 10 * 365 * DAY:
            raise InvalidInstance("span", "warmup + span must stay below 10 years")
        return self


def _host_trace(rng: np.random.Generator, model: AvailabilityModel) -> tuple[int, list, list]:
    """One host's (e0, a, u) from the renewal process started at -warmup and cut at 0."""
    sig = model.host_sigma
    fa = math.exp(sig * rng.standard_normal() - sig * sig / 2)  # mean-1 host factors
    fu = math.exp(sig * rng.standard_normal() - sig * sig / 2)
    scale_a = model.weibull_scale * fa
    mu_u = math.log(model.unavail_median * fu)
    t = -int(round(model.warmup))
    end = int(round(model.span))
    a_out: list[int] = []
    u_out: list[int] = []
    e0: int | None = None
    while True:
        av = np.maximum(1, np.floor(scale_a * rng.weibull(model.weibull_shape, 64) + 0.5))
        un = np.maximum(1, np.floor(np.exp(mu_u + model.unavail_sigma
                                           * rng.standard_normal(64)) + 0.5))
        for x, y in zip(av.astype(np.int64).tolist(), un.astype(np.int64).tolist(), strict=True):
            u_start = t + x
            t = u_start + y
            if e0 is None:
                if t <= 0:
                    continue  # the whole cycle lies in the warm-up
                if u_start > 0:  # available at the cut: availability 1 truncated to [0, u_start)
                    e0 = 0
                    a_out.append(u_start)
                    u_out.append(y)
                else:  # unavailable at the cut: that unavailability is interval 0
                    e0 = t
                    continue
            else:
                a_out.append(x)
                u_out.append(y)
            if t >= end:
                return e0, a_out, u_out


def availability_machines(hosts: int, seed: Any,
                          model: AvailabilityModel | None = None) -> tuple[Machine, ...]:
    """`hosts` machines from the seeded renewal process of spec 4.1 (machine set `seed`)."""
    hosts = _count(hosts, "hosts", 100_000)
    model = (model or AvailabilityModel()).check()
    rng = _rng(seed)
    speeds = np.exp(model.speed_sigma * rng.standard_normal(hosts))
    s_ref = float(np.median(speeds))
    out = []
    for i in range(hosts):
        e0, a, u = _host_trace(rng, model)
        out.append(Machine(s_ref / float(speeds[i]), e0, tuple(a), tuple(u)))
    return tuple(out)


def job_amounts(n: int, seed: Any, median: float = 1800.0, sigma: float = 0.5,
                low: float = 60.0, high: float = 3600.0) -> tuple[int, ...]:
    """p_j ~ LogNormal(median, sigma) clipped to [low, high], rounded to integers (spec 4.2)."""
    n = _count(n, "jobs", 10_000_000)
    median = _positive(median, "median")
    low, high = _positive(low, "low"), _positive(high, "high")
    if low > high:
        raise InvalidInstance("low", f"{low} exceeds high={high}")
    if isinstance(sigma, bool) or not isinstance(sigma, (int, float)) or not 0 <= sigma <= 5:
        raise InvalidInstance("sigma", f"{sigma!r} must be a number in [0, 5]")
    rng = _rng(seed)
    p = np.exp(math.log(median) + sigma * rng.standard_normal(n))
    p = np.clip(np.floor(p + 0.5), math.ceil(low), math.floor(high)).astype(np.int64)
    return tuple(int(x) for x in p)


def synthetic_instance(hosts: int, jobs: int, machine_seed: Any, job_seed: Any, *,
                       model: AvailabilityModel | None = None, slack_rule: bool = True,
                       absorb: bool = False, name: str = "") -> DesktopInstance:
    """Machine set `machine_seed` with job set `job_seed` (spec 4.1-4.2); `absorb` applies
    `absorb_short` at 2 p_max."""
    machines = availability_machines(hosts, machine_seed, model)
    p = job_amounts(jobs, job_seed)
    meta = {"generator": "synthetic-4.1", "machine_seed": _seed_repr(machine_seed),
            "job_seed": _seed_repr(job_seed)}
    inst = DesktopInstance(machines, p, slack_rule, name, meta)
    return absorb_short(inst) if absorb else inst


def _seed_repr(seed: Any) -> Any:
    if isinstance(seed, np.random.SeedSequence):
        return list(seed.spawn_key) or seed.entropy
    return int(seed) if isinstance(seed, (int, np.integer)) else str(seed)


def absorb_machine(mach: Machine, threshold: int) -> Machine | None:
    """`mach` with every availability shorter than `threshold` merged into the surrounding
    unavailabilities (None when no availability is left)."""
    e0 = mach.e0
    a: list[int] = []
    u: list[int] = []
    for x, y in zip(mach.a, mach.u, strict=True):
        if x >= threshold:
            a.append(x)
            u.append(y)
        elif a:
            u[-1] += x + y  # unavailability k-1, availability k and unavailability k merge
        else:
            e0 += x + y  # merged into the sentinel unavailability before e(0)
    if not a:
        return None
    return Machine(mach.b, e0, tuple(a), tuple(u))


def absorb_short(instance: DesktopInstance, threshold: int | None = None) -> DesktopInstance:
    """Merge availabilities shorter than `threshold` (default 2 p_max) into unavailabilities
    (spec 4.1 item 6, A-11). Machines left without availability are dropped (recorded in the
    metadata)."""
    if threshold is None:
        threshold = 2 * instance.p_max
    threshold = strict_int(threshold, "threshold", 1)
    kept = [absorb_machine(mach, threshold) for mach in instance.machines]
    machines = tuple(mach for mach in kept if mach is not None)
    if not machines:
        raise InvalidInstance("threshold", f"{threshold} absorbs every availability")
    meta = dict(instance.metadata)
    meta["absorb_short"] = int(threshold)
    meta["absorbed_machines_dropped"] = sum(mach is None for mach in kept)
    return replace(instance, machines=machines, metadata=meta)
