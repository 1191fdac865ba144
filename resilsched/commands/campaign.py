"""``resilsched campaign run|export`` and ``resilsched report`` (docs/campaigns.md).

`add_parsers` adds the subcommands to the CLI's subparsers. Every error the user can fix (a bad
spec, a store of another configuration, a missing optional package, bad options) is one line
``error: ...`` on standard error with exit status 2; Ctrl-C exits with 130 after one line saying
how to resume; a failing task exits with 1. ``--json`` prints one JSON object on standard output.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from typing import Any

from resilsched.campaign.store import CampaignError

EXIT_USAGE = 2
EXIT_TASK_FAILED = 1
EXIT_INTERRUPTED = 130


def _examples(text: str) -> str:
    return "examples:\n" + "\n".join(f"  {line}" for line in text.strip().splitlines())


def _guarded(body: Callable[[argparse.Namespace], dict[str, Any]],
             text: Callable[[dict[str, Any]], str]) -> Callable[[argparse.Namespace], int]:
    """A command: run `body`, print its result (JSON or `text`), turn errors into statuses."""
    from resilsched.errors import InvalidInstance
    from resilsched.registry import UnknownName

    def command(args: argparse.Namespace) -> int:
        try:
            result = body(args)
        except (CampaignError, InvalidInstance, UnknownName) as exc:
            msg = exc.args[0] if isinstance(exc, UnknownName) and exc.args else str(exc)
            print(f"error: {msg}", file=sys.stderr)
            return EXIT_USAGE
        except KeyboardInterrupt:  # the engine printed how many tasks are stored
            return EXIT_INTERRUPTED
        except Exception as exc:  # a task raised: the rows stored so far stay
            print(f"error: a task failed: {exc!r}; the results stored so far are kept",
                  file=sys.stderr)
            return EXIT_TASK_FAILED
        print(json.dumps(result) if args.json else text(result))
        return 0

    return command


# -- campaign run -----------------------------------------------------------------------------

def _executor(args: argparse.Namespace) -> tuple[int, str | None]:
    """(jobs, dask) of run_campaign for --executor, --dask and --jobs."""
    if args.jobs is not None and args.jobs < 1:
        raise CampaignError(f"--jobs={args.jobs} must be >= 1")
    if args.chunk_seconds <= 0:
        raise CampaignError(f"--chunk-seconds={args.chunk_seconds} must be > 0")
    executor = args.executor or ("dask" if args.dask else "pool")
    if args.dask and executor != "dask":
        raise CampaignError(f"--dask needs --executor dask (not {executor})")
    if executor == "inline":
        return 1, None
    if executor == "dask":
        return args.jobs or os.cpu_count() or 1, args.dask or "local"
    return args.jobs or os.cpu_count() or 1, None


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Check the spec and options, list the tasks, run the missing ones into the store."""
    from resilsched.campaign.engine import require_dask, run_campaign
    from resilsched.campaign.plan import plan
    from resilsched.campaign.spec import load_spec
    from resilsched.campaign.store import ResultStore
    from resilsched.campaign.tasks import run_task

    t0 = time.perf_counter()
    jobs, dask = _executor(args)
    if dask is not None:
        require_dask()
    spec = load_spec(args.spec)
    tasks = plan(spec)
    with ResultStore(args.store) as store:
        if args.fresh:
            store.forget(spec.name)
        before = store.count(spec.name)
        run_campaign(spec.name, tasks, run_task, store, config=spec.config(), jobs=jobs,
                     dask=dask, progress=not args.quiet, chunk_seconds=args.chunk_seconds,
                     collect=False)
        stored = store.count(spec.name)
    return {"campaign": spec.name, "store": str(args.store), "tasks": len(tasks),
            "ran": stored - before, "already_stored": before, "stored": stored,
            "wall_time": round(time.perf_counter() - t0, 3)}


def _run_text(r: dict[str, Any]) -> str:
    return (f"campaign {r['campaign']}: {r['stored']} rows in {r['store']} ({r['ran']} run now, "
            f"{r['already_stored']} already stored), {r['wall_time']:.1f} s; next: "
            f"resilsched report {r['store']} --out DIR")


# -- campaign export --------------------------------------------------------------------------

