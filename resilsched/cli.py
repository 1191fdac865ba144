"""The ``resilsched`` command (docs/architecture.md, "Contracts users script against").

Subcommands: ``list``, ``generate``, ``solve``, ``simulate``, ``gap``, ``check``, ``trace``,
``reproduce`` (their options: `resilsched.cli_parser`). Every command accepts ``--json`` and then
prints exactly one JSON object on standard output (for ``reproduce``, before FAMILY), with
JSON numbers only (NaN and infinities become null). Bad input, of any kind, gives a one-line
``error: <field>=<value> <rule>`` on standard error, nothing on standard output, and exit
status 2 (``scripts/fuzz_cli.py`` checks it on thousands of malformed inputs).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import math
import platform
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from resilsched import __version__
from resilsched.cli_parser import OneLineParser
from resilsched.cli_parser import build_parser as _build_parser
from resilsched.commands import library as library_commands
from resilsched.errors import InvalidInstance
from resilsched.options import Deadline, check_time_limit, parse_params
from resilsched.progress import Heartbeat
from resilsched.registry import UnknownName


class UsageError(Exception):
    """Bad command-line input: one line, exit status 2."""


def _finite(obj: Any) -> Any:
    """`obj` with every NaN or infinite float replaced by None (JSON has no such numbers)."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    return obj


def _emit(obj: dict[str, Any], as_json: bool, text: str) -> None:
    if as_json:
        obj = _finite(obj)
        compact = json.dumps(obj, allow_nan=False)
        # indented for a reader when short; compact for large payloads (C encoder, 10x faster)
        plain = len(compact) < 200 or len(compact) > 100_000
        print(compact if plain else json.dumps(obj, indent=1, allow_nan=False))
    else:
        print(text)


def _notes(args: argparse.Namespace) -> None:
    """Print what loading the input had to say (dropped trace lines, warnings) on standard
    error, once the command has passed every check (a refusal stays one line)."""
    for line in getattr(args, "notes", []):
        if not getattr(args, "quiet", False) or "warning:" in line:
            print(line, file=sys.stderr)
    args.notes = []


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


def _trace_options(args: argparse.Namespace) -> dict[str, Any]:
    """The reader options of a trace file; refused for a JSON instance, where they would be
    silently ignored."""
    options = {"P": args.P, "cores_per_node": args.cores_per_node, "statuses": args.status}
    options = {k: v for k, v in options.items() if v is not None}
    if Path(args.file).suffix.lower() == ".json" and options:
        flag = {"P": "--P", "cores_per_node": "--cores-per-node", "statuses": "--status"}
        raise UsageError(f"{flag[next(iter(options))]}: applies to trace files (.swf), not to "
                         f"the JSON instance {args.file}")
    args.notes = []
    if Path(args.file).suffix.lower() != ".json":
        options["warn"] = args.notes.append
    return options


def _load(args: argparse.Namespace):
    from resilsched.io import read_instances

    fam, instances = read_instances(args.file, **_trace_options(args))
    return fam, _pick(instances, args.index, args.file)


def _scenario(fam, instance, args: argparse.Namespace):
    from resilsched.api import scenario_of

    return scenario_of(fam, instance, args.failures, args.qbar, args.seed)


# --- list -----------------------------------------------------------------------------------
def cmd_list(args: argparse.Namespace) -> int:
    from resilsched.registry import available_families

    names = [args.family] if args.family is not None else available_families()
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
                         "params": _params_json(h.params), "description": h.description,
                         "origin": h.origin}
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
            origin = f" ({h.origin})" if h.plugin else ""
            lines.append(f"  heuristic {h.name}: {h.description}{prios}{origin}")
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
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out={args.out}: is a file, not a directory")
    instances = gen.generate(args.seed, args.count)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"--out={args.out}: cannot be created ({exc.strerror})") from None
    files = []
    for i, inst in enumerate(instances):
        fname = f"{gen.name}-{args.seed}-{i:04d}.json"
        text = json.dumps(inst.to_dict(), indent=1, allow_nan=False) + "\n"
        _write(out / fname, text)
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
    _write(out / "manifest.json", json.dumps(manifest, indent=1) + "\n")
    _emit(
        manifest,
        args.json,
        f"wrote {len(files)} {fam.name} instances ({gen.name}, seed {args.seed}) "
        f"and manifest.json to {out}",
    )
    return 0


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text)
    except OSError as exc:
        raise UsageError(f"--out: {path} cannot be written ({exc.strerror})") from None


