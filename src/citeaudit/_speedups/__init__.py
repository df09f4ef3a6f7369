"""The one place that chooses what runs compiled, by one variable, ``CITEAUDIT_PURE``.

Two kinds of compiled module:

- **Compiled from their own source**: the extension Cython made of a ``.py`` (with the C
  types of the ``.pxd`` beside it; see ``setup.py``'s ``_FROM_SOURCE``). Python's import
  prefers an extension module to a ``.py`` of the same name in the same folder, so the
  compiled build runs wherever it is built. ``CITEAUDIT_PURE=1`` (read once, here, when the
  package is first imported) runs the Python instead: :func:`install` puts a finder first on
  ``sys.meta_path`` that, for the package's modules, loads the ``.py`` where an extension
  stands beside it (at this module's import, which the package's ``__init__`` does first).
- **Hand-written leaves** (``_leaves.pyx`` in this package): plain arguments in, plain data
  out, each with a one-line oracle in its docstring, run from ``_fallback`` where the leaves
  are not built or ``CITEAUDIT_PURE=1``. They are chosen here, as msgpack chooses its
  extension: ``from citeaudit._speedups import openings`` gives the leaf or its oracle.

``citeaudit --version`` says which runs (:func:`mode`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from importlib.machinery import (
    EXTENSION_SUFFIXES,
    ExtensionFileLoader,
    ModuleSpec,
    PathFinder,
    SourceFileLoader,
)
from importlib.util import find_spec, module_from_spec, spec_from_file_location
from pathlib import Path
from types import ModuleType

__all__ = ["LEAVES", "PURE", "as_python", "built", "compiled", "install", "mode", "openings",
           "uncompiled"]

PURE = os.environ.get("CITEAUDIT_PURE", "").strip() not in ("", "0")


class _SourceFirst:
    """A finder of the package's modules that returns the ``.py`` where the path finder would
    return an extension built from it.
    """

    @classmethod
    def find_spec(cls, name: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        if not name.startswith("citeaudit."):
            return None
        spec = PathFinder.find_spec(name, path, target)
        if spec is None or not isinstance(spec.loader, ExtensionFileLoader) or \
                spec.origin is None:
            return spec
        built = Path(spec.origin)
        source = built.with_name(built.name.split(".", 1)[0] + ".py")
        if not source.is_file():
            return spec
        return spec_from_file_location(name, source, loader=SourceFileLoader(name, str(source)))


def install() -> None:
    """Under ``CITEAUDIT_PURE=1``, make the package's compiled-from-source modules import as
    their Python (once; before any of them is imported).
    """
    if PURE and _SourceFirst not in sys.meta_path:
        sys.meta_path.insert(0, _SourceFirst)


def uncompiled() -> list[str]:
    """The package's modules imported so far that run as Python although they are meant to be
    compiled from their source (a ``.pxd`` beside the ``.py``): where the build left them out;
    and the leaves, where they are not built (their oracles run). A package's ``__init__.pxd``
    is its front door for other packages' ``cimport``, not a module compiled.
    """
    found = [] if LEAVES or PURE else [f"{__name__}._leaves"]
    for name, module in list(sys.modules.items()):
        origin = getattr(module, "__file__", None)
        if name.startswith("citeaudit.") and origin and origin.endswith(".py") and \
                not origin.endswith("__init__.py") and Path(origin).with_suffix(".pxd").is_file():
            found.append(name)
    return sorted(found)


install()

# The leaves: the compiled ones where they are built and wanted, their oracles otherwise.
from citeaudit._speedups._fallback import openings  # noqa: E402  # isort: skip -- after install()

LEAVES = False  # whether the compiled leaves run
if not PURE:
    try:
        from citeaudit._speedups import _leaves
    except ImportError:  # built without a compiler: the oracles run
        pass
    else:
        openings = _leaves.openings
        LEAVES = True


def as_python(name: str) -> ModuleType:
    """The package's module ``name`` (compiled from its own source where it is built) run
    from that source, as Python, under another name: what the tests and the fuzzer hold the
    compiled build to. It is not left in ``sys.modules``.
    """
    found = find_spec(name)
    if found is None or found.origin is None:
        raise ImportError(f"no module {name}")
    path = Path(found.origin).with_name(name.rsplit(".", 1)[1] + ".py")
    spec = spec_from_file_location(f"{name}_as_python", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"no Python source for {name}: {path}")
    module = module_from_spec(spec)
    sys.modules[spec.name] = module  # a dataclass reads its module while it is made
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]  # not one of the package's modules
    return module


def built(name: str) -> bool:
    """Whether the package's module ``name``, compiled from its own source, is built: an
    extension stands beside its ``.py`` (whichever of the two ``CITEAUDIT_PURE`` chooses).
    """
    found = find_spec(name)
    if found is None or found.origin is None:
        return False
    source = Path(found.origin)
    stem = source.name.split(".", 1)[0]
    return any(source.with_name(stem + suffix).is_file() for suffix in EXTENSION_SUFFIXES)


def compiled() -> bool:
    """Whether the compiled build runs: the build made its modules (the leaves, built with
    the rest, stand for them; a partial build is :func:`uncompiled`'s to name) and
    ``CITEAUDIT_PURE=1`` does not choose their Python.
    """
    return LEAVES


def mode() -> str:
    """Which build runs, in words, for ``citeaudit --version``."""
    if PURE:
        return "pure Python (CITEAUDIT_PURE=1)"
    if not compiled():
        return "pure Python (the compiled modules are not built)"
    missing = uncompiled()
    if missing:  # a partial build: these run as Python (the leaves: their oracles)
        return f"compiled ({', '.join(missing)} not built: Python)"
    return "compiled"
