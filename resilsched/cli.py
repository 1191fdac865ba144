"""The ``resilsched`` command (docs/architecture.md, "Contracts users script against").

Subcommands: ``list``, ``generate``, ``solve``, ``simulate``, ``gap``, ``check``, ``reproduce``.
Every command accepts ``--json`` and then prints exactly one JSON object on standard output (for
``reproduce``, before FAMILY). Bad input gives a one-line ``error: <field>=<value> <rule>`` on
standard error and exit status 2.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import platform
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from resilsched import __version__
from resilsched.commands import library as library_commands
from resilsched.errors import InvalidInstance
from resilsched.options import Deadline, check_time_limit, parse_params
from resilsched.progress import Heartbeat
from resilsched.registry import UnknownName


class UsageError(Exception):
    """Bad command-line input: one line, exit status 2."""


def _examples(text: str) -> str:
    return "examples:\n" + "\n".join(f"  {line}" for line in text.strip().splitlines())


def _emit(obj: dict[str, Any], as_json: bool, text: str) -> None:
    if as_json:
        compact = json.dumps(obj, allow_nan=False)
        print(compact if len(compact) < 200 else json.dumps(obj, indent=1, allow_nan=False))
    else:
        print(text)


def _time_limit(args: argparse.Namespace, default: float) -> float:
    """``--time-limit`` checked at the boundary (finite, within the accepted range)."""
    value = default if args.time_limit is None else args.time_limit
    return check_time_limit(value, "--time-limit")


def _family(name: str):
    from resilsched.registry import get_family

    return get_family(name)


def _pick(instances: list[Any], index: int, path: str) -> Any:
    if not 0 <= index < len(instances):
        raise UsageError(
            f"--index={index} is out of range: {path} holds {len(instances)} instance(s)"
        )
    return instances[index]


def _load(args: argparse.Namespace):
    from resilsched.io import read_instances

    options = {}
    if getattr(args, "P", None) is not None:
        options["P"] = args.P
    if getattr(args, "cores_per_node", None) is not None:
        options["cores_per_node"] = args.cores_per_node
    fam, instances = read_instances(args.file, **options)
    return fam, _pick(instances, args.index, args.file)


def _scenario(fam, instance, args: argparse.Namespace):
    if fam.scenario is None:
        if args.failures is not None or args.qbar is not None:
            raise UsageError(f"--failures/--qbar: family {fam.name!r} has no failure scenarios")
        return None
    if args.failures is not None and args.qbar is not None:
        raise UsageError("--failures and --qbar are exclusive: give the scenario or how to draw it")
    if args.qbar is not None:
        return fam.sample_scenario(instance, args.qbar, args.seed)
    return fam.scenario(instance, args.failures)


# --- list -----------------------------------------------------------------------------------
def cmd_list(args: argparse.Namespace) -> int:
    from resilsched.registry import available_families

    names = [args.family] if args.family else available_families()
    out: dict[str, Any] = {}
    lines = []
    for name in names:
        fam = _family(name)
        out[name] = {
            "spec": fam.spec,
            "sense": fam.sense,
            "objective": fam.objective_name,
            "unit": fam.objective_unit,
            "default_exact": fam.default_exact,
            "heuristics": {
                h.name: {"priorities": list(h.priorities), "default_priority": h.default_priority,
                         "params": _params_json(h.params), "description": h.description}
                for h in fam.heuristics.values()
            },
            "exact": {m.name: {"description": m.description, "params": _params_json(m.params)}
                      for m in fam.exact.values()},
            "bounds": {b.name: b.description for b in fam.bounds.values()},
            "generators": {g.name: g.description for g in fam.generators.values()},
            "readers": sorted(fam.readers),
            "reproduction": fam.reproduction.description if fam.reproduction else None,
        }
        lines.append(f"{name} (spec {fam.spec}, {fam.sense}imise {fam.objective_name}"
                     + (f" in {fam.objective_unit}" if fam.objective_unit else "") + ")")
        for h in fam.heuristics.values():
            prios = f" [priorities: {', '.join(h.priorities)}]" if h.priorities else ""
            lines.append(f"  heuristic {h.name}: {h.description}{prios}")
            lines += [f"      --param {p.describe()}" for p in h.params]
        for m in fam.exact.values():
            star = " (gap reference)" if m.name == fam.default_exact else ""
            lines.append(f"  exact     {m.name}: {m.description}{star}")
            if args.verbose:
                lines += [f"      --param {p.describe()}" for p in m.params]
        for b in fam.bounds.values():
            lines.append(f"  bound     {b.name}: {b.description}")
        for g in fam.generators.values():
            lines.append(f"  preset    {g.name}: {g.description}")
        if fam.reproduction:
            lines.append(f"  reproduce resilsched reproduce {name}: {fam.reproduction.description}")
    if not args.verbose and names:
        lines.append("(exact models' solver options: resilsched list -v)")
    _emit({"families": out}, args.json, "\n".join(lines))
    return 0


def _params_json(params) -> dict[str, Any]:
    return {
        p.name: {"default": p.default, "type": p.kind.__name__,
                 **({"choices": list(p.choices)} if p.choices else {}),
                 **({"help": p.help} if p.help else {})}
        for p in params
    }


# --- generate -------------------------------------------------------------------------------
def cmd_generate(args: argparse.Namespace) -> int:
    import numpy

    from resilsched.registry import generator

    if args.solve:  # a library with certificates (resilsched/commands/library.py)
        return library_commands.generate_solved(args)
    fam = _family(args.family)
    gen = generator(fam, args.preset)
    if args.count is not None and args.count < 1:
        raise UsageError(f"--count={args.count} must be >= 1")
    instances = gen.generate(args.seed, args.count)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    files = []
    for i, inst in enumerate(instances):
        fname = f"{args.preset}-{args.seed}-{i:04d}.json"
        text = json.dumps(inst.to_dict(), indent=1) + "\n"
        (out / fname).write_text(text)
        files.append(
            {
                "file": fname,
                "name": getattr(inst, "name", ""),
                "sha256": hashlib.sha256(text.encode()).hexdigest(),
            }
        )
    manifest = {
        "family": fam.name,
        "preset": gen.name,
        "seed": args.seed,
        "count": len(files),
        "resilsched": __version__,
        "numpy": numpy.__version__,
        "python": platform.python_version(),
        "files": files,
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    _emit(
        manifest,
        args.json,
        f"wrote {len(files)} {fam.name} instances ({gen.name}, seed {args.seed}) "
        f"and manifest.json to {out}",
    )
    return 0


# --- solve ----------------------------------------------------------------------------------
def cmd_solve(args: argparse.Namespace) -> int:
    """The whole command, loading included, runs within ``--time-limit`` (default 60 s)."""
    from resilsched.registry import exact_model

    deadline = Deadline(_time_limit(args, 60.0), start=args.started)
    fam, instance = _load(args)
    model = exact_model(fam, args.method or fam.default_exact)
    options = parse_params(model.params, args.param, model.name)
    scenario = _scenario(fam, instance, args)
    with Heartbeat(f"solve {model.name}", deadline, enabled=not args.quiet) as beat:
        sol = model.solve(instance, scenario, time_limit=max(deadline.remaining(), 0.01),
                          progress=beat.phase, **options)
    d = {**sol.to_dict(), "wall_time": round(deadline.elapsed(), 6),
         "solver_time": round(sol.wall_time, 6), "family": fam.name,
         "unit": fam.objective_unit}
    if scenario is not None and hasattr(scenario, "to_list"):
        d["failures"] = scenario.to_list()
    _emit(d, args.json, f"{fam.name} / " + sol.describe(fam.objective_name, fam.objective_unit))
    return 0


# --- simulate -------------------------------------------------------------------------------
def cmd_simulate(args: argparse.Namespace) -> int:
    from resilsched.registry import heuristic

    fam, instance = _load(args)
    h = heuristic(fam, args.heuristic)
    prio = args.priority
    if h.priorities:
        prio = prio or h.default_priority
        folded = {p.lower(): p for p in h.priorities}
        if prio.lower() not in folded:
            raise UsageError(
                f"--priority={prio!r} is unknown for {h.name} "
                f"(choose from {', '.join(h.priorities)})"
            )
        prio = folded[prio.lower()]
    elif prio is not None:
        raise UsageError(f"--priority: {h.name} takes no priority rule")
    params = parse_params(h.params, args.param, h.name)
    scenario = _scenario(fam, instance, args)
    with Heartbeat(f"simulate {h.name}", Deadline(None, start=args.started),
                   enabled=not args.quiet):
        res = h.run(instance, scenario, prio, seed=args.seed, **params)
    d = {**res.to_dict(), "family": fam.name, "unit": fam.objective_unit,
         "wall_time": round(time.perf_counter() - args.started, 6)}
    if params:
        d["params"] = params
    if scenario is not None and hasattr(scenario, "to_list"):
        d["failures"] = scenario.to_list()
    text = res.describe(fam.objective_name, fam.objective_unit, verbose=args.verbose)
    _emit(d, args.json, f"{fam.name} / {text}")
    return 0


# --- gap and check --------------------------------------------------------------------------
def _run_gap(args: argparse.Namespace):
    from resilsched.gap import run_gap
    from resilsched.registry import available_families

    if args.library:  # against stored certificates, on the campaign engine
        return library_commands.run_gap(args)
    time_limit = _time_limit(args, 10.0)
    names = [args.family] if args.family else available_families()
    fams = [_family(n) for n in names]
    return run_gap(fams, time_limit, progress=library_commands.gap_progress(args))


def cmd_gap(args: argparse.Namespace) -> int:
    from resilsched.gap import format_report

    report = _run_gap(args)
    _emit(report.to_dict(), args.json, format_report(report))
    return 0


def _load_thresholds(path: str | None) -> dict[str, Any]:
    if path is None:
        return {}
    from resilsched.io import _read_json

    data = _read_json(Path(path))
    if not isinstance(data, dict):
        raise InvalidInstance(path, "must hold a JSON object of thresholds")

    def walk(d: dict[str, Any], where: str) -> None:
        for k, v in d.items():
            if k in ("max_gap", "mean_gap"):
                if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
                    raise InvalidInstance(f"{where}{k}", f"{v!r} must be a number >= 0")
            elif isinstance(v, dict):
                walk(v, f"{where}{k}.")
            else:
                raise InvalidInstance(f"{where}{k}", "must be max_gap, mean_gap or a nested object")

    walk(data, "")
    return data


def cmd_check(args: argparse.Namespace) -> int:
    from resilsched.gap import check_thresholds, format_report

    thresholds = _load_thresholds(args.thresholds)
    report = _run_gap(args)
    failures = check_thresholds(report, thresholds)
    d = report.to_dict()
    d["passed"] = not failures
    d["failures"] = failures
    text = (
        format_report(report)
        + "\n"
        + (
            "check passed"
            if not failures
            else "check FAILED:\n" + "\n".join(f"  {f}" for f in failures)
        )
    )
    _emit(d, args.json, text)
    return 0 if not failures else 1


# --- reproduce ------------------------------------------------------------------------------
def cmd_reproduce(args: argparse.Namespace) -> int:
    """Hand the options after FAMILY to that family's reproduction; pass its exit status on."""
    from resilsched.registry import reproduction

    fam = reproduction(args.family)
    options = list(args.options)
    as_json = args.json or "--json" in options  # the flag may follow FAMILY too
    options = [o for o in options if o != "--json"]
    captured = io.StringIO()
    with contextlib.redirect_stdout(captured) if as_json else contextlib.nullcontext():
        try:
            code = fam.reproduction.main(options, prog=f"resilsched reproduce {fam.name}")
        except SystemExit as exc:  # its argparse: --help (0) or bad options (2)
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    if as_json:
        print(json.dumps({"family": fam.name, "exit_status": code,
                          "output": captured.getvalue()}))
    return code


