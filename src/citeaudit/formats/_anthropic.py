"""Anthropic Messages: a response's text blocks and their ``citations``, audited against the
documents and search results of its request.

Field names, index bases and units follow the ``anthropic`` SDK's types (``TextBlock``,
``CitationCharLocation``, ``CitationPageLocation``, ``CitationContentBlockLocation``,
``CitationsSearchResultLocation``, ``CitationsWebSearchResultLocation``):

* ``document_index`` counts the request's ``document`` blocks from 0, in the order they appear
  across messages; ``search_result_index`` counts ``search_result`` blocks (top level or inside
  ``tool_result`` content) from 0, separately;
* ``char_location``: 0-based characters of the document's text, end exclusive;
  ``page_location``: 1-based pages, end exclusive; ``content_block_location`` and
  ``search_result_location``: 0-based blocks of the source's ``content``, end exclusive, and
  ``cited_text`` is those blocks' text concatenated;
* ``web_search_result_location`` cites a ``url`` that must be among the
  ``web_search_tool_result`` blocks of the same response (its ``cited_text`` is not checked:
  the page text is not in the response);
* a ``web_fetch_tool_result`` (the ``web_fetch_*`` tools) holds the fetched page as a
  ``document`` block; with its ``citations`` enabled, the answer cites it by ``char_location``
  (or ``page_location`` for a PDF) like a document sent. The SDK does not say how such a
  document is numbered; here ``document_index`` counts it among the documents in the order
  they appear: the request's (fetches of earlier turns included, where they stand in the
  conversation), then the response's fetches. A fetch that failed (an error object) is no
  document.

Sources are named ``document:N``, ``search_result:N`` (the provider's numbers) and, for web
results, their URL. A text block with citations is one claim; text blocks without citations
are split into sentences that need citations under the claim policy, like free text. PDF
documents (base64, URL or file sources) have no text here: their page ranges are checked for
order, their quotes are not. A response with no text (``content`` empty, or tool use only) is
CA404, unless its ``stop_reason`` is ``"refusal"``: the model declined, a refusal.
"""

from __future__ import annotations

from collections.abc import Iterator
from types import MappingProxyType
from typing import Any

from citeaudit.core import (
    NO_METADATA,
    Answer,
    Citation,
    Location,
    Reading,
    Snapshot,
    Source,
)
from citeaudit.errors import SnapshotError
from citeaudit.formats._fields import Fields, source_field, source_items
from citeaudit.formats._ranges import Cited, answer_of, as_list, plain

__all__ = ["AnthropicFormat"]

_RANGE = {"char": ("start_char_index", "end_char_index"),
          "page": ("start_page_number", "end_page_number"),
          "block": ("start_block_index", "end_block_index")}
# A located citation's type: the family of source it cites, its unit, its integer fields.
_LOCATED = {kind: (family, unit, (f"{family}_index", *_RANGE[unit])) for kind, family, unit in (
    ("char_location", "document", "char"), ("page_location", "document", "page"),
    ("content_block_location", "document", "block"),
    ("search_result_location", "search_result", "block"))}


class AnthropicFormat:
    """An Anthropic Messages response (a JSON object or the SDK's ``Message``)."""

    name = "anthropic"
    keys = ("content",)
    expects = "an Anthropic Messages response (type \"message\" with content blocks)"
    needs = (("type", "message"), ("content", list))

    def recognises(self, answer: object) -> bool:
        if isinstance(answer, dict):
            return answer.get("type") == "message" and isinstance(answer.get("content"), list)
        return hasattr(answer, "model_dump") and getattr(answer, "type", None) == "message" \
            and hasattr(answer, "content")

    def snapshot(self, answer: object, sources: object) -> Snapshot:
        if isinstance(sources, Snapshot):
            return sources  # built already (the command line builds it to name its file)
        request = plain(sources)
        if not isinstance(request, dict) or not isinstance(request.get("messages"), list):
            raise SnapshotError("an Anthropic response is audited against its request: an"
                                " object with \"messages\" (the documents it sent)",
                                origin="<snapshot>", place="$.messages")
        found = list(_request_sources(request))
        content = as_list(plain(answer).get("content"))
        documents = sum(1 for s in found if s.id.startswith("document:"))
        found += [_document(block, documents + at) for at, block in enumerate(
            _fetched(content))]
        searched = [block for block in content
                    if isinstance(block, dict) and block.get("type") == "web_search_tool_result"]
        web = _web_results(content) if searched else []
        if not web:
            return Snapshot(tuple(found))  # documents and search results: numbered, unique
        found += web
        unique = {source.id: source for source in reversed(found)}  # a URL found twice: once
        return Snapshot(tuple(s for s in found if unique.get(s.id) is s))

    def parse(self, answer: object, reading: Reading) -> Answer:
        return _parsed(self.name, plain(answer), reading)


