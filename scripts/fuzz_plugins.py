"""Fuzz cases of the references to user code (issue 22): malformed ``MODULE:FUNCTION`` values of
``simulate``/``gap``/``check --heuristic`` and of ``--priority``, each a one-line refusal (exit
status 2) naming the reference and the reason: not a reference, a module that does not import,
no such attribute, not callable, the wrong signature.

``make_plugins_case(rng)`` builds one `Case` of scripts/fuzz_cases.py; ``scripts/fuzz_cli.py``
runs them (the lead wires this area into ``make_cases``).
"""

from __future__ import annotations

import random
import string

from fuzz_cases import EXAMPLES, Case

#: module:function texts that name no usable heuristic and no usable priority key, by reason
BAD = {
    "syntax": [":f", "m:", "::", "a::b", "1m:f", "m:f-g", "m.:f", "m:f:g", " : ", "m :f",
               "m:.f", "m:f()"],
    "import": ["nosuch_{r}:run", "nosuch_{r}.sub:run", "os.nosuch_{r}:run"],
    "attribute": ["math:nosuch_{r}", "os.path:nosuch_{r}", "math:pi.real.nosuch_{r}"],
    "callable": ["math:pi", "math:e", "string:ascii_letters", "os:sep"],
    "signature": ["math:sin", "math:factorial", "math:isnan", "operator:not_"],
}
#: heuristics whose signature is not the heuristic's (they accept two positional arguments)
NOT_HEURISTICS = ["math:hypot", "operator:add", "os.path:join", "math:atan2"]


def _reference(rng: random.Random, kind: str) -> str:
    tag = "".join(rng.choice(string.ascii_lowercase) for _ in range(6))
    return rng.choice(BAD[kind]).replace("{r}", tag)


def make_plugins_case(rng: random.Random) -> Case:
    """One command line with a bad reference where a heuristic or a priority key is named."""
    kind = rng.choice(sorted(BAD))
    ref = _reference(rng, kind)
    rigid = str(EXAMPLES / "rigid-small.json")
    where = rng.choice(["simulate", "gap", "check", "library", "priority", "moldable"])
    if where in ("simulate", "gap", "check", "library") and kind == "signature" \
            and rng.random() < 0.5:
        ref = rng.choice(NOT_HEURISTICS)
    argv = {
        "simulate": ["simulate", rigid, "--heuristic", ref],
        "gap": ["gap", "--family", "rigid", "--heuristic", ref, "-q"],
        "check": ["check", "--family", "moldable", "--heuristic", "LPA-LIST", "--heuristic",
                  ref, "-q", "--json"],
        "library": ["gap", "--library", "rigid-small", "--heuristic", ref, "-q"],
        "priority": ["simulate", rigid, "--heuristic", rng.choice(["R-LIST-0", "R-SHELF-B"]),
                     "--priority", ref],
        "moldable": ["simulate", str(EXAMPLES / "moldable-small.json"), "--heuristic",
                     "BATCH-LIST", "--priority", ref, "--json"],
    }[where]
    return Case(f"plugins-{kind}-{where}", argv, {}, "refuse")
