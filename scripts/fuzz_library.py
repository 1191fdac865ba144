"""Fuzzer cases for tampered and malformed libraries (issue 21, section 1): seeded mutations of a
small copy of a shipped library run through ``library verify`` (and ``gap --library``).

A base library is two or three of the fastest instances of a shipped library (the manifest
trimmed to them, every file flat in the case's folder). One mutation is applied: a manifest field
(``files``, ``family``, ``library``, ``exact.method|time_limit|options``), a manifest record
(not an object, its ``file``, ``sha256``, ``status``, optimum or bounds), an instance file
(deleted, not UTF-8, truncated, nested too deeply, not an object), a metadata field (the
optimum, a bound, an exact value ``"1/0"`` or ``"1e999"``, the certificate's status, method,
options, time limit, proof time, solver or versions), a certificate forged with a model of
another problem, or the manifest itself (deleted, not UTF-8, not JSON, nested too deeply). A
metadata mutation is made either plainly (the manifest's sha256 then no longer matches) or the
way a forger would, with the sha256 and the summary of the manifest rewritten to match.

Each case is labelled with what a correct command does with it: ``refuse`` (exit 2, one line:
the manifest as a whole cannot be read), ``fail`` (exit 1, a FAILED verdict: the mutation makes
an instance's certificate not hold, or not checkable), ``any`` (a mutation that changes nothing
verify checks, e.g. the proof time or the versions). ``gap --library`` trusts the certified
values it cannot check without solving (a lie that names the manifest's model and keeps its
sha256 consistent is scored: ``any``) and refuses the rest.

    from fuzz_library import make_library_case
    case = make_library_case(random.Random(0))
"""

from __future__ import annotations

import copy
import functools
import json
import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fuzz_cases import Case  # noqa: E402  (the script's own folder)

LIBRARIES = ("rigid-small", "moldable-small", "malleable-small", "coschedule-small",
             "worksharing-small", "desktop-small")
#: a model of another problem than the library's, per family (the issue's forgeries)
LIARS = {"rigid": "cpsat-failure-free", "moldable": "cpsat-failure-free",
         "malleable": "static-optimal"}
#: JSON texts put in place of a field (1e999 is read as inf, 10^5000 is beyond the digit limit)
VALUES = ["1e999", "-1e999", "-1", "0", "2.5", "7", "1e-320", "1e30", '"5"', '"x"', "true",
          "null", "{}", "[]", "[1]", "1" + "0" * 400, "1" + "0" * 5000, "NaN"]
EXACTS = ['"1/0"', '"1e999"', '"x"', '""', "7", '"1/3"', '"' + "9" * 40 + '"', '"-5/0"']
MARK = "\u0000MARK\u0000"
#: models too slow for a fuzz case on these instances (Pyomo: seconds to build, 10 s to stop)
SLOW = {"kinp-ilp", "kinp-ilp-strong"}


@functools.cache
def base(name: str) -> dict[str, Any]:
    """The trimmed copy of shipped library `name`: the two fastest optimal instances and the
    fastest one with bounds only when it is quick (its manifest, files and texts)."""
    from resilsched.library.catalog import DATA

    folder = DATA / name
    manifest = json.loads((folder / "manifest.json").read_text())
    rows = sorted((r["proof_time"], i) for i, r in enumerate(manifest["files"]))
    optimal = [i for _, i in rows if manifest["files"][i]["status"] == "optimal"][:2]
    bounds = [i for t, i in rows if manifest["files"][i]["status"] != "optimal" and t < 0.1]
    keep = sorted(optimal + bounds[:1])
    manifest["files"] = [manifest["files"][i] for i in keep]
    manifest["count"] = len(keep)
    texts = {r["file"]: (folder / r["file"]).read_text() for r in manifest["files"]}
    return {"name": name, "family": manifest["family"], "manifest": manifest, "texts": texts}


@functools.cache
def forged(name: str, file: str) -> dict[str, Any]:
    """The metadata fields of what the library's liar model proves on `file` (solved once)."""
    from resilsched.library.certificate import certify
    from resilsched.registry import get_family

    b = base(name)
    fam = get_family(b["family"])
    exact = b["manifest"]["exact"]
    inst = fam.from_dict(json.loads(b["texts"][file]))
    return certify(fam, inst, LIARS[b["family"]], exact["time_limit"],
                   exact["options"]).to_metadata()


