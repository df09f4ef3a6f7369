"""The build of the compiled modules. One kind is hand-written: the leaves
(``src/citeaudit/_speedups/_leaves.pyx``: plain data in and out, each with its one-line
oracle in its docstring and in ``_speedups/_fallback.py``; the count of a document's
openings). Everything else about the package is declared in ``pyproject.toml``.

Beside them, modules compiled from the package's own Python (``_FROM_SOURCE``: the claim
segmentation and policy, the checks, the amounts, the engine, the snapshot's reading, the
bracket grammars' scan, the unread markers' hints, the layout's look for a reference list,
the claim scorer and content judge, the lexical judge's content words, the stream's per-chunk
work, free text's claim assembly, the provider formats, the field reading and the ranged
claims they share):
Cython's pure-Python mode, the C types declared in a ``.pxd`` beside the ``.py``, so that one
source is both the reference and the compiled build (see ``docs/compiled.md``). The extension
lands next to its ``.py`` and wins the import; ``CITEAUDIT_PURE=1`` runs the ``.py`` instead,
and the leaves' oracles (``src/citeaudit/_speedups/__init__.py`` chooses, in one place).

The compiled modules are optional: without Cython or a working C compiler the package builds
and installs as pure Python (the reference implementation and the oracles, slower, with the
same results) and says so in ``citeaudit --version``. ``CITEAUDIT_PURE_BUILD=1`` builds it
pure on purpose; ``CITEAUDIT_REQUIRE_CORE=1`` (as in CI) makes a module that cannot be built
an error; ``CITEAUDIT_CFLAGS`` adds compiler flags (``-fsanitize=address -g`` for the
sanitizer build).
"""

from __future__ import annotations

import os
import shlex
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

# The hand-written modules: the leaves.
_MODULES = {"citeaudit._speedups._leaves": "src/citeaudit/_speedups/_leaves.pyx"}
# Modules compiled from their own .py (and .pxd), one source for both builds.
_FROM_SOURCE = {"citeaudit.core._segment": "src/citeaudit/core/_segment.py",
                "citeaudit.support._terms": "src/citeaudit/support/_terms.py",
                "citeaudit.core._policy": "src/citeaudit/core/_policy.py",
                "citeaudit.core._checks": "src/citeaudit/core/_checks.py",
                "citeaudit.core._amounts": "src/citeaudit/core/_amounts.py",
                "citeaudit.core._engine": "src/citeaudit/core/_engine.py",
                "citeaudit.core._sources": "src/citeaudit/core/_sources.py",
                "citeaudit.core._unread": "src/citeaudit/core/_unread.py",
                "citeaudit.core._layout": "src/citeaudit/core/_layout.py",
                "citeaudit.core._citable": "src/citeaudit/core/_citable.py",
                "citeaudit.core._claims": "src/citeaudit/core/_claims.py",
                **{f"citeaudit.core.{name}": f"src/citeaudit/core/{name}.py" for name in (
                    "_answer", "_grammar", "_refusal", "_report")},
                "citeaudit.core._brackets": "src/citeaudit/core/_brackets.py",
                # the eval path: a record's parse, its result line and summary, the metrics
                **{f"citeaudit.{name}": f"src/citeaudit/{name.replace('.', '/')}.py" for name in (
                    "core._metrics", "core._findings", "eval._records", "eval._results",
                    "eval._summary")},
                "citeaudit.request._feed": "src/citeaudit/request/_feed.py",
                "citeaudit.formats._text": "src/citeaudit/formats/_text.py",
                **{f"citeaudit.formats.{name}": f"src/citeaudit/formats/{name}.py" for name in (
                    "_fields", "_ranges", "_anthropic", "_openai", "_cohere", "_gemini",
                    "_bedrock", "_mistral", "_marked")}}
# Types come from the .pxd only: with annotation typing the compiled module would reject what
# the Python accepts (a ``findings: tuple`` argument refuses None, a ``str`` one a subclass),
# and the annotations are written for mypy (``Sequence[Span]``, unions), not for C.
_FROM_SOURCE_DIRECTIVES = {"language_level": "3", "annotation_typing": False}


class _OptionalBuildExt(build_ext):
    """Builds the compiled core where it can; warns and leaves it out where it cannot. The
    modules are compiled on every core at once unless ``--parallel`` says otherwise: each is
    a large C file, and one at a time the install takes minutes.
    """

    def finalize_options(self) -> None:
        super().finalize_options()
        if self.parallel is None:
            self.parallel = os.cpu_count() or 1

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

    def extensions(modules: dict[str, str]) -> list[Extension]:
        # No debug information (Python's own CFLAGS ask for -g): a fifth of each module's
        # compile time and most of its size; CITEAUDIT_CFLAGS=-g puts it back.
        return [Extension(name, [path], extra_compile_args=["-O2", "-g0", *flags],
                          extra_link_args=flags)
                for name, path in modules.items()]

    return [*cythonize(extensions(_MODULES), compiler_directives={"language_level": "3"},
                       quiet=True, include_path=["src"]),
            *cythonize(extensions(_FROM_SOURCE), compiler_directives=_FROM_SOURCE_DIRECTIVES,
                       quiet=True, include_path=["src"])]


setup(ext_modules=_extensions(), cmdclass={"build_ext": _OptionalBuildExt})
