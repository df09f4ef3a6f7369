"""MLflow evaluation rows and traces as audits: one ``Feedback`` per measure."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mlflow.entities import Feedback, SpanType, Trace
from mlflow.genai.scorers import Scorer
from pydantic import Field

from citeaudit.core import Report, audit, load_snapshot
from citeaudit.errors import InputError
from citeaudit.eval import MEASURES, reason_of, rebased, scores_of

__all__ = ["CitationScorer", "sources_of_trace"]

_ORIGIN = "<mlflow>"


def sources_of_trace(trace: Trace) -> list[dict[str, Any]]:
    """The passages of a trace's last retriever span (MLflow's ``Document`` form:
    ``page_content``, ``metadata.doc_uri``, ``id``), ids kept when every one has an id.
    """
    spans = trace.search_spans(span_type=SpanType.RETRIEVER)  # type: ignore[arg-type]
    if not spans:
        raise InputError("the trace has no retriever span to take passages from",
                         origin=_ORIGIN, place="$.trace")
    documents = spans[-1].outputs
    place = f"$.trace.spans[{spans[-1].name!r}].outputs"
    if not isinstance(documents, list):
        raise InputError(f"a retriever span's outputs must be a list of documents, not"
                         f" {type(documents).__name__}", origin=_ORIGIN, place=place)
    sources = []
    for position, document in enumerate(documents):
        text = document.get("page_content") if isinstance(document, Mapping) else None
        if not isinstance(text, str):
            raise InputError("a document needs a string page_content", origin=_ORIGIN,
                             place=f"{place}[{position}].page_content")
        source: dict[str, Any] = {"text": text}
        uri = (document.get("metadata") or {}).get("doc_uri")
        if isinstance(uri, str):
            source["url"] = uri
        if document.get("id") is not None:
            source["id"] = str(document["id"])
        sources.append(source)
    if not all("id" in source for source in sources):
        for source in sources:
            source.pop("id", None)
    return sources


class CitationScorer(Scorer):
    """Citation correctness as an MLflow GenAI scorer.

    The answer is the row's ``outputs`` (text with markers, or any answer format
    :func:`citeaudit.audit` reads, provider responses included); the passages are
    ``inputs[sources]`` when the inputs hold them, else the trace's last retriever span.
    Each call gives one ``Feedback`` per measure in ``measures`` (``citation_verdict`` a
    bool, the others numbers in [0, 1]), each with the audit's rationale. ``options`` are
    :func:`citeaudit.audit`'s.
    """

    name: str = "citations"
    sources: str = "sources"
    measures: tuple[str, ...] = MEASURES
    options: dict[str, Any] = Field(default_factory=dict)

    def model_post_init(self, context: Any) -> None:
        super().model_post_init(context)
        unknown = [m for m in self.measures if m not in MEASURES]
        if unknown:
            raise ValueError(f"unknown measure {unknown[0]!r}; choose from"
                             f" {', '.join(MEASURES)}")

    def audit(self, *, inputs: Any = None, outputs: Any = None,
              trace: Trace | None = None) -> Report:
        """The audit behind one call."""
        if outputs is None:
            raise InputError("the row has no outputs to audit", origin=_ORIGIN,
                             place="$.outputs")
        sources: Any
        if isinstance(inputs, Mapping) and self.sources in inputs:
            try:
                sources = load_snapshot(inputs[self.sources])
            except InputError as error:
                raise rebased(error, origin=_ORIGIN, field=f"inputs.{self.sources}") from None
        elif trace is not None:
            sources = sources_of_trace(trace)
        else:
            raise InputError(f"no passages: the inputs have no {self.sources!r} and there"
                             f" is no trace", origin=_ORIGIN, place=f"$.inputs.{self.sources}")
        return audit(outputs, sources, **self.options)

    def __call__(self, *, inputs: Any = None, outputs: Any = None,  # type: ignore[override]
                 trace: Trace | None = None) -> list[Feedback]:
        report = self.audit(inputs=inputs, outputs=outputs, trace=trace)
        scores = scores_of(report)
        rationale = reason_of(report)
        feedback = []
        for measure in self.measures:
            value: float | bool = scores[measure]  # type: ignore[index]
            if measure == "verdict":
                value = report.passed
            feedback.append(Feedback(name=f"citation_{measure}", value=value,
                                     rationale=rationale))
        return feedback
