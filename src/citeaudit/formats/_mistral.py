"""Mistral: a chat completion whose message content is a list of chunks, ``reference`` chunks
(``reference_ids``) citing the text chunk before them, audited against the numbered references
the request's tool results returned; and an agents conversation response, whose
``tool_reference`` chunks cite by URL.

Field names follow the ``mistralai`` SDK's types (``ChatCompletionResponse``,
``AssistantMessage``, ``TextChunk``, ``ReferenceChunk``, ``ToolMessage``;
``ConversationResponse``, ``MessageOutputEntry``, ``ToolReferenceChunk``):

* the snapshot is the request's ``tool`` messages whose content is the JSON object Mistral's
  citation guide has tools return, ``{"0": {"title", "url", "snippets", ...}, "1": ...}``:
  one source per key (its text the ``snippets``, or the ``description``/``text``/``content``);
  a ``reference_ids`` entry (an integer or a string) names the key written the same way;
* a ``reference`` chunk cites the text chunk just before it (and its own ``text``, when a
  response carries one); a ``tool_reference`` chunk (the ``message.output`` entries of a
  conversation, from agents' built-in tools) cites the text before it by its ``url``, which
  the response itself vouches for, so it is added to the snapshot;
* without such tool results, a chat completion is audited against the sources given (any
  snapshot shape); a conversation response needs none.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from types import MappingProxyType
from typing import Any

import orjson

from citeaudit.core import (
    NO_METADATA,
    Answer,
    Citation,
    Problem,
    Reading,
    Snapshot,
    Source,
    load_snapshot,
)
from citeaudit.errors import SnapshotError
from citeaudit.formats._fields import Fields
from citeaudit.formats._ranges import (
    Cited,
    answer_of,
    as_list,
    chat_message,
    plain,
    read_chat_message,
)

__all__ = ["MistralFormat"]

_TEXT_FIELDS = ("description", "text", "content")
_STRING = {str}
_KEPT = {"snippets", "url", "title"}  # a result's fields the source holds as its own


class MistralFormat:
    """A Mistral chat completion with chunked content (the SDK's ``ChatCompletionResponse``
    or its JSON).
    """

    name = "mistral"
    keys = ("choices", "outputs")
    expects = "a Mistral chat completion (choices whose message content is a list of chunks)"
    needs = (("choices", list), ("choices.0.message", dict),
             ("choices.0.message.content", list))

    def recognises(self, answer: object) -> bool:
        if not isinstance(answer, dict) and hasattr(answer, "model_dump"):
            kind = getattr(answer, "object", None)
            if kind == "conversation.response":
                return True
            if not hasattr(answer, "choices") or kind != "chat.completion":
                return False
            answer = plain(answer)
        if not isinstance(answer, dict):
            return False
        if answer.get("object") == "conversation.response":
            return isinstance(answer.get("outputs"), list)
        return isinstance(chat_message(answer).get("content"), list)

    def snapshot(self, answer: object, sources: object) -> Snapshot:
        if isinstance(sources, Snapshot):
            return sources
        request, response = plain(sources), plain(answer)
        if isinstance(request, dict) and isinstance(request.get("messages"), list):
            found = _tool_results(request)
        elif sources is not None:
            found = list(load_snapshot(sources).sources)
        elif response.get("object") == "conversation.response":
            found = []
        else:
            raise SnapshotError("a Mistral response is audited against its request (tool"
                                " messages returning numbered references) or the sources given",
                                origin="<snapshot>", place="$.messages")
        references = _references_by_url(response)
        known = {s.id for s in found} if references else set()
        for chunk in references:
            url = chunk.get("url")
            if isinstance(url, str) and url and url not in known:
                known.add(url)
                title = chunk.get("title")
                found.append(Source(url, "", url, title if isinstance(title, str) else None))
        return Snapshot(tuple(found))

    def parse(self, answer: object, reading: Reading) -> Answer:
        return _parsed(self.name, plain(answer), reading)


def _parsed(name: str, response: dict[str, Any], reading: Reading) -> Answer:
    """The answer of a chat completion or a conversation response: its text chunks, each
    cited by the reference chunks after it.
    """
    conversation = response.get("object") == "conversation.response"
    where = "$.outputs" if conversation else "$.choices[0].message.content"
    fields = Fields()
    pieces: list[str] = []
    cited: Cited = []
    offset = 0
    last: tuple[int, int] | None = None  # the last text chunk's range in the answer
    for owner_path, owner in _owners(response, conversation, fields):
        content = owner.get("content")
        if isinstance(content, str):  # one text chunk
            if content:
                pieces.append(content)
                last = (offset, offset + len(content))
                offset += len(content)
            continue
        chunks = fields.items(owner, "content", owner_path, "a message", needed=True)
        for at in range(len(chunks)):
            chunk = fields.object_at(chunks, at, f"{owner_path}.content", "a content chunk")
            if chunk is None:
                continue
            kind = chunk.get("type")
            text = chunk.get("text")
            if kind == "text" and type(text) is str:  # the common case, read at once
                if text:
                    pieces.append(text)
                    last = (offset, offset + len(text))
                    offset += len(text)
                continue
            path = f"{owner_path}.content[{at}]"
            kind = fields.field(chunk, "type", str, path, "a content chunk", needed=True)
            if kind in ("text", "reference"):
                text = fields.field(chunk, "text", str, path, f"a {kind} chunk",
                                    needed=kind == "text")
                if text:
                    pieces.append(text)
                    last = (offset, offset + len(text))
                    offset += len(text)
            if kind == "reference":
                made = _references(chunk, path, last, fields)
            elif kind == "tool_reference":
                url = fields.field(chunk, "url", str, path, "a tool_reference chunk",
                                   needed=True)
                if url is None:
                    continue
                made = [_citation(url, path, last)]
            else:
                continue  # text, and chunks that cite nothing
            if last is None:
                fields.problems.append(Problem("CA206", f"a {kind} chunk cites no text before"
                                               " it", path=path))
            elif made:
                cited.append((*last, made))
    return answer_of(name, "".join(pieces), cited, fields.problems, reading, where,
                     ordered=True)  # each range after the one before


def _citation(source_id: str, path: str, span: tuple[int, int] | None) -> Citation:
    return Citation(source_id, None, span, None, path)


def _owners(response: dict[str, Any], conversation: bool, fields: Fields,
            ) -> list[tuple[str, dict[str, Any]]]:
    """What holds the answer's chunks, and its JSON path."""
    if not conversation:
        message = read_chat_message(response, fields)
        return [] if message is None else [("$.choices[0].message", message)]
    entries = fields.items(response, "outputs", "$", "a conversation response", needed=True)
    return [(path, entry) for _, entry, path in fields.objects(entries, "$.outputs",
                                                               "an output entry")
            if fields.field(entry, "type", str, path, "an output entry",
                            needed=True) == "message.output"]


