"""Which build of the modules compiled from their own source runs: the extension Cython made of
a ``.py`` (with the C types of the ``.pxd`` beside it; see ``setup.py``), or the ``.py``.

Python's import prefers an extension module to a ``.py`` of the same name in the same folder,
so the compiled build runs wherever it is built. ``CITEAUDIT_PURE=1`` (read once, here, when
the package is first imported) runs the Python instead: :func:`install` puts a finder first
on ``sys.meta_path`` that, for the package's modules, loads the ``.py`` where an extension
stands beside it (at this module's import, which the package's ``__init__`` does first).
The hand-written compiled modules (built from ``.pyx``, with no ``.py`` of
their name) are chosen by :mod:`citeaudit.core._native` as before.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from importlib.machinery import ExtensionFileLoader, ModuleSpec, PathFinder, SourceFileLoader
from importlib.util import find_spec, module_from_spec, spec_from_file_location
from pathlib import Path
from types import ModuleType

__all__ = ["PURE", "as_python", "install", "uncompiled"]

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
    compiled from their source (a ``.pxd`` beside the ``.py``): where the build left them out.
    """
    found = []
    for name, module in list(sys.modules.items()):
        origin = getattr(module, "__file__", None)
        if name.startswith("citeaudit.") and origin and origin.endswith(".py") and \
                Path(origin).with_suffix(".pxd").is_file():
            found.append(name)
    return sorted(found)


install()


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
