"""Fuzzed malleable instances for the command-line fuzzer (scripts/fuzz_cli.py; issue 21).

`make_malleable_case(rng)` builds one `Case`: a small malleable instance (synthetic profiles or
integer tables) with one mutation aimed at the family's limits (decisions T8, T9, MA-19), run
through ``simulate`` or ``solve``:

- huge sizes: p beyond 10^7 (up to a 401-digit integer), more than 10^4 tasks, more than 10^6
  table entries, traces of more than 10^5 failures;
- giant or out-of-range numbers in any field (times above 10^12, 401-digit integers, negative,
  zero where it is not allowed, NaN text, strings, booleans, lists);
- failure rates a run cannot get through: lambda j tau up to 800 (refused when built from 20
  on, T8) or 10^5 to 10^6 failures over cheap periods (no trace is drawn, MA-19);
- bad failure traces, in the instance or on the command line: not a list, pairs of the wrong
  length, processor ids out of range, fractional or boolean ids, negative or huge times, a
  trace on an instance without failures;
- plain valid instances with random heuristics, options and traces.

A case is labelled ``refuse`` when its mutation breaks a documented rule whatever the rest,
else ``any``. The cases are a pure function of the generator's state.
"""

from __future__ import annotations

import json
import math
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fuzz_cases import Case  # noqa: E402  (the script's own folder)

FAULTY = ("ENDLOCAL-SAF", "ENDLOCAL-IG", "ENDGREEDY-SAF", "ENDGREEDY-IG", "NOREDIST")
FAULT_FREE = ("FF-NOREDIST", "FF-ENDLOCAL", "FF-ENDGREEDY")
GIANT = "9" * 401
#: JSON texts no field of a malleable instance accepts (T8: times <= 1e12, m <= 1e18)
NEVER = [GIANT, "-" + GIANT, "1e300", "-1", '"x"', "true", "false", "[]", "{}", '"NaN"',
         "[1, 2]", "1e19"]
#: (field, texts it accepts besides the generated value, texts it refuses)
FIELDS = {
    "mtbf": (["1e12", "1e9", "null", '"1e8"'], ["0", "1e13", "-5"]),
    "downtime": (["0", "1e12", '"1/3"'], ["1e13", "-0.5"]),
    "S": (["0", "12.5"], ["1e13", "-1"]),
    "beta": (["0", "0.25"], ["1e13", "-1"]),
    "checkpoint_factor": (["1e-6", "3"], ["0", "1e13"]),
}


def _synthetic(rng: random.Random, n: int, p: int) -> dict:
    tasks = [{"m": float(rng.randint(1_000, 2_500_000)), "f": rng.choice([0.0, 0.08, 0.3])}
             for _ in range(n)]
    return {"family": "malleable", "format_version": 1, "p": p, "tasks": tasks,
            "mtbf": rng.choice([3.15576e9, 1.5e8, 3e6]), "downtime": rng.choice([0, 5, 60])}


