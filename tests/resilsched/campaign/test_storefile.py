"""Store files and output paths at the boundary (docs/campaigns.md, "The store file"): a store
that is a directory, a text, binary, truncated, foreign or damaged file is refused in one line
naming it (exit status 2) by ``campaign run``, ``report`` and ``campaign export``, and the
read-only commands leave it byte for byte as it was, with no ``-wal``/``-shm`` file beside it;
a full disk keeps the rows stored so far; a store on read-only media is reported and exported;
stored rows holding NaN or malformed JSON are left out and named."""

from __future__ import annotations

import csv
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from resilsched.campaign import ResultStore
from resilsched.campaign import engine as campaign_engine
from resilsched.campaign import store as store_module
from tests.support.campaign.fixtures import ISSUE_EXAMPLE, stored_campaign

#: a campaign of 8 fast rows (R-LIST-0 on one instance, 4 scenarios at 2 q-bar values)
SMALL = ISSUE_EXAMPLE.replace("count = 4\nseed = 1", "count = 1\nseed = 1").replace(
    "count = 5", "count = 2").replace('[[algorithms]]\nname = "R-SHELF-B"\npriority = ["LPT"]\n',
                                      "")


@pytest.fixture(scope="module")
def good(tmp_path_factory) -> Path:
    """A valid store of the SMALL campaign (copy it before changing it)."""
    return stored_campaign(tmp_path_factory.mktemp("good"), SMALL, "good.sqlite")


def _foreign(path: Path, wal: bool) -> None:
    con = sqlite3.connect(path)
    if wal:
        con.execute("PRAGMA journal_mode=WAL")
    con.execute("CREATE TABLE sales (item TEXT, price REAL)")
    con.execute("INSERT INTO sales VALUES ('pen', 1.5)")
    con.commit()
    con.close()


def _dropped(path: Path, good: Path) -> None:
    shutil.copy(good, path)
    con = sqlite3.connect(path)
    con.execute("DROP TABLE results")
    con.commit()
    con.close()


#: name -> (how to make the file, the problem the one line names)
BAD_FILES = {
    "directory": (lambda p, g: p.mkdir(), "is a directory"),
    "text": (lambda p, g: p.write_text("campaign,rows\nrigid,3\n"), "it is a text file"),
    "binary": (lambda p, g: p.write_bytes(bytes(range(256)) * 4), "it is a binary file"),
    "truncated": (lambda p, g: p.write_bytes(g.read_bytes()[:3000]), "is truncated"),
    "short header": (lambda p, g: p.write_bytes(g.read_bytes()[:40]), "is truncated"),
    "foreign": (lambda p, g: _foreign(p, wal=False), "not a result store (it holds the tables "
                                                     "sales)"),
    "foreign WAL": (lambda p, g: _foreign(p, wal=True), "not a result store"),
    "results dropped": (lambda p, g: _dropped(p, g), "it has no table results"),
}
#: refused by the read-only commands only (``campaign run`` makes a store of them)
READ_ONLY_BAD = {
    "empty": (lambda p, g: p.write_bytes(b""), "is an empty file"),
    "missing": (lambda p, g: None, "no such store"),
}


def _snapshot(folder: Path) -> dict[str, bytes | None]:
    return {p.name: (p.read_bytes() if p.is_file() else None) for p in folder.iterdir()}


def _one_line(code: int, out: str, err: str, path: Path, problem: str) -> None:
    assert code == 2 and out == "", (code, out, err)
    assert err.startswith(f"error: {path}: ") and err.count("\n") == 1, err
    assert problem in err, err


@pytest.mark.parametrize("kind", sorted(BAD_FILES) + sorted(READ_ONLY_BAD))
def test_read_only_commands_refuse_a_bad_store_untouched(kind, good, run, tmp_path):
    make, problem = {**BAD_FILES, **READ_ONLY_BAD}[kind]
    folder = tmp_path / "stores"
    folder.mkdir()
    path = folder / "store.sqlite"
    make(path, good)
    before = _snapshot(folder)
    for argv in (["report", path, "--out", tmp_path / "report", "--no-plots"],
                 ["campaign", "export", path, "--csv", tmp_path / "rows.csv"]):
        _one_line(*run(*argv), path, problem)
        assert _snapshot(folder) == before  # byte for byte, and no -wal/-shm file appeared
    assert not (tmp_path / "report").exists() and not (tmp_path / "rows.csv").exists()


