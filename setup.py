"""Package layout: the role folders at the repository root are mapped into `resilsched`.

`models/`, `heuristics/`, `bounds/` and `instances/` sit at the top of the repository (see
docs/architecture.md, "Layout") and install as `resilsched.models`, ... . Subpackages are found
automatically, so adding `heuristics/foo/` needs no edit here. Everything else is in pyproject.toml.
"""

import os

from setuptools import Extension, find_packages, setup

ROLES = ("models", "heuristics", "bounds", "instances")

packages = find_packages(include=["resilsched", "resilsched.*"])
# the shipped instance libraries: a data folder (package data in pyproject.toml)
packages.append("resilsched.library.data")
for role in ROLES:
    packages += [f"resilsched.{name}" for name in find_packages(include=[role, f"{role}.*"])]

# the desktop heuristics' C kernels, built at install time (issue 15, decision D-19); optional:
# without a compiler the pure-Python engine runs (heuristics/desktop/_ckernel.py loads it)
DESKTOP_KERNELS = Extension("resilsched._desktop", ["csrc/desktop/kernels.c"], optional=True,
                            extra_compile_args=["-O3"] if os.name != "nt" else [])

setup(
    ext_modules=[DESKTOP_KERNELS],
    packages=packages,
    package_dir={"resilsched": "resilsched", **{f"resilsched.{role}": role for role in ROLES}},
)
