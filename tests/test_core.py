"""The modules compiled from their own source and the same modules run as Python give
identical results: claims, citations, malformed markers and ``Report.to_dict()``, over
hypothesis properties on an alphabet of hostile pieces, every example, the segmentation table
and every shape of ``benchmarks/bench_hostile.py``; the segmentation's separator scan and the
bracket loop are held to the patterns they implement.

Both builds are compared in one process whichever mode the suite runs in
(``CITEAUDIT_PURE=1`` only chooses which one the library uses). Where the modules are not
built these tests skip, unless ``CITEAUDIT_REQUIRE_CORE=1`` (as in CI) makes that a failure.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FunctionType, ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from citeaudit import (
    CiteauditError,
    Config,
    Snapshot,
    _speedups,
    audit,
    get_grammar,
    load_snapshot,
    prepare,
)
from citeaudit.core import (
    _amounts,
    _answer,
    _brackets,
    _checks,
    _engine,
    _grammar,
    _policy,
    _segment,
    _sources,
    _unread,
)
from citeaudit.core._answer import Citation
from citeaudit.core._brackets import BRACKET, BracketGrammar, Scan
from citeaudit.core._policy import (
    BLANK_OR_LIST,
    ITEM_LINE,
    LIST_NEXT,
    NOT_CITABLE,
    Exemptions,
    exempt,
    list_items,
    under_cited_lead,
)
from citeaudit.core._segment import Span
from citeaudit.core._sources import resolve_id
from citeaudit.formats import _ranges, _text
from citeaudit.formats._text import TextFormat
from thorough import examples

ROOT = Path(__file__).parent.parent


def compiled_or_skip(name: str) -> None:
    """Skips the tests where the package's module ``name`` is not built (compiled from its
    own source), unless ``CITEAUDIT_REQUIRE_CORE=1`` makes that a failure.
    """
    if _speedups.built(name):
        return
    if os.environ.get("CITEAUDIT_REQUIRE_CORE") == "1":
        raise ImportError(f"{name} is not built")
    pytest.skip("the compiled modules are not built", allow_module_level=True)


compiled_or_skip("citeaudit.core._segment")


_source = _speedups.as_python


SOURCE = _source("citeaudit.core._segment")
POLICY_SOURCE = _source("citeaudit.core._policy")
CHECKS_SOURCE = _source("citeaudit.core._checks")
AMOUNTS_SOURCE = _source("citeaudit.core._amounts")
ENGINE_SOURCE = _source("citeaudit.core._engine")
SOURCES_SOURCE = _source("citeaudit.core._sources")
UNREAD_SOURCE = _source("citeaudit.core._unread")
RANGES_SOURCE = _source("citeaudit.formats._ranges")
BRACKETS_SOURCE = _source("citeaudit.core._brackets")
TEXT_SOURCE = _source("citeaudit.formats._text")
PROFILE = settings(max_examples=examples(400), deadline=None,
                   suppress_health_check=[HealthCheck.too_slow])

# Markers, punctuation, abbreviations, list / heading / table / code openers, CJK, full-width
# forms, NUL and SOH (the masks' own characters), combining and bidi characters.
PIECES = [
    "Refunds take 30 days", " [1]", "[2]", "[S1]", " [S01]", "[1-3]", "[2 and 4]", "[]",
    "[1, 2, and 3]", "［１］", "［S２］", "[doc_1]", "[Source: 2]", "[citation needed]", ". ",
    "! ", "? ", "… ", "。", "！", "[1]。", "\n", "\n\n", "\r\n", "- ", "* ", "• ", "1. ", "2) ",
    "1[1]. ", "12[3] ", "# ", "## Heading\n", "| a | b |\n", "|---|---|\n", "| x [1] |\n",
    "```\n", "~~~\n", "`x[1]`", "e.g. ", "e.g[4]. ", "(e.g[4]. Transfer", "i.e. ", "Dr. ",
    "J. ", "3.5% ", '"Quoted." ', "etc.[1] [3].. ", "> ", "[1](http://x)", "![a][1]",
    "\\[1]", "Not covered by the provided documents.", "[-1]", "[0]", "[1-999999]", "東京",
    "「引用」", " ", "\t", "\x00", "\x01", "\u0301", "e\u0301", "\u202e", "\u200f", "\u2066",
    "\u3000", "\u2028", "---\n", "***\n", "Sources:\n", "[1][2]", "x.[1] [2]", "lower. case",
    "!", "\\", "(", "]", "[", "[1](", "![1]", "[" + "1, " * 66 + "2", "[" + "1," * 99 + "1",
    "x" * 50, "[" + "2 " * 100,  # contents near the 200-character bound
]
answers = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)
texts = st.one_of(answers, st.text(max_size=200))
GRAMMARS = [None, "numeric", "S", "id", "source", "numeric,S"]


# The bracket grammars' scan as the library runs it (compiled where it is built), and the same
# methods of the module run as Python (called with the library's grammars).
_SCANNING = ("scan", "markers", "sight")
LIBRARY_SCAN = tuple(getattr(BracketGrammar, name) for name in _SCANNING)
PYTHON_SCAN = tuple(getattr(BRACKETS_SOURCE.BracketGrammar, name) for name in _SCANNING)


@contextlib.contextmanager
def _using(scan: tuple[Callable[..., Any], ...], text_format: ModuleType = _text,
           ) -> Iterator[None]:
    """The library's bracket scan (``scan``: the grammar's methods) swapped for these, and free
    text read by ``text_format`` (``_text`` or ``TEXT_SOURCE``: its claim assembly compiled or
    as Python).
    """
    saved = (TextFormat.parse, TextFormat.settled)
    for name, method in zip(_SCANNING, scan, strict=True):
        setattr(BracketGrammar, name, method)
    TextFormat.parse = text_format.TextFormat.parse  # type: ignore[method-assign]
    TextFormat.settled = text_format.TextFormat.settled  # type: ignore[method-assign]
    try:
        yield
    finally:
        for name, method in zip(_SCANNING, LIBRARY_SCAN, strict=True):
            setattr(BracketGrammar, name, method)
        TextFormat.parse, TextFormat.settled = saved  # type: ignore[method-assign]


def _both(work: Callable[[Callable[..., Any]], Any]) -> tuple[Any, Any]:
    """``work(segmenter)`` with the compiled bracket scan and claim assembly, then with both
    run as Python.
    """
    with _using(LIBRARY_SCAN):
        compiled = work(_segment.segment)
    with _using(PYTHON_SCAN, TEXT_SOURCE):
        reference = work(_segment.segment)
    return compiled, reference


def _marks(text: str) -> list[Span]:
    scan = get_grammar("numeric,S").scan(text)
    return sorted(Span(m.start, m.end) for m in (*scan.markers, *scan.malformed))


def _parsed(text: str, grammar: str | None) -> Callable[[Callable[..., Any]], Any]:
    def work(segmenter: Callable[..., Any]) -> Any:
        context = prepare(text, ["a", "b", "c"], grammar=grammar, segmenter=segmenter)
        answer = context.answer
        report = audit(text, ["a", "b", "c"], grammar=grammar, segmenter=segmenter)
        return answer.claims, answer.citations, answer.malformed, report.to_dict()
    return work


def _assert_same(text: str) -> None:
    marks = _marks(text)
    assert _segment._masked(text, marks) == SOURCE._masked(text, marks)
    assert _segment.segment(text, marks) == SOURCE.segment(text, marks)
    assert _segment.segment(text) == SOURCE.segment(text)
    pairs = _segment.claim_pairs(text, marks)
    assert pairs == SOURCE.claim_pairs(text, marks) == _segment.segment(text, marks)
    assert {type(pair) for pair in pairs} <= {tuple}  # plain pairs: no Spans made
    for grammar in GRAMMARS:
        compiled, reference = _both(_parsed(text, grammar))
        assert compiled == reference, grammar


# What the segmenter's separator scan (_segment.split) implements, as one pattern: the scan
# must split every text as re.split does with it.
_MARKS = r"(?>(?:\s*\x00+[.!?。！？]*)*)"
# Every separator is one capture group, so re.split returns pieces and separators alternately.
# A sentence end starts with the terminal punctuation and the markers that belong to the
# sentence before it; the rest of every separator is white space (or a table row's "|").
# The pattern opens with one character class and branches on that character by lookbehind:
# the engine then skips ordinary text at C speed (three times faster than an alternation of
# branches with their own first characters, which defeats that skip).
SEPARATOR = re.compile(
    r"([.!?…。！？\n|\x01:](?:"
    # a sentence end, unless lower case or a digit follows ("e.g. the", "3.5%", "No. 5") or
    # the full stop follows an abbreviation or an initial ("Dr. Smith", "J. Smith")
    rf"(?<=[.!?…])(?:(?<!\.)|(?<!\b[A-Z]\.){_segment._after(_segment._TITLES, negated=True)})"
    rf"(?>[.!?…]*[\"'”’)»]*){_MARKS}(?:[ \t\r\n]+(?![a-zà-ÿ0-9 \t\r\n])|[ \t\r\n]*\Z)"
    rf"|(?<=[。！？])(?>[。！？]*[」』”’)）]*){_MARKS}[ \t\r\n]*"  # CJK ends need no space
    r"|(?<=\n)(?:[ \t\r]*\n[ \t\r\n]*"  # a blank line, or a line that opens structure:
    r"|(?=[ \t]*(?:[-*+•‣◦][ \t]|[0-9]{1,9}\x00*[.)][ \t]|#|\||>|\x01"
    r"|(?:-{3,}|\*{3,}|_{3,})[ \t]*$)))"
    r"|(?<=\|)[ \t\r]*\n"  # the end of a table row
    r"|(?<=:)[ \t\r]*\n[ \t\r\n]*"  # the end of a lead-in line ("Sources:")
    r"|(?<=\x01)\x01*"  # a code block
    r"))", re.MULTILINE)


# The separator pattern's own characters, and the abbreviations and initials it knows (with
# the characters case-blind matching folds onto ASCII letters: long s, Kelvin sign).
SEPARATOR_PIECES = [
    *".!?…。！？\n|\x01:\x00 \t\r\u3000AaZzàÿ÷0129\"'”’)»」』）-*+•‣◦#>_ſKİı",
    "Mr", "MRS", "e.g", "i.e", "approx", "Messrs", "ſt", "J", "x", "---", "***", "___",
    "123456789", "1234567890", "\x00\x00", "  ", "\n\n",
]
separator_texts = st.lists(st.sampled_from(SEPARATOR_PIECES), max_size=40).map("".join)


# the grid below and the fuzzer (CI) go further
@settings(max_examples=examples(500), deadline=None)
@given(st.one_of(separator_texts, texts))
def test_separator_scan_equals_the_pattern(text: str) -> None:
    assert _segment.split(text) == SEPARATOR.split(text)
    assert SOURCE.split(text) == SEPARATOR.split(text)


def test_separator_scan_equals_the_pattern_on_a_grid() -> None:
    """Every sentence end, blank and following character, every abbreviation before a full
    stop, and every line opener: exhaustively, where sampling would miss a corner.
    """
    heads = [".", "!", "?", "…", "。", "！", "？", ":", "|", "\x01", "\n"]
    blanks = ["", " ", "\n", "\t\r\n ", "\u3000", " \x00", "\x00. ", "\r"]
    following = [chr(c) for c in range(0x100)] + ["", "ſ", "K", "。", "\u2028", "\uff09"]
    split, pattern = _segment.split, SEPARATOR.split
    for head in heads:
        for blank in blanks:
            for char in following:
                text = f"w{head}{blank}{char}"
                assert split(text) == pattern(text), text
    words = ["x", "A", " A", "(A", "AB", "Mr", "mr", "MRS", " e.g", "(e.g", "i.e", "ſt",
             "approx", "messrs", "Prof", "xprof", "9", "_", "é", "İ.e", "ı.e", "ſr", "mſ",
             "éMr", "Ωmr", "日Mr", "’Dr", "’ A", "éA", "Dr’", "’”Mr"]
    middles = ["", '"', "”)", "»", "」", "\x00", " \x00.", "...", "?!"]
    for word in words:
        for head in ".!?…。":
            for middle in middles:
                for end in ["", " ", " x", " X", "\n1", "  \n"]:
                    text = f"{word}{head}{middle}{end}"
                    assert split(text) == pattern(text), text
    for indent in ["", " ", "\t", "  \t"]:
        for opener in ["-", "*", "+", "•", "‣", "◦", "#", "|", ">", "\x01", "1", "123456789",
                       "1234567890", "1\x00", "1\x00\x00", "---", "***", "___", "--", "-*-",
                       "----", "x"]:
            for after in [".", ")", " ", "\t", "", "\n", "x", ". ", ") ", ".x", "  \n"]:
                for line in ["\n", "\r\n", " \n", "\n\n"]:
                    text = f"a{line}{indent}{opener}{after}"
                    assert split(text) == pattern(text), text


@PROFILE
@given(texts)
def test_compiled_core_equals_reference(text: str) -> None:
    _assert_same(text)


@PROFILE
@given(texts, st.lists(st.tuples(st.integers(0, 220), st.integers(0, 12)), max_size=8))
@example("e.g. ", [(3, 0)])  # an empty mark after an abbreviation: its stop stays
def test_segmentation_equal_for_any_marks(text: str, raw: list[tuple[int, int]]) -> None:
    """Marks anywhere in the text (sorted, in bounds, possibly overlapping), not only where a
    grammar found markers.
    """
    marks = sorted(Span(min(s, len(text)), min(s + n, len(text))) for s, n in raw)
    assert _segment._masked(text, marks) == SOURCE._masked(text, marks)
    assert _segment.segment(text, marks) == SOURCE.segment(text, marks)


@PROFILE
@given(texts, st.lists(st.tuples(st.integers(0, 240), st.integers(-3, 12)), max_size=8))
@example("e.g［１］.", [(3, 6)])  # the only wide characters masked: the result is narrower
@example("ab", [(1, 5)])  # past the end
def test_masking_equal_for_marks_anywhere(text: str, raw: list[tuple[int, int]]) -> None:
    """Marks in any order, past the end of the text or ending before they start: masked in
    place where they lie in the text, by the reference's pieces otherwise.
    """
    marks = [Span(s, s + n) for s, n in raw]
    assert _segment._masked(text, marks) == SOURCE._masked(text, marks)
    assert _segment._masked(text, iter(marks)) == SOURCE._masked(text, marks)


# Every bracket grammar the library makes: the presets, the numbered ones inferred, a prefix's.
BRACKET_GRAMMARS = [_grammar.get_grammar(name) for name in (
    "numeric", "S", "id", "source", "numeric,S", "numeric,S,source")]
BRACKET_GRAMMARS.append(_grammar._prefixed("doc_"))


@PROFILE
@given(texts)
def test_bracket_scans_equal(text: str) -> None:
    """The bracket scan compiled from ``_brackets.py`` finds what the same module run as
    Python finds, with either bracket pattern (the ASCII one found by hand, the full-width one
    by the regex engine), and a ``str`` subclass reads as its text.
    """
    for grammar in BRACKET_GRAMMARS:
        name = grammar.name
        scan = grammar.scan(text)
        assert scan == BRACKETS_SOURCE.BracketGrammar.scan(grammar, text), name
        assert grammar.markers(text) == scan.markers
        assert grammar.scan(_Text(text)) == scan
        for wide in (False, True):
            assert _brackets._scanned(text, grammar, wide) == \
                BRACKETS_SOURCE._scanned(text, grammar, wide), (name, wide)


class _Text(str):
    """A ``str`` subclass, as a caller may pass."""

    __slots__ = ()


def _bracket_spans(module: ModuleType, text: str) -> list[tuple[int, int]]:
    """Every bracket ``module._bracket`` finds in ``text``, one after another."""
    found = []
    at = 0
    while True:
        start, end = module._bracket(text, at)
        if start < 0:
            return found
        found.append((start, end))
        at = end


# Where the hand-found bracket may differ from the pattern: escapes, links, newlines, nested
# brackets, and contents of 199 to 201 characters.
BRACKET_CORNERS = ["[", "]", "\\", "!", "(", "\n", "x", "1", "\uff3b", "é", "東"]


@PROFILE
@given(st.one_of(texts, st.lists(st.sampled_from(BRACKET_CORNERS), max_size=12).map("".join)))
@example("[" + "x" * 199 + "]")
@example("[" + "x" * 200 + "]")
@example("[" + "x" * 201 + "]")
@example("[[" + "x" * 200 + "]")
@example("\\[1] ![2] [3](x) [4]( [5\n] [6]")
def test_the_bracket_loop_is_the_pattern(text: str) -> None:
    """``_brackets._bracket``, compiled and as Python, finds the matches of ``BRACKET``, the
    pattern it implements.
    """
    expected = [match.span() for match in BRACKET.finditer(text)]
    assert _bracket_spans(_brackets, text) == expected
    assert _bracket_spans(BRACKETS_SOURCE, text) == expected


def test_the_blank_loop_is_the_pattern() -> None:
    """``_text.blank``, compiled and as Python, says of every character alone, after white
    space and before another character what ``BLANK``, the pattern it implements, says; a
    subclass of str is read as its text.
    """
    for code in [*range(0x3100), *range(0xfe00, 0x10000), 0x1d173, 0xe0001, 0x10ffff]:
        char = chr(code)
        for text in (char, f" \u200b{char}", f"{char}x", f"\ufeff{char}\n"):
            expected = _text.BLANK.fullmatch(text) is not None
            assert _text.blank(text) is expected, hex(code)
            assert TEXT_SOURCE.blank(text) is expected, hex(code)
    assert _text.blank(_Text(" \t\u00ad"))
    assert not _text.blank(_Text(" x"))
    assert _text.blank("")


def test_the_bracket_loop_on_a_grid() -> None:
    """Every text of up to five of the corner pieces, and each with a 200-character content."""
    pieces = ["[", "]", "\\", "!", "(", "\n", "x"]
    texts_ = [""]
    for _ in range(5):
        texts_ = [*texts_, *(text + piece for text in texts_ for piece in pieces)]
    for text in {*texts_, *(text.replace("x", "x" * 200) for text in texts_)}:
        expected = [match.span() for match in BRACKET.finditer(text)]
        assert _bracket_spans(_brackets, text) == expected, text


# Snapshots numbered 1..N, S1..SN, prefix1..prefixN, and ids as written.
SNAPSHOTS = [["a", "b", "c"], {"sources": [{"id": f"S{n}", "text": "x"} for n in (1, 2, 3)]},
             {"sources": [{"id": f"q#ref{n}", "text": "x"} for n in (1, 2, 3, 4, 5, 6)]},
             {"sources": [{"id": i, "text": "x"} for i in ("doc_1", "2", "Source: 2")]}]


@PROFILE
@given(texts)
def test_resolution_equal(text: str) -> None:
    for sources in SNAPSHOTS:
        snapshot = load_snapshot(sources)
        for name in ("numeric,S", "id", "source"):
            citations = prepare(text, snapshot, grammar=name).answer.citations
            assert _engine._resolved(citations, snapshot.index, resolve_id, snapshot) == \
                ENGINE_SOURCE._resolved(citations, snapshot.index, resolve_id, snapshot)


@PROFILE
@given(texts, st.sampled_from([frozenset(), frozenset(NOT_CITABLE)]))
# The segmenter changes its last claim after making it: a marker-only piece extends it, a
# table's separator row deletes the header row's; a list item under a cited lead-in.
@example("A.\n\n[2]\n\nB [1].", frozenset())
@example("Intro [1].\n| a | b |\n|---|---|\n| c [1] | d [2] |\nTail [2].", frozenset())
@example("Intro [1].\n| a | b |\n|---|---|\nTail [1].", frozenset(NOT_CITABLE))
@example("Methods include [1]:\n- Gradual change\n  - Nested\n- Other.\nDone [2].",
         frozenset(NOT_CITABLE))
@example("1.\nItem one [1].\n2.\nItem two.", frozenset(NOT_CITABLE))
@example("A long list [" + ", ".join(["1", "2"] * 20) + "]. e.g [2]. Next [" + "1" * 70 + "].",
         frozenset())  # marks masked by a string made for each, and by the kept ones
def test_settling_pieces_equal(text: str, rules: frozenset[str]) -> None:
    """What the settled verdict reads: the ids markers name (None at an unresolved one), the
    marks and starts, and the claims assembly makes (-1 at one without a marker).
    """
    for sources in SNAPSHOTS:
        snapshot = load_snapshot(sources)
        for name in ("numeric,S", "id", "source"):
            scan = get_grammar(name).scan(text)
            assert _brackets.sighting(scan, snapshot) == \
                BRACKETS_SOURCE.sighting(scan, snapshot)
            marks = _text._marks(scan.markers, scan.malformed)
            spans = _segment.segment(text, marks)
            starts = ([m.start for m in scan.markers], [m.start for m in scan.malformed])

            def policy(module: ModuleType = _policy, *, rules: frozenset[str] = rules,
                       marks: list[Span] = marks) -> Any:
                return module.Exemptions(text, rules, "\n" in text, marks)

            claims = TEXT_SOURCE._claimed(spans, *starts, policy(POLICY_SOURCE))
            assert _text._claimed(spans, *starts, policy()) == claims
            assert TEXT_SOURCE._claimed(spans, *starts, policy()) == claims
            assert _text._claimed(iter(spans), *starts, policy()) == claims  # any iterable
            # Segmenting only as far as the first claim without a marker changes nothing.
            assert _text._segment_claimed(text, marks, *starts, policy()) == claims
            assert TEXT_SOURCE._segment_claimed(text, marks, *starts, policy()) == claims
            as_python, exemptions = policy(POLICY_SOURCE), policy()
            made = TEXT_SOURCE._assemble(text, spans, tuple(scan.markers), scan.malformed,
                                         as_python)
            assert _text._assemble(text, spans, tuple(scan.markers), scan.malformed,
                                   exemptions) == made
            assert exemptions.found == as_python.found  # the exempted units, as reported
            unmarked = [claim for claim in made[0] if not claim.markers]
            assert claims == (-1 if unmarked else len(made[0]))


@PROFILE
@given(texts)
@example("A [3]. B [4]. C [0]. D [12]. E [99999999999999999999]. F [1000000000000000003].")
@example("A [1]. B [2, 3]. C [S3]. D ［３］. E [03].")
@example("A [3-5]. B [5, 1]. C [2, 13]. D [1-3, 20]. E [S2, 3]. F [1, 02]. G [4,0].")
def test_sighting_equal(text: str) -> None:
    """What settling reads of the markers, without making them, is what the scan's markers
    give (``sighting``, where every id is looked up: the sight reads a plain number of a
    snapshot numbered 1..N without its string): the ids named (None at an unresolved one),
    the marks and the starts; compiled as the module run as Python, with either pattern.
    """
    for sources in [*SNAPSHOTS, [f"passage {n}" for n in range(12)]]:
        snapshot = load_snapshot(sources)
        for name in ("numeric,S", "numeric", "S", "id", "source"):
            grammar = get_grammar(name)
            assert isinstance(grammar, BracketGrammar)
            for wide in (False, True):
                sighted = _brackets._sighted(text, grammar, wide, snapshot)
                assert sighted == BRACKETS_SOURCE._sighted(text, grammar, wide, snapshot)
                scan = Scan(*_brackets._scanned(text, grammar, wide))
                assert sighted == _brackets.sighting(scan, snapshot), wide
            sighted = grammar.sight(text, snapshot)
            assert sighted == _brackets.sighting(grammar.scan(text), snapshot)
            assert sighted == BRACKETS_SOURCE.BracketGrammar.sight(grammar, text, snapshot)
            assert grammar.sight(_Text(text), snapshot) == sighted


@PROFILE
@given(texts)
def test_marks_equal(text: str) -> None:
    for name in ("numeric,S", "id", "source"):
        scan = get_grammar(name).scan(text)
        marks = _text._marks(scan.markers, scan.malformed)
        assert marks == TEXT_SOURCE._marks(scan.markers, scan.malformed)
        assert [type(mark) for mark in marks] == [tuple] * len(marks)  # pairs: no Spans


@st.composite
def _cited_ranges(draw: st.DrawFn) -> tuple[str, list[tuple[int, int, list[Any]]]]:
    """A text and cited ranges of it, sorted by start, as the provider formats make them."""
    text = draw(texts)
    ranges = []
    for _ in range(draw(st.integers(0, 6))):
        low = draw(st.integers(0, len(text)))
        high = draw(st.integers(low, len(text) + 1))
        ids = draw(st.lists(st.sampled_from(["a", "b", "document:0"]), min_size=1, max_size=3))
        ranges.append((low, high, [_answer.Citation(i, None, (low, high), None, f"$.c[{n}]")
                                   for n, i in enumerate(ids)]))
    return text, sorted(ranges, key=lambda item: item[:2])


@PROFILE
@given(_cited_ranges(), st.sampled_from([frozenset(), frozenset(NOT_CITABLE)]))
def test_ranged_equal(case: tuple[str, list[tuple[int, int, list[Any]]]],
                      rules: frozenset[str]) -> None:
    text, cited = case
    spans = _segment.segment(text)
    compiled = _ranges._ranged(text, spans, cited, rules)
    reference = RANGES_SOURCE._ranged(text, spans, cited, rules)
    assert compiled == reference
    assert [type(c) for c in compiled[1]] == [type(c) for c in reference[1]]
    assert _ranges._ranged(text, iter(spans), cited, rules) == reference  # a custom segmenter's

    def cited_by(start: int, end: int, low: int, high: int) -> bool:
        """A range inside a sentence cites it, one across it where they share a letter."""
        inside = text[max(low, start):min(high, end)]
        return low < end and high > start and (
            (start <= low and high <= end) or re.search(r"\w", inside) is not None)

    assert [claim.span for claim in reference[0]] == [  # a cited sentence, or one not exempt
        (start, end) for start, end in spans
        if any(cited_by(start, end, low, high) for low, high, _ in cited)
        or not (rules and exempt(text, start, end, rules))]


def _example_answers() -> list[str]:
    found = [path.read_text(encoding="utf-8") for path in (ROOT / "examples" / "hr").glob("*")
             if path.suffix in (".txt", ".md")]
    for line in (ROOT / "examples" / "eval" / "answers.jsonl").read_text().splitlines():
        record = json.loads(line)
        if isinstance(record.get("answer"), str):
            found.append(record["answer"])
    seeds = ROOT / "tests" / "data"
    found.extend(path.read_text(encoding="utf-8", errors="replace")
                 for path in sorted(seeds.rglob("*")) if path.suffix in (".txt", ".md"))
    return found


# Digit runs in every place the amounts' rules look at: after label words (ASCII, upper
# case, plural, non-ASCII), spaces, "#", ".", "-", letters, brackets; before the plain ends,
# ordinals, "d", letters, separators; the named amounts; other scripts' digits.
AMOUNT_PIECES = [
    "30", "2.4", "1-3", "9/11", "24/7", "401(k)", "529 plan", "3D", "3d", "4th", "21st", "2nd",
    " ", "  ", "#", ".", ",", ";", ":", "%", ")", "(", "-", "/", "\n", "$", "'", "“", "‘",
    "Stage ", "stages ", "Article ", "p. ", "pp ", "page ", "within ", "Windows ", "GPT-",
    "SARS-CoV-", "v", "Room ", "world war ", "Étape ", "straße ", "İ", "x", "ab", "days",
    "٣", "３", "\u0301", "e\u0301 ",
    # shapes of unread markers, which the amounts of an uncited claim leave out
    " (chunk 12)", " [Source 1]", " 【4:0†source】", " (Smith 2020)", " [1]",
]
# A run with what stands right before and after it: where every rule of ``_names`` looks.
placed_runs = st.tuples(
    st.sampled_from(["", "a ", "within ", "Stage ", "stages ", "pp ", "p. ", "Étape ", "ab. ",
                     "x", "x ", "#", "-", "a-", "  ", "$", "(", "\n", "İ "]),
    st.sampled_from(["30", "2.4", "1-3", "529 plan", "401(k)", "9/11", "24/7"]),
    st.sampled_from(["", " ", ",", ".", ";", ":", "%", ")", "\n", "th", "d", "D", "dx", "x",
                     " days", "-day"]),
).map("".join)
amount_texts = st.one_of(
    st.lists(st.one_of(placed_runs, st.sampled_from(AMOUNT_PIECES)), max_size=14).map("".join),
    texts)


@settings(max_examples=examples(1500), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(amount_texts)
@example("within 529 plan")
@example("within 30 days, stages 3; Stage 3)")
@example("ab. 30 a  30 #30 -30 a-30 İ 30 \n30 (30")
def test_amounts_equal(text: str) -> None:
    assert _amounts.states_amount(text) == AMOUNTS_SOURCE.states_amount(text)
    assert _amounts.identifier_spans(text) == AMOUNTS_SOURCE.identifier_spans(text)
    spans = [Span(*found.span()) for found in AMOUNTS_SOURCE._RUN.finditer(text)
             if AMOUNTS_SOURCE._names(text, *found.span())]
    assert _amounts.identifier_spans(text) == spans  # the digit runs are the pattern's
    assert _amounts.states_amount(text) == any(
        not AMOUNTS_SOURCE._names(text, *found.span())
        for found in AMOUNTS_SOURCE._RUN.finditer(text))


class _Text(str):
    """A str of another type: read as its text, compiled as in Python."""


@pytest.mark.parametrize("text", ["Refunds take 30 days.", "GPT-4 and Stage 3", "", "x 9/11"])
def test_amounts_read_a_str_subclass(text: str) -> None:
    assert _amounts.states_amount(_Text(text)) == AMOUNTS_SOURCE.states_amount(text)
    assert _amounts.identifier_spans(_Text(text)) == AMOUNTS_SOURCE.identifier_spans(text)


@pytest.mark.parametrize("text", ["1", "12", "1.2", "1.", "1..2", "1-2-3", "1/2/", "1.-2",
                                  "a1b", "1 2", "١٢", "1.2.3.4-5/6", "-1", "1\u0660"])
def test_run_end_is_the_pattern(text: str) -> None:
    """The digit runs found by the loop are those of ``_RUN``, its specification."""
    found = [match.span() for match in AMOUNTS_SOURCE._RUN.finditer(text)]
    looped, at = [], 0
    while at < len(text):
        if "0" <= text[at] <= "9":
            end = AMOUNTS_SOURCE._run_end(text, at, len(text))
            looped.append((at, end))
            at = end
        else:
            at += 1
    assert looped == found


@pytest.mark.parametrize(("name", "loop"), [("citeaudit.core._checks", "_uncited"),
                                           ("citeaudit.core._amounts", "states_amount"),
                                           ("citeaudit.core._engine", "_resolved")])
def test_compiled_from_source(name: str, loop: str) -> None:
    """The build compiles the checks, the amounts and the engine from their source: what the
    library runs unless ``CITEAUDIT_PURE=1`` chooses the Python.
    """
    module = importlib.import_module(name)
    assert module.__file__ is not None
    assert module.__file__.endswith(".py") == _speedups.PURE
    assert isinstance(getattr(module, loop), FunctionType) == _speedups.PURE  # compiled: C
    assert _source(name).__file__.endswith(".py")
    assert _engine.Context is _checks.Context


def test_every_compiled_module_is_its_own_source_or_a_leaf() -> None:
    """What is compiled is a ``.py`` (a ``.pxd`` beside it) or a leaf of ``citeaudit._speedups``:
    no hand-written copy of a rule anywhere else.
    """
    package = ROOT / "src" / "citeaudit"
    written = sorted(str(path.relative_to(package)) for path in package.rglob("*.pyx"))
    assert written == ["_speedups/_leaves.pyx"]
    for declared in package.rglob("*.pxd"):
        assert declared.with_suffix(".py").is_file(), declared
    for extension in package.rglob("*.so"):
        stem = extension.name.split(".", 1)[0]
        assert extension.with_name(stem + ".py").is_file() or \
            extension.with_name(stem + ".pyx").is_file(), extension


# Uncited sentences whose only digits are in a shape of an unread marker, or in a broken one.
unread_sentences = st.tuples(
    st.sampled_from(["Refunds take long", "Stage 3 is next", "Fees apply", ""]),
    st.sampled_from([" (chunk 12)", " [Source 1]", " 【4:0†source】", " (Smith 2020)",
                     " (doc 2, 3)", " [S01]", " [1-]", " (1)", ""]),
    st.sampled_from([".", "", " 30 days.", ". More text"]),
).map("".join)


@PROFILE
@given(st.one_of(amount_texts, st.lists(amount_texts, max_size=5), unread_sentences,
                 st.lists(unread_sentences, max_size=4).map(" ".join)),
       st.booleans(), st.booleans())
@example("Refunds take long (chunk 12).", True, True)
@example(["Fees apply 【4:0†source】", "Refunds take long [Source 1]"], True, False)
def test_uncited_claims_equal(answer: str | list[str], amounts: bool, every: bool) -> None:
    claims = prepare(answer, ["a", "b", "c"]).answer.claims
    provider = [Citation(i, n, (0, 1), None, None) for i, n in (("a", 1), ("b", 3), ("c", 1))]
    for citations in ((), provider):
        assert _checks._uncited(claims, citations, amounts, every) == \
            CHECKS_SOURCE._uncited(claims, citations, amounts, every)
    for claim in claims:
        assert _checks._needs_citation(claim, amounts, every) == \
            CHECKS_SOURCE._needs_citation(claim, amounts, every)
        for limit in (0, 1, 10, 60):
            assert _checks.quoted(claim.text, limit) == CHECKS_SOURCE.quoted(claim.text, limit)


# Provider citations with a location: each unit, ranges in and out of their source, quotes
# that are the text there, differ from it, differ only in white space, or are missing.
SOURCE_TEXTS = ["The grass is green.", "Refunds  take\n14 days.", "", "東京 café"]
locations = st.tuples(
    st.sampled_from(["char", "page", "block", "source"]), st.integers(-2, 25),
    st.integers(-2, 25), st.sampled_from([None, "", "grass", "The grass", "Refunds take",
                                          "東京", "x"]))


@PROFILE
@given(st.lists(st.tuples(st.one_of(st.none(), locations), st.integers(0, 4)), max_size=6))
def test_located_equal(cited: list[tuple[tuple[str, int, int, str | None] | None, int]]) -> None:
    from citeaudit.core._answer import Location  # noqa: PLC0415

    sources = [{"id": f"d{i}", "text": t, "metadata": {"blocks": [t, "more"]}}
               for i, t in enumerate(SOURCE_TEXTS)]
    index = load_snapshot({"sources": sources}).index
    citations, resolved = [], []
    for where, source in cited:
        place = None if where is None else Location(*where, "document_index 0")
        citations.append(Citation(f"d{source}", 1, (0, 1), None, "$.x", None, None, place))
        resolved.append(f"d{source}" if source < len(SOURCE_TEXTS) else None)
    problem_of = _checks._location_problem
    assert _checks._located(citations, resolved, index, problem_of) == \
        CHECKS_SOURCE._located(citations, resolved, index, problem_of)


# Passages that carry ids, with every field well formed or not.
passage_objects = st.fixed_dictionaries({}, optional={
    "id": st.sampled_from(["a", "b", " c", "", "\u3000d", 7, True, None]),
    "text": st.sampled_from(["The grass is green.", "", 3, None]),
    "url": st.sampled_from(["https://x.example/a", 5, None]),
    "source_url": st.sampled_from(["https://y.example/", None]),
    "title": st.sampled_from(["Title", "", 1, None]),
    "label": st.sampled_from(["Label", None]), "section": st.sampled_from(["§2", 2, None]),
    "score": st.sampled_from([0, 1, 0.5, -1, -0.5, float("inf"), float("nan"), 2 ** 60,
                              10 ** 400, True, "1", None]),
    "rank": st.sampled_from([1, 2, 0, -1, True, 1.0, None]),
    "metadata": st.sampled_from([{}, {"k": "v"}, [], None])})


@PROFILE
@given(st.lists(st.one_of(passage_objects, st.sampled_from(["text", 3])), max_size=5))
def test_passages_equal(passages: list[Any]) -> None:
    """A list of passages read at once (``_passages``), compiled and as Python, gives the
    snapshot (or the error) that reading each passage on its own gives.
    """
    def loaded(module: ModuleType) -> object:
        try:
            snapshot = module.load_snapshot(passages)
        except CiteauditError as error:
            return str(error)
        return snapshot.sources, snapshot.ids_from, snapshot.numbering, snapshot.fingerprint

    compiled = loaded(_sources)
    assert loaded(SOURCES_SOURCE) == compiled
    saved, SOURCES_SOURCE._passages = SOURCES_SOURCE._passages, lambda *_: None
    try:
        assert loaded(SOURCES_SOURCE) == compiled  # each passage read on its own
    finally:
        SOURCES_SOURCE._passages = saved
    carried = not passages or type(passages[0]) is not dict or passages[0].get("id") is not None
    ids = None if carried else _sources.numbered_ids(len(passages))
    read = _sources._passages(passages, ids)
    assert read == SOURCES_SOURCE._passages(passages, ids)
    assert read is None or all(type(source) is _sources.Source for source in read)


@PROFILE
@given(st.lists(st.sampled_from(["text", "", " a passage ", "［１］", "\x00", 3, None,
                                 {"text": "t"}, type("Text", (str,), {})("sub")]), max_size=6))
def test_strings_equal(passages: list[Any]) -> None:
    """A list of bare strings is read as its sources made when first read: the same sources,
    compiled and as Python, as each passage read on its own makes.
    """
    made = _sources._strings(passages)
    assert made == SOURCES_SOURCE._strings(passages)
    assert made == (bool(passages) and all(type(p) is str for p in passages))
    if made:
        lazy = load_snapshot(passages)
        assert len(lazy) == len(passages)
        assert lazy.ids == _sources.numbered_ids(len(passages))
        assert lazy.sources == Snapshot(tuple(
            _sources.Source(str(at), text) for at, text in enumerate(passages, 1))).sources
        assert all(type(source) is _sources.Source for source in lazy.sources)
        assert lazy.sources == SOURCES_SOURCE.load_snapshot(passages).sources


def test_every_example_equal() -> None:
    answers = _example_answers()
    assert len(answers) >= 5
    for text in answers:
        _assert_same(text)


@pytest.mark.parametrize("rule", [
    "---", "- - -", "-\t-  -", "***", "* * *", "___", "_ _ _ _", "--", "- -", "-*-", "---x",
    "- Item", "* item - - -", "---  ", "--- [1]", "***\n", "- - -\n"])
def test_rules_and_bullets_equal(rule: str) -> None:
    """A line that opens with a rule character: a thematic break or a list item (between a
    table's header and its separator row, a break keeps the header a header).
    """
    for text in (rule, f"Fact [1].\n{rule}\nMore [2].", f"Intro:\n{rule}\n\n{rule}",
                 f"| a | b |\n\n{rule}\n|---|---|\n| x [1] |"):
        _assert_same(text)


def test_segment_table_equal() -> None:
    from test_segment import CASES  # noqa: PLC0415 -- the table lives with its own tests

    for _, text, _ in CASES:
        _assert_same(text)
    _assert_same("\n".join(case[1] for case in CASES))


def test_hostile_shapes_equal() -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from bench_hostile import SHAPES  # noqa: PLC0415 -- a benchmark's table
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    for shape in SHAPES.values():
        _assert_same(shape * 300)
        _assert_same(f"Fact {shape * 50} end. [1]")


def test_custom_segmenter_sequence_accepted() -> None:
    """A segmenter may return any sequence of spans; both assemblies read it alike."""
    text = "One [1]. Two. Three [2]."

    def work(segmenter: Callable[..., Any]) -> Any:
        return prepare(text, ["a", "b"], segmenter=lambda t, m: tuple(segmenter(t, m))).answer

    compiled, reference = _both(work)
    assert compiled == reference
    assert len(compiled.claims) == 3


def _version(pure: bool) -> str:
    env = {**os.environ, "CITEAUDIT_PURE": "1" if pure else "0"}
    done = subprocess.run([sys.executable, "-m", "citeaudit", "--version"], env=env,
                          capture_output=True, text=True, check=True)
    return done.stdout


def test_version_names_the_mode() -> None:
    assert "pure Python (CITEAUDIT_PURE=1)" in _version(pure=True)
    assert "(compiled)" in _version(pure=False)


@pytest.mark.parametrize("pure", [True, False])
def test_the_variable_chooses_the_build_of_a_module_compiled_from_source(pure: bool) -> None:
    """``CITEAUDIT_PURE=1`` runs ``_segment.py`` though its extension is built beside it; without
    it the extension runs, and the version names the mode either way.
    """
    env = {**os.environ, "CITEAUDIT_PURE": "1" if pure else "0"}
    shown = "import citeaudit.core._segment as s; print(s.__file__)"
    done = subprocess.run([sys.executable, "-c", shown], env=env, capture_output=True,
                          text=True, check=True)
    assert done.stdout.strip().endswith("_segment.py") is pure
    assert ("pure Python" in _version(pure)) is pure


def test_the_compiled_builds_page_runs() -> None:
    page = (ROOT / "docs" / "compiled.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", page, re.DOTALL)
    assert blocks
    for block in blocks:
        exec(compile(block, "docs/compiled.md", "exec"), {})  # the page's own code


def test_the_library_uses_the_chosen_mode() -> None:
    compiled = _speedups.compiled()
    assert (not _segment.__file__.endswith(".py")) is compiled  # built from its own source
    assert (not _brackets.__file__.endswith(".py")) is compiled
    assert (not _text.__file__.endswith(".py")) is compiled
    assert (not _ranges.__file__.endswith(".py")) is compiled
    if os.environ.get("CITEAUDIT_PURE", "0") not in ("", "0"):
        assert not compiled
    elif os.environ.get("CITEAUDIT_REQUIRE_CORE") == "1":
        assert compiled


REPORTED_ANSWERS = ["Refunds take 14 days [1]. Cards cost 5 dollars.", ["A [1].", "B."],
                    {"status": "answered", "text": "A", "citations": ["1", "1"]},
                    "Not covered by the provided documents.", "", "Cards [9] cost 5 [1-]."]


@pytest.mark.parametrize("answer", REPORTED_ANSWERS)
def test_a_report_is_a_frozen_value_measured_once(answer: Any) -> None:
    import dataclasses  # noqa: PLC0415 - only here
    import pickle  # noqa: PLC0415

    from citeaudit.core import _report  # noqa: PLC0415

    report = audit(answer, ["Refunds take 14 days.", "Cards cost 5 dollars."])
    measured: list[int] = []

    def measure() -> Any:
        measured.append(1)
        return report.metrics

    lazy = _report.new_report(report.findings, measure, report.status, report.passed,
                              report.checked, report.not_checked, report.grammar,
                              report.snapshot, report.reasons, report.shape,
                              report.grammar_reason, report.support, report.exempt)
    assert not measured
    assert lazy == report
    assert lazy.to_dict() == report.to_dict()
    assert hash(lazy) == hash(report)
    assert pickle.loads(pickle.dumps(lazy)) == report
    assert len(measured) == 1  # when first read, once
    with pytest.raises(dataclasses.FrozenInstanceError):
        lazy.passed = False  # type: ignore[misc]
    settled = _report.new_report((), measure, report.status, report.passed, report.checked,
                                 report.not_checked, report.grammar, report.snapshot,
                                 shape=report.shape, grammar_reason=report.grammar_reason,
                                 support=report.support, complete=lambda: lazy)
    assert settled == report  # its findings, reasons and metrics the whole report's


# The claim policy's openings, closings and list shapes, in any order.
policy_texts = st.lists(st.sampled_from([
    "However, ", "it is important to note that ", "the passages ", "do not mention ",
    "is unclear", "Here are ", "the following", "Thanks for asking", "I hope this helps",
    "Results may vary", "by 10%", "several methods", "Fees apply", "Refund Rules For Members",
    "?", "？", ":", ".", "。", "!", "*", "_", "**Note**", " ", "\n", "\n\n", "- ", "1. ",
    "’", "”", "\"", "'", ")", "İ", "Would you like more details", "Fees apply to all cards",
    "\r\n", "1[2]. ", "the of and"]), max_size=14).map("".join)


@PROFILE
@given(policy_texts, st.integers(0, 80), st.integers(0, 80), st.booleans())
@example("**", 0, 2, False)  # nothing left before the closing characters
@example("Fees apply to all cards\n\nMore.", 0, 23, False)  # a title line of five words
@example("Fees apply to all the cards\n- a", 0, 27, False)  # six: not one
@example("  Refund Rules For Members *\r\n\r\nFees.", 2, 26, False)
@example("Fees apply.\n- a\n- b", 0, 11, False)
@example("Several methods exist. *\r\n \n\t- a", 0, 22, False)  # a list after blank lines
@example("Several methods exist.\r- a", 0, 22, False)  # a carriage return alone: no break
@example("Several methods exist.\n\n12[3]) a", 0, 22, False)
def test_policy_equal(text: str, low: int, high: int, listed: bool) -> None:
    """The compiled policy decides as its own source run as Python."""
    if not text:
        return
    start = min(low, len(text) - 1)
    end = min(max(start + 1, high), len(text))
    assert _policy.policy_rule(text, start, end, listed) == \
        POLICY_SOURCE.policy_rule(text, start, end, listed)
    rules = frozenset(NOT_CITABLE[::2])
    assert _policy.exempt(text, start, end, rules, listed) == \
        POLICY_SOURCE.exempt(text, start, end, rules, listed)


def test_policy_is_compiled() -> None:
    """The build compiles the policy from its source: what the library runs unless
    ``CITEAUDIT_PURE=1`` chooses the Python.
    """
    built = importlib.util.find_spec("citeaudit.core._policy")
    assert built is not None
    assert built.origin is not None
    assert built.origin.endswith(".py") == _speedups.PURE
    assert POLICY_SOURCE.__file__.endswith("_policy.py")


def test_policy_equal_on_the_tables() -> None:
    compared = 0
    for name in ("citable.jsonl", "citable_heldout.jsonl"):
        for line in (Path(__file__).parent / "data" / name).read_text("utf-8").splitlines():
            record = json.loads(line)
            answer = record["answer"]
            for sentence in record["sentences"]:
                start = answer.index(sentence["text"])
                end = start + len(sentence["text"])
                assert _policy.policy_rule(answer, start, end) == \
                    POLICY_SOURCE.policy_rule(answer, start, end), sentence["text"]
                compared += 1
    assert compared > 250


def test_collect_equal() -> None:
    from citeaudit.core._findings import Finding, Problem  # noqa: PLC0415 - only here
    from citeaudit.core._rules import RULES, Rule, Severity  # noqa: PLC0415

    def check(context: Any) -> list[Problem]:
        return []

    check.rules = [Rule("CA999", "own-rule", Severity.WARNING, "a rule of its own")]  # type: ignore[attr-defined]
    problems = [Problem("CA301", "uncited", 1, (0, 4)), Problem("CA999", "its own", 2),
                Problem("CA202", "out of range", 1, (5, 8), "[9]", "9", None),
                Problem("CA101", "broken", None, None, "[1-]")]
    config = Config(ignore=("CA202",), severity={"CA301": Severity.ERROR})
    made: list[list[Finding]] = [[], []]
    for found, collect in zip(made, (_engine._collect, ENGINE_SOURCE._collect), strict=True):
        collect(found, problems, config.enabled, config.severity_of, Finding, RULES,
                _engine._own_finding, check)
    assert made[0] == made[1]
    assert [(f.code, f.severity) for f in made[0]] == [
        ("CA301", Severity.ERROR), ("CA999", Severity.WARNING), ("CA101", Severity.WARNING)]
    assert all(type(f) is Finding for f in made[0])


list_texts = st.lists(st.sampled_from([
    "\n", "\n\n", " ", "\t", "- ", "* ", "+ ", "• ", "‣ ", "◦ ", "-", "1. ", "12) ", "1234567890. ",
    "3[1]. ", "4[1][2]) ", "5[" + "x" * 41 + "]. ", "6[a\nb]. ", "7[]. ", "x", "Fees apply.",
    "[", "]", ".", ")", "9"]), max_size=16).map("".join)


@PROFILE
@given(list_texts)
@example("- a\n1[1]. b")
@example("- a\n5[" + "x" * 40 + "]. b\n6[" + "x" * 41 + "]. c")  # the markers' bound
def test_list_items_equal(text: str) -> None:
    assert list_items(text) == POLICY_SOURCE.list_items(text) == _items_by_pattern(text)


def _items_by_pattern(text: str) -> frozenset[int]:
    """``list_items`` as the patterns its loops implement would find them."""
    if "\n" not in text:
        return frozenset()
    items = {at + 1 for at, char in enumerate(text) if char == "\n" and
             ITEM_LINE.match(text, at + 1)}
    if items and ITEM_LINE.match(text):
        items.add(0)
    return frozenset(items)


# The layout the policy's loops read: bullets, numbers with markers, blanks, line breaks.
LAYOUT_PIECES = [
    *"-*+•‣◦·0129.)[]x \t\r\n_:", "1234567890", "123456789", "[1]", "[" + "x" * 40 + "]",
    "[" + "x" * 41 + "]", "[a\nb]", "\r\n", "\n\n", "**"]
layout_texts = st.lists(st.sampled_from(LAYOUT_PIECES), max_size=14).map("".join)


@settings(max_examples=examples(1500), deadline=None)
@given(layout_texts, st.integers(0, 30))
@example("x\n 1[1]. ", 1)
@example("x *\r\n\t\r\n", 1)  # a blank line of a carriage return and a line feed
@example("x\r\n\r", 1)  # a carriage return alone after the blank line: no list, no blank
def test_layout_loops_equal_the_patterns(text: str, at: int) -> None:
    """The policy's layout loops (run as Python: the compiled build is held to that by the
    tests above) match where the patterns they implement match.
    """
    at = min(at, len(text))
    size = len(text)
    assert POLICY_SOURCE._list_next(text, at, size) == (LIST_NEXT.match(text, at) is not None)
    assert POLICY_SOURCE._item_line(text, at, size) == (ITEM_LINE.match(text, at) is not None)
    assert POLICY_SOURCE._blank_or_list(text, at, size) == \
        (BLANK_OR_LIST.match(text, at) is not None)


lead_texts = st.lists(st.sampled_from([
    "Causes include [1]:", "Causes include:", "Fees apply [2].", "\n", "\n\n", "- ", "1. ",
    "  ", "\t", "\n\t", "Gradual liberalization", "Tariff cuts [1-]", "x", " [3]"]),
    max_size=14).map("".join)


@PROFILE
@given(lead_texts)
@example("Causes include [12] [13]:\n- Gradual liberalization\n  more\n- Tariff cuts")
@example("Causes include [1]:\n- a.\n\tMore.\n- c")  # a line indented by a tab
def test_under_cited_lead_equal(text: str) -> None:
    marks = _marks(text)
    spans = _segment.segment(text, marks)
    items = list_items(text)
    for at in range(len(spans)):
        assert under_cited_lead(text, spans, at, items, marks) == \
            POLICY_SOURCE.under_cited_lead(text, spans, at, items, marks)
        start, end = spans[at]
        for rules in (frozenset(NOT_CITABLE), frozenset(), frozenset(["listed"])):
            assert Exemptions(text, rules, True, marks).exempts(spans, at, start, end) == \
                POLICY_SOURCE.Exemptions(text, rules, True, marks).exempts(spans, at, start, end)


@PROFILE
@given(st.lists(st.tuples(st.text(max_size=30), st.one_of(
    st.text(max_size=300), st.sampled_from(["", "ascii only", "東京", "\ud800 lone", "e\u0301",
                                            "\x00", "x" * 70000]))), max_size=6))
@example([("1", "\udfff"), ("\ud83d", "")])  # lone surrogates: written as surrogatepass does
def test_fingerprinted_equal(parts: list[tuple[str, str]]) -> None:
    sources = tuple(_sources.Source(given, text) for given, text in parts)
    assert _sources._fingerprinted(sources) == SOURCES_SOURCE._fingerprinted(sources)
    texts = type("Text", (str,), {})
    subclassed = tuple(_sources.Source(texts(given), texts(text)) for given, text in parts)
    assert _sources._fingerprinted(subclassed) == SOURCES_SOURCE._fingerprinted(sources)


@PROFILE
@given(st.one_of(texts, st.lists(st.sampled_from(
    ["[", "[ ", "[\u3000", "[\u2028\t ", "[    ", "1", "so", "SO", "\u017fo", "sR", "Do", "pA",
     "re", "CH", "co", "s", "S", "s:", "S#", "s_", "s-", "s9", "sid", "Sid", "sId", "s\u00a0",
     "ci", "x", "]", "[[", "\u212a", "[\u017f", "["]), max_size=30).map("".join)))
@example("[ \u017fo] [S id] [Sid] [s\u2003] [\t\t\t\t1] [\t\t\t1] [ſr")
def test_square_hints_equal(text: str) -> None:
    """The hints' loop, compiled and as Python, counts the matches of the pattern it
    implements (``SQUARE_HINT``), of a ``str`` subclass too.
    """
    expected = len(_unread.SQUARE_HINT.findall(text))
    assert _unread.square_hints(text) == expected
    assert UNREAD_SOURCE.square_hints(text) == expected
    assert _unread.square_hints(type("Text", (str,), {})(text)) == expected
