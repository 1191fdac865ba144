"""Campaign spec files: a TOML cross product of instances, algorithms and scenarios.

docs/campaigns.md holds the format. `load_spec` reads a file with `tomllib` and checks every
name and value against the registry before anything runs: an unknown family, preset,
algorithm, priority or parameter, a parameter value of the wrong type, an unknown key or a
malformed value raises `SpecError` with one line naming the file and the field, e.g.
``spec.toml: algorithms[1].priority: 'XYZ' is unknown for R-SHELF-B (choose from LPT, ...)``.
The file itself is checked first: at most `MAX_SPEC_BYTES`, UTF-8, valid TOML, not nested
deeper than Python can parse, no integer beyond Python's 4300-digit conversion limit. Counts and
seeds have the command line's ranges (`MAX_COUNT` instances per source, seeds in [0, 2^63 - 1],
at most `MAX_SCENARIOS` scenarios per q-bar value), parameters the rules of ``--param``
(`resilsched.options.Param.check`; exact models' options are built as the model builds them),
and a cross product is refused before it is built when it declares more than `MAX_TASKS` tasks.

>>> spec = parse_spec('''
... [campaign]
... name = "demo"
... [[instances]]
... family = "rigid"
... preset = "smoke"
... count = 2
... [[algorithms]]
... name = "R-LIST-0"
... priority = ["LPT", "la"]
... [scenarios]
... qbar = [0.1, 0.3]
... count = 5
... seed = 7
... ''')
>>> spec.name, spec.algorithms[0].priorities, spec.scenarios.qbar
('demo', ('LPT', 'LA'), (0.1, 0.3))
"""

from __future__ import annotations

import itertools
import math
import sys
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from resilsched import registry
from resilsched.campaign.experiment import ExperimentSpec, experiment_spec
from resilsched.campaign.store import CampaignError
from resilsched.errors import InvalidInstance, show
from resilsched.instances.fields import MAX_COUNT
from resilsched.numeric import strict_int
from resilsched.params import MAX_SEED
from resilsched.plugin import Family
from resilsched.references import is_reference
from resilsched.registry import UnknownName, available_families, get_family

#: default time limit (seconds) of an exact model in a campaign
DEFAULT_EXACT_TIME_LIMIT = 10.0
#: most tasks a spec may declare (a larger cross product is almost surely a typo; each task
#: takes about 1 KB of memory while the campaign is planned)
MAX_TASKS = 10_000_000
#: most scenarios per q-bar value and instance
MAX_SCENARIOS = 10**6
#: largest spec file read
MAX_SPEC_BYTES = 16 * 2**20

_TOP = {"campaign", "instances", "algorithms", "scenarios"}
_CAMPAIGN = {"name", "description"}
_INSTANCES = {"family", "preset", "count", "seed", "library"}
_ALGORITHMS = {"name", "kind", "family", "priority", "params", "time_limit", "workers"}
_SCENARIOS = {"qbar", "count", "seed"}


class SpecError(CampaignError):
    """A spec file that cannot run; the message is one line naming the file and the field."""


@dataclass(frozen=True)
class InstanceSource:
    """Instances of one family: a registered preset (`preset`, `count`, `seed`) or a folder of
    instance JSON files written by ``resilsched generate`` or a shipped library (`library`)."""

    family: str
    preset: str | None = None
    count: int | None = None
    seed: int = 0
    library: Path | None = None

    def describe(self) -> str:
        if self.library is not None:
            return f"{self.family} library {self.library}"
        count = "default count" if self.count is None else f"count {self.count}"
        return f"{self.family} preset {self.preset} ({count}, seed {self.seed})"


@dataclass(frozen=True)
class AlgorithmSpec:
    """One algorithm of the spec for one family: a heuristic with its priorities, or an exact
    model; `grid` lists every parameter combination (the cross product of the lists given)."""

    family: str
    name: str
    kind: str  # "heuristic" or "exact"
    priorities: tuple[str | None, ...]
    grid: tuple[dict[str, Any], ...]
    time_limit: float | None = None
    workers: int = 1
    where: str = "algorithms"  # the spec entry, for errors (``algorithms[2]``)

    @property
    def swept(self) -> tuple[str, ...]:
        """Names of the parameters that take more than one value."""
        return tuple(n for n in (self.grid[0] if self.grid else {})
                     if len({repr(g[n]) for g in self.grid}) > 1)


