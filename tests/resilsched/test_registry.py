"""Heuristics registered by installed distributions (issue 22, "Entry points"), and clashes
refused in one line naming both sides, never silently ignored.

Each distribution is a real wheel (built here by hand: a zip with its dist-info) installed by
pip into a folder of its own (``pip install --target``); the commands run in a subprocess with
that folder on ``PYTHONPATH``, so `importlib.metadata` finds the distribution as it would in a
user's environment (several commands on one distribution share one such process).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

EP_MODULE = '''
from resilsched.heuristics.rigid import r_list_0


def run(instance, scenario=None, priority=None, *, seed: int = 0, extra: int = 0):
    """EP-LPT: R-LIST-0 with LPT, registered by an entry point."""
    res = r_list_0(instance, scenario, "LPT")
    return res
'''


def _wheel(folder: Path, name: str, entry_points: str, module: str) -> Path:
    """A pure-Python wheel of distribution `name` 1.0 holding ``<name>_mod.py``."""
    info = f"{name}-1.0.dist-info"
    files = {
        f"{name}_mod.py": module,
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: hand\nRoot-Is-Purelib: true\n"
                         "Tag: py3-none-any\n",
        f"{info}/entry_points.txt": entry_points,
    }
    record = []
    for path, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=")
        record.append(f"{path},sha256={digest.decode()},{len(text.encode())}")
    files[f"{info}/RECORD"] = "\n".join([*record, f"{info}/RECORD,,"]) + "\n"
    path = folder / f"{name}-1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as zf:
        for name_, text in files.items():
            zf.writestr(name_, text)
    return path


@pytest.fixture
def install(tmp_path):
    """install(name, entry_points) -> a folder where pip installed that distribution."""

    def _install(name: str, entry_points: str, module: str = EP_MODULE) -> Path:
        target = tmp_path / f"site-{name}"
        wheel = _wheel(tmp_path, name, entry_points, module)
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index",
                        "--target", str(target), str(wheel)], check=True, timeout=120)
        return target

    return _install


def _resilsched(cwd: Path, sites: list[Path], *argv: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, sites))}
    return subprocess.run([sys.executable, "-m", "resilsched", *argv], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


#: runs each command of argv[1] (a JSON list of argument lists) with `resilsched.cli.main` in
#: this one fresh process; prints the JSON list of [exit status, stdout, stderr]
_MANY = """
import contextlib, io, json, sys
from resilsched.cli import main
done = []
for argv in json.loads(sys.argv[1]):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    done.append([code, out.getvalue(), err.getvalue()])
print(json.dumps(done))
"""


def _resilsched_many(cwd: Path, sites: list[Path],
                     *commands: list[str]) -> list[tuple[int, str, str]]:
    """(exit status, stdout, stderr) of each command, run one after the other in one fresh
    process that finds the distributions of `sites` (as `_resilsched`, one start, not one per
    command)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, sites))}
    done = subprocess.run([sys.executable, "-c", _MANY, json.dumps(commands)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return [tuple(r) for r in json.loads(done.stdout)]


HEURISTICS = "[resilsched.heuristics]\n"


def test_an_installed_distribution_adds_a_heuristic_by_name(install, tmp_path):
    site = install("epdemo", HEURISTICS + "rigid:EP-LPT = epdemo_mod:run\n")
    example = Path(__file__).resolve().parents[2] / "examples" / "rigid-small.json"
    listed, text, simulated, checked = _resilsched_many(
        tmp_path, [site], ["list", "--family", "rigid", "--json"], ["list", "--family", "rigid"],
        ["simulate", str(example), "--heuristic", "ep-lpt", "--json"],
        ["check", "--library", "rigid-small", "--heuristic", "EP-LPT", "--jobs", "2", "-q",
         "--json"])
    assert listed[0] == 0, listed[2]
    entry = json.loads(listed[1])["families"]["rigid"]["heuristics"]["EP-LPT"]
    assert entry["origin"] == "entry point of epdemo"
    assert entry["description"] == "EP-LPT: R-LIST-0 with LPT, registered by an entry point."
    assert list(entry["params"]) == ["extra"]
    assert "  heuristic EP-LPT: EP-LPT: R-LIST-0 with LPT, registered by an entry point. " \
           "(entry point of epdemo)" in text[1]
    assert simulated[0] == 0, simulated[2]
    assert json.loads(simulated[1])["heuristic"] == "EP-LPT"  # stamped: the registered name
    assert checked[0] == 0, checked[2]
    (row,) = json.loads(checked[1])["heuristics"]
    assert (row["heuristic"], row["cases"], row["violations"]) == ("EP-LPT", 100, 0)


@pytest.mark.parametrize("entry_points, message", [
    (HEURISTICS + "rigid:R-LIST-0 = epclash_mod:run\n",
     "error: entry point resilsched.heuristics 'rigid:R-LIST-0' = 'epclash_mod:run' "
     "(distribution epclash 1.0): clashes with the built-in heuristic R-LIST-0 of rigid\n"),
    (HEURISTICS + "rigid:r-list-0 = epclash_mod:run\n",
     "error: entry point resilsched.heuristics 'rigid:r-list-0' = 'epclash_mod:run' "
     "(distribution epclash 1.0): clashes with the built-in heuristic R-LIST-0 of rigid\n"),
    ("[resilsched.families]\nrigid = epclash_mod\n",
     "error: entry point resilsched.families 'rigid' = 'epclash_mod' (distribution epclash "
     "1.0): clashes with the built-in family 'rigid' (resilsched.families.rigid)\n"),
    (HEURISTICS + "nofamily:X = epclash_mod:run\n",
     "error: entry point resilsched.heuristics 'nofamily:X' = 'epclash_mod:run' "
     "(distribution epclash 1.0): names the family 'nofamily', which is not installed "
     "(choose from coschedule, desktop, malleable, moldable, online, rigid, worksharing)\n"),
    (HEURISTICS + "rigid:BAD = epclash_mod:nothing\n",
     "error: entry point resilsched.heuristics 'rigid:BAD' = 'epclash_mod:nothing' "
     "(distribution epclash 1.0): does not import (AttributeError: module 'epclash_mod' has "
     "no attribute 'nothing')\n"),
])
def test_a_clash_or_a_broken_entry_point_is_refused_in_one_line(install, tmp_path,
                                                                entry_points, message):
    site = install("epclash", entry_points)
    done = _resilsched(tmp_path, [site], "list")
    assert (done.returncode, done.stdout, done.stderr) == (2, "", message)


def test_two_distributions_registering_one_name_clash(install, tmp_path):
    one = install("epdemo", HEURISTICS + "rigid:MINE = epdemo_mod:run\n")
    two = install("eptwo", HEURISTICS + "rigid:mine = eptwo_mod:run\n")
    done = _resilsched(tmp_path, [one, two], "gap", "--family", "rigid", "-q")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith("error: entry point resilsched.heuristics 'rigid:mine' = "
                                  "'eptwo_mod:run' (distribution eptwo 1.0): clashes with the "
                                  "entry point resilsched.heuristics 'rigid:MINE' = "
                                  "'epdemo_mod:run' (distribution epdemo 1.0)")
