"""Fuzz cases of ``resilsched plot`` for scripts/fuzz_cli.py (issue 24).

Each case draws the example instance of a family (written to the case's folder) with one thing
mutated: the ``--out`` or ``--csv`` path (a missing folder, a directory, the input, a file as
folder, an unknown suffix, a name too long for the file system, a folder that cannot be
written), the choice of sides (``--compare`` without both, both without ``--compare``,
neither, unknown names), a result with no schedule (the online family, ``online-optimal``:
expected makespans), or an option value (``--priority``, ``--param``, ``--failures``,
``--qbar``, ``--seed``, ``--index``, ``--time-limit``). `expect` is ``refuse`` when the
mutation is known to be invalid, ``any`` otherwise (a picture or a one-line refusal).

    make_plot_case(rng) -> Case;  make_plot_cases(count, seed) -> list of Case
"""

from __future__ import annotations

import random

from fuzz_cases import EXAMPLES, Case

#: family -> (heuristic, a fast exact model) drawn on its example
SIDES = {"rigid": ("R-LIST-0", "cpsat-scenario"), "moldable": ("LPA-LIST", "cpsat-scenario"),
         "coschedule": ("MAKE-PACK", "enumeration"), "worksharing": ("brute", "certified"),
         "malleable": ("FF-NOREDIST", "faultfree-optimal"), "desktop": ("GreedySlack", "cpsat")}

#: --out values -> known invalid? ({d} is the case's folder, holding inst.json and file)
OUTS = {"{d}/p.png": False, "{d}/p.svg": False, "{d}/p.pdf": False, "{d}/P.PNG": False,
        "{d}/p.jpg": True, "{d}/p": True, "{d}": True, "{d}/missing/p.png": True,
        "{d}/file/p.png": True, "{d}/inst.json": True, "{d}/" + "x" * 300 + ".png": True,
        "/proc/p.png": True, "": True, "{d}/.png": True}
#: --csv values -> known invalid?
CSVS = {"{d}/t.csv": False, "{d}/t.txt": True, "{d}/missing/t.csv": True, "{d}/p.png": True,
        "{d}/" + "y" * 300 + ".csv": True, "{d}/inst.json": True}
#: option, value -> known invalid? (for the rigid example and its heuristic)
OPTIONS = {("--priority", "LA"): False, ("--priority", "nope"): True,
           ("--param", "redraw_on_failure=true"): False, ("--param", "bogus=1"): True,
           ("--param", "x"): True, ("--failures", "0,0,0,0"): False, ("--failures", "1"): True,
           ("--failures", "9" * 50 + ",0,0,0"): True, ("--qbar", "0.5"): False,
           ("--qbar", "nan"): True, ("--qbar", "2"): True, ("--qbar", "-0"): False,
           ("--seed", "-1"): True, ("--seed", "1e3"): True, ("--seed", str(2**70)): True,
           ("--index", "1"): True, ("--index", "-3"): True, ("--time-limit", "inf"): True,
           ("--time-limit", "0"): True, ("--time-limit", "5"): False, ("--P", "4"): True}

#: (example, sides) whose results are expected makespans over a failure model (no schedule)
EXPECTATIONS = [("online", ["--heuristic", "R-LIST-0"]), ("online", ["--method", "online-optimal"]),
                ("rigid", ["--method", "online-optimal", "--qbar", "0.1"]),
                ("moldable", ["--method", "online-optimal", "--qbar", "0.2"]),
                ("rigid", ["--heuristic", "R-LIST-0", "--method", "online-optimal", "--compare",
                           "--qbar", "0.1"])]


def make_plot_case(rng: random.Random) -> Case:
    """One seeded ``resilsched plot`` command line with its files and expectation."""
    family = rng.choice(sorted(SIDES))
    heuristic, method = SIDES[family]
    files = {"inst.json": (EXAMPLES / f"{family}-small.json").read_bytes(),
             "file": b"a file, not a folder"}
    out, bad_out = "{d}/p.png", False
    sides = ["--heuristic", heuristic]
    extra: list[str] = []
    expect = "any"
    kind = rng.choice(["out", "csv", "sides", "option", "expectation", "good"])
    if kind == "out":
        out, bad_out = rng.choice(sorted(OUTS.items()))
        expect = "refuse" if bad_out else "any"
    elif kind == "csv":
        csv, bad = rng.choice(sorted(CSVS.items()))
        extra += ["--csv", csv]
        expect = "refuse" if bad else "any"
    elif kind == "sides":
        sides, expect = rng.choice([
            (["--heuristic", heuristic, "--compare"], "refuse"),
            (["--method", method, "--compare"], "refuse"),
            (["--heuristic", heuristic, "--method", method], "refuse"),
            ([], "refuse"),
            (["--heuristic", "NO-SUCH"], "refuse"),
            (["--method", "no-such"], "refuse"),
            (["--priority", "LPT"], "refuse"),
            (["--heuristic", heuristic, "--method", method, "--compare", "--time-limit", "20"],
             "any"),
            (["--method", method, "--time-limit", "20"], "any"),
        ])
    elif kind == "option":
        family, (heuristic, _) = "rigid", SIDES["rigid"]
        files["inst.json"] = (EXAMPLES / "rigid-small.json").read_bytes()
        sides = ["--heuristic", heuristic]
        (option, value), bad = rng.choice(sorted(OPTIONS.items()))
        extra += [option, value]
        expect = "refuse" if bad else "any"
    elif kind == "expectation":  # expected makespans, no schedule: always refused
        family, sides = rng.choice(EXPECTATIONS)
        files["inst.json"] = (EXAMPLES / f"{family}-small.json").read_bytes()
        expect = "refuse"
    argv = ["plot", "{d}/inst.json", *sides, "--out", out, *extra, "-q"]
    if rng.random() < 0.3:
        argv.append("--json")
    return Case(f"plot {kind} {family}", argv, files, expect)


def make_plot_cases(count: int, seed: int) -> list[Case]:
    """`count` cases from one seed."""
    rng = random.Random(seed)
    return [make_plot_case(rng) for _ in range(count)]
