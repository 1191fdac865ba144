"""Experiments: a campaign declared once, and the one runner every reproduction runs it with.

docs/architecture.md, "Campaigns in this repository". An `Experiment` declares a campaign of the
store: its `name`, its task function by a stable ``"module:function"`` name (a `TaskFunction`:
pool and Dask workers receive the name and import the function themselves) and, for the spec
form (``[experiment]`` in a campaign spec, docs/campaigns.md), how its task list is built from
its arguments. `ExperimentRunner` opens the result store once, starts the asked campaigns over
(``--fresh``), and runs tasks through the campaign engine (`resilsched.campaign.engine`:
inline, pool or Dask, progress, resume, Ctrl-C), the store checking each campaign's
configuration.

Every reproduction (`resilsched.reproduce`) declares its experiments in a module-level
``CAMPAIGNS`` mapping (campaign name -> `Experiment`); `REGISTERED` names the module of each,
so `experiment` finds one by name without importing the others.

>>> from resilsched.campaign.engine import Task
>>> squares = Experiment("squares", "resilsched.campaign.engine:_square")
>>> with ExperimentRunner(":memory:", progress=False) as runner:
...     runner.run(squares, [Task({"x": x}, x) for x in range(4)])
[0, 1, 4, 9]
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from resilsched.campaign.engine import DEFAULT_CHUNK_SECONDS, Task, run_campaign
from resilsched.campaign.errors import CampaignError
from resilsched.campaign.store import ResultStore
from resilsched.references import load

__all__ = ["REGISTERED", "Experiment", "ExperimentRunner", "ExperimentSpec", "TaskFunction",
           "experiment", "experiment_spec", "resolve"]

#: the module declaring each registered experiment (its ``CAMPAIGNS`` mapping), by name
REGISTERED: dict[str, str] = {
    "coschedule-claims": "resilsched.reproduce.coschedule",
    "desktop": "resilsched.reproduce.desktop",
    "desktop-r1-sizes": "resilsched.reproduce.desktop",
    "desktop-r9-cost": "resilsched.reproduce.desktop",
    "malleable": "resilsched.reproduce.malleable",
    "malleable-sanity": "resilsched.reproduce.malleable",
    "malleable-r1-cause": "resilsched.reproduce.malleable",
    "malleable-r3-rule": "resilsched.reproduce.malleable",
    "moldable": "resilsched.reproduce.moldable",
    "moldable-theorems": "resilsched.reproduce.moldable",
    "rigid-synthetic": "resilsched.reproduce.rigid",
    "rigid-table1": "resilsched.reproduce.rigid",
    **{f"worksharing-{w}": "resilsched.reproduce.worksharing"
       for w in ("e1", "e2", "e3", "e4", "e5", "e6", "norep-rules", "traces")},
}


def resolve(reference: str) -> Any:
    """The object named ``"module:attribute"``, imported now (`resilsched.references.load`);
    `CampaignError` naming it if the module or the attribute is missing."""
    module, sep, attr = reference.partition(":")
    if not sep or not module or not attr:
        raise CampaignError(f"{reference!r} is not MODULE:NAME")
    try:
        return load(module, attr)
    except (ImportError, AttributeError) as exc:
        raise CampaignError(f"{reference!r} cannot be loaded ({exc})") from None


@dataclass(frozen=True)
class TaskFunction:
    """The task function named `reference` (``"module:function"``).

    It is pickled as its name: a pool or Dask worker imports the module itself when it
    unpickles it (a worker that cannot is found before the first chunk, K33), and the function
    is looked up again at each call, so what the module holds at that time runs.
    """

    reference: str

    def __call__(self, payload: Any) -> Any:
        return resolve(self.reference)(payload)

    def __reduce__(self) -> tuple[Callable[[str], TaskFunction], tuple[str]]:
        return _loaded, (self.reference,)


def _loaded(reference: str) -> TaskFunction:
    """Unpickle a `TaskFunction`, importing its function now (an error if it cannot be)."""
    resolve(reference)
    return TaskFunction(reference)


@dataclass(frozen=True)
class Experiment:
    """A campaign declared once.

    Parameters
    ----------
    name : the campaign's name in the result store.
    task : the task function, ``"module:function"`` (``fn(payload) -> JSON-able result``).
    description : one line (the docs, the spec form's errors).
    plan : ``"module:function"`` building the task list from the parsed options (an
        `argparse.Namespace`) of the reproduction; None: the experiment has no spec form.
    options : ``"module:function"``, the reproduction's ``parse_args(argv, prog)``: the spec
        form's arguments are read as its command-line options, with the same rules and
        defaults.
    arguments : the options a spec may give (``instances`` for ``--instances``).
    fixed : options always given (``("--only", "r1-sizes")`` for a check's experiment).
    spread : the arguments whose list is given as separate values (an option of
        ``nargs="+"``); other lists are joined by commas.
    config : the campaign-wide configuration the store checks (`ResultStore.register`); a
        reproduction may pass its own to `ExperimentRunner.run`.
    configure : ``"module:function"`` giving the configuration from the parsed options, when it
        depends on them (the spec form; default: `config`).
    """

    name: str
    task: str
    description: str = ""
    plan: str | None = None
    options: str | None = None
    arguments: tuple[str, ...] = ()
    fixed: tuple[str, ...] = ()
    spread: tuple[str, ...] = ()
    config: Mapping[str, Any] = field(default_factory=dict)
    configure: str | None = None

    @property
    def function(self) -> TaskFunction:
        """The task function, by name."""
        return TaskFunction(self.task)

    def argv(self, arguments: Mapping[str, Any], where: str = "arguments") -> list[str]:
        """The reproduction's command-line options for the spec form's `arguments` (`fixed`
        first), as `parse` reads them; `CampaignError` naming `where` for an argument the
        experiment does not take."""
        argv = list(self.fixed)
        for key, value in arguments.items():
            if key not in self.arguments:
                raise CampaignError(f"{where}.{key}: is not an argument of {self.name} (choose "
                                    f"from {', '.join(self.arguments) or 'none'})")
            option = "--" + key.replace("_", "-")
            if value is True:
                argv.append(option)
            elif isinstance(value, list) and key in self.spread:
                argv += [option, *map(str, value)]
            elif value is not False:
                text = ",".join(map(str, value)) if isinstance(value, list) else str(value)
                argv += [option, text]
        return argv

    def parse(self, arguments: Mapping[str, Any], where: str = "arguments") -> Any:
        """The reproduction's options for `arguments` (name -> TOML value: a number, a string,
        a list joined by commas, true for a flag); `CampaignError` naming `where` and the
        option's rule otherwise."""
        if self.plan is None or self.options is None:
            raise CampaignError(f"{where}: experiment {self.name!r} has no spec form (it runs "
                                "from its reproduction only)")
        argv = self.argv(arguments, where)
        err = io.StringIO()
        try:
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                return resolve(self.options)(argv, _PROG)
        except SystemExit:
            line = (err.getvalue().strip().splitlines() or ["is refused"])[-1]
            line = line.removeprefix(f"{_PROG}: error: ")
            named = re.match(r"(?:argument )?--([\w-]+)(?:/-\w+)?: ", line)  # the option's rule
            if named:
                where, line = f"{where}.{named[1].replace('-', '_')}", line[named.end():]
            raise CampaignError(f"{where}: {line}") from None

    def tasks(self, arguments: Mapping[str, Any], where: str = "arguments") -> list[Task]:
        """The task list for the spec form's `arguments` (`parse`)."""
        return self.tasks_of(self.parse(arguments, where))

    def tasks_of(self, options: Any) -> list[Task]:
        """The task list for the reproduction's parsed `options`."""
        if self.plan is None:
            raise CampaignError(f"experiment {self.name!r} has no spec form")
        return resolve(self.plan)(options)

    def config_of(self, options: Any) -> dict[str, Any]:
        """The configuration for the reproduction's parsed `options` (`configure`)."""
        return dict(self.config if self.configure is None else resolve(self.configure)(options))


#: program name given to a reproduction's parser by `Experiment.parse` (cut from its errors)
_PROG = "experiment"


def experiment(name: str) -> Experiment:
    """The registered experiment `name` (`REGISTERED`), or ``"module:NAME"`` of one's own (a
    module whose ``CAMPAIGNS`` maps NAME to an `Experiment`); `CampaignError` otherwise."""
    module, sep, key = name.rpartition(":") if ":" in name else (REGISTERED.get(name), "", name)
    if module is None:
        raise CampaignError(f"{name!r} is not a registered experiment (choose from "
                            f"{', '.join(sorted(REGISTERED))}, or MODULE:NAME)")
    found = resolve(f"{module}:CAMPAIGNS").get(key)
    if not isinstance(found, Experiment):
        raise CampaignError(f"{name!r}: {module} declares no experiment {key!r}")
    return found


class ExperimentRunner:
    """Runs experiments into one result store, all with the same executor.

    Parameters
    ----------
    path : the SQLite result store, opened (created if missing) by ``with``; a store that
        cannot be used is a one-line `StoreError`.
    jobs : worker processes; ``<= 1`` runs inline.
    dask : None, ``"local"`` or a scheduler address (`run_campaign`).
    fresh : campaign names whose stored results are deleted when the store opens.
    progress : progress lines on stderr.
    chunk_seconds : seconds of work per message to a worker.
    """

    def __init__(self, path: str | Path, *, jobs: int | None = 1, dask: Any = None,
                 fresh: Iterable[str] = (), progress: bool = True,
                 chunk_seconds: float = DEFAULT_CHUNK_SECONDS):
        self.path = path
        self.jobs, self.dask, self.progress = jobs, dask, progress
        self.fresh = tuple(fresh)
        self.chunk_seconds = chunk_seconds
        self._store: ResultStore | None = None

    @property
    def store(self) -> ResultStore:
        if self._store is None:
            raise CampaignError("the experiment runner is not open (use it in a with block)")
        return self._store

    def __enter__(self) -> ExperimentRunner:
        self._store = ResultStore(self.path)
        try:
            for name in self.fresh:
                self._store.forget(name)
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None

    def run(self, exp: Experiment, tasks: Sequence[Task], *,
            config: Mapping[str, Any] | None = None, label: str | None = None) -> list[Any]:
        """Run the tasks of `exp` not yet stored; all results in task order.

        `config` (default: the experiment's) is checked against the store: another one under
        the same name is a one-line `CampaignError` (start over with ``--fresh``).
        """
        return run_campaign(exp.name, tasks, exp.function, self.store,
                            config=exp.config if config is None else config, jobs=self.jobs,
                            dask=self.dask, progress=self.progress, label=label,
                            chunk_seconds=self.chunk_seconds)

    def stored(self, exp: Experiment, tasks: Sequence[Task]) -> dict[str, Any]:
        """The stored results of those of `tasks` that `exp` holds, by key (nothing runs)."""
        return self.store.load(exp.name, {t.key for t in tasks})


# -- the spec form: ``[experiment]`` in a campaign spec (docs/campaigns.md) ---------------------

_EXPERIMENT_KEYS = {"name", "arguments"}


@dataclass(frozen=True)
class ExperimentSpec:
    """A spec naming a registered experiment and its arguments: ``campaign run``, ``--shard``
    and ``campaign merge --spec`` run and check it as they do a cross-product spec.

    Its campaign is the experiment's (`name`), with the experiment's configuration, so the
    store it fills is one the reproduction reads: ``resilsched reproduce FAMILY --store S``
    with the same options then runs nothing and prints its tables.
    """

    name: str
    experiment: Experiment
    arguments: Mapping[str, Any]
    options: Any = None  # the reproduction's options for `arguments`
    source: str = "<spec>"
    description: str = ""

    def config(self) -> dict[str, Any]:
        """The campaign's configuration (the one its reproduction records)."""
        return self.experiment.config_of(self.options)

    def tasks(self) -> list[Task]:
        """Every task of the experiment for the spec's arguments."""
        return self.experiment.tasks_of(self.options)

    def reproduce_command(self, store: str) -> str | None:
        """``resilsched reproduce FAMILY OPTIONS --store STORE``, the reproduction that prints
        its tables from the `store` this spec fills (with the spec's arguments as its options,
        it runs no task); None for an experiment of one's own, whose options no family's
        reproduction parses."""
        from resilsched.registry import reproductions

        module = (self.experiment.options or "").partition(":")[0]
        for name, fam in reproductions().items():
            if fam.reproduction.module == module:
                return shlex.join(["resilsched", "reproduce", name,
                                   *self.experiment.argv(self.arguments), "--store", store])
        return None


def experiment_spec(data: Mapping[str, Any], source: str) -> ExperimentSpec:
    """The `ExperimentSpec` of the parsed TOML `data` of a spec that has ``[experiment]``;
    `CampaignError` naming the file and the field otherwise (the arguments are checked by the
    reproduction's own option rules now)."""
    others = sorted(set(data) - {"experiment"})
    if others:
        raise CampaignError(f"{source}: {others[0]}: is not allowed beside [experiment] (the "
                            "experiment declares its own tasks)")
    table = data["experiment"]
    if not isinstance(table, dict):
        raise CampaignError(f"{source}: experiment: must be a table")
    for key in table:
        if key not in _EXPERIMENT_KEYS:
            raise CampaignError(f"{source}: experiment.{key}: is not a known key (choose from "
                                f"{', '.join(sorted(_EXPERIMENT_KEYS))})")
    name = table.get("name")
    if not isinstance(name, str) or not name.strip():
        raise CampaignError(f"{source}: experiment.name: is required (a registered experiment: "
                            f"{', '.join(sorted(REGISTERED))})")
    try:
        exp = experiment(name.strip())
    except CampaignError as exc:
        raise CampaignError(f"{source}: experiment.name: {exc}") from None
    arguments = table.get("arguments", {})
    if not isinstance(arguments, dict):
        raise CampaignError(f"{source}: experiment.arguments: must be a table of NAME = value")
    options = exp.parse(arguments, f"{source}: experiment.arguments")  # refused now
    return ExperimentSpec(exp.name, exp, dict(arguments), options, source, exp.description)
