"""Write instance trees and libraries (``generate``, ``generate --solve``,
``scripts/build_libraries.py``), certifying the instances of a library.

The exact solves run on the campaign engine (`resilsched.campaign.run_campaign`): one task per
instance, in parallel with ``jobs`` processes, stored in `store` (in memory unless a path is
given, which makes an interrupted build resumable). Every certificate is solved with
``deterministic=True`` and one worker (`CERT_OPTIONS`), so a rebuild gives the same statuses and
values on any machine; only ``proof_time`` (and ``versions`` after an upgrade) differ.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from resilsched.campaign import ResultStore, Task, canonical_json, run_campaign
from resilsched.library.catalog import (
    CERT_OPTIONS,
    LibrarySpec,
    sha256_text,
    write_manifest,
)
from resilsched.library.certificate import Certificate, certify
from resilsched.versions import CERTIFICATE_RECORD, MANIFEST_RECORD, versions


def certify_task(payload: tuple[str, dict[str, Any], str, float | None, dict[str, Any]]) -> dict:
    """Campaign task: ``(family, instance JSON, method, time_limit, options)`` -> the
    certificate's metadata fields (`Certificate.to_metadata`)."""
    from resilsched.registry import get_family

    family_name, data, method, time_limit, options = payload
    fam = get_family(family_name)
    return certify(fam, fam.from_dict(data), method, time_limit, options).to_metadata()


def library_json(x: Any, indent: int = 0, width: int = 96) -> str:
    """JSON with one line per value that fits in `width` columns (small, diff-friendly files).

    >>> print(library_json({"P": 4, "jobs": [{"p": 2, "t": 3}, {"p": 1, "t": 5}]}, width=40))
    {
     "P": 4,
     "jobs": [{"p": 2, "t": 3}, {"p": 1, "t": 5}]
    }
    """
    compact = json.dumps(x, allow_nan=False)
    if not isinstance(x, (dict, list)) or not x or len(compact) + indent <= width:
        return compact
    pad = " " * (indent + 1)
    if isinstance(x, dict):
        items = [f"{pad}{json.dumps(str(k))}: {library_json(v, indent + 1, width)}"
                 for k, v in x.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    items = [pad + library_json(v, indent + 1, width) for v in x]
    return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"


def certify_all(family: str, instances: Sequence[dict[str, Any]], method: str,
                time_limit: float | None, *, options: Mapping[str, Any] | None = None,
                store: ResultStore | None = None, jobs: int | None = 1, progress: bool = True,
                name: str = "instances") -> list[Certificate]:
    """Certificates of the instances (JSON objects of `family`), in order; `name` (the
    library's) names the campaign ``certify:<name>`` in `store`."""
    options = dict(CERT_OPTIONS if options is None else options)
    tasks = [
        Task({"index": i, "sha256": sha256_text(canonical_json(d)), "method": method,
              "time_limit": time_limit, "options": options},
             (family, d, method, time_limit, options))
        for i, d in enumerate(instances)
    ]
    own = store is None
    store = ResultStore(":memory:") if store is None else store
    try:
        results = run_campaign(f"certify:{name}", tasks, certify_task, store,
                               config={"family": family}, jobs=jobs, progress=progress,
                               label=f"certify {name}")
    finally:
        if own:
            store.close()
    return [Certificate.from_metadata(r) for r in results]


def instance_text(instance: Any, cert: Certificate | None, generated_by: dict[str, Any],
                  reference: str) -> str:
    """The file of one library instance: its JSON with the certificate under ``metadata``."""
    d = instance.to_dict()
    meta = dict(d.get("metadata") or {})
    if cert is not None:
        meta.update(cert.to_metadata())
    meta["generated_by"] = generated_by
    meta["reference"] = reference
    d["metadata"] = meta
    return library_json(d) + "\n"


def plain_text(instance: Any) -> str:
    """The file of one instance of a plain ``resilsched generate`` tree: its JSON, indented."""
    return json.dumps(instance.to_dict(), indent=1, allow_nan=False) + "\n"


def write_library(out: Path, *, family: str, preset: str, seed: int,
                  instances: Sequence[Any],
                  certificates: Sequence[Certificate | None] | None = None,
                  name: str | None = None, method: str | None = None,
                  time_limit: float | None = None, description: str = "") -> dict[str, Any]:
    """Write the instance files ``<preset>-<seed>-<i>.json`` and ``manifest.json`` into `out`
    (created if missing; files of an older build with other names are left alone); returns the
    manifest. The one writer of instance trees: ``resilsched generate`` (with and without
    ``--solve``) and ``scripts/build_libraries.py``.

    The manifest holds the family, preset, seed, count, the versions of resilsched/numpy/python
    (`resilsched.versions.MANIFEST_RECORD`) and per file its name and sha256. Without a library
    `name` (a plain ``generate``) the files are the instances as they are (`plain_text`);
    with one, each file carries its certificate (`instance_text`) and the manifest adds the
    library's name and description, the exact model and options, the solver versions, the
    number of proven optima, and per file the certificate's status, optimum or bounds and proof
    time.
    """
    from resilsched import __version__

    if certificates is None:
        certificates = [None] * len(instances)
    out.mkdir(parents=True, exist_ok=True)
    files = []
    for i, (inst, cert) in enumerate(zip(instances, certificates, strict=True)):
        fname = f"{preset}-{seed}-{i:04d}.json"
        if name is None:
            text = plain_text(inst)
        else:
            text = instance_text(inst, cert, {"family": family, "preset": preset, "seed": seed,
                                              "index": i},
                                 f"resilsched library {name} (resilsched {__version__})")
        (out / fname).write_text(text)
        record = {"file": fname, "name": getattr(inst, "name", ""), "sha256": sha256_text(text)}
        if cert is not None:
            record.update(cert.summary())
        files.append(record)
    solved = [c for c in certificates if c is not None]
    manifest: dict[str, Any] = {} if name is None else {"library": name,
                                                         "description": description}
    manifest.update({"family": family, "preset": preset, "seed": seed, "count": len(files),
                     **versions(MANIFEST_RECORD)})
    if solved:
        manifest["exact"] = {"method": method, "time_limit": time_limit,
                             "options": solved[0].options,
                             "versions": versions(CERTIFICATE_RECORD, installed_only=True)}
        manifest["proven_optimal"] = sum(c.is_optimal for c in solved)
        manifest["with_bounds"] = len(solved) - manifest["proven_optimal"]
    manifest["files"] = files
    write_manifest(out, manifest)
    return manifest


def build_library(spec: LibrarySpec, out: Path, *, jobs: int | None = 1,
                  store: ResultStore | None = None, progress: bool = True,
                  say: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Generate, certify and write the library of `spec` into `out`; returns its manifest."""
    from resilsched.registry import exact_model, generator, get_family

    fam = get_family(spec.family)
    gen = generator(fam, spec.preset)
    method = exact_model(fam, spec.method or fam.default_exact).name
    instances = gen.generate(spec.seed, spec.count)
    if say is not None:
        say(f"{spec.name}: {len(instances)} {fam.name} instances ({gen.name}, seed {spec.seed}),"
            f" certified by {method} within {spec.time_limit:g} s each")
    certs = certify_all(fam.name, [inst.to_dict() for inst in instances], method,
                        spec.time_limit, store=store, jobs=jobs, progress=progress,
                        name=spec.name)
    return write_library(out, name=spec.name, family=fam.name, preset=gen.name, seed=spec.seed,
                         instances=instances, certificates=certs, method=method,
                         time_limit=spec.time_limit, description=gen.description)
