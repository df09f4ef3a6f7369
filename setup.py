"""The build of the compiled modules: the core (``src/citeaudit/core/_core.pyx``), the stream's
per-chunk work (``src/citeaudit/request/_feed_core.pyx``), the lexical judge's tokenising
(``src/citeaudit/support/_lexical_core.pyx``) and the provider formats' readers
(``src/citeaudit/formats/_readers.pyx``); everything else about the package is declared in
``pyproject.toml``. ``src/citeaudit/core/_records.pxd`` holds what they share (named tuples
built from C).

The core is optional: without Cython or a working C compiler the package builds and installs
as pure Python (the reference implementation, slower, with the same results) and says so in
``citeaudit --version``. ``CITEAUDIT_PURE_BUILD=1`` builds it pure on purpose;
``CITEAUDIT_REQUIRE_CORE=1`` (as in CI) makes a core that cannot be built an error;
``CITEAUDIT_CFLAGS`` adds compiler flags (``-fsanitize=address`` for the sanitizer build).
"""

from __future__ import annotations

import os
import shlex
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

_MODULES = {"citeaudit.core._core": "src/citeaudit/core/_core.pyx",
            "citeaudit.request._feed_core": "src/citeaudit/request/_feed_core.pyx",
            "citeaudit.support._lexical_core": "src/citeaudit/support/_lexical_core.pyx",
            "citeaudit.formats._readers": "src/citeaudit/formats/_readers.pyx"}


class _OptionalBuildExt(build_ext):
    """Builds the compiled core where it can; warns and leaves it out where it cannot."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as error:  # any build failure: install pure
            _skipped(error)

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as error:  # any build failure: install pure
            _skipped(error)


def _skipped(error: BaseException) -> None:
    if os.environ.get("CITEAUDIT_REQUIRE_CORE", "").strip() == "1":
        raise SystemExit(f"citeaudit: the compiled core cannot be built: {error}")
    print(f"citeaudit: the compiled core was not built ({error}); installing pure Python",
          file=sys.stderr)


def _extensions() -> list[Extension]:
    if os.environ.get("CITEAUDIT_PURE_BUILD", "").strip() not in ("", "0"):
        return []
    try:
        from Cython.Build import cythonize  # noqa: PLC0415 -- optional at build time
    except ImportError:
        _skipped(ImportError("Cython is not installed"))
        return []
    flags = shlex.split(os.environ.get("CITEAUDIT_CFLAGS", ""))
    modules = [Extension(name, [pyx], extra_compile_args=["-O2", *flags], extra_link_args=flags)
               for name, pyx in _MODULES.items()]
    return list(cythonize(modules, compiler_directives={"language_level": "3"}, quiet=True,
                          include_path=["src"]))


setup(ext_modules=_extensions(), cmdclass={"build_ext": _OptionalBuildExt})
