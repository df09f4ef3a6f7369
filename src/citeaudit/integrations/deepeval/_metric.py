"""DeepEval test cases as audits: ``actual_output`` over ``retrieval_context`` (cited by
position, or by the ids in ``metadata["source_ids"]``), scored by one measure.
"""

from __future__ import annotations

from typing import Any

from deepeval.metrics import BaseMetric
from deepeval.test_case import LLMTestCase, RetrievedContextData

from citeaudit.core import Report, audit
from citeaudit.errors import InputError
from citeaudit.eval import measure_of, passages_of, reason_of, scores_of

__all__ = ["CitationMetric", "audit_test_case"]

_ORIGIN = "<deepeval>"


def audit_test_case(test_case: LLMTestCase, **options: Any) -> Report:
    """Audit a test case's ``actual_output`` against its ``retrieval_context`` (``options``
    are :func:`citeaudit.audit`'s).
    """
    if not isinstance(test_case, LLMTestCase):
        raise InputError(f"not a DeepEval LLMTestCase but {type(test_case).__name__}",
                         origin=_ORIGIN)
    if not isinstance(test_case.actual_output, str):
        raise InputError("the test case has no actual_output to audit", origin=_ORIGIN,
                         place="$.actual_output")
    contexts = test_case.retrieval_context
    texts = None if contexts is None else [
        c.context if isinstance(c, RetrievedContextData) else c for c in contexts]
    ids = (test_case.metadata or {}).get("source_ids")
    sources = passages_of(texts, ids, origin=_ORIGIN, field="retrieval_context",
                          ids_field="metadata.source_ids")
    return audit(test_case.actual_output, sources, **options)


class CitationMetric(BaseMetric):  # type: ignore[no-untyped-call] # DeepEval's hook
    """Citation correctness as a DeepEval metric.

    ``measure`` is the score: ``"f1"`` (the default), ``"precision"``, ``"recall"``,
    ``"claim_coverage"``, ``"valid_ids"`` or ``"verdict"`` (kept as ``measure_name``); every
    measure is in ``score_breakdown``. A case succeeds when the audit passes and the score
    reaches ``threshold``. ``reason`` gives the verdict and the findings. ``options`` are
    :func:`citeaudit.audit`'s (``grammar``, ``refusal``, ``config``, ...); the last report is
    ``self.report``.
    """

    def __init__(self, measure: str = "f1", threshold: float = 0.5, *,
                 include_reason: bool = True, strict_mode: bool = False,
                 **options: Any) -> None:
        self.measure_name = measure_of(measure)
        self.threshold = 1.0 if strict_mode else threshold
        self.include_reason = include_reason
        self.strict_mode = strict_mode
        self.async_mode = False
        self.evaluation_model = None  # no model: the audit is deterministic
        self.evaluation_cost = 0.0
        self._options = options
        self.report: Report | None = None

    def measure_report(self, test_case: LLMTestCase) -> Report:
        """Audit the case and set ``score``, ``score_breakdown``, ``reason`` and
        ``success``; return the report.
        """
        report = audit_test_case(test_case, **self._options)
        scores = scores_of(report)
        self.report = report
        self.score_breakdown = dict(scores)
        threshold = float(self.threshold or 0.0)
        score = scores[self.measure_name]
        if self.strict_mode and score < threshold:
            score = 0.0
        self.score = score
        self.reason = reason_of(report) if self.include_reason else None
        self.error = None
        self.success = report.passed and score >= threshold
        return report

    def measure(  # type: ignore[override]
            self, test_case: LLMTestCase, *args: Any, **kwargs: Any) -> float:
        del args, kwargs  # DeepEval's progress-indicator flags: the audit shows none
        self.measure_report(test_case)
        return float(self.score or 0.0)

    async def a_measure(  # type: ignore[override]
            self, test_case: LLMTestCase, *args: Any, **kwargs: Any) -> float:
        return self.measure(test_case, *args, **kwargs)

    def is_successful(self) -> bool:
        return bool(self.success) and self.error is None

    @property
    def __name__(self) -> str:  # type: ignore[override]
        return f"Citations ({self.measure_name})"
