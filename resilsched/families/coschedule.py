"""Registration of the co-scheduling family (spec 001 §1.3-1.4, §2; failure-free k-in-p).

Instances: `resilsched.instances.coschedule.CoscheduleInstance` (JSON contract in its module
docstring). Heuristics and exact models return a `resilsched.heuristics.coschedule.Packs`
(printed as ``{"packs": [{"tasks", "procs", "time"}, ...]}``), checked by
`resilsched.validation.packs.check_packs`. Every entry points at the function itself; the exact
models take ``time_limit`` and their options class (``--param``). PACK-APPROX's priority is
its loop bound (``fixed`` or ``printed``, spec A-28). Reference model of the gap report:
``setpart-cg`` (column generation over packs priced by Algorithm 1, closed by a reduced-cost
argument); ``resilsched solve`` runs it while the explicit pool of packs fits (``max_pool``) and
``setpart-bp`` with the pricing oracle above (`choose_exact`, decision C29). The set-partitioning
models take the portfolio's best schedule as a warm start (``hint``).
"""

from __future__ import annotations

import numpy as np

from resilsched.bounds import coschedule as B
from resilsched.errors import InvalidSchedule
from resilsched.heuristics import coschedule as H
from resilsched.instances import coschedule as I
from resilsched.models.coschedule import options as O
from resilsched.models.coschedule.enumeration import solve_enumeration
from resilsched.models.coschedule.ilp import solve_ilp, solve_ilp_strong
from resilsched.models.coschedule.matching import solve_matching, solve_matching_networkx
from resilsched.models.coschedule.setpart.branchprice.solve import solve_setpart_bp
from resilsched.models.coschedule.setpart.colgen.root_lp import setpart_lp_bound
from resilsched.models.coschedule.setpart.colgen.solve import solve_setpart_cg
from resilsched.models.coschedule.setpart.full import solve_setpart_full
from resilsched.models.coschedule.setpart.pool import pool_size
from resilsched.numeric import time_eq
from resilsched.options import SolveOptions
from resilsched.plugin import (
    Bound,
    Case,
    ExactModel,
    Family,
    Generator,
    Heuristic,
    Reproduction,
)
from resilsched.validation.packs import check_packs

#: (seed, n, p, k) of the smoke suite: small integer tables, exact optimum well under a second.
SMOKE = (
    (101, 4, 4, 2),
    (102, 5, 6, 2),
    (103, 6, 5, 3),
    (104, 7, 8, 3),
    (105, 8, 6, 2),
    (106, 8, 8, 3),
)


def smoke_suite() -> list[Case]:
    """Six small random integer instances (n 4..8, p 4..8, k 2..3)."""
    return [
        Case(
            f"coschedule-s{seed}-n{n}-p{p}-k{k}",
            I.random_instance(
                np.random.default_rng(seed), n, p, k, kind="integer", name=f"smoke-{seed}"
            ),
        )
        for seed, n, p, k in SMOKE
    ]


def validate(case: Case, result) -> None:
    """Independent check of a heuristic's packs; its objective must be their makespan."""
    if result.schedule is None:
        raise InvalidSchedule(f"{result.heuristic} returned no packs")
    total = check_packs(case.instance, result.schedule)
    if not time_eq(total, result.objective):
        raise InvalidSchedule(f"{result.heuristic}: objective {result.objective} != packs {total}")


def choose_exact(inst: I.CoscheduleInstance) -> str:
    """The model of ``resilsched solve``: ``setpart-cg`` while its explicit pool of packs fits
    (`options.MAX_POOL`), else ``setpart-bp``, which prices packs with an oracle for any k."""
    return "setpart-cg" if pool_size(inst.n, inst.k) <= O.MAX_POOL else "setpart-bp"


def _generator(kind: str, n: tuple[int, int], p: tuple[int, int], k: tuple[int, int],
               default_count: int | None = None):
    return lambda seed, count=None: I.generate(
        seed, default_count if count is None else count, n_range=n, p_range=p, k_range=k,
        kind=kind,
    )


