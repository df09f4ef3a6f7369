"""AWS Bedrock knowledge bases: a ``RetrieveAndGenerate`` response, whose ``citations`` carry
both the cited part of the answer and the references retrieved for it.

Field names follow botocore's service model for ``bedrock-agent-runtime``
(``RetrieveAndGenerateResponse``, ``Citation``, ``GeneratedResponsePart``,
``TextResponsePart``, ``Span``, ``RetrievedReference``, ``RetrievalResultLocation``):

* ``textResponsePart.span`` gives the first and the **last** character of ``text`` in
  ``output.text`` (end inclusive: the model only says "where the text ends"; recorded
  responses have ``text == output.text[start:end + 1]``), so a span outside the answer or over
  other text than ``text`` is CA206;
* the references are the snapshot, after any sources given: one source per chunk, named by
  its ``x-amz-bedrock-kb-chunk-id`` metadata when present, else by its location (the S3 URI,
  web URL, or the location's other URL or id; else ``reference:`` and a hash of its text),
  with the chunk's text.

A sentence a span overlaps is cited by its references; the other sentences follow the claim
policy, like free text.
"""

from __future__ import annotations

import hashlib
from types import MappingProxyType
from typing import Any

from citeaudit.core import (
    Answer,
    Citation,
    Problem,
    Reading,
    Snapshot,
    Source,
    kind_of,
    load_snapshot,
)
from citeaudit.errors import SnapshotError
from citeaudit.formats._fields import Fields, source_field, source_items
from citeaudit.formats._ranges import Cited, answer_of, as_list, plain

__all__ = ["BedrockFormat"]

_CHUNK_ID = "x-amz-bedrock-kb-chunk-id"
_PART = ".generatedResponsePart.textResponsePart"


class BedrockFormat:
    """A Bedrock ``RetrieveAndGenerate`` response (boto3's dict or its JSON)."""

    name = "bedrock"
    keys = ("citations",)
    expects = "an AWS Bedrock RetrieveAndGenerate response (output.text and citations)"
    needs = (("output", dict), ("output.text", str), ("citations", list))

    def recognises(self, answer: object) -> bool:
        if not isinstance(answer, dict) or not isinstance(answer.get("citations"), list):
            return False
        output = answer.get("output")
        return isinstance(output, dict) and isinstance(output.get("text"), str)

    def snapshot(self, answer: object, sources: object) -> Snapshot:
        if isinstance(sources, Snapshot):
            return sources
        given = load_snapshot(sources) if sources is not None else None
        known = {s.id for s in given.sources} if given is not None else set()
        citations = plain(answer).get("citations")
        found = _retrieved(citations, known)
        if given is None:
            return Snapshot(tuple(found))
        return Snapshot(given.sources + tuple(found), ids_from=given.ids_from) if found \
            else given

    def parse(self, answer: object, reading: Reading) -> Answer:
        response = plain(answer)
        fields = Fields()
        output = fields.field(response, "output", dict, "$", "a response", needed=True)
        text = None if output is None else fields.field(output, "text", str, "$.output",
                                                        "the output", needed=True)
        given = fields.items(response, "citations", "$", "a response")
        if text is None:
            return answer_of(self.name, "", [], fields.problems, reading, "$.output.text")
        cited: Cited = []
        for at in range(len(given)):
            citation = fields.object_at(given, at, "$.citations", "a citation")
            if citation is None:
                continue
            found = _citation(citation, f"$.citations[{at}]", text, fields)
            if found is not None:
                cited.append(found)
        return answer_of(self.name, text, cited, fields.problems, reading, "$.output.text")


def _retrieved(citations: Any, known: set[str]) -> list[Source]:
    """The chunks the citations retrieved, once each and not among ``known``, as sources (a
    :class:`SnapshotError` where one breaks its shape).
    """
    found: list[Source] = []
    for at, citation in enumerate(as_list(citations)):
        if not isinstance(citation, dict):
            continue  # the answer's CA404
        references = citation.get("retrievedReferences")
        if type(references) is not list:  # absent, or read with its checks
            references = [reference for _, reference, _ in source_items(
                citation, "retrievedReferences", f"$.citations[{at}]", "a citation",
                "a retrieved reference")]
        for place in range(len(references)):
            reference = references[place]
            if not _plain(reference):  # the common shape checked at once, else field by field
                _checked(references, place, f"$.citations[{at}].retrievedReferences[{place}]")
            source_id = _source_id(reference)
            if source_id not in known:  # a chunk cited again: read once
                known.add(source_id)
                found.append(_source(source_id, reference))
    return found