# --- solve ----------------------------------------------------------------------------------
def cmd_solve(args: argparse.Namespace) -> int:
    """The whole command, loading included, runs within ``--time-limit`` (default 60 s).
    Without ``--method``, the portfolio (`resilsched.portfolio`); with it, that model alone
    (decision T19)."""
    from resilsched.api import solve_with
    from resilsched.portfolio import pick_model

    deadline = Deadline(_time_limit(args, 60.0), start=args.started)
    fam, instance = _load(args)
    model = pick_model(fam, instance, args.method)
    options = parse_params(model.params, args.param, model.name)
    if any(p.name == "qbar" for p in model.params):  # it takes the failure model, not a draw
        if args.failures is not None:
            raise UsageError(f"--failures: {model.name} averages over the failure model "
                             "(--qbar Q or the instance's own), it takes no scenario")
        if args.qbar is not None:
            if "qbar" in options:
                raise UsageError("--qbar and --param qbar= are the same option: give one")
            options["qbar"] = args.qbar
        scenario = None
    else:
        scenario = _scenario(fam, instance, args)
    _notes(args)
    label = model.name if args.method else f"portfolio ({model.name})"
    with Heartbeat(f"solve {label}", deadline, enabled=not args.quiet) as beat:
        sol = solve_with(fam, instance, scenario, model, deadline, options, beat.phase,
                         portfolio=args.method is None)
    d = {**sol.to_dict(), "wall_time": round(deadline.elapsed(), 6),
         "solver_time": round(sol.wall_time, 6), "family": fam.name,
         "unit": fam.objective_unit}
    if scenario is not None and hasattr(scenario, "to_list"):
        d["failures"] = scenario.to_list()
    _emit(d, args.json, f"{fam.name} / " + sol.describe(fam.objective_name, fam.objective_unit))
    return 0


# --- simulate -------------------------------------------------------------------------------
def cmd_simulate(args: argparse.Namespace) -> int:
    """A plug-in's result is checked first: its exception or an infeasible schedule is one
    line ``error: ...`` and exit status 1, an objective its schedule disagrees with is replaced
    by the recomputed one after a ``warning:`` line."""
    from resilsched.api import simulate_with
    from resilsched.registry import heuristic, priority

    limit = None if args.time_limit is None else _time_limit(args, 0.0)
    fam, instance = _load(args)
    h = heuristic(fam, args.heuristic)
    priority(h, args.priority)  # a bad rule or reference is refused before anything runs
    params = parse_params(h.params, args.param, h.name)
    scenario = _scenario(fam, instance, args)
    _notes(args)
    with Heartbeat(f"simulate {h.name}", Deadline(limit, start=args.started),
                   enabled=not args.quiet):
        run = simulate_with(fam, h, instance, scenario, args.priority, args.seed, params,
                            limit)
    if isinstance(run.error, InvalidInstance):  # the plug-in refused its input: bad input
        raise run.error
    if not run.valid:
        print(f"error: {' '.join('; '.join(run.problems).split())}", file=sys.stderr)
        return 1
    for problem in run.problems:
        print(f"warning: {problem}", file=sys.stderr)
    res = run.result
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
    from resilsched.api import selection
    from resilsched.gap import run_gap
    from resilsched.registry import available_families

    if args.library:  # against stored certificates, on the campaign engine
        return library_commands.run_gap(args)
    time_limit = _time_limit(args, 10.0)
    names = [args.family] if args.family is not None else available_families()
    fams = [_family(n) for n in names]
    chosen = selection(args.heuristic, fams)
    if chosen is not None:
        fams = [f for f in fams if f.name in chosen]
    return run_gap(fams, time_limit, progress=library_commands.gap_progress(args),
                   heuristics=chosen)


def cmd_gap(args: argparse.Namespace) -> int:
    from resilsched.gap import format_report

    report = _run_gap(args)
    _emit(report.to_dict(), args.json, format_report(report))
    return 0


