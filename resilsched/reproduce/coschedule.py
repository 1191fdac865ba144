"""Co-scheduling packs (spec 001 §1-2): the theorems that can be checked numerically.

Each check runs on seeded random instances against independent oracles and gives one row of the
claims table, computed beside the paper's statement:

- Thm 1.3 (Algorithm 1 gives an optimal single pack under (1.1)): its pack time against the DP
  of §2.2 and a brute force over every allocation sigma with sum sigma <= p;
- Thm 1.1 / 1.5 (2-in-p is polynomial by matching; the ILP (1.12) is exact): ``matching``
  against the literal ILP (``kinp-ilp``, HiGHS) and the subset-DP ``enumeration``, every
  solver proving optimality;
- Thm 1.6 (PACK-APPROX is a 3-approximation for p-in-p): the worst PACK-APPROX / OPT observed
  (OPT by ``enumeration``), for both loop bounds;
- the erratum (spec A-28): the printed loop bound ``for i = 0 to n(p-1) - 1`` misses the last
  state: how often it gives a worse cost than the fixed bound, and p = 1.

Every chunk of instances is one task of the campaign ``coschedule-claims`` (resumable: rerun the
same command). Usage::

    resilsched reproduce coschedule [--instances 200] [--seed 2026] [--jobs 1]
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from resilsched.campaign import Task, add_cli_options, run_script
from resilsched.campaign.experiment import Experiment, ExperimentRunner
from resilsched.commands.args import ReproductionParser
from resilsched.heuristics.coschedule.onepack import optimal_pack, optimal_pack_dp
from resilsched.heuristics.coschedule.packing import pack_approx
from resilsched.instances.coschedule import CoscheduleInstance, random_instance
from resilsched.models.coschedule.enumeration import solve_enumeration
from resilsched.models.coschedule.ilp import solve_ilp
from resilsched.models.coschedule.matching import solve_matching
from resilsched.numeric import time_eq
from resilsched.reproduce.arguments import count, seed
from resilsched.solution import Status

#: program name in the help and error lines of the script (the CLI passes its own)
PROG = "reproduce_coschedule.py"
CAMPAIGN = "coschedule-claims"
#: instances per task (the unit of resumption)
CHUNK = 50
#: the checks, their instance kinds and size ranges (n, p inclusive)
KINDS = ("amdahl", "integer")
ONEPACK_K, ONEPACK_P = (1, 4), (1, 8)
MATCH_N, MATCH_P = (3, 9), (2, 6)
#: the literal ILP (1.12) (Pyomo + HiGHS, seconds per instance, minutes from n = 8 on) runs on
#: every ILP_EVERY-th instance with n <= ILP_MAX_N
ILP_EVERY, ILP_MAX_N = 5, 6
APPROX_N, APPROX_P = (2, 7), (2, 6)

Row = tuple[str, str, str, str, str]


def brute_pack(inst: CoscheduleInstance, tasks: Sequence[int]) -> Any:
    """The least pack time over every allocation sigma(i) in [pmin_i, p], sum <= p."""
    best: Any = math.inf
    for sigma in itertools.product(*(range(inst.pmin[i], inst.p + 1) for i in tasks)):
        if sum(sigma) <= inst.p:
            best = min(best, max(inst.t(i, s) for i, s in zip(tasks, sigma, strict=True)))
    return best


def _instances(task: dict[str, Any], n_range, p_range, k_of) -> list[CoscheduleInstance]:
    """The task's seeded instances: instance i = child i of SeedSequence([seed, check])."""
    out = []
    for i in range(task["first"], task["first"] + task["count"]):
        rng = np.random.default_rng(np.random.SeedSequence([task["seed"], task["tag"]],
                                                           spawn_key=(i,)))
        kind = KINDS[i % len(KINDS)]
        p = int(rng.integers(p_range[0], p_range[1] + 1))
        n = int(rng.integers(n_range[0], n_range[1] + 1))
        out.append(random_instance(rng, n, p, k_of(n, p), kind=kind, name=f"{kind}-{i}"))
    return out


