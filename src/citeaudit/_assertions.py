"""``assert_citations``: the audit as a test assertion, for teams that test their RAG prompts
in pytest (the ``citeaudit`` pytest plugin gives it as a fixture, configured by the project).
"""

from __future__ import annotations

from typing import Any

from citeaudit.core import Report, Severity, audit, segment

__all__ = ["CitationAssertionError", "assert_citations", "citation_failure"]


class CitationAssertionError(AssertionError):
    """The citations of an answer do not hold; the message lists the findings."""

    __module__ = "citeaudit"  # where users import it from, and where tracebacks say it is

    def __init__(self, message: str, report: Report) -> None:
        super().__init__(message)
        self.report = report


def assert_citations(answer: Any, sources: Any, *, warnings: bool = False,
                     **options: Any) -> Report:
    """Audit ``answer`` against ``sources`` (``options`` are :func:`citeaudit.audit`'s) and
    return the report; raise :class:`CitationAssertionError` (an ``AssertionError``) when the
    audit fails, or (``warnings``) when it has any finding: the message lists each finding
    with its claim quoted and its marker shown.
    """
    __tracebackhide__ = True  # pytest shows the caller's line and the message, not this frame
    report, failure = citation_failure(answer, sources, warnings=warnings, **options)
    if failure is not None:
        # Raised here, the shallowest frame, with no traceback of the frames that built it:
        # plain Python shows the caller's line and this one, then the findings.
        raise failure.with_traceback(None) from None
    return report


def citation_failure(answer: Any, sources: Any, *, warnings: bool = False,
                     **options: Any) -> tuple[Report, CitationAssertionError | None]:
    """The audit's report and, when the citations do not hold, the error that says why
    (not raised: the public callers raise it from their own frame).
    """
    report = audit(answer, sources, **options)
    failing = [f for f in report.findings
               if warnings or f.severity is Severity.ERROR]
    if report.passed and not failing:
        return report, None
    lines = [f"citations do not hold: status {report.status}, {report.errors} error"
             f"{'s' if report.errors != 1 else ''}, {report.warnings} warning"
             f"{'s' if report.warnings != 1 else ''}"]
    lines += [f"  {reason}" for reason in report.reasons if not failing]
    claims = segment(answer) if isinstance(answer, str) else []
    for finding in failing or report.findings:
        lines.append(f"  {finding.code} {finding.severity.value}: {finding.message}")
        quoted = _claim(answer, claims, finding.claim, finding.span)
        if quoted:
            lines.append(f"    claim {finding.claim}: {quoted!r}")
        if finding.marker:
            lines.append(f"    marker {finding.marker}")
    return report, CitationAssertionError("\n".join(lines), report)


def _claim(answer: Any, claims: list[Any], number: int | None,
           span: tuple[int, int] | None) -> str | None:
    """The text of the claim a finding is about (free-text answers)."""
    if not isinstance(answer, str):
        return None
    if span is not None:
        for claim in claims:
            if claim[0] <= span[0] < claim[1]:
                return answer[claim[0]:claim[1]].strip()
    if number is not None and 1 <= number <= len(claims):
        start, end = claims[number - 1][:2]
        return answer[start:end].strip()
    return None
