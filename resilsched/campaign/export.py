"""Flat tables of a campaign's rows: CSV always, Parquet when pyarrow is installed.

docs/campaigns.md, "Exporting the store". One line per stored task: the task's fields (its
``params`` spread over ``param.<name>`` columns), its result, and the store's ``seconds`` (wall
time in the worker) and ``finished`` (UTC) columns. Known columns come first in a fixed order,
then any other in alphabetical order, so two exports of the same store are identical.

The store is opened read-only (`ResultStore` with ``readonly=True``). Rows are read strictly
(`checked_rows`): a row whose fields or result are not valid JSON, hold NaN or infinities, or
whose fields are not an object is left out and named (`LeftOut`), never written. Output files
are written beside their path and renamed when complete (`output`), so a failed write (a full
disk, a directory in the way) leaves no half-written file and is one `PathError` line.
"""

from __future__ import annotations

import contextlib
import csv
import json
import math
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any, NamedTuple

from resilsched.campaign.errors import PathError
from resilsched.campaign.store import CampaignError, ResultStore

#: the first columns of an export, in this order (when present)
COLUMNS = ("campaign", "family", "instance", "instance_sha", "algorithm", "kind", "priority",
           "qbar", "scenario", "scenario_seed", "time_limit", "workers", "objective",
           "objective_exact", "reference_bound", "reference_bound_exact", "ratio", "failures",
           "status", "reason", "solver_bound", "solver_bound_exact", "seconds", "finished", "key")

#: a stored row: (key, fields, result, seconds, finished)
Row = tuple[str, dict, Any, float | None, str]


class LeftOut(NamedTuple):
    """A stored row that was not used: its key and why."""

    key: str
    reason: str

    def describe(self) -> str:
        return f"key {self.key[:12]}: {self.reason}"


def open_store(path: str | Path) -> ResultStore:
    """An existing store, read-only (`StoreError` in one line if the file is missing, empty,
    not a result store, or cannot be read; the file is left as it was)."""
    return ResultStore(path, readonly=True)


def pick_campaign(store: ResultStore, name: str | None) -> str:
    """`name`, or the store's only campaign; `CampaignError` listing the campaigns otherwise."""
    names = store.campaigns()
    if name is not None:
        if name not in names:
            raise CampaignError(f"--campaign={name!r} is not in {store.path} (choose from "
                                f"{', '.join(names) or 'none'})")
        return name
    if len(names) != 1:
        raise CampaignError(f"{store.path} holds {len(names)} campaigns; choose one with "
                            f"--campaign ({', '.join(names) or 'none'})")
    return names[0]


class _Refused(ValueError):
    """A value JSON cannot carry (NaN, an infinity, a number beyond a float)."""


def _constant(name: str) -> Any:
    raise _Refused(f"holds {name}, not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Refused(f"holds the number {text[:20]}, beyond a float")
    return value


def strict_json(text: Any, what: str) -> Any:
    """The JSON value of a stored text; `ValueError` naming `what` and the problem otherwise."""
    if not isinstance(text, str):
        raise ValueError(f"{what} is not text ({type(text).__name__})")
    try:
        return json.loads(text, parse_constant=_constant, parse_float=_finite)
    except _Refused as exc:
        raise ValueError(f"{what} {exc}") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"{what} is not valid JSON ({exc.msg} at offset {exc.pos})") from None
    except (ValueError, RecursionError) as exc:  # a 5000-digit integer, nesting too deep
        raise ValueError(f"{what} is not usable JSON ({' '.join(str(exc).split())[:80]})") \
            from None


def checked_rows(store: ResultStore, campaign: str) -> tuple[list[Row], list[LeftOut]]:
    """The rows of `campaign` whose fields and result are strict JSON (fields an object), in
    insertion order, and the rows left out."""
    rows, left = [], []
    for key, fields_text, result_text, seconds, finished in store.texts(campaign):
        try:
            fields, result = parse_row(fields_text, result_text)
        except ValueError as exc:
            left.append(LeftOut(str(key), str(exc)))
            continue
        rows.append((key, fields, result, seconds, finished))
    return rows, left