def _onepack(task: dict[str, Any]) -> dict[str, Any]:
    """Algorithm 1 vs the DP vs brute force, one pack of all the instance's tasks."""
    bad = []
    insts = _instances(task, ONEPACK_K, ONEPACK_P, lambda n, p: min(n, p))
    for inst in insts:
        tasks = list(range(min(inst.n, inst.p)))
        a, dp, bf = optimal_pack(inst, tasks)[0], optimal_pack_dp(inst, tasks)[0], \
            brute_pack(inst, tasks)
        if not (time_eq(a, bf) and time_eq(dp, bf)):
            bad.append(inst.name)
    return {"instances": len(insts), "mismatches": bad}


def _matching(task: dict[str, Any]) -> dict[str, Any]:
    """2-in-p: matching = ILP (1.12) = enumeration, every solver proving optimality."""
    bad, unproven, ilp = [], [], 0
    insts = _instances(task, MATCH_N, MATCH_P, lambda n, p: 2)
    for i, inst in enumerate(insts, start=task["first"]):
        sols = [solve_matching(inst), solve_enumeration(inst)]
        if i % ILP_EVERY == 0 and inst.n <= ILP_MAX_N:
            sols.append(solve_ilp(inst))
            ilp += 1
        if any(s.status != Status.OPTIMAL for s in sols):
            unproven.append(inst.name)
        elif not all(time_eq(s.objective, sols[1].objective) for s in sols):
            bad.append(inst.name)
    return {"instances": len(insts), "ilp": ilp, "mismatches": bad, "unproven": unproven}


def _approx(task: dict[str, Any]) -> dict[str, Any]:
    """p-in-p: PACK-APPROX (both loop bounds) over the enumeration optimum."""
    worst = {"fixed": 0.0, "printed": 0.0}
    worse = better = 0
    insts = _instances(task, APPROX_N, APPROX_P, lambda n, p: p)
    for inst in insts:
        opt = solve_enumeration(inst).objective
        cost = {lb: pack_approx(inst, lb).cost for lb in worst}
        for lb, c in cost.items():
            worst[lb] = max(worst[lb], float(c) / float(opt))
        if not time_eq(cost["printed"], cost["fixed"]):
            worse += cost["printed"] > cost["fixed"]
            better += cost["printed"] < cost["fixed"]
    p1 = random_instance(np.random.default_rng(task["seed"]), 3, 1, 1, kind="integer")
    return {"instances": len(insts), "worst": worst, "printed_worse": worse,
            "printed_better": better,
            "p1": {lb: str(pack_approx(p1, lb).cost) for lb in worst},
            "p1_opt": str(solve_enumeration(p1).objective)}


CHECKS = {"onepack": _onepack, "matching": _matching, "approx": _approx}


def run_check(task: dict[str, Any]) -> dict[str, Any]:
    """One chunk of one check (the task function of the campaign)."""
    return CHECKS[task["check"]](task)


def claim_tasks(instances: int, seed: int) -> list[Task]:
    """Every check's instances in chunks of `CHUNK`."""
    tasks = []
    for tag, check in enumerate(CHECKS):
        for first in range(0, instances, CHUNK):
            f = {"check": check, "tag": tag, "seed": seed, "first": first,
                 "count": min(CHUNK, instances - first)}
            tasks.append(Task(f, f))
    return tasks


def tasks_of(args: argparse.Namespace) -> list[Task]:
    """The tasks the options ask for (`claim_tasks`)."""
    return claim_tasks(args.instances, args.seed)


#: the experiment (`resilsched.campaign.experiment`); its spec form takes --instances, --seed
CLAIMS = Experiment(CAMPAIGN, "resilsched.reproduce.coschedule:run_check",
                    "co-scheduling claims (spec 001 §1-2)",
                    plan="resilsched.reproduce.coschedule:tasks_of",
                    options="resilsched.reproduce.coschedule:parse_args",
                    arguments=("instances", "seed"))
