"""``resilsched list [--family F] [-v] [--json]``: what is registered (families, heuristics
with their parameters, the methods of ``solve --method`` (exact models, and the few that
are not exact, each described for what it computes), bounds, presets, reproductions)."""

from __future__ import annotations

import argparse
from typing import Any

from resilsched.commands.args import FORMATTER, emit, examples, json_flag


def add_parser(sub: Any) -> None:
    """Add ``list`` to the subcommands `sub`."""
    p = sub.add_parser("list", formatter_class=FORMATTER,
                       help="list the registered families, heuristics, models, bounds, presets",
                       epilog=examples("resilsched list\nresilsched list --family rigid --json"))
    p.add_argument("--family", help="only this family (default: every family)")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="also list the solver options (--param) of the methods "
                   "(default: off)")
    json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """List the families (``--family``: that one)."""
    from resilsched.registry import available_families, get_family

    names = [args.family] if args.family is not None else available_families()
    out: dict[str, Any] = {}
    lines = []
    for name in names:
        fam = get_family(name, "--family")
        out[name] = {
            "spec": fam.spec,
            "sense": fam.sense,
            "objective": fam.objective_name,
            "unit": fam.objective_unit,
            "default_exact": fam.default_exact,
            "heuristics": {
                h.name: {"priorities": list(h.priorities), "default_priority": h.default_priority,
                         "params": _params_json(h.params), "description": h.description,
                         "origin": h.origin}
                for h in fam.heuristics.values()
            },
            "exact": {m.name: {"description": m.description, "params": _params_json(m.params)}
                      for m in fam.exact.values()},
            "bounds": {b.name: b.description for b in fam.bounds.values()},
            "generators": {g.name: g.description for g in fam.generators.values()},
            "readers": sorted(fam.readers),
            "reproduction": fam.reproduction.description if fam.reproduction else None,
        }
        lines.append(f"{name} (spec {fam.spec}, {fam.sense}imise {fam.objective_name}"
                     + (f" in {fam.objective_unit}" if fam.objective_unit else "") + ")")
        for h in fam.heuristics.values():
            prios = f" [priorities: {', '.join(h.priorities)}]" if h.priorities else ""
            origin = f" ({h.origin})" if h.plugin else ""
            lines.append(f"  heuristic {h.name}: {h.description}{prios}{origin}")
            lines += [f"      --param {p.describe()}" for p in h.params]
        for m in fam.exact.values():
            star = " (gap reference)" if m.name == fam.default_exact else ""
            lines.append(f"  method    {m.name}: {m.description}{star}")
            if args.verbose:
                lines += [f"      --param {p.describe()}" for p in m.params]
        for b in fam.bounds.values():
            lines.append(f"  bound     {b.name}: {b.description}")
        for g in fam.generators.values():
            lines.append(f"  preset    {g.name}: {g.description}")
        if fam.reproduction:
            lines.append(f"  reproduce resilsched reproduce {name}: {fam.reproduction.description}")
    if not args.verbose and names:
        lines.append("(the methods' solver options: resilsched list -v)")
    emit({"families": out}, args.json, "\n".join(lines))
    return 0


def _params_json(params: Any) -> dict[str, Any]:
    return {
        p.name: {"default": p.default, "type": p.kind.__name__,
                 **({"choices": list(p.choices)} if p.choices else {}),
                 **({"help": p.help} if p.help else {})}
        for p in params
    }