def _load_thresholds(path: str | None, heuristics: list[str] | None) -> dict[str, Any]:
    """The thresholds file, checked against the registered heuristics and those named by
    ``--heuristic`` (a reference may have thresholds of its own)."""
    if path is None:
        return {}
    from resilsched.gap import check_threshold_file
    from resilsched.io import read_json
    from resilsched.references import is_reference
    from resilsched.registry import all_families, heuristic

    families = all_families()
    refs = [name for name in heuristics or () if is_reference(name)]
    scored = {f.name: [heuristic(f, ref) for ref in refs] for f in families} if refs else None
    return check_threshold_file(read_json(path), families, path, scored)


def cmd_check(args: argparse.Namespace) -> int:
    from resilsched.gap import check_thresholds, format_report

    thresholds = _load_thresholds(args.thresholds, args.heuristic)
    report = _run_gap(args)
    failures = check_thresholds(report, thresholds)
    d = report.to_dict()
    d["passed"] = not failures
    d["failures"] = failures
    unit = ("gaps and thresholds in percent of the reference; the thresholds file and --json "
            "hold fractions, 0.05 = 5%")
    text = (
        format_report(report)
        + "\n"
        + (
            f"check passed ({unit})"
            if not failures
            else f"check FAILED ({unit}):\n" + "\n".join(f"  {f}" for f in failures)
        )
    )
    _emit(d, args.json, text)
    return 0 if not failures else 1


# --- trace ----------------------------------------------------------------------------------
def cmd_trace(args: argparse.Namespace) -> int:
    """One line per day of a trace: what ``--index`` picks."""
    from resilsched.io import read_instances
    from resilsched.registry import available_families, get_family, reader_for

    path = Path(args.file)
    if not any(reader_for(get_family(n), path) for n in available_families()):
        raise UsageError(f"{args.file}: is not a trace file (.swf)")
    fam, days = read_instances(path, **_trace_options(args))
    from resilsched.instances.rigid.swf import day_table

    rows = day_table(days)
    _notes(args)
    lines = [f"{'index':>5}  {'day':<12} {'jobs':>6} {'max width':>9} {'area':>12} {'dropped':>7}"]
    lines += [f"{r['index']:>5}  {r['day']:<12} {r['jobs']:>6} {r['max_width']:>9} "
              f"{r['area']:>12.4g} {r['dropped']:>7}" for r in rows]
    lines.append(f"{len(rows)} day(s), P={days[0].P if days else '-'}: "
                 f"resilsched solve {args.file} --index K")
    _emit({"file": str(path), "family": fam.name, "P": days[0].P if days else None,
           "days": rows}, args.json, "\n".join(lines))
    return 0


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


class _ReproduceParser(OneLineParser):
    """The ``reproduce`` subcommand, whose help lists the registered reproductions when asked
    for (building it imports every family, which plain ``resilsched --help`` should not)."""

    def format_help(self) -> str:
        from resilsched.registry import reproductions

        table = "\n".join(f"  {name:<12} {fam.reproduction.description}"
                          for name, fam in reproductions().items())
        self.description = self.description.replace("{table}", table)
        return super().format_help()


COMMANDS = {"list": cmd_list, "generate": cmd_generate, "solve": cmd_solve,
            "simulate": cmd_simulate, "gap": cmd_gap, "check": cmd_check, "trace": cmd_trace,
            "reproduce": cmd_reproduce}


def build_parser() -> argparse.ArgumentParser:
    """The ``resilsched`` argument parser (`resilsched.cli_parser`)."""
    return _build_parser(COMMANDS, _ReproduceParser)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns its exit status (2 for bad input, after one line on stderr)."""
    started = time.perf_counter()
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version (0) or a bad option (2, one line printed)
        return exc.code if isinstance(exc.code, int) else 0
    args.started = started
    try:
        return args.func(args)
    except (InvalidInstance, UnknownName, UsageError) as exc:
        msg = exc.args[0] if isinstance(exc, UnknownName) and exc.args else str(exc)
        print(f"error: {' '.join(msg.split())}", file=sys.stderr)
        return 2
    except (MemoryError, RecursionError) as exc:  # resources, not a bug: say so in one line
        what = "out of memory" if isinstance(exc, MemoryError) else "input nested too deeply"
        print(f"error: {what}: the input is too large for this machine", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