def _raw(obj: Any, path: tuple, text: str) -> str:
    """JSON of `obj` with the value at `path` (created if missing) replaced by raw JSON `text`."""
    data = copy.deepcopy(obj)
    target = data
    for p in path[:-1]:
        target = target[p]
    target[path[-1]] = MARK
    return json.dumps(data, indent=1).replace(json.dumps(MARK), text)


def _number(x: Any) -> bool:
    """`x` is a number a certificate may hold (finite, magnitude at most 10^18)."""
    return isinstance(x, (int, float)) and not isinstance(x, bool) and abs(x) <= 1e18


def _same(text: str, old: Any) -> bool:
    """The raw JSON `text` is the value `old` (a mutation that changes nothing)."""
    if text in ("NaN",) or len(text) > 4000:
        return False
    return json.loads(text) == old and type(json.loads(text)) is type(old)


class _Library:
    """A mutable copy of a base library; `files()` is the case's folder."""

    def __init__(self, b: dict[str, Any]):
        self.name = b["name"]
        self.family = b["family"]
        self.manifest = copy.deepcopy(b["manifest"])
        self.texts: dict[str, str | bytes] = dict(b["texts"])
        self.manifest_text: str | bytes | None = None

    def files(self) -> dict[str, bytes]:
        out = {k: v if isinstance(v, bytes) else v.encode() for k, v in self.texts.items()}
        text = json.dumps(self.manifest, indent=1) if self.manifest_text is None \
            else self.manifest_text
        if text != "":
            out["manifest.json"] = text if isinstance(text, bytes) else text.encode()
        return out

    def rewrite(self, file: str, text: str, fix: bool) -> None:
        """Replace the text of `file`; `fix`: rewrite its sha256 and summary to match."""
        from resilsched.library.catalog import sha256_text
        from resilsched.library.certificate import Certificate

        self.texts[file] = text
        if not fix:
            return
        rec = next(r for r in self.manifest["files"] if r["file"] == file)
        rec["sha256"] = sha256_text(text)
        try:
            summary = Certificate.from_metadata(json.loads(text)["metadata"]).summary()
        except (ValueError, KeyError, TypeError):
            return
        for key in ("status", "optimum", "optimum_exact", "lower_bound", "lower_bound_exact",
                    "upper_bound", "upper_bound_exact"):
            rec.pop(key, None)
        rec.update(summary)


# --- mutations: each returns (label, verify expectation, gap expectation) ----------------------
def _manifest_bytes(rng: random.Random, lib: _Library) -> tuple[str, str, str]:
    good = json.dumps(lib.manifest, indent=1).encode()
    kind = rng.choice(["not-utf8", "deep", "truncated", "empty", "scalar", "deleted", "bom"])
    lib.manifest_text = {
        "not-utf8": good.replace(b'"', b'"\xff', 1),
        "deep": b"[" * 100_000 + b"]" * 100_000,
        "truncated": good[: rng.randrange(1, len(good))],
        "empty": b" ",
        "scalar": rng.choice([b"5", b'"x"', b"null", b"[]", b"true"]),
        "deleted": "",
        "bom": b"\xef\xbb\xbf" + good,
    }[kind]
    expect = "any" if kind == "bom" else "refuse"
    return f"manifest {kind}", expect, expect