def _plain(reference: Any) -> bool:
    """Whether ``reference`` is an object whose fields a source is made of have their types
    exactly (JSON's): what :func:`_checked` would find nothing wrong with.
    """
    if type(reference) is not dict:
        return False
    content = reference.get("content")
    metadata = reference.get("metadata")
    location = reference.get("location")
    return (content is None or (type(content) is dict and (
        (text := content.get("text")) is None or type(text) is str))) and (
        metadata is None or (type(metadata) is dict and (
            (chunk := metadata.get(_CHUNK_ID)) is None or type(chunk) is str))) and (
        location is None or type(location) is dict)


def _checked(references: list[Any], place: int, path: str) -> None:
    """A :class:`SnapshotError` where reference ``place`` of ``references`` (at ``path``), or
    a field its source is made of, breaks its shape.
    """
    reference = references[place]
    if not isinstance(reference, dict):
        raise SnapshotError(f"a retrieved reference must be an object, not"
                            f" {kind_of(reference)}", origin="<answer>", place=path)
    content = source_field(reference, "content", dict, path, "a retrieved reference")
    if content is not None:
        source_field(content, "text", str, f"{path}.content", "a reference's content")
    metadata = source_field(reference, "metadata", dict, path, "a retrieved reference")
    if metadata is not None:
        source_field(metadata, _CHUNK_ID, str, f"{path}.metadata", "a reference's metadata")
    source_field(reference, "location", dict, path, "a retrieved reference")


def _references(citation: Any) -> list[dict[str, Any]]:
    found = citation.get("retrievedReferences") if isinstance(citation, dict) else None
    return [r for r in as_list(found) if isinstance(r, dict)]


def _where(reference: dict[str, Any]) -> str | None:
    """A reference's location as one string: the URI, URL or id its location gives."""
    location = reference.get("location")
    for value in (location.values() if isinstance(location, dict) else ()):
        if isinstance(value, dict):
            for key in ("uri", "url", "id"):
                if isinstance(value.get(key), str) and value[key]:
                    return str(value[key])
    return None


def _source_id(reference: dict[str, Any]) -> str:
    """The chunk id; else the location; else a name drawn from the reference's text."""
    metadata = reference.get("metadata")
    chunk = metadata.get(_CHUNK_ID) if isinstance(metadata, dict) else None
    if isinstance(chunk, str) and chunk:
        return chunk
    content = reference.get("content")
    text = content.get("text") if isinstance(content, dict) else None
    return _where(reference) or "reference:" + hashlib.sha256(
        str(text).encode()).hexdigest()[:12]


def _source(source_id: str, reference: dict[str, Any]) -> Source:
    content = reference.get("content")
    text = content.get("text") if isinstance(content, dict) else None
    where = _where(reference)
    metadata = reference.get("metadata")
    return Source(source_id, text if isinstance(text, str) else "",
                  where if where and where.startswith(("http://", "https://")) else None,
                  None, None, None, MappingProxyType(
                      {"location": where, **(metadata if isinstance(metadata, dict) else {})}))


def _said(problems: list[Problem], prefix: str) -> bool:
    """Whether a problem is said at ``prefix`` or under it."""
    return any(problem.path and problem.path.startswith(prefix) for problem in problems)


def _citation(citation: dict[str, Any], path: str, text: str, fields: Fields,
              ) -> tuple[int, int, list[Citation]] | None:
    """One citation as a cited range of the answer (None: it cites nothing, or it is broken
    and a finding says why).
    """
    problems = fields.problems
    where = f"{path}{_PART}"
    generated = fields.field(citation, "generatedResponsePart", dict, path, "a citation")
    part = None if generated is None else fields.field(
        generated, "textResponsePart", dict, f"{path}.generatedResponsePart",
        "a generated response part")
    span = None if part is None else fields.field(part, "span", dict, where,
                                                  "a text response part")
    if span is None or part is None:
        if not _said(problems, f"{path}."):
            problems.append(Problem("CA404", "a citation needs generatedResponsePart."
                                    "textResponsePart.span", path=f"{where}.span"))
        return None
    said = fields.field(part, "text", str, where, "a text response part")
    if said is None and part.get("text") is not None:
        return None  # of another type: its text cannot be compared
    found = fields.integers(span, ("start", "end"), "a span", f"{where}.span")
    if found is None:
        return None
    start, end = found
    if not 0 <= start <= end < len(text):
        problems.append(Problem("CA206", f"span {start}..{end} lies outside the answer text"
                                f" ({len(text)} characters; the end is its last character)",
                                path=f"{where}.span"))
        return None
    covered = text[start:end + 1]
    if said is not None and said != covered:
        problems.append(Problem("CA206", f"span {start}..{end} holds {covered[:40]!r}, not"
                                f" the part's text {said[:40]!r}", path=f"{where}.text"))
        return None
    span = (start, end + 1)
    made = [Citation(_source_id(reference), None, span, None,
                     f"{path}.retrievedReferences[{at}]")
            for at, reference in enumerate(_references(citation))]
    return (start, end + 1, made) if made else None
