"""Cases of the picture tests: one instance per family (the examples, plus a malleable one with
a failure trace and a desktop one with a disturbance), each heuristic and exact model drawn."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from resilsched.io import read_instances

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples"
LIBRARY = ROOT / "resilsched" / "library" / "data"


@dataclass(frozen=True)
class DrawCase:
    """An instance file with the heuristic and the exact model to draw on it."""

    label: str
    path: Path
    heuristic: str
    method: str

    def load(self) -> tuple[Any, Any, Any]:
        """(family, instance, its stored scenario)."""
        fam, insts = read_instances(self.path)
        inst = insts[0]
        return fam, inst, fam.scenario(inst, None) if fam.scenario else None


CASES = [
    DrawCase("rigid", EXAMPLES / "rigid-small.json", "R-LIST-1", "cpsat-scenario"),
    DrawCase("moldable", EXAMPLES / "moldable-small.json", "LPA-LIST", "cpsat-scenario"),
    DrawCase("coschedule", EXAMPLES / "coschedule-small.json", "PACK-APPROX", "setpart-cg"),
    DrawCase("worksharing", EXAMPLES / "worksharing-small.json", "greedy", "certified"),
    DrawCase("malleable", EXAMPLES / "malleable-small.json", "ENDGREEDY-SAF",
             "faultfree-optimal"),
    DrawCase("malleable-trace", LIBRARY / "malleable-small" / "library-1-0023.json",
             "ENDLOCAL-IG", "yardstick"),
    DrawCase("desktop", EXAMPLES / "desktop-small.json", "GreedySlack", "cpsat"),
    DrawCase("desktop-disturbed", LIBRARY / "desktop-small" / "library-1-0000.json", "DAslack",
             "milp"),
]


@pytest.fixture(params=CASES, ids=[c.label for c in CASES])
def case(request) -> DrawCase:
    return request.param
