"""The pytest plugin: ``citeaudit.assert_citations`` and the ``assert_citations`` fixture,
run by pytest itself on a project of tests (pytester), with the project's configuration.
"""

from __future__ import annotations

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
    citeaudit.assert_citations("Refunds are issued within 14 days [1] [Source 2].", SOURCES)
    with pytest.raises(AssertionError, match="CA102"):
        citeaudit.assert_citations("Refunds are issued within 14 days [1] [Source 2].", SOURCES,
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
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=1)
    output = result.stdout.str()
    for line in ("CitationAssertionError: citations do not hold: status unverified, 1 error",
                 "CA202 error: [4] cites 4, outside the 2 retrieved sources (1..2)",
                 "claim 2: 'Refunds take a year [4].'", "marker [4]"):
        assert line in output