@dataclass(frozen=True)
class ScenarioSpec:
    """Failure scenarios drawn with common random numbers: `count` per q-bar value and
    instance, from `seed`."""

    qbar: tuple[float, ...]
    count: int
    seed: int


@dataclass(frozen=True)
class CampaignSpec:
    """A checked spec: everything `resilsched.campaign.plan` needs to list the tasks."""

    name: str
    instances: tuple[InstanceSource, ...]
    algorithms: tuple[AlgorithmSpec, ...]
    scenarios: ScenarioSpec | None
    description: str = ""
    source: str = "<spec>"

    def config(self) -> dict[str, Any]:
        """The canonical content of the spec (recorded in the store as the campaign's
        configuration; a changed spec under the same name is refused)."""
        return {
            "instances": [{"family": s.family, "preset": s.preset, "count": s.count,
                           "seed": s.seed, "library": None if s.library is None
                           else str(s.library)} for s in self.instances],
            "algorithms": [{"family": a.family, "name": a.name, "kind": a.kind,
                            "priorities": list(a.priorities), "grid": list(a.grid),
                            "time_limit": a.time_limit, "workers": a.workers}
                           for a in self.algorithms],
            "scenarios": None if self.scenarios is None else {
                "qbar": list(self.scenarios.qbar), "count": self.scenarios.count,
                "seed": self.scenarios.seed},
        }


def load_spec(path: str | Path) -> CampaignSpec | ExperimentSpec:
    """Read and check a spec file (`SpecError` naming the file on any problem)."""
    path = Path(path)
    try:
        if path.is_dir():
            raise SpecError(f"{path}: is a directory, not a spec file")
        with open(path, "rb") as f:
            data = f.read(MAX_SPEC_BYTES + 1)
    except OSError as exc:
        raise SpecError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if len(data) > MAX_SPEC_BYTES:
        raise SpecError(f"{path}: holds more than {MAX_SPEC_BYTES} bytes (a spec is a few lines)")
    try:
        text = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        raise SpecError(f"{path}: is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset "
                        f"{exc.start})") from None
    return parse_spec(text, source=str(path), base=path.parent)