@pytest.mark.parametrize("kind", sorted(BAD_FILES))
def test_run_refuses_a_bad_store_before_any_task(kind, good, spec, run, tmp_path):
    make, problem = BAD_FILES[kind]
    folder = tmp_path / "stores"
    folder.mkdir()
    path = folder / "store.sqlite"
    make(path, good)
    before = _snapshot(folder)
    _one_line(*run("campaign", "run", spec(SMALL), "--store", path, "-q"), path, problem)
    assert _snapshot(folder) == before


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc")
def test_proc_paths_and_devices_are_refused(spec, run, tmp_path):
    for path, problem in [("/proc/self/status", "it is a text file"),
                          ("/dev/null", "is not a regular file"),
                          ("/proc/no-such-dir/s.sqlite", "cannot be created")]:
        _one_line(*run("campaign", "run", spec(SMALL), "--store", path, "-q"), Path(path),
                  problem)
        _one_line(*run("campaign", "export", path, "--csv", tmp_path / "r.csv"), Path(path),
                  "" if "no-such" not in path else "no such store")


def test_run_makes_a_store_of_an_empty_file(spec, run, tmp_path):
    path = tmp_path / "made-by-mktemp"
    path.write_bytes(b"")
    code, _, err = run("campaign", "run", spec(SMALL), "--store", path, "-q")
    assert code == 0, err
    with ResultStore(path, readonly=True) as store:
        assert store.count("rigid-qbar") == 8


