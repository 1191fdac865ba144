"""The shipped JSON Schemas (resilsched/schemas/, docs/schemas.md; issue 25, section 2).

Checked with `jsonschema`, the reference implementation of JSON Schema, so that what passes
here passes in an editor or another tool: every schema is a valid draft 2020-12 schema; every
example, every shipped library file (instances and manifests), every campaign spec of the
examples and the docs, and what every family's presets write validate; and malformed files are
refused by the schema and by resilsched's reader alike (the reader stays the authority: it
refuses more, never less).
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from resilsched import schemas
from resilsched.campaign.spec import SpecError, parse_spec
from resilsched.errors import InvalidInstance
from resilsched.io import read_instances
from resilsched.library.catalog import shipped
from resilsched.registry import available_families, get_family

ROOT = Path(__file__).resolve().parents[2]
FAMILIES = available_families()


def _validator(name: str) -> Draft202012Validator:
    return Draft202012Validator(schemas.load(name))


def _errors(name: str, document: object) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
            for e in _validator(name).iter_errors(document)]


def _examples() -> list[Path]:
    return [p for p in sorted((ROOT / "examples").glob("*.json")) if p.name != "thresholds.json"]


def _campaign_specs() -> list[tuple[str, str]]:
    """(label, TOML text) of every campaign spec of examples/ and of the docs' TOML blocks."""
    out = [(p.name, p.read_text()) for p in sorted((ROOT / "examples").glob("*.toml"))]
    for page in sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]:
        blocks = re.findall(r"```toml\n(.*?)```", page.read_text(), re.S)
        out += [(f"{page.name}[{i}]", b) for i, b in enumerate(blocks) if "[campaign]" in b]
    return out


def test_every_format_has_a_schema():
    assert set(schemas.SCHEMAS) == {f"instance-{f}" for f in FAMILIES} | {
        "library-manifest", "campaign-spec"}


@pytest.mark.parametrize("name", schemas.SCHEMAS)
def test_schema_is_valid_and_names_the_authority(name):
    schema = schemas.load(name)
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert "stays the authority" in schema["description"]


def test_shared_definitions_are_the_same_in_every_schema():
    seen: dict[str, tuple[str, object]] = {}
    for name in schemas.SCHEMAS:
        for key, value in schemas.load(name).get("$defs", {}).items():
            first = seen.setdefault(key, (name, value))
            assert value == first[1], f"$defs/{key} differs in {name} and {first[0]}"


def test_the_files_are_found():
    assert len(_examples()) == len(FAMILIES) and len(shipped()) == len(FAMILIES)


@pytest.mark.parametrize("path", _examples(), ids=lambda p: p.name)
def test_every_example_instance_validates(path):
    data = json.loads(path.read_text())
    assert _errors(f"instance-{data['family']}", data) == []


@pytest.mark.parametrize("lib", shipped(), ids=lambda lib: lib.name)
def test_every_shipped_library_file_validates(lib):
    manifest = json.loads((lib.path / "manifest.json").read_text())
    assert _errors("library-manifest", manifest) == []
    validator = _validator(f"instance-{lib.family}")
    files = [p for p in sorted(lib.path.glob("*.json")) if p.name != "manifest.json"]
    assert len(files) == len(manifest["files"]) == 100
    for path in files:
        errors = [e.message for e in validator.iter_errors(json.loads(path.read_text()))]
        assert errors == [], path.name


def test_campaign_specs_are_found():
    labels = [label for label, _ in _campaign_specs()]
    assert "rigid-qbar.toml" in labels and "campaigns.md[0]" in labels
    assert "own-heuristic.md[0]" in labels


@pytest.mark.parametrize("label,text", _campaign_specs(), ids=[x for x, _ in _campaign_specs()])
def test_every_campaign_spec_validates(label, text):
    assert _errors("campaign-spec", tomllib.loads(text)) == []


@pytest.mark.parametrize("family", FAMILIES)
def test_what_the_presets_write_validates(family):
    fam = get_family(family)
    for name, gen in fam.generators.items():
        for inst in gen.generate(3, 1):
            assert _errors(f"instance-{family}", inst.to_dict()) == [], name


def _rigid(**change):
    return {"family": "rigid", "format_version": 1, "P": 4,
            "jobs": [{"p": 2, "t": 3}, {"p": 1, "t": "5/2"}], **change}


