"""The campaign result store: one SQLite file in WAL mode, one row per completed task.

docs/architecture.md, "Campaigns and scale". Schema (one file may hold several campaigns)::

    campaigns(name TEXT PRIMARY KEY, config TEXT, created TEXT)
    results(campaign TEXT, key TEXT, fields TEXT, result TEXT, seconds REAL, finished TEXT,
            PRIMARY KEY (campaign, key))
    runs(campaign TEXT, started TEXT, executor TEXT, tasks INTEGER, versions TEXT)
    claims(campaign TEXT, owner TEXT, keys TEXT)
    claimants(owner TEXT PRIMARY KEY, campaign TEXT, place TEXT, pid INTEGER, started TEXT,
              heartbeat REAL)

``config`` is the canonical JSON of the campaign-wide parameters (what is not in the task keys);
reusing a campaign name with another configuration raises `CampaignError` instead of mixing two
experiments. ``key`` is `task_key` of the task's ``fields`` (also stored, for inspection and
reports), ``result`` the task's JSON result, ``seconds`` its wall time in the worker,
``finished`` an ISO-8601 UTC timestamp. Rows are written with ``INSERT OR IGNORE`` under the
primary key, so a result is never stored twice, even by two runs sharing the store. Each run
that computes tasks adds a ``runs`` row: when it started, on what executor, how many tasks it
had to run, and the versions of the packages that computed them
(`resilsched.versions.versions` of `resilsched.versions.CAMPAIGN_RECORD`). ``claims`` and
``claimants`` let concurrent runs share the work (`resilsched.campaign.claims`).

Opening a file checks it first (`resilsched.campaign.storefile`): a directory, a foreign, text,
binary, truncated or corrupt file is refused with a one-line `StoreError` before SQLite writes
anything. ``ResultStore(path, readonly=True)`` (``report``, ``campaign export``) opens the file
with SQLite's ``mode=ro`` (``immutable=1`` on read-only media), checks the schema and never
writes; an SQLite error met later (a full disk, a read-only file) is a `StoreError` too.

>>> store = ResultStore(":memory:")
>>> store.add("demo", task_key({"x": 1}), {"y": 2}, fields={"x": 1})
True
>>> [(f, r) for _, f, r, _, _ in store.rows("demo")]
[({'x': 1}, {'y': 2})]
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sqlite3
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from resilsched.campaign.errors import CampaignError, StoreError
from resilsched.campaign.storefile import FileState, inspect, sqlite_problem
from resilsched.solution import to_jsonable
from resilsched.versions import CAMPAIGN_RECORD, versions

__all__ = ["CampaignError", "ResultStore", "StoreError", "canonical_json", "config_diff",
           "key_of_text", "task_key"]

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
CREATE TABLE IF NOT EXISTS claims (
    campaign TEXT NOT NULL,
    owner TEXT NOT NULL,
    keys TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS claimants (
    owner TEXT PRIMARY KEY,
    campaign TEXT NOT NULL,
    place TEXT NOT NULL,
    pid INTEGER NOT NULL,
    started TEXT NOT NULL,
    heartbeat REAL NOT NULL
);
"""
#: the tables (and their columns) every result store has; ``claims`` and ``claimants`` are
#: added to older stores when a run opens them
TABLES = {"campaigns": {"name", "config", "created"},
          "results": {"campaign", "key", "fields", "result", "seconds", "finished"},
          "runs": {"campaign", "started", "executor", "tasks", "versions"}}
#: keys per SQL statement with an IN (...) list (SQLite allows 999 parameters at least)
_BATCH = 500

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


def now() -> str:
    """The current UTC time, ISO-8601 to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def _short(x: Any, width: int = 40) -> str:
    s = canonical_json(x)
    return s if len(s) <= width else s[: width - 3] + "..."


def config_diff(before: Mapping[str, Any], after: Mapping[str, Any]) -> str:
    """``field: old -> new, ...`` for the top-level fields where two configurations differ."""
    return ", ".join(f"{k}: {_short(before.get(k))} -> {_short(after.get(k))}"
                     for k in sorted(set(before) | set(after)) if before.get(k) != after.get(k))


def _sql(method: Callable[..., Any]) -> Callable[..., Any]:
    """Turn an ``sqlite3.Error`` raised by a `ResultStore` method into a one-line
    `StoreError` naming the store (a full disk, a read-only file, a corrupt page)."""
    @functools.wraps(method)
    def wrapper(self: ResultStore, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except sqlite3.Error as exc:
            raise StoreError(self.path, sqlite_problem(exc)) from None
    return wrapper


def _uri(path: str, **flags: int | str) -> str:
    """The ``file:`` URI of `path` with SQLite's query flags (``mode=ro``, ``immutable=1``)."""
    return Path(path).absolute().as_uri() + "?" + "&".join(f"{k}={v}" for k, v in flags.items())


