"""Hostile answers, titles, labels and URLs rendered and loaded in headless Chromium: no script
runs, no request leaves the page, and the only links are the snapshot's.
"""

from __future__ import annotations

import io
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options
from markdown_it import MarkdownIt

import report_cases
from citeaudit import canonical_url, render
from citeaudit.report._cards import FILTER_SCRIPT

PAYLOADS: list[str] = json.loads((Path(__file__).parent / "data/xss_payloads.json").read_text())

# What the page reports about itself once loaded.
_INSPECT = """() => {
  const elements = [...document.body.querySelectorAll('*')];
  const risky = ['src', 'srcdoc', 'srcset', 'style', 'formaction', 'action', 'data', 'poster',
                 'xlink:href', 'background'];
  return {
    tags: [...new Set(elements.map(e => e.tagName.toLowerCase()))],
    handlers: elements.flatMap(e => [...e.attributes].filter(a => a.name.startsWith('on'))
                                       .map(a => e.tagName + ' ' + a.name)),
    risky: elements.flatMap(e => [...e.attributes].filter(a => risky.includes(a.name))
                                     .map(a => e.tagName + ' ' + a.name)),
    links: [...document.querySelectorAll('a')].map(a => [a.getAttribute('href'),
                                                           a.getAttribute('rel')]),
    pwned: window.__pwned === true,
  };
}"""
OUR_TAGS = {"div", "p", "br", "sup", "a", "span", "ol", "li", "q"}
# What Markdown renderers make of model formatting; none of these loads anything.
MARKDOWN_TAGS = OUR_TAGS | {"em", "strong", "code", "pre", "blockquote", "ul", "h1", "h2", "h3",
                            "h4", "h5", "h6", "hr", "table", "thead", "tbody", "tr", "th", "td",
                            "del"}


def records() -> list[tuple[str, list[dict[str, str]]]]:
    """Each payload three ways: in the answer text, as source titles and labels, as a URL."""
    out = []
    for number, payload in enumerate(PAYLOADS):
        safe = f"https://docs.example/{number}"
        out.append((f"{payload} [1]. Also {payload} [2].",
                    [{"text": payload, "url": safe, "title": payload},
                     {"text": payload, "url": safe + "/b", "section": payload}]))
        out.append(("Plain claim [1].", [{"text": payload, "url": payload, "title": payload}]))
    return out


def page_of(bodies: list[str]) -> str:
    return ("<!doctype html><html><head><meta charset='utf-8'><title>citeaudit</title></head>"
            "<body>" + "\n<hr>\n".join(bodies) + "</body></html>")


def load(browser: Any, html: str, screenshot: Path) -> dict[str, Any]:
    page = browser.new_page()
    requests: list[str] = []
    events: list[str] = []
    page.on("dialog", lambda dialog: (events.append(f"dialog {dialog.message}"),
                                      dialog.dismiss()))
    page.on("console", lambda message: events.append(f"console {message.text}"))
    page.on("pageerror", lambda error: events.append(f"pageerror {error}"))
    page.route("**/*", lambda route: (requests.append(route.request.url), route.abort()))
    page.add_init_script("window.alert = window.confirm = window.prompt ="
                         " () => { window.__pwned = true; };")
    page.set_content(html, wait_until="load")
    page.wait_for_timeout(300)  # a refresh, a timer or an autofocus handler would fire by now
    report: dict[str, Any] = page.evaluate(_INSPECT)
    page.screenshot(path=str(screenshot), full_page=False)
    page.close()
    report["requests"] = requests
    report["events"] = events
    return report


def assert_inert(report: dict[str, Any]) -> None:
    """Nothing ran, nothing was requested, no element can run or load anything."""
    assert report["events"] == []
    assert report["requests"] == []
    assert not report["pwned"]
    assert report["handlers"] == []
    assert report["risky"] == []


def allowed_links(cases: list[tuple[str, list[dict[str, str]]]]) -> set[str]:
    return {url for _, sources in cases for source in sources
            if (url := canonical_url(source["url"])) is not None}


