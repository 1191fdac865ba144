"""The compiled simulation core (issue 15, decision C1): built at install time, optional.

CI installs the package from a clean clone (``.ci/run``), which builds the extension: the suite
fails if it is missing, unless the fallback is forced with ``RESILSCHED_NO_CORE=1``. Forcing it
in a subprocess shows the one-line warning and the same makespans from the pure-Python engines.
The engines' bit-for-bit comparisons live with their families (tests/rigid, tests/moldable).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from resilsched import core

ROOT = Path(__file__).resolve().parents[2]

SNIPPET = """
import numpy as np
from resilsched import core
from resilsched.heuristics.moldable import Simulator, lpa
from resilsched.instances.moldable.generators import paper_instance
inst = paper_instance("mix", 1, n=40, P=300)
F = np.random.default_rng(2).integers(0, 3, size=(5, inst.n))
sim = Simulator(inst)
print(core.available())
print([float(x) for x in sim.makespans(F, lpa)])
print([float(x) for x in sim.makespans(F, lpa)])
"""


def _run(env_value: str | None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in core.DISABLE_VARIABLES}
    if env_value is not None:
        env["RESILSCHED_NO_CORE"] = env_value
    return subprocess.run([sys.executable, "-c", SNIPPET], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=120)


def test_the_core_is_built_by_the_install():
    if core.disabled():
        pytest.skip(f"core disabled by {core.disabled()}")
    assert core.available(), "resilsched._core was not built: pip install -e . needs gcc"
    assert {"moldable_list", "rigid"} <= set(dir(core.module()))


def test_forced_fallback_warns_once_and_gives_the_same_makespans():
    built = _run(None)
    forced = _run("1")
    assert built.returncode == 0, built.stderr
    assert forced.returncode == 0, forced.stderr
    lines = forced.stderr.strip().splitlines()
    assert len(lines) == 1 and "RESILSCHED_NO_CORE" in lines[0] and "pure-Python" in lines[0]
    assert forced.stdout.splitlines()[0] == "False"
    if core.available():
        assert built.stderr == ""
        assert built.stdout.splitlines()[0] == "True"
    # same makespans, to the bit (repr of the floats)
    assert built.stdout.splitlines()[1:] == forced.stdout.splitlines()[1:]


def test_disabled_reads_both_variable_names(monkeypatch):
    for name in core.DISABLE_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    assert core.disabled() is None
    monkeypatch.setenv("RESILSCHED_NO_CORE", "0")
    assert core.disabled() is None
    monkeypatch.setenv("RESILSCHED_NO_C", "1")
    assert core.disabled() == "RESILSCHED_NO_C"


def test_no_runtime_compilation_in_the_engines():
    # issue 15: speed comes from the build-time extension, never from a compiler at run time
    # (ctypes only opens the shared objects the installer built: resilsched.core.CtypesKernels)
    loaders = [ROOT / "resilsched" / "core.py", ROOT / "heuristics" / "desktop" / "_ckernel.py",
               ROOT / "models" / "coschedule" / "_cclosure.py",
               ROOT / "models" / "rigid" / "crefute.py"]
    for path in [*(ROOT / "heuristics" / "moldable").glob("*.py"),
                 *(ROOT / "heuristics" / "rigid").glob("*.py"), *loaders]:
        text = path.read_text()
        for word in ("subprocess", "ccompiler", "distutils", "sysconfig", '"cc"', '"gcc"'):
            assert word not in text, (path, word)
