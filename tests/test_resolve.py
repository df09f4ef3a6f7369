"""Resolution: canonical URLs, quote excerpts and source chips (seed 002's resolve())."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citeaudit import Chip, build_context, canonical_url, guard, render_html, resolve
from citeaudit.request._chips import excerpt, link_url

PASSAGES = json.loads((Path(__file__).parent / "data/seeds/002/passages.json").read_text())


@pytest.mark.parametrize(("url", "canonical"), [
    ("https://hr.example/policy", "https://hr.example/policy"),
    ("HTTPS://HR.Example/Policy", "https://hr.example/Policy"),  # the path keeps its case
    ("https://hr.example:443/policy", "https://hr.example/policy"),
    ("http://hr.example:80/policy", "http://hr.example/policy"),
    ("https://hr.example:8443/policy", "https://hr.example:8443/policy"),
    ("http://hr.example:443/policy", "http://hr.example:443/policy"),
    ("https://hr.example/policy/", "https://hr.example/policy"),
    ("https://hr.example/policy//", "https://hr.example/policy"),
    ("https://hr.example", "https://hr.example/"),
    ("https://hr.example/", "https://hr.example/"),
    ("https://hr.example/policy#reimbursement", "https://hr.example/policy"),
    ("https://hr.example/p?utm_source=x&id=3&utm_medium=y", "https://hr.example/p?id=3"),
    ("https://hr.example/p?fbclid=1&gclid=2&b=2&a=1", "https://hr.example/p?b=2&a=1"),
    ("https://hr.example/p?UTM_Campaign=z", "https://hr.example/p"),
    ("https://hr.example/p?%75tm_source=z", "https://hr.example/p"),
    ("https://hr.example/p?q=", "https://hr.example/p?q="),
    ("https://[2001:DB8::1]:443/x", "https://[2001:db8::1]/x"),
    ("https://hr.example/a%20b", "https://hr.example/a%20b"),
    ("javascript:alert(1)", None),
    ("JavaScript:alert(1)", None),
    ("data:text/html,<script>alert(1)</script>", None),
    ("vbscript:msgbox(1)", None),
    ("file:///etc/passwd", None),
    ("ftp://files.example/a", None),
    ("mailto:a@b.example", None),
    ("/relative/path", None),
    ("relative/path", None),
    ("//evil.example/x", None),
    ("https:evil.example", None),
    ("https:///evil.example", None),
    ("https://user:pass@evil.example/", None),
    ("https://good.example@evil.example/", None),
    ("https://evil.example:99999/", None),
    ("https://evil.example:port/", None),
    ("https://evil .example/", None),
    ("https://evil.example/\x00x", None),
    ("https://evil.example/\u202ex", None),
    ("https://evil.example\\@good.example/", None),
    (" https://hr.example/", None),
    ("", None),
    (None, None),
])
def test_canonical_url(url: str | None, canonical: str | None) -> None:
    assert canonical_url(url) == canonical


@pytest.mark.parametrize(("text", "length", "expected"), [
    ("Short text.", 160, "Short text."),
    ("Reimbursements settle within 30 days of approval.", 30,
     "Reimbursements settle within\u2026"),
    ("one two three", 8, "one two\u2026"),
    ("one two, three", 9, "one two\u2026"),
    ("Supercalifragilistic", 6, "Super\u2026"),
    ("  spread\n over\tlines  ", 160, "spread over lines"),
    ("exactly ten", 11, "exactly ten"),
])
def test_excerpt_cuts_at_a_word_boundary(text: str, length: int, expected: str) -> None:
    assert excerpt(text, length) == expected
    assert len(excerpt(text, length)) <= length


def test_seed_002_resolve() -> None:
    resolution = resolve("Reimbursements settle within 30 days of approval [2].", PASSAGES)
    assert resolution.status == "ok"
    assert resolution.chips == (Chip(
        1, "https://hr.example/policy", "Reimbursement",
        "Reimbursements settle within 30 days of approval. Per diem claims follow the same"
        " schedule.", ("2",), (1,)),)


def test_one_chip_per_cited_passage_in_first_citation_order() -> None:
    passages = [
        {"text": "faq chunk", "url": "https://hr.example/faq", "title": "FAQ"},
        {"text": "policy chunk one", "url": "https://HR.example/policy/#a", "title": "Policy"},
        {"text": "policy chunk two", "url": "https://hr.example:443/policy?utm_source=x"},
        {"text": "no link", "title": "Handbook"},
        {"text": "no link either"},
        # the same chunk again, from another retriever: the same chip
        {"text": "policy  chunk\ntwo", "url": "https://hr.example/policy/?gclid=1"},
        {"text": "policy chunk three", "url": "https://hr.example/policy"},  # another chunk
        {"text": "policy chunk one", "url": "https://hr.example/policy#b"},  # another place
    ]
    answer = "A [3]. B [1]. C [2][3]. D [4]. E [5]. F [1]. G [6]. H [7]. I [8]."
    chips = resolve(answer, passages).chips
    assert [(c.number, c.url, c.label, c.quote, c.source_ids, c.claims) for c in chips] == [
        (1, "https://hr.example/policy", "hr.example", "policy chunk two", ("3", "6"),
         (1, 3, 7)),
        (2, "https://hr.example/faq", "FAQ", "faq chunk", ("1",), (2, 6)),
        (3, "https://hr.example/policy#a", "Policy", "policy chunk one", ("2",), (3,)),
        (4, None, "Handbook", "no link", ("4",), (4,)),
        (5, None, "Source 5", "no link either", ("5",), (5,)),
        (6, "https://hr.example/policy", "hr.example", "policy chunk three", ("7",), (8,)),
        (7, "https://hr.example/policy#b", "hr.example", "policy chunk one", ("8",), (9,)),
    ]


def test_the_readme_chips_keep_their_fragment_and_their_chunk() -> None:
    chosen = [
        {"text": "Expense reports must be filed within 60 days.",
         "url": "https://hr.example/policy", "section": "Filing"},
        {"text": "Reimbursements settle within 30 days of approval.",
         "url": "https://hr.example/policy#pay", "section": "Reimbursement"},
    ]
    served = guard("Reports are due in 60 days [1]. Reimbursements settle in 30 days [2].",
                   build_context(chosen).snapshot)
    assert [(c.number, c.url, c.label, c.quote) for c in served.chips] == [
        (1, "https://hr.example/policy", "Filing", chosen[0]["text"]),
        (2, "https://hr.example/policy#pay", "Reimbursement", chosen[1]["text"])]
    assert 'href="https://hr.example/policy#pay"' in render_html(served)


@pytest.mark.parametrize(("url", "link"), [
    ("https://hr.example/policy#pay", "https://hr.example/policy#pay"),
    ("https://HR.example:443/policy/?utm_source=x#Pay%20day", "https://hr.example/policy#Pay%20day"),
    ("https://hr.example/policy#", "https://hr.example/policy"),
    ("https://hr.example/#top", "https://hr.example/#top"),
    ("javascript:alert(1)#x", None),
    (None, None),
])
def test_link_url_keeps_the_fragment(url: str | None, link: str | None) -> None:
    assert link_url(url) == link


def test_quote_length_is_configurable() -> None:
    chips = resolve("x [2].", PASSAGES, quote_length=20).chips
    assert chips[0].quote == "Reimbursements\u2026"


def test_unverified_and_refusal() -> None:
    bad = resolve("Refunds take 14 days [7]. Desk [3].", PASSAGES)
    assert bad.status == "unverified"
    assert [c.source_ids for c in bad.chips] == [("3",)]  # only valid markers make chips
    refusal = resolve("Not covered by the provided documents.", PASSAGES)
    assert (refusal.status, refusal.chips) == ("no_evidence", ())


def test_structured_answer_chips() -> None:
    answer = {"status": "answered", "text": "Thirty days.", "citations": ["2", "9", "2"]}
    resolution = resolve(answer, PASSAGES)
    assert resolution.status == "unverified"
    assert [c.source_ids for c in resolution.chips] == [("2",)]
