"""``resilsched campaign run|merge|export`` (docs/campaigns.md).

`add_parser` adds ``campaign`` to the CLI's subparsers (``report``:
`resilsched.commands.report`, with the same error handling, `guarded`). Errors are told apart at the
boundary, before any task runs: every problem the user can fix (a bad spec, a store that is a
directory or a foreign, corrupt or read-only file, a full disk, an output path that is a
directory, a store of another configuration, a missing optional package, bad options) is one
line ``error: ...`` naming the path or field, with exit status 2 (rows stored so far are kept).
Only an exception raised inside a task is blamed on a task: one line ``error: task ... failed``
naming it, exit status 1. Ctrl-C exits with 130 after one line saying how to resume.
``campaign merge --spec`` exits with status 1 when tasks of the spec are in no store.
``--json`` prints one JSON object on standard output.
"""

from __future__ import annotations

import argparse
import functools
import math
import os
import re
import sys
import time
from collections.abc import Callable
from typing import Any

from resilsched.campaign.store import CampaignError
from resilsched.commands.args import FORMATTER, examples, json_flag, json_text

EXIT_USAGE = 2
#: a task raised (`campaign run`), or tasks are missing (`campaign merge --spec`)
EXIT_TASK_FAILED = 1
EXIT_INTERRUPTED = 130
#: most worker processes (or local Dask workers) a run starts
MAX_JOBS = 1024
#: longest --chunk-seconds (an hour of work per message)
MAX_CHUNK_SECONDS = 3600.0


def guarded(body: Callable[[argparse.Namespace], dict[str, Any]],
             text: Callable[[dict[str, Any]], str],
             status: Callable[[dict[str, Any]], int] = lambda result: 0,
             text_only: tuple[str, ...] = (),
             ) -> Callable[[argparse.Namespace], int]:
    """A command: run `body`, print its result (JSON or `text`), turn errors into statuses;
    `status` gives the exit status of a result; the keys `text_only` of the result are for
    `text`, left out of the JSON."""
    from resilsched.campaign.engine import failed_task
    from resilsched.errors import InvalidInstance
    from resilsched.registry import UnknownName

    @functools.wraps(body)  # the handler keeps the name and module of `body`
    def command(args: argparse.Namespace) -> int:
        try:
            result = body(args)
        except KeyboardInterrupt:  # the engine printed how many tasks are stored
            return EXIT_INTERRUPTED
        except Exception as exc:
            failure = failed_task(exc)
            if failure is not None:  # raised inside a task: the rows stored so far stay
                print(f"error: {failure.describe()} failed: {_one_line(exc)}; "
                      f"{failure.stored}/{failure.total} tasks are stored and kept (rerun the "
                      "same command to resume once the cause is fixed)", file=sys.stderr)
                return EXIT_TASK_FAILED
            if isinstance(exc, (CampaignError, InvalidInstance, UnknownName)):
                msg = exc.args[0] if isinstance(exc, UnknownName) and exc.args else str(exc)
                print(f"error: {' '.join(msg.split())}", file=sys.stderr)
                return EXIT_USAGE
            if isinstance(exc, OSError):  # a file met at the boundary, by name
                print(f"error: {exc.filename or 'a file'}: cannot be used "
                      f"({exc.strerror or exc})", file=sys.stderr)
                return EXIT_USAGE
            raise  # a bug, not the input: a traceback (MemoryError: one line from the CLI)
        if args.json:
            print(json_text({k: v for k, v in result.items() if k not in text_only}))
        else:
            print(text(result))
        return status(result)

    return command


def _one_line(exc: BaseException) -> str:
    text = " ".join(f"{type(exc).__name__}: {exc}".split())
    return text if len(text) <= 300 else text[:297] + "..."


# -- campaign run -----------------------------------------------------------------------------

