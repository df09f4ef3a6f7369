"""Streaming: what is displayed equals the strip policy on the whole answer, for every chunking,
and the final report equals the one-shot audit.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import citeaudit
from citeaudit import guard, stream
from test_properties import PIECES, PROFILE

PASSAGES = json.loads((Path(__file__).parent / "data/seeds/002/passages.json").read_text())
STREAM_PIECES = [*PIECES, "[", "]", "[1", "2]", "`", "``", "~", "~~~\n", "\t", "  ", "\\[1]",
                 "![x]", "[9]", "[3, 9]", "(", "[1]\n\n", "``` \n", "~~ ", "x"]
answers = st.lists(st.sampled_from(STREAM_PIECES), max_size=40).map("".join)


def run(text: str, cuts: list[int], **options: object) -> tuple[list[str], str, citeaudit.Report]:
    """Feed ``text`` cut at ``cuts``; the displayed pieces, the rest, the report."""
    auditor = stream(PASSAGES, **options)  # type: ignore[arg-type]
    shown = []
    position = 0
    for cut in [*sorted(set(cuts)), len(text)]:
        if cut > position:
            shown.append(auditor.feed(text[position:cut]))
            position = cut
    report = auditor.finish()
    return shown, auditor.rest, report


@PROFILE
@given(answers, st.lists(st.integers(0, 400), max_size=60),
       st.sampled_from([None, "numeric", "S", "regex:\\[([0-9]+)\\]"]))
def test_every_chunking_displays_the_stripped_answer(text: str, cuts: list[int],
                                                     grammar: str | None) -> None:
    shown, rest, report = run(text, cuts, grammar=grammar)
    assert "".join(shown) + rest == guard(text, PASSAGES, policy="strip", grammar=grammar).text
    assert report.to_dict() == citeaudit.audit(text, PASSAGES, grammar=grammar).to_dict()


@PROFILE
@given(answers)
def test_one_character_at_a_time(text: str) -> None:
    shown, rest, report = run(text, list(range(len(text))))
    assert "".join(shown) + rest == guard(text, PASSAGES, policy="strip").text
    assert report == citeaudit.audit(text, PASSAGES)


def test_a_split_marker_is_held_until_complete() -> None:
    auditor = stream(PASSAGES, config=citeaudit.Config(claims="strict"))  # "End." a claim
    assert auditor.feed("Settles in 30 days [") == "Settles in 30 days"
    assert auditor.feed("2") == ""
    assert auditor.feed("]") == ""  # a link would continue with "("
    assert auditor.feed(". More") == " [2]. More"
    assert auditor.feed(" text [1") == " text"
    assert auditor.feed("2]. End.") == ". End."  # [12] is not a passage: never shown
    report = auditor.finish()
    assert auditor.rest == ""
    assert [f.code for f in report.findings] == ["CA202", "CA301"]


def test_markdown_link_is_not_a_marker() -> None:
    auditor = stream(PASSAGES)
    shown = auditor.feed("See [9]") + auditor.feed("(https://x.example) now.")
    auditor.finish()
    assert shown + auditor.rest == "See [9](https://x.example) now."


def test_code_is_held_until_its_paragraph_ends() -> None:
    auditor = stream(PASSAGES)
    assert auditor.feed("Run `cmd [9]") == "Run"
    assert auditor.feed("` now [1].\n") == ""
    assert auditor.feed("\nNext [9].") == " `cmd [9]` now [1].\n\nNext."
    auditor.finish()
    assert auditor.rest == ""


def test_refusal_is_held_and_loses_its_markers() -> None:
    auditor = stream(PASSAGES)
    shown = [auditor.feed(piece) for piece in ("Not covered ", "by the provided", " documents.",
                                               " [2]")]
    report = auditor.finish()
    assert "".join(shown) == ""
    assert auditor.rest == "Not covered by the provided documents."
    assert report.status == "unverified"  # CA402: a refusal that cites
    other = stream(PASSAGES)
    assert other.feed("Not quite") == "Not quite"


def test_other_grammars_are_shown_line_by_line() -> None:
    auditor = stream(PASSAGES, grammar="regex:<<([0-9]+)>>")
    assert auditor.feed("A <<1>> b <<") == ""
    assert auditor.feed("9>>.\nNext") == "A <<1>> b.\n"
    auditor.finish()
    assert auditor.rest == "Next"


def test_misuse() -> None:
    auditor = stream(PASSAGES)
    auditor.feed("x")
    auditor.finish()
    with pytest.raises(RuntimeError):
        auditor.feed("y")
    with pytest.raises(RuntimeError):
        auditor.finish()
    assert stream(PASSAGES).feed("") == ""


TRICKY = [
    "Refunds take 30 days [1]. Per diem [2][9]. Bad [7] [8].\n\n- item `[9]` code [3]\n\n"
    "```\n[9]\n```\nafter [1, 9] x [4](http://x) [2]",
    "Not covered by the provided documents. [1]",
    "[1] start [9]\tend [S2] \uff3b\uff11\uff3d \uff3b\uff19\uff3d",
    "Refunds take 30 days [1]. Not covered by the provided documents.",
    "a ` b [9] \n\n c ` d [9]",
    "~~~\n[9]\n\n[8]\n~~~\n[9] ok [1]",
    "code [3]\n\n```\n[9]\n```\nafter [1, 9] x",
    "x" + " " * 300 + "[9]" + "y [" + "z" * 250 + "] [2]",
    "Refunds take 14 days[7]and more [1]. A [7,[9]8] b [1]. A [x [9]] b.\n"
    "`x[1]`[9]```\n[9]```\n\n[9]```\ncode\n```",
]


@pytest.mark.parametrize("text", TRICKY)
def test_many_random_chunkings(text: str) -> None:
    rng = random.Random(text)
    want = guard(text, PASSAGES, policy="strip").text
    for _ in range(200):
        cuts = [rng.randrange(len(text)) for _ in range(rng.randint(1, 25))]
        shown, rest, _ = run(text, cuts)
        assert "".join(shown) + rest == want, cuts


RENDER_PIECES = [*STREAM_PIECES, "www", ".evil.example", "http:", "//", "a@b.example", "<b>",
                 "&amp;", "\n\n", "\n", " \n \n ", "\r", "\u2028", "\u2029", "# ", "*"]
rendered_answers = st.lists(st.sampled_from(RENDER_PIECES), max_size=40).map("".join)


@PROFILE
@given(rendered_answers, st.lists(st.integers(0, 400), max_size=60),
       st.sampled_from(["html", "markdown"]), st.sampled_from([None, "numeric", "S"]))
def test_rendered_streams_equal_the_rendered_whole(text: str, cuts: list[int], to: str,
                                                   grammar: str | None) -> None:
    """``stream(..., render=...)``: everything returned, then the rest, is exactly the
    rendering of the guarded whole, whatever the chunking.
    """
    shown, rest, report = run(text, cuts, grammar=grammar, render=to)
    whole = citeaudit.render(text, PASSAGES, to=to, grammar=grammar)  # type: ignore[arg-type]
    assert "".join(shown) + rest == whole
    assert report == citeaudit.audit(text, PASSAGES, grammar=grammar)


@pytest.mark.parametrize("to", ["html", "markdown"])
@pytest.mark.parametrize("text", [*TRICKY, "See www[2].evil.example now [1].\n\nhttp:[9]//x [2]"])
def test_rendered_streams_on_tricky_answers(text: str, to: str) -> None:
    rng = random.Random(text + to)
    want = citeaudit.render(text, PASSAGES, to=to)  # type: ignore[arg-type]
    for _ in range(100):
        cuts = [rng.randrange(len(text)) for _ in range(rng.randint(1, 25))]
        shown, rest, _ = run(text, cuts, render=to)
        assert "".join(shown) + rest == want, cuts
    shown, _, _ = run("Reimbursements settle within 30 days [2]. And more", [45], render=to)
    assert ("citeaudit-ref" if to == "html" else "[\\[1\\]]") in shown[0]  # a link, early