def parse_spec(text: str, source: str = "<spec>", base: Path | None = None
               ) -> CampaignSpec | ExperimentSpec:
    """Check the TOML `text` of a spec; library folders are relative to `base` (default: the
    working directory). A spec with an ``[experiment]`` table names a registered experiment
    and its arguments instead (`resilsched.campaign.experiment.ExperimentSpec`)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(f"{source}: is not valid TOML ({exc})") from None
    except RecursionError:
        raise SpecError(f"{source}: is nested too deeply") from None
    except ValueError as exc:  # Python's limit on integer conversion (4300 digits)
        if "digits" in str(exc):
            raise SpecError(f"{source}: holds an integer of more than "
                            f"{sys.get_int_max_str_digits()} digits") from None
        raise SpecError(f"{source}: is not valid TOML ({' '.join(str(exc).split())[:120]})"
                        ) from None
    if "experiment" in data:
        try:
            return experiment_spec(data, source)
        except CampaignError as exc:
            raise SpecError(str(exc)) from None
    try:
        return _check(data, source, base or Path("."))
    except (InvalidInstance, UnknownName) as exc:
        msg = exc.args[0] if isinstance(exc, UnknownName) and exc.args else str(exc)
        raise SpecError(f"{source}: {msg}") from None


def _keys(table: Any, allowed: set[str], where: str, required: tuple[str, ...] = ()) -> dict:
    if not isinstance(table, dict):
        raise InvalidInstance(where, "must be a table")
    for key in table:
        if key not in allowed:
            raise InvalidInstance(f"{where}.{key}" if where else key,
                                  f"is not a known key (choose from {', '.join(sorted(allowed))})")
    for key in required:
        if key not in table:
            raise InvalidInstance(f"{where}.{key}" if where else key, "is required")
    return table


def _str(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidInstance(where, f"{show(value)} must be a non-empty string")
    return value.strip()


def _list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list) else [value]


def _array(data: dict, key: str) -> list[Any]:
    items = data.get(key)
    if not isinstance(items, list) or not items:
        raise InvalidInstance(key, f"is required: one or more [[{key}]] tables")
    return items


def _check(data: dict, source: str, base: Path) -> CampaignSpec:
    _keys(data, _TOP, "", ("campaign", "instances", "algorithms"))
    camp = _keys(data["campaign"], _CAMPAIGN, "campaign", ("name",))
    name = _str(camp["name"], "campaign.name")
    description = camp.get("description", "")
    if not isinstance(description, str):
        raise InvalidInstance("campaign.description", f"{show(description)} must be a string")
    instances = tuple(_instances(t, f"instances[{i}]", base)
                      for i, t in enumerate(_array(data, "instances")))
    families = {s.family: get_family(s.family) for s in instances}
    algorithms = tuple(a for i, t in enumerate(_array(data, "algorithms"))
                       for a in _algorithms(t, f"algorithms[{i}]", families))
    scenarios = None
    if "scenarios" in data:
        scenarios = _scenarios(data["scenarios"])
        if not any(fam.sample_scenario for fam in families.values()):
            raise InvalidInstance("scenarios", "none of the families "
                                  f"({', '.join(families)}) has failure scenarios")
    spec = CampaignSpec(name, instances, algorithms, scenarios, description, source)
    _check_size(spec)
    return spec


def _instances(table: Any, where: str, base: Path) -> InstanceSource:
    t = _keys(table, _INSTANCES, where)
    if ("preset" in t) == ("library" in t):
        raise InvalidInstance(where, "needs exactly one of preset (with family) or library")
    if "library" in t:
        for key in ("count", "seed"):
            if key in t:
                raise InvalidInstance(f"{where}.{key}", "applies to a preset, not a library")
        folder = _library_folder(_str(t["library"], f"{where}.library"), base)
        family = _library_family(folder, f"{where}.library")
        if "family" in t and _family(t["family"], f"{where}.family").name != family:
            raise InvalidInstance(f"{where}.family", f"{show(t['family'])} differs from the "
                                  f"library's instances ({family})")
        return InstanceSource(family, library=folder.resolve())
    if "family" not in t:
        raise InvalidInstance(f"{where}.family", "is required with a preset")
    fam = _family(t["family"], f"{where}.family")
    preset = _str(t["preset"], f"{where}.preset")
    if preset not in fam.generators:
        raise InvalidInstance(f"{where}.preset", f"{show(preset)} is unknown for {fam.name} "
                              f"(choose from {', '.join(fam.generators)})")
    count = None if "count" not in t else strict_int(t["count"], f"{where}.count", 1, MAX_COUNT)
    return InstanceSource(fam.name, preset, count,
                          strict_int(t.get("seed", 0), f"{where}.seed", 0, MAX_SEED))


def _family(name: Any, where: str) -> Family:
    """The registered family `name`; `InvalidInstance` naming the field otherwise."""
    name = _str(name, where)
    try:
        return get_family(name)
    except UnknownName:
        raise InvalidInstance(where, f"{show(name)} is unknown (choose from "
                              f"{', '.join(available_families())})") from None


def _library_folder(name: str, base: Path) -> Path:
    """The folder `name` relative to `base`, or else the shipped library of that name
    (``resilsched library list``); a folder of that name wins over a shipped library."""
    from resilsched.library.catalog import shipped

    folder = base / name
    if not folder.exists():
        for lib in shipped():
            if lib.name == name:
                return lib.path
    return folder


def library_files(folder: Path) -> list[Path]:
    """The instance files of a library folder: its ``*.json`` files but ``manifest.json``, by
    name."""
    return sorted(p for p in folder.glob("*.json") if p.name != "manifest.json")


def _library_family(folder: Path, where: str) -> str:
    """The one family of the instance files in `folder` (read and checked now)."""
    from resilsched.io import read_instances

    if not folder.is_dir():
        raise InvalidInstance(where, f"{folder} is not a folder")
    files = library_files(folder)
    if not files:
        raise InvalidInstance(where, f"{folder} holds no instance JSON files")
    names = set()
    for path in files:
        try:
            names.add(read_instances(path)[0].name)
        except InvalidInstance as exc:
            raise InvalidInstance(f"{where} {path.name}: {exc.field}", exc.rule) from None
    if len(names) > 1:
        raise InvalidInstance(where, f"{folder} mixes families ({', '.join(sorted(names))})")
    return names.pop()


def _algorithms(table: Any, where: str, families: Mapping[str, Family]) -> list[AlgorithmSpec]:
    """The entries of one [[algorithms]] table: one per family of the spec that registers it."""
    t = _keys(table, _ALGORITHMS, where, ("name",))
    name = _str(t["name"], f"{where}.name")
    kind = t.get("kind")
    if kind not in (None, "heuristic", "exact"):
        raise InvalidInstance(f"{where}.kind", f"{show(kind)} must be 'heuristic' or 'exact'")
    if "family" in t:
        fam_name = _family(t["family"], f"{where}.family").name
        if fam_name not in families:
            raise InvalidInstance(f"{where}.family", f"{fam_name!r} has no [[instances]] in "
                                  f"this spec (choose from {', '.join(families)})")
        scope = {fam_name: families[fam_name]}
    else:
        scope = dict(families)
    out = []
    for fam in scope.values():
        found = _find(fam, name, kind, f"{where}.name")
        if found is not None:
            out.append(_algorithm(t, where, fam, *found))
    if is_reference(name) and len(out) > 1:  # a function of one's own says no family
        raise InvalidInstance(f"{where}.family", "is required by a MODULE:FUNCTION name in a "
                              f"spec of several families (choose from {', '.join(scope)})")
    if not out:
        known = sorted({n for fam in scope.values()
                        for n in [*(fam.heuristics if kind != "exact" else ()),
                                  *(fam.exact if kind != "heuristic" else ())]})
        what = {"heuristic": "a heuristic", "exact": "an exact model"}.get(
            kind, "a heuristic or exact model")
        raise InvalidInstance(f"{where}.name", f"{show(name)} is not {what} of "
                              f"{', '.join(scope)} (choose from {', '.join(known)})")
    return out


def _find(fam: Family, name: str, kind: str | None, where: str) -> tuple[str, Any] | None:
    """("heuristic"|"exact", registered entry) for `name` in `fam` (case-insensitive), or a
    heuristic of one's own given as ``MODULE:FUNCTION`` (`resilsched.registry.heuristic`)."""
    tables = [("heuristic", fam.heuristics), ("exact", fam.exact)]
    for k, table in tables:
        if kind in (None, k):
            for registered, entry in table.items():
                if registered.lower() == name.lower():
                    return k, entry
    if kind != "exact" and is_reference(name):
        return "heuristic", registry.heuristic(fam, name, where)
    return None