@pytest.mark.parametrize("policy", ["strip", "drop"])
def test_rendered_html_runs_nothing_and_loads_nothing(browser: Any, tmp_path: Path,
                                                      policy: str) -> None:
    cases = records()
    bodies = [render(answer, sources, policy=policy) for answer, sources in cases]  # type: ignore[arg-type]
    report = load(browser, page_of(bodies), tmp_path / "html.png")
    assert_inert(report)
    assert set(report["tags"]) <= OUR_TAGS | {"hr"}
    allowed = allowed_links(cases)
    assert report["links"], "the safe sources are links"
    for href, rel in report["links"]:
        assert href in allowed
        assert {"noopener", "noreferrer"} <= set(rel.split())
    assert (tmp_path / "html.png").stat().st_size > 0


@pytest.mark.parametrize("renderer", ["gfm", "commonmark"])
def test_rendered_markdown_runs_nothing_and_loads_nothing(browser: Any, tmp_path: Path,
                                                          renderer: str) -> None:
    """Our Markdown through a real Markdown renderer with raw HTML allowed (the worst case):
    the model's text still makes no element, link or request.
    """
    cases = records()
    to_html = (lambda text: cmarkgfm.github_flavored_markdown_to_html(
        text, options=Options.CMARK_OPT_UNSAFE)) if renderer == "gfm" else \
        MarkdownIt("commonmark").render
    bodies = [to_html(render(answer, sources, to="markdown")) for answer, sources in cases]
    report = load(browser, page_of(bodies), tmp_path / "markdown.png")
    assert_inert(report)
    assert set(report["tags"]) <= MARKDOWN_TAGS
    allowed = allowed_links(cases)
    assert report["links"]
    assert {href for href, _ in report["links"]} <= allowed


FRAGMENTS = ["www", ".evil.example", "http:", "//evil.example", "https:", "ftp:", "mailto:",
             "javascript:", "alert(1)", "a", "@", "b.example", "<", "script>", "img src=x",
             ">", "[", "](", "http://evil.example)", "!", "`", "&", "#x3C;", "lt;", "\\",
             " ", "\n", "\n\n", ".", "*", "_", "WWW", "evil", "//", ":", "(", ")", "<http",
             "://evil.example>", "x.", "co"]
# Text that a Markdown renderer turns into a link, image or HTML once its two halves meet.
LINK_TRIGGERS = ["www.evil.example", "http://evil.example", "https://evil.example/x",
                 "ftp://evil.example", "a@b.example", "<http://evil.example>",
                 "[x](http://evil.example)", "![x](http://evil.example/i.png)",
                 "<img src=x onerror=alert(1)>", "&#x3C;script>", "WWW.evil.example",
                 "mailto:a@b.example", "xmpp:a@b.example"]
MARKDOWN_RENDERERS = {
    "gfm": lambda text: cmarkgfm.github_flavored_markdown_to_html(
        text, options=Options.CMARK_OPT_UNSAFE),
    "cmark": lambda text: cmarkgfm.markdown_to_html(text, options=Options.CMARK_OPT_UNSAFE),
    "markdown-it": MarkdownIt("commonmark").render,
    "markdown-it-gfm-like": MarkdownIt("gfm-like", {"linkify": False}).render,
}


def removed_marker_answers(count: int, seed: int) -> list[str]:
    """Random answers of hostile fragments with markers at random places: ``[2]`` names no
    source (the guard removes it, joining its neighbours), ``[1]`` is verified.
    """
    chooser = random.Random(seed)
    answers = []
    for _ in range(count):
        pieces = []
        for _ in range(chooser.randrange(1, 5)):
            trigger = chooser.choice(LINK_TRIGGERS)
            cut = chooser.randrange(1, len(trigger))
            marker = chooser.choice(["[2]", "[2]", "[2][3]", "[1]", "[1, 2]", "[2] "])
            pieces += [trigger[:cut], marker, trigger[cut:],
                       *chooser.choices(FRAGMENTS, k=chooser.randrange(0, 4))]
        answers.append("".join(pieces) + " [1].")
    return answers


@pytest.mark.parametrize("policy", ["strip", "drop"])
def test_removed_markers_never_join_text_into_a_link(browser: Any, tmp_path: Path,
                                                     policy: str) -> None:
    """A property over random answers: whatever the markers removed, every Markdown renderer
    (and the HTML renderer) makes links only to chip URLs.
    """
    sources = [{"text": "Safe passage.", "url": "https://docs.example/safe"}]
    answers = removed_marker_answers(400, seed=len(policy))
    allowed = {"https://docs.example/safe"}
    for name, to_html in MARKDOWN_RENDERERS.items():
        bodies = [to_html(render(answer, sources, to="markdown", policy=policy))  # type: ignore[arg-type]
                  for answer in answers]
        report = load(browser, page_of(bodies), tmp_path / f"{name}.png")
        assert_inert(report)
        assert {href for href, _ in report["links"]} <= allowed, name
    bodies = [render(answer, sources, policy=policy) for answer in answers]  # type: ignore[arg-type]
    report = load(browser, page_of(bodies), tmp_path / "html.png")
    assert_inert(report)
    assert {href for href, _ in report["links"]} <= allowed


