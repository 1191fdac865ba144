"""The registry: the families discovered, and their entries looked up by stable names.

A family is a module ``resilsched/families/<name>.py`` defining ``FAMILY``, a
`resilsched.plugin.Family` whose ``name`` is the module name (docs/architecture.md, "Adding a
family"). Modules are found in the `resilsched.families` package (every module whose name does
not start with ``_``) and in the ``resilsched.families`` entry-point group of other installed
distributions; they are imported on first use, so ``resilsched --help`` pays for no solver.

Heuristics come from three places, all looked up here (`heuristic`):

- the family's own registration (``origin="builtin"``);
- the ``resilsched.heuristics`` entry-point group of installed distributions: entry name
  ``FAMILY:NAME``, value ``module:function``; they join their family under ``NAME``
  (``origin="entry point of DIST"``);
- a ``MODULE:FUNCTION`` reference given where a heuristic name is expected
  (`resilsched.references`; ``origin="reference"``).

A plug-in family or heuristic whose name clashes with one already registered (built-in or from
another distribution) is refused with a one-line `PluginClash` naming both, never ignored.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import pkgutil
from collections.abc import Callable
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import Any

from resilsched.errors import InvalidInstance
from resilsched.params import keyword_params
from resilsched.plugin import ExactModel, Family, Generator, Heuristic
from resilsched.references import (
    BadReference,
    check_signature,
    first_line,
    is_reference,
    last_line,
    reference_of,
    resolve,
)

#: entry-point groups read by the registry
FAMILIES_GROUP = "resilsched.families"
HEURISTICS_GROUP = "resilsched.heuristics"


class UnknownName(LookupError):
    """A name that is not in the registry; the message lists the known names."""


class PluginClash(InvalidInstance):
    """A plug-in that cannot join the registry (its name is taken, or it is malformed)."""


def _lookup(table: dict[str, Any], name: str, what: str):
    if isinstance(name, str):  # anything else (None, a number, a list) is unknown
        if name in table:
            return table[name]
        folded = {k.lower(): v for k, v in table.items()}
        if name.lower() in folded:
            return folded[name.lower()]
    raise UnknownName(f"{what}={name!r} is unknown (choose from {', '.join(table) or 'none'})")


@functools.cache
def _entry_points(group: str) -> tuple[EntryPoint, ...]:
    """The entry points of `group`, each (name, value) once (a distribution seen twice on the
    path registers once); read once per process (distributions installed later are seen by
    the next command)."""
    seen: dict[tuple[str, str], EntryPoint] = {}
    for ep in entry_points(group=group):
        seen.setdefault((ep.name, ep.value), ep)
    return tuple(seen.values())


def _describe(ep: EntryPoint) -> str:
    dist = getattr(ep, "dist", None)
    where = f" (distribution {dist.name} {dist.version})" if dist is not None else ""
    return f"entry point {ep.group} {ep.name!r} = {ep.value!r}{where}"


def family_modules() -> dict[str, str]:
    """family name -> module defining ``FAMILY``, in discovery order (package, then plug-ins)."""
    import resilsched.families as package

    found = {
        info.name: f"{package.__name__}.{info.name}"
        for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name)
        if not info.name.startswith("_")
    }
    builtin = set(found)
    for ep in _entry_points(FAMILIES_GROUP):
        if ep.name in found:
            kind = "built-in family" if ep.name in builtin else "family"
            raise PluginClash(_describe(ep), f"clashes with the {kind} {ep.name!r} "
                                             f"({found[ep.name]})")
        found[ep.name] = ep.value
    return found


def available_families() -> list[str]:
    """Names of the families installed."""
    return list(family_modules())


#: id of a module's FAMILY -> (that FAMILY, the family with its plug-in heuristics)
_EXTENDED: dict[int, tuple[Family, Family]] = {}


def get_family(name: str, field: str = "family") -> Family:
    """The `Family` registered under `name` (its module is imported on first use), with the
    heuristics other distributions register into it (`HEURISTICS_GROUP`); an unknown name is
    an `UnknownName` naming `field` (the command line's ``--family``)."""
    modules = family_modules()
    if not isinstance(name, str) or name not in modules:
        raise UnknownName(f"{field}={name!r} is unknown (choose from {', '.join(modules)})")
    family = importlib.import_module(modules[name]).FAMILY
    if family.name != name:
        raise RuntimeError(f"{modules[name]} registers {family.name!r}, not {name!r}")
    cached = _EXTENDED.get(id(family))
    if cached is None or cached[0] is not family:
        plugins = _plugin_heuristics(family, modules)
        extended = family if not plugins else dataclasses.replace(
            family, heuristics={**family.heuristics, **plugins})
        cached = _EXTENDED[id(family)] = (family, extended)
    return cached[1]


def _plugin_heuristics(family: Family, modules: dict[str, str]) -> dict[str, Heuristic]:
    """The heuristics the entry points of `HEURISTICS_GROUP` register into `family`."""
    out: dict[str, Heuristic] = {}
    owner: dict[str, EntryPoint] = {}
    for ep in _entry_points(HEURISTICS_GROUP):
        fam_name, sep, name = ep.name.partition(":")
        if not sep or not fam_name or not name or ":" in name:
            raise PluginClash(_describe(ep), "must be named FAMILY:NAME (e.g. rigid:MY-LIST)")
        if fam_name not in modules:
            raise PluginClash(_describe(ep), f"names the family {fam_name!r}, which is not "
                                             f"installed (choose from {', '.join(modules)})")
        if fam_name != family.name:
            continue
        taken = {k.lower(): k for k in family.heuristics}
        if name.lower() in taken:
            raise PluginClash(_describe(ep), f"clashes with the built-in heuristic "
                                             f"{taken[name.lower()]} of {family.name}")
        if name.lower() in owner:
            raise PluginClash(_describe(ep), f"clashes with the {_describe(owner[name.lower()])}")
        owner[name.lower()] = ep
        try:
            fn = ep.load()
        except BaseException as exc:  # the plug-in's module may raise anything
            if isinstance(exc, KeyboardInterrupt):
                raise
            raise PluginClash(_describe(ep), f"does not import ({last_line(exc)})") from None
        if not callable(fn):
            raise PluginClash(_describe(ep), f"names no callable ({type(fn).__name__})")
        check_signature(fn, "heuristic", _describe(ep))
        dist = getattr(ep, "dist", None)
        origin = f"entry point of {dist.name}" if dist is not None else "entry point"
        out[name] = _entry(name, fn, origin)
    return out


def _entry(name: str, fn: Callable[..., Any], origin: str) -> Heuristic:
    """The registry entry of a user heuristic: its docstring's first paragraph describes it,
    its keyword-only arguments are its ``--param``s (`resilsched.params.keyword_params`)."""
    return Heuristic(name, fn, first_line(fn) or "(no docstring)",
                     options=keyword_params(fn), origin=origin)


def all_families() -> list[Family]:
    return [get_family(name) for name in available_families()]


def heuristic(family: Family, name: str | Callable[..., Any],
              field: str = "--heuristic") -> Heuristic:
    """The heuristic `name` of `family`: a registered name (case-insensitive, entry-point
    heuristics included), a ``MODULE:FUNCTION`` reference, or (from Python) a function with
    the heuristic signature. `BadReference` / `UnknownName` name `field` in their one line."""
    if callable(name):
        label = reference_of(name) or getattr(name, "__name__", repr(name))
        check_signature(name, "heuristic", f"{field} {label}")
        return _entry(label, name, "reference")
    if is_reference(name) and name not in family.heuristics:
        return _entry(name.strip(), resolve(name, "heuristic", field), "reference")
    return _lookup(family.heuristics, name, field)


def find_heuristic(family: Family, name: str) -> Heuristic | None:
    """`heuristic`, or None when `name` names nothing usable (a report's description)."""
    try:
        return heuristic(family, name)
    except (UnknownName, BadReference):
        return None


def priority(h: Heuristic, rule: Any, field: str = "--priority") -> tuple[Any, str | None]:
    """(what to pass to ``h.run``, the label results carry) for the priority `rule` of `h`.

    None is the heuristic's default; a rule name is folded to its registered spelling; for
    the list families' heuristics (``key_priorities``) a ``MODULE:FUNCTION`` reference or a
    function ``key(instance, j)`` (smallest first) is resolved to that function.
    """
    if rule is None:
        return h.default_priority, h.default_priority
    if h.key_priorities and (callable(rule) or is_reference(rule)):
        if callable(rule):
            label = reference_of(rule) or getattr(rule, "__name__", "key")
            check_signature(rule, "key", f"{field} {label}")
            return rule, label
        return resolve(rule, "key", field), rule.strip()
    if not h.priorities:
        raise InvalidInstance(field, f"{h.name} takes no priority rule")
    folded = {p.lower(): p for p in h.priorities}
    if not isinstance(rule, str) or rule.lower() not in folded:
        keys = " or a MODULE:FUNCTION key" if h.key_priorities else ""
        raise InvalidInstance(field, f"{rule!r} is unknown for {h.name} (choose from "
                                     f"{', '.join(h.priorities)}{keys})")
    return folded[rule.lower()], folded[rule.lower()]


def exact_model(family: Family, name: str, field: str = "--method") -> ExactModel:
    """The exact model `name` of `family`; `UnknownName` naming `field` otherwise."""
    return _lookup(family.exact, name, field)


def generator(family: Family, name: str) -> Generator:
    return _lookup(family.generators, name, "--preset")


def reader_for(family: Family, path: Path):
    return family.readers.get(path.suffix.lower())


#: instance type -> family name (`family_of`)
_FAMILY_OF_TYPE: dict[type, str] = {}


def family_of(instance: Any) -> Family:
    """The family of an instance object (the ``"family"`` of its ``to_dict()``)."""
    name = _FAMILY_OF_TYPE.get(type(instance))
    if name is None:
        to_dict = getattr(instance, "to_dict", None)
        data = to_dict() if callable(to_dict) else None
        name = data.get("family") if isinstance(data, dict) else None
        if not isinstance(name, str):
            raise InvalidInstance("instance", f"a {type(instance).__name__} is not an instance "
                                              "of a registered family (load one with "
                                              "resilsched.load)")
        _FAMILY_OF_TYPE[type(instance)] = name
    return get_family(name)


def reproductions() -> dict[str, Family]:
    """family name -> family, for the families that register a paper reproduction."""
    return {fam.name: fam for fam in all_families() if fam.reproduction is not None}


def reproduction(name: str) -> Family:
    """The family of ``resilsched reproduce NAME`` (case-insensitive), or `UnknownName`."""
    table = reproductions()
    fam = _lookup(table, name, "family")
    return fam