def parse_row(fields_text: Any, result_text: Any) -> tuple[dict, Any]:
    """(fields, result) of a stored row, read strictly (`strict_json`; fields an object);
    `ValueError` saying what is wrong otherwise."""
    fields = strict_json(fields_text, "fields")
    if not isinstance(fields, dict):
        raise ValueError("fields is not a JSON object")
    return fields, strict_json(result_text, "result")


def left_out_line(left: list[LeftOut], shown: int = 3) -> str:
    """One line naming the rows left out (the first `shown` of them)."""
    names = "; ".join(x.describe() for x in left[:shown])
    more = f"; and {len(left) - shown} more" if len(left) > shown else ""
    return f"{len(left)} stored row(s) left out, not valid JSON or holding NaN/infinities " \
           f"({names}{more})"


def flat_rows(campaign: str, rows: Iterable[Row]) -> list[dict[str, Any]]:
    """`rows` of `campaign` as flat dicts (see the module doc), in the given order."""
    out = []
    for key, fields, result, seconds, finished in rows:
        row: dict[str, Any] = {"campaign": campaign}
        for name, value in fields.items():
            if name == "params" and isinstance(value, dict):
                row.update({f"param.{p}": v for p, v in value.items()})
            else:
                row[name] = value
        if isinstance(result, dict):
            row.update({k: json.dumps(v) if isinstance(v, (dict, list)) else v
                        for k, v in result.items()})
        else:
            row["result"] = json.dumps(result)
        row.update(seconds=seconds, finished=finished, key=key)
        out.append(row)
    return out


def columns(rows: Iterable[dict[str, Any]]) -> list[str]:
    """The known `COLUMNS` present, then every other column alphabetically."""
    seen: set[str] = set()
    for row in rows:
        seen.update(row)
    return [c for c in COLUMNS if c in seen] + sorted(seen - set(COLUMNS))


def check_output(path: str | Path, what: str) -> Path:
    """`path` as an output file named `what` (``--csv rows.csv``): `PathError` now, before any
    work, if it is a directory or its folder is a file."""
    p = Path(path)
    if p.is_dir():
        raise PathError(what, "is a directory, not a file")
    for parent in p.parents:
        if parent.exists():
            if not parent.is_dir():
                raise PathError(what, f"cannot be written: {parent} is a file, not a folder")
            break
    return p


@contextlib.contextmanager
def output(path: str | Path, what: str, mode: str = "w") -> Iterator[IO[Any]]:
    """The file to write at `path` (named `what` in errors). A regular file (or a new one) is
    written to a temporary file beside it and renamed when complete; anything else (a device,
    a pipe) is written in place. Any OSError is a one-line `PathError`."""
    p = check_output(path, what)
    tmp = None
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        if p.exists() and not p.is_file():
            with open(p, mode, newline="" if "b" not in mode else None) as f:
                yield f
            return
        fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", dir=p.parent)
        os.fchmod(fd, 0o666 & ~_umask())  # as open() would make it, not mkstemp's 0600
        with os.fdopen(fd, mode, newline="" if "b" not in mode else None) as f:
            yield f
        os.replace(tmp, p)
        tmp = None
    except OSError as exc:
        raise PathError(what, f"cannot be written ({exc.strerror or exc})") from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_csv(rows: list[dict[str, Any]], path: str | Path, what: str | None = None) -> None:
    """The rows as CSV (empty cells for missing values)."""
    with output(path, what or str(path)) as f:
        writer = csv.DictWriter(f, fieldnames=columns(rows), restval="")
        writer.writeheader()
        writer.writerows(rows)


def write_parquet(rows: list[dict[str, Any]], path: str | Path, what: str | None = None) -> None:
    """The rows as Parquet; `CampaignError` in one line when pyarrow is not installed."""
    pa, pq = require_pyarrow()
    cols = columns(rows)
    table = pa.Table.from_pylist([{c: row.get(c) for c in cols} for row in rows])
    with output(path, what or str(path), "wb") as f:
        pq.write_table(table, f)


def require_pyarrow() -> tuple[Any, Any]:
    """(pyarrow, pyarrow.parquet); `CampaignError` in one line when pyarrow is missing."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise CampaignError("--parquet needs pyarrow, which is not installed: "
                            "pip install pyarrow (or export --csv)") from None
    return pa, pq