def test_the_harness_catches_an_unescaped_payload(browser: Any, tmp_path: Path) -> None:
    """The same checks on raw payloads: they do run and do make requests here."""
    report = load(browser, page_of(PAYLOADS), tmp_path / "raw.png")
    assert report["pwned"] or any(e.startswith("dialog") for e in report["events"])
    assert report["requests"]
    assert report["risky"]


def test_eval_report_loads_offline_with_its_charts(browser: Any, tmp_path: Path) -> None:
    """The HTML report of a dataset run: self-contained, no console error, no request, the
    charts are there, and the worst answers are shown escaped with their findings marked.
    """
    from citeaudit.cli import main  # noqa: PLC0415

    rows = []
    for number in range(40):
        answer = (f"Claim {number} [1]. Hostile <img src=x onerror=alert(1)> [7]."
                  if number % 3 == 0 else f"Settled in {number} days [2]. Filed [1]. Desk [3].")
        rows.append({"id": f"r{number}<b>", "sources": PAYLOADS[:3] if number % 5 == 0 else
                     ["one", "two", "three"], "answer": answer,
                     "tags": {"system": "<script>alert(1)</script>" if number % 2 else "b"}})
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in rows))
    report_path = tmp_path / "report.html"
    code = main([
        "eval", str(data), "--report", str(report_path), "--jobs", "1"])
    assert code == 1
    html = report_path.read_text()
    assert html.lower().count("<script") == 1  # the filters' own, no data's
    assert f"<script>{FILTER_SCRIPT}</script>" in html
    screenshot = tmp_path / "report.png"
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    requests: list[str] = []
    events: list[str] = []
    page.on("console", lambda message: events.append(f"{message.type}: {message.text}"))
    page.on("pageerror", lambda error: events.append(f"pageerror {error}"))
    page.on("dialog", lambda dialog: (events.append("dialog"), dialog.dismiss()))
    page.route("**/*", lambda route: (requests.append(route.request.url), route.abort()))
    page.set_content(html, wait_until="load")
    charts = page.locator("svg[role=img]")
    assert charts.count() == 6  # 3 distributions, findings, tag comparison, sweep
    labels = [charts.nth(i).get_attribute("aria-label") for i in range(charts.count())]
    assert "pass rate by thresholds" in labels
    assert "findings by code" in labels
    assert page.locator("svg[role=img] rect").count() > 100
    marks = page.locator("mark")
    assert marks.count() >= 1
    assert "[7]" in marks.first.inner_text()
    assert page.locator("img, iframe, object, embed").count() == 0
    assert page.evaluate("document.scripts.length") == 1
    assert "onerror=alert(1)" in page.locator("pre").first.inner_text()  # shown, not run
    page.screenshot(path=str(screenshot), full_page=True)
    page.close()
    assert events == []
    assert requests == []
    assert screenshot.stat().st_size > 10_000


# Every pair of text boxes in each chart that intersect, and any box outside its chart.
_OVERLAPS = """() => {
  const problems = [];
  for (const svg of document.querySelectorAll('svg[role=img]')) {
    const frame = svg.getBoundingClientRect();
    const boxes = [...svg.querySelectorAll('text')].map(t => [t.textContent,
                                                              t.getBoundingClientRect()]);
    boxes.forEach(([text, box], i) => {
      if (box.left < frame.left - 0.5 || box.right > frame.right + 0.5)
        problems.push(`${svg.getAttribute('aria-label')}: ${text} leaves the chart`);
      for (const [other, second] of boxes.slice(i + 1)) {
        const apart = box.right <= second.left + 0.5 || second.right <= box.left + 0.5 ||
                      box.bottom <= second.top + 0.5 || second.bottom <= box.top + 0.5;
        if (!apart) problems.push(`${svg.getAttribute('aria-label')}: ${text} / ${other}`);
      }
    });
  }
  return problems;
}"""


