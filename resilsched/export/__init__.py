"""Instances in other tools' formats (docs/interop.md).

Exporters are registered per format and family in `EXPORTERS`; each takes the instance and
keyword options and returns an `Exported` (the JSON object to write, the notes for the user
and a summary). Today: rigid instances as Batsim workloads (`resilsched.export.batsim`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from resilsched.errors import InvalidInstance
from resilsched.export.batsim import Exported, rigid_to_batsim

__all__ = ["EXPORTERS", "Exported", "export", "rigid_to_batsim"]

#: format -> family -> exporter(instance, **options) -> Exported
EXPORTERS: dict[str, dict[str, Callable[..., Exported]]] = {
    "batsim": {"rigid": rigid_to_batsim},
}


def export(family: Any, instance: Any, fmt: str, **options: Any) -> Exported:
    """`instance` (of `family`) in format `fmt`; `InvalidInstance` when there is no exporter."""
    table = EXPORTERS.get(fmt)
    if table is None:
        raise InvalidInstance("--to", f"{fmt!r} is unknown (choose from {', '.join(EXPORTERS)})")
    fn = table.get(family.name)
    if fn is None:
        raise InvalidInstance("--to", f"{fmt} exports {', '.join(table)} instances, not "
                                      f"{family.name}")
    return fn(instance, **options)
