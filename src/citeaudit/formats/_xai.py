"""xAI: a chat response (``GetChatCompletionResponse``, as JSON: ``json_format.MessageToDict``
writes camelCase, ``preserving_proto_field_name=True`` snake_case; both are read) whose
answer carries ``InlineCitation``s, requested with ``include=["inline_citations"]``.

Field names follow the ``xai-sdk`` protos (``xai_api.InlineCitation``: ``id``,
``start_index``, ``end_index``, one of ``web_citation`` {url}, ``x_citation`` {url},
``collections_citation`` {file_id, chunk_id, chunk_content, score, collection_ids}):

* the answer is the last assistant output of choice 0 (``Response.content`` in the SDK);
* ``start_index..end_index`` (characters, end exclusive) is where the **marker** is written
  in the answer (``[[1]](https://…)``), not the claim it supports: the claim is the sentence
  the marker follows. The markers are taken out of the answer text, with the spaces written
  just before them (so they are no claims of their own), and each cites the sentence ending
  just before it. A range outside the text,
  or one that does not hold its citation's ``id``, is CA206; ranges are read as characters
  (as Python counts them) until a response shows otherwise;
* the snapshot is the ``sources`` given, then the response's ``citations`` (every URL the
  model drew on), then each ``collections_citation``'s chunk (named by its ``chunk_id``, with
  its ``chunk_content``). A web or X citation names a URL matched like OpenAI's (scheme and
  host lower case, no fragment, no ``utm_*``); a URL outside the snapshot is unknown (CA201).
"""

from __future__ import annotations

import functools
import re
from typing import Any

from citeaudit.core import Answer, Citation, Problem, Reading, Snapshot, Source, kind_of
from citeaudit.errors import SnapshotError
from citeaudit.formats._fields import Fields, source_field
from citeaudit.formats._openai import canonical_url, url_index, with_retrieved
from citeaudit.formats._ranges import Cited, answer_of, as_list, plain

__all__ = ["XAIFormat"]

_ASSISTANT = ("ROLE_ASSISTANT", 2)  # the enum's name, or its number (use_integers_for_enums)
_KINDS = ("web_citation", "x_citation", "collections_citation")


@functools.cache
def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(word.title() for word in rest)


def _key(data: dict[str, Any], name: str) -> str:
    """The name a field is under: snake_case (the proto's) or camelCase (MessageToDict's)."""
    return name if name in data else _camel(name)


class XAIFormat:
    """An xAI chat response with inline citations (JSON, either casing)."""

    name = "xai"
    keys = ("outputs",)
    expects = "an xAI chat response (outputs with an assistant message)"
    needs = (("outputs", list), ("outputs.0.message", dict))

    def recognises(self, answer: object) -> bool:
        data = answer if isinstance(answer, dict) else None
        outputs = data.get("outputs") if data is not None else None
        return isinstance(outputs, list) and any(
            isinstance(o, dict) and isinstance(o.get("message"), dict) for o in outputs)

    def snapshot(self, answer: object, sources: object) -> Snapshot:
        if isinstance(sources, Snapshot):
            return sources
        response = plain(answer)
        urls = source_field(response, "citations", list, "$", "a response") or []
        found: list[Source] = []
        for at, url in enumerate(urls):
            if not isinstance(url, str):
                raise SnapshotError(f"a citation must be a URL string, not {kind_of(url)}",
                                    origin="<answer>", place=f"$.citations[{at}]")
            if url:
                found.append(Source(canonical_url(url), "", url))
        return with_retrieved(sources, found + _chunks(response))

    def parse(self, answer: object, reading: Reading) -> Answer:
        response = plain(answer)
        fields = Fields()
        found = _message(response, fields)
        if found is None:
            return answer_of(self.name, "", [], fields.problems, reading, "$.outputs")
        message, path = found
        text = fields.field(message, "content", str, path, "the message", needed=True)
        if text is None:
            return answer_of(self.name, "", [], fields.problems, reading, f"{path}.content")
        urls = url_index(reading.snapshot)
        markers: list[tuple[int, int, Citation]] = []
        notes = fields.items(message, "citations", path, "the message")
        for _, note, where in fields.objects(notes, f"{path}.citations", "an inline citation"):
            marker = _marker(note, where, text, urls, fields)
            if marker is not None:
                markers.append(marker)
        stripped, cited = _without_markers(text, markers)
        return answer_of(self.name, stripped, cited, fields.problems, reading,
                         f"{path}.content")


