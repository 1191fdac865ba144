#!/usr/bin/env python3
"""Fuzzed surfaces of sharded campaigns for the command-line fuzzer (scripts/fuzz_cli.py).

`make_shard_case(rng)` builds one case of ``campaign run --shard I/N`` or ``campaign merge``:

- a shard: well-formed slices (``1/2``, `` 2 / 3 ``, ``1/1000000``) and malformed ones (``0/2``,
  ``3/2``, ``1/0``, ``1.5/2``, ``a/b``, an empty string, more than 7 digits, a third part);
- a merge: two inputs, each a valid shard store of the spec or one of the foreign and corrupt
  stores of `fuzz_campaign.STORES` (with the expectation of the read-only commands), into an
  output that is new, a valid store, an input, a directory, a text file or a foreign database,
  with or without the spec, a spec of another configuration, or an unknown ``--campaign``.

A merge whose spec has tasks no input holds exits with status 1 and a report (``classify``
counts it as a result, as for ``check``). Run this surface alone with::

    python3 scripts/fuzz_shard.py --cases 300 --seed 0
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import random
import sqlite3
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fuzz_campaign import SPEC, STORES  # noqa: E402  (the script's own folder)
from fuzz_cases import Case  # noqa: E402

#: --shard values -> expectation
SHARDS = {"1/2": "any", "2/2": "any", " 2 / 3 ": "any", "1/1": "any", "1/1000000": "any",
          "0/2": "refuse", "3/2": "refuse", "1/0": "refuse", "0/0": "refuse",
          "1.5/2": "refuse", "a/b": "refuse", "": "refuse", "1": "refuse", "1/2/3": "refuse",
          "1/10000000": "refuse", "12345678/12345678": "refuse", "-1/2": "refuse",
          "1/2 junk": "refuse", "1/" + "9" * 5000: "refuse"}


@functools.cache
def shard_store(index: int) -> bytes:
    """The store of shard `index` of 2 of the `SPEC` campaign (run inline, no progress)."""
    from resilsched.cli import main

    with tempfile.TemporaryDirectory() as d, contextlib.redirect_stdout(io.StringIO()):
        (Path(d) / "spec.toml").write_text(SPEC)
        path = Path(d) / "s.sqlite"
        assert main(["campaign", "run", f"{d}/spec.toml", "--shard", f"{index}/2", "--store",
                     str(path), "--executor", "inline", "-q"]) == 0
        return path.read_bytes()


def _foreign() -> bytes:
    with tempfile.TemporaryDirectory() as d:
        con = sqlite3.connect(Path(d) / "x.db")
        con.execute("CREATE TABLE sales (item, price)")
        con.commit()
        con.close()
        return (Path(d) / "x.db").read_bytes()


def _shard_case(rng: random.Random) -> Case:
    value = rng.choice(sorted(SHARDS))
    argv = ["campaign", "run", "{d}/spec.toml", f"--shard={value}", "--store", "{d}/s.sqlite",
            "--executor", "inline", "-q"] + rng.choice([[], ["--json"]])
    return Case(f"shard {value[:20]!r}", argv, {"spec.toml": SPEC.encode()}, SHARDS[value])


#: output kind -> (path, file bytes or None, expectation)
OUTPUTS = {
    "new": ("{d}/out/all.sqlite", None, "any"),
    "valid": ("{d}/all.sqlite", "valid", "any"),
    "an-input": ("{d}/a.sqlite", None, "refuse"),
    "directory": ("{d}", None, "refuse"),
    "text": ("{d}/all.sqlite", "text", "refuse"),
    "foreign": ("{d}/all.sqlite", "foreign", "refuse"),
    "under-a-file": ("{d}/afile/all.sqlite", None, "refuse"),
}


def _input(rng: random.Random) -> tuple[bytes | str, str]:
    """(bytes of an input store, or a path for the kinds that are paths; its expectation)."""
    if rng.random() < 0.8:
        return shard_store(rng.choice([1, 2])), "any"
    kind = rng.choice(sorted(STORES))
    make, expect, _ = STORES[kind]
    if make is None:
        return {"directory": "{d}", "proc": "/proc/self/status", "dev-null": "/dev/null",
                "missing": "{d}/missing.sqlite"}[kind], expect
    return make(rng), expect


def _merge_case(rng: random.Random) -> Case:
    files: dict[str, bytes] = {"spec.toml": SPEC.encode(), "afile": b"keep me\n"}
    inputs, expects = [], []
    for name in ("a.sqlite", "b.sqlite"):
        made, expect = _input(rng)
        if isinstance(made, str):
            inputs.append(made)
        else:
            files[name] = made
            inputs.append(f"{{d}}/{name}")
        expects.append(expect)
    kind = rng.choice(["new", "new", "new", *sorted(OUTPUTS)])
    path, content, expect = OUTPUTS[kind]
    if content is not None:
        files["all.sqlite"] = {"valid": shard_store(1), "text": b"not a store\n" * 10,
                               "foreign": _foreign()}[content]
    argv = ["campaign", "merge", *inputs, "--store", path, "-q"]
    extra = rng.choice(["none", "spec", "spec", "other-spec", "campaign"])
    if extra == "spec":
        argv += ["--spec", "{d}/spec.toml"]
    elif extra == "other-spec":
        files["other.toml"] = SPEC.replace("count = 2", "count = 3").encode()
        argv += ["--spec", "{d}/other.toml"]
    elif extra == "campaign":
        argv += ["--campaign", "nope"]
    refused = "refuse" in (*expects, expect) or extra in ("other-spec", "campaign")
    argv += rng.choice([[], ["--json"]])
    return Case(f"merge {kind} {extra}", argv, files, "refuse" if refused else "any")


def make_shard_case(rng: random.Random) -> Case:
    """One fuzzed case of sharded campaigns (see the module doc)."""
    return _shard_case(rng) if rng.random() < 0.35 else _merge_case(rng)


def make_shard_cases(count: int, seed: int) -> list[Case]:
    """`count` cases, a pure function of `seed` (store bytes aside, which hold times)."""
    rng = random.Random(seed)
    return [make_shard_case(rng) for _ in range(count)]


def main(argv: list[str] | None = None) -> int:
    from fuzz_cli import BAD, run_all, summary

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=300, help="number of cases (default 300)")
    parser.add_argument("--seed", type=int, default=0, help="case generator seed (default 0)")
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="seconds per case before it counts as a hang (default 60)")
    args = parser.parse_args(argv)
    outcomes = run_all(make_shard_cases(args.cases, args.seed), args.timeout, progress=True)
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
