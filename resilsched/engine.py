"""The compiled engines and the one switch between them and the pure-Python engines.

Six C extensions are built when the package is installed (setup.py, ``EXTENSIONS``; nothing
compiles at run time, issue 15, decision T13): ``resilsched._core`` (the rigid and moldable
list-scheduling engines, a CPython-API module: `module`), and five shared objects opened with
ctypes, each declared once as an `Extension` (its functions' signatures with typed array
arguments, and the constants its Python side shares with the C file, checked at load) beside
the Python code that calls it: ``resilsched._desktop`` (`heuristics.desktop._ckernel`),
``resilsched._closure`` (`models.coschedule._cclosure`), ``resilsched._refute``
(`models.rigid.crefute`), ``resilsched._improve`` (`models.rigid.cserial`) and
``resilsched._chunks`` (`bounds.worksharing_static`). `library` opens and declares one,
once per process.

The pure-Python engines stay the reference (the tests compare both bit for bit). Which one
runs is one switch: ``use("python")`` / ``use("c")``, a setter and a context manager
(``with use("python"): ...`` restores the engine before it), read by `current`. The default is
``"c"``, or ``"python"`` when the environment variable ``RESILSCHED_NO_CORE`` (or the older
``RESILSCHED_NO_C``) is set to anything but "" and "0" (read once, at the first question).
An extension that was not built (no C compiler at install time), or that does not match its
declaration, leaves its callers on the Python engine. One line on stderr says why, once per
process and extension, when the engine is "c" and the extension is missing, or when the
environment chose "python" (not when `use` did).
"""

from __future__ import annotations

import ctypes
import importlib
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import ModuleType, TracebackType
from typing import Any

import numpy as np

#: the engines `use` switches between
ENGINES = ("c", "python")
#: environment variables that set the default engine to "python" (any value but "" and "0")
DISABLE_VARIABLES = ("RESILSCHED_NO_CORE", "RESILSCHED_NO_C")

_CORE_WHAT = "compiled simulation core"

#: the engine set by `use`, or None (the default of the environment)
_chosen: str | None = None
#: the environment's default: (engine, the variable that chose "python"), read once
_default: tuple[str, str | None] | None = None
#: extension name -> the imported module, or the reason it is missing (decided once)
_modules: dict[str, ModuleType | str] = {}
#: extension name -> the declared ctypes library, or the reason it cannot be used
_libraries: dict[str, Any] = {}
#: extensions whose one line on stderr was printed
_warned: set[str] = set()


def disabled() -> str | None:
    """The environment variable that sets the default engine to "python", or None."""
    for name in DISABLE_VARIABLES:
        if os.environ.get(name, "") not in ("", "0"):
            return name
    return None


def _environment() -> tuple[str, str | None]:
    """The default engine and the variable that chose "python" (read once, until `reset`)."""
    global _default
    if _default is None:
        off = disabled()
        _default = ("python" if off else "c", off)
    return _default


def current() -> str:
    """The engine in use: ``"c"`` or ``"python"``."""
    return _chosen if _chosen is not None else _environment()[0]


class use:  # lower case: to the caller a function, ``engine.use("python")``
    """Switch to the engine `name` (``"c"`` or ``"python"``).

    A setter (``engine.use("python")`` holds until the next switch) and a context manager
    (``with engine.use("python"): ...`` restores the engine that was in use before).

    Raises
    ------
    ValueError
        `name` is not one of `ENGINES`.
    """

    def __init__(self, name: str) -> None:
        global _chosen
        if name not in ENGINES:
            raise ValueError(f"engine: {name!r} is not one of {', '.join(ENGINES)}")
        self._before = _chosen
        _chosen = name

    def __enter__(self) -> use:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        global _chosen
        _chosen = self._before


def reset() -> None:
    """Back to the environment's default engine, read again, and every extension looked for
    again at the next call (tests that change the environment or the importer)."""
    global _chosen, _default
    _chosen = _default = None
    _modules.clear()
    _libraries.clear()
    _warned.clear()


def _import(name: str) -> ModuleType | str:
    """``resilsched.<name>``, or the reason it is missing (decided once)."""
    if name not in _modules:
        try:
            _modules[name] = importlib.import_module(f"resilsched.{name}")
        except ImportError as exc:
            _modules[name] = f"not built ({exc}); reinstall with a C compiler: pip install -e ."
    return _modules[name]


def _warn(name: str, what: str, reason: str, fallback: str) -> None:
    if name not in _warned:
        _warned.add(name)
        print(f"resilsched: {what} resilsched.{name} {reason}; using {fallback} (same results, "
              "slower)", file=sys.stderr)