def _executor(args: argparse.Namespace) -> tuple[int, str | None]:
    """(jobs, dask) of run_campaign for --executor, --dask and --jobs."""
    if args.jobs is not None and not 1 <= args.jobs <= MAX_JOBS:
        raise CampaignError(f"--jobs={args.jobs} must be in [1, {MAX_JOBS}]")
    if not (math.isfinite(args.chunk_seconds) and 0 < args.chunk_seconds <= MAX_CHUNK_SECONDS):
        raise CampaignError(f"--chunk-seconds={args.chunk_seconds} must be a number of seconds "
                            f"in (0, {MAX_CHUNK_SECONDS:g}]")
    executor = args.executor or ("dask" if args.dask else "pool")
    if args.dask and executor != "dask":
        raise CampaignError(f"--dask needs --executor dask (not {executor})")
    if executor == "inline":
        return 1, None
    if executor == "dask":
        return args.jobs or os.cpu_count() or 1, args.dask or "local"
    return args.jobs or os.cpu_count() or 1, None


def _shard(text: str | None) -> tuple[int, int] | None:
    """(I, N) of ``--shard I/N``, or None; `CampaignError` naming the rule otherwise."""
    from resilsched.campaign.plan import MAX_SHARDS

    if text is None:
        return None
    found = re.fullmatch(r"\s*(\d{1,7})\s*/\s*(\d{1,7})\s*", text)
    if found is None or not 1 <= int(found[1]) <= int(found[2]) <= MAX_SHARDS:
        raise CampaignError(f"--shard={text[:40]!r} must be I/N with 1 <= I <= N <= "
                            f"{MAX_SHARDS} (--shard 2/4: the second of four slices)")
    return int(found[1]), int(found[2])


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Check the options, the spec and the store, list the tasks (the slice of ``--shard``),
    try the spec's parameters, run the missing tasks into the store."""
    from resilsched.campaign.claims import live_runs
    from resilsched.campaign.engine import bulk, execute, require_dask
    from resilsched.campaign.experiment import ExperimentSpec
    from resilsched.campaign.plan import (
        check_parameters,
        count_tasks,
        parameterised,
        plan,
        shard_slice,
    )
    from resilsched.campaign.spec import load_spec
    from resilsched.campaign.store import ResultStore
    from resilsched.campaign.storefile import inspect
    from resilsched.campaign.tasks import run_task
    from resilsched.progress import progress_bar

    t0 = time.perf_counter()
    jobs, dask = _executor(args)
    shard = _shard(args.shard)
    if dask is not None:
        require_dask()
    spec = load_spec(args.spec)
    found = inspect(args.store, must_exist=False)  # a bad file is refused before planning
    bar = progress_bar(f"{spec.name}: planning", count_tasks(spec), 0, not args.quiet,
                       unit="tasks", after=2.0)
    with bulk():
        tasks = plan(spec, progress=lambda n: bar.tick(n - bar.done))
    bar.close()
    experiment = spec.experiment if isinstance(spec, ExperimentSpec) else None
    # the whole campaign's: every shard checks the same (an experiment's arguments are checked)
    probes = parameterised(tasks) if experiment is None else []
    if shard is not None:
        everything, tasks = len(tasks), shard_slice(tasks, *shard)
        mine = {t.key for t in tasks}
    if probes and found.exists and not args.fresh:  # a resumed run tried them already
        with ResultStore(args.store, readonly=True) as store:
            stored = store.stored_among(spec.name, [t.key for t in probes])
        probes = [t for t in probes if t.key not in stored]
    probed = check_parameters(spec, probes) if probes else []  # a SpecError: no file
    if shard is not None:  # rows of the other shards are theirs to store
        probed = [(task, row, sec) for task, row, sec in probed if task.key in mine]
    with ResultStore(args.store) as store:
        if args.fresh:
            others = live_runs(store, spec.name)
            if others:
                raise CampaignError(f"--fresh: campaign {spec.name!r} in {args.store} is being "
                                    f"run by {', '.join(others.values())}; stop it first")
            store.forget(spec.name)
        store.register(spec.name, spec.config())
        checked = 0  # rows of the parameter check stored now
        if probed:
            store.add_run(spec.name, "inline (parameter check)", len(probed))
            checked = sum(store.add(spec.name, task.key, row, fields=task.fields, seconds=sec)
                          for task, row, sec in probed)
        note = "" if shard is None else f"shard {shard[0]}/{shard[1]}"
        fn = run_task if experiment is None else experiment.function
        outcome = execute(spec.name, tasks, fn, store, config=spec.config(), jobs=jobs,
                          dask=dask, progress=not args.quiet, chunk_seconds=args.chunk_seconds,
                          collect=False, note=note, checked=checked)
        stored_now = store.count(spec.name)
        refused = store.count_with(spec.name, "status", "refused")
    return {"campaign": spec.name, "store": str(args.store), "tasks": len(tasks),
            "ran": outcome.computed + checked, "by_others": outcome.by_others,
            "already_stored": outcome.already, "stored": stored_now,
            "refused": refused,
            "shard": None if shard is None else {"index": shard[0], "count": shard[1],
                                                 "campaign_tasks": everything},
            "wall_time": round(time.perf_counter() - t0, 3),
            # text only (`guarded` leaves it out of the JSON): not looked up for --json
            "next": None if args.json else _next_step(spec, str(args.store), shard is not None)}


