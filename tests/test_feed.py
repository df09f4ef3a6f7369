"""The stream's per-chunk work (``citeaudit.request._feed``), compiled from its own Python, and
that Python run as such release the same text, chunk by chunk, for any answer cut any way:
under each grammar (bracket presets and a user pattern, which holds whole lines), the default
and a custom refusal, plain and rendered, and at the end.

Both are compared in one process whichever mode the suite runs in (under ``CITEAUDIT_PURE=1``
the module is its source run twice). Where the core is not built these tests skip, unless
``CITEAUDIT_REQUIRE_CORE=1`` (as in CI) makes that a failure.
"""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citeaudit import Config, _speedups, load_snapshot
from citeaudit.core._engine import choose_grammar
from citeaudit.core._refusal import Refusal
from citeaudit.request import _feed, _stream
from citeaudit.request._render import StreamRenderer
from test_core import PIECES, PROFILE, _source, compiled_or_skip
from test_stream import STREAM_PIECES

compiled_or_skip("citeaudit.request._feed")
FEED_SOURCE = _source("citeaudit.request._feed")
SNAPSHOT = load_snapshot(json.loads(
    (Path(__file__).parent / "data/seeds/002/passages.json").read_text()))
REFUSALS = [None, "I cannot answer that."]
GRAMMARS = [None, "numeric", "S", "id", "numeric,S", "regex:\\[([0-9]+)\\]"]
answers = st.lists(st.sampled_from([*PIECES, *STREAM_PIECES, "I cannot answer that.",
                                    "  \t", "```\ncode [1]\n```\n", "｀"]),
                   max_size=40).map("".join)


def _feeds(grammar: str | None, refusal: str | None, render: str | None) -> list[Any]:
    """A feed run as Python and the one the library runs (compiled where it is built), set up
    as a stream sets them up.
    """
    config = Config()
    chosen = choose_grammar(SNAPSHOT, grammar, config)
    refusals = config.refusals if refusal is None else Refusal.of(refusal, None)
    made = []
    for kind in (FEED_SOURCE.Feed, _feed.Feed):
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
@given(st.text(st.sampled_from("[]［］`~\nx \t\r\u2028"), max_size=12))
def test_the_fast_paths_test_is_its_pattern(text: str) -> None:
    """The loop that lets a chunk through the fast path is the pattern it stands for."""
    assert FEED_SOURCE._quiet(text) == (FEED_SOURCE.QUIET.fullmatch(text) is not None)


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


@pytest.mark.parametrize("kind", ["source", "compiled"])
def test_feed_takes_only_text(kind: str) -> None:
    feed = _feeds(None, None, None)[kind == "compiled"]
    for wrong in (None, b"[1]", 3):
        with pytest.raises(TypeError):
            feed.feed(wrong)
    assert feed.feed("Fine.") == "Fine."


class _Text(str):
    """A subclass of str, as a client's string type may be."""

    __slots__ = ()

    def __str__(self) -> str:
        return "not the text"


@pytest.mark.parametrize("kind", ["source", "compiled"])
def test_feed_takes_a_subclass_of_str_as_its_text(kind: str) -> None:
    """A chunk of a str subclass is its text (the compiled build once refused it), and the
    chunk may be named.
    """
    text = "Fine [1] and [9].\n\n`x` [1] ends  here"
    feed = _feeds(None, None, None)[kind == "compiled"]
    plain = _feeds(None, None, None)[kind == "compiled"]
    for at in range(0, len(text), 3):
        piece = text[at:at + 3]
        assert feed.feed(_Text(piece)) == plain.feed(chunk=piece)
    assert feed._stop() == plain._stop() == text
    assert feed._flush() == plain._flush()


def test_the_stream_uses_the_compiled_feed_unless_pure() -> None:
    """The build compiles the feed from its source, and the stream inherits it: what the
    library runs unless ``CITEAUDIT_PURE=1`` chooses the Python.
    """
    built = importlib.util.find_spec("citeaudit.request._feed")
    assert built is not None
    assert built.origin is not None
    pure = os.environ.get("CITEAUDIT_PURE", "").strip() not in ("", "0")
    assert pure == _speedups.PURE
    assert built.origin.endswith(".py") == pure
    assert _stream.StreamAuditor.__mro__[1] is _feed.Feed
    assert FEED_SOURCE.__file__.endswith("_feed.py")
    assert hasattr(_feed.Feed, "_feed") == pure  # compiled: a C method of an extension type


def test_feed_is_documented_in_both() -> None:
    for kind in (FEED_SOURCE.Feed, _feed.Feed, _stream.StreamAuditor):
        assert kind.feed.__doc__ == FEED_SOURCE.Feed.feed.__doc__