BAD_INSTANCES = [
    ("rigid", {"family": "rigid", "P": 4}),
    ("rigid", _rigid(P=0)),
    ("rigid", _rigid(jobs=[{"p": 2, "t": -1}])),
    ("rigid", _rigid(jobs=[{"p": 2.5, "t": 1}])),
    ("rigid", _rigid(jobs=[{"p": 2, "t": "one"}])),
    ("rigid", _rigid(failures=[0, -1])),
    ("rigid", _rigid(format_version=2)),
    ("moldable", {"family": "moldable", "P": 4, "jobs": [{"model": "linear", "w": 4}]}),
    ("moldable", {"family": "moldable", "P": 4,
                  "jobs": [{"model": "amdahl", "w": 4, "gamma": 2}]}),
    ("moldable", {"family": "moldable", "P": 4, "jobs": [{"model": "roofline", "w": 4}]}),
    ("coschedule", {"family": "coschedule", "p": 2, "k": 0, "tasks": [{"t": [2, 1]}]}),
    ("coschedule", {"family": "coschedule", "p": 2, "k": 1,
                    "tasks": [{"model": "synthetic", "m": 1}]}),
    ("worksharing", {"family": "worksharing", "W": 1, "workers": 1,
                     "risk": {"kind": "gamma", "X": 1}}),
    ("worksharing", {"family": "worksharing", "W": 1, "workers": 0,
                     "risk": {"kind": "linear", "X": 1}}),
    ("malleable", {"family": "malleable", "p": 2, "mtbf": None, "downtime": 0,
                   "tasks": [{"m": 10, "t": [2, 1], "f": 0.1}]}),
    ("malleable", {"family": "malleable", "p": 2, "mtbf": 100, "downtime": 0,
                   "tasks": [{"m": 10, "f": 0.1}], "period": "daily"}),
    ("desktop", {"family": "desktop", "machines": [{"b": 1, "a": [0], "u": [5]}],
                 "jobs": [{"p": 1}]}),
    ("desktop", {"family": "desktop", "machines": [{"b": 1, "a": [10], "u": [5]}],
                 "jobs": [{"p": 1}], "slack_rule": "yes"}),
    ("online", {"family": "online", "P": 2, "jobs": [{"p": 1, "t": 1}]}),
    ("online", {"family": "online", "P": 2, "qbar": 0.1, "jobs": [{"p": 1, "t": 1, "q": 0.1}]}),
    ("online", {"family": "online", "P": 2, "jobs": [{"p": 1, "t": 1, "q": 1}]}),
    ("online", {"family": "online", "P": 2, "jobs": [{"p": 1, "t": 1, "q": 0.1}],
                "failures": [0]}),
]


@pytest.mark.parametrize("family,document", BAD_INSTANCES)
def test_malformed_instances_are_refused_by_both(family, document, tmp_path):
    assert _errors(f"instance-{family}", document), "the schema accepted it"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(document))
    with pytest.raises(InvalidInstance):
        read_instances(path)


def test_a_limit_beyond_the_schema_is_the_reader_s():
    too_wide = _rigid(jobs=[{"p": 5, "t": 1}])  # p_j <= P: no schema can say it
    assert _errors("instance-rigid", too_wide) == []
    with pytest.raises(InvalidInstance, match="exceeds P=4"):
        get_family("rigid").from_dict(too_wide)


SPEC = """
[campaign]
name = "demo"
[[instances]]
family = "rigid"
preset = "smoke"
count = 2
[[algorithms]]
name = "R-LIST-0"
"""

BAD_SPECS = [
    SPEC + 'colour = "blue"\n',
    SPEC.replace('preset = "smoke"', 'preset = "smoke"\nlibrary = "rigid-small"'),
    SPEC.replace("count = 2", "count = 0"),
    SPEC.replace("count = 2", "count = 10001"),
    SPEC + "[scenarios]\nqbar = 0.1\nseed = 9223372036854775808\n",
    SPEC + "[scenarios]\nqbar = 1.0\n",
    SPEC + "[scenarios]\ncount = 2\n",
    SPEC.replace('name = "demo"', 'name = "  "'),
    SPEC + "time_limit = 0.001\n",
]


@pytest.mark.parametrize("text", [SPEC, SPEC + "time_limit = 2.5\n"],
                         ids=["spec", "heuristic-time-limit"])
def test_the_good_spec_passes_both(text):
    assert _errors("campaign-spec", tomllib.loads(text)) == []
    assert parse_spec(text).name == "demo"


@pytest.mark.parametrize("text", BAD_SPECS)
def test_malformed_specs_are_refused_by_both(text):
    assert _errors("campaign-spec", tomllib.loads(text)), "the schema accepted it"
    with pytest.raises(SpecError):
        parse_spec(text)


@pytest.mark.parametrize("change", [
    {"files": "all"},
    {"files": [{"file": "../x.json", "sha256": "0" * 64}]},
    {"files": [{"file": "a.json", "sha256": "xyz"}]},
    {"exact": {"method": "cpsat", "time_limit": 0}},
    {"family": 3},
])
def test_malformed_manifests_are_refused(change):
    manifest = {"family": "rigid", "files": [{"file": "a.json", "sha256": "0" * 64}]}
    assert _errors("library-manifest", manifest) == []
    assert _errors("library-manifest", {**manifest, **change})
