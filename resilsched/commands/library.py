"""``resilsched library`` and the library options of ``gap``/``check``
and ``generate`` (docs/architecture.md, "Libraries").

- ``library list [--json]``: the shipped libraries, with per library the family, the instance
  count and the number with a proven optimum;
- ``library verify NAME|DIR|all [--sample K] [--seed S] [--time-limit S]``: re-solve with the
  manifest's model and check the stored certificates; exit status 1 (each failing instance with
  both values) when one does not hold, 2 when a manifest cannot be read;
- ``library path NAME``: the folder of a shipped library (to vendor it);
- ``gap``/``check --library NAME|DIR [--resolve] [--store PATH] [--jobs N]``: `add_gap_args`,
  `run_gap`; ``generate --solve [--time-limit S]``: `add_generate_args`, `generate_solved`.

Bad input raises `InvalidInstance`, which ``resilsched`` prints as one line with exit status 2.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from resilsched.errors import InvalidInstance
from resilsched.options import check_time_limit

#: seconds per exact solve of ``generate --solve`` when --time-limit is not given
GENERATE_TIME_LIMIT = 10.0


class CommandError(InvalidInstance):
    """A one-line error whose message is given whole (printed as ``error: <message>``)."""

    def __init__(self, message: str):
        ValueError.__init__(self, message)
        self.field, self.rule = "", message


def _emit(obj: dict[str, Any], as_json: bool, text: str) -> None:
    """One JSON object (``--json``) or the text, on standard output."""
    print(json.dumps(obj, indent=1, allow_nan=False) if as_json else text)


def _positive(value: int | None, option: str) -> int | None:
    if value is not None and value < 1:
        raise InvalidInstance(option, f"{value} must be >= 1")
    return value


def _json_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true",
                   help="print one JSON object on standard output (default: text)")


def _examples(text: str) -> str:
    return "examples:\n" + "\n".join(f"  {line}" for line in text.strip().splitlines())


# --- library list / path ----------------------------------------------------------------------
def cmd_list(args: argparse.Namespace) -> int:
    from resilsched.library.catalog import shipped

    rows = [lib.summary() for lib in shipped()]
    if args.family:
        rows = [r for r in rows if r["family"] == args.family]
    width = max([len(r["name"]) for r in rows] + [7])
    lines = [f"{'library':<{width}}  {'family':<12} {'instances':>9} {'proven':>7}  exact model"]
    lines += [f"{r['name']:<{width}}  {r['family']:<12} {r['instances']:>9} "
              f"{r['proven_optimal']:>7}  {r['method']}" for r in rows]
    lines.append("(verify: resilsched library verify NAME --sample 10; "
                 "gap: resilsched gap --library NAME)")
    _emit({"libraries": rows}, args.json, "\n".join(lines))
    return 0


def cmd_path(args: argparse.Namespace) -> int:
    from resilsched.library.catalog import find

    libs = find(args.name)
    _emit({"libraries": {lib.name: str(lib.path) for lib in libs}}, args.json,
          "\n".join(str(lib.path) for lib in libs))
    return 0


# --- library verify ----------------------------------------------------------------------------
def cmd_verify(args: argparse.Namespace) -> int:
    from resilsched.library.catalog import find
    from resilsched.library.verify import verify
    from resilsched.progress import ProgressBar

    k = _positive(args.sample, "--sample")
    limit = check_time_limit(args.time_limit, "--time-limit")
    libs = find(args.name)
    t0 = time.perf_counter()
    bar = ProgressBar(f"verify {args.name}", enabled=not args.quiet)
    checks = verify(libs, k, args.seed, limit, bar)
    failed = [c for c in checks if c.problems]
    out = {
        "libraries": [lib.name for lib in libs],
        "checked": len(checks),
        "passed": len(checks) - len(failed),
        "failed": len(failed),
        "sample": k,
        "seed": args.seed,
        "wall_time": round(time.perf_counter() - t0, 3),
        "failures": [c.to_dict() for c in failed],
        "checks": [c.to_dict() for c in checks],
    }
    lines = [f"verified {len(checks)} instance(s) of {', '.join(lib.name for lib in libs)}: "
             f"{len(checks) - len(failed)} certificate(s) hold, {len(failed)} do not"]
    if args.verbose:
        lines += [f"  ok     {c.label}: stored {c.stored}; re-solve {c.resolved}"
                  for c in checks if not c.problems]
    for c in failed:
        lines.append(f"  FAILED {c.label}: stored {c.stored}; re-solve {c.resolved or '-'}")
        lines += [f"         {p}" for p in c.problems]
    _emit(out, args.json, "\n".join(lines))
    return 1 if failed else 0


# --- gap / check --library ---------------------------------------------------------------------
def add_gap_args(p: argparse.ArgumentParser) -> None:
    """The library options of ``gap`` and ``check``."""
    p.add_argument("--library", action="append", metavar="NAME|DIR",
                   help="score every heuristic against the stored certificates of a library: "
                        "a shipped name (resilsched library list), 'all', a library folder, "
                        "or a folder of library folders; repeatable (default: the built-in "
                        "smoke suite, solved now)")
    p.add_argument("--resolve", action="store_true",
                   help="with --library: solve every instance again (the manifest's model "
                        "and options, --time-limit or the manifest's limit) instead of trusting "
                        "the stored certificates (default: no solving; the stored ones must "
                        "name the manifest's model and match their files)")
    p.add_argument("--store", default=None, metavar="PATH",
                   help="with --library: campaign result store (SQLite) that makes the run "
                        "resumable (default: in memory, nothing kept)")
    p.add_argument("--jobs", type=int, default=None,
                   help="with --library: worker processes (default: all cores; 1 runs inline)")
    p.add_argument("--dask", default=None, metavar="ADDRESS|local",
                   help="with --library: run the tasks on Dask distributed (default: no Dask)")


def run_gap(args: argparse.Namespace) -> Any:
    """The `GapReport` of ``gap``/``check --library`` (libraries filtered by ``--family``)."""
    from resilsched.api import library_gap
    from resilsched.campaign import CampaignError

    _positive(args.jobs, "--jobs")
    try:
        return library_gap(args.library, args.heuristic, args.family, args.time_limit,
                           jobs=args.jobs, dask=args.dask, store=args.store,
                           resolve=args.resolve, progress=not args.quiet)
    except CampaignError as exc:  # a store of another configuration, Dask missing
        raise CommandError(str(exc)) from None


def gap_progress(args: argparse.Namespace) -> Any:
    """The progress bar of the built-in gap suite (None under -q)."""
    from resilsched.progress import ProgressBar

    return None if args.quiet else ProgressBar("gap")


# --- generate --solve --------------------------------------------------------------------------
def add_generate_args(p: argparse.ArgumentParser) -> None:
    """The certificate options of ``generate``."""
    p.add_argument("--solve", action="store_true",
                   help="solve every instance exactly and write its certificate (optimum or "
                        "bounds, model, solver versions, proof time) into its metadata and the "
                        "manifest (default: no solving)")
    p.add_argument("--time-limit", type=float, default=None,
                   help=f"with --solve: seconds per exact solve, deterministic (default "
                        f"{GENERATE_TIME_LIMIT:g})")
    p.add_argument("--method", default=None,
                   help="with --solve: exact model (default: the family's reference model)")
    p.add_argument("--jobs", type=int, default=1,
                   help="with --solve: worker processes for the solves (default 1)")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="no progress on standard error (default: a bar on a terminal, else a "
                        "line every 10 s and at the end)")


def generate_solved(args: argparse.Namespace) -> int:
    """``generate --solve``: a library folder with certificates (docs/architecture.md)."""
    from resilsched.library.build import certify_all, write_library
    from resilsched.registry import exact_model, generator, get_family

    fam = get_family(args.family)
    gen = generator(fam, args.preset)
    _positive(args.count, "--count")
    _positive(args.jobs, "--jobs")
    method = exact_model(fam, args.method or fam.default_exact).name
    limit = check_time_limit(GENERATE_TIME_LIMIT if args.time_limit is None
                             else args.time_limit, "--time-limit")
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise InvalidInstance(f"--out={args.out}", "is a file, not a directory")
    instances = gen.generate(args.seed, args.count)
    certs = certify_all(fam.name, [inst.to_dict() for inst in instances], method, limit,
                        jobs=args.jobs, progress=not args.quiet, name=out.name)
    try:
        manifest = write_library(out, name=out.name, family=fam.name, preset=gen.name,
                                 seed=args.seed, instances=instances, certificates=certs,
                                 method=method, time_limit=limit, description=gen.description)
    except OSError as exc:
        raise InvalidInstance(f"--out={args.out}", f"cannot be written ({exc.strerror})") \
            from None
    proven = manifest["proven_optimal"]
    _emit(manifest, args.json,
          f"wrote {len(instances)} {fam.name} instances ({gen.name}, seed {args.seed}) with "
          f"certificates by {method} ({proven} proven optima, {len(instances) - proven} with "
          f"bounds) and manifest.json to {out}")
    return 0


# --- parsers -----------------------------------------------------------------------------------
def add_parsers(sub: Any) -> None:
    """Add ``library`` (list, verify, path) to the subcommands `sub`."""
    fmt = argparse.RawDescriptionHelpFormatter
    p = sub.add_parser(
        "library", help="shipped instance libraries with certified optima: list, verify, path",
        formatter_class=fmt,
        description="Instance libraries whose instances carry their optimum (or bounds) and\n"
                    "the certificate that proved it, JobShopLib style (docs/libraries.md).",
        epilog=_examples("resilsched library list --json\n"
                         "resilsched library verify rigid-small --sample 10\n"
                         "resilsched gap --library rigid-small"))
    lib = p.add_subparsers(dest="library_command", metavar="ACTION", required=True)

    q = lib.add_parser("list", help="the shipped libraries: family, instances, proven optima")
    q.add_argument("--family", help="only this family's libraries (default: all)")
    _json_flag(q)
    q.set_defaults(func=cmd_list)

    q = lib.add_parser(
        "verify", help="re-solve instances; exit 1 when a stored certificate does not hold",
        formatter_class=fmt,
        description="Re-solves instances with the exact model, options and time limit the\n"
                    "manifest names (deterministic: the same result on every machine), whatever\n"
                    "their certificate says, and fails (exit status 1, naming each instance and\n"
                    "both values) when an optimum or a bound is not reproduced, a certificate\n"
                    "names another model, or a file differs from its manifest. A manifest that\n"
                    "cannot be read is refused (exit status 2).",
        epilog=_examples("resilsched library verify rigid-small --sample 10\n"
                         "resilsched library verify all --sample 5 --seed 3 --json\n"
                         "resilsched library verify vendor/rigid-small"))
    q.add_argument("name", metavar="NAME|DIR",
                   help="a shipped library, 'all', or a library folder (with manifest.json)")
    q.add_argument("--sample", type=int, default=None, metavar="K",
                   help="check K instances per library, drawn with --seed (default: all)")
    q.add_argument("--seed", type=int, default=0, help="seed of the --sample draw (default 0)")
    q.add_argument("--time-limit", type=float, default=None,
                   help="seconds per re-solve (default: the limit each certificate records)")
    q.add_argument("-v", "--verbose", action="store_true",
                   help="also list the instances whose certificate holds (default: the "
                        "failures only)")
    q.add_argument("-q", "--quiet", action="store_true",
                   help="no progress on standard error (default: a bar on a terminal, plain "
                        "lines otherwise)")
    _json_flag(q)
    q.set_defaults(func=cmd_verify)

    q = lib.add_parser("path", help="the folder of a shipped library (to vendor it)")
    q.add_argument("name", metavar="NAME", help="a shipped library or 'all'")
    _json_flag(q)
    q.set_defaults(func=cmd_path)