def _python(name: str, what: str, fallback: str) -> bool:
    """Whether the Python engine runs; says once why when the environment chose it."""
    if _chosen is not None:
        return _chosen == "python"
    default, off = _environment()
    if default == "c":
        return False
    _warn(name, what, f"disabled by {off}", fallback)
    return True


def module(name: str = "_core") -> ModuleType | None:
    """The CPython-API extension ``resilsched.<name>``, or None: the Python engine runs (the
    engine is "python", or the module was not built)."""
    if _python(name, _CORE_WHAT, "the pure-Python engines"):
        return None
    found = _import(name)
    if isinstance(found, str):
        _warn(name, _CORE_WHAT, found, "the pure-Python engines")
        return None
    return found


def available(name: str = "_core") -> bool:
    """Whether the engine is "c" and the extension `name` is built."""
    return module(name) is not None


def built(name: str) -> bool:
    """Whether the extension `name` was built, whatever the engine; prints nothing."""
    return not isinstance(_import(name), str)


class _Array(ctypes.c_void_p):
    """A typed pointer argument: a C-contiguous numpy array of `dtype` (subclasses set it)."""

    dtype: np.dtype = np.dtype(np.int64)
    nullable = False

    @classmethod
    def from_param(cls, obj: Any) -> ctypes.c_void_p | None:
        if obj is None and cls.nullable:
            return None
        if type(obj) is not np.ndarray or obj.dtype != cls.dtype or not obj.flags.c_contiguous:
            raise TypeError(f"expected a C-contiguous numpy array of {cls.dtype}"
                            f"{' or None' if cls.nullable else ''}, got {type(obj).__name__}"
                            f"{'' if type(obj) is not np.ndarray else ' of ' + str(obj.dtype)}")
        return ctypes.c_void_p(obj.ctypes.data)


def array(dtype: Any, *, nullable: bool = False) -> type[_Array]:
    """The ctypes argument type of a C-contiguous numpy array of `dtype` (``const T *`` or
    ``T *`` in C); `nullable` also takes None (a NULL pointer). A call with any other value
    raises ``ctypes.ArgumentError`` naming the argument."""
    dt = np.dtype(dtype)
    return type(f"Array_{dt.name}{'_or_null' if nullable else ''}", (_Array,),
                {"dtype": dt, "nullable": nullable})


@dataclass(frozen=True)
class Extension:
    """A C extension whose shared object is opened with ctypes, declared once.

    Parameters
    ----------
    name : the module's name in the package (``"_desktop"``: ``resilsched._desktop``).
    what : what it holds, for the one line on stderr (``"desktop kernels"``).
    fallback : what runs without it (``"the pure-Python engine"``).
    functions : C function -> (result type, argument types); array arguments by `array`.
    constants : exported ``const int64_t`` globals of the C file -> the value its Python side
        uses; a library whose values differ is not used (its one line says which).
    pydll : open it with ``ctypes.PyDLL`` (the GIL held during calls; the C code releases it
        itself and may raise Python errors), else ``ctypes.CDLL``.
    """

    name: str
    what: str
    fallback: str
    functions: Mapping[str, tuple[Any, tuple[Any, ...]]]
    constants: Mapping[str, int] = field(default_factory=dict)
    pydll: bool = False


def _declare(ext: Extension, path: str) -> Any:
    """The library at `path` with `ext`'s signatures set, or the reason it cannot be used."""
    try:
        dll = (ctypes.PyDLL if ext.pydll else ctypes.CDLL)(path)
        for fname, (restype, argtypes) in ext.functions.items():
            fn = getattr(dll, fname)
            fn.restype, fn.argtypes = restype, list(argtypes)
        for cname, value in ext.constants.items():
            got = ctypes.c_int64.in_dll(dll, cname).value
            if got != value:
                return f"disagrees with its Python side ({cname} = {got}, expected {value})"
    except (OSError, AttributeError, ValueError) as exc:
        return f"cannot be declared ({exc}); reinstall: pip install -e ."
    return dll


def library(ext: Extension) -> Any | None:
    """The declared ctypes library of `ext`, or None: the Python engine runs (the engine is
    "python", or the extension was not built or does not match its declaration)."""
    if _python(ext.name, ext.what, ext.fallback):
        return None
    if ext.name not in _libraries:
        found = _import(ext.name)
        _libraries[ext.name] = found if isinstance(found, str) else _declare(ext, found.__file__)
    dll = _libraries[ext.name]
    if isinstance(dll, str):
        _warn(ext.name, ext.what, dll, ext.fallback)
        return None
    return dll
