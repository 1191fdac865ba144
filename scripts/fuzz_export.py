"""Fuzz cases of ``resilsched export --to batsim`` for scripts/fuzz_cli.py (issue 21, section 7).

Each case mutates one thing of an otherwise good export of the rigid example (which stores a
failure scenario) or of the fuzzer's small SWF trace: the ``--out`` path (a directory, a
missing folder, a file as folder, the input itself), ``--batsim-version``, ``--index``,
``--attempts`` on an instance without a scenario, the instance's ``submit_times`` and the
family. `expect` is ``refuse`` when the mutation is known to be invalid, ``any`` otherwise.
"""

from __future__ import annotations

import json
import random

from fuzz_cases import EXAMPLES, SWF, Case

#: submit_times values -> valid for the 4-job rigid example?
SUBMIT_TIMES = [([0, 10, 20, 30], True), ([5.5, 0, 1e6, 2], True), ([0, 1, 2], False),
                ([0, -1, 2, 3], False), ([0, "1", 2, 3], False), ("0,1,2,3", False),
                ([0, None, 2, 3], False), ([0, True, 2, 3], False), ([[0], 1, 2, 3], False),
                ([0, 1e308, 2, 3], False), ([0, 10**400, 2, 3], False), ([0, 1e12, 2, 3], True),
                ({}, False)]


def make_export_case(rng: random.Random) -> Case:
    """One seeded ``resilsched export`` command line with its files and expectation."""
    rigid = json.loads((EXAMPLES / "rigid-small.json").read_text())
    files = {"inst.json": json.dumps(rigid).encode()}
    argv = ["export", "{d}/inst.json", "--to", "batsim", "--out", "{d}/w.json"]
    expect = "any"
    kind = rng.choice(["out", "version", "index", "attempts", "submit", "swf", "family", "to",
                       "good"])
    if kind == "out":
        out, expect = rng.choice([("{d}", "refuse"), ("{d}/missing/w.json", "refuse"),
                                  ("{d}/inst.json", "refuse"), ("{d}/file/w.json", "refuse"),
                                  ("{d}/w.json", "any")])
        argv[-1] = out
        files["file"] = b"a file, not a folder"
    elif kind == "version":
        value = rng.choice(["3", "6", "x", "", "4.0", "-4", "4", "5"])
        argv += ["--batsim-version", value]
        expect = "any" if value in ("4", "5") else "refuse"
    elif kind == "index":
        value = rng.choice(["-1", "1", "x", str(10**30), "0"])
        argv += ["--index", value]
        expect = "any" if value == "0" else "refuse"
    elif kind == "attempts":
        if rng.random() < 0.5:
            rigid.pop("failures")
            files["inst.json"] = json.dumps(rigid).encode()
            expect = "refuse"
        argv.append("--attempts")
    elif kind == "submit":
        value, valid = rng.choice(SUBMIT_TIMES)
        files["inst.json"] = json.dumps({**rigid, "submit_times": value}).encode()
        argv += rng.choice([[], ["--release-at-zero"], ["--attempts"]])
        expect = "any" if valid else "refuse"
    elif kind == "swf":
        files = {"t.swf": SWF.encode()}
        argv[1] = "{d}/t.swf"
        extra = rng.choice([[], ["--index", "1"], ["--index", "2"], ["--attempts"],
                            ["--release-at-zero"], ["--batsim-version", "5"]])
        argv += extra
        expect = "refuse" if extra in (["--index", "2"], ["--attempts"]) else "any"
    elif kind == "family":
        name = rng.choice(["moldable", "coschedule", "worksharing", "malleable", "desktop"])
        files["inst.json"] = (EXAMPLES / f"{name}-small.json").read_bytes()
        expect = "refuse"
    elif kind == "to":
        argv[3] = rng.choice(["nope", "", "BATSIM", "swf"])
        expect = "refuse"
    if rng.random() < 0.3:
        argv.append("--json")
    return Case(f"export {kind}", argv, files, expect)
