"""Heuristics for malleable applications under failures (spec 001 §3): the initial allocation,
the event-driven simulator, ENDLOCAL/ENDGREEDY x SAF/IG and the baselines."""

from resilsched.heuristics.malleable.run import (
    HEURISTICS,
    RunPayload,
    endgreedy_ig,
    endgreedy_saf,
    endlocal_ig,
    endlocal_saf,
    ff_endgreedy,
    ff_endlocal,
    ff_noredist,
    noredist,
)

__all__ = [
    "HEURISTICS",
    "RunPayload",
    "endgreedy_ig",
    "endgreedy_saf",
    "endlocal_ig",
    "endlocal_saf",
    "ff_endgreedy",
    "ff_endlocal",
    "ff_noredist",
    "noredist",
]
