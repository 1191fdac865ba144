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


def test_readme_tour_commands_run(run, tmp_path, monkeypatch):
    """Each `resilsched ...` line of the README tour exits 0 (gap/check/list/generate included)."""
    monkeypatch.chdir(ROOT)
    readme = (ROOT / "README.md").read_text()
    tour = readme[readme.index("## A five-minute tour"):readme.index("`examples/` holds")]
    lines = [ln.split("#")[0].split() for ln in tour.splitlines() if ln.startswith("resilsched ")]
    assert len(lines) >= 8
    (tmp_path / "thresholds.json").write_text('{"max_gap": 10}')
    for argv in lines:
        argv = [a.replace("lib/", str(tmp_path / "lib")) for a in argv[1:]]
        argv = [str(tmp_path / a) if a == "thresholds.json" else a for a in argv]
        if argv[0] in ("gap", "check"):
            argv.append("--quiet")
        code, _, err = run(*argv)
        assert code == 0, (argv, err)
        assert not re.search(r"Traceback", err)


def test_readme_python_example_prints_what_it_says(capsys):
    """The README's Python snippet runs and prints the values its comments give."""
    readme = (ROOT / "README.md").read_text()
    code = readme.split("```python\n", 1)[1].split("```", 1)[0]
    exec(compile(code, "README.md", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    said = [ln.split("# ", 1)[1].split(": ")[-1] for ln in code.splitlines()
            if ln.startswith("print(")]
    assert printed == said
