"""``resilsched generate --family F --preset NAME --seed S [--count N] --out DIR [--solve]``:
the instances of a preset as JSON files plus ``manifest.json``, written by
`resilsched.library.build.write_library` (the one writer of instance trees and manifests).

Without ``--solve`` the files are the instances as they are (``NAME-S-0000.json``, ...) and the
manifest holds the family, preset, seed, count, the versions of resilsched/numpy/python and per
file its sha256; with ``--solve`` every instance is solved exactly first and the folder is a
library (certificates in the files' metadata and in the manifest, docs/architecture.md,
"Libraries"). The same seed always gives byte-identical instance files.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from resilsched.commands.args import (
    COUNT,
    FORMATTER,
    MAX_SEED,
    SEED,
    UsageError,
    emit,
    emit_indented,
    examples,
    json_flag,
    positive,
)
from resilsched.instances.fields import MAX_COUNT

#: seconds per exact solve of ``generate --solve`` when --time-limit is not given
GENERATE_TIME_LIMIT = 10.0


def add_parser(sub: Any) -> None:
    """Add ``generate`` to the subcommands `sub`."""
    p = sub.add_parser(
        "generate", formatter_class=FORMATTER,
        help="generate an instance library with a manifest of seeds and hashes",
        description="Write the instances of a preset as JSON files plus manifest.json "
        "(preset, seed, versions, sha256 of every file). The same seed always gives "
        "byte-identical files.",
        epilog=examples(
            "resilsched generate --family rigid --preset paper-default --seed 1 --out lib/\n"
            "resilsched generate --family rigid --preset smoke --seed 0 --count 3 --out smoke/"),
    )
    p.add_argument("--family", required=True, help="family name (see `resilsched list`; "
                   "required)")
    p.add_argument("--preset", required=True, help="generator name (see `resilsched list`; "
                   "required)")
    p.add_argument("--seed", type=SEED, default=0,
                   help=f"generator seed, in [0, {MAX_SEED}] (default 0)")
    p.add_argument("--count", type=COUNT, default=None,
                   help=f"number of instances, in [1, {MAX_COUNT}] (default: the preset's)")
    p.add_argument("--out", required=True,
                   help="output directory, created if missing; existing files of the same "
                   "names are overwritten (required)")
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
    json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Generate (and with ``--solve`` certify) the instances and write the folder."""
    from resilsched.deadline import check_time_limit
    from resilsched.library.build import certify_all, write_library
    from resilsched.registry import exact_model, generator, get_family

    fam = get_family(args.family, "--family")
    gen = generator(fam, args.preset)
    method = limit = None
    if args.solve:
        positive(args.jobs, "--jobs")
        method = exact_model(fam, args.method or fam.default_exact).name
        limit = check_time_limit(GENERATE_TIME_LIMIT if args.time_limit is None
                                 else args.time_limit, "--time-limit")
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out={args.out}: is a file, not a directory")
    instances = gen.generate(args.seed, args.count)
    certs = None
    if args.solve:
        certs = certify_all(fam.name, [inst.to_dict() for inst in instances], method, limit,
                            jobs=args.jobs, progress=not args.quiet, name=out.name)
    else:
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"--out={args.out}: cannot be created ({exc.strerror})") from None
    try:
        manifest = write_library(out, family=fam.name, preset=gen.name, seed=args.seed,
                                 instances=instances, certificates=certs,
                                 name=out.name if args.solve else None, method=method,
                                 time_limit=limit, description=gen.description)
    except OSError as exc:
        where = f"--out={args.out}:" if args.solve else f"--out: {exc.filename}"
        raise UsageError(f"{where} cannot be written ({exc.strerror})") from None
    if not args.solve:
        emit(manifest, args.json, f"wrote {len(instances)} {fam.name} instances ({gen.name}, "
                                  f"seed {args.seed}) and manifest.json to {out}")
        return 0
    proven = manifest["proven_optimal"]
    emit_indented(manifest, args.json,
                  f"wrote {len(instances)} {fam.name} instances ({gen.name}, seed {args.seed}) "
                  f"with certificates by {method} ({proven} proven optima, "
                  f"{len(instances) - proven} with bounds) and manifest.json to {out}")
    return 0
