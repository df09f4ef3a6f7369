"""OpenAI: Responses (``output_text`` annotations) and Chat Completions
(``message.annotations``), audited against the retrieval the response carries and the
sources the application passes.

Field names follow the ``openai`` SDK's types (``ResponseOutputText`` with
``AnnotationURLCitation``, ``AnnotationFileCitation``, ``AnnotationContainerFileCitation``,
``AnnotationFilePath``; ``ResponseFileSearchToolCall.results``; the web search call's
``action.sources``; ``ChatCompletionMessage.annotations[].url_citation``):

* ``url_citation`` and ``container_file_citation`` cover ``start_index..end_index`` of the
  text they annotate, read end exclusive and in characters as Python counts them (the SDK
  calls ``end_index`` "the last character"; neither reading is confirmed against the live
  API yet);
* ``file_citation`` carries one ``index``: an insertion point, which cites the sentence it
  ends or sits in; ``file_path`` links a file the model wrote (code interpreter): not a
  citation, but its ``index`` must lie in its text like a citation's (CA206);
  ``container_file_citation`` names its ``file_id`` (a file of the code interpreter's
  container: part of the snapshot only when the sources given hold it);
* the snapshot is the ``sources`` given (any snapshot shape), then what the response retrieved
  itself: ``file_search_call.results`` (one source per ``file_id``, its chunks joined; present
  when the request asked to ``include`` them) and the web search call's ``action.sources``
  (by URL). A cited URL matches a source whose URL is the same once the scheme and host are
  lower-cased and tracking parameters (``utm_*``) and the fragment are dropped;
* a ``refusal`` content part (Responses) or ``message.refusal`` (Chat Completions) is the
  model declining: a refusal. A response with no answer text otherwise is CA404.
"""

from __future__ import annotations

import functools
from typing import Any, NamedTuple
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from citeaudit.core import (
    Answer,
    Citation,
    Problem,
    Reading,
    Snapshot,
    Source,
    load_snapshot,
)
from citeaudit.formats._fields import Fields, source_field, source_items
from citeaudit.formats._ranges import Cited, answer_of, as_list, plain, read_chat_message

__all__ = ["OpenAIChatFormat", "OpenAIResponsesFormat", "canonical_url", "responses_answer",
           "url_index", "with_retrieved"]


@functools.lru_cache(maxsize=8192)
def canonical_url(url: str) -> str:
    """``url`` compared as a citation's URL: scheme and host lower case, no fragment, no
    ``utm_*`` tracking parameters, no trailing slash on the path.
    """
    parts = urlsplit(url.strip())
    query = urlencode([(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
                       if not k.lower().startswith("utm_")])
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path.rstrip("/"),
                       query, ""))


class OpenAIResponsesFormat:
    """An OpenAI Responses API response (``object: "response"``, the SDK's ``Response``)."""

    name = "openai-responses"
    keys = ("output",)
    expects = "an OpenAI Responses response (object \"response\" with output items)"
    needs = (("object", "response"), ("output", list))

    def recognises(self, answer: object) -> bool:
        data = answer if isinstance(answer, dict) else None
        if data is None and hasattr(answer, "model_dump"):
            return getattr(answer, "object", None) == "response"
        return data is not None and data.get("object") == "response" and \
            isinstance(data.get("output"), list)

    def snapshot(self, answer: object, sources: object) -> Snapshot:
        if isinstance(sources, Snapshot):
            return sources
        return _with_retrieved(sources, _retrieved(plain(answer)))

    def parse(self, answer: object, reading: Reading) -> Answer:
        response = plain(answer)
        return responses_answer(self.name, response, reading, _by_url(reading.snapshot))