def _manifest_field(rng: random.Random, lib: _Library) -> tuple[str, str, str]:
    from resilsched.registry import available_families, get_family

    method = lib.manifest["exact"]["method"]
    key = rng.choice(["files", "family", "library", "exact", "count", "extra", "family-swap"])
    if key == "family-swap":  # another registered family: its model of that name, if any
        other = rng.choice([f for f in available_families() if f != lib.family])
        lib.manifest["family"] = other
        if method in get_family(other).exact:
            return f"manifest family={other}", "fail", "refuse"  # the files do not load
        return f"manifest family={other}", "refuse", "refuse"
    text = rng.choice(VALUES + ['"rigid-x"'])
    lib.manifest_text = _raw(lib.manifest, (key,), text)
    label = f"manifest {key}={text[:20]}"
    value = None if text == "NaN" or len(text) > 4000 else json.loads(text)
    if text == "NaN" or len(text) > 4000:
        return label, "refuse", "refuse"
    if key in ("count", "extra"):
        return label, "any", "any"
    if key == "library":
        ok = value is None or isinstance(value, str)
        return label, "any" if ok else "refuse", "any" if ok else "refuse"
    if key == "files":
        if value == []:
            return label, "any", "any"  # an empty library
        return label, "fail" if isinstance(value, list) else "refuse", "refuse"
    if key == "family":
        ok = isinstance(value, str) and value == lib.family
        return label, "any" if ok else "refuse", "any" if ok else "refuse"
    return label, "refuse", "refuse"  # exact: not the object of an exact model


def _exact_field(rng: random.Random, lib: _Library) -> tuple[str, str, str]:
    from resilsched.registry import get_family

    fam = get_family(lib.family)
    exact = lib.manifest["exact"]
    key = rng.choice(["method", "time_limit", "options", "option", "delete"])
    if key == "delete":
        gone = rng.choice(["method", "time_limit", "options"])
        del exact[gone]
        return f"exact delete {gone}", "refuse", "refuse"
    if key == "method" and rng.random() < 0.5:
        others = [m for m in fam.exact if m != exact["method"] and m not in SLOW]
        exact["method"] = rng.choice(others or ["nope"])
        return f"exact.method={exact['method']}", "fail" if others else "refuse", "refuse"
    if key == "time_limit" and rng.random() < 0.5:
        exact["time_limit"] = rng.choice([5.0, 20, 0.5])
        return f"exact.time_limit={exact['time_limit']}", "fail", "refuse"
    if key == "option":
        known = {p.name: p for p in fam.exact[exact["method"]].params}
        name = rng.choice(sorted(known) + ["nope"])
        value = rng.choice([0, 1, 2, -1, True, "x", 10**6, None])
        exact["options"][name] = value
        ok = name in known
        if ok:
            try:
                known[name].check(value, "m")
            except ValueError:
                ok = False
        if not ok:
            return f"exact.options.{name}={value}", "refuse", "refuse"
        was = base(lib.name)["manifest"]["exact"]["options"]
        same = name in was and was[name] == value and type(was[name]) is type(value)
        return f"exact.options.{name}={value}", "any" if same else "fail", \
            "any" if same else "refuse"
    text = rng.choice(VALUES)
    old = exact.get(key)
    lib.manifest_text = _raw(lib.manifest, ("exact", key), text)
    label = f"exact.{key}={text[:20]}"
    if _same(text, old):
        return label, "any", "any"
    if key == "time_limit" and text in ("2.5", "7", "1e30", "0", "-1", "1e-320"):
        return label, ("fail" if text in ("2.5", "7") else "refuse"), "refuse"
    if key == "options" and text == "{}":
        return label, "fail", "refuse"  # valid options, not those of the certificates
    return label, "refuse", "refuse"


