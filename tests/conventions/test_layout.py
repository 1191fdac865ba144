"""Tests mirror the package (docs/architecture.md, "Tests"; decision T31).

The test of module ``<path>/<m>.py`` is ``tests/<path>/test_<m>.py``, or
``tests/<path>/test_<m>_<topic>.py`` when one module has several test files; a package's
``__init__.py`` is ``test_init.py``, and a leading underscore is dropped (``_ckernel.py`` ->
``test_ckernel.py``). The mirrored roots are the package's folders and ``scripts/``. Tests of no
single module sit in the cross-cutting folders below; shared helpers (oracles, strategies, case
builders, fixtures) in ``tests/support/``, which holds no tests.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"

#: the folders mirrored under tests/: the role folders, the namespace root and scripts/
MIRRORED = ("models", "heuristics", "bounds", "instances", "resilsched", "scripts")

#: tests of no single module, and what each holds
CROSS_CUTTING = {
    "conventions": "rules over the whole tree: dependency direction, doctests, lazy imports, "
                   "this layout",
    "docs": "the documentation: every command it shows runs, the site builds, pages written "
            "by scripts",
    "e2e": "the command line end to end across families and commands: bad input, help texts, "
           "time limits, examples",
    "packaging": "wheels, the CI job, the shipped schemas, declared dependencies, versions",
}

#: shared helpers, importable as ``tests.support.<area>.<name>``; never a test file
SUPPORT = "support"


def module_names(folder: Path) -> set[str]:
    """The names a test file in the mirror of `folder` may start with (see the module docstring)."""
    names = set()
    for path in folder.glob("*.py"):
        names.add("init" if path.stem == "__init__" else path.stem.lstrip("_"))
    return names


def problem(test: Path) -> str | None:
    """Why the test file `test` breaks the rule, or None when it follows it."""
    parts = test.relative_to(TESTS).parts
    if parts[0] in CROSS_CUTTING:
        return None
    if parts[0] == SUPPORT:
        return "tests/support/ holds helpers, not tests"
    if parts[0] not in MIRRORED:
        return f"tests/{parts[0]}/ is neither a mirror of {MIRRORED} nor a cross-cutting folder"
    folder = ROOT.joinpath(*parts[:-1])
    if not folder.is_dir():
        return f"{folder.relative_to(ROOT)}/ does not exist"
    name = test.stem.removeprefix("test_")
    if not any(name == m or name.startswith(m + "_") for m in module_names(folder)):
        return f"no module {folder.relative_to(ROOT)}/{name.split('_')[0]}*.py"
    return None


def test_every_test_file_maps_to_a_module_or_a_cross_cutting_folder():
    tests = sorted(TESTS.rglob("test_*.py"))
    assert len(tests) > 100
    wrong = {str(t.relative_to(ROOT)): problem(t) for t in tests if problem(t)}
    assert not wrong, wrong


def test_no_test_file_sits_at_the_top_of_tests():
    assert not list(TESTS.glob("test_*.py"))


def test_the_rule_refuses_what_it_must():
    assert problem(TESTS / "models" / "rigid" / "test_improve.py") is None
    assert problem(TESTS / "models" / "rigid" / "test_improve_serial.py") is None
    assert problem(TESTS / "heuristics" / "desktop" / "test_ckernel.py") is None
    assert problem(TESTS / "resilsched" / "campaign" / "test_init.py") is None
    assert problem(TESTS / "bounds" / "test_rigid.py") is None
    assert "no module" in problem(TESTS / "models" / "rigid" / "test_improver.py")
    assert "no module" in problem(TESTS / "heuristics" / "worksharing" / "test_ws_charts.py")
    assert "does not exist" in problem(TESTS / "models" / "nosuch" / "test_x.py")
    assert "neither" in problem(TESTS / "rigid" / "test_rlist.py")
    assert "helpers" in problem(TESTS / "support" / "rigid" / "test_oracle.py")
