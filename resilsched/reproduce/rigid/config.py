"""What the rigid reproduction runs (spec 002 §8-§9): its configuration, grids and the paper's
numbers it is compared with."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

#: program name in the help and error lines (the script's name, as before the move)
PROG = "reproduce_rigid.py"

PRIORITIES7 = ("LPT", "SPT", "HPA", "LPA", "LA", "SA", "Random")
SHELVES4 = ("R-SHELF-B", "R-SHELF-NB", "R-SHELFFILL-B", "R-SHELFFILL-NB")
FIVE = ("R-LIST-0", "R-LIST-1", "R-LIST-Q", "R-SHELFFILL-B", "R-SHELFFILL-NB")
SHORT = {"R-LIST-0": "L0", "R-LIST-1": "L1", "R-LIST-Q": "LQ", "R-SHELF-B": "S-B",
         "R-SHELF-NB": "S-NB", "R-SHELFFILL-B": "SF-B", "R-SHELFFILL-NB": "SF-NB"}
#: A20: the paper's best priority per heuristic in Figs. 5(f) and 6(f).
PAPER_BEST = {"R-LIST-0": "LA", "R-LIST-1": "LA", "R-LIST-Q": "LPT", "R-SHELFFILL-B": "LPT",
              "R-SHELFFILL-NB": "LPT"}

QBARS_FULL = tuple(round(0.1 * k, 1) for k in range(10))
PS_FULL = tuple(range(5000, 20001, 1000))
QBARS_QUICK = (0.0, 0.1, 0.2, 0.3, 0.5, 0.7)
PS_QUICK = (5000, 7500, 10000, 12500, 15000, 17500, 20000)
MIRA_QBARS = (0.0, 0.05, 0.1)
#: What ``--only`` selects: Figs. 4-6 (synthetic), Table 1 (LPT on the Mira days), Figs. 7-8
#: (every priority on the Mira days), the numerics of Proposition 3 (§4.4) and Fig. 4(b) under
#: both refill rules of R-SHELFFILL (``fill-rule``, decision R32).
EXPERIMENTS = ("fig4", "fig5", "fig6", "table1", "fig78", "prop3", "fill-rule")
#: The experiments run by default (Figs. 7-8 multiply the Mira work by seven).
DEFAULT_EXPERIMENTS = ("fig4", "fig5", "fig6", "table1", "prop3")
#: Reservation modes of R-LIST-1/Q (A3, ``--reservations``); "fresh" is the default one.
RESERVATION_MODES = ("fresh", "persistent", "fixed")
#: Heuristics whose results depend on the reservation mode.
RESERVING = ("R-LIST-1", "R-LIST-Q")
#: Heuristics whose results depend on the refill rule ``fill`` (A17, R32), and the rule that
#: ``--only fill-rule`` runs beside the default "own" (labelled ``R-SHELFFILL-B/any-queued``).
FILLING = ("R-SHELFFILL-B", "R-SHELFFILL-NB")
LOOSE_FILL = "any-queued"
#: A Mira day whose drawn scenarios would expect more attempts than this at some q-bar is left
#: out at that q-bar (the command line's cap, `resilsched.instances.failures.MAX_ATTEMPTS`), and
#: one whose largest job's expected chain is this many times its failure-free L is flagged.
DOMINANCE = 10.0

#: Table 1 of the paper (LPT, 30 Mira days): q-bar -> (avg failures, {heuristic: (avg, std, max)}).
PAPER_TABLE1: dict[float, tuple[float, dict[str, tuple[float, float, float]]]] = {
    0.0: (0.0, {"R-LIST-0": (1.067, 8.78e-2, 1.425), "R-LIST-1": (1.051, 8.19e-2, 1.425),
                "R-LIST-Q": (1.051, 8.17e-2, 1.425), "R-SHELFFILL-B": (1.407, 1.27e-1, 1.633),
                "R-SHELFFILL-NB": (1.441, 1.42e-1, 1.760)}),
    0.05: (15.2913, {"R-LIST-0": (1.031, 6.79e-2, 1.278), "R-LIST-1": (1.049, 6.87e-2, 1.292),
                     "R-LIST-Q": (1.061, 7.78e-2, 1.292), "R-SHELFFILL-B": (1.105, 1.20e-1, 1.475),
                     "R-SHELFFILL-NB": (1.117, 1.32e-1, 1.495)}),
    0.1: (254.453, {"R-LIST-0": (1.016, 4.66e-2, 1.249), "R-LIST-1": (1.025, 4.54e-2, 1.224),
                    "R-LIST-Q": (1.028, 4.97e-2, 1.245), "R-SHELFFILL-B": (1.052, 8.97e-2, 1.391),
                    "R-SHELFFILL-NB": (1.054, 9.28e-2, 1.407)}),
}


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def label(heuristic: str, mode: str) -> str:
    """The name of `heuristic` run with reservation mode `mode` in the rows: the plain name for
    "fresh" (and for heuristics without reservations), ``R-LIST-1/fixed`` otherwise."""
    return heuristic if mode == "fresh" or heuristic not in RESERVING else f"{heuristic}/{mode}"


def unlabel(name: str) -> tuple[str, str]:
    """(heuristic, reservation mode) of a row's heuristic label (inverse of `label`); for a
    shelf label such as ``R-SHELFFILL-B/any-queued`` the second part is its refill rule."""
    base, _, mode = name.partition("/")
    return base, mode or "fresh"


def fill_variant(name: str) -> bool:
    """Whether a row label is R-SHELFFILL-B/NB under another refill rule than the default."""
    base, mode = unlabel(name)
    return base in FILLING and mode != "fresh"


def params_of_label(name: str) -> dict[str, str]:
    """The heuristic parameters a row label stands for: ``reservations`` of R-LIST-1/Q,
    ``fill`` of R-SHELFFILL-B/NB (none for the plain names)."""
    base, mode = unlabel(name)
    if mode == "fresh":
        return {}
    return {"fill": mode} if base in FILLING else {"reservations": mode}


def short(name: str) -> str:
    """Short name of a labelled heuristic for table headers (``L1/fixed``)."""
    base, mode = unlabel(name)
    return SHORT[base] + ("" if mode == "fresh" else f"/{mode}")


@dataclass
class Config:
    """What to run; the defaults are the scaled-down reproduction."""

    sets: int = 10
    scenarios: int = 20
    qbars: tuple[float, ...] = QBARS_QUICK
    Ps: tuple[int, ...] = PS_QUICK
    P_default: int = 10000
    qbar_P_sweep: float = 0.3
    seed: int = 2020
    mira_days: int = 30
    mira_scenarios: int = 20
    mira_seed: int = 0
    swf: str | None = None
    cores_per_node: int = 1
    swf_P: int | None = None
    only: tuple[str, ...] = DEFAULT_EXPERIMENTS
    reservations: tuple[str, ...] = ("fresh", "fixed")  # modes of R-LIST-1/Q to run (A3, R21)
    prop3_samples: int = 100_000  # Monte Carlo draws of the per-scenario mean ratio (§4.4)
    jobs: int = 2
    out: Path = field(default_factory=lambda: Path("results/rigid"))
    plots: bool = True
    reuse: Path | None = None  # read per-set rows from a previous run's CSV files
    store: Path | None = None  # campaign result store; None: <out>/campaign.sqlite
    fresh: bool = False  # delete the stored results of the campaigns this run uses first
    dask: str | None = None  # Dask scheduler address or "local"

    @property
    def store_path(self) -> Path:
        return self.store if self.store is not None else self.out / "campaign.sqlite"
