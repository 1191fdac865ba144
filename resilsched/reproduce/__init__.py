"""Paper reproductions, run by ``resilsched reproduce FAMILY [OPTIONS...]``.

One module per family (`rigid`: spec 002 Figs. 4-6 and Table 1; `moldable`: spec 000 Table 1
and the sweeps; `worksharing`: spec 003 Table 4, E1-E6 and the synthetic traces), each with
``main(argv, prog) -> int`` (exit status 0, 2 on bad input or a campaign mismatch, 130 on Ctrl-C)
that parses its own options, runs its simulations as resumable campaigns
(`resilsched.campaign`), writes CSV files (and PNG plots for rigid; matplotlib is imported only
there, optional extra ``resilsched[plot]``) into its ``--out`` folder and prints a summary beside
the paper's numbers. `REPRODUCTIONS` maps a family to its module, imported only when asked for;
``scripts/reproduce_<family>.py`` are thin wrappers of these modules.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from resilsched.registry import UnknownName

#: family -> module holding its ``main(argv, prog) -> int`` (imported lazily by `load`)
REPRODUCTIONS: dict[str, str] = {
    "rigid": "resilsched.reproduce.rigid",
    "moldable": "resilsched.reproduce.moldable",
    "worksharing": "resilsched.reproduce.worksharing",
}


def load(family: str) -> ModuleType:
    """The reproduction module of `family` (case-insensitive), imported on first use.

    Raises `UnknownName` (one line naming the field and the allowed values) for another name.
    """
    name = family.lower()
    if name not in REPRODUCTIONS:
        raise UnknownName(
            f"family={family!r} is unknown (choose from {', '.join(REPRODUCTIONS)})"
        )
    return importlib.import_module(REPRODUCTIONS[name])
