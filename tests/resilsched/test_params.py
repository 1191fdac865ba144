"""One parameters mechanism (`resilsched.params`): every heuristic's and model's ``--param``
names are the fields of one frozen dataclass, and a bad value is an `InvalidOption`."""

from __future__ import annotations

import dataclasses
import inspect
import typing

import pytest

from resilsched.deadline import check_time_limit
from resilsched.errors import InvalidInstance, InvalidOption
from resilsched.params import parse_params
from resilsched.registry import all_families

BUILTIN = [(fam.name, h) for fam in all_families() for h in fam.heuristics.values()
           if not h.plugin]


@pytest.mark.parametrize("family, h", BUILTIN, ids=[f"{f}-{h.name}" for f, h in BUILTIN])
def test_a_heuristic_takes_the_fields_of_its_params_class(family, h):
    """A built-in heuristic takes exactly its params class's fields: as keyword-only arguments
    with the same defaults and allowed values, or as ``**params`` built into the class."""
    fields = [] if h.options is None else dataclasses.fields(h.options)
    assert h.options is None or dataclasses.is_dataclass(h.options)
    assert all(f.name in {p.name for p in h.params} for f in fields), "a field is no --param"
    signature = inspect.signature(h.run, eval_str=True).parameters
    for name in h.fast_path:
        assert signature[name].kind is inspect.Parameter.KEYWORD_ONLY
    if any(p.kind is p.VAR_KEYWORD for p in signature.values()):
        assert h.options is not None
        defaults = h.options()
        assert [getattr(defaults, p.name) for p in h.params] == [p.default for p in h.params]
        return
    keywords = [p for p in signature.values() if p.kind is p.KEYWORD_ONLY
                and p.name != "seed" and p.name not in h.fast_path]
    assert [(p.name, p.default) for p in keywords] == [(p.name, p.default) for p in h.params]
    for p, param in zip(keywords, h.params, strict=True):
        if typing.get_origin(p.annotation) is typing.Literal:
            assert typing.get_args(p.annotation) == param.choices


@pytest.mark.parametrize("family, h", BUILTIN, ids=[f"{f}-{h.name}" for f, h in BUILTIN])
def test_params_classes_are_frozen(family, h):
    if h.options is not None:
        assert h.options.__dataclass_params__.frozen


def test_bad_params_and_limits_are_invalid_options_naming_the_field():
    h = next(h for f, h in BUILTIN if h.name == "BATCH-LIST")
    with pytest.raises(InvalidOption, match=r"^--param eps='x' is not a number for BATCH-LIST$"):
        parse_params(h.params, ["eps=x"], h.name)
    with pytest.raises(InvalidOption, match=r"^--param nope: is not a parameter of BATCH-LIST"):
        parse_params(h.params, ["nope=1"], h.name)
    with pytest.raises(InvalidOption, match=r"^time_limit=-1 must be a finite number"):
        check_time_limit(-1)
    assert issubclass(InvalidOption, InvalidInstance)  # bad input: exit status 2, one line


def test_campaign_tasks_pass_the_registered_fast_path(monkeypatch):
    """A campaign row of a built-in rigid heuristic comes from its fast path (``record=False``,
    declared in the registration), with the objective of the full run."""
    from resilsched.campaign import tasks
    from resilsched.registry import get_family

    fam = get_family("rigid")
    h = fam.heuristics["R-LIST-0"]
    seen = {}

    def run(*args, **kwargs):
        seen.update(kwargs)
        return h.run(*args, **kwargs)

    monkeypatch.setitem(fam.heuristics, "R-LIST-0", dataclasses.replace(h, run=run))
    inst = fam.smoke_suite()[0].instance
    row = tasks.run_task(tasks.Work("rigid", inst, "heuristic", "R-LIST-0"))
    assert seen["record"] is False
    assert row["objective"] == h.run(inst, fam.scenario(inst, None), "LPT").objective