def _next_step(spec: Any, store: str, sharded: bool) -> str:
    """The command that reads what a run (or merge) of `spec` (None: unknown) stored in
    `store`, for the text output: ``campaign merge`` for a shard, the experiment's
    reproduction for an experiment spec (``resilsched report`` reads cross-product specs
    only), ``report`` otherwise."""
    from resilsched.campaign.experiment import ExperimentSpec

    if sharded:
        return "resilsched campaign merge SHARD-STORES... --store all.sqlite --spec SPEC"
    if isinstance(spec, ExperimentSpec):
        return (spec.reproduce_command(store)
                or f"resilsched campaign export {store} --csv FILE")
    return f"resilsched report {store} --out DIR"


def _run_text(r: dict[str, Any]) -> str:
    others = f", {r['by_others']} by another run" if r["by_others"] else ""
    refused = (f"; {r['refused']} refused by their algorithm (counted in the report)"
               if r["refused"] else "")
    shard = r["shard"]
    what = "" if shard is None else (f" shard {shard['index']}/{shard['count']} ({r['tasks']} "
                                     f"of its {shard['campaign_tasks']} tasks)")
    return (f"campaign {r['campaign']}{what}: {r['stored']} rows in {r['store']} ({r['ran']} "
            f"run now{others}, {r['already_stored']} already stored){refused}, "
            f"{r['wall_time']:.1f} s; next: {r['next']}")


# -- campaign merge ---------------------------------------------------------------------------

def merge(args: argparse.Namespace) -> dict[str, Any]:
    """Merge the input stores into ``--store`` (checked against ``--spec`` when given)."""
    from resilsched.campaign.export import left_out_line
    from resilsched.campaign.merge import merge_stores
    from resilsched.campaign.spec import load_spec

    t0 = time.perf_counter()
    spec = load_spec(args.spec) if args.spec else None
    result = merge_stores(args.stores, args.store, campaign=args.campaign, spec=spec,
                          progress=not args.quiet)
    left = [x for m in result.inputs for x in m.left_out]
    if left:
        print(f"warning: {left_out_line(left)}", file=sys.stderr)
    conflicts = [k for m in result.inputs for k in m.conflicts]
    if conflicts:
        print(f"warning: {len(conflicts)} task(s) stored with different results in two stores "
              f"(kept the first seen; e.g. key {conflicts[0][:12]}): were they run with "
              "different versions? (see the runs table)", file=sys.stderr)
    for who in result.still_running:
        print(f"warning: {who} is still running this campaign: its rows so far are merged",
              file=sys.stderr)
    return {**result.to_dict(), "spec": args.spec,
            "missing_examples": result.missing_examples,
            "wall_time": round(time.perf_counter() - t0, 3),
            "next": None if args.json else _next_step(spec, str(args.store), False)}


