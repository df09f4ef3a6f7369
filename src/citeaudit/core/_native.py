"""Which implementation of the loops still copied by hand runs: the compiled core
(:mod:`citeaudit.core._core`, built from ``_core.pyx`` when the package is installed with a C
compiler: the bracket scan and claim assembly) or the pure-Python reference it mirrors.
Everything else compiled is chosen by :mod:`citeaudit._speedups`, by the same variable: the
modules compiled from their own source (:mod:`citeaudit.core._segment`,
:mod:`citeaudit.core._policy`, :mod:`citeaudit.core._checks`, :mod:`citeaudit.core._engine`,
:mod:`citeaudit.formats._ranges` and the others of ``setup.py``'s ``_FROM_SOURCE``), which have
no reference apart, and the hand-written leaves (``citeaudit._speedups._leaves``), each with
its oracle.

``CITEAUDIT_PURE=1`` (read once, at import) selects the reference even where the core is
built; without the built core the reference runs anyway, slower, with the same results.
``citeaudit --version`` says which runs.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from citeaudit import _speedups

__all__ = ["compiled", "core", "mode"]

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
    runs: the same choice as :func:`core` (a leaf is chosen by :mod:`citeaudit._speedups`).
    """
    if core() is None:
        return None
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def mode() -> str:
    """Which implementation runs, in words, for ``citeaudit --version``."""
    if _PURE:
        return "pure Python (CITEAUDIT_PURE=1)"
    if core() is None:
        return "pure Python (the compiled core is not built)"
    uncompiled = _speedups.uncompiled()
    if uncompiled:  # a partial build: these run as Python (the leaves: their oracles)
        return f"compiled core ({', '.join(uncompiled)} not built: Python)"
    return "compiled core"
