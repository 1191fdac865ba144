"""The grids of the malleable reproduction (spec 001 §4 [REC]) and the instance of one
repetition, shared by the figures (`malleable`) and the checks (`malleable_checks`)."""

from __future__ import annotations

from typing import Any

import numpy as np

YEARS = (5, 10, 15, 25, 50, 75, 100, 125)
FAULTY = ("ENDLOCAL-SAF", "ENDLOCAL-IG", "ENDGREEDY-SAF", "ENDGREEDY-IG")
BASELINES = ("FF-ENDLOCAL", "FF-ENDGREEDY")
#: figure -> (swept parameter, values, fixed settings, methods, reference)
FIGURES: dict[str, tuple] = {
    "1.4": ("p", tuple(range(2000, 10001, 1000)), {"n": 1000},
            ("FF-ENDLOCAL", "FF-ENDGREEDY"), "FF-NOREDIST"),
    "1.5": ("n", tuple(range(100, 1001, 100)), {"p": 5000}, FAULTY + BASELINES, "NOREDIST"),
    "1.6": ("mtbf_years", YEARS, {"n": 100, "p": 5000}, FAULTY + BASELINES, "NOREDIST"),
    "1.7": ("c", (0.01, 0.1, 0.25, 0.5, 1.0, 2.0), {"n": 100, "p": 1000},
            FAULTY + BASELINES, "NOREDIST"),
    "f": ("f", (0.0, 0.02, 0.04, 0.08, 0.16), {"n": 100, "p": 1000},
          FAULTY + BASELINES, "NOREDIST"),
}


def settings(fig: str, x: Any, scale: int) -> dict[str, Any]:
    """The instance parameters of one point of a figure (n and p divided by `scale`)."""
    name, _, fixed, _, _ = FIGURES[fig]
    s = {"n": 100, "p": 5000, "mtbf_years": 100.0, "c": 1.0, "f": 0.08, **fixed, name: x}
    s["n"] = max(1, int(s["n"]) // scale)
    s["p"] = max(2 * s["n"], int(s["p"]) // scale)
    return s


def point_instance(s: dict[str, Any], seed: list[int]):
    """The instance of one repetition and the seed of its failure trace."""
    from resilsched.instances.malleable import paper_instance

    inst_seed, trace_seed = np.random.SeedSequence(seed).spawn(2)
    inst = paper_instance(np.random.default_rng(inst_seed), s["n"], s["p"],
                          mtbf_years=s["mtbf_years"], c=s["c"], f=s["f"])
    return inst, int(trace_seed.generate_state(1)[0])
