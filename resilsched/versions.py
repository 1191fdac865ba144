"""The versions of everything that computes a result: one place (`show_versions`).

``resilsched --version`` prints `show_versions`'s text. `versions` is also the one environment
record that results carry: campaign stores (each run, `CAMPAIGN_RECORD`), library
certificates and a library's exact model (`CERTIFICATE_RECORD`) and the manifests of
``resilsched generate`` (`MANIFEST_RECORD`) keep `versions` of their own subset of `PACKAGES`,
in their order. Nothing here imports a solver: versions are read from the installed
distributions' metadata, and the compiled modules are only imported (a few microseconds each).

>>> sorted(versions(("python", "resilsched")))
['python', 'resilsched']
>>> list(versions(MANIFEST_RECORD))
['resilsched', 'numpy', 'python']
"""

from __future__ import annotations

import importlib
import json
import platform
import sys
from importlib.metadata import PackageNotFoundError, version
from typing import Any, TextIO

from resilsched import __version__, engine

#: what `show_versions` reports, in its order: the package, the interpreter (``"python"``), the
#: solver stack, then the optional extras (matplotlib: ``resilsched[plot]``; dask:
#: ``resilsched[dask]``)
PACKAGES = ("resilsched", "python", "numpy", "ortools", "highspy", "pyomo", "networkx",
            "rustworkx", "matplotlib", "dask", "distributed")

#: the compiled modules declared in setup.py (``EXTENSIONS``; tests/packaging checks the two
#: lists agree), each optional: without it the pure-Python engines run (decision T13)
EXTENSIONS = ("_core", "_desktop", "_closure", "_refute", "_improve", "_chunks")

#: what a campaign store records of each run (`resilsched.campaign.store.ResultStore.add_run`)
CAMPAIGN_RECORD = ("python", "resilsched", "numpy", "ortools", "highspy")
#: what a certificate records (and a library manifest of its exact model), installed ones only
CERTIFICATE_RECORD = ("resilsched", "python", "numpy", "ortools", "highspy")
#: what the manifest of ``resilsched generate`` records (`resilsched.library.build`)
MANIFEST_RECORD = ("resilsched", "numpy", "python")

#: what installs a missing optional distribution
EXTRAS = {"matplotlib": "resilsched[plot]", "dask": "resilsched[dask]",
          "distributed": "resilsched[dask]"}


def versions(names: tuple[str, ...] = PACKAGES, *,
             installed_only: bool = False) -> dict[str, str | None]:
    """The version of each of `names` (``"python"`` is the interpreter's), None when the
    distribution is not installed.

    Parameters
    ----------
    names : distribution names, or ``"python"`` (a record: `CAMPAIGN_RECORD`,
        `CERTIFICATE_RECORD`, `MANIFEST_RECORD`).
    installed_only : leave out the distributions that are not installed (a certificate's
        record) instead of giving them None.

    Returns
    -------
    dict
        ``{name: version or None}`` in the order of `names`.
    """
    out: dict[str, str | None] = {}
    for name in names:
        if name == "python":
            out[name] = platform.python_version()
        elif name == "resilsched":
            out[name] = __version__  # also from a source tree that was never installed
        else:
            try:
                out[name] = version(name)
            except PackageNotFoundError:
                out[name] = None
    if installed_only:
        return {name: v for name, v in out.items() if v is not None}
    return out


def compiled() -> dict[str, str]:
    """The state of each compiled module of `EXTENSIONS`: ``"loaded"``, ``"disabled by
    RESILSCHED_NO_CORE"`` or ``"not built (...)"``; prints nothing (unlike `resilsched.engine`,
    which warns at first use)."""
    off = engine.disabled()
    out = {}
    for name in EXTENSIONS:
        if off is not None:
            out[name] = f"disabled by {off}"
            continue
        try:
            importlib.import_module(f"resilsched.{name}")
            out[name] = "loaded"
        except ImportError as exc:
            out[name] = f"not built ({exc})"
    return out


def report() -> dict[str, Any]:
    """Everything `show_versions` prints, as one JSON-ready object: ``{"versions": {...},
    "platform": ..., "compiled": {...}}``."""
    return {"versions": versions(), "platform": f"{platform.system()} {platform.machine()}",
            "implementation": platform.python_implementation(), "compiled": compiled()}


def text() -> str:
    """`report` as the lines `show_versions` prints (a name and a value per line)."""
    rep = report()
    lines = []
    for name, value in rep["versions"].items():
        if name == "python":
            value = f"{value} ({rep['implementation']}, {rep['platform']})"
        elif value is None:
            extra = EXTRAS.get(name)
            value = "not installed" + (f" (pip install '{extra}')" if extra else "")
        lines.append(f"{name:<12} {value}")
    for name, state in rep["compiled"].items():
        lines.append(f"{'resilsched.' + name:<21} {state}")
    return "\n".join(lines)


def show_versions(as_json: bool = False, file: TextIO | None = None) -> None:
    """Print the versions of Python, resilsched and its solver stack (numpy, OR-Tools, highspy,
    Pyomo, networkx, rustworkx), of the optional matplotlib and Dask, and whether each compiled
    module is loaded: what a bug report needs. ``resilsched --version`` prints the same.

    Parameters
    ----------
    as_json : print `report` as one JSON object instead of text lines.
    file : where to print (default: standard output).
    """
    out = file if file is not None else sys.stdout
    print(json.dumps(report(), indent=1) if as_json else text(), file=out)
