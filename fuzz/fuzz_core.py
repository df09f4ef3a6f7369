"""Fuzz the compiled core's entry points with atheris: every input must give the reference's
results (and, in the sanitizer build, touch no memory it does not own). The stream's feed
(``citeaudit.request._feed``, compiled from its own Python) is fed the same text, cut where
the input says, as that Python run as such, and the lexical judge's content words and window
overlap (``citeaudit.support._terms``, compiled from its own Python) read it too: its
sentences as a passage, its first sentence as the claim; the amounts' digit runs
(``citeaudit.core._amounts``), the claim policy's decision on each of its sentences
(``citeaudit.core._policy``), the claims that need a citation (``citeaudit.core._checks``:
CA301/CA302), the citations' resolution (``citeaudit.core._engine``), the snapshot's reading
of its pieces as passages and their fingerprint (``citeaudit.core._sources``) and the
square-bracket hints (``citeaudit.core._unread``, against the pattern). Gemini, Cohere and
Anthropic responses over the text, with offsets where the input says, are read by their
formats (``citeaudit.formats._gemini`` and the others): the snapshot and the answer must
equal what the same modules make run as Python.

    python3 fuzz/fuzz_core.py -atheris_runs=20000          # or any libFuzzer flags

The segmentation, the claim policy, the checks, the amounts, the engine, the snapshot's
reading, the stream's feed, the lexical judge's content words and the provider formats,
compiled from their own Python (``citeaudit.core._segment``, ``citeaudit.core._policy``,
``citeaudit.core._checks``, ``citeaudit.core._amounts``, ``citeaudit.core._engine``,
``citeaudit.core._sources``, ``citeaudit.request._feed``,
``citeaudit.support._terms``, ``citeaudit.formats._anthropic``..),
are checked against that Python, run as such. Needs ``pip install -e '.[fuzz]'`` and the
compiled core. The harness instruments the pure reference (coverage guides the fuzzer
towards new branches of the rules); the compiled code is checked by comparison and, under
``LD_PRELOAD`` of the AddressSanitizer runtime with the core built with
``CITEAUDIT_CFLAGS=-fsanitize=address``, for memory errors.
"""

from __future__ import annotations

import sys
from typing import Any

import atheris

with atheris.instrument_imports():
    from citeaudit import CiteauditError, Config, _speedups, get_grammar, load_snapshot, prepare
    from citeaudit.core import (
        _amounts,
        _answer,
        _checks,
        _core,
        _engine,
        _grammar,
        _loading,
        _policy,
        _segment,
        _sources,
        _unread,
    )
    from citeaudit.core._policy import NOT_CITABLE
    from citeaudit.core._segment import Span
    from citeaudit.core._sources import resolve_id
    from citeaudit.formats import _anthropic, _cohere, _gemini, _text
    from citeaudit.formats._anthropic import AnthropicFormat
    from citeaudit.formats._cohere import CohereFormat
    from citeaudit.formats._gemini import GeminiFormat
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
    _TERMS_SOURCE = _source("citeaudit.support._terms")
    # The formats fuzzed, compiled and run from their source as Python (which reads the
    # compiled _fields and _ranges: the format's own loops are compared).
    _FORMATS = [(form(), getattr(_source(module.__name__), form.__name__)())
                for module, form in ((_gemini, GeminiFormat), (_cohere, CohereFormat),
                                     (_anthropic, AnthropicFormat))]


def _read_as_passages(text: str) -> None:
    """The text's pieces read as a snapshot's passages (strings, then objects with ids) and
    fingerprinted, compiled and as Python.
    """
    pieces = text.split("[")
    ids = _sources.numbered_ids(len(pieces))
    objects = [{"id": f"p{at}", "text": piece, "score": at} for at, piece in enumerate(pieces)]
    if _sources._strings(pieces, ids) != _SOURCES_SOURCE._strings(pieces, ids) or \
            _sources._passages(objects) != _SOURCES_SOURCE._passages(objects):
        raise AssertionError(f"the passages read differ on {text!r}")
    made = load_snapshot(objects).sources
    if _sources._fingerprinted(made) != _SOURCES_SOURCE._fingerprinted(made):
        raise AssertionError(f"the fingerprint's buffer differs on {text!r}")


def _parsed(text: str, grammar: str, compiled: bool) -> object:
    scan = _core.scan_brackets if compiled else _grammar.reference_scan_brackets
    assemble = _core.assemble if compiled else _text.reference_assemble
    citations = _core.citations if compiled else _answer.reference_citations
    marks = _core.marks if compiled else _text.reference_marks
    saved = _grammar._scan_brackets, _text._assemble, _answer._citations, _text._marks
    _grammar._scan_brackets, _text._assemble, _answer._citations = scan, assemble, citations
    _text._marks = marks
    try:
        context = prepare(text, _SNAPSHOT, grammar=grammar)
    finally:
        _grammar._scan_brackets, _text._assemble, _answer._citations, _text._marks = saved
    answer = context.answer
    return answer.claims, answer.citations, answer.malformed, context.resolved


# Ids as written, some numbered: cited ids resolve as written, without a prefix, or not at all.
_SNAPSHOT = load_snapshot({"sources": [{"id": i, "text": "x"} for i in ("1", "S2", "doc_1")]})


def _fed(kind: type[_feed.Feed], text: str, cuts: list[int], grammar: str) -> list[str]:
    """What a feed releases for ``text`` cut at ``cuts``, then at the end."""
    chosen = get_grammar(grammar)
    feed = kind(chosen, Config().refusals, _SNAPSHOT, True, renderer=None, refs=None)
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
        reading, _ = _engine._reading(response, snapshot, None, None, Config(), _segment.segment)
        return snapshot.sources, form.parse(response, reading)
    except CiteauditError as error:
        return str(error)


def _uncited(claims: Any, text: str, grammar: str) -> None:
    """The claims that need a citation (CA301/CA302), compiled and as Python, must be equal."""
    for amounts, every in ((True, True), (True, False), (False, True)):
        if _checks._uncited(claims, (), amounts, every) != \
                _CHECKS_SOURCE._uncited(claims, (), amounts, every):
            raise AssertionError(f"the uncited claims differ on {text!r} ({grammar})")


def one_input(data: bytes) -> None:
    """One fuzzer input: a text, marks anywhere in it, and a grammar."""
    source = atheris.FuzzedDataProvider(data)
    grammar = _GRAMMARS[source.ConsumeIntInRange(0, len(_GRAMMARS) - 1)]
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
    for rules in (frozenset(), frozenset(NOT_CITABLE)):
        if _core.segment_claimed(text, found, *starts,
                                 _policy.Exemptions(text, rules, "\n" in text, found)) != \
                _text.reference_claimed(_SOURCE.segment(text, found), *starts,
                                        _POLICY_SOURCE.Exemptions(text, rules, "\n" in text,
                                                                  found)):
            raise AssertionError(f"segment_claimed() differs on {text!r}")
    if _unread.square_hints(text) != len(_unread.SQUARE_HINT.findall(text)):
        raise AssertionError(f"square_hints() differs on {text!r}")
    _read_as_passages(text)
    encoded = text.encode()
    if _core.openings(encoded) != _loading.reference_openings(encoded):
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
    for (response, request), (built, python) in zip(_responses(text, ranges), _FORMATS,
                                                    strict=True):
        if _read(built, response, request) != _read(python, response, request):
            raise AssertionError(f"a provider's format differs compiled on {response!r}")
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