class _ReproduceParser(argparse.ArgumentParser):
    """The ``reproduce`` subcommand, whose help lists the registered reproductions when asked
    for (building it imports every family, which plain ``resilsched --help`` should not)."""

    def format_help(self) -> str:
        from resilsched.registry import reproductions

        table = "\n".join(f"  {name:<12} {fam.reproduction.description}"
                          for name, fam in reproductions().items())
        self.description = self.description.replace("{table}", table)
        return super().format_help()


# --- parser ---------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    fmt = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(
        prog="resilsched",
        formatter_class=fmt,
        description="Resilient scheduling: exact formulations beside heuristics, "
        "and the gaps between them.",
        epilog=_examples("""
resilsched gap                       # the main job: gap report on the built-in smoke suite
resilsched list --family rigid       # what is registered
resilsched solve inst.json --json    # exact optimum of an instance
resilsched simulate inst.json --heuristic R-LIST-0 --priority LA --failures 0,2,1
resilsched reproduce rigid --help    # paper figures and tables
"""),
    )
    parser.add_argument("--version", action="version", version=f"resilsched {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)


    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--json", action="store_true", help="print one JSON object on standard output"
        )

    p = sub.add_parser(
        "list",
        help="list the registered families, heuristics, models, bounds, presets",
        formatter_class=fmt,
        epilog=_examples("resilsched list\nresilsched list --family rigid --json"),
    )
    p.add_argument("--family", help="only this family (default: every family)")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="also list the solver options (--param) of the exact models")
    common(p)
    p.set_defaults(func=cmd_list)

    p = sub.add_parser(
        "generate",
        help="generate an instance library with a manifest of seeds and hashes",
        formatter_class=fmt,
        description="Write the instances of a preset as JSON files plus manifest.json "
        "(preset, seed, versions, sha256 of every file). The same seed always "
        "gives byte-identical files.",
        epilog=_examples(
            "resilsched generate --family rigid --preset paper-default --seed 1 --out lib/\n"
            "resilsched generate --family rigid --preset smoke --seed 0 --count 3 --out smoke/"
        ),
    )
    p.add_argument("--family", required=True, help="family name (see `resilsched list`)")
    p.add_argument("--preset", required=True, help="generator name (see `resilsched list`)")
    p.add_argument("--seed", type=int, default=0, help="generator seed (default 0)")
    p.add_argument(
        "--count", type=int, default=None, help="number of instances (default: the preset's)"
    )
    p.add_argument("--out", required=True, help="output directory (created if missing)")
    library_commands.add_generate_args(p)
    common(p)
    p.set_defaults(func=cmd_generate)

    def instance_args(p: argparse.ArgumentParser) -> None:
        p.add_argument("file", help='instance file: JSON (with "family"), or a trace such as .swf')
        p.add_argument(
            "--index",
            type=int,
            default=0,
            help="which instance of a multi-instance file, from 0 (an SWF trace holds one per "
            "day; default 0)",
        )
        p.add_argument(
            "--failures",
            help="failure scenario: failures per job, e.g. 0,2,1 "
            '(default: the instance\'s "failures", else none)',
        )
        p.add_argument(
            "--qbar", type=float,
            help="draw the scenario at average failure probability q-bar (default: no draw)"
        )
        p.add_argument(
            "--seed", type=int, default=0,
            help="seed for --qbar draws and random priorities (default 0)"
        )
        p.add_argument(
            "--P", type=int, help="processor count for trace files (default: the trace header)"
        )
        p.add_argument(
            "--cores-per-node",
            type=int,
            help="trace files: divide processors by this to count nodes (default 1)",
        )
        p.add_argument(
            "--param", action="append", metavar="NAME=VALUE",
            help="a parameter of the heuristic or model, repeatable (names, types and defaults: "
            "resilsched list -v)",
        )
        p.add_argument("-q", "--quiet", action="store_true",
                       help="no progress lines on standard error")

    p = sub.add_parser(
        "solve",
        help="solve an instance with an exact model",
        formatter_class=fmt,
        description="Solve an instance exactly (within --time-limit). The status is honest: "
        "'optimal' only when proven, otherwise 'feasible' with the proven bound.",
        epilog=_examples(
            "resilsched solve inst.json\n"
            "resilsched solve inst.json --method cpsat-scenario --failures 0,2,1 --json\n"
            "resilsched solve trace.swf --index 3 --time-limit 30"
        ),
    )
    instance_args(p)
    p.add_argument("--method", help="exact model name (default: the family's reference model)")
    p.add_argument("--time-limit", type=float, default=None,
                   help="seconds for the whole command, loading included (default 60)")
    common(p)
    p.set_defaults(func=cmd_solve)

    p = sub.add_parser(
        "simulate",
        help="run one heuristic on an instance",
        formatter_class=fmt,
        epilog=_examples(
            "resilsched simulate inst.json --heuristic R-LIST-0 --priority LA\n"
            "resilsched simulate inst.json --heuristic R-SHELF-B --qbar 0.3 --seed 7 --json"
        ),
    )
    instance_args(p)
    p.add_argument("--heuristic", required=True, help="heuristic name (see `resilsched list`)")
    p.add_argument("--priority",
                   help="priority rule, for heuristics that take one (default: the heuristic's)")
    p.add_argument("-v", "--verbose", action="store_true", help="also print the schedule")
    common(p)
    p.set_defaults(func=cmd_simulate)

    def gap_args(p: argparse.ArgumentParser) -> None:
        p.add_argument("--family", help="only this family (default: all)")
        p.add_argument(
            "--time-limit", type=float, default=None, help="seconds per exact solve (default 10)"
        )
        p.add_argument(
            "-q", "--quiet", action="store_true", help="no progress lines on standard error"
        )
        library_commands.add_gap_args(p)
        common(p)

    p = sub.add_parser(
        "gap",
        help="gap report: every heuristic against the exact optimum (the main job)",
        formatter_class=fmt,
        description="Runs every registered heuristic (and priority rule) on the built-in smoke "
        "suite, solves each case exactly, and reports per heuristic the mean and "
        "worst gap to the optimum (or to the proven bound when optimality was not "
        "proven) and every violation of a proven guarantee.",
        epilog=_examples("resilsched gap\nresilsched gap --family rigid --json"),
    )
    gap_args(p)
    p.set_defaults(func=cmd_gap)

    p = sub.add_parser(
        "check",
        help="CI form of gap: exit 1 on a violation or a gap above a threshold",
        formatter_class=fmt,
        description="Like gap, then exit status 1 when a guarantee is violated or a gap exceeds "
        'its threshold. Threshold file: {"max_gap": 1.0, "rigid": {"R-LIST-0": '
        '{"max_gap": 0.5}, "R-LIST-0/LA": {"mean_gap": 0.1}}}; the most '
        "specific entry wins.",
        epilog=_examples(
            "resilsched check\nresilsched check --thresholds ci/thresholds.json --json"
        ),
    )
    gap_args(p)
    p.add_argument("--thresholds",
                   help="JSON file of max_gap/mean_gap thresholds, as fractions (0.05 = 5%%); "
                   "examples/thresholds.json passes on the built-in suite (default: none, "
                   "only violations fail)")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser(
        "reproduce",
        help="reproduce a paper's figures and tables (CSV, PNG, summary)",
        formatter_class=fmt,
        description="Run the paper reproduction of a family, printing the computed numbers beside\n"
        "the paper's:\n{table}\n"
        "The options after FAMILY are that reproduction's own: see\n"
        "`resilsched reproduce FAMILY --help`. Results are stored as they finish in\n"
        "<out>/campaign.sqlite, so rerunning an interrupted command (Ctrl-C, exit status 130)\n"
        "computes only the missing tasks. Exit status: the reproduction's (0, 2, 130).\n"
        "With --json (before or after FAMILY) the printed summary comes back as the \"output\"\n"
        "field of one JSON object {family, exit_status, output}.",
        epilog=_examples(
            "resilsched reproduce rigid --help\n"
            "resilsched reproduce rigid                    # scaled-down Figs. 4-6, Table 1\n"
            "resilsched reproduce moldable --sets 30 --scenarios 20 --csv table1.csv\n"
            "resilsched reproduce worksharing e5 --trials 1000"
        ),
    )
    p.__class__ = _ReproduceParser  # its help lists the registered reproductions
    p.add_argument("--json", action="store_true",
                   help="print {family, exit_status, output} as one JSON object")
    p.add_argument("family", metavar="FAMILY",
                   help="a family with a reproduction (listed above)")
    p.add_argument(
        "options",
        nargs=argparse.REMAINDER,
        metavar="OPTIONS...",
        help="options of the family's reproduction",
    )
    p.set_defaults(func=cmd_reproduce)
    library_commands.add_parsers(sub)  # library list/verify/path, export
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    started = time.perf_counter()
    parser = build_parser()
    args = parser.parse_args(argv)
    args.started = started
    try:
        return args.func(args)
    except (InvalidInstance, UnknownName, UsageError) as exc:
        msg = exc.args[0] if isinstance(exc, UnknownName) and exc.args else str(exc)
        print(f"error: {msg}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