def _record(rng: random.Random, lib: _Library) -> tuple[str, str, str]:
    files = lib.manifest["files"]
    i = rng.randrange(len(files))
    rec = files[i]
    key = rng.choice(["whole", "file", "sha256", "status", "optimum", "exact", "name",
                      "proof_time", "drop", "duplicate", "swap"])
    if key == "drop":
        del files[i]
        return "record dropped", "any", "any"
    if key == "duplicate":
        files.append(copy.deepcopy(rec))
        return "record duplicated", "any", "any"
    if key == "swap" and len(files) < 2:
        key = "name"
    if key == "swap":
        other = files[(i + 1) % len(files)]
        rec["file"] = other["file"]
        return "record file=another's", "fail", "refuse"
    if key == "whole":
        text = rng.choice(VALUES)
        lib.manifest_text = _raw(lib.manifest, ("files", i), text)
        bad = "refuse" if text == "NaN" or len(text) > 4000 else "fail"
        return f"record={text[:20]}", bad, "refuse"
    if key == "exact":
        field = "optimum" if rec["status"] == "optimal" else "lower_bound"
        text = rng.choice(EXACTS)
        lib.manifest_text = _raw(lib.manifest, ("files", i, f"{field}_exact"), text)
        return f"record.{field}_exact={text[:20]}", "fail", "refuse"
    if key == "file":
        text = rng.choice(['"missing.json"', '"../x.json"', '""', '"."', "5", "null", "[]",
                           '"manifest.json"'])
        lib.manifest_text = _raw(lib.manifest, ("files", i, "file"), text)
        return f"record.file={text}", "fail", "refuse"
    field = {"status": "status", "optimum": "optimum" if rec["status"] == "optimal"
             else "upper_bound"}.get(key, key)
    text = rng.choice(VALUES + ['"0" ', '"feasible"', '"optimal"', '"' + "a" * 64 + '"'])
    old = rec.get(field)
    lib.manifest_text = _raw(lib.manifest, ("files", i, field), text)
    label = f"record.{field}={text[:20]}"
    if text == "NaN" or len(text) > 4000:
        return label, "refuse", "refuse"
    if key in ("name", "proof_time") or _same(text, old):
        return label, "any", "any"
    return label, "fail", "refuse"


def _instance_file(rng: random.Random, lib: _Library) -> tuple[str, str, str]:
    file = rng.choice(sorted(lib.texts))
    good = lib.texts[file]
    assert isinstance(good, str)
    kind = rng.choice(["deleted", "not-utf8", "truncated", "deep", "scalar", "empty",
                       "deep-metadata", "extra-file"])
    if kind == "extra-file":
        lib.texts["notes.json"] = '{"x": 1}'
        return "file extra", "any", "any"
    if kind == "deleted":
        del lib.texts[file]
    else:
        lib.texts[file] = {
            "not-utf8": good.encode().replace(b'"', b'"\xff', 1),
            "truncated": good.encode()[: rng.randrange(1, len(good))],
            "deep": b"[" * 100_000 + b"]" * 100_000,
            "scalar": rng.choice([b"5", b"[]", b"null"]),
            "empty": b"",
            "deep-metadata": good.encode()[:-2] + b', "extra": ' + b"[" * 5000 + b"]" * 5000
            + b"}\n",
        }[kind]
    return f"file {kind}", "fail", "refuse"


