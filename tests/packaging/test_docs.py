"""What surrounds the package says what is true (issue 25, sections 1 and 2): the declared
dependencies, the spec citations, the papers in the README, the changelog, the architecture
page's counts and docs/schemas.md's commands."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from importlib.metadata import requires, version
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

from resilsched import __version__
from resilsched.library.catalog import shipped
from resilsched.registry import available_families

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
DEPENDENCIES = {r.name: r for r in map(Requirement, PYPROJECT["project"]["dependencies"])}


def _lowest(requirement: Requirement) -> Version | None:
    """The lower bound of a requirement (``>=``, ``==`` or ``~=``), or None."""
    bounds = [Version(s.version.rstrip(".*")) for s in requirement.specifier
              if s.operator in (">=", "==", "~=")]
    return max(bounds, default=None)


def test_the_installed_versions_satisfy_the_declared_ones():
    for name, requirement in DEPENDENCIES.items():
        assert requirement.specifier.contains(version(name), prereleases=True), name


@pytest.mark.parametrize("name", sorted(DEPENDENCIES))
def test_no_declared_bound_is_below_what_a_dependency_requires(name):
    """Our lower bound on X is never looser than the bound another dependency puts on X (as
    `numpy>=1.26` was, while OR-Tools 9.15 requires numpy >= 2.0.2)."""
    for text in requires(name) or []:
        theirs = Requirement(text)
        if theirs.marker is not None and not theirs.marker.evaluate({"extra": ""}):
            continue
        ours = DEPENDENCIES.get(theirs.name.lower())
        if ours is None or _lowest(theirs) is None:
            continue
        assert _lowest(ours) is not None and _lowest(ours) >= _lowest(theirs), (
            f"{name} requires {theirs}; pyproject.toml declares {ours}")


def _spec_sections() -> dict[str, set[str]]:
    """docs/specs.md: spec number -> the sections its tables list."""
    out: dict[str, set[str]] = {}
    current = None
    for line in (ROOT / "docs" / "specs.md").read_text().splitlines():
        if m := re.match(r"## spec (\d{3})", line):
            current = out.setdefault(m.group(1), set())
        elif current is not None and (m := re.match(r"\| (\d+(?:\.\d+)*) \|", line)):
            current.add(m.group(1))
    return out


def _citations() -> set[tuple[str, str]]:
    """Every (spec, section) cited as ``spec NNN §X`` in the code and the docs."""
    out = set()
    for folder in ("resilsched", "models", "heuristics", "bounds", "instances", "scripts", "csrc",
                   "docs"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix in (".py", ".md", ".c", ".h"):
                text = path.read_text(errors="ignore")
                out |= set(re.findall(r"spec (\d{3}),? §(\d+(?:\.\d+)*)", text))
    return out


def test_every_cited_spec_section_is_listed():
    listed = _spec_sections()
    assert set(listed) == {"000", "001", "002", "003", "004"}
    cited = _citations()
    assert len(cited) > 50
    missing = sorted((n, s) for n, s in cited
                     if s not in listed[n] and s.split(".")[0] not in listed[n])
    assert missing == []


def test_the_readme_cites_the_five_papers():
    yaml = pytest.importorskip("yaml")
    readme = " ".join((ROOT / "README.md").read_text().split())
    papers = yaml.safe_load((ROOT / "CITATION.cff").read_text())["references"]
    assert len(papers) == 5
    for paper in papers:
        assert paper["title"] in readme, paper["title"]
        assert str(paper["year"]) in readme
        for author in paper["authors"]:
            assert author["family-names"] in readme
    assert "docs/specs.md" in readme and "spec 002 §7" in readme


def test_the_changelog_has_this_version_and_what_is_unreleased():
    text = (ROOT / "CHANGELOG.md").read_text()
    assert re.search(r"^## Unreleased$", text, re.M)
    assert re.search(rf"^## {re.escape(__version__)}\b", text, re.M)


def test_the_architecture_page_counts_what_exists():
    text = " ".join((ROOT / "docs" / "architecture.md").read_text().split())
    count = ("no", "one", "two", "three", "four", "five", "six", "seven")[len(available_families())]
    assert f"the {count} problem families" in text
    assert "about a minute" not in text
    shipped_sentence = re.search(r"Shipped: (.*?) \(100 instances each", text).group(1)
    assert {lib.name for lib in shipped()} <= set(re.findall(r"`([\w-]+)`", shipped_sentence))
    assert "CHANGELOG.md" in text and (ROOT / "CHANGELOG.md").is_file()


def _schemas_doc_block(lang: str) -> str:
    text = (ROOT / "docs" / "schemas.md").read_text()
    return re.findall(rf"```{lang}\n(.*?)```", text, re.S)[0]


def test_the_schemas_page_python_runs_as_written():
    pytest.importorskip("jsonschema")
    done = subprocess.run([sys.executable, "-c", _schemas_doc_block("python")], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "valid\n"


def test_the_schemas_page_shell_command_prints_the_schema_file():
    command = _schemas_doc_block("sh").strip()
    assert command.startswith("python -c ")
    code = re.fullmatch(r'python -c "(.*)"', command).group(1)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert Path(done.stdout.strip()).is_file() and done.stdout.strip().endswith(
        "instance-rigid.json")
