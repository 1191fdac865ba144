"""The shipped libraries: sizes, proven optima, manifests, determinism, a verify sample."""

import json

import pytest

from resilsched.library.catalog import DATA, LIBRARY_PRESET, MIN_PROVEN, shipped, specs
from resilsched.library.certificate import Certificate
from resilsched.library.verify import certified_by, check_entry, sample
from resilsched.registry import all_families, get_family

LIBRARIES = {lib.name: lib for lib in shipped()}


def test_every_family_with_a_library_generator_ships_a_library():
    names = {s.name for s in specs()}
    assert names == set(LIBRARIES), "run scripts/build_libraries.py"
    families = {lib.family for lib in LIBRARIES.values()}
    assert {"rigid", "moldable", "coschedule", "worksharing"} <= families
    for fam in all_families():
        if LIBRARY_PRESET in fam.generators:
            assert fam.name in families, f"{fam.name} has a library generator but no library"


def test_the_libraries_stay_small():
    total = sum(f.stat().st_size for f in DATA.rglob("*.json"))
    assert total < 2_000_000


@pytest.mark.parametrize("name", sorted(LIBRARIES))
def test_library_holds_100_instances_and_90_percent_proven_optima(name):
    lib = LIBRARIES[name]
    fam = get_family(lib.family)
    assert len(lib.records) >= 100
    assert lib.proven >= MIN_PROVEN * len(lib.records)
    assert lib.manifest["proven_optimal"] == lib.proven
    for entry in lib.entries():
        assert entry.sha_ok, entry.label
        meta = entry.metadata
        cert = Certificate.from_metadata(meta)
        assert cert.lower_bound is not None and cert.upper_bound is not None, entry.label
        assert cert.lower_bound <= cert.upper_bound
        if cert.is_optimal:
            assert entry.record["status"] == "optimal" and "optimum" in meta
        assert cert.method == lib.manifest["exact"]["method"] and cert.solver
        assert cert.options == {"deterministic": True, "workers": 1}
        assert {"resilsched", "ortools", "highspy"} <= set(cert.versions)
        assert cert.proof_time >= 0 and cert.time_limit > 0
        assert meta["generated_by"]["seed"] == lib.manifest["seed"]
        inst = fam.from_dict(entry.data)  # loads as an instance of its family
        if fam.scenario is not None:  # the certificate is for the stored scenario
            assert "failures" in entry.data and fam.scenario(inst, None) is not None


@pytest.mark.parametrize("name", sorted(LIBRARIES))
def test_library_instances_regenerate_from_the_manifest_seed(name):
    lib = LIBRARIES[name]
    fam = get_family(lib.family)
    gen = fam.generators[lib.manifest["preset"]]
    fresh = gen.generate(lib.manifest["seed"], lib.manifest["count"])
    for inst, entry in zip(fresh, lib.entries(), strict=True):
        stored = {k: v for k, v in entry.data.items() if k != "metadata"}
        d = inst.to_dict()
        d.pop("metadata", None)
        assert json.loads(json.dumps(d)) == stored, entry.label


@pytest.mark.parametrize("name", sorted(LIBRARIES))
def test_a_sampled_certificate_holds(name):
    """The CI sample of ``library verify``: one instance per library (the full
    ``--sample 10`` run is recorded in docs/performance.md)."""
    lib = LIBRARIES[name]
    [index] = sample(lib, 1, seed=13)
    check = check_entry(lib, index, certified_by(lib))
    assert check.problems == [], check.label
