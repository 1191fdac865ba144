"""Fuzz cases of the online optimum for scripts/fuzz_cli.py (issue 26).

Each case mutates one thing of an otherwise good command on the online family's example (an
instance that stores its failure model) or on the rigid example solved with ``--method
online-optimal``: a job's ``q`` (out of range, not a number, a fraction string, missing, given
with ``qbar``), the top-level ``qbar``, a stored scenario, ``--qbar`` / ``--failures`` /
``--param qbar=`` / ``--param max_states=`` on the command line, an instance too large for
the decision process. `expect` is ``refuse`` when the mutation is known to be invalid, ``any``
otherwise.
"""

from __future__ import annotations

import json
import random

from fuzz_cases import EXAMPLES, Case

#: a job's q -> valid?
Q_VALUES = [(0.2, True), (0, True), ("1/3", True), ("0.05", True), (1, False), (1.0, False),
            (-0.1, False), ("x", False), ("1/0", False), (True, False), (None, False),
            ([0.1], False), ({}, False), (10**400, False), ("1e-30", True), (0.999, True),
            ("inf", False), ("nan", False)]
#: top-level qbar (jobs without q) -> valid?
QBARS = [(0.1, True), (0, True), (0.5, True), (1, False), (-0.5, False), ("0.1", False),
         (None, False), (True, False), (1e308, False)]


def make_online_case(rng: random.Random) -> Case:
    """One seeded command line of the online optimum with its files and expectation."""
    online = json.loads((EXAMPLES / "online-small.json").read_text())
    rigid = json.loads((EXAMPLES / "rigid-small.json").read_text())
    rigid.pop("failures", None)
    doc, expect = online, "any"
    kind = rng.choice(["q", "qbar", "failures", "cli-online", "cli-rigid", "big", "heuristic",
                       "good"])
    argv = ["solve", "{d}/inst.json", "--time-limit", "5"]
    if kind == "q":
        value, valid = rng.choice(Q_VALUES)
        job = rng.randrange(len(online["jobs"]))
        if rng.random() < 0.15:
            del online["jobs"][job]["q"]
            valid = False
        else:
            online["jobs"][job]["q"] = value
        expect = "any" if valid else "refuse"
    elif kind == "qbar":
        value, valid = rng.choice(QBARS)
        for j in online["jobs"]:
            if rng.random() < 0.9:
                del j["q"]
        online["qbar"] = value
        expect = "any" if valid and all("q" not in j for j in online["jobs"]) else "refuse"
    elif kind == "failures":
        online["failures"] = rng.choice([[0, 0, 0, 0], [1, 0, 0, 0], []])
        expect = "refuse"
    elif kind == "cli-online":
        extra, expect = rng.choice([(["--qbar", "0.1"], "refuse"), (["--failures", "0,0,0,0"],
                                    "refuse"), (["--param", "qbar=0.1"], "refuse"),
                                    (["--param", "max_states=0"], "refuse"),
                                    # the model refuses the size; solve's portfolio then
                                    # answers from the heuristics (decision T19)
                                    (["--param", "max_states=10"], "any"),
                                    (["--param", "max_states=1000"], "any"),
                                    (["--param", "nope=1"], "refuse")])
        argv += extra
    elif kind == "cli-rigid":
        doc = rigid
        argv += ["--method", "online-optimal"]
        extra, expect = rng.choice([(["--qbar", "0.2"], "any"), ([], "refuse"),
                                    (["--qbar", "1"], "refuse"), (["--qbar", "-0.1"], "refuse"),
                                    (["--qbar", "0.2", "--failures", "0,0,0,0"], "refuse"),
                                    (["--qbar", "0.2", "--param", "qbar=0.2"], "refuse"),
                                    (["--param", "qbar=0.3"], "any"),
                                    (["--param", "qbar=1.5"], "refuse")])
        argv += extra
    elif kind == "big":
        doc = rigid
        doc["P"] = rng.choice([30, 64, 10**6])
        doc["jobs"] = [{"p": 1, "t": rng.choice([5, 1000, 10**9])}] * rng.choice([30, 200])
        argv += ["--method", "online-optimal", "--qbar", "0.1"]
        expect = "refuse"
    elif kind == "heuristic":
        argv = ["simulate", "{d}/inst.json", "--heuristic",
                rng.choice(["R-LIST-0", "R-LIST-Q", "R-SHELFFILL-NB", "nope"]),
                "--priority", rng.choice(["LPT", "random", "LJF", "XX"])]
        expect = "refuse" if "nope" in argv or "XX" in argv else "any"
    if rng.random() < 0.3:
        argv.append("--json")
    argv.append("-q")
    return Case(f"online {kind}", argv, {"inst.json": json.dumps(doc).encode()}, expect)
