"""Fuzzed desktop-grid inputs for the command-line fuzzer (scripts/fuzz_cli.py, issue 21).

`make_desktop_case(rng)` returns one `Case`: a desktop instance (JSON) or an availability trace
(CSV with its jobs file) mutated one way, run through ``simulate`` or ``solve``:

- ``field``: one value of the instance replaced (huge and tiny times and cycle times, 10^400,
  exponents that would take hours to expand, wrong types);
- ``size``: more jobs, machines or intervals than the limits of decision D-22 (refused), or a
  large valid instance (run);
- ``csv``: a trace row or the jobs file mutated (huge, infinite, negative times, overlaps,
  bad b, too many machines or jobs);
- ``failures``: a bad disturbance ``--failures`` (wrong groups, non-integers, shifts outside
  [-a(k), a(k+1)], 5000-digit integers) or a good one;
- ``param``: ``--param fill=...``/``slack=...`` and ``--qbar`` (the disturbance level alpha);
- ``knapsack``: DPslack on bins of 10^11-10^12 s (refused by D-8's row limit, never allocated).

Each case says what a correct command does: ``refuse`` (exit 2, one line) when the mutation is
known to be invalid, ``any`` when a result or a one-line refusal both pass.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fuzz_cases import Case  # noqa: E402  (the script's own folder)

BASE = {"family": "desktop", "format_version": 1, "name": "fuzz",
        "machines": [{"b": 1, "e0": 0, "a": [10, 8, 12, 9], "u": [5, 5, 5, 4]},
                     {"b": 1.5, "e0": 2, "a": [14, 9, 16, 10], "u": [4, 6, 3, 5]}],
        "jobs": [{"p": 4}, {"p": 3}, {"p": 2}, {"p": 3}, {"p": 1}], "slack_rule": True}

#: JSON texts put in place of a time (a, u, e0) -> known invalid?
TIMES = {"1e13": True, "1000000000001": True, "1e308": True, "1" + "0" * 400: True,
         "-1": True, "0": None, "2.5": True, '"7"': True, "true": True, "null": True,
         "[]": True, "1e12": None, "3": False, "7.0": False, "1e-320": True}
#: JSON texts put in place of b or p -> (known invalid as b?, known invalid as p?)
NUMBERS = {"1e13": (True, True), "1e-7": (True, None), "5e-324": (True, None),
           "0": (True, True), "-2": (True, True), '"1e999999999"': (True, True),
           '"1e500"': (True, True), '"1/0"': (True, True), '"23/20"': (False, False),
           '"x"': (True, True), "1.15": (False, False), "1e6": (None, None),
           "1" + "0" * 400: (True, True), "false": (True, True), "[1]": (True, True),
           "{}": (True, True), "0.5": (False, False)}
#: --failures texts for BASE (two machines of four unavailabilities) -> known invalid?
FAILURES = {"0,0,0,0;0,0,0,0": False, "-3,2,0,0;0,0,0,0": False, "0,0,0,0": True,
            "x": True, "1.5,0,0,0;0,0,0,0": True, "0,0,0,1;0,0,0,0": True,
            "-11,0,0,0;0,0,0,0": True, "99999999999999999999,0,0,0;0,0,0,0": True,
            "1" + "0" * 5000 + ",0,0,0;0,0,0,0": True, "1e13,0,0,0;0,0,0,0": True,
            ";;;": True, "0,0,0,0;0,0,0,0;0": True, ";": False, "": True,
            ";".join(["0"] * 100_000): True}
HEURISTICS = ["GreedySlack", "DAslack"]
PRIORITIES = ["LPT", "SPT", "FFD", "FFI", "DPslack"]


def _command(rng: random.Random, path: str) -> list[str]:
    if rng.random() < 0.3:
        return ["solve", path, "--time-limit", "2", "--method", rng.choice(["cpsat", "milp"]),
                "-q"]
    return ["simulate", path, "--heuristic", rng.choice(HEURISTICS), "--priority",
            rng.choice(PRIORITIES), "-q"]


def _json_case(label: str, doc: dict | str, rng: random.Random, expect: str,
               extra: list[str] = ()) -> Case:
    data = doc.encode() if isinstance(doc, str) else lambda: json.dumps(doc).encode()
    argv = _command(rng, "{d}/inst.json") + list(extra)
    return Case(f"desktop {label}", argv, {"inst.json": data}, expect)


def _expect(bad: bool | None) -> str:
    return "refuse" if bad else "any"


def _field(rng: random.Random) -> Case:
    doc = json.loads(json.dumps(BASE))
    i = rng.randrange(2)
    where = rng.choice(["a", "u", "e0", "b", "p"])
    marker = "\u0000MARK\u0000"
    if where in ("a", "u"):
        doc["machines"][i][where][rng.randrange(4)] = marker
        value, bad = rng.choice(sorted(TIMES.items()))
    elif where == "e0":
        doc["machines"][i]["e0"] = marker
        value, bad = rng.choice(sorted(TIMES.items()))
        bad = bad if value != "0" else False
    elif where == "b":
        doc["machines"][i]["b"] = marker
        value, (bad, _) = rng.choice(sorted(NUMBERS.items()))
    else:
        doc["jobs"][rng.randrange(5)]["p"] = marker
        value, (_, bad) = rng.choice(sorted(NUMBERS.items()))
    text = json.dumps(doc).replace(json.dumps(marker), value)
    return _json_case(f"field {where}={value[:20]}", text, rng, _expect(bad))


def _size(rng: random.Random) -> Case:
    doc = json.loads(json.dumps(BASE))
    kind = rng.choice(["jobs", "machines", "intervals", "cells", "valid"])
    if kind == "jobs":
        doc["jobs"] = [{"p": 1}] * rng.choice([10_001, 20_000])
    elif kind == "machines":
        doc["machines"] = [{"b": 1, "a": [10], "u": [5]}] * 100_001
    elif kind == "intervals":
        k = rng.choice([1_000_001, 1_200_000])
        doc["machines"][0]["a"] = [1] * k
        doc["machines"][0]["u"] = [1] * k
    elif kind == "cells":
        doc["machines"] = [{"b": 1, "a": [10], "u": [5]}] * 5001
        doc["jobs"] = [{"p": 1}] * 10_000
    else:
        doc["machines"] = [{"b": 1 + (i % 7) / 10, "e0": i % 5, "a": [3600, 7200, 1800],
                            "u": [600, 900, 300]} for i in range(rng.choice([50, 400]))]
        doc["jobs"] = [{"p": 60 + (j * 37) % 900} for j in range(rng.choice([500, 3000]))]
    return _json_case(f"size {kind}", doc, rng, "any" if kind == "valid" else "refuse")


def _csv(rng: random.Random) -> Case:
    rows = ["machine,start,end,b", "h1,0,36000,1.0", "h1,54000,90000,1.0", "h2,7200,50000,0.8"]
    jobs = "p\n1800\n2400\n600\n"
    kind = rng.choice(["time", "overlap", "b", "jobs", "machines", "many-jobs", "valid"])
    expect = "refuse"
    machines = 0  # rows of that many more machines, made when the case runs
    if kind == "time":
        value = rng.choice(["1e13", "inf", "nan", "-1e13", "1e999999999", "x", "",
                            "-900000000000"])
        rows[rng.randrange(1, 4)] = f"h1,{value},40000,1.0" if rng.random() < 0.5 \
            else f"h3,0,{value},1.0"
        if value == "-900000000000":
            expect = "any"  # a start 9e11 s before the others: valid if it overlaps nothing
    elif kind == "overlap":
        rows.append("h1,30000,60000,1.0")
    elif kind == "b":
        value = rng.choice(["0", "-1", "1e7", "nan", "x", "2.0"])
        rows[1] = f"h1,0,36000,{value}"  # 2.0 differs from h1's other rows
    elif kind == "jobs":
        jobs = rng.choice(["p\n-5\n", "p\nnan\n", "q\n5\n", "p\n1e13\n", "", "p\n"])
    elif kind == "machines":
        machines = 100_001
    elif kind == "many-jobs":
        jobs = "p\n" + "60\n" * 10_001
    else:
        expect = "any"
    files = {"t.csv": lambda: "\n".join([*rows, *(f"m{k},{k},{k + 10}" for k in range(machines)),
                                          ""]).encode(),
             "t.jobs.csv": jobs.encode()}
    return Case(f"desktop csv {kind}", _command(rng, "{d}/t.csv"), files, expect)


def _failures(rng: random.Random) -> Case:
    value, bad = rng.choice(sorted(FAILURES.items()))
    argv = _command(rng, "{d}/inst.json")
    return Case(f"desktop failures {value[:25]}", argv + [f"--failures={value}"],
                {"inst.json": json.dumps(BASE).encode()}, _expect(bad))


def _param(rng: random.Random) -> Case:
    options = {"--param=fill=job": None, "--param=fill=interval": False,
               "--param=fill=both": True, "--param=slack=off": False,
               "--param=slack=maybe": True, "--qbar=0.5": False, "--qbar=1": False,
               "--qbar=1.5": True, "--qbar=nan": True, "--qbar=-0.1": True}
    option, bad = rng.choice(sorted(options.items()))
    argv = ["simulate", "{d}/inst.json", "--heuristic", rng.choice(HEURISTICS), "--priority",
            rng.choice(PRIORITIES), "-q", option]
    if option == "--param=fill=job" and argv[5] not in ("FFD", "FFI"):
        bad = True  # fill=job is for FFD and FFI only (D-24)
    return Case(f"desktop param {argv[5]} {option}", argv,
                {"inst.json": json.dumps(BASE).encode()}, _expect(bad))


def _knapsack(rng: random.Random) -> Case:
    a = rng.choice([499_999_999_990, 10**11])
    doc = {"family": "desktop", "machines": [{"b": 1, "a": [a], "u": [5]}] * 2,
           "jobs": [{"p": a * 2 // 5}] * 4, "slack_rule": False}
    argv = ["simulate", "{d}/inst.json", "--heuristic", "DAslack", "--priority", "DPslack",
            "-q"]
    return Case(f"desktop knapsack a={a}", argv, {"inst.json": json.dumps(doc).encode()},
                "refuse")


MAKERS = [(_field, 30), (_size, 12), (_csv, 18), (_failures, 18), (_param, 14), (_knapsack, 3)]


def make_desktop_case(rng: random.Random) -> Case:
    """One fuzzed desktop case, a pure function of the state of `rng`."""
    maker = rng.choices([m for m, _ in MAKERS], [w for _, w in MAKERS])[0]
    return maker(rng)


def make_desktop_cases(count: int, seed: int) -> list[Case]:
    """`count` cases from ``random.Random(seed)``."""
    rng = random.Random(seed)
    return [make_desktop_case(rng) for _ in range(count)]
