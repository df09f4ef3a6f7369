"""RAGAS samples as audits: the response over the retrieved contexts, one measure a metric."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from langchain_core.callbacks import Callbacks
from ragas.dataset_schema import SingleTurnSample
from ragas.metrics.base import MetricOutputType, MetricType, SingleTurnMetric
from ragas.metrics.result import MetricResult
from ragas.run_config import RunConfig

from citeaudit.core import Report, audit
from citeaudit.errors import InputError
from citeaudit.eval import Measure, measure_of, passages_of, reason_of, score_of

__all__ = ["CitationScore", "audit_sample"]

_ORIGIN = "<ragas>"


def audit_sample(sample: SingleTurnSample, **options: Any) -> Report:
    """Audit a sample's ``response`` against its ``retrieved_contexts`` (cited by position,
    or by ``retrieved_context_ids`` when it has them); ``options`` are
    :func:`citeaudit.audit`'s.
    """
    if not isinstance(sample, SingleTurnSample):
        raise InputError(f"not a RAGAS SingleTurnSample but {type(sample).__name__}",
                         origin=_ORIGIN)
    if not isinstance(sample.response, str):
        raise InputError("the sample has no response to audit", origin=_ORIGIN,
                         place="$.response")
    sources = passages_of(sample.retrieved_contexts, sample.retrieved_context_ids,
                          origin=_ORIGIN, field="retrieved_contexts",
                          ids_field="retrieved_context_ids")
    return audit(sample.response, sources, **options)


def _columns() -> dict[MetricType, set[str]]:
    return {MetricType.SINGLE_TURN: {"response", "retrieved_contexts",
                                     "retrieved_context_ids:optional"}}


@dataclass
class CitationScore(SingleTurnMetric):
    """Citation correctness as a RAGAS metric for ``ragas.evaluate``: ``measure`` is
    ``"f1"`` (the default), ``"precision"``, ``"recall"``, ``"claim_coverage"``,
    ``"valid_ids"`` or ``"verdict"``; the metric is named ``citation_<measure>`` unless
    ``name`` is given. ``options`` are :func:`citeaudit.audit`'s. :meth:`score` gives the
    value with its reason, as RAGAS's metric collections do.
    """

    measure: str = "f1"
    options: dict[str, Any] = field(default_factory=dict)
    name: str = ""
    _required_columns: dict[MetricType, set[str]] = field(default_factory=_columns)
    output_type: MetricOutputType = MetricOutputType.CONTINUOUS

    def __post_init__(self) -> None:
        self._measure: Measure = measure_of(self.measure)
        if not self.name:
            self.name = f"citation_{self._measure}"

    def init(self, run_config: RunConfig) -> None:
        del run_config  # nothing to set up: no model, no client

    async def _single_turn_ascore(self, sample: SingleTurnSample,
                                  callbacks: Callbacks) -> float:
        del callbacks
        return score_of(audit_sample(sample, **self.options), self._measure)

    def score(self, *, response: str, retrieved_contexts: list[str],  # type: ignore[override]
              retrieved_context_ids: list[str | int] | None = None) -> MetricResult:
        """The measure of one response, with the audit's reason."""
        report = audit_sample(SingleTurnSample(
            response=response, retrieved_contexts=retrieved_contexts,
            retrieved_context_ids=retrieved_context_ids), **self.options)
        return MetricResult(value=score_of(report, self._measure), reason=reason_of(report))

    async def ascore(self, *, response: str, retrieved_contexts: list[str],
                     retrieved_context_ids: list[str | int] | None = None) -> MetricResult:
        """:meth:`score`, awaitable."""
        return self.score(response=response, retrieved_contexts=retrieved_contexts,
                          retrieved_context_ids=retrieved_context_ids)
