"""Merge the result stores of one campaign into one (``resilsched campaign merge``).

docs/campaigns.md, "A SLURM job array": each shard of a job array (``campaign run SPEC --shard
I/N --store shard-I.sqlite``) fills its own store; `merge_stores` copies their rows into one
store, which ``report`` and ``campaign export`` then read like any other.

- The inputs are opened read-only (``ResultStore(path, readonly=True)``, as ``campaign
  export`` does) and never written; the output may not be one of them.
- Every input must hold the campaign with the same configuration (that of the spec when one is
  given, else that of the first input), and so must the output if it holds it already: stores
  of another spec are refused before anything is written (one line, exit status 2).
- Rows are copied as stored (fields, result, the worker's seconds, the finish time), checked
  first: a row whose fields or result are not strict JSON, whose key is not the key of its
  fields, or, with a spec, that is no task of the spec, is left out and named. A task stored in
  several inputs (a shard run twice, overlapping stores) is kept once, the first seen (the
  output's own rows first, then the inputs in the order given); a duplicate whose result
  differs is counted as a conflict and named in a warning.
- The ``runs`` rows (executors and package versions) of every input are copied, once each, so
  the merged store still says what computed it.
- With the spec, the tasks no store holds are counted, per shard when the inputs' runs name
  their shards (``... , shard I/N``), so the shards to rerun are known.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from resilsched.campaign.claims import live_runs
from resilsched.campaign.engine import bulk
from resilsched.campaign.errors import PathError
from resilsched.campaign.experiment import ExperimentSpec
from resilsched.campaign.export import LeftOut, parse_row, strict_json
from resilsched.campaign.plan import plan, shard_of
from resilsched.campaign.spec import CampaignSpec
from resilsched.campaign.store import (
    CampaignError,
    ResultStore,
    StoreError,
    canonical_json,
    config_diff,
    task_key,
)
from resilsched.progress import progress_bar

__all__ = ["MergeResult", "StoreMerge", "merge_stores"]

#: rows copied per transaction
BATCH = 5000
#: ``runs.executor`` of a shard's run: ``"2 processes, shard 3/4"``
_SHARD = re.compile(r", shard (\d+)/(\d+)$")


@dataclass
class StoreMerge:
    """What one input store gave: its rows, how many were new, duplicates (same result) and
    conflicts (another result) of rows already merged, and the rows left out."""

    store: str
    rows: int = 0
    added: int = 0
    duplicates: int = 0
    conflicts: list[str] = field(default_factory=list)
    left_out: list[LeftOut] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"store": self.store, "rows": self.rows, "added": self.added,
                "duplicates": self.duplicates, "conflicts": self.conflicts,
                "left_out": [x.describe() for x in self.left_out]}


@dataclass
class MergeResult:
    """The outcome of `merge_stores`. `tasks`, `missing` and `missing_by_shard` are set only
    when a spec was given (`missing_by_shard`: ``"I/N" -> count`` when the inputs' runs name
    one shard count N)."""

    campaign: str
    store: str
    inputs: list[StoreMerge]
    stored: int = 0
    tasks: int | None = None
    missing: int | None = None
    missing_by_shard: dict[str, int] = field(default_factory=dict)
    missing_examples: list[dict[str, Any]] = field(default_factory=list)
    still_running: list[str] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        """Every task of the spec is stored (True without a spec: nothing to check against)."""
        return not self.missing

    def to_dict(self) -> dict[str, Any]:
        total = {k: sum(getattr(m, k) for m in self.inputs)
                 for k in ("rows", "added", "duplicates")}
        return {"campaign": self.campaign, "store": self.store, "stored": self.stored,
                **total, "conflicts": sum(len(m.conflicts) for m in self.inputs),
                "left_out": sum(len(m.left_out) for m in self.inputs),
                "tasks": self.tasks, "missing": self.missing,
                "missing_by_shard": self.missing_by_shard, "complete": self.complete,
                "still_running": self.still_running,
                "inputs": [m.to_dict() for m in self.inputs]}


def merge_stores(inputs: Sequence[str | os.PathLike[str]], output: str | os.PathLike[str], *,
                 campaign: str | None = None, spec: CampaignSpec | ExperimentSpec | None = None,
                 progress: bool = True) -> MergeResult:
    """Copy the rows of campaign `campaign` from the `inputs` stores into `output` (created if
    missing); see the module doc.

    Raises
    ------
    PathError : `output` is one of the inputs.
    StoreError : an input is not a readable result store, or the output cannot be written.
    CampaignError : the campaign cannot be chosen, an input lacks it, or an input or the output
        holds it with another configuration (nothing is written then).
    """
    _check_output(inputs, output)
    with contextlib.ExitStack() as stack:
        stores = [stack.enter_context(ResultStore(p, readonly=True)) for p in inputs]
        name = _campaign(stores, campaign, spec)
        config = spec.config() if spec is not None else stores[0].config(name)
        where = f"the spec {spec.source}" if spec is not None else f"{stores[0].path}"
        for store in stores:
            _same_config(store, name, config, where)
        keys = None
        if spec is not None:
            with bulk():
                keys = {t.key: t.fields for t in plan(spec)}
        out = stack.enter_context(ResultStore(output))
        _same_config(out, name, config, where, output=True)
        out.register(name, config)
        result = MergeResult(name, str(output), [StoreMerge(s.path) for s in stores])
        bar = progress_bar(f"merge {name}", sum(s.count(name) for s in stores), 0, progress,
                           unit="rows", after=2.0)
        shards = set()
        for store, merged in zip(stores, result.inputs, strict=True):
            for batch in _batches(_checked(store, name, keys, merged)):
                _copy(out, name, batch, merged)
                bar.tick(len(batch))
            runs = _runs(store, name)
            out.add_runs(name, runs)
            shards |= {int(m.group(2)) for r in runs if (m := _SHARD.search(r[1]))}
            result.still_running += [f"{store.path} ({who})"
                                     for who in _live(store, name).values()]
        bar.close()
        result.stored = out.count(name)
        if keys is not None:
            _missing(result, keys, out.keys(name), shards)
    return result


def _check_output(inputs: Sequence[str | os.PathLike[str]],
                  output: str | os.PathLike[str]) -> None:
    """`PathError` when the output is one of the inputs (it would be written)."""
    target = Path(output)
    for p in inputs:
        if Path(p).resolve() == target.resolve() or (
                target.exists() and Path(p).exists() and os.path.samefile(p, target)):
            raise PathError(f"--store {output}", f"is also an input ({p}); the inputs are only "
                                                 "read: merge into another store")


def _campaign(stores: Sequence[ResultStore], name: str | None,
              spec: CampaignSpec | ExperimentSpec | None) -> str:
    """The campaign to merge: `name`, the spec's, or the one campaign the inputs hold."""
    if name is not None and spec is not None and name != spec.name:
        raise CampaignError(f"--campaign={name!r} is not the campaign of the spec "
                            f"{spec.source} ({spec.name!r})")
    name = name or (spec.name if spec is not None else None)
    if name is None:
        found = list(dict.fromkeys(n for s in stores for n in s.campaigns()))
        if len(found) != 1:
            raise CampaignError(f"the stores hold {len(found)} campaigns; choose one with "
                                f"--campaign ({', '.join(found) or 'none'})")
        name = found[0]
    return name


