"""Hostile answers, titles, labels and URLs rendered and loaded in headless Chromium: no script
runs, no request leaves the page, and the only links are the snapshot's.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options
from markdown_it import MarkdownIt

from citeaudit import canonical_url, render

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
    assert "<script" not in html.lower()
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
    assert "onerror=alert(1)" in page.locator("pre").first.inner_text()  # shown, not run
    page.screenshot(path=str(screenshot), full_page=True)
    page.close()
    assert events == []
    assert requests == []
    assert screenshot.stat().st_size > 10_000
