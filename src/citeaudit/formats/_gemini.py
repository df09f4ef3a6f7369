"""Gemini / Vertex AI: a response's ``grounding_metadata`` (REST camelCase or the
``google-genai`` SDK's snake_case alike).

Field names and units follow the SDK's types (``GroundingMetadata``, ``GroundingChunk``,
``GroundingSupport``, ``Segment``): a support's ``segment.start_index``/``end_index`` count
**UTF-8 bytes** of the part ``part_index`` (0 when absent), start inclusive, end exclusive;
``grounding_chunk_indices`` are 0-based into ``grounding_chunks``. Reading the offsets as
characters goes wrong on the first non-ASCII character before them; here they are decoded,
and an offset that cuts a character in half, lies outside its part, or covers other text than
``segment.text`` says is CA206. Chunks are the snapshot (``chunk:N``; ``web`` chunks carry a
URL and title, ``retrieved_context`` chunks their text too), after any sources given.
"""

from __future__ import annotations

import functools
from typing import Any

from citeaudit.core import (
    NO_METADATA,
    Answer,
    Citation,
    Location,
    Problem,
    Reading,
    Snapshot,
    Source,
    kind_of,
    load_snapshot,
)
from citeaudit.errors import SnapshotError
from citeaudit.formats._fields import Fields, source_field
from citeaudit.formats._ranges import Cited, answer_of, as_list, plain

__all__ = ["GeminiFormat", "byte_range"]


@functools.cache
def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(word.title() for word in rest)


def _get(data: Any, name: str) -> tuple[Any, str]:
    """A field by its snake_case name or its REST camelCase one, and the name it was under."""
    if not isinstance(data, dict):
        return None, name
    value = data.get(name)
    if value is not None or name in data:
        return value, name
    camel = _camel(name)
    return data.get(camel), camel


_INT = {int}
# A support's segment, chunk indices and end offset keys: snake_case (the SDK), camelCase (REST).
_SUPPORT_KEYS = {False: ("segment", "grounding_chunk_indices", "end_index"),
                 True: ("segment", "groundingChunkIndices", "endIndex")}
_CANDIDATE = "$.candidates[0]"
_PARTS = "$.candidates[0].content.parts"  # where the answer's text is


class GeminiFormat:
    """A Gemini ``generateContent`` response with ``candidates`` (JSON or the SDK's
    ``GenerateContentResponse``).
    """

    name = "gemini"
    keys = ("candidates",)
    expects = "a Gemini response (candidates with content parts and grounding metadata)"
    needs = (("candidates", list), ("candidates.0.content", dict))

    def recognises(self, answer: object) -> bool:
        if isinstance(answer, dict):
            return isinstance(answer.get("candidates"), list) and "object" not in answer
        return hasattr(answer, "model_dump") and hasattr(answer, "candidates") and \
            hasattr(answer, "prompt_feedback")

    def snapshot(self, answer: object, sources: object) -> Snapshot:
        if isinstance(sources, Snapshot):
            return sources
        metadata, metadata_key = _get(_candidate(plain(answer)), "grounding_metadata")
        _, chunks_key = _get(metadata, "grounding_chunks")
        found = tuple(_chunks(metadata, chunks_key, f"{_CANDIDATE}.{metadata_key}"))
        if sources is None:
            return Snapshot(found)
        given = load_snapshot(sources)
        return Snapshot(given.sources + found, ids_from=given.ids_from) if found else given

    def parse(self, answer: object, reading: Reading) -> Answer:
        response = plain(answer)
        fields = Fields()
        candidates = fields.items(response, "candidates", "$", "a response", needed=True)
        if not candidates:
            if not fields.problems:
                fields.add("$.candidates", "a response needs a candidate: \"candidates\" is"
                           " empty")
            return answer_of(self.name, "", [], fields.problems, reading, _PARTS)
        candidate = fields.value(candidates[0], dict, _CANDIDATE, "a candidate")
        if candidate is None:
            return answer_of(self.name, "", [], fields.problems, reading, _PARTS)
        texts = _texts(candidate, fields)
        starts: list[int] = []  # each part's first character in the answer text
        offset = 0
        for text in texts:
            starts.append(offset)
            offset += len(text) if isinstance(text, str) else 0
        whole = "".join([t for t in texts if isinstance(t, str)])
        cited: Cited = []
        metadata_key = _key(candidate, "grounding_metadata")
        metadata = fields.field(candidate, metadata_key, dict, _CANDIDATE, "a candidate")
        base = f"{_CANDIDATE}.{metadata_key}"
        supports_key = _key(metadata or {}, "grounding_supports")
        supports = fields.field(metadata or {}, supports_key, list, base, "grounding metadata")
        encoded: dict[int, bytes | None] = {}  # each part's UTF-8 (None: ASCII, bytes = chars)
        supports = supports or []
        parts = (texts, starts, encoded)
        where = f"{base}.{supports_key}"
        for at in range(len(supports)):
            support = fields.object_at(supports, at, where, "a grounding support")
            if support is None:
                continue
            found = _support(support, f"{where}[{at}]", parts, fields)
            if found is not None:
                cited.append(found)
        return answer_of(self.name, whole, cited, fields.problems, reading, _PARTS)


