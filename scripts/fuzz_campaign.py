#!/usr/bin/env python3
"""Fuzzed campaign surfaces for the command-line fuzzer (scripts/fuzz_cli.py, issue 21).

`make_campaign_case(rng)` builds one case of ``campaign run``, ``campaign export`` or
``report``, chosen from three kinds:

- a malformed spec: a field of a small valid spec set to a value of the wrong type or out of
  range (NaN and infinities, which TOML allows, 5000-digit integers, counts and seeds beyond
  their maxima, unknown names and keys), or a whole file that is not UTF-8, nested 5000 deep,
  empty, cut short, a directory or missing;
- a foreign or corrupt store: a directory, a text, binary, empty or truncated file, an SQLite
  database of another program (rollback or WAL journal), a store whose ``results`` table was
  dropped, one with bytes flipped, rows holding NaN or malformed JSON, ``/proc`` and ``/dev``
  paths;
- a bad output path for ``export`` and ``report``: a directory for ``--csv``, a file for
  ``--out``, a folder that is a file, ``/dev/full``.

Each case is labelled ``refuse`` (exit status 2, one line) when its input is known to be bad,
``any`` otherwise (a clean result or a one-line refusal). Valid specs are small (a few inline
tasks), so a valid case runs in a second. Run this surface alone with::

    python3 scripts/fuzz_campaign.py --cases 300 --seed 0
"""

from __future__ import annotations

import argparse
import functools
import json
import random
import sqlite3
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fuzz_cases import Case  # noqa: E402  (the script's own folder)

#: the valid spec every spec case mutates: 8 fast rigid tasks
SPEC = """[campaign]
name = "fuzz"
[[instances]]
family = "rigid"
preset = "smoke"
count = 1
seed = 2
[[algorithms]]
name = "R-LIST-0"
priority = ["LPT"]
[scenarios]
qbar = [0.1, 0.3]
count = 2
seed = 7
"""

#: spec field (its line's text) -> (valid replacements, invalid replacements)
FIELDS: dict[str, tuple[list[str], list[str]]] = {
    'name = "fuzz"': (['name = "other"', 'name = "a b"'],
                      ['name = ""', "name = 3", "name = []", "name = nan"]),
    'family = "rigid"': ([], ['family = "rigdi"', "family = 1", 'family = ""']),
    'preset = "smoke"': (['preset = "paper-default"'], ['preset = "nope"', "preset = inf"]),
    "count = 1": (["count = 2"], ["count = 0", "count = -1", "count = 10001",
                                  "count = 1000000", "count = 1.5", 'count = "1"',
                                  "count = nan", "count = true", "count = " + "9" * 5000]),
    "seed = 2": (["seed = 0", "seed = 9223372036854775807"],
                 ["seed = -1", "seed = 9223372036854775808", "seed = 2.0", "seed = inf",
                  'seed = "2"']),
    'name = "R-LIST-0"': (['name = "r-list-0"', 'name = "R-SHELF-B"'],
                          ['name = "R-LIST-9"', "name = 0", 'name = "cpsat"']),
    'priority = ["LPT"]': (['priority = "LA"', 'priority = ["LPT", "Random"]'],
                           ['priority = ["XYZ"]', "priority = []", "priority = 3",
                            'priority = ["LPT"]\nparams = { nope = 1 }',
                            'priority = ["LPT"]\nparams = { redraw_on_failure = 3 }',
                            'priority = ["LPT"]\nparams = 7',
                            'priority = ["LPT"]\ntime_limit = 5']),
    "qbar = [0.1, 0.3]": (["qbar = 0.2", "qbar = [0, 0.5]"],
                          ["qbar = 1", "qbar = [1.5]", "qbar = -0.1", "qbar = nan",
                           "qbar = [inf]", 'qbar = "0.1"', "qbar = []", "qbar = true"]),
    "count = 2": (["count = 1", "count = 3"],
                  ["count = 0", "count = 2000000", "count = -inf", "count = [2]"]),
    "seed = 7": (["seed = 1"], ["seed = -7", "seed = 1e3", "seed = " + "1" * 4400]),
}

#: whole-file mutations of the spec -> expectation
FILES: dict[str, str] = {"not-utf8": "refuse", "deep": "refuse", "digits": "refuse",
                         "empty": "refuse", "cut": "any", "unknown-key": "refuse",
                         "directory": "refuse", "missing": "refuse", "bom": "any",
                         "no-scenarios": "any", "worksharing-n": "refuse"}

WORKSHARING = """[campaign]
name = "ws"
[[instances]]
family = "worksharing"
preset = "random"
count = 1
[[algorithms]]
name = "greedy"
params = { n = N }
"""


def _run(spec_path: str, store: str = "{d}/s.sqlite") -> list[str]:
    return ["campaign", "run", spec_path, "--store", store, "--executor", "inline", "-q"]


