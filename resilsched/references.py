"""``MODULE:FUNCTION`` references to user code (docs/own-heuristic.md).

A reference names a callable the way ``python -m`` finds a module: importable from the current
directory or from the environment (``mypackage.rules:my_key``; the function part may be a
dotted path inside the module, ``module:Class.method``). The toolkit imports the module when it
needs the function, in whatever process runs it (worker processes of a pool or of Dask import it
again, they never rely on having been forked), and checks the signature before any call:

- a heuristic: ``run(instance, scenario=None, priority=None, *, seed=0, **params)``;
- a priority key of the list families (rigid, moldable): ``key(instance, j)``, the job whose
  key is smallest goes first.

A reference that does not import, names no callable or has the wrong signature raises
`BadReference` (an `InvalidInstance`: one line naming the reference and the reason, exit status
2 on the command line), e.g. ``--heuristic mymod:run: does not import (ModuleNotFoundError: No
module named 'mymod')``.

>>> resolve("operator:add", "key", "--priority")(3, 4)
7
>>> resolve("math:nope", "key", "--priority")
Traceback (most recent call last):
...
resilsched.references.BadReference: --priority math:nope: names no callable (module 'math' ...)
>>> is_reference("R-LIST-0"), is_reference("mymod:my_list")
(False, True)
"""

from __future__ import annotations

import importlib
import inspect
import os
import re
import sys
import traceback
from collections.abc import Callable
from typing import Any

from resilsched.errors import InvalidInstance

_REFERENCE = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")

#: what each kind of reference must accept: (positional arguments, keyword arguments)
SIGNATURES: dict[str, tuple[tuple[Any, ...], dict[str, Any], str]] = {
    "heuristic": ((None, None, None), {"seed": 0},
                  "run(instance, scenario=None, priority=None, *, seed=0, **params)"),
    "key": ((None, 0), {}, "key(instance, j)"),
}


class BadReference(InvalidInstance):
    """A ``MODULE:FUNCTION`` reference that cannot be used, and why (one line)."""


def is_reference(text: Any) -> bool:
    """Whether `text` has the form ``MODULE:FUNCTION`` (registered names never hold a colon)."""
    return isinstance(text, str) and ":" in text


def last_line(exc: BaseException) -> str:
    """``TypeName: message`` of an exception, on one line (the last line of its traceback)."""
    text = traceback.format_exception_only(type(exc), exc)[-1].strip()
    return " ".join(text.split())


def _import(module: str) -> Any:
    """`module`, imported the way ``python -m`` would (the current directory comes first) unless
    it already is."""
    if module in sys.modules:
        return sys.modules[module]
    here = os.getcwd()
    if here not in sys.path and "" not in sys.path:
        sys.path.insert(0, here)
    return importlib.import_module(module)


def reference_of(fn: Callable[..., Any]) -> str | None:
    """The ``MODULE:QUALNAME`` that imports `fn` back, or None (a lambda, a local function,
    ``__main__``, an object no longer at that name)."""
    module, qualname = getattr(fn, "__module__", None), getattr(fn, "__qualname__", None)
    if not module or not qualname or module == "__main__" or "<" in qualname:
        return None
    try:
        return f"{module}:{qualname}" if load(module, qualname) is fn else None
    except Exception:
        return None


def load(module: str, path: str) -> Any:
    """The object at the dotted `path` inside `module`, imported the way ``python -m`` would.

    The one import-and-getattr of a ``MODULE:NAME`` reference: what goes wrong is Python's own
    exception (``ImportError``, ``AttributeError``, or whatever the module raises while it
    imports), which each caller turns into its own error (`resolve`: `BadReference`;
    `resilsched.campaign.experiment.resolve`: ``CampaignError``).
    """
    obj = _import(module)
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def resolve(text: str, kind: str, field: str) -> Callable[..., Any]:
    """The callable `text` names, checked against the signature of `kind` (`SIGNATURES`).

    `field` names the option or spec field in the error (``--heuristic``). Imports are cached
    by Python; a failed import is tried again on the next call.
    """
    where = f"{field} {text}"
    if not isinstance(text, str) or not _REFERENCE.match(text.strip()):
        raise BadReference(where, "is not a MODULE:FUNCTION reference (e.g. mymodule:my_rule)")
    module, _, path = text.strip().partition(":")
    try:
        obj = _import(module)
    except BaseException as exc:  # the user's module may raise anything while importing
        if isinstance(exc, KeyboardInterrupt):
            raise
        raise BadReference(where, f"does not import ({last_line(exc)})") from None
    for part in path.split("."):
        if not hasattr(obj, part):
            owner = f"module {module!r}" if obj is sys.modules.get(module) else repr(obj)
            raise BadReference(where, f"names no callable ({owner} has no attribute "
                                      f"{part!r})")
        obj = getattr(obj, part)
    if not callable(obj):
        raise BadReference(where, f"names no callable ({path} is a {type(obj).__name__})")
    check_signature(obj, kind, where)
    return obj


def check_signature(fn: Callable[..., Any], kind: str, where: str) -> None:
    """`BadReference` unless `fn` accepts the arguments of `kind` (`SIGNATURES`)."""
    args, kwargs, shape = SIGNATURES[kind]
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):  # a builtin that does not say what it accepts
        raise BadReference(where, f"has no signature to check (a {kind} is {shape})") from None
    try:
        signature.bind(*args, **kwargs)
    except TypeError as exc:
        raise BadReference(where, f"has the wrong signature {signature} ({exc}): a {kind} "
                                  f"is {shape}") from None


def first_line(fn: Callable[..., Any]) -> str:
    """The first paragraph of `fn`'s docstring on one line ("" without one)."""
    doc = inspect.getdoc(fn) or ""
    return " ".join(doc.split("\n\n", 1)[0].split())
