"""Gemini Interactions API: an interaction's last ``model_output`` step, whose text contents
carry ``annotations``, audited against what the interaction's steps retrieved and the sources
the application passes.

Field names follow the ``google-genai`` SDK's types (``Interaction``, ``ModelOutputStep``,
``TextContent``, ``URLCitation``, ``FileCitation``, ``PlaceCitation``; the results of
``url_context_result`` and ``google_maps_result`` steps):

* an annotation's ``start_index``/``end_index`` count **UTF-8 bytes** of the text content it
  annotates (start inclusive, 0 when absent as proto3 JSON leaves zeros out; end exclusive),
  as in ``generateContent``; they are decoded to characters, and one that cuts a character
  in half, or lies outside its text, is CA206;
* ``url_citation`` names a ``url`` (matched like OpenAI's: scheme and host lower case, no
  fragment, no ``utm_*``); ``file_citation`` its ``document_uri`` (else ``file_name``, else
  ``source``); ``place_citation`` its ``place_id`` (else ``url``). None quotes the source, so
  there is no quote to compare. Other annotation types (``word_info``,
  ``speech_metadata``, and types the SDK does not know yet: the union is open) are not
  citations;
* the snapshot is the ``sources`` given, then what the steps retrieved: the URLs of
  ``url_context_result`` steps and the places of ``google_maps_result`` steps (their
  ``place_id``, name and URL). A ``google_search_result`` or ``file_search_result`` step lists
  no results (only search suggestions), so where the interaction ran one, the pages and files
  its annotations cite stand for what it found (as sources without text). Any other cited
  id outside the snapshot is unknown (CA201).

Earlier ``model_output`` steps are the model's words before it called a tool; the last one is
the answer. Its text contents are joined in order.
"""

from __future__ import annotations

from typing import Any

from citeaudit.core import Answer, Citation, Problem, Reading, Snapshot, Source
from citeaudit.formats._fields import Fields, source_field, source_items
from citeaudit.formats._gemini import byte_range
from citeaudit.formats._openai import canonical_url, url_index, with_retrieved
from citeaudit.formats._ranges import Cited, answer_of, as_list, plain

__all__ = ["GeminiInteractionsFormat"]

# The annotation types that cite, and the fields that name what each cites, in order.
_TARGETS = {"url_citation": ("url",),
            "file_citation": ("document_uri", "file_name", "source"),
            "place_citation": ("place_id", "url")}
# Search steps that list no results: the citations name what they found.
_UNLISTED = {"google_search_result": "url_citation", "file_search_result": "file_citation"}


class GeminiInteractionsFormat:
    """A Gemini Interactions API interaction (JSON or the SDK's ``Interaction``)."""

    name = "gemini-interactions"
    keys = ("steps",)
    expects = "a Gemini interaction (an object with status and steps)"
    needs = (("status", str), ("steps", list))

    def recognises(self, answer: object) -> bool:
        if isinstance(answer, dict):
            return isinstance(answer.get("steps"), list) and (
                "status" in answer or answer.get("object") == "interaction")
        return hasattr(answer, "model_dump") and hasattr(answer, "steps") and \
            hasattr(answer, "status")

    def snapshot(self, answer: object, sources: object) -> Snapshot:
        if isinstance(sources, Snapshot):
            return sources
        return with_retrieved(sources, _retrieved(plain(answer)))

    def parse(self, answer: object, reading: Reading) -> Answer:
        response = plain(answer)
        fields = Fields()
        steps = fields.items(response, "steps", "$", "an interaction", needed=True)
        last: tuple[dict[str, Any], str] | None = None
        for _, step, path in fields.objects(steps, "$.steps", "a step"):
            if fields.field(step, "type", str, path, "a step", needed=True) == "model_output":
                last = step, path
        if last is None:
            if not fields.problems:
                fields.add("$.steps", "an interaction needs a model_output step")
            return answer_of(self.name, "", [], fields.problems, reading, "$.steps")
        step, path = last
        urls = url_index(reading.snapshot)
        pieces: list[str] = []
        cited: Cited = []
        offset = 0
        contents = fields.items(step, "content", path, "a model_output step", needed=True)
        for at, content, where in fields.objects(contents, f"{path}.content", "a content item"):
            if fields.field(content, "type", str, where, "a content item", needed=True) != \
                    "text":
                continue  # images, audio: not answer text
            text = fields.field(content, "text", str, where, "a text content", needed=True)
            if text is None:
                continue
            raw = text.encode("utf-8")
            encoded = None if len(raw) == len(text) else raw
            notes = fields.items(content, "annotations", where, "a text content")
            for _, note, note_path in fields.objects(notes, f"{where}.annotations",
                                                     "an annotation"):
                found = _annotation(note, note_path, (text, encoded, at, offset), urls, fields)
                if found is not None:
                    cited.append(found)
            pieces.append(text)
            offset += len(text)
        return answer_of(self.name, "".join(pieces), cited, fields.problems, reading,
                         f"{path}.content")