def _key(data: dict[str, Any], name: str) -> str:
    """The name a field is under: snake_case (the SDK's) or camelCase (REST's)."""
    return _get(data, name)[1]


def _texts(candidate: dict[str, Any], fields: Fields) -> list[str | None]:
    """Each content part's text (None: a part of another kind, a function call)."""
    content = fields.field(candidate, "content", dict, _CANDIDATE, "a candidate", needed=True)
    parts = [] if content is None else fields.items(content, "parts", f"{_CANDIDATE}.content",
                                                    "a candidate's content", needed=True)
    texts: list[str | None] = []
    for at, part in enumerate(parts):
        where = f"{_PARTS}[{at}]"
        found = fields.value(part, dict, where, "a content part")
        texts.append(None if found is None else fields.field(found, "text", str, where,
                                                             "a content part"))
    return texts


def _candidate(response: Any) -> Any:
    candidates, _ = _get(response, "candidates")
    first = as_list(candidates)[:1]
    return first[0] if first and isinstance(first[0], dict) else {}


def _chunks(metadata: Any, key: str, path: str) -> list[Source]:
    """The grounding chunks as sources (a :class:`SnapshotError` where one breaks its
    shape).
    """
    if not isinstance(metadata, dict):
        return []  # none, or not an object: the answer's CA404
    chunks = source_field(metadata, key, list, path, "grounding metadata") or []
    found = []
    for index in range(len(chunks)):
        chunk = chunks[index]
        place = _plain(chunk)
        found.append(_chunk(chunk, index, f"{path}.{key}[{index}]") if place is None else
                     Source(f"chunk:{index}", place.get("text") or "",
                            _text_or_none(place.get("uri")),
                            _text_or_none(place.get("title")) or None, None, None, NO_METADATA))
    return found


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _plain(chunk: Any) -> dict[str, Any] | None:
    """A chunk's ``web`` or ``retrieved_context`` object where its fields have their types
    exactly (JSON's) and its text is a string or absent: what :func:`_chunk` reads without
    a finding; else None.
    """
    if type(chunk) is not dict:
        return None
    web = chunk.get("web")
    context = chunk.get("retrieved_context")
    if context is None and "retrieved_context" not in chunk:
        context = chunk.get("retrievedContext")
    if (web is not None and type(web) is not dict) or \
            (context is not None and type(context) is not dict):
        return None
    place = web if web is not None else context
    if place is None:
        return None
    text = place.get("text")
    return place if text is None or type(text) is str else None


def _chunk(chunk: Any, index: int, path: str) -> Source:
    if not isinstance(chunk, dict):
        raise SnapshotError(f"a grounding chunk must be an object, not {kind_of(chunk)}",
                            origin="<answer>", place=path)
    web = source_field(chunk, "web", dict, path, "a grounding chunk")
    key = _key(chunk, "retrieved_context")
    context = source_field(chunk, key, dict, path, "a grounding chunk")
    found = web if web is not None else context if context is not None else {}
    where = f"{path}.{'web' if web is not None else key}"
    uri, title = found.get("uri"), found.get("title")
    text = source_field(found, "text", str, where, "a grounding chunk's source")
    return Source(f"chunk:{index}", text if text is not None else "",
                  uri if isinstance(uri, str) else None,
                  title if isinstance(title, str) and title else None, None, None, NO_METADATA)


