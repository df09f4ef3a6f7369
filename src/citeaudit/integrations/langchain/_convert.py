"""LangChain objects as the engine's inputs: Documents as a snapshot, an ``AIMessage``
(its text, and the ``citation`` annotations of its content blocks) as an answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.documents import Document
from langchain_core.messages import BaseMessage

from citeaudit.errors import InputError

__all__ = ["answer_from", "snapshot_from"]

_ORIGIN = "<langchain>"


def _document_id(document: Document, ids: str, where: str) -> str | None:
    if ids == "position":
        return None
    if ids == "id":
        found = document.id or document.metadata.get("id")
        key = "id (Document.id or metadata['id'])"
    elif ids.startswith("metadata:"):
        key = f"metadata[{ids.removeprefix('metadata:')!r}]"
        found = document.metadata.get(ids.removeprefix("metadata:"))
    else:
        raise InputError(f"ids must be 'position', 'id' or 'metadata:KEY', not {ids!r}",
                         origin=_ORIGIN)
    if found is None or found == "":
        raise InputError(f"the Document has no {key}", origin=_ORIGIN, place=where)
    return str(found)


def snapshot_from(documents: Sequence[Any], *, ids: str = "position") -> list[dict[str, Any]]:
    """The retrieved ``documents`` as a snapshot: each one's ``page_content`` is the text,
    ``metadata`` ``title`` and ``url`` (or a ``source`` that is a URL) are kept.

    ``ids`` says how answers cite them: ``"position"`` (the default: ``[1]`` is the first, as
    a prompt that numbers the documents shows them), ``"id"`` (``Document.id``, else
    ``metadata["id"]``) or ``"metadata:KEY"``.
    """
    if isinstance(documents, (str, bytes, Document)) or not isinstance(documents, Sequence):
        raise InputError(f"documents must be a list of LangChain Documents, not"
                         f" {type(documents).__name__}", origin=_ORIGIN, place="$")
    sources: list[dict[str, Any]] = []
    for position, document in enumerate(documents):
        where = f"$[{position}]"
        if not isinstance(document, Document):
            raise InputError(f"not a LangChain Document but {type(document).__name__}",
                             origin=_ORIGIN, place=where)
        source: dict[str, Any] = {"text": document.page_content}
        identity = _document_id(document, ids, where)
        if identity is not None:
            source["id"] = identity
        metadata = document.metadata
        title = metadata.get("title")
        if isinstance(title, str):
            source["title"] = title
        url = metadata.get("url") or metadata.get("source")
        if isinstance(url, str) and url.startswith(("http://", "https://")):
            source["url"] = url
        sources.append(source)
    return sources


def _blocks(message: Any) -> list[dict[str, Any]]:
    """The message's text blocks (a plain string is one)."""
    if isinstance(message, str):
        return [{"type": "text", "text": message}]
    if not isinstance(message, BaseMessage):
        raise InputError(f"not an AIMessage or a string but {type(message).__name__}",
                         origin=_ORIGIN, place="$")
    content = message.content
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    blocks = []
    for position, block in enumerate(content):
        if isinstance(block, str):
            blocks.append({"type": "text", "text": block})
        elif isinstance(block, dict) and block.get("type") == "text":
            if not isinstance(block.get("text"), str):
                raise InputError("a text block needs a string \"text\"", origin=_ORIGIN,
                                 place=f"$.content[{position}].text")
            blocks.append(block)
    return blocks


def _cited(citation: dict[str, Any], sources: list[dict[str, Any]]) -> int | None:
    """Which source (0-based) a citation annotation names: by the provider's document index,
    else its URL, else its title, else the text it quotes.
    """
    index = (citation.get("extras") or {}).get("document_index")
    if isinstance(index, int) and 0 <= index < len(sources):
        return index
    for key in ("url", "title"):
        wanted = citation.get(key)
        if wanted:
            for position, source in enumerate(sources):
                if source.get(key) == wanted:
                    return position
    quoted = citation.get("cited_text")
    if quoted:
        for position, source in enumerate(sources):
            if quoted in source["text"]:
                return position
    return None


def answer_from(message: Any, sources: Sequence[dict[str, Any]] = ()) -> str:
    """The answer an ``AIMessage`` (or a string) gives: its text, with a marker placed where
    each ``citation`` annotation of its content blocks ends, naming the source of ``sources``
    (a :func:`snapshot_from` snapshot) it cites. A citation of no source in the snapshot is
    marked past its end, so the audit reports it (CA202, or CA201 with ids).
    """
    sources = list(sources)
    parts = []
    unknown = 0
    for block in _blocks(message):
        text = block["text"]
        marks: list[tuple[int, str]] = []
        for annotation in block.get("annotations") or ():
            if not isinstance(annotation, dict) or annotation.get("type") != "citation":
                continue
            position = _cited(annotation, sources)
            if position is None:
                unknown += 1
                name = str(len(sources) + unknown)
            else:
                name = str(sources[position].get("id", position + 1))
            end = annotation.get("end_index")
            at = end if isinstance(end, int) and 0 <= end <= len(text) else len(text)
            marks.append((at, f"[{name}]"))
        for at, marker in sorted(marks, key=lambda mark: mark[0], reverse=True):
            text = text[:at] + marker + text[at:]
        parts.append(text)
    return "".join(parts)