def check_schema(db: sqlite3.Connection, path: str, *, new_ok: bool) -> None:
    """`StoreError` unless the database holds the result store's tables (`TABLES`) with their
    columns; a database with no table at all passes when `new_ok` (it becomes a store)."""
    tables = {n for (n,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if not tables & set(TABLES):
        if not tables:
            if new_ok:
                return
            raise StoreError(path, "is an empty SQLite database, not a result store")
        shown = ", ".join(sorted(tables)[:5]) + (", ..." if len(tables) > 5 else "")
        raise StoreError(path, f"is an SQLite database but not a result store (it holds the "
                               f"tables {shown})")
    for table, columns in TABLES.items():
        if table not in tables:
            raise StoreError(path, f"is damaged or not a result store: it has no table {table}")
        have = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
        if columns - have:
            raise StoreError(path, f"is damaged or not a result store: table {table} has no "
                                   f"column {', '.join(sorted(columns - have))}")


class ResultStore:
    """SQLite result store in WAL mode, one row per completed task (schema in the module doc).

    Every `add` (and every `add_texts` batch) is committed at once, so killing the process loses
    nothing stored. ``synchronous=NORMAL``: in WAL mode a crash of the process never loses a
    commit; a power cut may lose the last few, never corrupting the file. Use one store object
    per process.

    Parameters
    ----------
    path : the SQLite file (created with its folder if missing, unless `readonly`), or
        ``":memory:"``.
    readonly : open an existing store for reading only (``report``, ``campaign export``):
        nothing is ever written, and a missing, empty or foreign file is refused untouched.

    Raises
    ------
    StoreError : the file is not a result store, or cannot be opened as asked (one line).
    """

    def __init__(self, path: str | os.PathLike[str], *, readonly: bool = False):
        self.path = str(path)
        self.readonly = readonly
        if self.path == ":memory:":
            self._db = sqlite3.connect(self.path, isolation_level=None)
            self._db.executescript(_SCHEMA)
            self.journal_mode = "memory"
            return
        state = inspect(self.path, must_exist=readonly)
        try:
            if state.exists and not state.wal_file:  # the schema, without a side file
                with closing(sqlite3.connect(_uri(self.path, mode="ro", immutable=1),
                                             uri=True)) as db:
                    check_schema(db, self.path, new_ok=not readonly)
            self._db = self._open_readonly(state) if readonly else self._open(state)
        except sqlite3.Error as exc:
            raise StoreError(self.path, sqlite_problem(exc)) from None

    def _open(self, state: FileState) -> sqlite3.Connection:
        """The connection of a run: the file is created (with its folder) if missing, switched
        to WAL mode, and given the tables it lacks."""
        if not state.exists and not state.empty:
            try:
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(self.path, f"cannot be created: its folder cannot be made "
                                            f"({exc.strerror or exc})") from None
        db = sqlite3.connect(self.path, isolation_level=None, timeout=30.0)
        try:
            check_schema(db, self.path, new_ok=True)
            self.journal_mode = db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            db.execute("PRAGMA synchronous=NORMAL")
            with db:  # one transaction: another run opening the file sees all tables or none
                db.execute("BEGIN IMMEDIATE")
                check_schema(db, self.path, new_ok=True)
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        db.execute(statement)
        except BaseException:
            db.close()
            raise
        return db

    def _open_readonly(self, state: FileState) -> sqlite3.Connection:
        """A connection that cannot write: ``mode=ro``, or ``immutable=1`` when SQLite cannot
        make the shared-memory file of a WAL database (a read-only folder or medium)."""
        db = sqlite3.connect(_uri(self.path, mode="ro"), uri=True, timeout=30.0)
        try:
            db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        except sqlite3.OperationalError as exc:
            db.close()
            if "readonly" not in str(exc) and "unable to open" not in str(exc):
                raise
            if state.wal_file:
                raise StoreError(self.path, "cannot be read: rows are still in its -wal file and "
                                            "its folder is read-only (copy the store with its "
                                            "-wal file to a writable folder)") from None
            db = sqlite3.connect(_uri(self.path, mode="ro", immutable=1), uri=True)
        try:
            check_schema(db, self.path, new_ok=False)
            self.journal_mode = db.execute("PRAGMA journal_mode").fetchone()[0]
        except BaseException:
            db.close()
            raise
        return db

    # -- campaigns ---------------------------------------------------------------------------

    @_sql
    def campaigns(self) -> list[str]:
        """Names of the campaigns registered in this store, oldest first."""
        return [n for (n,) in self._db.execute("SELECT name FROM campaigns ORDER BY rowid")]

    @_sql
    def config(self, campaign: str) -> dict[str, Any] | None:
        """The configuration recorded for `campaign`, or None if it was never registered."""
        row = self._db.execute("SELECT config FROM campaigns WHERE name = ?",
                               (campaign,)).fetchone()
        return None if row is None else self._parse(row[0], f"the configuration of {campaign!r}")

    @_sql
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
            try:
                before, after = json.loads(old), json.loads(text)
            except ValueError:
                raise StoreError(self.path, f"is damaged: the configuration of campaign "
                                            f"{campaign!r} is not valid JSON") from None
            raise CampaignError(
                f"campaign {campaign!r} in {self.path} holds {self.count(campaign)} results of "
                f"another configuration ({config_diff(before, after)}); start over with --fresh, "
                "or use another --store")

    @_sql
    def forget(self, campaign: str) -> int:
        """Delete `campaign`'s results, runs and configuration; returns how many results it
        held."""
        with self._db:  # one transaction: never a half-deleted campaign
            self._db.execute("BEGIN IMMEDIATE")
            n = self._db.execute("DELETE FROM results WHERE campaign = ?", (campaign,)).rowcount
            for table in ("runs", "claims"):
                self._db.execute(f"DELETE FROM {table} WHERE campaign = ?", (campaign,))
            self._db.execute("DELETE FROM campaigns WHERE name = ?", (campaign,))
        return n

    @_sql
    def add_run(self, campaign: str, executor: str, tasks: int,
                package_versions: Mapping[str, Any] | None = None) -> None:
        """Record that a run of `campaign` starts `tasks` tasks on `executor`, with the package
        versions of this process (`resilsched.versions.CAMPAIGN_RECORD`) unless given."""
        self._db.execute("INSERT INTO runs (campaign, started, executor, tasks, versions) "
                         "VALUES (?,?,?,?,?)",
                         (campaign, now(), executor, tasks,
                          canonical_json(package_versions or versions(CAMPAIGN_RECORD))))

    @_sql
    def runs(self, campaign: str) -> list[dict[str, Any]]:
        """The runs of `campaign`, oldest first: started, executor, tasks, versions (None when
        the stored text is not valid JSON)."""
        rows = self._db.execute("SELECT started, executor, tasks, versions FROM runs "
                                "WHERE campaign = ? ORDER BY rowid", (campaign,))
        return [{"started": s, "executor": e, "tasks": t, "versions": _json_or_none(v)}
                for s, e, t, v in rows]

    # -- results -----------------------------------------------------------------------------

    def add(self, campaign: str, key: str, result: Any, fields: Mapping[str, Any] | None = None,
            seconds: float | None = None) -> bool:
        """Store one result (committed now); False if `key` was already stored (kept as it was)."""
        return self.add_texts(campaign, [(key, canonical_json(fields or {}),
                                          json.dumps(to_jsonable(result)), seconds)]) == 1

    @_sql
    def add_texts(self, campaign: str, rows: Sequence[tuple[str, str, str, float | None]],
                  drop_claims: Sequence[int] = ()) -> int:
        """Store ``(key, fields JSON, result JSON, seconds)`` rows in one committed transaction
        (which also deletes the claims `drop_claims` the rows complete); returns how many were
        new (keys already stored keep their first row)."""
        if not rows:
            return 0
        stamp = now()
        before = self._db.total_changes
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.executemany(
                "INSERT OR IGNORE INTO results (campaign, key, fields, result, seconds, finished) "
                "VALUES (?,?,?,?,?,?)",
                [(campaign, k, f, r, s, stamp) for k, f, r, s in rows])
            added = self._db.total_changes - before
            self._db.executemany("DELETE FROM claims WHERE rowid = ?",
                                 [(c,) for c in drop_claims])
        return added

    @_sql
    def copy_rows(self, campaign: str, rows: Sequence[tuple[str, str, str, Any, str]]
                  ) -> tuple[int, list[tuple[str, str, str]]]:
        """Store rows of another store as they are, ``(key, fields JSON, result JSON, seconds,
        finished)``, in one committed transaction (``campaign merge``); returns how many were
        new and, for the keys already stored, ``(key, stored result, given result)``."""
        if not rows:
            return 0, []
        before = self._db.total_changes
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            known = dict(self._lookup(campaign, [r[0] for r in rows], "key, result"))
            self._db.executemany(
                "INSERT OR IGNORE INTO results (campaign, key, fields, result, seconds, finished) "
                "VALUES (?,?,?,?,?,?)", [(campaign, *r) for r in rows])
            added = self._db.total_changes - before
        return added, [(k, known[k], r) for k, _, r, _, _ in rows if k in known]

    @_sql
    def add_runs(self, campaign: str, runs: Sequence[tuple[str, str, int, str]]) -> int:
        """Copy ``(started, executor, tasks, versions JSON)`` rows of another store's ``runs``
        that this store does not hold yet (``campaign merge``); returns how many were new."""
        have = set(self._db.execute("SELECT started, executor, tasks, versions FROM runs "
                                    "WHERE campaign = ?", (campaign,)))
        new = [r for r in dict.fromkeys(runs) if tuple(r) not in have]
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.executemany("INSERT INTO runs (campaign, started, executor, tasks, "
                                 "versions) VALUES (?,?,?,?,?)", [(campaign, *r) for r in new])
        return len(new)

    @_sql
    def run_texts(self, campaign: str) -> list[tuple[str, str, int, str]]:
        """The ``runs`` rows of `campaign` as stored: (started, executor, tasks, versions)."""
        return list(self._db.execute("SELECT started, executor, tasks, versions FROM runs "
                                     "WHERE campaign = ? ORDER BY rowid", (campaign,)))

    @_sql
    def has(self, campaign: str, key: str) -> bool:
        return self._db.execute("SELECT 1 FROM results WHERE campaign = ? AND key = ?",
                                (campaign, key)).fetchone() is not None

    @_sql
    def keys(self, campaign: str) -> set[str]:
        return {k for (k,) in self._db.execute("SELECT key FROM results WHERE campaign = ?",
                                               (campaign,))}

    @_sql
    def stored_among(self, campaign: str, keys: Sequence[str]) -> set[str]:
        """The keys of `keys` that `campaign` holds a row for."""
        return self._stored_among(campaign, keys)

    def _stored_among(self, campaign: str, keys: Sequence[str]) -> set[str]:
        return {k for (k,) in self._lookup(campaign, keys, "key")}

    def _lookup(self, campaign: str, keys: Sequence[str], columns: str) -> Iterator[tuple]:
        """`columns` of the results of `campaign` whose key is among `keys`."""
        for i in range(0, len(keys), _BATCH):
            part = list(keys[i: i + _BATCH])
            yield from self._db.execute(
                f"SELECT {columns} FROM results WHERE campaign = ? AND key IN "
                f"({','.join('?' * len(part))})", (campaign, *part))

    @_sql
    def load(self, campaign: str, keys: set[str] | None = None) -> dict[str, Any]:
        """Stored results of `campaign` (only those in `keys` when given): key -> result."""
        rows = self._db.execute("SELECT key, result FROM results WHERE campaign = ?",
                                (campaign,))
        return {k: self._parse(r, f"the result of key {k}") for k, r in rows
                if keys is None or k in keys}

    def _parse(self, text: Any, what: str) -> Any:
        """The JSON value of a stored text; `StoreError` naming `what` if it is not JSON."""
        try:
            return json.loads(text)
        except (TypeError, ValueError, RecursionError):
            raise StoreError(self.path, f"is damaged: {what} is not valid JSON") from None

    def rows(self, campaign: str) -> Iterator[tuple[str, dict, Any, float | None, str]]:
        """Every row of `campaign` in insertion order: (key, fields, result, seconds,
        finished)."""
        for key, fields, result, seconds, finished in self.texts(campaign):
            yield (key, self._parse(fields, f"the fields of key {key}"),
                   self._parse(result, f"the result of key {key}"), seconds, finished)

    def texts(self, campaign: str) -> Iterator[tuple[str, str, str, float | None, str]]:
        """Every row of `campaign` in insertion order, as stored: (key, fields JSON text,
        result JSON text, seconds, finished); `StoreError` if the file fails while read."""
        try:
            yield from self._db.execute("SELECT key, fields, result, seconds, finished FROM "
                                        "results WHERE campaign = ? ORDER BY rowid", (campaign,))
        except sqlite3.Error as exc:
            raise StoreError(self.path, sqlite_problem(exc)) from None

    @_sql
    def count(self, campaign: str) -> int:
        return self._db.execute("SELECT COUNT(*) FROM results WHERE campaign = ?",
                                (campaign,)).fetchone()[0]

    @_sql
    def count_with(self, campaign: str, name: str, value: str) -> int:
        """How many results of `campaign` are JSON objects whose field `name` is `value`."""
        return self._db.execute(  # CASE: json_extract only on valid JSON objects
            "SELECT COUNT(*) FROM results WHERE campaign = ? AND CASE WHEN json_valid(result) "
            "AND json_type(result) = 'object' THEN json_extract(result, ?) END = ?",
            (campaign, f'$."{name}"', value)).fetchone()[0]

    # -- claims of concurrent runs (resilsched.campaign.claims) ------------------------------

    @_sql
    def add_claimant(self, owner: str, campaign: str, place: str, pid: int, started: str,
                     heartbeat: float) -> None:
        self._db.execute("INSERT INTO claimants (owner, campaign, place, pid, started, "
                         "heartbeat) VALUES (?,?,?,?,?,?)",
                         (owner, campaign, place, pid, started, heartbeat))

    @_sql
    def claimants(self, campaign: str) -> list[tuple[str, str, int, str, float]]:
        """(owner, place, pid, started, heartbeat) of every run registered on `campaign`."""
        return list(self._db.execute("SELECT owner, place, pid, started, heartbeat FROM "
                                     "claimants WHERE campaign = ?", (campaign,)))

    @_sql
    def beat(self, owner: str, heartbeat: float) -> None:
        self._db.execute("UPDATE claimants SET heartbeat = ? WHERE owner = ?", (heartbeat, owner))

    @_sql
    def release(self, owners: Sequence[str]) -> None:
        """Delete the claims and the registrations of `owners` (runs that ended or died)."""
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            for owner in owners:
                self._db.execute("DELETE FROM claims WHERE owner = ?", (owner,))
                self._db.execute("DELETE FROM claimants WHERE owner = ?", (owner,))

    @_sql
    def claim(self, campaign: str, owner: str, keys: Sequence[str], live: set[str],
              reserve: bool = True) -> tuple[list[str], list[str], list[str], int | None]:
        """Claim for `owner` the tasks of `keys` that are neither stored nor claimed by another
        run in `live`, in one transaction (one ``claims`` row for them all); returns (claimed,
        stored, held by a live run, the claim's row id or None). ``reserve=False`` only looks:
        the free tasks are returned as claimed, and no row is written."""
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            stored = self._stored_among(campaign, keys)
            held: set[str] = set()
            for other, text in self._db.execute("SELECT owner, keys FROM claims WHERE "
                                                "campaign = ?", (campaign,)):
                if other != owner and other in live:
                    held.update(text.split())
            claimed = [k for k in keys if k not in stored and k not in held]
            claim = None
            if claimed and reserve:
                claim = self._db.execute("INSERT INTO claims (campaign, owner, keys) VALUES "
                                         "(?,?,?)", (campaign, owner, " ".join(claimed)))
        return (claimed, [k for k in keys if k in stored],
                [k for k in keys if k in held and k not in stored],
                None if claim is None else claim.lastrowid)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _json_or_none(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None
