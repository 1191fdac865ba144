"""What a result store's file is, checked before SQLite opens it, and SQLite's errors in words.

docs/campaigns.md, "The store file". A path given as a store is refused in one line
(`StoreError`: the path and the problem) when it is a directory or not a regular file, cannot
be read, is not an SQLite database (a text or binary file), is truncated (shorter than the
page count its header records), or, for the commands that only read, is empty or missing.
`inspect` reads the first 100 bytes with plain file I/O, so a refused file is never touched
by SQLite (no ``-wal`` or ``-shm`` file appears beside it). `sqlite_problem` turns an
``sqlite3.Error`` met later (a full disk, a read-only file, a corrupt page) into the same kind
of one-line problem.

>>> sqlite_problem(sqlite3.OperationalError("database or disk is full"))
'cannot be written: the disk is full'
"""

from __future__ import annotations

import os
import sqlite3
import stat
from dataclasses import dataclass
from pathlib import Path

from resilsched.campaign.errors import StoreError

__all__ = ["FileState", "StoreError", "inspect", "sqlite_problem"]

#: the first bytes of every SQLite 3 database file
MAGIC = b"SQLite format 3\x00"
HEADER = 100


@dataclass(frozen=True)
class FileState:
    """A store path as found: `exists` (a non-empty SQLite file or an empty one), `empty`,
    `wal` (the header says WAL mode), `wal_file` (a non-empty ``-wal`` file is beside it)."""

    exists: bool
    empty: bool = False
    wal: bool = False
    wal_file: bool = False


def inspect(path: str | os.PathLike[str], *, must_exist: bool) -> FileState:
    """Check the store file at `path` before SQLite opens it (see the module doc).

    With `must_exist` (``report``, ``campaign export``) a missing or empty file is refused;
    without it (``campaign run``) either becomes a new store.
    """
    p = Path(path)
    name = str(path)
    try:
        info = p.stat()
    except FileNotFoundError:
        if must_exist:
            raise StoreError(name, "no such store (run `resilsched campaign run` first)") from None
        return FileState(exists=False)
    except OSError as exc:
        raise StoreError(name, f"cannot be read ({exc.strerror or exc})") from None
    if stat.S_ISDIR(info.st_mode):
        raise StoreError(name, "is a directory, not a result store file")
    if not stat.S_ISREG(info.st_mode):
        raise StoreError(name, "is not a regular file (a result store is an SQLite file)")
    try:
        with open(p, "rb") as f:
            head = f.read(HEADER)
    except OSError as exc:
        raise StoreError(name, f"cannot be read ({exc.strerror or exc})") from None
    if not head:
        if must_exist:
            raise StoreError(name, "is an empty file, not a result store")
        return FileState(exists=False, empty=True)
    if not head.startswith(MAGIC):
        raise StoreError(name, f"is not a result store: it is {_what(head)}, not an SQLite "
                               "database")
    if len(head) < HEADER:
        raise StoreError(name, f"is truncated: {len(head)} bytes, less than an SQLite header")
    page_size = int.from_bytes(head[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(head[28:32], "big")
    if pages and head[24:28] == head[92:96] and info.st_size < page_size * pages:
        raise StoreError(name, f"is truncated: {info.st_size} bytes where its header records "
                               f"{pages} pages of {page_size}")
    wal_path = Path(f"{p}-wal")
    wal_file = wal_path.is_file() and wal_path.stat().st_size > 0
    return FileState(exists=True, wal=head[18] == 2 or head[19] == 2, wal_file=wal_file)


def _what(head: bytes) -> str:
    """'a text file' or 'a binary file', from its first bytes."""
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 4:  # not just a character cut at the end of the sample
            return "a binary file"
    return "a text file" if b"\x00" not in head else "a binary file"


#: SQLite's messages (sqlite3.Error text) -> the problem in words
_PROBLEMS = (
    ("disk is full", "cannot be written: the disk is full"),
    ("readonly database", "is read-only (its file or folder cannot be written)"),
    ("unable to open database file", "cannot be opened (its folder is missing, not "
                                     "writable, or the path is not a file)"),
    ("file is not a database", "is not an SQLite database"),
    ("malformed", "is corrupt (database disk image is malformed)"),
    ("disk i/o error", "cannot be read or written (disk I/O error)"),
    ("database is locked", "is locked by another process (waited 30 s)"),
    ("no such table", "is not a result store or is damaged (a table is missing)"),
)


def sqlite_problem(exc: sqlite3.Error) -> str:
    """The one-line problem an ``sqlite3.Error`` describes (the store's path goes before)."""
    text = str(exc)
    low = text.lower()
    for needle, problem in _PROBLEMS:
        if needle in low:
            return problem
    return f"cannot be used ({' '.join(text.split())})"
