"""The HTML report's cards of failed records, read as HTML (the browser tests load it): every
failed record says why, shows its passages or says why not, and all data is escaped.
"""

from __future__ import annotations

import html
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

import report_cases
from citeaudit.cli import ExitCode
from citeaudit.eval import Aggregate
from citeaudit.report import html_report
from citeaudit.report._cards import FILTER_SCRIPT, NO_PASSAGES, PASSAGE_CHARS

FAILED = 9  # of the ten report cases, all but "passes"


class Elements(HTMLParser):
    """Every start tag with its attributes, and the text of every script."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"
        if self._in_script:
            self.scripts.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts[-1] += data


def parsed(page: str) -> Elements:
    elements = Elements()
    elements.feed(page)
    return elements


def cards(page: str) -> dict[str, str]:
    """Each card's HTML by its record id (the id as the page shows it, unescaped)."""
    found = {}
    for card in page.split('<div class="record"')[1:]:
        heading = re.search(r"<h3>(.*?) <small>", card)
        assert heading is not None
        found[html.unescape(heading[1])] = card
    return found


@pytest.fixture
def report(run: Any, tmp_path: Path) -> str:
    out = tmp_path / "report.html"
    data = report_cases.write(tmp_path / "d.jsonl")
    result = run("eval", str(data), "--report", str(out), "-o", str(tmp_path / "r.jsonl"))
    assert result.code == ExitCode.FAILED
    return out.read_text(encoding="utf-8")


def test_hostile_text_is_escaped_everywhere(report: str) -> None:
    """Ids, tag values and passages with markup: shown as text, in the cards, the filters'
    options and the cards' data attributes; the one script is the report's own.
    """
    hostile = report_cases.HOSTILE
    assert hostile not in report
    assert "<img" not in report
    escaped = str(html.escape(hostile, quote=True)).replace("&#x27;", "&#39;")
    by_id = cards(report)
    card = by_id[f"hostile {hostile}"]
    assert f'<span class="tag">topic={escaped}</span>' in card
    assert f"Refunds take 5 days. {escaped}</blockquote>" in card
    elements = parsed(report)
    assert elements.scripts == [FILTER_SCRIPT]
    assert {tag for tag, _ in elements.tags} <= {
        "html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "h4", "table",
        "tr", "th", "td", "p", "div", "figure", "figcaption", "svg", "line", "text", "rect",
        "small", "ul", "li", "pre", "mark", "br", "form", "label", "select", "option",
        "input", "span", "blockquote", "strong", "script"}
    assert not [name for _, attrs in elements.tags for name in attrs if name.startswith("on")]
    # The filters read the attributes back as the same strings the options carry.
    data_tags = [json.loads(attrs["data-tags"] or "") for tag, attrs in elements.tags
                 if "data-tags" in attrs]
    assert ["lang=en", f"topic={hostile}"] in data_tags
    options = [attrs["value"] for tag, attrs in elements.tags if tag == "option"]
    assert f"topic={hostile}" in options
    assert f"lang={report_cases.WIDE_TAG}" in options


def test_every_failed_record_says_why(report: str) -> None:
    by_id = cards(report)
    assert len(by_id) == FAILED
    assert "passes" not in by_id
    for record_id, card in by_id.items():
        why = card.split('<div class="why">', 1)[1].split("</div>", 1)[0]
        assert why.count('<li class="fail">') >= 1, record_id
    assert ("citation_coverage: recall 0.25 &lt; min-recall 0.50 (cited 1 of 4 retrieved"
            " passages, the default threshold: change it with --min-recall or min-recall in the"
            " configuration)") in by_id["low-recall"]
    assert "(cited 1 of 3 relevant passages" in by_id["gold-recall"]
    assert ("refused an answerable question: the record is labelled &#34;answerable&#34;:"
            " true") in by_id["refused"]
    assert ("answered an unanswerable question: the record is labelled"
            " &#34;answerable&#34;: false") in by_id["answered-unanswerable"]
    assert '<li class="fail">CA201 unknown-source</li>' in by_id["unknown-id"]
    assert "precision 0.50 &lt; min-precision 0.90 (1 of 2 cited ids name a retrieved" \
        " passage" in by_id["unknown-id"]


