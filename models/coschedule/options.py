"""Options of the co-scheduling exact models (contract of `resilsched.options.SolveOptions`).

Every model's ``solve(instance, scenario=None, *, time_limit=None, **options)`` starts with
``opts = XOptions.of(time_limit, options)``; the fields below are its ``--param``
names beside the common ``workers``, ``seed`` and ``deterministic``.

HiGHS (set-partitioning and ILP models) is set up by the solver runner (`resilsched.solvers`):
one thread whatever ``workers`` says (HiGHS keeps one thread pool per process, decision T26),
``seed`` its ``random_seed``. HiGHS has no deterministic time limit: it is deterministic by
itself, so every run that finishes within its limit gives the same result, with
``deterministic=True`` or not.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from resilsched.options import SolveOptions
from resilsched.solvers import highs_options

#: largest explicit pool of packs (all k-subsets): C(n, 1) + ... + C(n, k)
MAX_POOL = 12_000_000


@dataclass(frozen=True)
class HighsOptions(SolveOptions):
    """Options of the models solved with HiGHS."""

    def highs_settings(self) -> dict[str, Any]:
        """The HiGHS options of these options (`resilsched.solvers.highs_options`)."""
        return highs_options(self)


@dataclass(frozen=True)
class SetpartOptions(HighsOptions):
    """Set partitioning over an explicit pool of packs (``setpart-full``, ``setpart-bp``)."""

    max_pool: int = field(default=MAX_POOL, metadata={
        "low": 1, "high": 10 * MAX_POOL,
        "help": "largest explicit pool of packs (C(n,1)+...+C(n,k)); larger is refused"})


@dataclass(frozen=True)
class SetpartBPOptions(SetpartOptions):
    """``setpart-bp``: branch-and-price, pricing over the explicit pool or by the oracle."""

    pricing: Literal["auto", "pool", "oracle"] = field(default="auto", metadata={
        "help": "pack pricing: pool = every pack listed (refused above max_pool), oracle = "
                "threshold knapsacks (any k, decision C22), auto = pool up to 10^6 packs"})


@dataclass(frozen=True)
class SetpartCGOptions(SetpartOptions):
    """``setpart-cg``: column generation, cuts and reduced-cost closure."""

    cuts: bool = field(default=True, metadata={
        "help": "subset-row cuts over triples of tasks in the root LP (decision C13)"})
    lns: bool = field(default=True, metadata={
        "help": "large-neighbourhood search for the incumbent (decision C29)"})
    closure: Literal["auto", "search", "mip"] = field(default="auto", metadata={
        "help": "closure rounds solved by the exact C search (decision C28) or HiGHS's MIP; "
                "auto = the search when the C kernels are built and n <= 256"})


@dataclass(frozen=True)
class MatchingOptions(SolveOptions):
    """``matching`` (k <= 2): which blossom code runs, and LP edge elimination."""

    backend: Literal["auto", "networkx", "networkx-dup", "rustworkx"] = field(
        default="auto", metadata={"help": "blossom code: auto = rustworkx if installed, "
                                          "else networkx; networkx-dup = the spec's graph"})
    prune: Literal["auto", "on", "off"] = field(default="auto", metadata={
        "help": "LP reduced-cost edge elimination before the blossom algorithm "
                "(auto: on for rustworkx, off for networkx)"})


@dataclass(frozen=True)
class MatchingNetworkxOptions(SolveOptions):
    """``matching-networkx``: the gain-graph matching with networkx's blossom code."""

    prune: Literal["auto", "on", "off"] = field(default="auto", metadata={
        "help": "LP reduced-cost edge elimination (auto: off)"})
