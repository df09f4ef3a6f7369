"""Fuzz the compiled modules with atheris: every input must give what their Python gives
(and, in the sanitizer build, touch no memory it does not own). The stream's feed
(``citeaudit.request._feed``, compiled from its own Python) is fed the same text, cut where
the input says, as that Python run as such, and the lexical judge's content words and window
overlap (``citeaudit.support._terms``, compiled from its own Python) read it too: its
sentences as a passage, its first sentence as the claim; the amounts' digit runs
(``citeaudit.core._amounts``), the claim policy's decision on each of its sentences
(``citeaudit.core._policy``), the claims that need a citation (``citeaudit.core._checks``:
CA301/CA302), the citations' resolution (``citeaudit.core._engine``), the snapshot's reading
of its pieces as passages and their fingerprint (``citeaudit.core._sources``) and the
square-bracket hints (``citeaudit.core._unread``, against the pattern), the bracket
grammars' scan (``citeaudit.core._brackets``: the parsed answer, and what settling a verdict
reads of the brackets, with each bracket pattern and a snapshot of named ids and a numbered
one, and from a scan's markers), the claim assembly (``citeaudit.formats._text``: the parsed
answer, the claims and their count from a custom segmenter's spans, and settling's count,
segmented only as far as the first claim without a marker) and a provider's ranged claims
(``_ranges._ranged``, the input's ranges cited), each against the same module run as Python;
the hand-written leaves (``citeaudit._speedups``) against their oracles: the openings'
count. Gemini, Cohere and Anthropic responses over the
text, with offsets where the input says, are read by their formats
(``citeaudit.formats._gemini`` and the others), and so, one module an input (the input's
choice), are OpenAI Responses and Chat Completions (``_openai``), Bedrock (``_bedrock``), a
Mistral chat completion and conversation (``_mistral``), and Perplexity, Azure on your data
and Perplexity's Responses (``_marked``): the snapshot and the answer (or the input error)
must equal what the same modules make run as Python. Where the brackets' sight, ``_claimed``,
``_assemble`` or ``_ranged`` raises, its Python must raise the same exception, saying the same.
The eval path (``citeaudit.eval._records`` and ``_results``) reads the text as a dataset's
line, a record with the text's pieces as passages and the text itself: the parsed record and
the result line must equal what the same modules make run as Python.

    python3 fuzz/fuzz_core.py -atheris_runs=20000          # or any libFuzzer flags

The segmentation, the claim policy, the checks, the amounts, the engine, the snapshot's
reading, the bracket scan, the claim assembly, the stream's feed, the lexical judge's content
words and the provider formats, compiled from their own Python (``citeaudit.core._segment``,
``citeaudit.core._policy``, ``citeaudit.core._checks``, ``citeaudit.core._amounts``,
``citeaudit.core._engine``, ``citeaudit.core._sources``, ``citeaudit.core._brackets``,
``citeaudit.request._feed``, ``citeaudit.support._terms``, ``citeaudit.formats._text``,
``citeaudit.formats._anthropic``, ``_bedrock``, ``_cohere``, ``_gemini``, ``_marked``,
``_mistral``, ``_openai``),
are checked against that Python, run as such. Needs ``pip install -e '.[fuzz]'`` and the
compiled modules. The harness instruments the pure reference (coverage guides the fuzzer
towards new branches of the rules); the compiled code is checked by comparison and, under
``LD_PRELOAD`` of the AddressSanitizer runtime with the core built with
``CITEAUDIT_CFLAGS=-fsanitize=address``, for memory errors.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from itertools import pairwise
from typing import Any

import atheris

with atheris.instrument_imports():
    from citeaudit import CiteauditError, Config, _speedups, get_grammar, load_snapshot, prepare
    from citeaudit._speedups import _fallback, _leaves
    from citeaudit.core import (
        _amounts,
        _answer,
        _brackets,
        _checks,
        _engine,
        _policy,
        _segment,
        _sources,
        _unread,
    )
    from citeaudit.core._brackets import BracketGrammar, Scan
    from citeaudit.core._policy import NOT_CITABLE
    from citeaudit.core._segment import Span
    from citeaudit.core._sources import resolve_id
    from citeaudit.eval import Options, _records, _results
    from citeaudit.formats import (
        _anthropic,
        _bedrock,
        _cohere,
        _gemini,
        _marked,
        _mistral,
        _openai,
        _ranges,
        _text,
    )
    from citeaudit.formats._anthropic import AnthropicFormat
    from citeaudit.formats._bedrock import BedrockFormat
    from citeaudit.formats._cohere import CohereFormat
    from citeaudit.formats._gemini import GeminiFormat
    from citeaudit.formats._marked import (
        AzureOnYourDataFormat,
        PerplexityFormat,
        PerplexityResponsesFormat,
    )
    from citeaudit.formats._mistral import MistralFormat
    from citeaudit.formats._openai import OpenAIChatFormat, OpenAIResponsesFormat
    from citeaudit.formats._text import TextFormat
    from citeaudit.request import _feed
    from citeaudit.support import _lexical, _terms

_GRAMMARS = ["numeric", "S", "id", "source", "numeric,S"]


_source = _speedups.as_python


with atheris.instrument_imports():
    _SOURCE = _source("citeaudit.core._segment")
    _POLICY_SOURCE = _source("citeaudit.core._policy")
    _CHECKS_SOURCE = _source("citeaudit.core._checks")
    _AMOUNTS_SOURCE = _source("citeaudit.core._amounts")
    _ENGINE_SOURCE = _source("citeaudit.core._engine")
    _FEED_SOURCE = _source("citeaudit.request._feed")
    _SOURCES_SOURCE = _source("citeaudit.core._sources")
    _BRACKETS_SOURCE = _source("citeaudit.core._brackets")
    _TERMS_SOURCE = _source("citeaudit.support._terms")
    _RANGES_SOURCE = _source("citeaudit.formats._ranges")
    _TEXT_SOURCE = _source("citeaudit.formats._text")
    _RECORDS_SOURCE = _source("citeaudit.eval._records")
    _RESULTS_SOURCE = _source("citeaudit.eval._results")
    _OPTIONS = Options(Config())



def _formats(module: Any, *kinds: type) -> list[tuple[Any, Any]]:
    """Each format of ``kinds`` (classes of ``module``), compiled and run from its source as
    Python (which reads the compiled _fields and _ranges: the format's own loops are compared).
    """
    python = _source(module.__name__)
    return [(kind(), getattr(python, kind.__name__)()) for kind in kinds]


with atheris.instrument_imports():
    _FORMATS = [*_formats(_gemini, GeminiFormat), *_formats(_cohere, CohereFormat),
                *_formats(_anthropic, AnthropicFormat)]
    _OPENAI = _formats(_openai, OpenAIResponsesFormat, OpenAIChatFormat)
    _BEDROCK = _formats(_bedrock, BedrockFormat)
    _MISTRAL = _formats(_mistral, MistralFormat)
    _MARKED = _formats(_marked, PerplexityFormat, AzureOnYourDataFormat,
                       PerplexityResponsesFormat)


def _evaluated(text: str) -> None:
    """The text as a dataset's line (a record with its pieces as passages, and the text
    itself, JSON or not): parsed, audited and written as a result line, compiled and as
    Python.
    """
    record = {"id": text[:8], "answer": text, "sources": text.split("[")[:12]}
    for ordinal, value in enumerate((json.dumps(record).encode(), text.encode())):
        item = _records.RawItem(ordinal, f"line {ordinal + 1}", value)
        if _records.parse_record(item) != _RECORDS_SOURCE.parse_record(item) or \
                _results.process(item, _OPTIONS) != _RESULTS_SOURCE.process(item, _OPTIONS):
            raise AssertionError(f"the eval record's result differs on {value!r}")


def _read_as_passages(text: str) -> None:
    """The text's pieces read as a snapshot's passages (strings, then objects with ids) and
    fingerprinted, compiled and as Python.
    """
    pieces = text.split("[")
    objects = [{"id": f"p{at}", "text": piece, "score": at} for at, piece in enumerate(pieces)]
    if _sources._strings(pieces) != _SOURCES_SOURCE._strings(pieces) or \
            _sources._passages(objects) != _SOURCES_SOURCE._passages(objects):
        raise AssertionError(f"the passages read differ on {text!r}")
    lazy, python = load_snapshot(pieces), _SOURCES_SOURCE.load_snapshot(pieces)
    for source_id in pieces[:8]:  # an id is in the snapshot before its sources are made
        if (source_id in lazy) != (source_id in python.index):
            raise AssertionError(f"the bare strings' ids differ on {text!r}")
    if lazy.sources != python.sources:
        raise AssertionError(f"the bare strings' sources differ on {text!r}")
    made = load_snapshot(objects).sources
    if _sources._fingerprinted(made) != _SOURCES_SOURCE._fingerprinted(made):
        raise AssertionError(f"the fingerprint's buffer differs on {text!r}")


# The bracket grammars' scanning methods, compiled, and the same run as Python.
_SCANNING = ("scan", "markers", "sight")
_LIBRARY_SCAN = [getattr(BracketGrammar, name) for name in _SCANNING]
_PYTHON_SCAN = [getattr(_BRACKETS_SOURCE.BracketGrammar, name) for name in _SCANNING]


def _parsed(text: str, grammar: str, compiled: bool) -> object:
    scan = _LIBRARY_SCAN if compiled else _PYTHON_SCAN
    reading = _text if compiled else _TEXT_SOURCE  # free text: its claim assembly
    saved = (TextFormat.parse, TextFormat.settled)
    TextFormat.parse = reading.TextFormat.parse  # type: ignore[method-assign]
    TextFormat.settled = reading.TextFormat.settled  # type: ignore[method-assign]
    for name, method in zip(_SCANNING, scan, strict=True):
        setattr(BracketGrammar, name, method)
    try:
        context = prepare(text, _SNAPSHOT, grammar=grammar)
    finally:
        TextFormat.parse, TextFormat.settled = saved  # type: ignore[method-assign]
        for name, method in zip(_SCANNING, _LIBRARY_SCAN, strict=True):
            setattr(BracketGrammar, name, method)
    answer = context.answer
    return answer.claims, answer.citations, answer.malformed, context.resolved


_CONFIG = Config()  # made once: checking its settings costs more than reading a small answer

# Ids as written, some numbered: cited ids resolve as written, without a prefix, or not at all.
_SNAPSHOT = load_snapshot({"sources": [{"id": i, "text": "x"} for i in ("1", "S2", "doc_1")]})


def _fed(kind: type[_feed.Feed], text: str, cuts: list[int], grammar: str) -> list[str]:
    """What a feed releases for ``text`` cut at ``cuts``, then at the end."""
    chosen = get_grammar(grammar)
    feed = kind(chosen, _CONFIG.refusals, _SNAPSHOT, True, renderer=None, refs=None)
    shown, position = [], 0
    for cut in [*sorted(set(cuts)), len(text)]:
        if cut > position:
            shown.append(feed.feed(text[position:cut]))
            position = cut
    feed._stop()
    return [*shown, feed._flush()]


def _responses(text: str, ranges: list[tuple[int, int]]) -> list[tuple[object, object]]:
    """Responses of three providers over ``text``, citing ``ranges`` (characters, and bytes
    for Gemini), each with its request.
    """
    raw = text.encode("utf-8", "surrogatepass")
    documents = [text, text[::-1]]
    gemini = {"candidates": [{"content": {"parts": [{"text": text}]}, "groundingMetadata": {
        "groundingChunks": [{"retrievedContext": {"text": d}} for d in documents],
        "groundingSupports": [{"segment": {"startIndex": s, "endIndex": e,
                                           "text": raw[s:e].decode("utf-8", "replace")},
                               "groundingChunkIndices": [n % 3]}
                              for n, (s, e) in enumerate(ranges)]}}]}
    cohere = {"finish_reason": "COMPLETE", "message": {
        "role": "assistant", "content": [{"type": "text", "text": text}],
        "citations": [{"start": s, "end": e, "text": text[s:e],
                       "sources": [{"type": "document", "id": f"doc:{n % 3}"}]}
                      for n, (s, e) in enumerate(ranges)]}}
    anthropic = {"type": "message", "role": "assistant", "content": [
        {"type": "text", "text": text[s:e], "citations": [{
            "type": "char_location", "document_index": n % 3, "start_char_index": s,
            "end_char_index": e, "cited_text": text[s:e]}]} for n, (s, e) in enumerate(ranges)]}
    request = {"messages": [{"role": "user", "content": [
        {"type": "document", "source": {"type": "text", "data": d}} for d in documents]}]}
    return [(gemini, None), (cohere, {"documents": documents}), (anthropic, request)]


def _read(form: Any, response: object, request: object) -> object:
    """The snapshot and the answer format ``form`` makes of ``response`` and its request (or
    the input error it raises).
    """
    try:
        snapshot = form.snapshot(response, request)
        reading, _ = _engine._reading(response, snapshot, None, None, _CONFIG, _segment.segment)
        return snapshot.sources, form.parse(response, reading)
    except CiteauditError as error:
        return type(error).__name__, str(error)


def _agree(forms: list[tuple[Any, Any]], cases: list[tuple[object, object]]) -> None:
    """Each response of ``cases`` (with its request) read by its format of ``forms``, compiled
    and as Python, must give the same snapshot and answer (or input error).
    """
    for (response, request), (built, python) in zip(cases, forms, strict=True):
        if _read(built, response, request) != _read(python, response, request):
            raise AssertionError(f"{built.name} differs compiled on {response!r}")


def _outcome(function: Callable[..., Any], *arguments: Any) -> tuple[Any, ...]:
    """What ``function`` returns, or the type and message of what it raises."""
    try:
        return ("returned", function(*arguments))
    except Exception as error:  # compared, not handled
        return ("raised", type(error), str(error))


# A snapshot whose ids are "1".."12": the sight reads such ids as numbers.
_NUMBERED = load_snapshot([f"passage {n}" for n in range(12)])


def _sight_brackets(text: str, grammar: str) -> None:
    """The brackets' sight (what settling reads of them, without markers), compiled, against
    the same run as Python and against the compiled scan's markers (every id looked up, none
    read as a number), with each bracket pattern, in a snapshot of named ids and a numbered
    one.
    """
    chosen = get_grammar(grammar)
    if not isinstance(chosen, BracketGrammar):
        raise TypeError(f"{grammar} is not a bracket grammar")
    for snapshot in (_SNAPSHOT, _NUMBERED):
        for wide in (False, True):
            sighted = _outcome(_brackets._sighted, text, chosen, wide, snapshot)
            scan = Scan(*_brackets._scanned(text, chosen, wide))
            if sighted != _outcome(_BRACKETS_SOURCE._sighted, text, chosen, wide, snapshot) or \
                    sighted != _outcome(_brackets.sighting, scan, snapshot):
                raise AssertionError(f"the sight differs on {text!r} ({grammar}, {wide=})")


def _sighting(text: str, grammar: str) -> None:
    """``_brackets.sighting`` (the ids a scan's markers name, their marks and starts) against
    the same run as Python, in a snapshot of named ids and a numbered one.
    """
    scan = get_grammar(grammar).scan(text)
    for snapshot in (_SNAPSHOT, _NUMBERED):
        if _outcome(_brackets.sighting, scan, snapshot) != \
                _outcome(_BRACKETS_SOURCE.sighting, scan, snapshot):
            raise AssertionError(f"sighting() differs on {text!r} ({grammar})")


def _claimed(text: str, found: list[Span], scan: Scan) -> None:
    """The claim assembly of ``citeaudit.formats._text`` against that module run as Python:
    the claims a custom segmenter's spans make (``_assemble``) and their count (``_claimed``,
    -1 at the first without a marker), with and without the claim policy's exemptions.
    """
    spans = _SOURCE.segment(text, found)
    starts = ([m.start for m in scan.markers], [m.start for m in scan.malformed])
    markers = tuple(scan.markers)
    for rules in (frozenset(), frozenset(NOT_CITABLE)):
        compiled = _policy.Exemptions(text, rules, "\n" in text, found)
        python = _POLICY_SOURCE.Exemptions(text, rules, "\n" in text, found)
        if _outcome(_text._claimed, spans, *starts, compiled) != \
                _outcome(_TEXT_SOURCE._claimed, spans, *starts, python):
            raise AssertionError(f"_claimed() differs on {text!r}")
        compiled = _policy.Exemptions(text, rules, "\n" in text, found)
        python = _POLICY_SOURCE.Exemptions(text, rules, "\n" in text, found)
        if _outcome(_text._assemble, text, spans, markers, scan.malformed, compiled) != \
                _outcome(_TEXT_SOURCE._assemble, text, spans, markers, scan.malformed, python) \
                or compiled.found != python.found:
            raise AssertionError(f"_assemble() differs on {text!r}")


def _ranged(text: str, raw: list[tuple[int, int]]) -> None:
    """``_ranges._ranged`` (a provider's sentences as claims, cited by the ranges they
    overlap), compiled from its source, against the same run as Python: the ranges as the
    formats give them (sorted by start, within the text or one past it), with and without the
    claim policy's exemptions.
    """
    end = len(text) + 1
    cited = sorted((min(s, end), min(s + n, end), [
        _answer.Citation(("a", "b", "document:0")[(s + k) % 3], None, (s, s + n), None,
                         f"$.c[{at}][{k}]") for k in range(1 + n % 3)])
        for at, (s, n) in enumerate(raw))
    spans = _segment.segment(text)
    for rules in (frozenset(), frozenset(NOT_CITABLE)):
        made = [_outcome(ranged, text, spans, cited, rules)
                for ranged in (_ranges._ranged, _RANGES_SOURCE._ranged)]
        types = [[type(c) for c in found[1][1]] if found[0] == "returned" else None
                 for found in made]
        if made[0] != made[1] or types[0] != types[1]:
            raise AssertionError(f"ranged() differs on {text!r} at {cited}")


def _documents(text: str) -> list[str]:
    return [text, text[::-1], "Refunds take 14 days."]


def _openai_formats(text: str, ranges: list[tuple[int, int]]) -> None:
    """OpenAI Responses (every annotation kind, over the text's ranges, and the files a
    search retrieved) and Chat Completions (``url_citation``) read by ``_openai``.
    """
    urls = [f"https://shop.example/{n}" for n in range(3)]
    kinds = ("url_citation", "file_citation", "container_file_citation", "file_path")
    notes: list[dict[str, Any]] = []
    for n, (s, e) in enumerate(ranges):
        kind = kinds[n % 4]
        note: dict[str, Any] = {"type": kind, "index": s} if kind in (
            "file_citation", "file_path") else {"type": kind, "start_index": s, "end_index": e}
        note["url" if kind == "url_citation" else "file_id"] = \
            urls[n % 3] if kind == "url_citation" else f"file-{n % 3}"
        notes.append(note)
    results = [{"file_id": f"file-{n}", "filename": f"{n}.md", "score": n / 4, "text": d}
               for n, d in enumerate(_documents(text))]
    responses = {"object": "response", "output": [
        {"type": "file_search_call", "results": results},
        {"type": "message", "content": [{"type": "output_text", "text": text,
                                         "annotations": notes}]}]}
    chat = {"object": "chat.completion", "choices": [{"message": {
        "role": "assistant", "content": text, "annotations": [
            {"type": "url_citation", "url_citation": {"start_index": s, "end_index": e,
                                                      "url": urls[n % 3]}}
            for n, (s, e) in enumerate(ranges)]}}]}
    sources = [{"id": "shop", "text": text, "url": "https://Shop.example/0/?utm_source=x"}]
    _agree(_OPENAI, [(responses, sources), (chat, sources)])


def _bedrock_format(text: str, ranges: list[tuple[int, int]]) -> None:
    """A Bedrock RetrieveAndGenerate response (spans end inclusive; references named by chunk
    id, by location, or by neither) read by ``_bedrock``.
    """
    documents = _documents(text)
    names: tuple[dict[str, Any], ...] = (
        {"metadata": {"x-amz-bedrock-kb-chunk-id": "chunk-0"}},
        {"location": {"type": "S3", "s3Location": {"uri": "s3://kb/1.md"}}}, {})
    citations = [{"generatedResponsePart": {"textResponsePart": {
        "span": {"start": s, "end": e - 1}, "text": text[s:e]}},
        "retrievedReferences": [{"content": {"text": documents[n % 3], "type": "TEXT"},
                                 **names[n % 3]}]} for n, (s, e) in enumerate(ranges)]
    _agree(_BEDROCK, [({"output": {"text": text}, "citations": citations}, None)])


def _mistral_format(text: str, ranges: list[tuple[int, int]]) -> None:
    """A Mistral chat completion (the text in chunks cut at the ranges' starts, each cited by
    a reference chunk after it) with its request's tool results, and a conversation response
    (``tool_reference`` chunks) read by ``_mistral``.
    """
    cuts = sorted({0, len(text), *(min(s, len(text)) for s, _ in ranges)})
    chunks: list[dict[str, Any]] = []
    tools: list[dict[str, Any]] = []
    for n, (low, high) in enumerate(pairwise(cuts)):
        chunks.append({"type": "text", "text": text[low:high]})
        chunks.append({"type": "reference", "reference_ids": [n % 3, str((n + 1) % 4)]})
        tools.append({"type": "tool_reference", "url": f"https://kb.example/{n % 3}",
                      "title": "t"})
    results = {str(n): {"url": f"https://kb.example/{n}", "title": "t", "snippets": [[d]]}
               for n, d in enumerate(_documents(text))}
    request = {"messages": [{"role": "user", "content": "q"},
                            {"role": "tool", "content": json.dumps(results)}]}
    completion = {"object": "chat.completion", "choices": [{"message": {
        "role": "assistant", "content": chunks}}]}
    conversation = {"object": "conversation.response", "outputs": [{
        "type": "message.output", "content": [
            part for pair in zip(chunks[::2], tools, strict=True) for part in pair]}]}
    _agree(_MISTRAL * 2, [(completion, request), (conversation, None)])


def _marked_formats(text: str, ranges: list[tuple[int, int]]) -> None:
    """Perplexity (the text's own markers, numbered search results), Azure on your data
    (``[docN]`` markers, the context's citations) and Perplexity's Responses (``url_citation``
    annotations without a type) read by ``_marked``.
    """
    documents = _documents(text)
    urls = [f"https://kb.example/{n}" for n in range(len(documents))]
    perplexity = {"choices": [{"message": {"role": "assistant", "content": text}}],
                  "search_results": [{"title": "t", "url": u, "snippet": d}
                                     for u, d in zip(urls, documents, strict=True)]}
    azure = {"choices": [{"message": {"role": "assistant", "content": text, "context": {
        "citations": [{"content": d, "title": "t", "filepath": f"{n}.md", "chunk_id": "0"}
                      for n, d in enumerate(documents)]}}}]}
    responses = {"object": "response", "output": [
        {"type": "search_results", "results": [{"id": n, "snippet": d, "url": u}
                                               for n, (u, d) in enumerate(zip(
                                                   urls, documents, strict=True))]},
        {"type": "message", "content": [{"type": "output_text", "text": text, "annotations": [
            {"start_index": s, "end_index": e, "url": urls[n % 3]}
            for n, (s, e) in enumerate(ranges)]}]}]}
    _agree(_MARKED, [(perplexity, None), (azure, None), (responses, None)])


def _uncited(claims: Any, text: str, grammar: str) -> None:
    """The claims that need a citation (CA301/CA302), compiled and as Python, must be equal."""
    for amounts, every in ((True, True), (True, False), (False, True)):
        if _checks._uncited(claims, (), amounts, every) != \
                _CHECKS_SOURCE._uncited(claims, (), amounts, every):
            raise AssertionError(f"the uncited claims differ on {text!r} ({grammar})")


# The formats whose responses an input reads one at a time (the fuzzer's choice): each costs
# about what the three read on every input cost together.
_BY_TURNS = (_openai_formats, _bedrock_format, _mistral_format, _marked_formats)


def one_input(data: bytes) -> None:
    """One fuzzer input: a text, marks anywhere in it, a grammar, and which of the formats read
    by turns reads responses over it.
    """
    source = atheris.FuzzedDataProvider(data)
    grammar = _GRAMMARS[source.ConsumeIntInRange(0, len(_GRAMMARS) - 1)]
    by_turns = _BY_TURNS[source.ConsumeIntInRange(0, len(_BY_TURNS) - 1)]
    raw = [(source.ConsumeIntInRange(0, 300), source.ConsumeIntInRange(0, 12))
           for _ in range(source.ConsumeIntInRange(0, 6))]
    text = source.ConsumeUnicodeNoSurrogates(400)
    marks = sorted(Span(min(s, len(text)), min(s + n, len(text))) for s, n in raw)
    if _segment._masked(text, marks) != _SOURCE._masked(text, marks):
        raise AssertionError(f"masked() differs on {text!r} {marks}")
    if _segment.segment(text, marks) != _SOURCE.segment(text, marks):
        raise AssertionError(f"segment() differs on {text!r} {marks}")
    if _segment.split(text) != _SOURCE.split(text):
        raise AssertionError(f"split() differs on {text!r}")
    scan = get_grammar("numeric,S").scan(text)
    found = sorted(Span(m.start, m.end) for m in (*scan.markers, *scan.malformed))
    if _segment.segment(text, found) != _SOURCE.segment(text, found):
        raise AssertionError(f"segment() differs on {text!r} with its markers")
    starts = ([m.start for m in scan.markers], [m.start for m in scan.malformed])
    if _segment.claim_pairs(text, found) != _SOURCE.claim_pairs(text, found):
        raise AssertionError(f"claim_pairs() differs on {text!r} with its markers")
    for rules in (frozenset(), frozenset(NOT_CITABLE)):
        claimed = _text._segment_claimed(text, found, *starts,
                                         _policy.Exemptions(text, rules, "\n" in text, found))
        if claimed != _TEXT_SOURCE._segment_claimed(
                text, found, *starts, _POLICY_SOURCE.Exemptions(text, rules, "\n" in text,
                                                                found)) or \
                claimed != _TEXT_SOURCE._claimed(
                    _SOURCE.segment(text, found), *starts,
                    _POLICY_SOURCE.Exemptions(text, rules, "\n" in text, found)):
            raise AssertionError(f"_segment_claimed() differs on {text!r}")
    if _unread.square_hints(text) != len(_unread.SQUARE_HINT.findall(text)):
        raise AssertionError(f"square_hints() differs on {text!r}")
    _read_as_passages(text)
    _evaluated(text)
    encoded = text.encode()
    if _leaves.openings(encoded) != _fallback.openings(encoded):
        raise AssertionError(f"openings() differs on {text!r}")
    parsed = _parsed(text, grammar, compiled=True)
    if parsed != _parsed(text, grammar, compiled=False):
        raise AssertionError(f"the parsed answer differs on {text!r} ({grammar})")
    _uncited(parsed[0], text, grammar)
    resolving = (parsed[1], _SNAPSHOT.index, resolve_id, _SNAPSHOT)
    if _engine._resolved(*resolving) != _ENGINE_SOURCE._resolved(*resolving):
        raise AssertionError(f"the resolved citations differ on {text!r} ({grammar})")
    cuts = [min(start, len(text)) for start, _ in raw] + list(range(0, len(text), 4))
    if _fed(_feed.Feed, text, cuts, grammar) != _fed(_FEED_SOURCE.Feed, text, cuts, grammar):
        raise AssertionError(f"the stream's feed differs on {text!r} cut at {cuts}")
    if _amounts.states_amount(text) != _AMOUNTS_SOURCE.states_amount(text) or \
            _amounts.identifier_spans(text) != _AMOUNTS_SOURCE.identifier_spans(text):
        raise AssertionError(f"the amounts differ on {text!r}")
    for start, end in _segment.segment(text, found):
        if _policy.policy_rule(text, start, end) != \
                _POLICY_SOURCE.policy_rule(text, start, end):
            raise AssertionError(f"the claim policy differs on {text[start:end]!r} in {text!r}")
    if _policy.list_items(text) != _POLICY_SOURCE.list_items(text):
        raise AssertionError(f"list_items() differs on {text!r}")
    spans = [(start, start + n) for start, n in raw]
    if _terms.terms(text) != _TERMS_SOURCE.terms(text) or \
            _terms.windows(text, text, spans) != _TERMS_SOURCE.windows(text, text, spans):
        raise AssertionError(f"the lexical judge's terms differ on {text!r} at {spans}")
    ranges = [(min(s, s + n), s + n) for s, n in raw]
    _agree(_FORMATS, _responses(text, ranges))
    by_turns(text, ranges)
    _claimed(text, found, scan)
    _sight_brackets(text, grammar)
    _sighting(text, grammar)
    _ranged(text, raw)
    claim, negated = _TERMS_SOURCE.terms(text[:text.find(".") + 1 or None])
    passage = [("1", _lexical._Passage(text))]
    if _terms.aligned(claim, negated, passage) != \
            _TERMS_SOURCE.aligned(claim, negated, passage):
        raise AssertionError(f"the lexical judge's best window differs on {text!r}")


def main() -> None:
    """Fuzz until libFuzzer's flags (``-atheris_runs``, ``-max_total_time``) say stop."""
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