def test_each_claim_is_shown_beside_its_cited_passages(report: str) -> None:
    by_id = cards(report)
    out_of_range = by_id["out-of-range"]
    assert re.search(r'<div class="claim-text">1\. Refunds take 5 days \[1\]\.</div>'
                     r'<div class="passages"><blockquote class="passage"><span class="pid">'
                     r"passage 1</span> \[1\]: Refunds take 5 days\.</blockquote></div>",
                     out_of_range)
    assert "passage 7</span> [7]: no such passage among the retrieved ones" in out_of_range
    assert "Retrieved and not cited: 2, 3, 4" in by_id["low-recall"]
    assert "The answer makes no claim, so cites no passage." in by_id["refused"]
    assert "<p>Retrieved and not cited: zz" not in by_id["unknown-id"]
    assert "Retrieved and not cited: b" in by_id["unknown-id"]


def test_a_report_from_results_says_it_has_no_passages(run: Any, tmp_path: Path) -> None:
    """merge's report is made from results files, which hold no passages: each card still
    says why its record failed, and says that its passages are not there.
    """
    data = report_cases.write(tmp_path / "d.jsonl")
    results = tmp_path / "r.jsonl"
    run("eval", str(data), "-o", str(results))
    out = tmp_path / "merged.html"
    assert run("merge", str(results), "--report", str(out)).code == ExitCode.FAILED
    by_id = cards(out.read_text(encoding="utf-8"))
    assert len(by_id) == FAILED
    for card in by_id.values():
        assert html.escape(NO_PASSAGES, quote=True).replace("&#x27;", "&#39;") in card
        assert '<li class="fail">' in card.split('<div class="why">', 1)[1]
    assert "(cited 1 of 4 retrieved passages" in by_id["low-recall"]
    assert 'data-tags="[&#34;lang=de&#34;, &#34;topic=billing&#34;]"' in by_id["gold-recall"]


def test_a_card_without_reasons_or_passages_says_what_it_can() -> None:
    """Results of an older citeaudit name no reasons: the card falls back to the error
    findings, then to the status; a long passage is cut and says so.
    """
    base = {"place": "line 1", "metrics": {}, "tags": {}}
    worst: list[dict[str, Any]] = [
        {**base, "id": "errors", "status": "unverified",
         "findings": [{"code": "CA202", "severity": "error", "message": "[7] cites 7"},
                      {"code": "CA302", "severity": "warning", "message": "a quantity"}]},
        {**base, "id": "status", "status": "ok", "findings": []},
        {**base, "id": "long", "status": "ok", "findings": [], "reasons": ["custom: failed"],
         "claims": [{"number": 1, "text": "A claim [1].",
                     "cited": [{"id": "1", "marker": "[1]", "text": "x" * 5000}]}]},
    ]
    page = html_report(Aggregate(0.9, 0.5), worst, title="t")
    by_id = cards(page)
    assert '<li class="fail">CA202 out-of-range: [7] cites 7</li>' in by_id["errors"]
    assert "CA302 unmarked-quantity: a quantity</li>" not in by_id["errors"].split(
        "<h4>Findings", 1)[0]
    assert '<li class="warn">CA302 unmarked-quantity warning: a quantity</li>' in \
        by_id["errors"]
    assert "status ok (the results name no other reason)" in by_id["status"]
    assert "x" * PASSAGE_CHARS + "\u2026</blockquote>" in by_id["long"]
    assert "x" * (PASSAGE_CHARS + 1) not in by_id["long"]
    assert "<li class=\"fail\">custom: failed</li>" in by_id["long"]


def test_a_card_lists_what_was_not_asked_to_carry_a_citation(run: Any, tmp_path: Path) -> None:
    """The sentences the claim policy exempted are on the failed record's card, with their
    kind and score, beside the findings."""
    record = {"id": "exempting", "sources": ["Refunds take 5 days."],
              "answer": "Thanks for asking! Refunds take 5 days [1]. Would you like more?"
                        " Cards cost 9 dollars."}
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps(record) + "\n", encoding="utf-8")
    out = tmp_path / "report.html"
    assert run("eval", str(data), "--report", str(out), "-o",
               str(tmp_path / "r.jsonl")).code == ExitCode.FAILED
    card = cards(out.read_text(encoding="utf-8"))["exempting"]
    shown = card.split("<h4>Not asked to carry a citation</h4>", 1)[1]
    assert '<span class="kind">pleasantry</span> (a rule): Thanks for asking!' in shown
    assert '<span class="kind">question</span> (a rule): Would you like more?' in shown
    assert "Cards cost 9 dollars" not in shown  # an amount: CA302, not exempt
