"""citeaudit as a Haystack component: replies (or the answers of ``AnswerBuilder``) and the
documents they were given in, the guarded answers and the reports out.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from haystack import Document, component
from haystack.dataclasses import ChatMessage, GeneratedAnswer

from citeaudit.errors import InputError
from citeaudit.request import guard

__all__ = ["CitationGuard", "snapshot_from"]

_ORIGIN = "<haystack>"


def _source(document: Any, where: str) -> dict[str, Any]:
    if not isinstance(document, Document):
        raise InputError(f"not a Haystack Document but {type(document).__name__}",
                         origin=_ORIGIN, place=where)
    if not isinstance(document.content, str):
        raise InputError("the Document has no text content", origin=_ORIGIN,
                         place=f"{where}.content")
    source: dict[str, Any] = {"text": document.content}
    meta = document.meta or {}
    for key, names in (("title", ("title", "file_name")), ("url", ("url", "link"))):
        found = next((meta[n] for n in names if isinstance(meta.get(n), str)), None)
        if found:
            source[key] = found
    if document.score is not None and document.score >= 0:
        source["score"] = float(document.score)
    return source


def snapshot_from(documents: Sequence[Any]) -> list[dict[str, Any]] | dict[str, Any]:
    """Haystack Documents as a snapshot, ``[1]`` the first. The documents of an
    ``AnswerBuilder`` answer (each with its ``source_index``) keep their numbers, so that
    ``[3]`` is still the third document the prompt showed, even when only those referenced
    were kept.
    """
    if isinstance(documents, (str, bytes)) or not isinstance(documents, Sequence):
        raise InputError(f"documents must be a list of Haystack Documents, not"
                         f" {type(documents).__name__}", origin=_ORIGIN, place="$")
    sources = [_source(d, f"$[{n}]") for n, d in enumerate(documents)]
    numbers = [d.meta.get("source_index") for d in documents]
    if sources and all(isinstance(n, int) for n in numbers):
        return {str(n): source for n, source in zip(numbers, sources, strict=True)}
    return sources


def _text(reply: Any, where: str) -> str:
    if isinstance(reply, ChatMessage):
        if reply.text is None:
            raise InputError("the ChatMessage has no text", origin=_ORIGIN, place=where)
        return reply.text
    if isinstance(reply, str):
        return reply
    raise InputError(f"a reply is a string or a ChatMessage, not {type(reply).__name__}",
                     origin=_ORIGIN, place=where)


@component
class CitationGuard:
    """Guards each reply against the documents it was given: its citations checked, bad
    ones handled by the ``policy`` (``options`` are :func:`citeaudit.guard`'s). Takes the
    generator's ``replies`` and the prompt's ``documents``, or the ``answers`` of an
    ``AnswerBuilder`` (with its ``reference_pattern``, each answer's documents keep their
    numbers). Gives the guarded ``replies`` (and ``answers``), each one's ``reports`` (the
    report's JSON form) and whether all ``passed``.
    """

    def __init__(self, policy: str = "strip", **options: Any) -> None:
        self.policy = policy
        self.options = options

    @component.output_types(replies=list[str], answers=list[GeneratedAnswer],
                            reports=list[dict[str, Any]], passed=bool)
    def run(self, replies: list[str] | list[ChatMessage] | None = None,
            documents: list[Document] | None = None,
            answers: list[GeneratedAnswer] | None = None) -> dict[str, Any]:
        """Guard the replies, or the answers."""
        out_replies: list[str] = []
        out_answers: list[GeneratedAnswer] = []
        reports: list[dict[str, Any]] = []
        if answers is not None:
            for number, answer in enumerate(answers):
                text = _text(answer.data or "", f"$.answers[{number}].data")
                given = documents if documents is not None else (answer.documents or [])
                guarded = guard(text, snapshot_from(given), policy=self.policy,  # type: ignore[arg-type]
                                **self.options)
                reports.append(guarded.report.to_dict())
                out_replies.append(guarded.text)
                out_answers.append(GeneratedAnswer(
                    data=guarded.text, query=answer.query, documents=answer.documents,
                    meta={**answer.meta, "citeaudit": reports[-1]}))
        elif replies is not None:
            if documents is None:
                raise InputError("replies need the documents they were given",
                                 origin=_ORIGIN, place="$.documents")
            sources = snapshot_from(documents)
            for number, reply in enumerate(replies):
                guarded = guard(_text(reply, f"$.replies[{number}]"), sources,
                                policy=self.policy, **self.options)  # type: ignore[arg-type]
                reports.append(guarded.report.to_dict())
                out_replies.append(guarded.text)
        else:
            raise InputError("give replies and documents, or answers", origin=_ORIGIN,
                             place="$")
        return {"replies": out_replies, "answers": out_answers, "reports": reports,
                "passed": all(r["passed"] for r in reports)}
