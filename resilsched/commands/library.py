"""``resilsched library list|verify|path`` (docs/architecture.md, "Libraries").

- ``library list [--json]``: the shipped libraries, with per library the family, the instance
  count and the number with a proven optimum;
- ``library verify NAME|DIR|all [--sample K] [--seed S] [--time-limit S]``: re-solve with the
  manifest's model and check the stored certificates; exit status 1 (each failing instance with
  both values) when one does not hold, 2 when a manifest cannot be read;
- ``library path NAME``: the folder of a shipped library (to vendor it).

Libraries are written by ``generate --solve`` (`resilsched.commands.generate`) and scored by
``gap --library`` (`resilsched.commands.gap`). Bad input raises `InvalidInstance`, which
``resilsched`` prints as one line with exit status 2. ``--json`` output is indented whatever
its length (`emit_indented`).
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from resilsched.commands.args import FORMATTER, emit_indented, examples, json_flag, positive
from resilsched.deadline import check_time_limit


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
    emit_indented({"libraries": rows}, args.json, "\n".join(lines))
    return 0


def cmd_path(args: argparse.Namespace) -> int:
    from resilsched.library.catalog import find

    libs = find(args.name)
    emit_indented({"libraries": {lib.name: str(lib.path) for lib in libs}}, args.json,
          "\n".join(str(lib.path) for lib in libs))
    return 0


# --- library verify ----------------------------------------------------------------------------
def cmd_verify(args: argparse.Namespace) -> int:
    from resilsched.library.catalog import find
    from resilsched.library.verify import verify
    from resilsched.progress import ProgressBar

    k = positive(args.sample, "--sample")
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
    emit_indented(out, args.json, "\n".join(lines))
    return 1 if failed else 0


# --- parsers -----------------------------------------------------------------------------------
def add_parser(sub: Any) -> None:
    """Add ``library`` (list, verify, path) to the subcommands `sub`."""
    fmt = FORMATTER
    p = sub.add_parser(
        "library", help="shipped instance libraries with certified optima: list, verify, path",
        formatter_class=fmt,
        description="Instance libraries whose instances carry their optimum (or bounds) and\n"
                    "the certificate that proved it, JobShopLib style (docs/libraries.md).",
        epilog=examples("resilsched library list --json\n"
                         "resilsched library verify rigid-small --sample 10\n"
                         "resilsched gap --library rigid-small"))
    lib = p.add_subparsers(dest="library_command", metavar="ACTION", required=True)

    q = lib.add_parser("list", help="the shipped libraries: family, instances, proven optima")
    q.add_argument("--family", help="only this family's libraries (default: all)")
    json_flag(q)
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
        epilog=examples("resilsched library verify rigid-small --sample 10\n"
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
    json_flag(q)
    q.set_defaults(func=cmd_verify)

    q = lib.add_parser("path", help="the folder of a shipped library (to vendor it)")
    q.add_argument("name", metavar="NAME", help="a shipped library or 'all'")
    json_flag(q)
    q.set_defaults(func=cmd_path)
