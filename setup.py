"""Package layout and the compiled simulation core.

Layout: `models/`, `heuristics/`, `bounds/` and `instances/` sit at the top of the repository
(see docs/architecture.md, "Layout") and install as `resilsched.models`, ... . Subpackages are
found automatically, so adding `heuristics/foo/` needs no edit here. Everything else is in
pyproject.toml.

Compiled core (issue 15, decision T13 in docs/decisions.md): `EXTENSIONS` lists the C extension
modules built when the package is installed (`pip install .` or `pip install -e .`, which builds
them in place); never at run time. Each entry is one module, `name -> C sources` (under
`csrc/`); adding a second module is one more entry. Every extension is optional: without a C
compiler or Python headers the install still succeeds and the pure-Python engines run, with a
one-line warning at first use (`resilsched.engine`).
"""

import glob

from setuptools import Extension, find_packages, setup

ROLES = ("models", "heuristics", "bounds", "instances")

#: extension module -> its C sources; headers live beside the sources
EXTENSIONS = {
    "resilsched._core": [
        "csrc/core/module.c",          # Python bindings
        "csrc/core/moldable_list.c",   # LIST of moldable jobs (spec 000 §3.1)
        "csrc/core/moldable_batch.c",  # MT-ALLOTMENT of BATCH-LIST (spec 000 §3.4, §3.7)
        "csrc/core/rigid_common.c",    # initial priority queue (spec 002 §3)
        "csrc/core/rigid_greedy.c",    # R-LIST-0 (spec 002 §4.2)
        "csrc/core/rigid_rlist.c",     # R-LIST-1 / R-LIST-Q (spec 002 §4.3)
        "csrc/core/rigid_conservative.c",  # R-LIST-Q, its profile kept across events
        "csrc/core/rigid_fixed.c",     # R-LIST-1 / R-LIST-Q, fixed reservations (issue 14)
        "csrc/core/rigid_shelf.c",     # R-SHELF(-FILL)-B/NB (spec 002 §5)
    ],
    # the desktop heuristics' kernels (spec 004 §3; decision D-19), loaded with ctypes by
    # heuristics/desktop/_ckernel.py
    "resilsched._desktop": ["csrc/desktop/kernels.c"],
    # the p-in-p closure's pack enumeration and exact cover (spec 001 §2.3; decision C24),
    # loaded with ctypes by models/coschedule/_cclosure.py
    "resilsched._closure": ["csrc/coschedule/closure.c"],
    # the rigid exact model's refutation search (decision R25), loaded with ctypes by
    # models/rigid/crefute.py
    "resilsched._refute": ["csrc/refute/rigid_refute.c"],
    # the rigid improvement phase's serial schedule-generation scheme (decision R34), loaded
    # with ctypes by models/rigid/cserial.py
    "resilsched._improve": ["csrc/improve/rigid_serial.c"],
    # the worksharing static bound's chunk program (decision WS-21), loaded with ctypes by
    # bounds/worksharing_static.py
    "resilsched._chunks": ["csrc/worksharing/chunk_dp.c"],
}

#: a module's own optimisation level (the desktop DP is 25-30% faster at -O3; integer code)
OPTIMIZE = {"resilsched._desktop": "-O3", "resilsched._closure": "-O3", "resilsched._refute": "-O3",
            "resilsched._improve": "-O3", "resilsched._chunks": "-O3"}

#: same doubles as Python: no fused multiply-add (x + y * z rounded once) on any target
COMPILE_ARGS = ["-O2", "-std=c99", "-ffp-contract=off"]


def extension(name: str, sources: list[str]) -> Extension:
    """One optional C extension: a failed build leaves the pure-Python engines in charge."""
    folders = sorted({src.rsplit("/", 1)[0] for src in sources})
    args = [OPTIMIZE.get(name, a) if a.startswith("-O") else a for a in COMPILE_ARGS]
    # the headers beside the sources: editing one alone rebuilds the module
    headers = sorted(h for folder in folders for h in glob.glob(f"{folder}/*.h"))
    return Extension(name, sources=sources, include_dirs=folders, depends=headers,
                     extra_compile_args=args, optional=True)


packages = find_packages(include=["resilsched", "resilsched.*"])
# the shipped instance libraries: a data folder (package data in pyproject.toml)
packages.append("resilsched.library.data")
for role in ROLES:
    packages += [f"resilsched.{name}" for name in find_packages(include=[role, f"{role}.*"])]

setup(
    packages=packages,
    package_dir={"resilsched": "resilsched", **{f"resilsched.{role}": role for role in ROLES}},
    ext_modules=[extension(name, sources) for name, sources in EXTENSIONS.items()],
)
