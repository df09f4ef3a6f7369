"""The layers contract (``[tool.importlinter]`` in ``pyproject.toml``) holds, and breaks on
a bad import: a test that it is really checked.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]


def lint_imports(project: Path) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": str(project / "src")}
    command = "from importlinter.cli import lint_imports_command; lint_imports_command()"
    return subprocess.run([sys.executable, "-c", command, "--no-cache"],
                          cwd=project, env=environment, capture_output=True, text=True,
                          check=False, timeout=300)


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """The package and its contracts, copied to be broken."""
    shutil.copytree(ROOT / "src", tmp_path / "src",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    return tmp_path


def test_the_layers_hold() -> None:
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Contracts: 2 kept, 0 broken." in result.stdout


@pytest.mark.parametrize(("module", "bad", "message"), [
    ("core/_rules.py", "import citeaudit.eval", "citeaudit.core is not allowed to import"
                                               " citeaudit.eval"),
    ("support/_lexical.py", "from citeaudit.eval import Record",
     "citeaudit.support is not allowed to import citeaudit.eval"),
    ("core/_engine.py", "import citeaudit._files", "citeaudit.core is not allowed to import"
                                                  " citeaudit._files"),
    # Spark is an integration: below the CLI, above the report, whether reached at its home
    # or through its documented path (the module ``citeaudit.spark``, in no layer itself).
    ("integrations/spark/_run.py", "import citeaudit.cli",
     "citeaudit.integrations is not allowed to import citeaudit.cli"),
    ("report/_html.py", "import citeaudit.spark",
     "citeaudit.report is not allowed to import citeaudit.integrations"),
])
def test_a_bad_import_breaks_them(copy: Path, module: str, bad: str, message: str) -> None:
    path = copy / "src/citeaudit" / module
    path.write_text(path.read_text() + f"\n{bad}  # noqa\n")
    result = lint_imports(copy)
    assert result.returncode == 1
    assert message in result.stdout


MOST_PACKAGES = 10


def _top_level_packages(package: Path) -> list[str]:
    """The packages directly inside ``package``: its folders with an ``__init__.py``."""
    return sorted(path.parent.name for path in package.glob("*/__init__.py"))


def _check_the_rooms(package: Path) -> None:
    packages = _top_level_packages(package)
    assert len(packages) <= MOST_PACKAGES, (
        f"{len(packages)} top-level packages, at most {MOST_PACKAGES}: {', '.join(packages)}")


def test_there_are_at_most_ten_top_level_packages() -> None:
    """Each top-level package is a room of the design; a new kind of thing joins one (an
    integration joins ``integrations``), so that the rooms stay few enough to hold in mind.
    """
    _check_the_rooms(ROOT / "src" / "citeaudit")


def test_an_eleventh_package_fails_naming_them(copy: Path) -> None:
    package = copy / "src" / "citeaudit"
    for n in range(MOST_PACKAGES + 1 - len(_top_level_packages(package))):
        (package / f"room{n}").mkdir()
        (package / f"room{n}" / "__init__.py").write_text("")
    (package / "loose").mkdir()  # a folder without an __init__.py is no package
    (package / "loose" / "notes.py").write_text("")
    with pytest.raises(AssertionError, match=r"11 top-level packages, at most 10: _speedups,"
                                              r" cli, core, .*room0") as failure:
        _check_the_rooms(package)
    assert "loose" not in str(failure.value)


# A string that names a module, alone or with an attribute (``module:attr``, as entry points,
# uvicorn and importlib's callers write it): the module's name in group 1.
_NAMED = re.compile(r"(citeaudit(?:\.\w+)+)(?::\w+(?:\.\w+)*)?")


# A cimport in Cython's declarations (``.pxd``) and the leaves (``.pyx``): the module in group 1
# or 2.
_CIMPORT = re.compile(r"^\s*(?:from\s+(citeaudit(?:\.\w+)+)\s+cimport\b"
                      r"|cimport\s+(citeaudit(?:\.\w+)+))", re.MULTILINE)


def _private(module: str, home: str | None) -> bool:
    pieces = module.split(".")
    return len(pieces) >= 3 and pieces[0] == "citeaudit" and pieces[1] != home \
        and pieces[2].startswith("_")


def _private_imports(package: Path) -> list[str]:
    """Every import, in the package at ``package``, of another subpackage's private module
    (``citeaudit.<pkg>._x`` from outside ``<pkg>``), every string constant naming one
    (``"citeaudit.<pkg>._x"`` or ``"citeaudit.<pkg>._x:name"``), and every ``cimport`` of one
    in the compiled build's declarations: file, line and the module.
    """
    found = []
    for path in sorted([*package.rglob("*.pxd"), *package.rglob("*.pyx")]):
        parts = path.relative_to(package).parts
        home = parts[0] if len(parts) > 1 else None
        text = path.read_text(encoding="utf-8")
        for match in _CIMPORT.finditer(text):
            module = match.group(1) or match.group(2)
            if _private(module, home):
                line = text.count("\n", 0, match.start()) + 1
                found.append(f"{path.relative_to(package)}:{line}: {module}")
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package).parts
        home = parts[0] if len(parts) > 1 else None
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            named = (_NAMED.fullmatch(node.value) if isinstance(node, ast.Constant)
                     and isinstance(node.value, str) else None)
            modules = ([node.module] if isinstance(node, ast.ImportFrom) and node.module
                       else [a.name for a in node.names] if isinstance(node, ast.Import)
                       else [named.group(1)] if named
                       else [])
            found.extend(f"{path.relative_to(package)}:{node.lineno}: {module}"
                         for module in modules if _private(module, home))
    return found


def test_packages_meet_only_at_their_front_doors() -> None:
    """Each subpackage's ``__init__`` is what the others may use; its private modules are
    its own.
    """
    assert _private_imports(ROOT / "src" / "citeaudit") == []


def test_a_private_import_is_found(copy: Path) -> None:
    path = copy / "src/citeaudit/request/_guard.py"
    path.write_text(path.read_text() + "\nfrom citeaudit.core._engine import run  # noqa\n")
    (found,) = _private_imports(copy / "src" / "citeaudit")
    assert found.startswith("request/_guard.py:")
    assert found.endswith(": citeaudit.core._engine")


@pytest.mark.parametrize("line", ["from citeaudit.core._policy cimport Exemptions",
                                  "cimport citeaudit.core._policy"])
def test_a_private_cimport_is_found(copy: Path, line: str) -> None:
    """The compiled build's declarations meet at the front doors too: a package's
    ``__init__.pxd`` is what the others may ``cimport``.
    """
    path = copy / "src/citeaudit/formats/_text.pxd"
    path.write_text(path.read_text() + f"\n{line}\n")
    (found,) = _private_imports(copy / "src" / "citeaudit")
    assert found.startswith("formats/_text.pxd:")
    assert found.endswith(": citeaudit.core._policy")


@pytest.mark.parametrize("named", ["citeaudit.core._engine", "citeaudit.core._engine:run",
                                   "citeaudit.core._engine:Context.run"])
def test_a_private_module_named_in_a_string_is_found(copy: Path, named: str) -> None:
    """A string naming another package's private module (for uvicorn, an entry point or
    ``importlib``) is that module's import, made later: found like one.
    """
    path = copy / "src/citeaudit/request/_guard.py"
    path.write_text(path.read_text() + f"\nTARGET = {named!r}\n")
    (found,) = _private_imports(copy / "src" / "citeaudit")
    assert found.startswith("request/_guard.py:")
    assert found.endswith(": citeaudit.core._engine")


@pytest.mark.parametrize("named", ["citeaudit.request._guard:guard",  # its own package's
                                   "citeaudit.core:run",  # a front door
                                   "see citeaudit.core._engine:run"])  # words, not a name
def test_strings_that_name_no_other_private_module_pass(copy: Path, named: str) -> None:
    path = copy / "src/citeaudit/request/_guard.py"
    path.write_text(path.read_text() + f"\nTARGET = {named!r}\n")
    found = _private_imports(copy / "src" / "citeaudit")
    assert not [f for f in found if f.startswith("request/_guard.py:")]


def _upward_names(core: Path) -> list[str]:
    """Every string constant in the engine (``core``) naming a module of a layer above it
    (``"citeaudit.formats:TEXT"``): a registry's built-in that the engine would load from
    above. Those layers add their own built-ins when they are imported.
    """
    above = {path.stem for path in core.parent.iterdir()} - {"core", "errors", "__init__"}
    found = []
    for path in sorted(core.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            named = (_NAMED.fullmatch(node.value) if isinstance(node, ast.Constant)
                     and isinstance(node.value, str) else None)
            if named and named.group(1).split(".")[1] in above:
                found.append(f"{path.relative_to(core)}:{node.lineno}: {named.group()}")
    return found


def test_the_engine_names_no_layer_above_it() -> None:
    assert _upward_names(ROOT / "src" / "citeaudit" / "core") == []


def test_an_upward_name_is_found(copy: Path) -> None:
    path = copy / "src/citeaudit/core/_judging.py"
    path.write_text(path.read_text() + '\nLEXICAL = "citeaudit.support:lexical"\n')
    (found,) = _upward_names(copy / "src" / "citeaudit" / "core")
    assert found.endswith(": citeaudit.support:lexical")
