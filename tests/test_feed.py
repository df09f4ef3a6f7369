"""The stream's per-chunk work compiled (``citeaudit.request._feed_core``) and its pure-Python
reference (``citeaudit.request._feed``) release the same text, chunk by chunk, for any answer
cut any way: under each grammar (bracket presets and a user pattern, which holds whole lines),
the default and a custom refusal, plain and rendered, and at the end.

Both are compared in one process whichever mode the suite runs in. Where the core is not
built these tests skip, unless ``CITEAUDIT_REQUIRE_CORE=1`` (as in CI) makes that a failure.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citeaudit import Config, load_snapshot
from citeaudit.core._engine import choose_grammar
from citeaudit.core._refusal import Refusal
from citeaudit.request import _feed, _stream
from citeaudit.request._guard import line_open
from citeaudit.request._render import StreamRenderer
from test_core import PIECES, PROFILE, compiled_or_skip
from test_stream import STREAM_PIECES

COMPILED = compiled_or_skip("citeaudit.request._feed_core")
SNAPSHOT = load_snapshot(json.loads(
    (Path(__file__).parent / "data/seeds/002/passages.json").read_text()))
REFUSALS = [None, "I cannot answer that."]
GRAMMARS = [None, "numeric", "S", "id", "numeric,S", "regex:\\[([0-9]+)\\]"]
answers = st.lists(st.sampled_from([*PIECES, *STREAM_PIECES, "I cannot answer that.",
                                    "  \t", "```\ncode [1]\n```\n", "｀"]),
                   max_size=40).map("".join)


def _feeds(grammar: str | None, refusal: str | None, render: str | None) -> list[Any]:
    """A reference feed and a compiled one, set up as a stream sets them up."""
    config = Config()
    chosen = choose_grammar(SNAPSHOT, grammar, config)
    refusals = config.refusals if refusal is None else Refusal.of(refusal, None)
    made = []
    for kind in (_feed.Feed, COMPILED.Feed):
        renderer = None if render is None else StreamRenderer(render, SNAPSHOT)  # type: ignore[arg-type]
        made.append(kind(chosen, refusals, SNAPSHOT, _stream._bracket_only(chosen),
                         renderer=renderer, refs=None if renderer is None else []))
    return made


def _pieces(text: str, cuts: list[int]) -> list[str]:
    pieces, position = [], 0
    for cut in [*sorted(set(cuts)), len(text)]:
        if cut > position:
            pieces.append(text[position:cut])
            position = cut
    return pieces


def _assert_same(text: str, cuts: list[int], grammar: str | None, refusal: str | None,
                 render: str | None) -> None:
    reference, compiled = _feeds(grammar, refusal, render)
    for piece in _pieces(text, cuts):
        assert compiled.feed(piece) == reference.feed(piece), (text, cuts, piece)
    assert compiled._stop() == reference._stop() == text
    assert compiled._flush() == reference._flush(), (text, cuts)
    if render is not None:
        assert compiled._refs == reference._refs


@PROFILE
@given(answers, st.lists(st.integers(0, 400), max_size=60), st.sampled_from(GRAMMARS),
       st.sampled_from(REFUSALS), st.sampled_from([None, "html", "markdown"]))
def test_compiled_feed_equals_reference(text: str, cuts: list[int], grammar: str | None,
                                        refusal: str | None, render: str | None) -> None:
    _assert_same(text, cuts, grammar, refusal, render)


@PROFILE
@given(answers, st.sampled_from(GRAMMARS))
def test_compiled_feed_equals_reference_a_character_at_a_time(text: str,
                                                              grammar: str | None) -> None:
    _assert_same(text, list(range(len(text))), grammar, None, None)


@PROFILE
@given(st.text(st.sampled_from("[]［］\nx \r\u2028"), max_size=30), st.booleans())
def test_line_open_equals_the_guards(text: str, opened: bool) -> None:
    assert COMPILED.line_open(text, opened) == line_open(text, opened)


@pytest.mark.parametrize("size", [198, 199, 200, 201, 202])
def test_bracket_contents_at_the_bound_equal(size: int) -> None:
    """A ``[`` is held while its content may still be a marker's (at most 200 characters)."""
    content = ("1, " * size)[:size]
    for text in (f"See [{content}", f"See [{content}] next", f"See [{content}]",
                 f"See [{content}\n more", f"See ［{content}］ next"):
        for cut in range(len(text) - 4, len(text) + 1):
            _assert_same(text, [cut], None, None, None)
        _assert_same(text, list(range(0, len(text), 4)), None, None, None)


@pytest.mark.parametrize("blanks", ["", " ", "  ", "   ", "    ", "\t\t\t", " \t  ", " \r",
                                    "\r ", "\t \r"])
@pytest.mark.parametrize("fence", ["```", "~~~", "````", "``", "~~"])
def test_fences_after_blanks_equal(blanks: str, fence: str) -> None:
    """A fence opens after at most three spaces or tabs, and a blank line inside it does not
    end its paragraph: brackets inside are code.
    """
    text = (f"One [1].\n{blanks}{fence}\nx [9] y\n\n[9] `z\n{blanks}{fence}\nTwo [9] z.\n\n"
            "Three [1].")
    for size in (1, 2, 4, 9):
        _assert_same(text, list(range(0, len(text), size)), None, None, None)


def test_the_examples_equal_in_token_sized_chunks() -> None:
    root = Path(__file__).parent.parent / "examples"
    answers = [path.read_text(encoding="utf-8") for path in sorted(root.rglob("*.md"))
               if "answer" in path.name]
    assert answers
    for text in answers:
        for size in (1, 3, 4, 7, 32):
            _assert_same(text, list(range(0, len(text), size)), None, None, None)
            _assert_same(text, list(range(0, len(text), size)), None, None, "html")


@pytest.mark.parametrize("kind", ["reference", "compiled"])
def test_feed_takes_only_text(kind: str) -> None:
    feed = _feeds(None, None, None)[kind == "compiled"]
    for wrong in (None, b"[1]", 3):
        with pytest.raises(TypeError):
            feed.feed(wrong)
    assert feed.feed("Fine.") == "Fine."


def test_the_stream_uses_the_compiled_feed_unless_pure() -> None:
    pure = os.environ.get("CITEAUDIT_PURE", "").strip() not in ("", "0")
    expected = _feed.Feed if pure else COMPILED.Feed
    assert _stream.StreamAuditor.__mro__[1] is expected


def test_feed_is_documented_in_both() -> None:
    for kind in (_feed.Feed, COMPILED.Feed, _stream.StreamAuditor):
        assert kind.feed.__doc__ == _feed.Feed.feed.__doc__