def _references_by_url(response: dict[str, Any]) -> list[dict[str, Any]]:
    """The answer's ``tool_reference`` chunks."""
    conversation = response.get("object") == "conversation.response"
    owners = _owners(response, conversation, Fields()) if conversation else \
        [("", chat_message(response))]  # broken chunks: the answer's CA404
    return [chunk for _, owner in owners if isinstance(chunks := owner.get("content"), list)
            for chunk in chunks
            if isinstance(chunk, dict) and chunk.get("type") == "tool_reference"]


def _references(chunk: dict[str, Any], path: str, span: tuple[int, int] | None,
                fields: Fields) -> list[Citation]:
    ids = fields.field(chunk, "reference_ids", list, path, "a reference chunk", needed=True)
    made = []
    for at, written in enumerate(ids or ()):
        if isinstance(written, bool) or not isinstance(written, (int, str)):
            fields.add(f"{path}.reference_ids[{at}]", "a reference id must be an integer or a"
                       " string")
            continue
        made.append(_citation(str(written), f"{path}.reference_ids[{at}]", span))
    return made


def _tool_results(request: dict[str, Any]) -> list[Source]:
    """The numbered references the request's tool messages returned, in order."""
    found: list[Source] = []
    for given in as_list(request.get("messages")):
        message = plain(given)
        if not isinstance(message, dict) or message.get("role") != "tool":
            continue
        content = message.get("content")
        if isinstance(content, list):  # text chunks
            content = "".join(c.get("text", "") for c in content
                              if isinstance(c, dict) and isinstance(c.get("text"), str))
        if not isinstance(content, str):
            continue
        try:
            results = orjson.loads(content)
        except orjson.JSONDecodeError:
            try:  # what orjson refuses and json reads: NaN, integers past 64 bits
                results = json.loads(content)
            except ValueError:
                continue  # a tool that returned prose: nothing it numbers
        if isinstance(results, dict):
            found += [_source(str(key), result) for key, result in results.items()
                      if isinstance(result, dict)]
    return found


def _source(key: str, result: dict[str, Any]) -> Source:
    given = result.get("snippets")
    snippets = given if type(given) is list and {*map(type, given)} <= _STRING else \
        list(_strings(given))  # lists of lists, or of other things: the strings in them
    text = "\n".join(snippets) if snippets else _text_field(result)
    url, title = result.get("url"), result.get("title")
    rest = None if result.keys() <= _KEPT else {k: v for k, v in result.items()
                                                 if k not in _KEPT}
    return Source(key, text, url if isinstance(url, str) and url else None,
                  title if isinstance(title, str) and title else None, None, None,
                  MappingProxyType(rest) if rest else NO_METADATA)


def _text_field(result: dict[str, Any]) -> str:
    """The first of a result's text fields that is a string (``""``: none is)."""
    for key in _TEXT_FIELDS:
        value = result.get(key)
        if isinstance(value, str):
            return value
    return ""


def _strings(value: Any) -> Iterator[str]:
    """The strings in ``value``, however deeply listed (snippets come as lists of lists)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