def _spec_case(rng: random.Random) -> Case:
    if rng.random() < 0.65:
        line = rng.choice(sorted(FIELDS))
        valid, invalid = FIELDS[line]
        bad = not valid or rng.random() < 0.75
        new = rng.choice(invalid if bad else valid)
        text = SPEC.replace(line, new, 1)
        label = f"spec {new[:40]!r}"
        return Case(label, _run("{d}/spec.toml"), {"spec.toml": text.encode()},
                    "refuse" if bad else "any")
    kind = rng.choice(sorted(FILES))
    good = SPEC.encode()
    files = {"spec.toml": good}
    argv = _run("{d}/spec.toml")
    if kind == "not-utf8":
        at = rng.randrange(len(good))
        files["spec.toml"] = good[:at] + b"\xff" + good[at:]
    elif kind == "deep":
        files["spec.toml"] = good + b"x = " + b"[" * 5000 + b"]" * 5000 + b"\n"
    elif kind == "digits":
        files["spec.toml"] = good.replace(b"seed = 7", b"seed = " + b"7" * 5000)
    elif kind == "empty":
        files["spec.toml"] = b""
    elif kind == "cut":
        files["spec.toml"] = good[: rng.randrange(1, len(good))]
    elif kind == "unknown-key":
        files["spec.toml"] = good.replace(b"seed = 7", b"seed = 7\nseeds = 8")
    elif kind == "directory":
        argv = _run("{d}")
    elif kind == "missing":
        argv = _run("{d}/nope.toml")
    elif kind == "bom":
        files["spec.toml"] = b"\xef\xbb\xbf" + good
    elif kind == "no-scenarios":
        files["spec.toml"] = good.split(b"[scenarios]")[0]
    elif kind == "worksharing-n":
        n = rng.choice(["1e300", "1e30", "-1", "nan", "inf"])
        files["spec.toml"] = WORKSHARING.replace("N", n).encode()
    return Case(f"spec file {kind}", argv, files, FILES[kind])


# --- stores -------------------------------------------------------------------------------------
@functools.cache
def store_bytes() -> bytes:
    """A valid store of the `SPEC` campaign (its 8 real rows), with fixed timestamps."""
    from resilsched.campaign import ResultStore
    from resilsched.campaign.plan import plan
    from resilsched.campaign.spec import parse_spec
    from resilsched.campaign.store import canonical_json
    from resilsched.campaign.tasks import run_task

    spec = parse_spec(SPEC)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "s.sqlite"
        ResultStore(path).close()
        con = sqlite3.connect(path)
        con.execute("INSERT INTO campaigns VALUES (?, ?, ?)",
                    (spec.name, canonical_json(spec.config()), "2026-01-01T00:00:00+00:00"))
        con.executemany("INSERT INTO results VALUES (?, ?, ?, ?, ?, ?)",
                        [(spec.name, t.key, canonical_json(t.fields),
                          json.dumps(run_task(t.payload)), 0.001, "2026-01-01T00:00:00+00:00")
                         for t in plan(spec)])
        con.commit()
        con.close()
        return path.read_bytes()


def _sql(statements: list[str], wal: bool = False, base: bytes | None = None) -> bytes:
    """The bytes of an SQLite file: `base` (or a new database) after `statements`."""
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "x.db"
        if base is not None:
            path.write_bytes(base)
        con = sqlite3.connect(path)
        if wal:
            con.execute("PRAGMA journal_mode=WAL")
        for s in statements:
            con.execute(s)
        con.commit()
        con.close()
        return path.read_bytes()


def _tampered(rng: random.Random) -> bytes:
    text = rng.choice(['{"objective": NaN}', '{"ratio": Infinity}', '{"ratio": 1e999}',
                       '{"objective": 3, "ratio": ', '[1, 2', '{"ratio": "x"}', "7"])
    field = rng.choice(["result", "fields"])
    return _sql([f"UPDATE results SET {field} = '{text}' WHERE rowid = 1"], base=store_bytes())


def _flipped(rng: random.Random) -> bytes:
    data = bytearray(store_bytes())
    for _ in range(rng.choice([1, 4, 32])):
        data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    return bytes(data)


#: store kind -> (bytes maker or None for a path case, expectation of the read-only commands,
#: expectation of `campaign run`)
STORES = {
    "directory": (None, "refuse", "refuse"),
    "text": (lambda rng: b"key,result\nabc,1\n" * 20, "refuse", "refuse"),
    "binary": (lambda rng: bytes(rng.randrange(256) for _ in range(600)), "refuse", "refuse"),
    "empty": (lambda rng: b"", "refuse", "any"),
    "truncated": (lambda rng: store_bytes()[: rng.randrange(100, len(store_bytes()) - 4096)],
                  "refuse", "refuse"),
    "header-only": (lambda rng: store_bytes()[: rng.randrange(16, 100)], "refuse", "refuse"),
    "foreign": (lambda rng: _sql(["CREATE TABLE sales (item, price)",
                                  "INSERT INTO sales VALUES ('pen', 1)"]), "refuse", "refuse"),
    "foreign-wal": (lambda rng: _sql(["CREATE TABLE t (x)"], wal=True), "refuse", "refuse"),
    "empty-sqlite": (lambda rng: _sql(["CREATE TABLE t (x)", "DROP TABLE t"]), "refuse",
                     "any"),
    "dropped": (lambda rng: _sql(["DROP TABLE results"], base=store_bytes()), "refuse",
                "refuse"),
    "no-column": (lambda rng: _sql(["ALTER TABLE results DROP COLUMN seconds"],
                                   base=store_bytes()), "refuse", "refuse"),
    "tampered": (_tampered, "any", "any"),
    "flipped": (_flipped, "any", "any"),
    "valid": (lambda rng: store_bytes(), "any", "any"),
    "proc": (None, "refuse", "refuse"),
    "dev-null": (None, "refuse", "refuse"),
    "missing": (None, "refuse", "any"),
}