def _algorithm(t: dict, where: str, fam: Family, kind: str, entry: Any) -> AlgorithmSpec:
    owner = entry.name
    if not isinstance(t.get("params", {}), dict):
        raise InvalidInstance(f"{where}.params", "must be a table of NAME = value or [values]")
    params = dict(t.get("params", {}))
    if kind == "heuristic":
        if "workers" in t:
            raise InvalidInstance(f"{where}.workers", f"applies to exact models, not to the "
                                  f"heuristic {owner}")
        priorities = _priorities(t.get("priority"), entry, f"{where}.priority")
        time_limit = (None if "time_limit" not in t  # no limit unless given (K32)
                      else _time_limit(t["time_limit"], f"{where}.time_limit"))
        workers = 1
    else:
        if "priority" in t:
            raise InvalidInstance(f"{where}.priority", f"exact model {owner} takes no priority")
        priorities = (None,)
        time_limit = _time_limit(t.get("time_limit", DEFAULT_EXACT_TIME_LIMIT),
                                 f"{where}.time_limit")
        workers = strict_int(t.get("workers", 1), f"{where}.workers", 1)
        for fixed in ("deterministic", "workers", "progress"):
            if fixed in params:
                raise InvalidInstance(f"{where}.params.{fixed}", "is set by the campaign "
                                      "(exact solves are deterministic; give workers = N)")
    known = {p.name: p for p in entry.params}
    axes = []
    for pname, values in params.items():
        if pname not in known:
            raise InvalidInstance(f"{where}.params.{pname}", f"is not a parameter of {owner} "
                                  f"(choose from {', '.join(known) or 'none'})")
        values = _list(values)
        if not values:
            raise InvalidInstance(f"{where}.params.{pname}", "is an empty list")
        try:
            axes.append([(pname, known[pname].check(v, owner)) for v in values])
        except InvalidInstance as exc:
            raise InvalidInstance(f"{where}.params.{pname}", exc.rule) from None
    if math.prod(len(a) for a in axes) * len(priorities) > MAX_TASKS:
        raise InvalidInstance(f"{where}.params", f"crosses into more than {MAX_TASKS} "
                              "parameter combinations")
    grid = tuple(dict(combo) for combo in itertools.product(*axes))
    if kind == "exact":
        fixed = {k: v for k, v in (("deterministic", True), ("workers", workers)) if k in known}
        for combo in grid:
            _param_error(where, lambda combo=combo: entry.options.of(
                time_limit, {**combo, **fixed}, owner))
    return AlgorithmSpec(fam.name, owner, kind, priorities, grid, time_limit, workers, where)


