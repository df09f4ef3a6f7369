"""Cohere Chat v2: a response's ``message.citations``, audited against the documents of its
request.

Field names follow the ``cohere`` SDK's types (``V2ChatResponse``, ``AssistantMessageResponse``,
``Citation``, ``DocumentSource``, ``ToolSource``; the request's ``documents`` are strings or
``Document(data, id?)``):

* ``start``/``end`` index the **generated text** of the content item ``content_index`` (the
  first text item when absent), in characters, end exclusive, and ``text`` is the text there.
  The SDK's docstring says "the original source text"; Cohere's documented responses (and
  every client that renders them) index the answer, which is what is read here;
* a source's ``id`` names a request document: its own ``id``, or the one Cohere generates
  for a document without one, ``doc:N`` (0-based; older responses write ``doc:0:N``, read
  the same); documents returned by tools (``tool`` messages with ``document`` content) are
  named by their ``id`` too;
* citations of ``type`` ``THINKING_CONTENT`` (``start``/``end`` into the ``thinking`` item
  ``content_index``, the first when absent) or ``PLAN`` (into the message's ``tool_plan``)
  cite the model's reasoning, not its answer: they cover no claim and count in no metric,
  but they are checked like the others (a range outside its reasoning text, or over other text
  than ``text``, is CA206; a source id the request did not send is CA201), since a broken one
  shows the same fault in the pipeline as a broken answer citation.

A cited span's sentence is a cited claim; the other sentences need citations under the claim
policy, like free text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from types import MappingProxyType
from typing import Any

from citeaudit.core import (
    NO_METADATA,
    Answer,
    Citation,
    Problem,
    Reading,
    Snapshot,
    Source,
)
from citeaudit.errors import SnapshotError
from citeaudit.formats._fields import Fields
from citeaudit.formats._ranges import Cited, answer_of, as_list, plain

__all__ = ["CohereFormat"]

_GENERATED = re.compile(r"doc:(?:\d+:)?(\d+)")  # the ids Cohere gives id-less documents
_NOT_ANSWER = ("THINKING_CONTENT", "PLAN")
_TEXT_FIELDS = ("text", "snippet", "content", "body")


class CohereFormat:
    """A Cohere Chat v2 response (the SDK's ``V2ChatResponse`` or its JSON)."""

    name = "cohere"
    keys = ("finish_reason",)
    expects = "a Cohere Chat v2 response (a message with content and citations)"
    needs = (("finish_reason", str), ("message", dict), ("message.role", "assistant"))

    def recognises(self, answer: object) -> bool:
        if not isinstance(answer, dict):
            return hasattr(answer, "model_dump") and hasattr(answer, "finish_reason") and \
                hasattr(answer, "message") and not hasattr(answer, "choices")
        if "choices" in answer or "finish_reason" not in answer:
            return False
        message = answer.get("message")
        return isinstance(message, dict) and message.get("role") == "assistant"

    def snapshot(self, answer: object, sources: object) -> Snapshot:  # noqa: ARG002
        if isinstance(sources, Snapshot):
            return sources  # built already (the command line builds it to name its file)
        request = plain(sources)
        if not isinstance(request, dict) or (not isinstance(request.get("documents"), list)
                                             and not isinstance(request.get("messages"), list)):
            raise SnapshotError("a Cohere response is audited against its request: an object"
                                " with \"documents\" (or tool messages returning documents)",
                                origin="<snapshot>", place="$.documents")
        return Snapshot((*_documents(as_list(request.get("documents"))),
                         *_tool_documents(request)))

    def parse(self, answer: object, reading: Reading) -> Answer:
        response = plain(answer)
        message = response.get("message")
        message = message if isinstance(message, dict) else {}
        fields = Fields()
        if type(response.get("finish_reason")) is not str:  # null: a stream not yet ended
            fields.field(response, "finish_reason", str, "$", "a response")
        texts = _texts(message, fields)
        starts: dict[int, int] = {}
        offset = 0
        for at, text in texts.items():
            starts[at] = offset
            offset += len(text) + 2  # items are joined by a blank line
        whole = "\n\n".join(texts.values())
        known = _known_ids(reading.snapshot)
        given = message.get("citations")
        if type(given) is not list:
            given = fields.items(message, "citations", "$.message", "the message")
        cited: Cited = []
        reasoning = None  # read at the first citation of the reasoning
        read = (texts, starts, known)
        for at in range(len(given)):
            citation = fields.object_at(given, at, "$.message.citations", "a citation")
            if citation is None:
                continue
            path = f"$.message.citations[{at}]"
            kind = citation.get("type")
            if kind is not None and type(kind) is not str:
                kind = fields.field(citation, "type", str, path, "a citation")
            if kind in _NOT_ANSWER:
                if reasoning is None:
                    reasoning = _reasoning(message)
                _reasoning_citation(citation, path, reasoning[kind],
                                    known if reading.snapshot is not None else None, fields)
                continue
            found = _citation(citation, path, read, fields)
            if found is not None:
                cited.append(found)
        return answer_of(self.name, whole, cited, fields.problems, reading, "$.message.content")


def _texts(message: dict[str, Any], fields: Fields) -> dict[int, str]:
    """The message's text content items by their place (thinking items are not the
    answer's).
    """
    items = message.get("content")
    texts = {}
    if type(items) is list:  # the common case: text items only, read at once
        for at, item in enumerate(items):
            if type(item) is not dict or item.get("type") != "text" or \
                    type(text := item.get("text")) is not str:
                break
            texts[at] = text
        else:
            return texts
        texts = {}
    items = fields.items(message, "content", "$.message", "the message", needed=True)
    for at, item, path in fields.objects(items, "$.message.content", "a content item"):
        if fields.field(item, "type", str, path, "a content item", needed=True) == "text":
            text = fields.field(item, "text", str, path, "a text item", needed=True)
            if text is not None:
                texts[at] = text
    return texts


def _reasoning(message: dict[str, Any]) -> dict[str, tuple[dict[int, str], str]]:
    """The texts reasoning citations index, by citation type: the ``thinking`` items by their
    place, and the ``tool_plan`` (as item 0); each with what names it, for messages.
    """
    thinking = {at: item["thinking"] for at, item in enumerate(as_list(message.get("content")))
                if isinstance(item, dict) and item.get("type") == "thinking"
                and isinstance(item.get("thinking"), str)}
    plan = message.get("tool_plan")
    return {"THINKING_CONTENT": (thinking, "thinking content"),
            "PLAN": ({0: plan} if isinstance(plan, str) else {}, "tool_plan")}


def _reasoning_citation(citation: dict[str, Any], path: str,
                        reasoning: tuple[dict[int, str], str], known: set[str] | None,
                        fields: Fields) -> None:
    """Check a citation of the model's reasoning: its range holds its text in the reasoning
    it names, and its sources were sent (``known``; None: no snapshot to check them by). It
    covers no claim.
    """
    texts, what = reasoning
    item: Any = 0
    if what != "tool_plan":
        item = fields.field(citation, "content_index", int, path, "a citation")
        if item is None and citation.get("content_index") is not None:
            return  # of another type: a CA404 says so
        item = next(iter(texts), 0) if item is None else item
    if item not in texts:
        fields.problems.append(Problem(
            "CA206", f"a {citation['type']} citation names no {what} (the message has"
            f" {len(texts)})", path=path if what == "tool_plan" else f"{path}.content_index"))
        return
    found = fields.integers(citation, ("start", "end"), "a citation", path)
    said = fields.field(citation, "text", str, path, "a citation")
    if found is not None:
        start, end = found
        text = texts[item]
        if not 0 <= start <= end <= len(text):
            fields.problems.append(Problem("CA206", f"characters {start}..{end} lie outside"
                                           f" the {what} ({len(text)} characters)", path=path))
        elif said is not None and said != text[start:end]:
            fields.problems.append(Problem("CA206", f"characters {start}..{end} of the {what}"
                                           f" hold {text[start:end][:40]!r}, not the"
                                           f" citation's text {said[:40]!r}",
                                           path=f"{path}.text"))
    for at, source in enumerate(fields.items(citation, "sources", path, "a citation")):
        written = source.get("id") if isinstance(source, dict) else None
        if not isinstance(written, str) or not written:
            fields.add(f"{path}.sources[{at}].id", "a citation's source needs a string \"id\"")
        elif known is not None and _source_id(written, known) not in known:
            fields.problems.append(Problem("CA201", f"{written!r} is not in this request's"
                                           " snapshot", path=f"{path}.sources[{at}]"))


def _documents(documents: list[Any]) -> Iterator[Source]:
    """The request's documents (``doc:N`` when they have no id)."""
    for index, given_document in enumerate(documents):
        document = plain(given_document)  # a request may hold the SDK's Document objects
        if isinstance(document, str):
            yield Source(f"doc:{index}", document, None, None, None, None, NO_METADATA)
        elif isinstance(document, dict):
            given = document.get("id")
            yield _source(given if isinstance(given, str) and given else f"doc:{index}",
                          document.get("data"))


def _tool_documents(request: dict[str, Any]) -> Iterator[Source]:
    """The documents the request's tool messages returned."""
    for given_message in as_list(request.get("messages")):
        message = plain(given_message)
        if not isinstance(message, dict) or message.get("role") != "tool":
            continue
        for index, item in enumerate(as_list(message.get("content"))):
            inner = item.get("document") if isinstance(item, dict) else None
            if isinstance(inner, dict):
                given = inner.get("id")
                call = message.get("tool_call_id")
                yield _source(given if isinstance(given, str) and given
                              else f"{call}:{index}", inner.get("data"))


def _source(source_id: str, data: Any) -> Source:
    """A document's data as a source: its text field (or the whole data as JSON), title and
    URL; the rest kept as metadata.
    """
    if isinstance(data, str):
        return Source(source_id, data)
    fields = data if isinstance(data, dict) else {}
    text = next((fields[k] for k in _TEXT_FIELDS if isinstance(fields.get(k), str)), None)
    title, url = fields.get("title"), fields.get("url")
    return Source(source_id, text if text is not None else json.dumps(fields, sort_keys=True),
                  url if isinstance(url, str) else None,
                  title if isinstance(title, str) and title else None, None, None,
                  MappingProxyType({k: v for k, v in fields.items()
                                    if k not in (*_TEXT_FIELDS, "title", "url")}))


def _known_ids(snapshot: Snapshot | None) -> set[str]:
    return {s.id for s in snapshot.sources} if snapshot is not None else set()


def _source_id(written: str, known: set[str]) -> str:
    """The snapshot id a citation's source id names: itself, or ``doc:N`` for the older
    ``doc:K:N`` spelling of a generated id.
    """
    if written in known:
        return written
    generated = _GENERATED.fullmatch(written)
    if generated and f"doc:{generated[1]}" in known:
        return f"doc:{generated[1]}"
    return written


def _citation(citation: dict[str, Any], path: str,
              read: tuple[dict[int, str], dict[int, int], set[str]], fields: Fields,
              ) -> tuple[int, int, list[Citation]] | None:
    """One citation as a cited range of the answer (None: not the answer's, or broken, and a
    finding says why). ``read``: the answer's text items, each one's first character in the
    answer, and the snapshot's ids.
    """
    texts, starts, known = read
    item = fields.field(citation, "content_index", int, path, "a citation")
    if item is None:
        if citation.get("content_index") is not None:
            return None  # of another type: a CA404 says so
        item = next(iter(texts), 0)
    if item not in texts:
        fields.problems.append(Problem(
            "CA206", f"content_index {item!r} names no text content (the message has"
            f" {len(texts)} text items)", path=f"{path}.content_index"))
        return None
    found = fields.integers(citation, ("start", "end"), "a citation", path)
    said = fields.field(citation, "text", str, path, "a citation")
    if found is None or (said is None and citation.get("text") is not None):
        return None
    start, end = found
    text = texts[item]
    if not 0 <= start <= end <= len(text):
        fields.problems.append(Problem("CA206", f"characters {start}..{end} lie outside the"
                                       f" answer text ({len(text)} characters)", path=path))
        return None
    if said is not None and said != text[start:end]:
        fields.problems.append(Problem("CA206", f"characters {start}..{end} hold"
                                       f" {text[start:end][:40]!r}, not the citation's text"
                                       f" {said[:40]!r}", path=f"{path}.text"))
        return None
    made: list[Citation] = []
    first, last = starts[item] + start, starts[item] + end
    sources = fields.items(citation, "sources", path, "a citation")
    for at, source in enumerate(sources):
        written = source.get("id") if isinstance(source, dict) else None
        if not isinstance(written, str) or not written:
            fields.add(f"{path}.sources[{at}].id", "a citation's source needs a string \"id\"")
            continue
        made.append(Citation(written if written in known else _source_id(written, known),
                             None, (first, last), None, f"{path}.sources[{at}]"))
    if not made:
        return None  # a span that names no source cites nothing
    return first, max(last, first + 1), made