def _merge_text(r: dict[str, Any]) -> str:
    from resilsched.campaign.engine import TaskFailure

    counts = [f"{r['added']} new", f"{r['duplicates']} duplicates"]
    counts += [f"{r[k]} {k.replace('_', ' ')}" for k in ("conflicts", "left_out") if r[k]]
    lines = [f"merged campaign {r['campaign']} from {len(r['inputs'])} store(s) into "
             f"{r['store']}: {r['stored']} rows ({', '.join(counts)})"]
    lines += [f"  {m['store']}: {m['rows']} rows, {m['added']} new" for m in r["inputs"]]
    if r["missing"] is None:
        lines.append(f"next: {r['next']} (add --spec SPEC to check that every task is "
                     "stored)")
    elif r["missing"] == 0:
        lines.append(f"all {r['tasks']} tasks of the spec are stored; next: {r['next']}")
    else:
        shards = ", ".join(f"shard {k}: {n}" for k, n in r["missing_by_shard"].items())
        lines.append(f"INCOMPLETE: {r['missing']} of the {r['tasks']} tasks of the spec are in "
                     f"no store{f' ({shards})' if shards else ''}; run them (resilsched "
                     f"campaign run {r['spec']}{' --shard I/N' if shards else ''} --store ...) "
                     "and merge again")
        lines += [f"  missing: {TaskFailure(fields).describe()}"
                  for fields in r["missing_examples"]]
    return "\n".join(lines)


# -- campaign export --------------------------------------------------------------------------

def export(args: argparse.Namespace) -> dict[str, Any]:
    from resilsched.campaign.export import (
        check_output,
        checked_rows,
        flat_rows,
        left_out_line,
        open_store,
        pick_campaign,
        require_pyarrow,
        write_csv,
        write_parquet,
    )

    if not args.csv and not args.parquet:
        raise CampaignError("export needs --csv FILE and/or --parquet FILE")
    outputs = [(option, path) for option, path in (("--csv", args.csv),
                                                   ("--parquet", args.parquet)) if path]
    for option, path in outputs:  # before reading anything
        check_output(path, f"{option} {path}")
    if args.parquet:  # a missing pyarrow fails before any file is written
        require_pyarrow()
    with open_store(args.store) as store:
        name = pick_campaign(store, args.campaign)
        stored, left = checked_rows(store, name)
    rows = flat_rows(name, stored)
    if args.parquet:
        write_parquet(rows, args.parquet, f"--parquet {args.parquet}")
    if args.csv:
        write_csv(rows, args.csv, f"--csv {args.csv}")
    if left:
        print(f"warning: {left_out_line(left)}", file=sys.stderr)
    return {"campaign": name, "rows": len(rows), "left_out": [x.describe() for x in left],
            "files": [str(path) for _, path in outputs]}


def files_text(what: str) -> Callable[[dict[str, Any]], str]:
    def text(r: dict[str, Any]) -> str:
        extra = []
        if r.get("refused"):
            extra.append(f"{r['refused']} refused")
        if r.get("left_out"):
            extra.append(f"{len(r['left_out'])} left out")
        note = f" ({', '.join(extra)})" if extra else ""
        return f"{what} {r['rows']} rows of campaign {r['campaign']}{note}:\n" + \
            "\n".join(f"  {f}" for f in r["files"])
    return text


# -- parsers ----------------------------------------------------------------------------------

