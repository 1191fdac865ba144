"""A tiny certified library built once per test session (``generate --solve``)."""

import json
import shutil

import pytest

from resilsched.cli import main
from resilsched.library.catalog import sha256_text
from resilsched.library.certificate import Certificate


@pytest.fixture(scope="session")
def built_library(tmp_path_factory):
    """4 rigid library instances certified by ``generate --solve`` (read-only: copy it)."""
    out = tmp_path_factory.mktemp("lib") / "rigid-tiny"
    code = main(["generate", "--family", "rigid", "--preset", "library", "--seed", "5",
                 "--count", "4", "--out", str(out), "--solve", "-q", "--json"])
    assert code == 0
    return out


@pytest.fixture
def library_copy(built_library, tmp_path):
    """A writable copy of `built_library`."""
    dest = tmp_path / built_library.name
    shutil.copytree(built_library, dest)
    return dest


#: a value the tests write as the JSON number 1e999 (which Python's json reads as inf)
HUGE = "<1e999>"


def dumps(obj, **kw):
    """JSON text of `obj` with every `HUGE` string written as the number 1e999."""
    return json.dumps(obj, **kw).replace(json.dumps(HUGE), "1e999")


def tamper(folder, index, fix=False, **meta):
    """Overwrite metadata fields of instance `index`; `fix` also rewrites its manifest record
    (sha256, and the certificate's summary when it still reads) the way a forger would, else
    the manifest's sha256 is kept as it was. Returns the record."""
    manifest = json.loads((folder / "manifest.json").read_text())
    rec = manifest["files"][index]
    path = folder / rec["file"]
    data = json.loads(path.read_text())
    data["metadata"].update(meta)
    text = dumps(data, indent=1)
    path.write_text(text)
    if fix:
        rec["sha256"] = sha256_text(text)
        try:
            summary = Certificate.from_metadata(data["metadata"]).summary()
        except ValueError:
            summary = {}
        for key in ("status", "optimum", "optimum_exact", "lower_bound", "lower_bound_exact",
                    "upper_bound", "upper_bound_exact"):
            rec.pop(key, None)
        rec.update(summary)
        (folder / "manifest.json").write_text(dumps(manifest, indent=1))
    return rec