CAMPAIGNS = {CLAIMS.name: CLAIMS}


def claim_rows(tasks: Sequence[Task], results: Sequence[dict[str, Any]]) -> list[Row]:
    """(claim, paper, ours, verdict, command) per theorem, from the chunks' results."""
    by: dict[str, list[dict[str, Any]]] = {c: [] for c in CHECKS}
    for t, r in zip(tasks, results, strict=True):
        by[t.payload["check"]].append(r)
    cmd = "`resilsched reproduce coschedule`"
    rows: list[Row] = []
    one = by["onepack"]
    n1, bad1 = sum(r["instances"] for r in one), sum(len(r["mismatches"]) for r in one)
    rows.append(("Thm 1.3: Algorithm 1 gives an optimal single pack (under (1.1))", "proven",
                 f"{n1 - bad1} of {n1} packs (k {ONEPACK_K[0]}-{ONEPACK_K[1]}, p "
                 f"{ONEPACK_P[0]}-{ONEPACK_P[1]}, Amdahl and integer tables) equal to the DP "
                 "of §2.2 and to brute force over every allocation",
                 "reproduced (no counterexample)" if bad1 == 0 else f"differs ({bad1} packs)",
                 f"{cmd}; {_pytest('heuristics/coschedule/test_onepack.py')}"))
    m = by["matching"]
    n2, bad2 = sum(r["instances"] for r in m), sum(len(r["mismatches"]) for r in m)
    unp, n_ilp = sum(len(r["unproven"]) for r in m), sum(r["ilp"] for r in m)
    rows.append(("Thms 1.1, 1.5: 2-in-p is solved exactly by matching; the ILP (1.12) is exact",
                 "proven", f"matching = enumeration on {n2 - bad2 - unp} of {n2} instances (n "
                 f"{MATCH_N[0]}-{MATCH_N[1]}, p {MATCH_P[0]}-{MATCH_P[1]}), the ILP (1.12) "
                 f"also equal on the {n_ilp} of them it ran on (every {ILP_EVERY}th with n <= "
                 f"{ILP_MAX_N}); {unp} not proven optimal by a solver",
                 "reproduced (no counterexample)" if bad2 == 0 and unp == 0 else
                 f"differs ({bad2} unequal, {unp} unproven)",
                 f"{cmd}; {_pytest('models/coschedule/test_init.py -k k2_matching')}"))
    a = by["approx"]
    n3 = sum(r["instances"] for r in a)
    worst = {lb: max(r["worst"][lb] for r in a) for lb in ("fixed", "printed")}
    rows.append(("Thm 1.6: PACK-APPROX <= 3 OPT for p-in-p", "<= 3",
                 f"worst PACK-APPROX / OPT {worst['fixed']:.3f} (fixed loop bound), "
                 f"{worst['printed']:.3f} (printed) over {n3} instances (n "
                 f"{APPROX_N[0]}-{APPROX_N[1]}, p {APPROX_P[0]}-{APPROX_P[1]}, OPT by "
                 "enumeration)", "reproduced (no run above 3)" if max(worst.values()) <= 3
                 else "differs",
                 f"{cmd}; {_pytest('heuristics/coschedule/test_packing.py -k 3_approx')}"))
    worse = sum(r["printed_worse"] for r in a)
    better = sum(r["printed_better"] for r in a)
    p1 = a[0]["p1"]
    rows.append(("Erratum (spec A-28): the printed loop bound `for i = 0 to n(p-1) - 1` misses "
                 "the last state", "spec's transcription: printed worse in 469 of 3000; "
                 "worst ratios 1.88 printed, 1.39 fixed; p = 1 gives +inf",
                 f"printed worse than fixed in {worse} of {n3}; worst ratios "
                 f"{worst['printed']:.3f} printed, {worst['fixed']:.3f} fixed; at p = 1 printed "
                 f"{p1['printed']}, fixed {p1['fixed']} (OPT {a[0]['p1_opt']})",
                 _erratum_verdict(p1["printed"] == "inf", better, worse),
                 cmd + "; "
                 + _pytest("heuristics/coschedule/test_packing.py -k 'loop_bound or p1'")))
    return rows


