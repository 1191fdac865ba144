"""Flat tables of a campaign's rows: CSV always, Parquet when pyarrow is installed.

docs/campaigns.md, "Exporting the store". One line per stored task: the task's fields (its
``params`` spread over ``param.<name>`` columns), its result, and the store's ``seconds`` (wall
time in the worker) and ``finished`` (UTC) columns. Known columns come first in a fixed order,
then any other in alphabetical order, so two exports of the same store are identical.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from resilsched.campaign.store import CampaignError, ResultStore

#: the first columns of an export, in this order (when present)
COLUMNS = ("campaign", "family", "instance", "instance_sha", "algorithm", "kind", "priority",
           "qbar", "scenario", "scenario_seed", "time_limit", "workers", "objective",
           "objective_exact", "reference_bound", "reference_bound_exact", "ratio", "failures",
           "status", "solver_bound", "solver_bound_exact", "seconds", "finished", "key")


def open_store(path: str | Path) -> ResultStore:
    """An existing store (`CampaignError` if there is no such file: nothing is created)."""
    if not Path(path).is_file():
        raise CampaignError(f"{path}: no such store (run `resilsched campaign run` first)")
    return ResultStore(path)


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


def flat_rows(store: ResultStore, campaign: str,
              rows: Iterable[tuple[str, dict, Any, float | None, str]] | None = None
              ) -> list[dict[str, Any]]:
    """The rows of `campaign` (or the given `store.rows` tuples) as flat dicts (see the module
    doc), in insertion order."""
    out = []
    for key, fields, result, seconds, finished in rows if rows is not None \
            else store.rows(campaign):
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


def write_csv(rows: list[dict[str, Any]], path: str | Path) -> None:
    """The rows as CSV (empty cells for missing values)."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns(rows), restval="")
        writer.writeheader()
        writer.writerows(rows)


def write_parquet(rows: list[dict[str, Any]], path: str | Path) -> None:
    """The rows as Parquet; `CampaignError` in one line when pyarrow is not installed."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise CampaignError("--parquet needs pyarrow, which is not installed: "
                            "pip install pyarrow (or export --csv)") from None
    cols = columns(rows)
    table = pa.Table.from_pylist([{c: row.get(c) for c in cols} for row in rows])
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, str(path))
