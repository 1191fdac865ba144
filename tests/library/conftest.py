"""A tiny certified library built once per test session (``generate --solve``)."""

import json
import shutil

import pytest

from resilsched.cli import main


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


def tamper(folder, index, **meta):
    """Overwrite metadata fields of instance `index` (keeps the manifest's sha256 as it was)."""
    manifest = json.loads((folder / "manifest.json").read_text())
    path = folder / manifest["files"][index]["file"]
    data = json.loads(path.read_text())
    data["metadata"].update(meta)
    path.write_text(json.dumps(data, indent=1))
    return manifest["files"][index]