class OpenAIChatFormat:
    """An OpenAI Chat Completions response (``object: "chat.completion"``), whose message
    carries ``annotations`` of type ``url_citation``.
    """

    name = "openai-chat"
    keys = ("choices",)
    expects = "an OpenAI Chat Completions response (object \"chat.completion\" with choices)"
    needs = (("object", "chat.completion"), ("choices", list), ("choices.0.message", dict))

    def recognises(self, answer: object) -> bool:
        if hasattr(answer, "model_dump") and not isinstance(answer, dict):
            return getattr(answer, "object", None) == "chat.completion"
        return isinstance(answer, dict) and answer.get("object") == "chat.completion" and \
            isinstance(answer.get("choices"), list)

    def snapshot(self, answer: object, sources: object) -> Snapshot:  # noqa: ARG002
        if isinstance(sources, Snapshot):
            return sources
        return _with_retrieved(sources, [])

    def parse(self, answer: object, reading: Reading) -> Answer:
        response = plain(answer)
        fields = Fields()
        cited: Cited = []
        where = "$.choices[0].message"
        message = read_chat_message(response, fields)
        if message is None:
            return answer_of(self.name, "", cited, fields.problems, reading, where)
        text = fields.field(message, "content", str, where, "the message")
        refusal = fields.field(message, "refusal", str, where, "the message")
        if text is None and refusal is not None:  # the model declined, in its own words
            return answer_of(self.name, refusal, cited, fields.problems, reading,
                             f"{where}.refusal", declined=True)
        if text is None:
            if "content" not in message or message["content"] is None:
                fields.add(f"{where}.content", "the message needs a string \"content\"")
            return answer_of(self.name, "", cited, fields.problems, reading, f"{where}.content")
        into = _Into(cited, fields, _by_url(reading.snapshot))
        notes = fields.items(message, "annotations", where, "the message")
        for _, note, path in fields.objects(notes, f"{where}.annotations", "an annotation"):
            inner = fields.field(note, "url_citation", dict, path, "an annotation", needed=True)
            if inner is not None:
                _annotation({"type": "url_citation", **inner}, text, 0, f"{path}.url_citation",
                            into)
        return answer_of(self.name, text, cited, fields.problems, reading, f"{where}.content")


def responses_answer(name: str, response: dict[str, Any], reading: Reading,
                     urls: dict[str, str], *, untyped: str | None = None) -> Answer:
    """The answer of a Responses-style response (OpenAI's, or Perplexity's): its messages'
    ``output_text`` parts and their annotations. ``untyped``: the type of an annotation that
    names none (Perplexity's ``type`` is optional).
    """
    return _responses(name, response, reading, urls, untyped)


def _responses(name: str, response: dict[str, Any], reading: Reading, urls: dict[str, str],
               untyped: str | None) -> Answer:
    """:func:`responses_answer`."""
    fields = Fields()
    pieces: list[str] = []
    cited: Cited = []
    offset = 0
    declined = False
    into = _Into(cited, fields, urls, untyped)
    items = fields.items(response, "output", "$", "a response", needed=True)
    for at in range(len(items)):
        item = fields.object_at(items, at, "$.output", "an output item")
        if item is None:
            continue
        kind = item.get("type")
        if type(kind) is not str:
            kind = fields.field(item, "type", str, f"$.output[{at}]", "an output item",
                                needed=True)
        if kind != "message":
            continue
        if pieces:
            pieces.append("\n\n")  # one message's text from the next
            offset += 2
        path = f"$.output[{at}].content"
        parts = fields.items(item, "content", f"$.output[{at}]", "a message", needed=True)
        for place in range(len(parts)):
            part = fields.object_at(parts, place, path, "a content part")
            if part is None:
                continue
            part_path = f"{path}[{place}]"
            kind = part.get("type")
            if type(kind) is not str:
                kind = fields.field(part, "type", str, part_path, "a content part",
                                    needed=True)
            if kind == "refusal":  # the model declined, in the field made for it
                declined = True
                continue
            if kind != "output_text":
                continue
            written = part.get("text")
            if type(written) is not str:
                written = fields.field(part, "text", str, part_path, "an output_text part",
                                       needed=True)
                if written is None:
                    continue
                written = str.__str__(written)  # a subclass of str: read as one
            text = written
            notes = fields.items(part, "annotations", part_path, "an output_text part")
            for index in range(len(notes)):
                _annotation(notes[index], text, offset, f"{part_path}.annotations[{index}]",
                            into)
            pieces.append(text)
            offset += len(text)
    return answer_of(name, "".join(pieces), cited, fields.problems, reading,
                     "$.output", declined=declined)


class _Into(NamedTuple):
    """Where annotations are collected: the cited ranges and the problems found."""

    cited: Cited
    fields: Fields
    urls: dict[str, str]  # canonical URL (and id) -> the snapshot id
    untyped: str | None = None  # the type of an annotation that names none


