"""``resilsched generate`` trees are byte-identical for fixed seeds (issue 28): the instance
files hash to what the command wrote before it went through `resilsched.library.build` (the
digests below were taken from the trees of the original ``cmd_generate``), and the manifest is,
byte for byte, the one it wrote (rebuilt here independently of the writer)."""

from __future__ import annotations

import hashlib
import json

import pytest

from resilsched.versions import versions

#: (family, preset, seed, count) -> (number of files, sha256 of the "name sha256" lines of the
#: instance files, sorted by name), from the trees written by the original code
TREES = {
    ("rigid", "smoke", 3, None): (12, "1c804830bc21c316dfb4823479efd1e3"
                                      "175d5f87fca63fb4b4886750040937ee"),
    ("moldable", "smoke", 5, 4): (4, "64ee454614316368f52dff36306ad757"
                                     "2253be3d614e9470309b914306614131"),
    ("worksharing", "random", 0, 3): (3, "54f806382db98259cf12b3ff78a8a116"
                                         "dce749ad3b405344cadf840def6b96df"),
    ("coschedule", "random-integer", 7, 3): (3, "a6997279047c54852fedba1e58269734"
                                                "37566f939c91b1ff77dd9ced82340d70"),
}


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize("key", list(TREES), ids=lambda k: f"{k[0]}-{k[1]}")
def test_generate_writes_the_same_tree(run, tmp_path, key):
    family, preset, seed, count = key
    out = tmp_path / "tree"
    argv = ["generate", "--family", family, "--preset", preset, "--seed", seed, "--out", out,
            "--json"]
    if count is not None:
        argv += ["--count", count]
    code, printed, err = run(*argv)
    assert code == 0, err
    files = sorted(p for p in out.iterdir() if p.name != "manifest.json")
    lines = "".join(f"{p.name} {_sha(p.read_bytes())}\n" for p in files)
    assert (len(files), _sha(lines.encode())) == TREES[key]
    # the manifest of the original writer: these keys, in this order, indented by one
    manifest = {"family": family, "preset": preset, "seed": seed, "count": len(files),
                **versions(("resilsched", "numpy", "python")),
                "files": [{"file": p.name, "name": json.loads(p.read_text()).get("name", ""),
                           "sha256": _sha(p.read_bytes())} for p in files]}
    assert (out / "manifest.json").read_text() == json.dumps(manifest, indent=1) + "\n"
    assert json.loads(printed) == manifest


def test_generate_refuses_an_unwritable_folder(run, tmp_path):
    target = tmp_path / "file"
    target.write_text("x")
    code, out, err = run("generate", "--family", "rigid", "--preset", "smoke", "--out", target)
    assert (code, out) == (2, "")
    assert err == f"error: --out={target}: is a file, not a directory\n"