def _erratum_verdict(p1_inf: bool, better: int, worse: int) -> str:
    """The erratum's verdict: the p = 1 case, then what the runs at p >= 2 show."""
    if not p1_inf or better:
        return "differs"
    if worse:
        return "reproduced (+inf at p = 1; the printed bound is never better, sometimes worse)"
    return ("reproduced at p = 1 (+inf); at p >= 2 the printed bound never changed the cost here "
            "(the spec's 469 of 3000 are on its own tables: not reproduced)")


def _pytest(rest: str) -> str:
    """A test command of the suite (`rest`: its path under tests/ and options), in backquotes."""
    return f"`pytest tests/{rest}`"


def markdown(rows: Sequence[Row], title: str) -> list[str]:
    """The claims table as markdown lines."""
    return [title, "", "| claim | paper | ours | verdict | command |", "|---|---|---|---|---|",
            *("| " + " | ".join(r) + " |" for r in rows), ""]


def parser(prog: str = PROG) -> argparse.ArgumentParser:
    """The command-line options (every one with its default in the help)."""
    ap = ReproductionParser(prog=prog, description=__doc__.splitlines()[0])
    ap.add_argument("--instances", type=count(100_000), default=200,
                    help="random instances per check, in [1, 100000] (default %(default)s)")
    ap.add_argument("--seed", type=seed(32), default=2026,
                    help="root seed of the instances (default %(default)s)")
    ap.add_argument("--jobs", type=count(256), default=1,
                    help="worker processes, 1 runs inline (default %(default)s)")
    ap.add_argument("--out", type=Path, default=Path("results/coschedule"),
                    help="output folder: summary.md and the default store (default "
                         "%(default)s)")
    add_cli_options(ap, "<out>/campaign.sqlite")
    return ap


def parse_args(argv: Sequence[str] | None, prog: str = PROG) -> argparse.Namespace:
    """The options `argv` (a bad one: one line on stderr, `SystemExit` 2)."""
    return parser(prog).parse_args(argv)


def main(argv: Sequence[str] | None = None, prog: str = PROG) -> int:
    """Run the checks with options `argv`; exit status 0, 2 (bad options) or 130."""
    ap = parser(prog)
    args = ap.parse_args(argv)
    if args.out.exists() and not args.out.is_dir():
        ap.error(f"--out: {args.out} exists and is not a folder")
    store_path = args.store or args.out / "campaign.sqlite"
    if store_path.is_dir():
        ap.error(f"--store: {store_path} is a folder")

    def body() -> int:
        with ExperimentRunner(store_path, jobs=args.jobs, dask=args.dask,
                              fresh=[CAMPAIGN] if args.fresh else []) as runner:
            t0 = time.perf_counter()
            tasks = tasks_of(args)
            done = runner.run(CLAIMS, tasks)
            lines = markdown(claim_rows(tasks, done), f"# Co-scheduling packs (spec 001 §1-2): "
                             f"{args.instances} instances per check, seed {args.seed}")
            print("\n".join(lines))
            print(f"# total {time.perf_counter() - t0:.1f} s", file=sys.stderr)
            try:
                args.out.mkdir(parents=True, exist_ok=True)
                (args.out / "summary.md").write_text("\n".join(lines) + "\n")
            except OSError as exc:
                print(f"{prog}: error: cannot write {exc.filename}: {exc.strerror}",
                      file=sys.stderr)
                return 2
        return 0

    return run_script(prog, args.dask, body)