def _annotation(given: Any, text: str, offset: int, path: str, into: _Into) -> None:
    """Add one annotation of an output text (at ``offset`` in the answer) to the cited ranges,
    or say why it cannot be (CA404: a broken annotation; CA206: a range outside its text).
    """
    fields = into.fields
    if type(given) is not dict:
        if fields.value(given, dict, path, "an annotation") is None:
            return
        given = dict(given)  # a subclass of dict: read as one
    note = given
    kind = into.untyped if into.untyped and note.get("type") is None else fields.field(
        note, "type", str, path, "an annotation", needed=True)
    if kind is None:
        return
    if kind == "file_path":  # a link to a file the model wrote: no citation, but in its text
        _linked(note, text, path, fields)
        return
    if kind in ("url_citation", "container_file_citation"):
        names: tuple[str, ...] = ("start_index", "end_index")
    elif kind == "file_citation":
        names = ("index",)
    else:
        fields.add(f"{path}.type", f"unknown annotation type {kind!r}")
        return
    key = "url" if kind == "url_citation" else "file_id"
    target = note.get(key)
    if not isinstance(target, str) or not target:
        fields.add(f"{path}.{key}", f"{kind} needs a string \"{key}\"")
        return
    written = fields.integers(note, names, kind, path)
    if written is None:
        return
    first, last = written[0], written[-1]
    if not 0 <= first <= last <= len(text):
        what = f"range {first}..{last}" if len(written) == 2 else f"index {first}"
        fields.problems.append(Problem("CA206", f"{kind} {what} lies outside its text"
                                       f" ({len(text)} characters)", path=path))
        return
    # A point (file_citation's index) cites the character before it: the sentence it ends.
    low, high = (first, last) if len(written) == 2 else (max(0, first - 1), max(1, first))
    source_id = target if kind != "url_citation" else into.urls.get(target)
    if source_id is None:  # a URL written otherwise than the source's: compared canonical
        canonical = canonical_url(target)
        source_id = into.urls.get(canonical, canonical)
    into.cited.append((offset + low, offset + high,
                       [Citation(source_id, None, (offset + first, offset + last), None, path)]))


def _linked(note: dict[str, Any], text: str, path: str, fields: Fields) -> None:
    """A ``file_path`` annotation's ``index`` (where the link to the file is written): an
    integer within its text, else CA404 or CA206, as a citation's would be.
    """
    written = fields.integers(note, ("index",), "file_path", path)
    if written is not None and not 0 <= written[0] <= len(text):
        fields.problems.append(Problem("CA206", f"file_path index {written[0]} lies outside its"
                                       f" text ({len(text)} characters)", path=path))


def _by_url(snapshot: Snapshot | None) -> dict[str, str]:
    """The snapshot id each id and each URL (canonical, and as written) names (the first
    source, if several).
    """
    found: dict[str, str] = {}
    for source in snapshot.sources if snapshot is not None else ():
        found.setdefault(source.id, source.id)
        if source.url:
            found.setdefault(canonical_url(source.url), source.id)
            found.setdefault(source.url, source.id)  # as written: found without canonical_url
    return found


def _retrieved(response: dict[str, Any]) -> list[Source]:
    """What the response retrieved itself: file search results by file, web sources (a
    :class:`SnapshotError` where one breaks its shape).
    """
    by_file: dict[str, list[dict[str, Any]]] = {}
    urls: list[str] = []
    for index, item in enumerate(as_list(response.get("output"))):
        kind = item.get("type") if isinstance(item, dict) else None
        path = f"$.output[{index}]"
        if kind == "file_search_call":
            for _, result, where in source_items(item, "results", path, "a file search call",
                                                 "a file search result"):
                file_id = source_field(result, "file_id", str, where, "a file search result",
                                       needed=True)
                source_field(result, "text", str, where, "a file search result")
                by_file.setdefault(file_id, []).append(result)
        elif kind == "web_search_call":
            action = source_field(item, "action", dict, path, "a web search call")
            for _, found, where in source_items(action or {}, "sources", f"{path}.action",
                                                "a web search action", "a web search source"):
                urls.append(source_field(found, "url", str, where, "a web search source",
                                         needed=True))
    sources = [_file_source(file_id, results) for file_id, results in by_file.items()]
    sources += [Source(canonical_url(url), "", url) for url in dict.fromkeys(urls)]
    return sources


def _file_source(file_id: str, results: list[dict[str, Any]]) -> Source:
    texts = [r["text"] for r in results if isinstance(r.get("text"), str)]
    scores = [r["score"] for r in results if isinstance(r.get("score"), int | float)]
    name = next((r["filename"] for r in results if isinstance(r.get("filename"), str)), None)
    return Source(file_id, "\n\n".join(texts), None, name, max(scores) if scores else None)


def _with_retrieved(sources: object, retrieved: list[Source]) -> Snapshot:
    given = load_snapshot(sources) if sources is not None else Snapshot(())
    if not retrieved:
        return given
    known = {s.id for s in given.sources} | {canonical_url(s.url) for s in given.sources
                                             if s.url}
    extra = tuple(s for s in retrieved if s.id not in known)
    return Snapshot(given.sources + extra, ids_from=given.ids_from) if extra else given


# Shared with the formats whose citations name URLs the same way (Gemini Interactions, xAI).
url_index = _by_url
with_retrieved = _with_retrieved
