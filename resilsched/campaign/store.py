"""The campaign result store: one SQLite file in WAL mode, one row per completed task.

docs/architecture.md, "Campaigns and scale". Schema (one file may hold several campaigns)::

    campaigns(name TEXT PRIMARY KEY, config TEXT, created TEXT)
    results(campaign TEXT, key TEXT, fields TEXT, result TEXT, seconds REAL, finished TEXT,
            PRIMARY KEY (campaign, key))
    runs(campaign TEXT, started TEXT, executor TEXT, tasks INTEGER, versions TEXT)

``config`` is the canonical JSON of the campaign-wide parameters (what is not in the task keys);
reusing a campaign name with another configuration raises `CampaignError` instead of mixing two
experiments. ``key`` is `task_key` of the task's ``fields`` (also stored, for inspection and
reports), ``result`` the task's JSON result, ``seconds`` its wall time in the worker,
``finished`` an ISO-8601 UTC timestamp. Rows are written with ``INSERT OR IGNORE`` under the
primary key, so a result is never stored twice, even by two runs sharing the store. Each run
that computes tasks adds a ``runs`` row: when it started, on what executor, how many tasks it
had to run, and the versions of the packages that computed them (`versions`).

>>> store = ResultStore(":memory:")
>>> store.add("demo", task_key({"x": 1}), {"y": 2}, fields={"x": 1})
True
>>> [(f, r) for _, f, r, _, _ in store.rows("demo")]
[({'x': 1}, {'y': 2})]
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from resilsched.solution import to_jsonable
from resilsched.versions import versions as package_versions

_SCHEMA = """
CREATE TABLE IF NOT EXISTS campaigns (
    name TEXT PRIMARY KEY,
    config TEXT NOT NULL,
    created TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS results (
    campaign TEXT NOT NULL,
    key TEXT NOT NULL,
    fields TEXT NOT NULL,
    result TEXT NOT NULL,
    seconds REAL,
    finished TEXT NOT NULL,
    PRIMARY KEY (campaign, key)
);
CREATE TABLE IF NOT EXISTS runs (
    campaign TEXT NOT NULL,
    started TEXT NOT NULL,
    executor TEXT NOT NULL,
    tasks INTEGER NOT NULL,
    versions TEXT NOT NULL
);
"""

#: the distributions whose versions a campaign records (with Python's)
RECORDED_PACKAGES = ("resilsched", "numpy", "ortools", "highspy")


class CampaignError(ValueError):
    """A campaign cannot run as asked (configuration mismatch, bad spec, missing Dask); the
    message is one line."""


def canonical_json(x: Any) -> str:
    """JSON with sorted keys and no spaces: equal values give equal strings."""
    return json.dumps(to_jsonable(x), sort_keys=True, separators=(",", ":"))


def key_of_text(fields_text: str) -> str:
    """sha256 (hex) of a canonical JSON text (`task_key` without the encoding step)."""
    return hashlib.sha256(fields_text.encode()).hexdigest()


def task_key(fields: Mapping[str, Any]) -> str:
    """Stable key of a task: sha256 (hex) of the canonical JSON of its fields.

    >>> task_key({"b": 1, "a": (0.5, 2)}) == task_key({"a": [0.5, 2], "b": 1})
    True
    """
    return key_of_text(canonical_json(fields))


def versions() -> dict[str, str | None]:
    """Versions of Python and of the packages that compute results (None: not installed)."""
    return package_versions(("python", *RECORDED_PACKAGES))


def now() -> str:
    """The current UTC time, ISO-8601 to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def _short(x: Any, width: int = 40) -> str:
    s = canonical_json(x)
    return s if len(s) <= width else s[: width - 3] + "..."


class ResultStore:
    """SQLite result store in WAL mode, one row per completed task (schema in the module doc).

    Every `add` (and every `add_texts` batch) is committed at once, so killing the process loses
    nothing stored. ``synchronous=NORMAL``: in WAL mode a crash of the process never loses a
    commit; a power cut may lose the last few, never corrupting the file. Use one store object
    per process.
    """

    def __init__(self, path: str | os.PathLike[str]):
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, isolation_level=None, timeout=30.0)
        self.journal_mode = self._db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)

    # -- campaigns ---------------------------------------------------------------------------

    def campaigns(self) -> list[str]:
        """Names of the campaigns registered in this store, oldest first."""
        return [n for (n,) in self._db.execute("SELECT name FROM campaigns ORDER BY rowid")]

    def config(self, campaign: str) -> dict[str, Any] | None:
        """The configuration recorded for `campaign`, or None if it was never registered."""
        row = self._db.execute("SELECT config FROM campaigns WHERE name = ?",
                               (campaign,)).fetchone()
        return None if row is None else json.loads(row[0])

    def register(self, campaign: str, config: Mapping[str, Any]) -> None:
        """Record `campaign`'s configuration, or check it equals the recorded one.

        Raises `CampaignError` (one line: the differing fields, how to start over) on a mismatch.
        """
        text = canonical_json(config)
        self._db.execute("INSERT OR IGNORE INTO campaigns (name, config, created) VALUES (?,?,?)",
                         (campaign, text, now()))
        old = self._db.execute("SELECT config FROM campaigns WHERE name = ?",
                               (campaign,)).fetchone()[0]
        if old != text:
            before, after = json.loads(old), json.loads(text)
            diff = ", ".join(f"{k}: {_short(before.get(k))} -> {_short(after.get(k))}"
                             for k in sorted(set(before) | set(after))
                             if before.get(k) != after.get(k))
            raise CampaignError(
                f"campaign {campaign!r} in {self.path} holds {self.count(campaign)} results of "
                f"another configuration ({diff}); start over with --fresh, or use another --store")

    def forget(self, campaign: str) -> int:
        """Delete `campaign`'s results, runs and configuration; returns how many results it
        held."""
        with self._db:  # one transaction: never a half-deleted campaign
            self._db.execute("BEGIN")
            n = self._db.execute("DELETE FROM results WHERE campaign = ?", (campaign,)).rowcount
            self._db.execute("DELETE FROM runs WHERE campaign = ?", (campaign,))
            self._db.execute("DELETE FROM campaigns WHERE name = ?", (campaign,))
        return n

    def add_run(self, campaign: str, executor: str, tasks: int,
                package_versions: Mapping[str, Any] | None = None) -> None:
        """Record that a run of `campaign` starts `tasks` tasks on `executor`, with the package
        versions of this process (`versions`) unless given."""
        self._db.execute("INSERT INTO runs (campaign, started, executor, tasks, versions) "
                         "VALUES (?,?,?,?,?)",
                         (campaign, now(), executor, tasks,
                          canonical_json(package_versions or versions())))

    def runs(self, campaign: str) -> list[dict[str, Any]]:
        """The runs of `campaign`, oldest first: started, executor, tasks, versions."""
        rows = self._db.execute("SELECT started, executor, tasks, versions FROM runs "
                                "WHERE campaign = ? ORDER BY rowid", (campaign,))
        return [{"started": s, "executor": e, "tasks": t, "versions": json.loads(v)}
                for s, e, t, v in rows]

    # -- results -----------------------------------------------------------------------------

    def add(self, campaign: str, key: str, result: Any, fields: Mapping[str, Any] | None = None,
            seconds: float | None = None) -> bool:
        """Store one result (committed now); False if `key` was already stored (kept as it was)."""
        return self.add_texts(campaign, [(key, canonical_json(fields or {}),
                                          json.dumps(to_jsonable(result)), seconds)]) == 1

    def add_texts(self, campaign: str, rows: Sequence[tuple[str, str, str, float | None]]) -> int:
        """Store ``(key, fields JSON, result JSON, seconds)`` rows in one committed transaction;
        returns how many were new (keys already stored keep their first row)."""
        if not rows:
            return 0
        stamp = now()
        before = self._db.total_changes
        with self._db:
            self._db.execute("BEGIN")
            self._db.executemany(
                "INSERT OR IGNORE INTO results (campaign, key, fields, result, seconds, finished) "
                "VALUES (?,?,?,?,?,?)",
                [(campaign, k, f, r, s, stamp) for k, f, r, s in rows])
        return self._db.total_changes - before

    def has(self, campaign: str, key: str) -> bool:
        return self._db.execute("SELECT 1 FROM results WHERE campaign = ? AND key = ?",
                                (campaign, key)).fetchone() is not None

    def keys(self, campaign: str) -> set[str]:
        return {k for (k,) in self._db.execute("SELECT key FROM results WHERE campaign = ?",
                                               (campaign,))}

    def load(self, campaign: str, keys: set[str] | None = None) -> dict[str, Any]:
        """Stored results of `campaign` (only those in `keys` when given): key -> result."""
        rows = self._db.execute("SELECT key, result FROM results WHERE campaign = ?",
                                (campaign,))
        return {k: json.loads(r) for k, r in rows if keys is None or k in keys}

    def rows(self, campaign: str) -> Iterator[tuple[str, dict, Any, float | None, str]]:
        """Every row of `campaign` in insertion order: (key, fields, result, seconds,
        finished)."""
        cur = self._db.execute("SELECT key, fields, result, seconds, finished FROM results "
                               "WHERE campaign = ? ORDER BY rowid", (campaign,))
        for key, fields, result, seconds, finished in cur:
            yield key, json.loads(fields), json.loads(result), seconds, finished

    def count(self, campaign: str) -> int:
        return self._db.execute("SELECT COUNT(*) FROM results WHERE campaign = ?",
                                (campaign,)).fetchone()[0]

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