@pytest.fixture(scope="module")
def eval_report(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The HTML report of a real eval run over the report cases (tests/report_cases.py)."""
    from citeaudit.cli import main  # noqa: PLC0415

    folder = tmp_path_factory.mktemp("report")
    report = folder / "report.html"
    code = main(["eval", str(report_cases.write(folder / "d.jsonl")), "--report", str(report),
                 "--jobs", "1"], stdout=io.StringIO(), stderr=io.StringIO())
    assert code == 1
    return report.read_text(encoding="utf-8")


class ReportPages:
    """Pages of the report, each in a context of its own (closed after the test); each
    page's list collects its requests, errors and dialogs.
    """

    def __init__(self, browser: Any, html: str) -> None:
        self.browser = browser
        self.html = html
        self.contexts: list[Any] = []

    def open(self, *, scripts: bool = True) -> tuple[Any, list[str]]:
        context = self.browser.new_context(viewport={"width": 1280, "height": 900},
                                           java_script_enabled=scripts)
        self.contexts.append(context)
        page = context.new_page()
        trouble: list[str] = []

        def dismiss(dialog: Any) -> None:
            trouble.append("dialog")
            dialog.dismiss()

        def refuse(route: Any) -> None:
            trouble.append(route.request.url)
            route.abort()

        page.on("console", lambda message: trouble.append(f"{message.type}: {message.text}"))
        page.on("pageerror", lambda error: trouble.append(f"pageerror {error}"))
        page.on("dialog", dismiss)
        page.route("**/*", refuse)
        page.set_content(self.html, wait_until="load")
        return page, trouble


@pytest.fixture
def pages(browser: Any, eval_report: str) -> Iterator[ReportPages]:
    opened = ReportPages(browser, eval_report)
    yield opened
    for context in opened.contexts:
        context.close()


def visible_ids(page: Any) -> list[str]:
    cards = page.locator(".record")
    return [cards.nth(i).locator("h3").evaluate("h => h.firstChild.textContent.trim()")
            for i in range(cards.count()) if cards.nth(i).is_visible()]


FAILED = ["low-recall", "gold-recall", "out-of-range", "unknown-id", "refused",
          "answered-unanswerable", f"hostile {report_cases.HOSTILE}", "long-tag", "caps-tag"]


def test_every_failed_card_says_why_and_shows_its_passages(pages: ReportPages,
                                                           tmp_path: Path) -> None:
    page, trouble = pages.open()
    assert sorted(visible_ids(page)) == sorted(FAILED)
    cards = page.locator(".record")
    by_id: dict[str, Any] = {}
    for i in range(cards.count()):
        card = cards.nth(i)
        record_id = card.locator("h3").evaluate("h => h.firstChild.textContent.trim()")
        by_id[record_id] = card
        reasons = card.locator(".why li").all_inner_texts()
        assert reasons, record_id
        assert all(reason.strip() for reason in reasons), record_id
        shown = card.locator(".passage").count() or card.locator(".missing").count()
        assert shown, f"{record_id} shows no passage and does not say why"
    assert by_id["low-recall"].locator(".why").inner_text().count("\n") >= 1
    assert ("citation_coverage: recall 0.25 < min-recall 0.50 (cited 1 of 4 retrieved passages,"
            " the default threshold: change it with --min-recall or min-recall in the"
            " configuration)") in by_id["low-recall"].locator(".why").inner_text()
    assert "(cited 1 of 3 relevant passages" in by_id["gold-recall"].locator(".why").inner_text()
    assert ("refused an answerable question: the record is labelled \"answerable\": true"
            in by_id["refused"].locator(".why").inner_text())
    assert "makes no claim" in by_id["refused"].locator(".missing").inner_text()
    assert ("answered an unanswerable question: the record is labelled \"answerable\": false"
            in by_id["answered-unanswerable"].locator(".why").inner_text())
    assert "CA202 out-of-range" in by_id["out-of-range"].locator(".why").inner_text()
    # Each cited passage sits beside the claim that cites it, on the same row, to its right.
    claims = by_id["out-of-range"].locator(".claim-text")
    passages = by_id["out-of-range"].locator(".passages")
    assert claims.count() == passages.count() == 2
    for i in range(2):
        claim, passage = claims.nth(i).bounding_box(), passages.nth(i).bounding_box()
        assert claim is not None
        assert passage is not None
        assert abs(claim["y"] - passage["y"]) < 1
        assert passage["x"] >= claim["x"] + claim["width"]
    assert "passage 1 [1]: Refunds take 5 days." in passages.nth(0).inner_text()
    assert "passage 7 [7]: no such passage" in passages.nth(1).inner_text()
    assert "Retrieved and not cited: 2, 3, 4" in by_id["low-recall"].inner_text()
    hostile = by_id[f"hostile {report_cases.HOSTILE}"]
    assert report_cases.HOSTILE in hostile.locator(".passage").first.inner_text()  # as text
    assert report_cases.HOSTILE in hostile.locator(".tags").inner_text()
    assert not page.evaluate("window.__pwned === true")
    assert page.locator("img, iframe, object, embed").count() == 0
    page.screenshot(path=str(tmp_path / "cards.png"), full_page=True)
    assert trouble == []


def test_filters_by_tag_rule_and_text(pages: ReportPages) -> None:
    page, trouble = pages.open()
    form = page.locator("#filters")
    assert form.is_visible()
    shown = page.locator("#shown")
    assert shown.inner_text() == f"{len(FAILED)} of {len(FAILED)} records shown"
    page.select_option("select[name=tag]", "topic=billing")
    assert sorted(visible_ids(page)) == ["gold-recall", "low-recall"]
    page.select_option("select[name=tag]", "lang=de")
    assert sorted(visible_ids(page)) == ["gold-recall", "unknown-id"]
    page.select_option("select[name=tag]", f"topic={report_cases.HOSTILE}")
    assert visible_ids(page) == [f"hostile {report_cases.HOSTILE}"]
    page.select_option("select[name=tag]", f"lang={report_cases.WIDE_TAG}")
    assert visible_ids(page) == ["long-tag"]
    page.select_option("select[name=tag]", "")
    page.select_option("select[name=rule]", "CA202")
    assert visible_ids(page) == ["out-of-range"]
    page.select_option("select[name=rule]", "CA201")
    assert visible_ids(page) == ["unknown-id"]
    page.select_option("select[name=rule]", "refused an answerable question")
    assert visible_ids(page) == ["refused"]
    page.select_option("select[name=rule]", "recall < min-recall 0.5")
    recall_failures = sorted(visible_ids(page))
    assert recall_failures == sorted(["low-recall", "gold-recall", "out-of-range", "long-tag",
                                      "caps-tag", f"hostile {report_cases.HOSTILE}"])
    page.select_option("select[name=tag]", "lang=de")  # both: the records with the tag and rule
    assert visible_ids(page) == ["gold-recall"]
    page.select_option("select[name=tag]", "")
    page.select_option("select[name=rule]", "")
    page.fill("input[name=text]", "RELEVANT passages")  # free text, any case, in the reasons
    assert visible_ids(page) == ["gold-recall"]
    page.fill("input[name=text]", "returns close after 30")  # a claim's or passage's text
    assert sorted(visible_ids(page)) == ["answered-unanswerable", "caps-tag"]
    page.fill("input[name=text]", "no record says this")
    assert visible_ids(page) == []
    assert shown.inner_text() == f"0 of {len(FAILED)} records shown"
    page.fill("input[name=text]", "")
    assert sorted(visible_ids(page)) == sorted(FAILED)
    assert trouble == []


def test_without_scripts_every_card_is_shown_and_the_filters_are_not(
        pages: ReportPages) -> None:
    page, trouble = pages.open(scripts=False)
    assert not page.locator("#filters").is_visible()
    assert sorted(visible_ids(page)) == sorted(FAILED)
    assert page.locator(".record .why li").first.is_visible()
    assert trouble == []


@pytest.mark.parametrize("width", [1280, 800])
def test_chart_labels_do_not_overlap(pages: ReportPages, width: int) -> None:
    """Rule names, long, wide and capital tag values and the bins: no two texts of a chart
    overlap, and none leaves its chart.
    """
    page, trouble = pages.open()
    page.set_viewport_size({"width": width, "height": 900})
    labels = page.locator("svg[role=img] text.label")
    assert labels.count() >= 10 + 3 + 7  # bins, codes, topic values
    names = [label.evaluate("t => t.firstChild.textContent") for label in labels.all()]
    assert any(name.startswith("a rather long tag value") for name in names)
    assert report_cases.WIDE_TAG in names
    assert page.evaluate(_OVERLAPS) == []
    assert trouble == []