def _same_config(store: ResultStore, name: str, config: Any, where: str,
                 output: bool = False) -> None:
    """`CampaignError` unless `store` holds `name` with `config` (the output may lack it)."""
    held = store.config(name)
    if held is None:
        if output:
            return
        raise CampaignError(f"{store.path} holds no campaign {name!r} (it holds "
                            f"{', '.join(store.campaigns()) or 'none'})")
    if canonical_json(held) != canonical_json(config):
        what = f"--store {store.path}" if output else store.path
        raise CampaignError(f"{what}: campaign {name!r} has another configuration than "
                            f"{where} ({config_diff(config, held)}); stores of another spec "
                            "are not merged" + ("; merge into another --store" if output else ""))


def _checked(store: ResultStore, name: str, keys: dict[str, Any] | None,
             merged: StoreMerge) -> Iterator[tuple[str, str, str, Any, str]]:
    """The rows of `name` in `store` that may be copied; the others go to `merged.left_out`."""
    for key, fields_text, result_text, seconds, finished in store.texts(name):
        merged.rows += 1
        try:
            fields, _ = parse_row(fields_text, result_text)
            if task_key(fields) != key:
                raise ValueError("the key is not the key of its fields")
            if keys is not None and key not in keys:
                raise ValueError("not a task of the spec")
            if seconds is not None and (isinstance(seconds, bool) or not isinstance(
                    seconds, (int, float)) or not math.isfinite(seconds)):
                raise ValueError(f"seconds={str(seconds)[:20]!r} is not a number")
            if not isinstance(finished, str):
                raise ValueError("finished is not a time stamp")
        except ValueError as exc:
            merged.left_out.append(LeftOut(str(key), str(exc)))
            continue
        yield key, fields_text, result_text, seconds, finished


def _batches(rows: Iterator[Any]) -> Iterator[list[Any]]:
    batch = []
    for row in rows:
        batch.append(row)
        if len(batch) == BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


def _copy(out: ResultStore, name: str, batch: list[tuple[str, str, str, Any, str]],
          merged: StoreMerge) -> None:
    """Copy one batch; a key already stored is a duplicate, or a conflict if its result
    differs from the stored one."""
    added, known = out.copy_rows(name, batch)
    merged.added += added
    for key, stored, given in known:
        try:
            same = canonical_json(strict_json(stored, "result")) == canonical_json(
                strict_json(given, "result"))
        except ValueError:  # the output's own row is damaged: not the same
            same = False
        if same:
            merged.duplicates += 1
        else:
            merged.conflicts.append(key)


def _runs(store: ResultStore, name: str) -> list[tuple[str, str, int, str]]:
    """The input's ``runs`` rows that have the types of the schema (others are not copied)."""
    return [r for r in store.run_texts(name)
            if isinstance(r[0], str) and isinstance(r[1], str) and isinstance(r[3], str)
            and isinstance(r[2], int) and not isinstance(r[2], bool)]


def _live(store: ResultStore, name: str) -> dict[str, str]:
    """Runs still working on `name` in `store` (none known in a store without claimants)."""
    try:
        return live_runs(store, name)
    except StoreError:  # an older store, or a damaged claimants table: nothing to say
        return {}


def _missing(result: MergeResult, keys: dict[str, Any], stored: set[str],
             shards: set[int]) -> None:
    """The tasks of the spec that no store holds, per shard when one shard count is known."""
    missing = [k for k in keys if k not in stored]
    result.tasks, result.missing = len(keys), len(missing)
    result.missing_examples = [keys[k] for k in missing[:3]]
    if len(shards) == 1 and missing:
        (count,) = shards
        by = Counter(shard_of(k, count) for k in missing)
        result.missing_by_shard = {f"{i}/{count}": by[i] for i in sorted(by)}
