"""Which implementation of the engine's hot loops runs: the compiled core
(:mod:`citeaudit.core._core`, built from ``_core.pyx`` when the package is installed with a C
compiler) or the pure-Python reference it mirrors. The modules compiled from their own source
(:mod:`citeaudit.core._segment`, :mod:`citeaudit.core._policy`) have no reference apart:
:mod:`citeaudit._speedups` chooses their build, by the same variable.

``CITEAUDIT_PURE=1`` (read once, at import) selects the reference even where the core is
built; without the built core the reference runs anyway, slower, with the same results.
``citeaudit --version`` says which runs.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable
from types import ModuleType
from typing import Any, TypeVar

from citeaudit import _speedups

__all__ = ["compiled", "core", "mode", "slotted"]

_T = TypeVar("_T")

_PURE = _speedups.PURE


def core() -> ModuleType | None:
    """The compiled core, or None where the reference runs."""
    if _PURE:
        return None
    try:
        from citeaudit.core import _core  # noqa: PLC0415 -- built only with a compiler
    except ImportError:
        return None
    return _core


def compiled(name: str) -> ModuleType | None:
    """Another compiled module of the package (``name``, dotted), or None where the reference
    runs: the same choice as :func:`core`.
    """
    if core() is None:
        return None
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def slotted(kind: type[_T], names: tuple[str, ...] | None = None) -> Callable[..., _T]:
    """A maker of ``kind``'s instances from the values of its slots ``names`` in order (a
    dataclass's: its fields), for the engine's frozen records: ``kind`` itself where the
    reference runs, else the core's ``Slotted``, which sets each slot in place (a frozen
    ``__init__`` sets each field through ``object.__setattr__``, ~80 ns a field). ``names``
    must follow ``kind``'s own arguments, so that both makers take the same values.
    """
    compiled_core = core()
    if compiled_core is None:
        return kind
    if names is None:
        names = tuple(f.name for f in dataclasses.fields(kind))  # type: ignore[arg-type]
    made: Callable[..., Any] = compiled_core.Slotted(kind, names)
    return made


def mode() -> str:
    """Which implementation runs, in words, for ``citeaudit --version``."""
    if _PURE:
        return "pure Python (CITEAUDIT_PURE=1)"
    if core() is None:
        return "pure Python (the compiled core is not built)"
    uncompiled = _speedups.uncompiled()
    if uncompiled:  # a partial build: these run as Python
        return f"compiled core ({', '.join(uncompiled)} not built: Python)"
    return "compiled core"