def _annotation(note: dict[str, Any], path: str,
                content: tuple[str, bytes | None, int, int], urls: dict[str, str],
                fields: Fields) -> tuple[int, int, list[Citation]] | None:
    """One annotation of a text content (its text, UTF-8 when not ASCII, place and first
    character in the answer) as a cited range of the answer; None: not a citation, or broken
    (and a finding says why).
    """
    kind = fields.field(note, "type", str, path, "an annotation", needed=True)
    if kind not in _TARGETS:
        return None  # word_info, speech_metadata, types yet unknown: no citation
    target = _target(note, kind, path, fields)
    if target is None:
        return None
    if note.get("start_index") is None:
        note = {**note, "start_index": 0}  # proto3 JSON leaves a zero out
    written = fields.integers(note, ("start_index", "end_index"), kind, path)
    if written is None:
        return None
    start, end = written
    text, encoded, at, offset = content
    size = len(text) if encoded is None else len(encoded)
    if not 0 <= start <= end <= size:
        fields.problems.append(Problem("CA206", f"{kind} bytes {start}..{end} lie outside"
                                       f" text content {at} ({size} bytes)", path=path))
        return None
    decoded = byte_range(text, encoded, start, end)
    if decoded is None:
        fields.problems.append(Problem("CA206", f"{kind} bytes {start}..{end} cut a character"
                                       f" of text content {at} in half (offsets count UTF-8"
                                       " bytes)", path=path))
        return None
    low, covered = decoded
    first, last = offset + low, offset + low + len(covered)
    source_id = urls.get(target) or urls.get(canonical_url(target)) or (
        canonical_url(target) if kind == "url_citation" else target)
    made = [Citation(source_id, None, (first, last), None, path)]
    return first, max(last, first + 1), made


def _target(note: dict[str, Any], kind: str, path: str, fields: Fields) -> str | None:
    """What an annotation cites: the first of its kind's naming fields that is given (None,
    with a CA404, when none is).
    """
    names = _TARGETS[kind]
    for name in names:
        value = fields.field(note, name, str, path, kind)
        if value:
            return str(value)
        if note.get(name) is not None:
            return None  # of another type: CA404 already
    fields.add(f"{path}.{names[0]}", f"{kind} needs a string " +
               " or ".join(f'"{name}"' for name in names))
    return None


def _retrieved(response: dict[str, Any]) -> list[Source]:
    """What the interaction's steps retrieved: fetched URLs, places found, and, for searches
    that list no results, what the annotations cite (a :class:`SnapshotError` where a result
    breaks its shape).
    """
    found: list[Source] = []
    unlisted: set[str] = set()
    for index, step in enumerate(as_list(response.get("steps"))):
        kind = step.get("type") if isinstance(step, dict) else None
        kind = kind if isinstance(kind, str) else None  # of another type: the answer's CA404
        path = f"$.steps[{index}]"
        if kind in _UNLISTED:
            unlisted.add(_UNLISTED[kind])
        elif kind == "url_context_result":
            for _, result, where in source_items(step, "result", path, "a url_context_result"
                                                 " step", "a URL context result"):
                url = source_field(result, "url", str, where, "a URL context result")
                if url:
                    found.append(Source(canonical_url(url), "", url))
        elif kind == "google_maps_result":
            for _, result, where in source_items(step, "result", path, "a google_maps_result"
                                                 " step", "a Google Maps result"):
                found += _places(result, where)
    return found + _cited(response, unlisted) if unlisted else found


def _places(result: dict[str, Any], path: str) -> list[Source]:
    found = []
    for _, place, where in source_items(result, "places", path, "a Google Maps result",
                                        "a place"):
        place_id = source_field(place, "place_id", str, where, "a place", needed=True)
        name = source_field(place, "name", str, where, "a place")
        url = source_field(place, "url", str, where, "a place")
        found.append(Source(place_id, "", url or None, name or None))
    return found


def _cited(response: dict[str, Any], kinds: set[str]) -> list[Source]:
    """The pages or files the last answer's annotations of ``kinds`` cite, as sources
    without text.
    """
    found: dict[str, Source] = {}
    for step in as_list(response.get("steps")):
        if not isinstance(step, dict) or step.get("type") != "model_output":
            continue
        for content in as_list(step.get("content")):
            for note in as_list(content.get("annotations") if isinstance(content, dict)
                                else None):
                kind = note.get("type") if isinstance(note, dict) else None
                if not isinstance(kind, str) or kind not in kinds:
                    continue
                target = next((note[n] for n in _TARGETS[kind]
                               if isinstance(note.get(n), str) and note[n]), None)
                if target is None:
                    continue  # the answer's CA404
                title = note.get("title") if kind == "url_citation" else note.get("file_name")
                source_id = canonical_url(target) if kind == "url_citation" else target
                found.setdefault(source_id, Source(
                    source_id, "", target if kind == "url_citation" else None,
                    title if isinstance(title, str) and title else None))
    return list(found.values())
