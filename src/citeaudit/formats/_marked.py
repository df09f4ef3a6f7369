"""Providers whose answers cite with markers in the text and return the passages beside it:
Perplexity (``[1]`` into ``search_results``, or the older ``citations`` list of URLs) and
Azure OpenAI "on your data" (``[doc1]`` into ``message.context.citations``).

Both numbers are 1-based, as the markers are written (``[1]`` is the first search result,
``[doc1]`` the first citation); the sources get those ids (``"1"``.., ``"doc1"``..), so a
marker past the list is out of range (CA202). The text is read like free text: the marker
grammar follows from these ids, and the claim policy applies.

Perplexity's Responses-style API (``perplexity-responses``; the ``perplexityai`` SDK's
``ResponseCreateResponse``) cites without markers: its ``message`` items' ``output_text``
parts carry ``annotations`` {type, url, title, start_index, end_index} read as OpenAI's
``url_citation`` (characters of the part's text, end exclusive; an annotation without a
``type`` is a URL citation, the SDK's ``type`` being optional). Its ``search_results`` items
({id, title, url, snippet, date, last_updated, source}) and ``fetch_url_results`` items
({url, title, snippet}) are the snapshot, after any sources given, named by URL with their
snippet as text; a cited URL outside them is unknown (CA201).
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from citeaudit.core import (
    NO_METADATA,
    Answer,
    AnswerKind,
    Reading,
    Snapshot,
    Source,
    kind_of,
    numbered_ids,
)
from citeaudit.errors import SnapshotError
from citeaudit.formats._fields import Fields, source_field, source_items
from citeaudit.formats._openai import canonical_url, responses_answer, url_index, with_retrieved
from citeaudit.formats._ranges import (
    as_list,
    chat_message,
    plain,
    read_chat_message,
    without_text,
)
from citeaudit.formats._text import blank, parse_text

__all__ = ["AzureOnYourDataFormat", "PerplexityFormat", "PerplexityResponsesFormat"]


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


_CONTENT = "$.choices[0].message.content"


def _answer(name: AnswerKind, response: Any, reading: Reading) -> Answer:
    content = chat_message(response).get("content")
    if type(content) is str and not blank(content):
        return parse_text(content, reading, name)
    fields = Fields()
    message = read_chat_message(response, fields)
    if message is not None:
        content = fields.field(message, "content", str, "$.choices[0].message", "the message",
                               needed=True)
    return without_text(name, content if isinstance(content, str) else "", fields.problems,
                        _CONTENT)


class PerplexityFormat:
    """A Perplexity chat completion with ``search_results`` (or ``citations``)."""

    name = "perplexity"
    keys = ("search_results", "citations")
    expects = "a Perplexity response (choices with search_results or citations)"
    needs = (("choices", list), ("search_results", list))

    def recognises(self, answer: object) -> bool:
        data = answer if isinstance(answer, dict) else plain(answer)
        return isinstance(data, dict) and isinstance(data.get("choices"), list) and (
            isinstance(data.get("search_results"), list) or
            isinstance(data.get("citations"), list))

    def snapshot(self, answer: object, sources: object) -> Snapshot:
        if isinstance(sources, Snapshot):
            return sources
        response = plain(answer)
        results = response.get("search_results")
        if isinstance(results, list) and results:
            found = _search_results(response, numbered_ids(len(results)))
        else:
            urls = source_field(response, "citations", list, "$", "a response") or []
            for at, url in enumerate(urls):
                if not isinstance(url, str):
                    raise SnapshotError(f"a citation must be a URL string, not {kind_of(url)}",
                                        origin="<answer>", place=f"$.citations[{at}]")
            found = [Source(str(index), "", _text(url)) for index, url in enumerate(urls, 1)]
        return Snapshot(tuple(found), ids_from="positions")

    def parse(self, answer: object, reading: Reading) -> Answer:
        return _answer(self.name, plain(answer), reading)


def _search_results(response: dict[str, Any], ids: tuple[str, ...]) -> list[Source]:
    """Perplexity's ``search_results`` as the sources ``ids`` (a :class:`SnapshotError`
    where one breaks its shape).
    """
    results: list[Any] = response["search_results"]  # a list: the caller checked
    found = []
    for at in range(len(results)):  # the common shape read at once
        item = results[at]
        snippet = item.get("snippet") if type(item) is dict else None
        if type(item) is not dict or (snippet is not None and type(snippet) is not str):
            break  # read with its checks below
        found.append(Source(ids[at], snippet or "", _text(item.get("url")),
                            _text(item.get("title")), None, None, NO_METADATA))
    else:
        return found
    return [Source(source_id, source_field(item, "snippet", str, path, "a search result") or "",
                   _text(item.get("url")), _text(item.get("title")), None, None, NO_METADATA)
            for source_id, (_, item, path) in zip(ids, source_items(
                response, "search_results", "$", "a response", "a search result"),
                strict=True)]


# Perplexity's output items that list what it retrieved: the list's key, each entry's name.
_RETRIEVED = {"search_results": ("results", "a search result"),
              "fetch_url_results": ("contents", "a fetched page")}


class PerplexityResponsesFormat:
    """A Perplexity Responses-style response: ``object: "response"`` whose output lists
    ``search_results`` or ``fetch_url_results`` (JSON or the SDK's response).
    """

    name = "perplexity-responses"
    keys = ("output",)
    expects = ("a Perplexity Responses response (object \"response\" with output items, among"
               " them search_results)")
    needs = (("object", "response"), ("output", list))

    def recognises(self, answer: object) -> bool:
        if not isinstance(answer, dict) and getattr(answer, "object", None) != "response":
            return False  # another SDK's object: not dumped to find out
        data = answer if isinstance(answer, dict) else plain(answer)
        return isinstance(data, dict) and data.get("object") == "response" and any(
            isinstance(item, dict) and isinstance(item.get("type"), str) and
            item["type"] in _RETRIEVED for item in as_list(data.get("output")))

    def snapshot(self, answer: object, sources: object) -> Snapshot:
        if isinstance(sources, Snapshot):
            return sources
        found: dict[str, Source] = {}
        for index, item in enumerate(as_list(plain(answer).get("output"))):
            kind = item.get("type") if isinstance(item, dict) else None
            if not isinstance(kind, str) or kind not in _RETRIEVED:
                continue
            key, what = _RETRIEVED[kind]
            for _, result, path in source_items(item, key, f"$.output[{index}]",
                                                f"a {kind} item", what):
                url = source_field(result, "url", str, path, what, needed=True)
                snippet = source_field(result, "snippet", str, path, what)
                title = source_field(result, "title", str, path, what)
                found.setdefault(canonical_url(url), Source(
                    canonical_url(url), snippet or "", url, title or None))
        return with_retrieved(sources, list(found.values()))

    def parse(self, answer: object, reading: Reading) -> Answer:
        return responses_answer(self.name, plain(answer), reading, url_index(reading.snapshot),
                                untyped="url_citation")


class AzureOnYourDataFormat:
    """An Azure OpenAI "on your data" chat completion: ``[docN]`` markers and the passages
    in ``message.context.citations``.
    """

    name = "azure-on-your-data"
    keys = ("choices",)
    expects = "an Azure OpenAI on-your-data response (a message with context.citations)"
    needs = (("choices", list), ("choices.0.message", dict),
             ("choices.0.message.context", dict), ("choices.0.message.context.citations", list))

    def recognises(self, answer: object) -> bool:
        data = answer if isinstance(answer, dict) else plain(answer)
        context = chat_message(data).get("context")
        return isinstance(context, dict) and isinstance(context.get("citations"), list)

    def snapshot(self, answer: object, sources: object) -> Snapshot:
        if isinstance(sources, Snapshot):
            return sources
        context = chat_message(plain(answer)).get("context") or {}
        found = []
        where = "$.choices[0].message.context"
        for index, (_, item, path) in enumerate(source_items(
                context, "citations", where, "the context", "a citation"), start=1):
            text = source_field(item, "content", str, path, "a citation")
            metadata = {k: item[k] for k in ("filepath", "chunk_id") if _text(item.get(k))}
            found.append(Source(f"doc{index}", text or "", _text(item.get("url")),
                                _text(item.get("title")), None, None,
                                MappingProxyType(metadata)))
        return Snapshot(tuple(found), ids_from="positions")

    def parse(self, answer: object, reading: Reading) -> Answer:
        return _answer(self.name, plain(answer), reading)
