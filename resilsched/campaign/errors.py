"""The errors of campaigns: bad input to a campaign (`CampaignError`) and unusable stores
(`StoreError`); both are one line, and the commands exit with status 2 on them."""

from __future__ import annotations

from resilsched.errors import InvalidInstance


class CampaignError(ValueError):
    """A campaign cannot run as asked (configuration mismatch, bad spec, missing Dask); the
    message is one line."""


class PathError(CampaignError, InvalidInstance):
    """A file or folder that cannot be used as asked: ``PathError(what, problem)`` reads
    ``what: problem``, e.g. ``--csv rows/: is a directory, not a file``.

    It is an `InvalidInstance` too (bad input named by its path), so every command reports it
    in one line with exit status 2.
    """


class StoreError(PathError):
    """A result store that cannot be used as asked: ``StoreError(path, problem)`` reads
    ``path: problem`` (a directory, a foreign or corrupt file, a full disk, a read-only file).

    >>> str(StoreError("results.sqlite", "is a directory, not a result store file"))
    'results.sqlite: is a directory, not a result store file'
    """