def _build() -> Family:
    fam = Family(
        name="coschedule",
        spec="001",
        sense="min",
        objective_name="makespan",
        objective_unit="s",
        from_dict=I.CoscheduleInstance.from_dict,
        smoke_suite=smoke_suite,
        default_exact="setpart-cg",
        validate=validate,
        objective=lambda case, packs: check_packs(case.instance, packs),
        choose_exact=choose_exact,
        reproduction=Reproduction("resilsched.reproduce.coschedule",
                                  "claims of the co-scheduling theorems (summary.md)"),
    )

    fam.add(
        Heuristic(
            "PACK-APPROX",
            H.run_pack_approx,
            "Algorithm 3: MAKE-PACK over the sigma search (Thm 1.6, 3-approx for k = p)",
            priorities=H.LOOP_BOUNDS,
            default_priority="fixed",
            guarantee=lambda inst, prio: 3 if inst.k == inst.p else None,
        )
    )
    fam.add(
        Heuristic(
            "MAKE-PACK",
            H.run_make_pack,
            "Algorithm 2 (First-Fit-Decreasing-Height) with sigma = pmin",
        )
    )

    fam.add(ExactModel(
        "setpart-cg", solve_setpart_cg,
        "set partitioning over packs: column generation priced by Algorithm 1 + reduced-cost "
        "closure, HiGHS", options=O.SetpartCGOptions, warm_start=True))
    fam.add(ExactModel(
        "setpart-full", solve_setpart_full, "set partitioning over all packs (one HiGHS MIP)",
        options=O.SetpartOptions, warm_start=True))
    fam.add(ExactModel(
        "setpart-bp", solve_setpart_bp,
        "set partitioning over packs: branch-and-price (Ryan-Foster), HiGHS LPs; packs priced "
        "over the explicit pool or by threshold knapsacks (any k, e.g. p-in-p)",
        options=O.SetpartBPOptions, warm_start=True))
    fam.add(ExactModel(
        "kinp-ilp", solve_ilp, "ILP (1.12) of Thm 1.5 as printed, Pyomo + HiGHS",
        options=O.HighsOptions))
    fam.add(ExactModel(
        "kinp-ilp-strong", solve_ilp_strong,
        "ILP (1.12) with (iv'), Pareto-reduced j and symmetry breaking, Pyomo + HiGHS",
        options=O.HighsOptions))
    fam.add(ExactModel(
        "enumeration", solve_enumeration,
        "subset DP over partitions into packs (Method 1), exact arithmetic, n <= 16",
        options=SolveOptions))
    fam.add(ExactModel(
        "matching", solve_matching,
        "2-in-p: maximum-weight matching of pairing gains, exact weights (k <= 2, Thm 1.1)",
        options=O.MatchingOptions))
    fam.add(ExactModel(
        "matching-networkx", solve_matching_networkx,
        "2-in-p matching with networkx's blossom (k <= 2)", options=O.MatchingNetworkxOptions))

    fam.add(Bound("area", B.lb_area, "sum_i pmin_i t_{i,pmin_i} / p (spec §7)"))
    fam.add(Bound("max", B.lb_max, "max_i t_{i,p}"))
    fam.add(Bound("packs", B.lb_packs, "pack-count bound sum_r a_(rk+1) (spec §7)"))
    fam.add(Bound("combined", B.lb_combined, "max(area, packs)"))
    fam.add(
        Bound(
            "setpart-lp",
            setpart_lp_bound,
            "LP relaxation of set partitioning over packs (column generation)",
        )
    )

    fam.add(
        Generator(
            "random-integer",
            _generator("integer", (4, 8), (4, 8), (2, 3)),
            "integer tables satisfying (1.1)/(1.2), n 4..8, p 4..8, k 2..3",
        )
    )
    fam.add(
        Generator(
            "library",
            _generator("integer", (5, 10), (4, 8), (2, 4), default_count=100),
            "100 integer tables, n 5..10, p 4..8, k 2..4: the shipped certified library "
            "(resilsched library list)",
        )
    )
    fam.add(
        Generator(
            "amdahl-p16",
            _generator("amdahl", (10, 30), (16, 16), (3, 3)),
            "Amdahl tasks, w ~ U[10,100], f ~ U[0,0.3], p = 16, k = 3",
        )
    )
    fam.add(
        Generator(
            "synthetic",
            _generator("synthetic", (10, 30), (16, 64), (2, 4)),
            "the synthetic profile (1.13), m ~ U{1000..10000}, f = 0.08",
        )
    )
    fam.add(
        Generator(
            "nospeedup",
            _generator("nospeedup", (4, 10), (4, 8), (1, 4)),
            "t_{i,j} = t_{i,1} (the closed-form oracle of spec §7 test 6)",
        )
    )
    return fam


FAMILY = _build()
