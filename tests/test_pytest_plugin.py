"""The pytest plugin: ``citeaudit.assert_citations`` and the ``assert_citations`` fixture,
run by pytest itself on a project of tests (pytester), with the project's configuration.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import citeaudit

pytest_plugins = ["pytester"]

SOURCES = ["Refunds are issued within 14 days.", "Express shipping takes 1 business day."]


def test_assert_citations_passes_and_fails_readably() -> None:
    report = citeaudit.assert_citations("Refunds are issued within 14 days [1].", SOURCES)
    assert report.passed
    with pytest.raises(citeaudit.CitationAssertionError) as failed:
        citeaudit.assert_citations("Refunds are issued within 14 days [1]. Express shipping is"
                                   " free [3].", SOURCES)
    assert str(failed.value) == (
        "citations do not hold: status unverified, 1 error, 0 warnings\n"
        "  CA202 error: [3] cites 3, outside the 2 retrieved sources (1..2)\n"
        "    claim 2: 'Express shipping is free [3].'\n"
        "    marker [3]")
    assert isinstance(failed.value, AssertionError)
    assert failed.value.report.status == "unverified"
    # Warnings pass unless asked; a refusal to an answerable question fails with its reason.
    citeaudit.assert_citations("Refunds are issued within 14 days [1] [doc2].", SOURCES)
    with pytest.raises(AssertionError, match="CA102"):
        citeaudit.assert_citations("Refunds are issued within 14 days [1] [doc2].", SOURCES,
                                   warnings=True)
    with pytest.raises(AssertionError, match="answerable"):
        citeaudit.assert_citations(citeaudit.DEFAULT_REFUSAL, SOURCES, answerable=True)


def test_the_fixture_in_a_project(pytester: pytest.Pytester) -> None:
    pytester.makefile(".toml", citeaudit='refusal = "I cannot say."\n')
    pytester.makepyfile(test_prompts=f'''
        SOURCES = {SOURCES!r}

        def test_good(assert_citations):
            assert_citations("Refunds are issued within 14 days [1].", SOURCES)

        def test_bad(assert_citations):
            assert_citations("Express shipping is free [2]. Refunds take a year [4].", SOURCES)

        def test_project_refusal(assert_citations):
            report = assert_citations("I cannot say.", SOURCES)
            assert report.status == "no_evidence"
    ''')
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=1)
    output = result.stdout.str()
    for line in ("CitationAssertionError: citations do not hold: status unverified, 1 error",
                 "CA202 error: [4] cites 4, outside the 2 retrieved sources (1..2)",
                 "claim 2: 'Refunds take a year [4].'", "marker [4]"):
        assert line in output


LIBRARY = [Path(citeaudit.__file__).parent / "_assertions.py",
           Path(citeaudit.__file__).parent / "integrations" / "pytest.py"]


def library_lines() -> set[str]:
    """The lines of the library's own code a traceback could show (long enough to be its)."""
    return {line.strip() for path in LIBRARY for line in path.read_text().splitlines()
            if len(line.strip()) > 12 and not line.strip().startswith(("#", '"""'))}


def shown_library_lines(output: str) -> list[str]:
    lines = library_lines()
    return [line for line in output.splitlines()
            if line.lstrip("> E").strip() in lines or "citeaudit/_assertions.py" in line
            or "citeaudit/integrations/pytest.py" in line]


@pytest.mark.parametrize("tb", ["auto", "long", "short", "line"])
def test_a_failure_shows_the_users_line_not_the_librarys(pytester: pytest.Pytester,
                                                         tb: str) -> None:
    """Called directly, through the fixture, or from a helper of the user's: pytest shows the
    user's lines and the findings, and no frame of citeaudit's own.
    """
    pytester.makepyfile(test_answers=f'''
        import citeaudit

        SOURCES = {SOURCES!r}

        def test_direct():
            citeaudit.assert_citations("Express shipping is free [2]. Refunds take a year [4].",
                                       SOURCES)

        def test_fixture(assert_citations):
            assert_citations("Refunds take a year [9].", SOURCES, warnings=True)

        def helper(answer):
            return citeaudit.assert_citations(answer, SOURCES, answerable=True)

        def test_through_a_helper():
            helper(citeaudit.DEFAULT_REFUSAL)
    ''')
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", f"--tb={tb}")
    result.assert_outcomes(failed=3)
    output = result.stdout.str()
    assert shown_library_lines(output) == []
    if tb == "line":
        return
    for line in ("CA202 error: [4] cites 4, outside the 2 retrieved sources (1..2)",
                 "claim 2: 'Refunds take a year [4].'", "CA202 error: [9] cites 9",
                 "refused an answerable question", "test_answers.py:6", "test_answers.py:10",
                 "test_answers.py:13"):
        assert line in output
    if tb != "short":
        for line in ('citeaudit.assert_citations("Express shipping is free [2]. Refunds take'
                     ' a year [4].",', 'assert_citations("Refunds take a year [9].", SOURCES,'
                     " warnings=True)", "helper(citeaudit.DEFAULT_REFUSAL)"):
            assert f">       {line}" in output or f">       {line.lstrip()}" in output


@pytest.mark.parametrize("through", ["call", "helper"])
def test_without_pytest_the_traceback_ends_at_the_public_call(tmp_path: Path,
                                                              through: str) -> None:
    """Plain Python: the user's line, then the one line of citeaudit that raised (the public
    function's), then the findings; none of the frames under it.
    """
    script = tmp_path / "check_answer.py"
    call = ('citeaudit.assert_citations("Refunds take a year [4].", SOURCES)'
            if through == "call" else "helper()")
    script.write_text(
        "import citeaudit\n"
        f"SOURCES = {SOURCES!r}\n"
        "def helper():\n"
        '    citeaudit.assert_citations("Refunds take a year [4].", SOURCES)\n'
        f"{call}\n")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          check=False, cwd=tmp_path)
    assert done.returncode == 1
    frames = [line for line in done.stderr.splitlines() if line.startswith('  File "')]
    assert frames[-2].endswith("in <module>") if through == "call" else frames[-2].endswith(
        "in helper")
    assert len(frames) == (2 if through == "call" else 3)
    assert frames[-1].endswith("in assert_citations")
    assert "CA202 error: [4] cites 4, outside the 2 retrieved sources (1..2)" in done.stderr
    assert "report = audit(" not in done.stderr
    assert done.stderr.count("citeaudit") <= 4  # the frame, its line, the error's name
