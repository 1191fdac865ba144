"""The README's examples stay true: every file in examples/ loads, solves and simulates."""

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(p for p in (ROOT / "examples").glob("*.json") if p.name != "thresholds.json")


def test_there_is_an_example_per_family():
    from resilsched.registry import available_families

    families = {json.loads(p.read_text())["family"] for p in EXAMPLES}
    assert families == set(available_families())


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_solves_and_simulates(run, path):
    code, out, err = run("solve", path, "--json")
    assert code == 0, err
    assert json.loads(out)["status"] == "optimal"
    from resilsched.registry import get_family

    fam = get_family(json.loads(path.read_text())["family"])
    for h in fam.heuristics.values():
        code, out, err = run("simulate", path, "--heuristic", h.name, "--json")
        assert code == 0, err


def _readme_commands() -> list[list[str]]:
    """Every ``resilsched ...`` line of the README's shell blocks, comments cut."""
    readme = (ROOT / "README.md").read_text()
    blocks = [b.split("```", 1)[0] for b in readme.split("```sh\n")[1:]]
    return [ln.split("#")[0].split() for block in blocks for ln in block.splitlines()
            if ln.startswith("resilsched ")]


def test_readme_commands_run_as_written(run, tmp_path, monkeypatch):
    """Each `resilsched ...` line of the README exits 0, in order, from a fresh folder holding
    only `examples/` (so that what the commands write lands there)."""
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    monkeypatch.chdir(tmp_path)
    lines = _readme_commands()
    assert len(lines) >= 18
    for argv in lines:
        argv = argv[1:]
        if argv[0] in ("gap", "check"):
            argv.append("--quiet")
        code, _, err = run(*argv)
        assert code == 0, (argv, err)
        assert not re.search(r"Traceback", err)