def _parsed(name: str, response: dict[str, Any], reading: Reading) -> Answer:
    """The answer of a response: its text blocks, each with citations a cited range."""
    fields = Fields()
    declined = fields.field(response, "stop_reason", str, "$", "a response") == "refusal"
    pieces: list[str] = []
    cited: Cited = []  # a cited block's range, citations
    offset = 0
    blocks = fields.items(response, "content", "$", "a response", needed=True)
    for index in range(len(blocks)):
        item = blocks[index]
        if type(item) is not dict:
            if fields.value(item, dict, f"$.content[{index}]", "a content block") is None:
                continue
            item = dict(item)  # a subclass of dict: read as one
        block = item
        kind = block.get("type")
        if type(kind) is not str:
            kind = fields.field(block, "type", str, f"$.content[{index}]", "a content block",
                                needed=True)
        if kind != "text":
            continue  # tool use, thinking, web search results: not answer text
        written = block.get("text")
        if type(written) is not str:
            written = fields.field(block, "text", str, f"$.content[{index}]", "a text block",
                                   needed=True)
            if written is None:
                continue
            written = str.__str__(written)  # a subclass of str: read as one
        text = written
        pieces.append(text)
        given = block.get("citations")
        if given is not None and type(given) is not list:
            given = fields.field(block, "citations", list, f"$.content[{index}]",
                                 "a text block")
        if given:  # most blocks cite nothing
            found = _cited(text, offset, given, f"$.content[{index}].citations", fields)
            if found is not None:
                cited.append(found)
        offset += len(text)
    return answer_of(name, "".join(pieces), cited, fields.problems, reading,
                     "$.content", ordered=True,  # each range after the one before
                     declined=declined)


def _cited(text: str, offset: int, given: list[Any], path: str, fields: Fields,
           ) -> tuple[int, int, list[Citation]] | None:
    """A text block's ``citations`` (at ``path``) as its cited range: the block's text,
    trimmed (``str.strip()``), at ``offset`` in the answer (None: none is left, or no text).
    """
    size = len(text)
    lead = 0
    while lead < size and text[lead].isspace():
        lead += 1
    tail = size
    while tail > lead and text[tail - 1].isspace():
        tail -= 1
    low = offset + (lead if lead < size else 0)
    span = (low, low + tail - lead)
    made = []
    for at in range(len(given)):
        found = _citation(given[at], f"{path}[{at}]", span, fields)
        if found is not None:
            made.append(found)
    return (low, span[1], made) if made and tail > lead else None


def _web_results(content: list[Any]) -> list[Source]:
    """The results of the response's web searches, as sources named by their URL (a
    :class:`SnapshotError` where one breaks its shape).
    """
    found = []
    for index, block in enumerate(content):
        if not isinstance(block, dict) or block.get("type") != "web_search_tool_result" or \
                isinstance(block.get("content"), dict):  # the search failed: an error object
            continue
        for _, result, path in source_items(block, "content", f"$.content[{index}]",
                                            "a web search result block", "a web search result"):
            url = source_field(result, "url", str, path, "a web search result", needed=True)
            found.append(Source(url, "", url, _text_or_none(result.get("title"))))
    return found


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _request_sources(request: dict[str, Any]) -> Iterator[Source]:
    """The request's documents and search results, numbered as the API numbers them."""
    documents = results = 0
    for message in as_list(request.get("messages")):
        if not isinstance(message, dict):
            continue
        for block in _blocks(message.get("content")):
            kind = block.get("type")
            if kind == "document":
                yield _document(block, documents)
                documents += 1
            elif kind == "web_fetch_tool_result":  # a page an earlier turn fetched
                for fetched in _fetched([block]):
                    yield _document(fetched, documents)
                    documents += 1
            elif kind == "search_result":
                yield _search_result(block, results)
                results += 1


