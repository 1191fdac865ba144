"""What the seeded fuzz slices of the suite share: loading the fuzzer's scripts (they are not a
package) and the checks every slice makes of its outcomes."""

from __future__ import annotations

import importlib.util
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


def load(name: str) -> ModuleType:
    """The module ``scripts/<name>.py``, registered under `name` (the area modules import
    ``fuzz_cases`` beside them, so the folder is put on ``sys.path`` too)."""
    if str(SCRIPTS) not in sys.path:
        sys.path.insert(0, str(SCRIPTS))
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def checked(fuzz: ModuleType, outcomes: list[Any]) -> Counter:
    """The outcomes' kinds, after checking that none is bad (a traceback, a hang, an accepted
    invalid input, ...) and that every refusal is one line on standard error, exit status 2,
    nothing on standard output."""
    bad = [f"{o.kind}: {o.case.label}: {' '.join(o.case.argv)[:200]} -> {o.err.strip()[-300:]}"
           for o in outcomes if o.kind in fuzz.BAD]
    assert not bad, "\n".join(bad[:20])
    for o in outcomes:
        if o.kind == "refusal":
            assert o.code == 2 and o.out == "" and o.err.count("\n") == 1
    return Counter(o.kind for o in outcomes)
