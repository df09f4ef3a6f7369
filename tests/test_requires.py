"""The heavy parts' check (tests/requires.py), run by pytest itself on a project of tests: a
missing part skips with the command that installs it, and fails where it is required.
"""

from __future__ import annotations

import os

import pytest

pytest_plugins = ["pytester"]

MISSING = "citeaudit_no_such_module"


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """A project whose tests import the check (run in this process, which has it on its path),
    with no part required, whatever runs this.
    """
    for name in list(os.environ):
        if name.startswith("CITEAUDIT_REQUIRE_"):
            monkeypatch.delenv(name)
    return pytester


def module(part: str, *modules: str) -> str:
    names = ", ".join(repr(name) for name in modules)
    return f"from requires import needs\n\nneeds({names}, part={part!r})\n\n" \
           "def test_it():\n    pass\n"


@pytest.mark.parametrize(("part", "extra", "variable"), [
    ("models", "test-models", None), ("spark", "test-spark", "0"),
    ("frameworks", "test-frameworks", ""), ("browser", "test-browser", None),
    ("evals", "evals-test", "0")])
def test_a_missing_part_skips_naming_its_extra(project: pytest.Pytester, part: str, extra: str,
                                               variable: str | None,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    if variable is not None:
        monkeypatch.setenv(f"CITEAUDIT_REQUIRE_{part.upper()}", variable)
    project.makepyfile(test_heavy=module(part, "json", MISSING))
    result = project.runpytest("-p", "no:cacheprovider", "-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines([f"*{MISSING} is missing; the {part} part: pip install -e "
                                 f"'.[[]{extra}[]]'*"])


@pytest.mark.parametrize(("part", "variable"), [
    ("spark", "CITEAUDIT_REQUIRE_SPARK"), ("models", "CITEAUDIT_REQUIRE_ALL"),
    ("browser", "CITEAUDIT_REQUIRE_BROWSER"), ("frameworks", "CITEAUDIT_REQUIRE_ALL"),
    ("evals", "CITEAUDIT_REQUIRE_EVALS")])
def test_a_required_part_that_is_missing_fails(project: pytest.Pytester, part: str,
                                               variable: str,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(variable, "1")
    project.makepyfile(test_heavy=module(part, MISSING))
    result = project.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([f"*CITEAUDIT_REQUIRE_{part.upper()} is set but {MISSING} is "
                                 "missing: pip install -e*"])
    assert "Traceback" not in result.stdout.str()


def test_every_part_but_the_evaluation_frameworks_is_required_by_all(
        project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """The evaluation frameworks cannot be installed beside the test extra: CI requires them
    in their own environment only.
    """
    monkeypatch.setenv("CITEAUDIT_REQUIRE_ALL", "1")
    project.makepyfile(test_evals=module("evals", MISSING), test_spark=module("spark", MISSING),
                       test_models=module("models", MISSING))
    result = project.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(skipped=1, errors=2)


def test_an_installed_part_runs(project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CITEAUDIT_REQUIRE_ALL", "1")
    project.makepyfile(test_light=module("spark", "json", "pytest"))
    project.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_a_missing_program_in_a_test(project: pytest.Pytester,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    project.makepyfile(test_program="""
        from requires import absent

        def test_it():
            absent("browser", "chromium")
    """)
    result = project.runpytest("-p", "no:cacheprovider", "-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*chromium is missing; the browser part: *apt-get install "
                                 "chromium*"])
    monkeypatch.setenv("CITEAUDIT_REQUIRE_BROWSER", "1")
    result = project.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*CITEAUDIT_REQUIRE_BROWSER is set but chromium is missing*"])


def test_an_unknown_part_is_a_mistake(project: pytest.Pytester) -> None:
    project.makepyfile(test_typo=module("sparks", MISSING))
    result = project.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*unknown test part 'sparks'*"])