def test_bad_output_paths_are_one_line_before_any_work(good, run, tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("keep me")
    folder = tmp_path / "folder"
    folder.mkdir()
    cases = [(["report", good, "--out", afile], f"error: --out {afile}: is a file, not a folder"),
             (["campaign", "export", good, "--csv", folder], f"error: --csv {folder}: is a "
                                                             "directory, not a file"),
             (["campaign", "export", good, "--csv", afile / "x.csv"], "is a file, not a folder"),
             (["campaign", "export", good, "--parquet", folder], "is a directory")]
    if Path("/dev/full").exists():  # a full disk, as Linux offers one
        cases.append((["campaign", "export", good, "--csv", "/dev/full"],
                      "error: --csv /dev/full: cannot be written (No space left on device)"))
    for argv, expected in cases:
        code, out, err = run(*argv)
        assert code == 2 and out == "" and err.count("\n") == 1, err
        assert err.startswith(expected) or expected in err, err
    assert afile.read_text() == "keep me" and list(folder.iterdir()) == []


def test_a_full_disk_keeps_the_rows_stored_so_far(spec, run, tmp_path, monkeypatch):
    """The disk fills up once some rows are stored: SQLite's own limit on the database size
    (``PRAGMA max_page_count`` set to the pages in use) gives the error a full disk gives
    (SQLITE_FULL) at the next write; the rows stored before stay, and the same command finishes
    the campaign once there is room again."""
    path = tmp_path / "full.sqlite"
    text = ISSUE_EXAMPLE.replace("count = 5", "count = 20")  # 480 rows
    add_texts = ResultStore.add_texts

    def filling(self, *args):
        n = add_texts(self, *args)
        # no free page left to reuse (the claims just deleted freed some, and a next chunk
        # could fit in them), then no page may be added: the disk is full now
        self._db.execute("VACUUM")
        pages = self._db.execute("PRAGMA page_count").fetchone()[0]
        self._db.execute(f"PRAGMA max_page_count = {pages}")
        return n

    monkeypatch.setattr(ResultStore, "add_texts", filling)
    # a commit per task (480 fast tasks could otherwise be one commit, leaving none to fail)
    monkeypatch.setattr(campaign_engine, "INLINE_COMMIT_SECONDS", 0.0)
    code, out, err = run("campaign", "run", spec(text), "--store", path, "-q", "--executor",
                         "inline")
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert err.startswith(f"error: {path}: cannot be written: the disk is full; ")
    with ResultStore(path, readonly=True) as store:
        kept = store.count("rigid-qbar")
    assert 0 < kept < 480 and f"; {kept}/480 tasks are stored and kept" in err
    monkeypatch.setattr(ResultStore, "add_texts", add_texts)
    code, out, err = run("campaign", "run", spec(text), "--store", path, "-q", "--json")
    assert code == 0, err
    assert json.loads(out)["already_stored"] == kept and json.loads(out)["stored"] == 480
    con = sqlite3.connect(path)
    assert con.execute("SELECT COUNT(*), COUNT(DISTINCT key) FROM results").fetchone() == (480,
                                                                                            480)
    con.close()


def _unprivileged() -> list[str] | None:
    """The command prefix that runs a process without the right to write a read-only folder:
    nothing for an ordinary user; ``unshare -U`` for root (a user namespace without a mapping:
    the file permission bits apply to it); None when root cannot drop that right."""
    if os.geteuid() != 0:
        return []
    if shutil.which("unshare") is None:
        return None
    probe = subprocess.run(["unshare", "-U", "true"], capture_output=True)
    return ["unshare", "-U"] if probe.returncode == 0 else None


def test_a_store_on_read_only_media_is_reported_and_exported(good, tmp_path):
    prefix = _unprivileged()
    if prefix is None:
        pytest.skip("root, and no user namespace to give up the right to write")
    media = tmp_path / "media"
    media.mkdir()
    path = media / "results.sqlite"
    shutil.copy(good, path)
    out = tmp_path / "out"
    out.mkdir()
    expected = []
    with ResultStore(good, readonly=True) as store:
        expected = sorted(k for k, *_ in store.texts("rigid-qbar"))
    path.chmod(0o444)
    media.chmod(0o555)
    try:
        before = _snapshot(media)
        cli = [*prefix, sys.executable, "-m", "resilsched"]

        def resilsched(*argv):
            return subprocess.run([*cli, *map(str, argv)], capture_output=True, text=True,
                                  timeout=120)

        r = resilsched("campaign", "export", path, "--csv", out / "rows.csv")
        assert r.returncode == 0, r.stderr
        with open(out / "rows.csv") as f:
            assert sorted(row["key"] for row in csv.DictReader(f)) == expected
        r = resilsched("report", path, "--out", out / "report", "--no-plots")
        assert r.returncode == 0, r.stderr
        assert "8 rows (one per task)" in (out / "report" / "report.md").read_text()
        (tmp_path / "spec.toml").write_text(SMALL)
        r = resilsched("campaign", "run", tmp_path / "spec.toml", "--store", path, "-q")
        assert r.returncode == 2 and r.stdout == "" and r.stderr.count("\n") == 1, r.stderr
        assert r.stderr.startswith(f"error: {path}: is read-only")
        assert _snapshot(media) == before
    finally:
        media.chmod(0o755)
        path.chmod(0o644)


def test_rows_holding_nan_or_malformed_json_are_left_out_and_named(good, run, tmp_path):
    path = tmp_path / "tampered.sqlite"
    shutil.copy(good, path)
    con = sqlite3.connect(path)
    keys = [k for (k,) in con.execute("SELECT key FROM results ORDER BY rowid LIMIT 5")]
    bad = ['{"objective": NaN, "ratio": NaN}', '{"objective": 3, "ratio": ',
           '{"objective": 3, "ratio": 1e999}', '{"objective": 3, "ratio": "x"}']
    for key, text in zip(keys, bad, strict=False):
        con.execute("UPDATE results SET result = ? WHERE key = ?", (text, key))
    con.execute("UPDATE results SET fields = '[1]' WHERE key = ?", (keys[4],))
    con.commit()
    con.close()
    code, out, err = run("report", path, "--out", tmp_path / "rep", "--no-plots", "--json")
    assert code == 0, err
    result = json.loads(out)
    assert result["rows"] == 3 and len(result["left_out"]) == 5
    assert err.startswith("warning: 5 stored row(s) left out") and err.count("\n") == 1
    md = (tmp_path / "rep" / "report.md").read_text()
    for key, reason in zip(keys, ["result holds NaN", "result is not valid JSON",
                                  "result holds the number 1e999", "result.ratio is not a "
                                  "number", "fields is not a JSON object"], strict=True):
        assert f"- key {key[:12]}: {reason}" in md
    summary = (tmp_path / "rep" / "summary.csv").read_text().lower()
    assert "nan" not in summary and "inf" not in summary
    with open(tmp_path / "rep" / "rows.csv") as f:
        assert {row["key"] for row in csv.DictReader(f)}.isdisjoint(keys)
    code, out, err = run("campaign", "export", path, "--csv", tmp_path / "rows.csv", "--json")
    assert code == 0 and len(json.loads(out)["left_out"]) == 4  # "x" is JSON: exported as is
    assert "nan" not in (tmp_path / "rows.csv").read_text().lower()


def test_store_errors_name_the_path_in_python_too(tmp_path):
    from resilsched.campaign.errors import StoreError
    from resilsched.errors import InvalidInstance

    (tmp_path / "d").mkdir()
    with pytest.raises(StoreError) as err:
        ResultStore(tmp_path / "d")
    assert isinstance(err.value, InvalidInstance)  # every command reports it in one line
    assert str(err.value) == f"{tmp_path / 'd'}: is a directory, not a result store file"
    assert store_module.ResultStore is ResultStore