def byte_range(text: str, raw: bytes | None, start: int, end: int) -> tuple[int, str] | None:
    """UTF-8 byte offsets ``start..end`` of ``text`` (within its ``raw`` encoding; None: the
    text is ASCII) as the characters before ``start`` and the text covered; None where an
    offset cuts a character in half. Both Gemini APIs count bytes: read as characters, every
    offset after the first non-ASCII character lands early.
    """
    if raw is None:  # ASCII: a byte is a character
        return start, text[start:end]
    try:
        return len(raw[:start].decode("utf-8")), raw[start:end].decode("utf-8")
    except UnicodeDecodeError:
        return None


@functools.lru_cache(maxsize=1024)  # bounded: the indices come from the response
def _located(index: int) -> Location:
    """Where a citation of grounding chunk ``index`` points (one per index, shared)."""
    return Location("source", 0, 0, None, f"grounding chunk {index}")


def _support(support: dict[str, Any], path: str,
             parts: tuple[list[Any], list[int], dict[int, bytes | None]],
             fields: Fields) -> tuple[int, int, list[Citation]] | None:
    """One grounding support as a cited range of the answer (None: it is broken, and a
    finding says why). ``parts``: each part's text, its first character in the answer, and
    its UTF-8 encoding once needed.
    """
    problems = fields.problems
    texts, starts, encoded = parts
    camel = "groundingChunkIndices" in support
    segment_key, indices_key, end_key = _SUPPORT_KEYS[camel]
    segment = fields.field(support, segment_key, dict, path, "a grounding support", needed=True)
    indices = fields.field(support, indices_key, list, path, "a grounding support", needed=True)
    if segment is None or indices is None:
        return None
    if not {*map(type, indices)} <= _INT:  # integers (bools are not)
        fields.add(f"{path}.{indices_key}", "a grounding support's chunk indices must be"
                   " integers")
        return None
    said = segment.get("text")
    if said is not None and type(said) is not str:
        said = fields.field(segment, "text", str, f"{path}.{segment_key}", "a segment")
        if said is None:
            return None  # of another type: its text cannot be compared
    # proto3 JSON leaves zero values out
    start = segment.get("startIndex" if camel else "start_index")
    end = segment.get(end_key)
    part = segment.get("partIndex" if camel else "part_index")
    start = 0 if start is None else start
    part = 0 if part is None else part
    if type(start) is not int or type(end) is not int or type(part) is not int:
        problems.append(Problem("CA404", "a segment needs integer byte offsets",
                                path=f"{path}.{segment_key}.{end_key}"))
        return None
    if not 0 <= part < len(texts) or not isinstance(texts[part], str):
        problems.append(Problem("CA206", f"part_index {part} names no text part (the answer"
                                f" has {len(texts)} parts)", path=f"{path}.{segment_key}"))
        return None
    text = texts[part]
    if part not in encoded:
        raw = text.encode("utf-8")
        encoded[part] = None if len(raw) == len(text) else raw
    raw_or_none = encoded[part]
    size = len(text) if raw_or_none is None else len(raw_or_none)
    if not 0 <= start <= end <= size:
        problems.append(Problem("CA206", f"bytes {start}..{end} lie outside part {part}"
                                f" ({size} bytes)", path=f"{path}.{segment_key}"))
        return None
    decoded = byte_range(text, raw_or_none, start, end)
    if decoded is None:
        problems.append(Problem("CA206", f"bytes {start}..{end} cut a character of part"
                                f" {part} in half (offsets count UTF-8 bytes)",
                                path=f"{path}.{segment_key}"))
        return None
    low, covered = decoded
    if said is not None and said != covered:
        problems.append(Problem("CA206", f"bytes {start}..{end} of part {part} hold"
                                f" {covered[:40]!r}, not the segment's text {said[:40]!r}",
                                path=f"{path}.{segment_key}"))
        return None
    first = starts[part] + low
    last = first + len(covered)
    made = [Citation(f"chunk:{index}", None, (first, last), None,
                     f"{path}.{indices_key}[{at}]", location=_located(index))
            for at, index in enumerate(indices)]
    return first, max(last, first + 1), made