def _fetched(content: list[Any]) -> Iterator[dict[str, Any]]:
    """The documents of the ``web_fetch_tool_result`` blocks among ``content``, in order,
    each with its page's URL (a failed fetch holds an error object, and no document).
    """
    for block in content:
        if not isinstance(block, dict) or block.get("type") != "web_fetch_tool_result":
            continue
        result = block.get("content")
        document = result.get("content") if isinstance(result, dict) and \
            result.get("type") == "web_fetch_result" else None
        if isinstance(document, dict):
            url = result.get("url") if isinstance(result, dict) else None
            yield {**document, "url": url} if isinstance(url, str) else document


def _blocks(content: Any) -> Iterator[dict[str, Any]]:
    """Content blocks, and the blocks inside tool results, in order."""
    for block in as_list(content):
        if not isinstance(block, dict):
            continue
        yield block
        if block.get("type") == "tool_result":
            yield from (inner for inner in as_list(block.get("content"))
                        if isinstance(inner, dict))


def _document(block: dict[str, Any], index: int) -> Source:
    source = block.get("source")
    source = source if isinstance(source, dict) else {}
    kind = source.get("type")
    if kind == "text" and isinstance(data := source.get("data"), str) and \
            "context" not in block and "url" not in block:  # the common case, cheaply
        return Source(f"document:{index}", data, None, _text_or_none(block.get("title")),
                      None, None, NO_METADATA)
    metadata: dict[str, Any] = {}
    text = ""
    url = source.get("url") if kind == "url" and isinstance(source.get("url"), str) else \
        block.get("url") if isinstance(block.get("url"), str) else None  # a fetched page's
    if kind == "text" and isinstance(source.get("data"), str):
        text = source["data"]
    elif kind == "content":
        inner = source.get("content")
        blocks = (inner,) if isinstance(inner, str) else tuple(
            b.get("text", "") for b in as_list(inner) if isinstance(b, dict)
            and b.get("type") == "text" and isinstance(b.get("text"), str))
        metadata["blocks"] = blocks
        text = "".join(blocks)
    else:
        metadata["pdf"] = kind or "unknown"  # base64, url or file: no text here
    if isinstance(block.get("context"), str):
        metadata["context"] = block["context"]
    title = _text_or_none(block.get("title"))
    if not metadata:  # a text document: nothing more to keep (a fetched page: its URL)
        return Source(f"document:{index}", text, url, title)
    return Source(f"document:{index}", text, url, title, None, None, MappingProxyType(metadata))


def _search_result(block: dict[str, Any], index: int) -> Source:
    blocks = tuple(b["text"] for b in as_list(block.get("content"))
                   if isinstance(b, dict) and isinstance(b.get("text"), str))
    origin = block.get("source")
    url = origin if isinstance(origin, str) and origin.startswith(("http://", "https://")) \
        else None
    return Source(f"search_result:{index}", "".join(blocks), url,
                  _text_or_none(block.get("title")), None, None,
                  MappingProxyType({"blocks": blocks, "source": origin}))


def _citation(given: Any, path: str, span: tuple[int, int], fields: Fields,
              ) -> Citation | None:
    """The engine's citation for one of a text block's citations, citing ``span`` of the
    answer (None: it is broken, and a CA404 says why).
    """
    if type(given) is not dict:
        if fields.value(given, dict, path, "a citation") is None:
            return None
        given = dict(given)  # a subclass of dict: read as one
    citation = given
    kind = citation.get("type")
    if type(kind) is not str:
        kind = fields.field(citation, "type", str, path, "a citation", needed=True)
        if kind is None:
            return None
    if kind == "web_search_result_location":
        url = citation.get("url")
        if not isinstance(url, str) or not url:
            fields.add(f"{path}.url", "a web search citation needs a string \"url\"")
            return None
        return Citation(url, None, span, None, path)
    located = _LOCATED.get(kind)
    if located is None:
        fields.add(f"{path}.type", f"unknown citation type {kind!r}")
        return None
    family, unit, names = located
    number = citation.get(names[0])
    start = citation.get(names[1])
    end = citation.get(names[2])
    if type(number) is not int or type(start) is not int or type(end) is not int:
        fields.integers(citation, names, kind, path)  # says which (not a bool either)
        return None
    quoted = citation.get("cited_text")
    if quoted is not None and not isinstance(quoted, str):  # its quote cannot be checked
        fields.field(citation, "cited_text", str, path, kind)
        return None
    where = Location(unit, start, end, quoted, f"{family}_index {number}")
    return Citation(f"{family}:{number}", None, span, None, path, location=where)
