"""The parameters of the rigid heuristics (``--param NAME=VALUE``), one frozen dataclass per
set (`resilsched.params`; decisions A2, A3, A6, A16, A17, R32).

Each heuristic of `resilsched.heuristics.rigid` takes these as keyword-only arguments with the
same defaults (tests/resilsched/test_params.py checks it); its registration
(`resilsched.families.rigid`) names the dataclass.

>>> from resilsched.params import params_of
>>> [p.name for p in params_of(ShelfFillParams)]
['redraw_on_failure', 'ljf_secondary', 'fill']
"""

from __future__ import annotations

from dataclasses import dataclass, field

from resilsched.heuristics.rigid.common import Secondary
from resilsched.heuristics.rigid.rlist import Reservations
from resilsched.heuristics.rigid.rshelf import FillRule


@dataclass(frozen=True)
class RigidParams:
    """R-LIST-0, R-SHELF-B and R-SHELF-NB: the options of the Random and LJF priorities."""

    redraw_on_failure: bool = field(default=False, metadata={
        "help": "Random priority: a failed job draws a fresh key (A6)"})
    ljf_secondary: Secondary = field(default="LPT", metadata={
        "help": "LJF priority: the rule ordering the small jobs (A16)"})


@dataclass(frozen=True)
class ReservationParams(RigidParams):
    """R-LIST-1 and R-LIST-Q: the priorities' options and the reservations' rules."""

    classic_easy: bool = field(default=False, metadata={
        "help": "reserve until m jobs hold a future reservation (A2)"})
    reservations: Reservations = field(default="fresh", metadata={
        "help": "lifetime of a reservation (A3): fresh = recomputed at every event; "
                "persistent = kept until a failure; fixed = never cancelled or moved "
                "(the authors' simulator)"})
    persistent_reservations: bool = field(default=False, metadata={
        "help": "former spelling of reservations=persistent (A3)"})


@dataclass(frozen=True)
class ShelfFillParams(RigidParams):
    """R-SHELFFILL-B and R-SHELFFILL-NB: the priorities' options and the refill rule."""

    fill: FillRule = field(default="own", metadata={
        "help": "R-SHELFFILL's refill rule: own = the failed job on its own processors (A17); "
                "any-queued = any queued job that ends by the shelf's end (R32)"})