def export(args: argparse.Namespace) -> dict[str, Any]:
    from resilsched.campaign.export import (
        flat_rows,
        open_store,
        pick_campaign,
        write_csv,
        write_parquet,
    )

    if not args.csv and not args.parquet:
        raise CampaignError("export needs --csv FILE and/or --parquet FILE")
    with open_store(args.store) as store:
        name = pick_campaign(store, args.campaign)
        rows = flat_rows(store, name)
    files = []
    if args.parquet:  # first: a missing pyarrow fails before any file is written
        write_parquet(rows, args.parquet)
        files.append(str(args.parquet))
    if args.csv:
        write_csv(rows, args.csv)
        files.insert(0, str(args.csv))
    return {"campaign": name, "rows": len(rows), "files": files}


# -- report -----------------------------------------------------------------------------------

def report(args: argparse.Namespace) -> dict[str, Any]:
    from resilsched.campaign.report import write_report

    return write_report(args.store, args.out, args.campaign, plots=not args.no_plots)


def _files_text(what: str) -> Callable[[dict[str, Any]], str]:
    def text(r: dict[str, Any]) -> str:
        return f"{what} {r['rows']} rows of campaign {r['campaign']}:\n" + \
            "\n".join(f"  {f}" for f in r["files"])
    return text


# -- parsers ----------------------------------------------------------------------------------

def add_parsers(sub: Any) -> None:
    """Add ``campaign`` (``run``, ``export``) and ``report`` to the CLI's subparsers."""
    fmt = argparse.RawDescriptionHelpFormatter

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--json", action="store_true",
                       help="print one JSON object on standard output (default: text)")

    camp = sub.add_parser(
        "campaign", help="run a campaign declared in a TOML spec; export its result store",
        formatter_class=fmt,
        description="Campaigns: the cross product of instances, algorithms and failure "
        "scenarios that a TOML spec declares (format: docs/campaigns.md), run resumably into "
        "a SQLite result store, one row per task.",
        epilog=_examples("""
resilsched campaign run rigid-qbar.toml --store results.sqlite
resilsched campaign run rigid-qbar.toml --store results.sqlite --executor dask --dask local
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
        epilog=_examples("""
resilsched campaign run spec.toml --store results.sqlite --jobs 2
resilsched campaign run spec.toml --store results.sqlite --executor inline -q
resilsched campaign run spec.toml --store results.sqlite --dask tcp://scheduler:8786
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
    p.add_argument("--fresh", action="store_true",
                   help="delete this campaign's stored rows first (default: resume)")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="no progress lines on standard error (default: progress lines)")
    common(p)
    p.set_defaults(func=_guarded(run, _run_text))

    p = actions.add_parser(
        "export", help="write a campaign's rows as CSV or Parquet", formatter_class=fmt,
        description="One line per task: its fields (params as param.NAME columns), its "
        "result, seconds (worker wall time) and finished (UTC).",
        epilog=_examples("resilsched campaign export results.sqlite --csv rows.csv\n"
                         "resilsched campaign export results.sqlite --parquet rows.parquet"))
    p.add_argument("store", metavar="STORE", help="SQLite result store of `campaign run`")
    p.add_argument("--csv", metavar="FILE", default=None, help="CSV file to write (default: none)")
    p.add_argument("--parquet", metavar="FILE", default=None,
                   help="Parquet file to write; needs pyarrow (default: none)")
    p.add_argument("--campaign", default=None,
                   help="campaign name (default: the store's only campaign)")
    common(p)
    p.set_defaults(func=_guarded(export, _files_text("exported")))

    p = sub.add_parser(
        "report", help="markdown report, CSV tables and PNG plots of a campaign store",
        formatter_class=fmt,
        description="Per family: the normalized objective (objective / the family's first "
        "registered bound) and, when the campaign ran an exact model, the gap to its optimum; "
        "tables of mean, quartiles, 95th percentile and max per algorithm and swept parameter; "
        "box plots and sweep plots with 95 %% confidence bands (docs/campaigns.md).",
        epilog=_examples("resilsched report results.sqlite --out report/\n"
                         "resilsched report results.sqlite --out report/ --no-plots --json"))
    p.add_argument("store", metavar="STORE", help="SQLite result store of `campaign run`")
    p.add_argument("--out", required=True, help="output folder, created if missing (required)")
    p.add_argument("--campaign", default=None,
                   help="campaign name (default: the store's only campaign)")
    p.add_argument("--no-plots", action="store_true",
                   help="write no PNG (default: plots, which need resilsched[plot])")
    common(p)
    p.set_defaults(func=_guarded(report, _files_text("reported")))