def _message(response: dict[str, Any], fields: Fields) -> tuple[dict[str, Any], str] | None:
    """The last assistant message of choice 0 and its JSON path (None, with a CA404, where
    there is none).
    """
    outputs = fields.items(response, "outputs", "$", "a response", needed=True)
    last: tuple[dict[str, Any], str] | None = None
    for _, output, path in fields.objects(outputs, "$.outputs", "an output"):
        if output.get("index") not in (None, 0):
            continue  # another choice (n > 1)
        message = fields.field(output, "message", dict, path, "an output", needed=True)
        if message is not None and message.get("role") in (*_ASSISTANT, None):
            last = message, f"{path}.message"
    if last is None and not fields.problems:
        fields.add("$.outputs", "a response needs an assistant message")
    return last


def _marker(note: dict[str, Any], path: str, text: str, urls: dict[str, str],
            fields: Fields) -> tuple[int, int, Citation] | None:
    """One inline citation: its marker's range in the text and the citation it makes (None:
    it is broken, and a finding says why).
    """
    written = fields.field(note, "id", str, path, "an inline citation", needed=True)
    target = _target(note, path, fields)
    names = (_key(note, "start_index"), _key(note, "end_index"))
    if note.get(names[0]) is None:
        note = {**note, names[0]: 0}  # proto3 JSON leaves a zero out
    span = fields.integers(note, names, "an inline citation", path)
    if written is None or target is None or span is None:
        return None
    start, end = span
    if not 0 <= start <= end <= len(text):
        fields.problems.append(Problem("CA206", f"marker range {start}..{end} lies outside the"
                                       f" answer text ({len(text)} characters)", path=path))
        return None
    if not re.search(rf"(?<![^\W_]){re.escape(written)}(?![^\W_])", text[start:end]):
        fields.problems.append(Problem("CA206", f"characters {start}..{end} hold"
                                       f" {text[start:end][:40]!r}, not a marker of citation"
                                       f" {written!r}", path=path))
        return None
    source_id = target
    if target.startswith(("http://", "https://")):
        source_id = urls.get(target) or urls.get(canonical_url(target)) or canonical_url(target)
    return start, end, Citation(source_id, None, None, text[start:end], path)


def _target(note: dict[str, Any], path: str, fields: Fields) -> str | None:
    """What an inline citation names: its web or X citation's URL, or its collections
    citation's chunk (None, with a CA404, where it names none).
    """
    for kind in _KINDS:
        key = _key(note, kind)
        inner = fields.field(note, key, dict, path, "an inline citation")
        if inner is None:
            continue
        name = "chunk_id" if kind == "collections_citation" else "url"
        value = fields.field(inner, _key(inner, name), str, f"{path}.{key}", kind, needed=True)
        return str(value) if value else None
    snake = any("_" in key for key in note)  # written as the proto names fields
    fields.add(f"{path}.{_KINDS[0] if snake else _camel(_KINDS[0])}",
               "an inline citation needs a web_citation, x_citation or collections_citation")
    return None


def _without_markers(text: str, markers: list[tuple[int, int, Citation]],
                     ) -> tuple[str, Cited]:
    """The text without its markers (and the spaces just before them), and each marker's
    citation citing the last character written before it there (the end of the sentence it
    follows).
    """
    pieces: list[str] = []
    cited: Cited = []
    at = 0  # where the text not yet copied starts
    for start, end, made in sorted(markers, key=lambda m: (m[0], m[1])):
        if start >= at:  # the space written before a marker goes with it: "days [[1]](…)."
            pieces.append(text[at:start].rstrip(" \t"))
            at = end
        before = len("".join(pieces).rstrip())
        low = max(before - 1, 0)
        cited.append((low, low + 1, [Citation(made[0], None, (low, low + 1), *made[3:])]))
    pieces.append(text[at:])
    return "".join(pieces), cited


def _chunks(response: dict[str, Any]) -> list[Source]:
    """The collections chunks the inline citations quote, once each, as sources."""
    found: dict[str, Source] = {}
    for output in as_list(response.get("outputs")):
        message = output.get("message") if isinstance(output, dict) else None
        if not isinstance(message, dict):
            continue
        for note in as_list(message.get("citations")):
            if not isinstance(note, dict):
                continue
            inner = note.get(_key(note, "collections_citation"))
            if not isinstance(inner, dict):
                continue
            chunk = inner.get(_key(inner, "chunk_id"))
            content = inner.get(_key(inner, "chunk_content"))
            if isinstance(chunk, str) and chunk:
                found.setdefault(chunk, Source(chunk, content if isinstance(content, str)
                                               else ""))
    return list(found.values())
