"""Findings: immutable records of what an audit found, in a deterministic order."""

from __future__ import annotations

from typing import Any, NamedTuple

from citeaudit.core._rules import Severity

__all__ = ["Finding", "Problem", "finding_order"]


class Problem(NamedTuple):
    """What a check states: the problem only. The engine adds the severity."""

    code: str
    message: str
    claim: int | None = None
    span: tuple[int, int] | None = None
    marker: str | None = None
    source_id: str | None = None
    path: str | None = None


class Finding(NamedTuple):
    """One problem found in an answer.

    ``claim`` is the 1-based claim number (``None`` for answer-level findings); ``span`` is a
    ``(start, end)`` character range: in the answer text for free-text answers, in the claim
    string for claim-list answers. ``path`` is a JSON path into a structured answer.
    """

    code: str
    severity: Severity
    message: str
    claim: int | None = None
    span: tuple[int, int] | None = None
    marker: str | None = None
    source_id: str | None = None
    path: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (``span`` as a two-item list or ``null``)."""
        return {
            "code": self.code,
            "severity": self.severity.value,
            "message": self.message,
            "claim": self.claim,
            "span": list(self.span) if self.span is not None else None,
            "marker": self.marker,
            "source_id": self.source_id,
            "path": self.path,
        }


def finding_order(finding: Finding) -> tuple[Any, ...]:
    """Sort key: by claim (answer-level last), then position, code and the remaining fields.

    It depends only on a finding's values, so the order never depends on check order.
    """
    claim = finding.claim
    span = finding.span
    return (
        claim is None,
        claim or 0,
        span[0] if span is not None else -1,
        span[1] if span is not None else -1,
        finding.path or "",
        finding.code,
        finding.source_id or "",
        finding.marker or "",
        finding.message,
    )
