"""The documentation site: every page of docs/ in the nav of mkdocs.yml, links between pages
that resolve, and the site built with warnings as errors (`mkdocs build --strict`, the one
documented command; skipped when the `docs` extra is not installed), also from a fresh clone."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")
               if "_hooks" not in p.parts)


def nav() -> list[str]:
    """The pages of mkdocs.yml's nav, in order."""
    text = (ROOT / "mkdocs.yml").read_text()
    block = text.split("\nnav:\n", 1)[1]
    return re.findall(r"^\s+- (?:[^:\n]+: )?(\S+\.md)\s*$", block, flags=re.M)


def test_every_page_is_in_the_nav_once_and_the_nav_names_only_pages():
    entries = nav()
    assert len(entries) == len(set(entries)), "a page twice in the nav"
    missing = sorted(set(PAGES) - set(entries))
    assert not missing, f"add {missing} to the nav of mkdocs.yml"
    assert sorted(entries) == PAGES, sorted(set(entries) - set(PAGES))


def test_links_between_pages_resolve():
    for page in PAGES:
        text = (DOCS / page).read_text()
        text = re.sub(r"```.*?```", "", text, flags=re.S)  # code is not a link
        for target in re.findall(r"\]\(([^)#\s]+\.md)(?:#[^)]*)?\)", text):
            if "://" in target:
                continue
            assert (DOCS / page).parent.joinpath(target).resolve().is_file(), (page, target)


def build(cwd: Path, mkdocs: list[str], site: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    return subprocess.run([*mkdocs, "build", "--strict", "--site-dir", str(site)], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=900)


@pytest.mark.xdist_group("checkout-build")  # never beside `python -m build` of the checkout
def test_the_site_builds_with_warnings_as_errors(tmp_path):
    pytest.importorskip("mkdocs", reason="the docs extra: pip install -e '.[docs]'")
    pytest.importorskip("mkdocstrings")
    done = build(ROOT, [sys.executable, "-m", "mkdocs"], tmp_path / "site")
    assert done.returncode == 0, done.stderr[-3000:]
    for page in PAGES:
        stem = page[:-3]
        html = (stem[:-len("index")] if stem.endswith("index") else stem + "/") + "index.html"
        assert (tmp_path / "site" / html).is_file(), page
    api = (tmp_path / "site" / "api" / "rigid" / "index.html").read_text()
    assert "solve_scenario" in api and "r_list_0" in api and "lower_bound" in api
    front = (tmp_path / "site" / "api" / "resilsched" / "index.html").read_text()
    assert "time_limit" in front and "HeuristicResult" in front


@pytest.mark.slow
def test_a_fresh_clone_installs_and_builds_the_site(tmp_path):
    """Getting started's install and docs commands, as written, in a clone of HEAD."""
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    page = (DOCS / "getting-started.md").read_text()
    blocks = re.findall(r"^```sh\n(.*?)^```", page, flags=re.S | re.M)
    install = next(b for b in blocks if "pip install -e '.[dev]'" in b).strip()
    docs = next(b for b in blocks if "mkdocs build --strict" in b).strip()
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    for line in (install, docs):
        done = subprocess.run(["bash", "-c", line], cwd=clone, env=env, capture_output=True,
                              text=True, timeout=3600)
        assert done.returncode == 0, (line, done.stderr[-3000:])
    assert (clone / "build" / "site" / "api" / "rigid" / "index.html").is_file()
