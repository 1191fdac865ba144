"""The segment table: every rectangle (and marker) a picture draws, one row each (docs/plots.md).

Both the drawing (`resilsched.plot.draw`) and ``resilsched plot --csv`` read this table, so the
CSV is exactly what is drawn. A row is a rectangle ``[start, end) x [y, y + height)`` in the
axes' data coordinates, with what it shows:

- ``schedule``: ``heuristic`` or ``exact`` (the two panels of ``--compare``);
- ``item`` and ``id``: what the segment belongs to (``job``, ``task``, ``chunk``,
  ``application`` or ``machine``) and its index, from 0 (a chunk's id is its number on its
  worker, from 1);
- ``attempt``: the attempt of a job (rigid, moldable: 1..f_j + 1; desktop: 1 + the restarts
  after an unavailability cut it), the phase of an application (malleable, from 1), else 1;
- ``group``: the pack (co-scheduling, from 1) or the availability interval k (desktop, from
  1); empty elsewhere;
- ``kind``: one of `KINDS`; ``failed`` is true for the work a failure lost (``failed`` and
  ``failure`` rows);
- ``start``, ``end``: times in the family's unit (seconds; work units for worksharing); a
  ``failure`` row is an instant (start = end), drawn as a marker;
- ``lane``: the processor of the rectangle's first row (rigid, moldable, co-scheduling), the
  worker, the application or the machine; ``processors``: the processors the segment holds
  (1 for a worker's chunk or a desktop machine);
- ``y``, ``height``: the rectangle's vertical extent as drawn; ``layer``: ``plan`` or ``run``
  for the two rows of a desktop machine, empty elsewhere.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

#: the kinds of segment, in legend order
KINDS = ("compute", "failed", "checkpoint", "downtime", "recovery", "redistribution",
         "overhead", "unavailable", "slack", "failure")

#: the columns of the table (and of ``--csv``), in order
COLUMNS = ("schedule", "item", "id", "attempt", "group", "kind", "failed", "start", "end",
           "lane", "processors", "y", "height", "layer")

_TEXT = ("schedule", "item", "kind", "layer")
_INT = ("id", "attempt", "group", "lane", "processors")
_FLOAT = ("start", "end", "y", "height")


@dataclass
class SegmentTable:
    """Rows appended one by one (`add`), read as numpy columns (`column`) once `freeze` ran."""

    schedule: str = "heuristic"
    _rows: list[tuple] = field(default_factory=list)
    _cols: dict[str, np.ndarray] | None = None

    def add(self, item: str, id: int, kind: str, start: Any, end: Any, lane: int, y: float,
            height: float, *, attempt: int = 1, group: int | None = None,
            processors: int = 1, layer: str = "") -> None:
        """Append one segment (times may be ints, Fractions or floats: stored as floats)."""
        if kind not in KINDS:
            raise ValueError(f"unknown segment kind {kind!r}")
        self._rows.append((self.schedule, item, int(id), int(attempt),
                           -1 if group is None else int(group), kind,
                           kind in ("failed", "failure"), float(start), float(end), int(lane),
                           int(processors), float(y), float(height), layer))
        self._cols = None

    def extend(self, other: SegmentTable) -> None:
        """Append the rows of `other` (their ``schedule`` kept)."""
        self._rows.extend(other._rows)
        self._cols = None

    def __len__(self) -> int:
        return len(self._rows)

    def column(self, name: str) -> np.ndarray:
        """One column as a numpy array (strings as object arrays)."""
        if self._cols is None:
            self._cols = _columns(self._rows)
        return self._cols[name]

    def where(self, **equal: Any) -> np.ndarray:
        """Boolean mask of the rows whose columns equal the given values."""
        mask = np.ones(len(self), dtype=bool)
        for name, value in equal.items():
            mask &= self.column(name) == value
        return mask

    def rows(self) -> Iterable[dict[str, Any]]:
        """The rows as dicts (numbers as numbers, an empty group as None)."""
        for r in self._rows:
            d = dict(zip(COLUMNS, r, strict=True))
            d["group"] = None if d["group"] < 0 else d["group"]
            yield d

    def write_csv(self, path: str | Path) -> None:
        """The table as CSV: a header of `COLUMNS`, then one line per segment; numbers are
        written as numbers (floats with ``repr``, every digit kept), booleans as true/false,
        an empty group as an empty field."""
        with open(path, "w", newline="") as f:
            f.write(",".join(COLUMNS) + "\n")
            f.writelines(_line(r) for r in self._rows)


def _columns(rows: Sequence[tuple]) -> dict[str, np.ndarray]:
    out: dict[str, np.ndarray] = {}
    for k, name in enumerate(COLUMNS):
        values = [r[k] for r in rows]
        if name in _TEXT:
            out[name] = np.array(values, dtype=object)
        elif name == "failed":
            out[name] = np.array(values, dtype=bool)
        elif name in _INT:
            out[name] = np.array(values, dtype=np.int64)
        else:
            out[name] = np.array(values, dtype=np.float64)
    return out


def _line(r: tuple) -> str:
    """One CSV line (the text fields hold no comma or quote: they are names of this module)."""
    sched, item, id_, attempt, group, kind, failed, start, end, lane, procs, y, h, layer = r
    return (f"{sched},{item},{id_},{attempt},{'' if group < 0 else group},{kind},"
            f"{'true' if failed else 'false'},{_num(start)},{_num(end)},{lane},{procs},"
            f"{_num(y)},{_num(h)},{layer}\n")


def _num(x: float) -> str:
    return repr(x) if math.isfinite(x) else ""


def read_csv(path: str | Path) -> list[dict[str, Any]]:
    """The rows of a ``--csv`` file back as dicts with typed values (the tests' reader)."""
    out = []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            d: dict[str, Any] = {}
            for name in COLUMNS:
                text = row[name]
                if name in _TEXT:
                    d[name] = text
                elif name == "failed":
                    d[name] = text == "true"
                elif name == "group":
                    d[name] = None if text == "" else int(text)
                elif name in _INT:
                    d[name] = int(text)
                else:
                    d[name] = float(text)
            out.append(d)
    return out