def _store_case(rng: random.Random) -> Case:
    kind = rng.choice(sorted(STORES))
    make, read_expect, run_expect = STORES[kind]
    files = {"spec.toml": SPEC.encode()}
    store = {"directory": "{d}", "proc": "/proc/self/status", "dev-null": "/dev/null",
             "missing": "{d}/missing.sqlite"}.get(kind, "{d}/s.sqlite")
    if make is not None:
        files["s.sqlite"] = make(rng)
    command = rng.choice(["run", "report", "export"])
    if command == "run":
        return Case(f"store {kind} run", _run("{d}/spec.toml", store), files, run_expect)
    if command == "report":
        argv = ["report", store, "--out", "{d}/report", "--no-plots"]
    else:
        argv = ["campaign", "export", store, "--csv", "{d}/rows.csv"]
    return Case(f"store {kind} {command}", argv + rng.choice([[], ["--json"]]), files,
                read_expect)


# --- output paths -------------------------------------------------------------------------------
#: output kind -> (argv after the store, expectation)
OUTPUTS = {
    "csv-directory": (["campaign", "export", "{d}/s.sqlite", "--csv", "{d}"], "refuse"),
    "csv-under-a-file": (["campaign", "export", "{d}/s.sqlite", "--csv", "{d}/afile/rows.csv"],
                         "refuse"),
    "csv-dev-full": (["campaign", "export", "{d}/s.sqlite", "--csv", "/dev/full"], "refuse"),
    "parquet-directory": (["campaign", "export", "{d}/s.sqlite", "--parquet", "{d}"], "refuse"),
    "no-output": (["campaign", "export", "{d}/s.sqlite"], "refuse"),
    "unknown-campaign": (["campaign", "export", "{d}/s.sqlite", "--csv", "{d}/r.csv",
                          "--campaign", "nope"], "refuse"),
    "out-is-a-file": (["report", "{d}/s.sqlite", "--out", "{d}/afile", "--no-plots"], "refuse"),
    "out-under-a-file": (["report", "{d}/s.sqlite", "--out", "{d}/afile/rep", "--no-plots"],
                         "refuse"),
    "csv-valid": (["campaign", "export", "{d}/s.sqlite", "--csv", "{d}/new/rows.csv"], "any"),
    "report-valid": (["report", "{d}/s.sqlite", "--out", "{d}/rep", "--no-plots"], "any"),
}


def _output_case(rng: random.Random) -> Case:
    kind = rng.choice(sorted(OUTPUTS))
    argv, expect = OUTPUTS[kind]
    files = {"s.sqlite": store_bytes(), "afile": b"keep me\n"}
    return Case(f"output {kind}", list(argv), files, expect)


def make_campaign_case(rng: random.Random) -> Case:
    """One fuzzed case of the campaign commands (see the module doc)."""
    roll = rng.random()
    if roll < 0.45:
        return _spec_case(rng)
    if roll < 0.8:
        return _store_case(rng)
    return _output_case(rng)


def make_campaign_cases(count: int, seed: int) -> list[Case]:
    """`count` cases, a pure function of `seed` (file bytes aside, which hold no clock)."""
    rng = random.Random(seed)
    return [make_campaign_case(rng) for _ in range(count)]


def main(argv: list[str] | None = None) -> int:
    from fuzz_cli import BAD, run_all, summary

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=300, help="number of cases (default 300)")
    parser.add_argument("--seed", type=int, default=0, help="case generator seed (default 0)")
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="seconds per case before it counts as a hang (default 60)")
    args = parser.parse_args(argv)
    outcomes = run_all(make_campaign_cases(args.cases, args.seed), args.timeout, progress=True)
    for o in outcomes:
        if o.kind in BAD:
            last = (o.err.strip().splitlines() or [""])[-1][:300]
            print(f"{o.kind:11} {o.case.label} :: resilsched {' '.join(o.case.argv)[:160]} "
                  f"-> exit {o.code}: {last}")
    counts = summary(outcomes)
    print(", ".join(f"{k} {v}" for k, v in counts.items()))
    return 1 if any(counts[k] for k in BAD) else 0


if __name__ == "__main__":
    sys.exit(main())
