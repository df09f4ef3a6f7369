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

from citeaudit.core._answer import Answer, Citation, Location, Reading
from citeaudit.core._findings import Problem
from citeaudit.core._native import compiled
from citeaudit.core._sources import NO_METADATA, Snapshot, Source, load_snapshot
from citeaudit.formats._ranges import Cited, answer_of, as_list, plain

__all__ = ["GeminiFormat"]


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
_read = compiled("citeaudit.formats._readers")  # parse's loop, compiled (None: pure)



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
        metadata, _ = _get(_candidate(plain(answer)), "grounding_metadata")
        chunks, _ = _get(metadata, "grounding_chunks")
        read = _read.gemini_chunks(chunks, Source, NO_METADATA) if _read is not None and \
            type(chunks) is list else None
        found = tuple(read) if read is not None else tuple(
            _chunk(chunk, index) for index, chunk in enumerate(as_list(chunks)))
        if sources is None:
            return Snapshot(found)
        given = load_snapshot(sources)
        return Snapshot(given.sources + found, ids_from=given.ids_from) if found else given

    def parse(self, answer: object, reading: Reading) -> Answer:
        candidate = _candidate(plain(answer))
        if _read is not None and type(candidate) is dict and (
                read := _read.gemini_answer(candidate, _located)) is not None:
            return answer_of(self.name, read[0], read[1], [], reading)
        content, _ = _get(candidate, "content")
        texts = [part.get("text") if isinstance(part, dict) else None
                 for part in as_list(_get(content, "parts")[0])]
        starts: list[int] = []  # each part's first character in the answer text
        offset = 0
        for text in texts:
            starts.append(offset)
            offset += len(text) if isinstance(text, str) else 0
        whole = "".join(t for t in texts if isinstance(t, str))
        problems: list[Problem] = []
        cited: Cited = []
        metadata, metadata_key = _get(candidate, "grounding_metadata")
        supports, supports_key = _get(metadata, "grounding_supports")
        base = f"$.candidates[0].{metadata_key}.{supports_key}"
        encoded: dict[int, bytes | None] = {}  # each part's UTF-8 (None: ASCII, bytes = chars)
        for at, support in enumerate(as_list(supports)):
            found = _support(support, f"{base}[{at}]", (texts, starts, encoded), problems)
            if found is not None:
                cited.append(found)
        return answer_of(self.name, whole, cited, problems, reading)


def _candidate(response: Any) -> Any:
    candidates, _ = _get(response, "candidates")
    first = as_list(candidates)[:1]
    return first[0] if first and isinstance(first[0], dict) else {}


def _chunk(chunk: Any, index: int) -> Source:
    web = chunk.get("web") if isinstance(chunk, dict) else None
    context = None if isinstance(web, dict) else _get(chunk, "retrieved_context")[0]
    found = web if isinstance(web, dict) else context if isinstance(context, dict) else {}
    uri, title, text = found.get("uri"), found.get("title"), found.get("text")
    return tuple.__new__(Source, (f"chunk:{index}", text if isinstance(text, str) else "",
                                  uri if isinstance(uri, str) else None,
                                  title if isinstance(title, str) and title else None,
                                  None, None, NO_METADATA))


@functools.lru_cache(maxsize=1024)  # bounded: the indices come from the response
def _located(index: int) -> Location:
    """Where a citation of grounding chunk ``index`` points (one per index, shared)."""
    return Location("source", 0, 0, None, f"grounding chunk {index}")


def _support(support: Any, path: str,
             parts: tuple[list[Any], list[int], dict[int, bytes | None]],
             problems: list[Problem]) -> tuple[int, int, list[Citation]] | None:
    """One grounding support as a cited range of the answer (None: it is broken, and a
    finding says why). ``parts``: each part's text, its first character in the answer, and
    its UTF-8 encoding once needed.
    """
    texts, starts, encoded = parts
    camel = isinstance(support, dict) and "groundingChunkIndices" in support
    segment_key, indices_key, end_key = _SUPPORT_KEYS[camel]
    segment = support.get("segment") if isinstance(support, dict) else None
    indices = support.get(indices_key) if isinstance(support, dict) else None
    if not isinstance(segment, dict) or not isinstance(indices, list) or not \
            {*map(type, indices)} <= _INT:  # integers (bools are not)
        problems.append(Problem("CA404", "a grounding support needs a segment and a list of"
                                " chunk indices", path=path))
        return None
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
    where = f"{path}.{segment_key}"
    if not 0 <= part < len(texts) or not isinstance(texts[part], str):
        problems.append(Problem("CA206", f"part_index {part} names no text part (the answer"
                                f" has {len(texts)} parts)", path=where))
        return None
    text = texts[part]
    if part not in encoded:
        raw = text.encode("utf-8")
        encoded[part] = None if len(raw) == len(text) else raw
    raw_or_none = encoded[part]
    size = len(text) if raw_or_none is None else len(raw_or_none)
    if not 0 <= start <= end <= size:
        problems.append(Problem("CA206", f"bytes {start}..{end} lie outside part {part}"
                                f" ({size} bytes)", path=where))
        return None
    if raw_or_none is None:  # ASCII: a byte is a character
        low, covered = start, text[start:end]
    else:
        try:
            low = len(raw_or_none[:start].decode("utf-8"))
            covered = raw_or_none[start:end].decode("utf-8")
        except UnicodeDecodeError:
            problems.append(Problem("CA206", f"bytes {start}..{end} cut a character of part"
                                    f" {part} in half (offsets count UTF-8 bytes)", path=where))
            return None
    said, _ = _get(segment, "text")
    if isinstance(said, str) and said != covered:
        problems.append(Problem("CA206", f"bytes {start}..{end} of part {part} hold"
                                f" {covered[:40]!r}, not the segment's text {said[:40]!r}",
                                path=where))
        return None
    first = starts[part] + low
    last = first + len(covered)
    new = tuple.__new__
    made = [new(Citation, (f"chunk:{index}", None, (first, last), None,
                           f"{path}.{indices_key}[{at}]", None, None, _located(index)))
            for at, index in enumerate(indices)]
    return first, max(last, first + 1), made