def _param_error(where: str, build: Any) -> Any:
    """`build()`, an `InvalidInstance` naming ``--param NAME`` renamed to the spec entry
    ``<where>.params.NAME``."""
    try:
        return build()
    except InvalidInstance as exc:
        name = exc.field.removeprefix("--param ").strip()
        field = f"{where}.params.{name}" if exc.field.startswith("--param") else where
        raise InvalidInstance(field, exc.rule) from None


def _priorities(value: Any, heuristic: Any, where: str) -> tuple[str | None, ...]:
    if value is None:
        return (heuristic.default_priority,)
    if not heuristic.priorities:
        raise InvalidInstance(where, f"{heuristic.name} takes no priority rule")
    folded = {p.lower(): p for p in heuristic.priorities}
    out = []
    for p in _list(value):
        if heuristic.key_priorities and is_reference(p):  # a key function of one's own
            out.append(registry.priority(heuristic, p, where)[1])
            continue
        if not isinstance(p, str) or p.lower() not in folded:
            raise InvalidInstance(where, f"{show(p)} is unknown for {heuristic.name} "
                                  f"(choose from {', '.join(heuristic.priorities)})")
        out.append(folded[p.lower()])
    if not out:
        raise InvalidInstance(where, "is an empty list")
    return tuple(dict.fromkeys(out))


def _time_limit(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
            math.isfinite(value) and 0.01 <= value <= 7 * 24 * 3600):
        raise InvalidInstance(where, f"{show(value)} must be a number of seconds in "
                                     "[0.01, 604800]")
    return float(value)


def _scenarios(table: Any) -> ScenarioSpec:
    t = _keys(table, _SCENARIOS, "scenarios", ("qbar",))
    qbar = []
    for q in _list(t["qbar"]):
        if isinstance(q, bool) or not isinstance(q, (int, float)) or not 0 <= q < 1:
            raise InvalidInstance("scenarios.qbar", f"{show(q)} must be a number in [0, 1)")
        qbar.append(float(q))
    if not qbar:
        raise InvalidInstance("scenarios.qbar", "is an empty list")
    return ScenarioSpec(tuple(dict.fromkeys(qbar)),
                        strict_int(t.get("count", 1), "scenarios.count", 1, MAX_SCENARIOS),
                        strict_int(t.get("seed", 0), "scenarios.seed", 0, MAX_SEED))


def _check_size(spec: CampaignSpec) -> None:
    """Refuse cross products too large to be meant (counts of preset instances are known)."""
    per_instance = sum(len(a.priorities) * len(a.grid) for a in spec.algorithms)
    scen = 1 if spec.scenarios is None else len(spec.scenarios.qbar) * spec.scenarios.count
    instances = sum(s.count or 1 for s in spec.instances)
    if per_instance * scen * instances > MAX_TASKS:
        raise InvalidInstance("spec", f"declares more than {MAX_TASKS} tasks "
                              f"({instances} instances x {per_instance} algorithm settings x "
                              f"{scen} scenarios)")