def _metadata(rng: random.Random, lib: _Library) -> tuple[str, str, str]:
    from resilsched.registry import get_family

    fam = get_family(lib.family)
    file = rng.choice(sorted(lib.texts))
    text = lib.texts[file]
    assert isinstance(text, str)
    data = json.loads(text)
    meta = data["metadata"]
    cert = meta["certificate"]
    fix = rng.random() < 0.7
    kind = rng.choice(["value", "lie", "exact", "status", "method", "options", "time_limit",
                       "proof_time", "solver", "versions", "delete", "forge", "generated_by"])
    if kind == "forge" and lib.family not in LIARS:
        kind = "method"
    optimal = cert["status"] == "optimal"
    label = f"metadata {kind}"
    verify, gap = "fail", "refuse"
    if kind == "forge":
        meta.update(forged(lib.name, file))
        new = json.dumps(data, indent=1)
        # the liar model may prove the same value; its name still differs from the manifest's
    elif kind == "lie":  # a consistent value lie under the manifest's model name
        value = meta["upper_bound"]
        shifted = value + 1 if isinstance(value, int) else value * 0.75
        for key in ("optimum", "lower_bound", "upper_bound"):
            if key in meta or key != "optimum":
                meta[key] = shifted
            meta.pop(f"{key}_exact", None)
        new = json.dumps(data, indent=1)
        gap = "any"  # coherent and named as the manifest says: gap trusts it
    elif kind == "delete":
        gone = rng.choice(["metadata", "certificate", "optimum", "lower_bound", "status"])
        if gone == "metadata":
            del data["metadata"]
        elif gone in ("certificate", "status"):
            del (meta if gone == "certificate" else cert)[gone]
        else:
            meta.pop(gone, None)
            if gone == "optimum" and not optimal:
                verify, gap = "any", "any"  # bounds only: there is no optimum to delete
            elif gone == "lower_bound" and not optimal and fix:
                gap = "any"  # a weaker certificate, still coherent: verify does not reproduce it
        label = f"metadata delete {gone}"
        new = json.dumps(data, indent=1)
    elif kind == "generated_by":
        new = _raw(data, ("metadata", "generated_by"), rng.choice(VALUES[:14]))
        verify = gap = "any"
    else:
        where = {"value": ("metadata", rng.choice(["optimum", "lower_bound", "upper_bound"])),
                 "exact": ("metadata", rng.choice(["optimum", "lower_bound", "upper_bound"])
                           + "_exact")}.get(kind, ("metadata", "certificate", kind))
        pool = {"exact": EXACTS,
                "status": ['"feasible"', '"infeasible"', '"no_solution"', '"x"', "5", "null"],
                "method": [json.dumps(m) for m in fam.exact] + ['"nope"', "5", "null"],
                "options": ['{"deterministic": true, "workers": 1}', '{"workers": 1}', "[1]",
                            '{"deterministic": true, "workers": 2}', "null", "{}"],
                "versions": ['{"ortools": "0"}', "{}", "[1]", "5", '"x"'],
                "solver": ['"cp-sat"', '"x"', "5", "[]"]}.get(kind, VALUES)
        raw = rng.choice(pool)
        label = f"metadata {'.'.join(where[1:])}={raw[:20]}"
        new = _raw(data, where, raw)
        target = meta if len(where) == 2 else cert
        old = target.get(where[-1])  # null and absent read alike
        ok_type = raw != "NaN" and len(raw) <= 4000
        value = json.loads(raw) if ok_type else None
        if kind in ("proof_time", "solver", "versions"):
            good = ok_type and (value is None or {
                "proof_time": isinstance(value, (int, float)) and not isinstance(value, bool)
                and 0 <= value <= 1e308,
                "solver": isinstance(value, str), "versions": isinstance(value, dict)}[kind])
            if good:
                verify = gap = "any"  # informative fields: nothing re-derives them
        elif kind == "value" and not optimal and ok_type and where[-1] != "optimum" \
                and not _same(raw, old):
            bounds = [value if k == where[-1] else meta[k] for k in ("lower_bound",
                                                                      "upper_bound")]
            present = [v for v in bounds if v is not None]
            if fix and all(_number(v) for v in present) and (len(present) < 2
                                                             or bounds[0] <= bounds[1]):
                gap = "any"  # other coherent bounds: only a re-solve tells
        elif kind == "options" and ok_type and value == cert["options"]:
            verify = gap = "any"
        elif ok_type and _same(raw, old):
            verify = gap = "any"
        elif kind == "status" and not optimal and fix and value in ("infeasible", "no_solution"):
            gap = "any"  # coherent; verify does not reproduce it (an optimal one keeps its optimum)
    lib.rewrite(file, new, fix)
    if not fix and new != text:
        verify, gap = "fail", "refuse"  # the file no longer has the manifest's sha256
    return f"{label}{' (sha fixed)' if fix else ''}", verify, gap


MUTATIONS = [(_manifest_bytes, 2), (_manifest_field, 3), (_exact_field, 4), (_record, 6),
             (_instance_file, 4), (_metadata, 11)]


def make_library_case(rng: random.Random) -> Case:
    """One seeded case: a mutated copy of a small shipped library and a ``library verify``
    (four in five) or ``gap --library`` command on it."""
    name = rng.choice(LIBRARIES)
    lib = _Library(base(name))
    mutate = rng.choices([m for m, _ in MUTATIONS], [w for _, w in MUTATIONS])[0]
    label, verify, gap = mutate(rng, lib)
    if rng.random() < 0.8:
        argv = ["library", "verify", "{d}", "-q"]
        extra = rng.choice([[], ["--json"], ["-v"], ["--sample", "5", "--seed", "3"]])
        expect = verify
    else:
        argv = ["gap", "--library", "{d}", "--jobs", "1", "-q"]
        extra = rng.choice([[], ["--json"]])
        expect = gap
    return Case(f"library {name} {label}", argv + extra, lib.files(), expect)
