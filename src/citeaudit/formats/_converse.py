"""AWS Bedrock Converse: a response's ``citationsContent`` blocks and their ``citations``,
audited against the documents and search results of its request.

Field names follow botocore's service model for ``bedrock-runtime`` (``ConverseResponse``,
``ContentBlock``, ``CitationsContentBlock``, ``Citation``, ``CitationLocation`` with
``documentChar``, ``documentPage``, ``documentChunk``, ``web`` and ``searchResultLocation``;
``DocumentBlock``, ``SearchResultBlock``, ``ToolResultContentBlock``). The model says only
"the index of the document within the array of documents provided in the request" and
"starting/ending position"; the units and bases below are those of the Anthropic citations
Converse passes through, and are not confirmed for other models:

* ``documentIndex`` counts the request's ``document`` blocks from 0 across messages (tool
  results' included); ``searchResultIndex`` counts its ``searchResult`` blocks (top level or
  in tool results) from 0, separately;
* ``documentChar``: 0-based characters of the document's text, end exclusive;
  ``documentPage``: 1-based pages, end exclusive; ``documentChunk`` and
  ``searchResultLocation``: 0-based blocks of the source's ``content``, end exclusive;
  ``sourceContent`` is the quoted text (its pieces joined), compared with the source there
  (CA204), and a range outside its source is CA205;
* ``web`` cites its ``url``: Converse lists no web results, so the pages cited stand for what
  the search found (sources without text). A known fault returns document (PDF) citations as
  ``web`` locations without a URL: such a citation is CA404, naming it.

Sources are named ``document:N`` and ``search_result:N``. A ``citationsContent`` block is one
cited range of the answer (its generated ``content`` texts); ``text`` blocks are split into
sentences that need citations under the claim policy, like free text. Documents given as
bytes are read as text when their ``format`` is a text one (txt, md, csv, html); a PDF's pages
are not known here: their page ranges are checked for order, their quotes are not.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterator
from types import MappingProxyType
from typing import Any

from citeaudit.core import (
    Answer,
    Citation,
    Location,
    Reading,
    Snapshot,
    Source,
    load_snapshot,
)
from citeaudit.formats._fields import Fields
from citeaudit.formats._openai import canonical_url
from citeaudit.formats._ranges import Cited, answer_of, as_list, plain

__all__ = ["BedrockConverseFormat"]

# A location's key: the family of source it cites, its unit, the field naming the source.
_LOCATED = {"documentChar": ("document", "char", "documentIndex"),
            "documentPage": ("document", "page", "documentIndex"),
            "documentChunk": ("document", "block", "documentIndex"),
            "searchResultLocation": ("search_result", "block", "searchResultIndex")}
_TEXT_FORMATS = frozenset(("txt", "md", "csv", "html"))
_CONTENT = "$.output.message.content"


class BedrockConverseFormat:
    """A Bedrock ``Converse`` response (boto3's dict or its JSON)."""

    name = "bedrock-converse"
    keys = ("output",)
    expects = "an AWS Bedrock Converse response (output.message with content blocks)"
    needs = (("output", dict), ("output.message", dict), ("output.message.content", list))

    def recognises(self, answer: object) -> bool:
        output = answer.get("output") if isinstance(answer, dict) else None
        message = output.get("message") if isinstance(output, dict) else None
        return isinstance(message, dict) and isinstance(message.get("content"), list)

    def snapshot(self, answer: object, sources: object) -> Snapshot:
        if isinstance(sources, Snapshot):
            return sources
        request = plain(sources)
        if isinstance(request, dict) and isinstance(request.get("messages"), list):
            found = list(_request_sources(request["messages"]))
        else:
            found = list(load_snapshot(sources).sources) if sources is not None else []
        known = {s.id for s in found} | {canonical_url(s.url) for s in found if s.url}
        for url in _web_urls(plain(answer)):
            if canonical_url(url) not in known:
                known.add(canonical_url(url))
                found.append(Source(canonical_url(url), "", url))
        return Snapshot(tuple(found))

    def parse(self, answer: object, reading: Reading) -> Answer:
        response = plain(answer)
        fields = Fields()
        output = fields.field(response, "output", dict, "$", "a response", needed=True)
        message = None if output is None else fields.field(
            output, "message", dict, "$.output", "the output", needed=True)
        blocks = [] if message is None else fields.items(
            message, "content", "$.output.message", "the message", needed=True)
        pieces: list[str] = []
        cited: Cited = []
        offset = 0
        for _, block, path in fields.objects(blocks, _CONTENT, "a content block"):
            text, made = _block(block, path, fields)
            if text is None:
                continue
            stripped = text.strip()  # a citation cites its block's text, trimmed
            if made and stripped:
                low = offset + text.index(stripped[0])
                span = (low, low + len(stripped))
                cited.append((*span, [Citation(c[0], None, span, *c[3:]) for c in made]))
            pieces.append(text)
            offset += len(text)
        return answer_of(self.name, "".join(pieces), cited, fields.problems, reading, _CONTENT,
                         ordered=True)


def _block(block: dict[str, Any], path: str, fields: Fields,
           ) -> tuple[str | None, list[Citation]]:
    """A content block's answer text (None: not text) and its citations."""
    if "text" in block:
        return fields.field(block, "text", str, path, "a text block"), []
    inner = fields.field(block, "citationsContent", dict, path, "a content block")
    if inner is None:
        return None, []  # tool use, reasoning, images: not answer text
    where = f"{path}.citationsContent"
    texts = []
    for _, piece, piece_path in fields.objects(
            fields.items(inner, "content", where, "a citations block", needed=True),
            f"{where}.content", "generated content"):
        text = fields.field(piece, "text", str, piece_path, "generated content", needed=True)
        texts.append(text or "")
    made = []
    for _, citation, cited_path in fields.objects(
            fields.items(inner, "citations", where, "a citations block"), f"{where}.citations",
            "a citation"):
        found = _citation(citation, cited_path, fields)
        if found is not None:
            made.append(found)
    return "".join(texts), made


def _citation(citation: dict[str, Any], path: str, fields: Fields) -> Citation | None:
    """The engine's citation for one Converse citation (None: it is broken, and a CA404 says
    why).
    """
    location = fields.field(citation, "location", dict, path, "a citation", needed=True)
    if location is None:
        return None
    where = f"{path}.location"
    web = fields.field(location, "web", dict, where, "a citation location")
    if web is not None:
        url = fields.field(web, "url", str, f"{where}.web", "a web location")
        if not url:
            fields.add(f"{where}.web.url", "a web location needs a string \"url\" (a document"
                       " citation returned as a web location names no source)")
            return None
        return Citation(canonical_url(url), None, None, None, path)
    key = next((k for k in _LOCATED if location.get(k) is not None), None)
    if key is None:
        fields.add(where, "a citation location needs one of web, " + ", ".join(_LOCATED))
        return None
    inner = fields.field(location, key, dict, where, "a citation location")
    if inner is None:
        return None
    family, unit, index_key = _LOCATED[key]
    found = fields.integers(inner, (index_key, "start", "end"), key, f"{where}.{key}")
    quoted = _quoted(citation, path, fields)
    if found is None or quoted is False:
        return None
    number, start, end = found
    label = f"{index_key} {number}"
    return Citation(f"{family}:{number}", None, None, None, path,
                    location=Location(unit, start, end, quoted if isinstance(quoted, str)
                                      else None, label))


def _quoted(citation: dict[str, Any], path: str, fields: Fields) -> str | bool | None:
    """The text a citation quotes (its ``sourceContent`` pieces joined; None: none); False
    where a piece is broken (a CA404 says so), so the quote cannot be checked.
    """
    pieces = fields.items(citation, "sourceContent", path, "a citation")
    texts = []
    for _, piece, where in fields.objects(pieces, f"{path}.sourceContent", "source content"):
        text = fields.field(piece, "text", str, where, "source content", needed=True)
        if text is None:
            return False
        texts.append(text)
    if len(texts) != len(pieces):
        return False
    return "".join(texts) if texts else None


def _web_urls(response: dict[str, Any]) -> Iterator[str]:
    """The URLs the response's web citations name."""
    output = response.get("output")
    message = output.get("message") if isinstance(output, dict) else None
    for block in as_list(message.get("content") if isinstance(message, dict) else None):
        inner = block.get("citationsContent") if isinstance(block, dict) else None
        for citation in as_list(inner.get("citations") if isinstance(inner, dict) else None):
            location = citation.get("location") if isinstance(citation, dict) else None
            web = location.get("web") if isinstance(location, dict) else None
            url = web.get("url") if isinstance(web, dict) else None
            if isinstance(url, str) and url:
                yield url


def _request_sources(messages: list[Any]) -> Iterator[Source]:
    """The request's documents and search results, numbered as Converse numbers them."""
    documents = results = 0
    for block in _blocks(messages):
        document = block.get("document")
        found = block.get("searchResult")
        if isinstance(document, dict):
            yield _document(document, documents)
            documents += 1
        elif isinstance(found, dict):
            yield _search_result(found, results)
            results += 1


def _blocks(messages: list[Any]) -> Iterator[dict[str, Any]]:
    """Every message's content blocks, and the blocks inside tool results, in order."""
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        for block in as_list(content):
            if not isinstance(block, dict):
                continue
            yield block
            result = block.get("toolResult")
            if isinstance(result, dict):
                yield from (b for b in as_list(result.get("content")) if isinstance(b, dict))


def _document(block: dict[str, Any], index: int) -> Source:
    given = block.get("source")
    source: dict[str, Any] = given if isinstance(given, dict) else {}
    kind = block.get("format")
    metadata: dict[str, Any] = {}
    text = source.get("text")
    if isinstance(source.get("content"), list):
        blocks = tuple(b["text"] for b in source["content"]
                       if isinstance(b, dict) and isinstance(b.get("text"), str))
        metadata["blocks"] = blocks
        text = "".join(blocks)
    elif not isinstance(text, str):
        text = _decoded(source.get("bytes")) if kind in _TEXT_FORMATS else None
        if text is None:
            metadata["pdf"] = kind if isinstance(kind, str) else "unknown"
    if isinstance(block.get("context"), str):
        metadata["context"] = block["context"]
    name = block.get("name")
    return Source(f"document:{index}", text or "", None,
                  name if isinstance(name, str) and name else None, None, None,
                  MappingProxyType(metadata))


def _decoded(data: Any) -> str | None:
    """A text document's bytes (boto3's) or their base64 (the JSON's), as text."""
    try:
        raw = data if isinstance(data, bytes) else base64.b64decode(data, validate=True) \
            if isinstance(data, str) else None
        return raw.decode("utf-8") if raw is not None else None
    except (binascii.Error, UnicodeDecodeError):
        return None


def _search_result(block: dict[str, Any], index: int) -> Source:
    blocks = tuple(b["text"] for b in as_list(block.get("content"))
                   if isinstance(b, dict) and isinstance(b.get("text"), str))
    origin = block.get("source")
    url = origin if isinstance(origin, str) and origin.startswith(("http://", "https://")) \
        else None
    title = block.get("title")
    return Source(f"search_result:{index}", "".join(blocks), url,
                  title if isinstance(title, str) and title else None, None, None,
                  MappingProxyType({"blocks": blocks, "source": origin}))
