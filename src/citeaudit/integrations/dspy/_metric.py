"""DSPy predictions as audits: documents as the request, the answer and its ``Citations`` as
an Anthropic-style response (DSPy's citations are Anthropic's ``char_location`` ones, and
the engine checks their ranges and quoted text), or text with markers over plain passages.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from dspy.adapters.types.citation import Citations
from dspy.adapters.types.document import Document

from citeaudit.core import Report, audit
from citeaudit.errors import InputError

__all__ = ["answer_of", "audit_prediction", "citation_metric", "metric"]

_ORIGIN = "<dspy>"


def _request(documents: Sequence[Document]) -> dict[str, Any]:
    blocks = []
    for document in documents:
        block: dict[str, Any] = {"type": "document", "citations": {"enabled": True},
                                 "source": {"type": "text", "media_type": "text/plain",
                                            "data": document.data}}
        if document.title:
            block["title"] = document.title
        if document.context:
            block["context"] = document.context
        blocks.append(block)
    return {"messages": [{"role": "user", "content": blocks}]}


def _response(text: str, citations: Citations) -> dict[str, Any]:
    """The answer as text blocks, each span a citation supports carrying it (a citation
    without ``supported_text`` found in the answer cites the answer's last block).
    """
    spans: dict[tuple[int, int], list[dict[str, Any]]] = {}
    loose: list[dict[str, Any]] = []
    for citation in citations.citations:
        formatted = {"type": "char_location", "cited_text": citation.cited_text,
                     "document_index": citation.document_index,
                     "start_char_index": citation.start_char_index,
                     "end_char_index": citation.end_char_index}
        at = text.find(citation.supported_text) if citation.supported_text else -1
        if at < 0:
            loose.append(formatted)
        else:
            spans.setdefault((at, at + len(citation.supported_text or "")), []).append(
                formatted)
    blocks: list[dict[str, Any]] = []
    position = 0
    for (start, end), cited in sorted(spans.items()):
        if start < position:  # overlapping supported texts: the later one joins the block
            blocks[-1]["citations"].extend(cited)
            continue
        if start > position:
            blocks.append({"type": "text", "text": text[position:start]})
        blocks.append({"type": "text", "text": text[start:end], "citations": cited})
        position = end
    if position < len(text) or not blocks:
        blocks.append({"type": "text", "text": text[position:]})
    if loose:
        blocks[-1].setdefault("citations", []).extend(loose)
    return {"type": "message", "role": "assistant", "content": blocks}


def answer_of(text: str, documents: Sequence[Any], citations: Citations | None = None,
              ) -> tuple[Any, Any]:
    """The (answer, sources) to audit: with ``Citations`` or Documents, an Anthropic
    response and request; with passages as strings, the text (its markers) over them.
    """
    if not isinstance(text, str):
        raise InputError(f"the answer must be a string, not {type(text).__name__}",
                         origin=_ORIGIN, place="$.answer")
    if isinstance(documents, (str, bytes)) or not isinstance(documents, Sequence):
        raise InputError(f"documents must be a list, not {type(documents).__name__}",
                         origin=_ORIGIN, place="$.documents")
    if all(isinstance(d, str) for d in documents) and citations is None:
        return text, list(documents)
    for position, document in enumerate(documents):
        if not isinstance(document, Document):
            raise InputError(f"not a dspy Document but {type(document).__name__}",
                             origin=_ORIGIN, place=f"$.documents[{position}]")
    if citations is None:  # Documents, cited by markers
        return text, [{"text": d.data, **({"title": d.title} if d.title else {})}
                      for d in documents]
    if not isinstance(citations, Citations):
        raise InputError(f"citations must be dspy Citations, not {type(citations).__name__}",
                         origin=_ORIGIN, place="$.citations")
    return _response(text, citations), _request(documents)


def _field(holder: Any, name: str) -> Any:
    if isinstance(holder, dict):
        return holder.get(name)
    return getattr(holder, name, None) if name in _keys(holder) else None


def _keys(holder: Any) -> set[str]:
    keys = getattr(holder, "keys", None)
    return set(keys()) if callable(keys) else set(vars(holder))


def audit_prediction(example: Any, prediction: Any, *, answer: str = "answer",
                     documents: str = "documents", citations: str = "citations",
                     **options: Any) -> Report:
    """Audit a prediction: its ``answer`` (and ``citations``) against the ``documents`` of the
    prediction, else of the example (the field names are arguments); ``options`` are
    :func:`citeaudit.audit`'s.
    """
    given = _field(prediction, documents)
    if given is None:
        given = _field(example, documents)
    if given is None:
        raise InputError(f"neither the example nor the prediction has {documents!r}",
                         origin=_ORIGIN, place=f"$.{documents}")
    text = _field(prediction, answer)
    if text is None:
        raise InputError(f"the prediction has no {answer!r}", origin=_ORIGIN,
                         place=f"$.{answer}")
    subject, sources = answer_of(text, given, _field(prediction, citations))
    return audit(subject, sources, **options)


def citation_metric(*, answer: str = "answer", documents: str = "documents",
                    citations: str = "citations", **options: Any,
                    ) -> Callable[..., float | bool]:
    """A DSPy metric, ``metric(example, prediction, trace=None)``: citation F1 (1.0 for an
    accepted refusal, 0.0 when the audit fails), or, while an optimizer bootstraps (a
    ``trace``), whether the audit passes.
    """

    def scored(example: Any, prediction: Any, trace: Any = None) -> float | bool:
        report = audit_prediction(example, prediction, answer=answer, documents=documents,
                                  citations=citations, **options)
        if trace is not None:
            return report.passed
        if not report.passed:
            return 0.0
        return 1.0 if report.status == "no_evidence" else float(report.metrics.f1 or 0.0)

    return scored


metric = citation_metric()
"""The metric with the default field names: ``answer``, ``documents``, ``citations``."""
