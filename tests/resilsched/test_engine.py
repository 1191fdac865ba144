"""`resilsched.engine`: the compiled extensions (issue 15, decision C1), built at install
time and optional, and the one switch between them and the pure-Python engines.

CI installs the package from a clean clone (``.ci/run``), which builds the extensions: the suite
fails if one is missing, unless the fallback is forced with ``RESILSCHED_NO_CORE=1``. Forcing it
in a subprocess shows the one-line warning and the same makespans from the pure-Python engines.
`use` is a setter and a context manager; a ctypes extension is declared once (`Extension`),
its array arguments typed and its shared constants checked at load. The engines' bit-for-bit
comparisons live with the modules they compare (tests/heuristics/rigid/test_compiled.py,
tests/heuristics/moldable/test_kernel.py, tests/heuristics/desktop/test_ckernel.py,
tests/models/rigid/test_crefute.py, tests/models/coschedule/test_cclosure.py, ...), most on both
engines through the `engine_name` fixture (tests/conftest.py).
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from resilsched import engine
from resilsched.heuristics.desktop import _ckernel
from resilsched.models.coschedule import _cclosure
from resilsched.models.rigid import crefute
from resilsched.versions import EXTENSIONS

ROOT = Path(__file__).resolve().parents[2]

SNIPPET = """
import numpy as np
from resilsched import engine
from resilsched.heuristics.moldable import Simulator, lpa
from resilsched.instances.moldable.generators import paper_instance
inst = paper_instance("mix", 1, n=40, P=300)
F = np.random.default_rng(2).integers(0, 3, size=(5, inst.n))
sim = Simulator(inst)
print(engine.available())
print([float(x) for x in sim.makespans(F, lpa)])
print([float(x) for x in sim.makespans(F, lpa)])
"""


def _run(env_value: str | None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in engine.DISABLE_VARIABLES}
    if env_value is not None:
        env["RESILSCHED_NO_CORE"] = env_value
    return subprocess.run([sys.executable, "-c", SNIPPET], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=120)


def test_the_core_is_built_by_the_install():
    if engine.disabled():
        pytest.skip(f"core disabled by {engine.disabled()}")
    assert engine.available(), "resilsched._core was not built: pip install -e . needs gcc"
    assert {"moldable_list", "rigid"} <= set(dir(engine.module()))


def test_forced_fallback_warns_once_and_gives_the_same_makespans():
    built = _run(None)
    forced = _run("1")
    assert built.returncode == 0, built.stderr
    assert forced.returncode == 0, forced.stderr
    lines = forced.stderr.strip().splitlines()
    assert len(lines) == 1 and "RESILSCHED_NO_CORE" in lines[0] and "pure-Python" in lines[0]
    assert forced.stdout.splitlines()[0] == "False"
    if engine.available():
        assert built.stderr == ""
        assert built.stdout.splitlines()[0] == "True"
    # same makespans, to the bit (repr of the floats)
    assert built.stdout.splitlines()[1:] == forced.stdout.splitlines()[1:]


def test_disabled_reads_both_variable_names(monkeypatch):
    for name in engine.DISABLE_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    assert engine.disabled() is None
    monkeypatch.setenv("RESILSCHED_NO_CORE", "0")
    assert engine.disabled() is None
    monkeypatch.setenv("RESILSCHED_NO_C", "1")
    assert engine.disabled() == "RESILSCHED_NO_C"


def test_no_runtime_compilation_in_the_engines():
    # issue 15: speed comes from the build-time extension, never from a compiler at run time
    # (ctypes only opens the shared objects the installer built: resilsched.engine.library)
    loaders = [ROOT / "resilsched" / "engine.py", ROOT / "heuristics" / "desktop" / "_ckernel.py",
               ROOT / "models" / "coschedule" / "_cclosure.py",
               ROOT / "models" / "rigid" / "crefute.py"]
    for path in [*(ROOT / "heuristics" / "moldable").glob("*.py"),
                 *(ROOT / "heuristics" / "rigid").glob("*.py"), *loaders]:
        text = path.read_text()
        for word in ("subprocess", "ccompiler", "distutils", "sysconfig", '"cc"', '"gcc"'):
            assert word not in text, (path, word)


@pytest.fixture
def restored():
    """The engine switch and the loaded libraries as the environment sets them, afterwards."""
    yield
    engine.reset()


def test_use_is_a_setter_and_a_context_manager(restored, monkeypatch):
    for name in engine.DISABLE_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    engine.reset()
    assert engine.current() == "c"
    with engine.use("python"):
        assert engine.current() == "python"
        with engine.use("c"):
            assert engine.current() == "c"
        assert engine.current() == "python"
    assert engine.current() == "c"
    engine.use("python")
    assert engine.current() == "python"
    assert engine.module() is None and _ckernel.lib() is None and _cclosure.lib() is None
    assert crefute.library() is None
    engine.use("c")
    assert engine.current() == "c"
    with pytest.raises(ValueError, match="engine: 'fortran' is not one of c, python"):
        engine.use("fortran")
    assert engine.current() == "c"


def test_the_environment_sets_the_default(restored, monkeypatch, capsys):
    monkeypatch.setenv("RESILSCHED_NO_CORE", "1")
    engine.reset()
    assert engine.current() == "python"
    capsys.readouterr()
    assert engine.module() is None and engine.module() is None
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "disabled by RESILSCHED_NO_CORE" in err[0]
    with engine.use("python"):  # chosen, not defaulted: nothing to say
        assert _ckernel.lib() is None
    assert capsys.readouterr().err == ""
    if all(engine.built(name) for name in EXTENSIONS):
        with engine.use("c"):  # the switch overrides the default
            assert engine.module() is not None and _ckernel.lib() is not None


@pytest.mark.skipif(not all(engine.built(name) for name in EXTENSIONS), reason="not built")
def test_every_extension_loads_with_its_declaration(restored):
    with engine.use("c"):
        assert engine.module("_core") is not None
        for lib in (_ckernel.lib(), _cclosure.lib(), crefute.library()):
            assert lib is not None
        assert isinstance(crefute.library(), ctypes.PyDLL)


@pytest.mark.skipif(not engine.built("_desktop"), reason="not built")
def test_array_arguments_are_typed_and_counted(restored):
    with engine.use("c"):
        dll = _ckernel.lib()
    a = np.zeros(4, dtype=np.int64)
    dll.exec_rows(0, a, a, a, a, a, 1, a)  # R = 0: reads nothing
    with pytest.raises(ctypes.ArgumentError, match="argument 2: .*numpy array of int64"):
        dll.exec_rows(0, a.astype(np.int32), a, a, a, a, 1, a)
    with pytest.raises(ctypes.ArgumentError, match="argument 8"):
        dll.exec_rows(0, a, a, a, a, a, 1, a.ctypes.data)  # a bare address is refused
    with pytest.raises(ctypes.ArgumentError, match="argument 2"):
        dll.exec_rows(0, np.zeros((4, 2), dtype=np.int64)[:, 0], a, a, a, a, 1, a)  # strided
    with pytest.raises(TypeError, match="8 arguments"):
        dll.exec_rows(0, a, a, a, a, a, 1)


@pytest.mark.skipif(not engine.built("_refute"), reason="not built")
def test_a_library_that_disagrees_with_its_declaration_is_not_used(restored, capsys):
    wrong = engine.Extension(
        "_refute", "refutation search", "the pure-Python search", crefute.EXTENSION.functions,
        constants={**crefute.EXTENSION.constants, "rs_max_workers": crefute.MAX_WORKERS + 1},
        pydll=True)
    missing = engine.Extension("_refute", "refutation search", "the pure-Python search",
                               {"rs_no_such_function": (None, ())})
    for ext, said in ((wrong, "rs_max_workers = 16, expected 17"),
                      (missing, "rs_no_such_function")):
        engine.reset()
        with engine.use("c"):
            capsys.readouterr()
            assert engine.library(ext) is None and engine.library(ext) is None
        err = capsys.readouterr().err.splitlines()
        assert len(err) == 1 and said in err[0] and "pure-Python search" in err[0]
