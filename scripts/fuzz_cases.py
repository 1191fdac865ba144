"""The cases of the command-line fuzzer (scripts/fuzz_cli.py): seeded mutations of the example
instances of every family, of a small SWF trace, of a thresholds file and of every command's
options, each labelled with what a correct command line does with it (``refuse`` when the
mutation is known to be invalid, ``any`` when a clean result or a one-line refusal both pass).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

SWF = """; Version: 2.2
; UnixStartTime: 1559347200
; TimeZoneString: UTC
; MaxProcs: 16
; MaxNodes: 4
1 0 0 100 8 -1 -1 8 200 -1 1 1 1 -1 1 -1 -1 -1
2 60 0 50 4 -1 -1 4 100 -1 1 1 1 -1 1 -1 -1 -1
3 120 0 30 2 -1 -1 2 60 -1 0 1 1 -1 1 -1 -1 -1
4 86500 0 70 16 -1 -1 16 100 -1 1 1 1 -1 1 -1 -1 -1
5 86600 0 20 1 -1 -1 1 60 -1 5 1 1 -1 1 -1 -1 -1
"""


#: a file's bytes, or a function that makes them when the case runs (a large file is then
#: serialized only for the cases that are run, not for those a slice of the suite leaves out)
Data = bytes | Callable[[], bytes]


def data_of(data: Data) -> bytes:
    """The bytes of a file of a `Case`."""
    return data() if callable(data) else data


@dataclass
class Case:
    """One command line; `files` are written to a fresh directory, ``{d}`` in argv names it.

    `expect` is ``refuse`` for a mutation known to be invalid, ``any`` otherwise (a clean
    result or a one-line refusal both pass).
    """

    label: str
    argv: list[str]
    files: dict[str, Data] = field(default_factory=dict)
    expect: str = "any"


# --- values -----------------------------------------------------------------------------------
#: JSON texts put in place of a field
VALUES = ["NaN", "Infinity", "-Infinity", "1e308", "1e29", "-1", "0", "-0.0", "2.5", '"5"',
          '["5"]', '"x"', "true", "null", "{}", "[]", "1" + "0" * 5000, "1e-320", "7", "1",
          "0.5", '"1/3"', "100000000"]

#: per family: JSON path pattern ("*" = every list index) -> kind of field
SCHEMA: dict[str, dict[str, str]] = {
    "rigid": {"P": "int", "jobs.*.p": "int", "jobs.*.t": "num", "failures.*": "count",
              "failures": "list", "jobs": "list", "metadata": "obj", "name": "str"},
    "moldable": {"P": "int", "jobs.*.w": "num", "jobs.*.pbar": "num", "jobs.*.t.*": "num",
                 "jobs.*.t": "list", "failures.*": "count", "failures": "list",
                 "lambda": "num0", "jobs": "list", "metadata": "obj"},
    "coschedule": {"p": "int", "k": "int", "tasks.*.t.*": "num", "tasks.*.w": "num",
                   "tasks.*.f": "prob", "tasks": "list", "tasks.*.t": "list",
                   "metadata": "obj", "tasks.*.m": "num", "tasks.*.pmin": "int"},
    "worksharing": {"W": "num", "workers": "int", "epsilon": "num0", "risk.X": "num",
                    "max_chunks": "int", "risk": "obj", "metadata": "obj", "risk.kind": "str"},
    "malleable": {"p": "int", "tasks.*.t.*": "num", "tasks.*.m": "num", "tasks.*.t": "list",
                  "tasks": "list", "downtime": "num0", "metadata": "obj"},
    "desktop": {"machines": "list", "jobs": "list", "jobs.*.p": "num", "machines.*.b": "num",
                "machines.*.a": "list", "machines.*.u": "list", "metadata": "obj"},
}


def _expect(kind: str | None, text: str) -> str:
    """``refuse`` when `text` is invalid for a field of `kind` whatever the context."""
    if text in ("NaN", "Infinity", "-Infinity") or len(text) > 4000:
        return "refuse"  # not JSON (RFC 8259) / beyond Python's integer conversion limit
    v = json.loads(text)
    number = isinstance(v, (int, float)) and not isinstance(v, bool)
    integral = number and float(v).is_integer()
    bad = {
        "int": not (integral and 1 <= v < 1e15),
        "count": not (integral and 0 <= v <= 10**6),
        "num": not ((number and 0 < v < 1e300) or (isinstance(v, str) and v in ("5", "1/3"))),
        "num0": not ((number and 0 <= v < 1e300) or (isinstance(v, str) and v in ("5", "1/3"))),
        "prob": not ((number and 0 <= v <= 1) or v == "1/3"),
        "list": not isinstance(v, list) and v is not None,
        "obj": not isinstance(v, dict) and v is not None,
    }.get(kind or "", False)
    return "refuse" if bad else "any"


def _paths(obj, prefix=()):
    """Every (path, value) of a JSON tree (dict keys and list indices)."""
    yield prefix, obj
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _paths(v, (*prefix, i))


def _kind(family: str, path: tuple) -> str | None:
    pattern = ".".join("*" if isinstance(p, int) else str(p) for p in path)
    return SCHEMA.get(family, {}).get(pattern)  # a family without a schema: generic cases


def _set(obj, path: tuple, text: str) -> str:
    """The JSON text of `obj` with the value at `path` replaced by the raw JSON `text`."""
    marker = "\u0000MARK\u0000"
    data = json.loads(json.dumps(obj))
    if not path:
        return text
    target = data
    for p in path[:-1]:
        target = target[p]
    target[path[-1]] = marker
    return json.dumps(data).replace(json.dumps(marker), text)


# --- case generation --------------------------------------------------------------------------
def _examples() -> dict[str, dict]:
    docs = [json.loads(p.read_text()) for p in sorted(EXAMPLES.glob("*.json"))]
    return {d["family"]: d for d in docs if "family" in d}  # not thresholds.json


def _family_names(examples: dict[str, dict]) -> dict[str, dict[str, list[str]]]:
    from resilsched.registry import get_family

    out = {}
    for name in examples:
        fam = get_family(name)
        out[name] = {"heuristics": list(fam.heuristics), "exact": list(fam.exact),
                     "presets": list(fam.generators),
                     "failures": fam.scenario is not None}
    return out


def _base(rng: random.Random, family: str, names: dict) -> tuple[str, list[str]]:
    """A valid command on FILE (``{d}/inst.json``) with its options."""
    if rng.random() < 0.5:
        argv = ["solve", "{d}/inst.json", "--time-limit", "2",
                "--method", rng.choice(names[family]["exact"])]
    else:
        argv = ["simulate", "{d}/inst.json", "--heuristic",
                rng.choice(names[family]["heuristics"])]
    return argv[0], argv + ["-q"]


def _field_case(rng, family, example, names) -> Case:
    paths = [(p, v) for p, v in _paths(example) if p and p[0] not in ("family",)]
    path, _ = rng.choice(paths)
    kind = _kind(family, path)
    roll = rng.random()
    if roll < 0.12 and isinstance(path[-1], str):  # delete the field
        data = json.loads(json.dumps(example))
        target = data
        for p in path[:-1]:
            target = target[p]
        del target[path[-1]]
        text, label, expect = json.dumps(data), f"delete {'.'.join(map(str, path))}", "any"
    elif roll < 0.2:  # a new top-level field
        key = rng.choice(["metadata", "failures", "lambda", "name", "cap", "extra"])
        value = rng.choice(VALUES)
        data = json.loads(json.dumps(example))
        data[key] = None
        text = _set(data, (key,), value)
        label = f"{key}={value[:20]}"
        expect = _expect(_kind(family, (key,)), value)
    else:
        value = rng.choice(VALUES)
        text = _set(example, path, value)
        label = f"{'.'.join(map(str, path))}={value[:20]}"
        expect = _expect(kind, value)
    _, argv = _base(rng, family, names)
    return Case(f"field {family} {label}", argv, {"inst.json": text.encode()}, expect)


def _file_case(rng, family, example, names) -> Case:
    good = json.dumps(example).encode()
    kinds = {
        "not-utf8": (good.replace(b'"', b'"\xff', 1) if rng.random() < 0.5
                     else b"\xff\xfe" + good, "refuse"),
        "deep-nesting": (b"[" * 100_000 + b"]" * 100_000, "refuse"),
        "deep-metadata": (good[:-1] + b', "metadata": ' + b"[" * 5000 + b"]" * 5000 + b"}",
                          "any"),
        "empty": (b"", "refuse"),
        "truncated": (good[: rng.randrange(1, len(good))], "refuse"),
        "scalar": (rng.choice([b"5", b'"x"', b"null", b"[]", b"true"]), "refuse"),
        "nan-literal": (good.replace(b"4", b"NaN", 1), "any"),
        "binary": (bytes(rng.randrange(256) for _ in range(200)), "refuse"),
        "bom": (b"\xef\xbb\xbf" + good, "any"),
        "big-list": (None, "any"),
    }
    kind = rng.choice(sorted(kinds))
    data, expect = kinds[kind]
    if kind == "big-list":
        big = json.loads(json.dumps(example))
        key = next(k for k in ("jobs", "tasks") if k in big) if family != "worksharing" else None
        if key is None:
            big["workers"] = rng.choice([10**6, 10**9, 10**18])
        else:
            big[key] = big[key] * rng.choice([1000, 100_000])
            big.pop("failures", None)
        data = lambda: json.dumps(big).encode()  # noqa: E731 - made when the case runs
    _, argv = _base(rng, family, names)
    return Case(f"file {family} {kind}", argv, {"inst.json": data}, expect)


def _path_case(rng, family, example, names) -> Case:
    good = json.dumps(example).encode()
    _, argv = _base(rng, family, names)
    kind = rng.choice(["directory", "missing", "suffix", "swf-as-json"])
    files = {"inst.json": good}
    if kind == "directory":
        argv[1] = "{d}"
    elif kind == "missing":
        argv[1] = "{d}/missing.json"
    elif kind == "suffix":
        argv[1] = "{d}/inst.txt"
        files = {"inst.txt": good}
    else:
        files = {"inst.json": SWF.encode()}
    return Case(f"path {family} {kind}", argv, files, "refuse")


#: option -> (values known invalid, values that may be fine)
OPTIONS: dict[str, tuple[list[str], list[str]]] = {
    "--seed": (["-1", "-5", str(2**63), str(2**64), "x", "1e3", "nan"], ["0", "7", str(2**62)]),
    "--qbar": (["nan", "inf", "-inf", "-0.1", "1", "1.0", "1.5", "x", "1e308"],
               ["0", "0.1", "0.3", "0.9", "0.999999", "1e-320"]),
    "--index": (["-1", "5", str(10**30), "x"], ["0"]),
    "--time-limit": (["nan", "inf", "-inf", "0", "-1", "1e-6", "1e308", "x"], ["1", "0.5"]),
    "--failures": (["x", "1,a", "-1,0,0,0", "1e29,0,0,0", "0,0", "0,0,0,0,0,0,0,0,0",
                    "5.5,0,0,0", "100000000000,0,0,0", "99999999999999999999,1,1,1", ""],
                   ["0,0,0,0", "1,0,0,0", "3,3,3,3", "0,2,1,0", "1000,0,0,0"]),
    "--P": (["0", "-1", "x", str(10**30)], ["4", "100"]),
    "--cores-per-node": (["0", "-1", "x", str(10**30)], ["1", "4"]),
    "--param": (["x", "=1", "nope=1", "seed=-1"], []),
    "--priority": (["XYZ", ""], ["LPT", "la"]),
}


def _option_case(rng, family, example, names) -> Case:
    command, argv = _base(rng, family, names)
    option = rng.choice(sorted(OPTIONS))
    bad, maybe = OPTIONS[option]
    if rng.random() < 0.75 or not maybe:
        value, expect = rng.choice(bad), "refuse"
    else:
        value, expect = rng.choice(maybe), "any"
    if option == "--time-limit":
        argv = [a for i, a in enumerate(argv)
                if a != "--time-limit" and (i == 0 or argv[i - 1] != "--time-limit")]
        if command != "solve":
            expect = "any" if expect == "any" else "refuse"
    if option in ("--failures", "--qbar") and not names[family]["failures"]:
        expect = "refuse"
    if option == "--qbar" and family == "desktop" and value in ("1", "1.0"):
        expect = "any"  # the disturbance amplitude alpha may be 1 (spec 004 4.3)
    if option == "--failures" and family == "worksharing":
        expect = "refuse"
    if option in ("--P", "--cores-per-node"):
        expect = "refuse"  # a JSON file: the trace options do not apply
    if option == "--priority" and command == "solve":
        expect = "refuse"
    argv += [f"{option}={value}"]
    return Case(f"option {command} {family} {option}={value[:25]}", argv,
                {"inst.json": json.dumps(example).encode()}, expect)


def _swf_case(rng) -> Case:
    lines = SWF.splitlines()
    kind = rng.choice(["field", "garbage", "option", "header", "binary", "huge", "trace"])
    expect = "any"
    argv = [rng.choice(["simulate", "solve"]), "{d}/t.swf", "-q"]
    if argv[0] == "simulate":
        argv += ["--heuristic", "R-LIST-0"]
    else:
        argv += ["--time-limit", "2"]
    if kind == "field":
        k = rng.randrange(5, len(lines))
        toks = lines[k].split()
        toks[rng.randrange(18)] = rng.choice(["x", "nan", "inf", "-inf", "1e308", "-5", "2.5",
                                              "99999999999999999999999", "0", "1e29"])
        lines[k] = " ".join(toks)
    elif kind == "garbage":
        lines.insert(rng.randrange(len(lines) + 1), rng.choice(["x y z", "1 2 3", "\t", ";;;"]))
    elif kind == "option":
        opt = rng.choice(["--P", "--cores-per-node", "--index", "--status"])
        value = rng.choice(["0", "-1", "x", "3", "1", str(10**30), "nan"])
        argv.append(f"{opt}={value}")
        expect = "refuse" if value in ("0", "-1", "x", "nan", str(10**30)) else "any"
        if (opt == "--status" and value in ("0", "-1")) or (opt == "--index" and value == "0"):
            expect = "any"
    elif kind == "header":
        k = rng.randrange(1, 5)
        lines[k] = rng.choice(["; MaxProcs: x", "; MaxProcs: -4", "; MaxProcs: 1e308",
                               "; UnixStartTime: 1e308", "; TimeZoneString: Mars/Base",
                               "; UnixStartTime: 99999999999999999999", "; MaxNodes: 0"])
    elif kind == "binary":
        return Case("swf binary", argv, {"t.swf": bytes(rng.randrange(256) for _ in range(300))},
                    "refuse")
    elif kind == "huge":
        lines.append("6 200 0 100000000000 16 -1 -1 16 100 -1 1 1 1 -1 1 -1 -1 -1")
        argv.append(f"--qbar={rng.choice(['0.1', '0.3', '0.5'])}")
    else:
        argv = ["trace", "{d}/t.swf"] + rng.choice([[], ["--json"], ["--status", "1"],
                                                     ["--P", "x"], ["--cores-per-node", "0"]])
        expect = "refuse" if argv[-1] in ("x", "0") else "any"
    return Case(f"swf {kind}", argv, {"t.swf": ("\n".join(lines) + "\n").encode()}, expect)


def _generate_case(rng, names) -> Case:
    family = rng.choice(sorted(names))
    preset = rng.choice(names[family]["presets"])
    argv = ["generate", "--family", family, "--preset", preset, "--out", "{d}/out",
            "--count", "2"]
    option = rng.choice(["--seed", "--count", "--out", "--family", "--preset", "ok"])
    expect = "refuse"
    files: dict[str, bytes] = {}
    if option == "--seed":
        argv.append("--seed=" + rng.choice(["-1", str(2**63), str(2**64), "x", "nan"]))
    elif option == "--count":
        argv.append("--count=" + rng.choice(["0", "-1", "100000", "10001", "1e9", "x",
                                             str(10**30)]))
    elif option == "--out":
        files = {"out": b"a file"}
        argv.append("--out=" + rng.choice(["{d}/out", "{d}/out/sub", "/proc/nope/x"]))
    elif option == "--family":
        argv.append("--family=" + rng.choice(["nope", ""]))
    elif option == "--preset":
        argv.append("--preset=" + rng.choice(["nope", ""]))
    else:
        argv = ["generate", "--family", family, "--preset", preset, "--count", "1",
                "--seed", str(rng.randrange(100)), "--out", "{d}/new/deep"]
        expect = "any"
    return Case(f"generate {family} {option}", argv, files, expect)


def _thresholds_case(rng, names) -> Case:
    family = rng.choice(sorted(names))
    kind = rng.choice(["nan", "inf", "negative", "string", "deep", "not-utf8", "directory",
                       "missing", "list", "unknown-key", "huge-int", "ok", "time-limit"])
    argv = ["check", "--family", family, "-q", "--time-limit", "1", "--thresholds", "{d}/t.json"]
    texts = {
        "nan": '{"max_gap": NaN}', "inf": '{"FAM": {"max_gap": Infinity}}'.replace("FAM", family),
        "negative": '{"mean_gap": -0.1}', "string": '{"max_gap": "big"}',
        "deep": "[" * 100_000 + "]" * 100_000, "list": "[1, 2]",
        "unknown-key": '{"max_gapp": 0.5}', "huge-int": '{"max_gap": 1' + "0" * 5000 + "}",
        "ok": '{"max_gap": 100}', "time-limit": '{"max_gap": 100}',
    }
    files = {"t.json": texts.get(kind, "{}").encode()}
    expect = "refuse"
    if kind == "not-utf8":
        files = {"t.json": b'{"max_gap": 1, "\xff": 2}'}
    elif kind == "directory":
        argv[-1] = "{d}"
    elif kind == "missing":
        argv[-1] = "{d}/missing.json"
    elif kind == "ok":
        expect = "any"
        argv[0] = rng.choice(["check", "gap"])
        if argv[0] == "gap":
            argv = argv[:-2]
    elif kind == "time-limit":
        value = rng.choice(["nan", "inf", "0", "1e-6", "-1", "x"])
        argv[argv.index("--time-limit") + 1] = value
    return Case(f"thresholds {family} {kind}", argv, files, expect)


def _list_case(rng, names) -> Case:
    value = rng.choice(["nope", "", "RIGID"] + sorted(names))
    expect = "refuse" if value in ("nope", "") else "any"
    return Case(f"list {value}", ["list", "--family", value, "--json"], {}, expect)


def _cli_case(rng: random.Random, examples: dict[str, dict], names: dict) -> Case:
    """One case of the command-line area: a mutated instance, trace, option or file."""
    makers = [(_field_case, 40), (_file_case, 14), (_path_case, 5), (_option_case, 22)]
    roll = rng.random()
    if roll < 0.06:
        return _swf_case(rng)
    if roll < 0.10:
        return _generate_case(rng, names)
    if roll < 0.13:
        return _thresholds_case(rng, names)
    if roll < 0.14:
        return _list_case(rng, names)
    family = rng.choice(sorted(examples))
    maker = rng.choices([m for m, _ in makers], [w for _, w in makers])[0]
    return maker(rng, family, examples[family], names)


def make_cases(count: int, seed: int) -> list[Case]:
    """`count` cases of the command-line area, a pure function of `seed`."""
    rng = random.Random(seed)
    examples = _examples()
    names = _family_names(examples)
    return [_cli_case(rng, examples, names) for _ in range(count)]


#: the fuzzed surfaces beyond the command line's instances and options: area -> (module in
#: scripts/, its one-case maker, weight in a mixed run)
AREAS: dict[str, tuple[str, str, float]] = {
    "library": ("fuzz_library", "make_library_case", 0.10),    # tampered libraries (verify, gap)
    "campaign": ("fuzz_campaign", "make_campaign_case", 0.10),  # specs, stores, outputs
    "export": ("fuzz_export", "make_export_case", 0.05),        # Batsim export
    "plugins": ("fuzz_plugins", "make_plugins_case", 0.05),     # MODULE:FUNCTION references
    "desktop": ("fuzz_desktop", "make_desktop_case", 0.05),     # desktop instances and traces
    "malleable": ("fuzz_malleable", "make_malleable_case", 0.05),  # malleable instances
    "online": ("fuzz_online", "make_online_case", 0.05),        # online-optimal instances, options
    "plot": ("fuzz_plot", "make_plot_case", 0.05),              # plot outputs, --compare, --csv
    "shard": ("fuzz_shard", "make_shard_case", 0.05),           # campaign --shard and merge
}


def area_maker(area: str):
    """The one-case maker of `area` (imported on first use: each area module imports this one)."""
    import importlib

    module, function = AREAS[area][:2]
    return getattr(importlib.import_module(module), function)


def make_mixed_cases(count: int, seed: int, areas: list[str] | None = None) -> list[Case]:
    """`count` cases drawn over the command-line area ("cli") and every area of `AREAS` (or
    those named), each case's area drawn by weight; a pure function of `seed` and `areas`."""
    rng = random.Random(seed)
    chosen = [a for a in ("cli", *AREAS) if areas is None or a in areas]
    chosen = [a for a in chosen if a == "cli" or _importable(AREAS[a][0])]
    weights = [1.0 - sum(AREAS[a][2] for a in chosen if a != "cli") if a == "cli"
               else AREAS[a][2] for a in chosen]
    examples = _examples()
    names = _family_names(examples)
    makers = {a: area_maker(a) for a in chosen if a != "cli"}
    out = []
    for _ in range(count):
        area = rng.choices(chosen, [max(w, 0.05) for w in weights])[0]
        out.append(_cli_case(rng, examples, names) if area == "cli" else makers[area](rng))
    return out


def _importable(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None