def add_parser(sub: Any) -> None:
    """Add ``campaign`` (``run``, ``merge``, ``export``) to the CLI's subparsers."""
    fmt = FORMATTER

    camp = sub.add_parser(
        "campaign", help="run a campaign declared in a TOML spec; merge and export stores",
        formatter_class=fmt,
        description="Campaigns: the cross product of instances, algorithms and failure "
        "scenarios that a TOML spec declares (format: docs/campaigns.md), run resumably into "
        "a SQLite result store, one row per task.",
        epilog=examples("""
resilsched campaign run rigid-qbar.toml --store results.sqlite
resilsched campaign run rigid-qbar.toml --store results.sqlite --executor dask --dask local
resilsched campaign run rigid-qbar.toml --shard 2/4 --store shard-2.sqlite
resilsched campaign merge shard-*.sqlite --store all.sqlite --spec rigid-qbar.toml
resilsched campaign export results.sqlite --csv rows.csv
resilsched report results.sqlite --out report/
"""))
    actions = camp.add_subparsers(dest="action", metavar="ACTION", required=True)

    p = actions.add_parser(
        "run", help="run the tasks of a spec that the store does not hold yet",
        formatter_class=fmt,
        description="Check the spec (unknown names or bad values: one line, exit 2, nothing "
        "runs), then run every task not yet stored. Rows are committed as they finish: after "
        "an interruption (Ctrl-C, exit 130, or even SIGKILL) the same command finishes the "
        "campaign, running each missing task once.",
        epilog=examples("""
resilsched campaign run spec.toml --store results.sqlite --jobs 2
resilsched campaign run spec.toml --store results.sqlite --executor inline -q
resilsched campaign run spec.toml --store results.sqlite --dask tcp://scheduler:8786
resilsched campaign run spec.toml --shard 3/16 --store shard-3.sqlite
"""))
    p.add_argument("spec", metavar="SPEC.toml", help="campaign spec file (docs/campaigns.md)")
    p.add_argument("--store", default="results.sqlite",
                   help="SQLite result store, created if missing (default results.sqlite)")
    p.add_argument("--executor", choices=("inline", "pool", "dask"), default=None,
                   help="where tasks run: inline in this process, a local process pool, or "
                   "Dask distributed (default pool; dask when --dask is given)")
    p.add_argument("--dask", metavar="ADDRESS|local", default=None,
                   help="Dask scheduler address (tcp://host:8786) or 'local' for a local "
                   "cluster of --jobs workers; needs pip install 'resilsched[dask]' (default: "
                   "local with --executor dask)")
    p.add_argument("--jobs", type=int, default=None,
                   help="pool processes or local Dask workers (default: all cores, "
                   f"{os.cpu_count()} here)")
    p.add_argument("--chunk-seconds", type=float, default=1.0,
                   help="seconds of work per message to a worker, measured on the first tasks "
                   "(default 1.0)")
    p.add_argument("--shard", metavar="I/N", default=None,
                   help="run only slice I of N (1 <= I <= N): the tasks whose key falls in it, "
                   "the same on every machine; merge the N stores with `campaign merge` "
                   "(default: every task)")
    p.add_argument("--fresh", action="store_true",
                   help="delete this campaign's stored rows first (default: resume)")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="no progress lines on standard error (default: progress lines)")
    json_flag(p)
    p.set_defaults(func=guarded(run, _run_text, text_only=("next",)))

    p = actions.add_parser(
        "merge", help="merge result stores of one campaign (the shards of a job array)",
        formatter_class=fmt,
        description="Copy the rows of one campaign from the input stores (opened read-only, "
        "never changed) into --store. Stores of another spec or configuration are refused "
        "before anything is written; a task stored twice is kept once; with --spec, the "
        "tasks no store holds are counted per shard and the exit status is 1 while any is "
        "missing.",
        epilog=examples("""
resilsched campaign merge shard-*.sqlite --store all.sqlite
resilsched campaign merge shard-*.sqlite --store all.sqlite --spec spec.toml --json
"""))
    p.add_argument("stores", metavar="STORE", nargs="+",
                   help="result stores to merge (read only)")
    p.add_argument("--store", required=True,
                   help="the merged store, created if missing; may hold rows already "
                   "(required)")
    p.add_argument("--spec", metavar="SPEC.toml", default=None,
                   help="the campaign's spec: the stores must be of it, and the tasks no "
                   "store holds are reported (default: no check of completeness)")
    p.add_argument("--campaign", default=None,
                   help="campaign name (default: the spec's, or the stores' only campaign)")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="no progress lines on standard error (default: progress lines)")
    json_flag(p)
    p.set_defaults(func=guarded(merge, _merge_text,
                                 lambda r: EXIT_TASK_FAILED if not r["complete"] else 0,
                                 text_only=("next",)))

    p = actions.add_parser(
        "export", help="write a campaign's rows as CSV or Parquet", formatter_class=fmt,
        description="One line per task: its fields (params as param.NAME columns), its "
        "result, seconds (worker wall time) and finished (UTC).",
        epilog=examples("resilsched campaign export results.sqlite --csv rows.csv\n"
                         "resilsched campaign export results.sqlite --parquet rows.parquet"))
    p.add_argument("store", metavar="STORE", help="SQLite result store of `campaign run`")
    p.add_argument("--csv", metavar="FILE", default=None, help="CSV file to write (default: none)")
    p.add_argument("--parquet", metavar="FILE", default=None,
                   help="Parquet file to write; needs pyarrow (default: none)")
    p.add_argument("--campaign", default=None,
                   help="campaign name (default: the store's only campaign)")
    json_flag(p)
    p.set_defaults(func=guarded(export, files_text("exported")))