def _tables(rng: random.Random, n: int, p: int) -> dict:
    tasks = []
    for _ in range(n):
        row = [rng.randint(20, 120)]
        for j in range(1, p):  # t_{j+1} in [ceil(j t_j / (j + 1)), t_j]: (1.1) and (1.2) hold
            row.append(rng.randint(-(-j * row[-1] // (j + 1)), row[-1]))
        tasks.append({"t": [float(x) for x in row], "m": float(rng.randint(2, 40))})
    return {"family": "malleable", "format_version": 1, "p": p, "tasks": tasks,
            "mtbf": float(rng.randint(200, 5000)), "downtime": 5}


def _base(rng: random.Random) -> dict:
    n = rng.randint(1, 4)
    p = rng.randint(2 * n, 16)
    return (_synthetic if rng.random() < 0.5 else _tables)(rng, n, p)


def _text(doc: dict, **raw: str) -> bytes:
    """The instance as JSON, with `raw` JSON texts put in place of some top-level fields."""
    out = json.dumps({k: v for k, v in doc.items() if k not in raw})
    extra = "".join(f', "{k}": {v}' for k, v in raw.items())
    return (out[:-1] + extra + "}").encode()


def _command(rng: random.Random, argv_extra: list[str] | None = None,
             heuristic: str | None = None) -> list[str]:
    extra = list(argv_extra or [])
    if rng.random() < 0.3:
        extra += ["--seed", str(rng.randint(0, 50))]
    if rng.random() < 0.5:
        extra.append("--json")
    if heuristic is None and rng.random() < 0.3:
        return ["solve", "{d}/m.json", "--time-limit", "2", *extra]
    h = heuristic or rng.choice(FAULTY + FAULT_FREE)
    return ["simulate", "{d}/m.json", "--heuristic", h, *extra]


def _size_case(rng: random.Random) -> Case:
    # the large files are made when the case runs (`fuzz_cases.Data`), from what is drawn here
    kind = rng.choice(["p", "tasks", "cells", "trace"])
    doc = _synthetic(rng, 2, 8)
    if kind == "p":
        p = rng.choice([str(10**7 + 1), str(10**8), str(2**63), GIANT, "1e9", "10000001.0"])
        data = _text(doc, p=p)
    elif kind == "tasks":
        n = rng.choice([10_001, 12_000])
        doc = _synthetic(rng, n, 2 * n)
        data = lambda: _text(doc)  # noqa: E731
    elif kind == "cells":  # two rows of ones (valid) of p > 500,000 entries each
        cells = rng.choice([500_001, 600_000])
        doc = _synthetic(rng, 2, cells)

        def data() -> bytes:
            task = '{"t": [' + ",".join(["1"] * cells) + '], "m": 5}'
            return _text(doc, tasks=f"[{task}, {task}]")
    else:
        def data() -> bytes:
            trace = [[float(i), i % 8] for i in range(100_001)]
            return _text(doc, failures=json.dumps(trace))
    return Case(f"malleable-size-{kind}", _command(rng), {"m.json": data}, "refuse")


def _field_case(rng: random.Random) -> Case:
    doc = _base(rng)
    field = rng.choice([*FIELDS, "m", "f", "t", "p"])
    if field == "m":
        i = rng.randrange(len(doc["tasks"]))
        value = rng.choice(NEVER + ["0", "1e18", "1e15", "2.5"])
        ok = value in ("2.5",) or (value in ("1e15", "1e18") and "t" in doc["tasks"][i])
        task = json.dumps({k: v for k, v in doc["tasks"][i].items() if k != "m"})
        doc["tasks"][i] = "RAW"
        text = json.dumps(doc).replace('"RAW"', task[:-1] + f', "m": {value}}}')
        expect = "any" if ok else "refuse"
        return Case(f"malleable-field-m={value[:12]}", _command(rng), {"m.json": text.encode()},
                    expect)
    if field == "f" or field == "t":
        i = rng.randrange(len(doc["tasks"]))
        value = rng.choice(NEVER + ["0", "1e12", "1.5", "1e13"])
        bad = value not in ("0", "1e12") or (field == "f" and value == "1e12")
        if field == "t":
            doc["tasks"][i] = {"t": [1.0] * doc["p"], "m": 3.0}
            q = rng.randrange(doc["p"])
            row = json.dumps(doc["tasks"][i]["t"][:q])[:-1]
            row = (row + ", " if q else "[") + value + (
                ", " + json.dumps(doc["tasks"][i]["t"][q + 1:])[1:] if q + 1 < doc["p"] else "]")
            # a row of ones breaks (1.1) or (1.2) at the mutated entry, but t_1 = 1.5 keeps both
            bad = not (value == "1.5" and q == 0)
            task = f'{{"t": {row}, "m": 3.0}}'
        else:
            doc["tasks"][i] = {"m": 1000.0, "f": 0.1}
            task = f'{{"m": 1000.0, "f": {value}}}'
            bad = bad or value == "1.5"
        doc["tasks"][i] = "RAW"
        text = json.dumps(doc).replace('"RAW"', task)
        return Case(f"malleable-field-{field}={value[:12]}", _command(rng),
                    {"m.json": text.encode()}, "refuse" if bad else "any")
    if field == "p":
        n = len(doc["tasks"])
        doc = _synthetic(rng, n, 2 * n)
        value = rng.choice(NEVER + [str(2 * n - 1), "0", str(10**7), "7.5"])
        ok = value == str(10**7)
        return Case(f"malleable-field-p={value[:12]}", _command(rng),
                    {"m.json": _text(doc, p=value)}, "any" if ok else "refuse")
    good, bad = FIELDS[field]
    value = rng.choice(NEVER + good + bad)
    expect = "any" if value in good else "refuse"
    return Case(f"malleable-field-{field}={value[:12]}", _command(rng),
                {"m.json": _text(doc, **{field: value})}, expect)


def _rate_case(rng: random.Random) -> Case:
    """Failure rates a run cannot get through: lambda j tau = y on 2 processors (beta = 0:
    sqrt(2 lambda M) + lambda M = y), whose expected time (1.6) exceeds 10^18 s from y = 20 on
    (refused when built, T8), or many cheap periods (10^6 s of work, a tiny checkpoint, about
    10^6 / mtbf failures: no trace is drawn beyond 10^5, MA-19)."""
    if rng.random() < 0.5:
        y = rng.choice([2.0, 8.0, 20.0, 32.0, 100.0, 800.0])
        doc = _synthetic(rng, rng.randint(1, 3), 8)
        for task in doc["tasks"]:
            task["m"] = doc["tasks"][0]["m"]
        lam_m = (math.sqrt(2 + 4 * y) - math.sqrt(2)) ** 2 / 4
        doc["mtbf"] = doc["tasks"][0]["m"] / lam_m
        always, label = y >= 20, f"lambda-tau-{y:g}"
    else:
        mtbf = rng.choice([0.5, 2.0, 5.0])
        doc = {"family": "malleable", "format_version": 1, "p": 4, "mtbf": mtbf, "downtime": 1,
               "tasks": [{"m": 0.001, "t": [1e6, 5e5, 4e5, 3e5]}]}
        always, label = False, f"short-periods-{mtbf:g}"
    data = {"m.json": _text(doc)}
    if rng.random() < 0.3:  # a trace given is read to its end
        argv = _command(rng, ["--failures", "[[1.0, 0], [2.0, 3]]"], heuristic=rng.choice(FAULTY))
        return Case(f"malleable-rate-{label}-trace", argv, data, "refuse" if always else "any")
    h = rng.choice(FAULTY + ("solve",) + FAULT_FREE)
    argv = (["solve", "{d}/m.json", "--time-limit", "2"] if h == "solve"
            else _command(rng, heuristic=h))
    # runs that draw their trace are refused; the fault-free baselines draw none
    drawn = label.startswith("short") and h not in FAULT_FREE
    return Case(f"malleable-rate-{label}-{h}", argv, data,
                "refuse" if always or drawn else "any")


BAD_TRACES = ['{"t": 1}', '"[[1, 0]]"', "[[1]]", "[[1, 0, 2]]", "[[1, 99]]", "[[1, -1]]",
              "[[1, 1.5]]", "[[1, true]]", "[[-1, 0]]", "[[1e13, 0]]", f"[[{GIANT}, 0]]",
              "[[1, null]]", '[["x", 0]]', "[[1, 0], 5]", "[[1, 0]", "[[NaN, 0]]"]
GOOD_TRACES = ["[]", "[[0, 0]]", "[[3.5, 1], [1.0, 0]]", "[[1e12, 1]]", '[["1/3", 1]]']


def _trace_case(rng: random.Random) -> Case:
    doc = _base(rng)
    text = rng.choice(BAD_TRACES + GOOD_TRACES)
    expect = "refuse" if text in BAD_TRACES else "any"
    if rng.random() < 0.5:  # on the command line
        argv = _command(rng, ["--failures", text], heuristic=rng.choice(FAULTY + FAULT_FREE))
        files = {"m.json": _text(doc)}
    else:  # in the instance (a text that is not JSON breaks the file itself)
        argv = _command(rng)
        files = {"m.json": _text(doc, failures=text)}
    if text not in ("[]",) and rng.random() < 0.15:  # a trace on an instance without failures
        doc["mtbf"] = None
        files = {"m.json": _text(doc, failures=text)}
        argv = _command(rng)
        expect = "refuse"
    return Case(f"malleable-trace-{text[:20]}", argv, files, expect)


def _valid_case(rng: random.Random) -> Case:
    doc = _base(rng)
    extra = []
    if rng.random() < 0.4:
        param = rng.choice(["lookahead_pool=at_end", "lookahead_pool=any", "refill=true",
                            "end_mode=expected", "on_stuck=skip", "baseline=fresh"])
        extra = ["--param", param]
    h = rng.choice(FAULTY + FAULT_FREE)
    if rng.random() < 0.3:
        extra += ["--failures", rng.choice(GOOD_TRACES)]
    return Case("malleable-valid", _command(rng, extra, heuristic=h), {"m.json": _text(doc)})


def make_malleable_case(rng: random.Random) -> Case:
    """One fuzzed malleable command line (module doc)."""
    make = rng.choices([_size_case, _field_case, _rate_case, _trace_case, _valid_case],
                       weights=[2, 5, 2, 3, 2])[0]
    return make(rng)
