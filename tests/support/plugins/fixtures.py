"""A throwaway module of user heuristics, importable from the working directory.

`plugins` writes ``myheur.py`` (and a module that does not even import) into a fresh folder and
makes it the working directory, as a user running ``resilsched`` from their project folder:

- ``good``: R-LIST-0 (LPT) through its public function, renamed: a correct heuristic;
- ``infeasible``: every attempt starts at time 0 (processors oversubscribed);
- ``liar``: the correct schedule with a makespan claimed one second shorter;
- ``raiser``: divides by zero; ``hang``: never returns; ``exiter``: calls sys.exit;
- ``not_a_result``: returns a number; ``unprintable``: a result JSON cannot hold (a set);
- ``key``: a priority key (the narrowest job first);
- bad references: ``wrong_signature`` (one argument), ``CONSTANT`` (not callable).
"""

from __future__ import annotations

import sys
import textwrap

import pytest

MODULE = textwrap.dedent('''
    """Heuristics of a throwaway test module (tests/support/plugins/fixtures.py)."""

    import dataclasses
    import sys

    from resilsched import HeuristicResult
    from resilsched.heuristics.rigid import r_list_0
    from resilsched.schedule import Schedule

    CONSTANT = 3


    def good(instance, scenario=None, priority=None, *, seed: int = 0, shift: int = 0):
        """GOOD: R-LIST-0 with LPT, a correct schedule."""
        res = r_list_0(instance, scenario, "LPT", seed=seed)
        return HeuristicResult(res.objective + shift, "GOOD", None, res.schedule)


    def infeasible(instance, scenario=None, priority=None, *, seed: int = 0):
        """INFEASIBLE: every attempt of the R-LIST-0 schedule moved to time 0."""
        res = r_list_0(instance, scenario, "LPT")
        moved = tuple(dataclasses.replace(a, start=0, end=a.end - a.start)
                      for a in res.schedule.attempts)
        makespan = max(a.end for a in moved if not a.failed)
        return HeuristicResult(makespan, "INFEASIBLE", None, Schedule(moved, makespan))


    def liar(instance, scenario=None, priority=None, *, seed: int = 0):
        """LIAR: the correct schedule, a makespan claimed one second shorter."""
        res = r_list_0(instance, scenario, "LPT")
        return HeuristicResult(res.objective - 1, "LIAR", None, res.schedule)


    def raiser(instance, scenario=None, priority=None, *, seed: int = 0):
        """RAISER: a bug."""
        return 1 / 0


    def hang(instance, scenario=None, priority=None, *, seed: int = 0):
        """HANG: never returns, and swallows what it can."""
        while True:
            try:
                while True:
                    pass
            except Exception:
                pass


    def exiter(instance, scenario=None, priority=None, *, seed: int = 0):
        sys.exit(3)


    def not_a_result(instance, scenario=None, priority=None, *, seed: int = 0):
        return 42


    def unprintable(instance, scenario=None, priority=None, *, seed: int = 0):
        res = r_list_0(instance, scenario, "LPT")
        return HeuristicResult(res.objective, "UNPRINTABLE", None, res.schedule, {"ids": {1}})


    def key(instance, j):
        """The narrowest job first."""
        return instance.p[j]


    def wrong_signature(instance):
        return None
''')


@pytest.fixture
def plugins(tmp_path, monkeypatch):
    """A project folder holding ``myheur.py`` (and ``broken.py``), as the working directory."""
    (tmp_path / "myheur.py").write_text(MODULE)
    (tmp_path / "broken.py").write_text("def f(:\n")
    monkeypatch.chdir(tmp_path)  # not on sys.path: the registry imports it like python -m
    yield tmp_path
    for name in ("myheur", "broken"):
        sys.modules.pop(name, None)
