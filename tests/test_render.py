"""Safe rendering: exact HTML and Markdown, escaping, and what Markdown renderers make of it."""

from __future__ import annotations

import html as html_lib
import json
from pathlib import Path

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options
from markdown_it import MarkdownIt

from citeaudit import canonical_url, guard, neutralise, render, render_html, render_markdown

PASSAGES = json.loads((Path(__file__).parent / "data/seeds/002/passages.json").read_text())
PAYLOADS: list[str] = json.loads((Path(__file__).parent / "data/xss_payloads.json").read_text())
REL = 'rel="noopener noreferrer nofollow" target="_blank"'


def gfm(markdown: str) -> str:
    """GitHub-flavored Markdown with its autolink extension, raw HTML let through."""
    return cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)


def commonmark(markdown: str) -> str:
    """CommonMark with raw HTML enabled."""
    return MarkdownIt("commonmark").render(markdown)


def href(chunk: str) -> str:
    """The attribute value at the start of ``chunk``, entities decoded."""
    return html_lib.unescape(chunk.split('"', 1)[0])


def test_html_is_exact() -> None:
    html = render("Settles in 30 days [2].\n\nFiled in 60 [1][9].", PASSAGES)
    assert html == (
        '<div class="citeaudit-answer">\n'
        '<p>Settles in 30 days <sup class="citeaudit-cite"><a class="citeaudit-ref"'
        f' href="https://hr.example/policy" title="Reimbursement" {REL}>[1]</a></sup>.</p>\n'
        '<p>Filed in 60 <sup class="citeaudit-cite"><a class="citeaudit-ref"'
        f' href="https://hr.example/policy" title="Filing" {REL}>[2]</a></sup>.</p>\n'
        "</div>\n"
        '<div class="citeaudit-status" data-status="unverified" hidden></div>\n'
        '<ol class="citeaudit-sources">\n'
        f'<li value="1"><a href="https://hr.example/policy" {REL}>Reimbursement</a>'
        ' <q class="citeaudit-quote">Reimbursements settle within 30 days of approval. Per diem'
        " claims follow the same schedule.</q></li>\n"
        f'<li value="2"><a href="https://hr.example/policy" {REL}>Filing</a>'  # its own chunk
        ' <q class="citeaudit-quote">Expense reports must be filed within 60 days of'
        " purchase.</q></li>\n"
        "</ol>\n")


def test_markdown_is_exact() -> None:
    markdown = render("Settles in 30 days [2]. Desk [3].\n- **Bold** stays", PASSAGES,
                      to="markdown")
    assert markdown == (
        "Settles in 30 days [\\[1\\]](<https://hr.example/policy>). Desk"
        " [\\[2\\]](<https://hr.example/faq>).\n- **Bold** stays\n"
        "\n"
        "Sources:\n"
        "\n"
        "1. [Reimbursement](<https://hr.example/policy>): \u201cReimbursements settle within 30"
        " days of approval. Per diem claims follow the same schedule.\u201d\n"
        "2. [Contact](<https://hr.example/faq>): \u201cQuestions go to the HR service"
        " desk.\u201d\n")
    assert gfm(markdown).count("<a ") == 4
    assert "<strong>Bold</strong>" in gfm(markdown)


def test_withheld_and_refusal() -> None:
    withheld = render_html(guard("Wrong [7].", PASSAGES, policy="withhold", fallback="<Held>"))
    assert withheld == ('<div class="citeaudit-answer">\n<p>&lt;Held&gt;</p>\n</div>\n'
                        '<div class="citeaudit-status" data-status="unverified"'
                        ' data-withheld="true" hidden></div>\n')
    refusal = render_markdown(guard("Not covered by the provided documents.", PASSAGES))
    assert refusal == "Not covered by the provided documents.\n"


def test_sources_without_a_safe_url_are_not_links() -> None:
    passages = [{"text": "a", "url": "javascript:alert(1)", "title": "JS"},
                {"text": "b", "url": "//evil.example/x", "title": "Relative"},
                {"text": "c", "title": "None"}]
    html = render("A [1]. B [2]. C [3].", passages)
    assert "<a " not in html
    assert 'title="JS">[1]</span>' in html
    markdown = render("A [1]. B [2]. C [3].", passages, to="markdown")
    assert "](" not in markdown
    assert "<a " not in gfm(markdown)


def test_neutralise() -> None:
    assert neutralise("a\x00b\x1b[31m\u202eevil\u2066x\u2069\r\n\u2028ok\tend") == (
        "a\ufffdb\ufffd[31m\ufffdevil\ufffdx\ufffd\n\nok\tend")
    html = render("Bidi \u202edays 03 [1]\x07.", PASSAGES)
    assert "\u202e" not in html
    assert "\x07" not in html
    assert "Bidi \ufffddays 03" in html


@pytest.mark.parametrize("payload", PAYLOADS)
def test_payloads_create_no_markup_or_destination(payload: str) -> None:
    """Every payload, in the answer and as a title and a URL: the only elements our HTML has
    are ours, and Markdown renderers turn it into no link, image or HTML but ours.
    """
    passages = [{"text": payload, "url": "https://docs.example/1", "title": payload},
                {"text": payload, "url": payload, "section": payload}]
    answer = f"{payload} [1]\n\n{payload} [2]."
    html = render(answer, passages)
    for tag in ("<script", "<img", "<iframe", "<svg", "<style", "<form", "<meta", "<base",
                "<object", "<embed", "<link", "<input", "<body", "<math", "<video", "<audio"):
        assert tag not in html.lower()
    # Links come from the snapshot only, to the sources with a safe URL.
    allowed = {url for url in ("https://docs.example/1", canonical_url(payload)) if url}
    assert {href(chunk) for chunk in html.split('href="')[1:]} <= allowed
    markdown = render(answer, passages, to="markdown")
    for rendered in (gfm(markdown), commonmark(markdown)):
        assert {href(chunk) for chunk in rendered.split('href="')[1:]} <= allowed, rendered
        for tag in ("<script", "<img", "<iframe", "<svg", "<style", "<form", "<meta",
                    "<object", "<embed", "<link", "<input", "<video", "<audio", "<x "):
            assert tag not in rendered.lower()


def test_markdown_escapes_keep_the_text() -> None:
    text = "Use a\\b, [x](y), <b>, &amp;, `code`, ![i](j), www.x.example and a@b.example."
    rendered = gfm(render(text, PASSAGES, to="markdown"))
    assert "Use a\\b, [x](y), &lt;b&gt;, &amp;amp;, `code`, ![i](j), www.x.example and" \
        " a@\u2060b.example." in rendered
