"""Reference lists pasted or run into an answer: recognised as a block, their ids never read as
markers (no CA201, CA202 or CA102 from them, no citations counted), their lines exempt as
``reference``; and the shapes that only look like one (a list of cited claims) left alone.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import citeaudit
from citeaudit import _speedups
from citeaudit.core import _layout, reference_blocks
from thorough import examples

PASSAGES = ["Refunds are paid within 14 days of the request.",
            "The warranty covers manufacturing defects for two years.",
            "Support is open on weekdays from 9 to 5."]
BODY = "Refunds are paid within 14 days [1]. The warranty covers defects for two years [2]."

LISTS = {
    "sources heading, bracketed urls": "Sources:\n[1] https://shop.example/refunds\n"
                                       "[2] https://shop.example/warranty\n[9] https://x.example/old",
    "markdown heading, APA": "## References\n\n1. Lee, K. (2017). Returns and refunds in retail."
                             " Journal of Commerce, 12(3), 45-60.\n2. Smith, J., & Roe, A. (2019)."
                             " Warranty law. Legal Press.",
    "bold heading, IEEE": "**Bibliography**\n\n[1] K. Lee, \"Returns in retail,\" J. Commerce,"
                          " vol. 12, no. 3, pp. 45-60, 2017.\n[12] J. Smith, Warranty Law."
                          " New York: Legal Press, 2019.",
    "works cited, links": "### Works cited\n- [Refund policy](https://shop.example/refunds)\n"
                          "- [Warranty terms](https://shop.example/warranty)\n"
                          "- [Old terms](https://shop.example/old) [7]",
    "no heading, titles that are sentences": "[1] Lee, K. (2017). Sleep is essential for"
                                             " memory. Journal of Sleep, 4, 1-9.\n[2] Refunds"
                                             " take 14 days, says new EU rule. Reuters, 2023.",
    "no heading, numbered entries": "[1] Lee, K. (2017). Returns and refunds in retail. Journal"
                                    " of Commerce.\n[2] Smith, J. et al. (2019). Warranty law."
                                    " doi:10.1000/xyz\n[3] Store handbook. Available:"
                                    " https://shop.example/handbook",
    "sources used, plain lines": "Sources used\n\n1. https://shop.example/refunds (accessed"
                                 " 2024)\n2. https://shop.example/warranty (accessed 2024)",
    "citations with numbers out of range": "Citations:\n[4] https://shop.example/a\n"
                                           "[5] https://shop.example/b\n[6] https://shop.example/c",
    "further reading, dashes": "Further reading\n\n- Lee, K. (2017). Returns in retail.\n"
                               "- Smith, J. (2019). Warranty law. pp. 12-14.",
    # A heading ending in a colon, or with no blank line under it, or a rule, right above its
    # entries (the segmenter runs such a line into the first entry's sentence):
    "heading with a colon, dashes": "References:\n- Lee, K. (2017). Returns in retail. Retrieved"
                                    " from https://shop.example/research\n- Shop Example."
                                    " (2024). Refund policy. Retrieved May 3, 2024, from"
                                    " https://shop.example/refunds",
    "capitals right above IEEE": "REFERENCES\n[1] K. Lee, \"Returns in retail,\" J. Commerce,"
                                 " vol. 12, no. 3, pp. 45-60, 2017.\n[2] Shop Example, \"Refund"
                                 " policy,\" 2024. [Online]. Available: https://shop.example/r",
    "bold with a colon, urls": "**Citations:**\n[1] https://shop.example/refunds\n"
                               "[2] https://shop.example/warranty\n[12] https://news.example/x",
    "rule above entries": "---\n[1] Lee, K. (2017). Returns in retail. Journal of Commerce.\n"
                          "[2] Smith, J. (2019). Warranty law. Legal Press.",
    "source(s), urls": "Source(s):\n- https://shop.example/refunds\n- https://shop.example/w",
    "sources with a count": "Sources (3)\n1. shop.example – Refund policy\n2. shop.example –"
                            " Warranty terms\n3. help.shop.example – Support hours",
    "domains under a bare heading": "Sources\nshop.example\nhelp.shop.example\nnews.example",
    "run into one line": "Sources: [1] https://shop.example/refunds [2] https://shop.example/w"
                         " [9] https://news.example/old",
    # Other names of a list:
    "reference list, Harvard": "Reference list\n\nLee, K. (2017) 'Returns in retail', Journal of"
                              " Commerce, 12(3), pp. 45-60.\nSmith, J. and Roe, A. (2019) Warranty"
                              " law. 2nd edn. London: Legal Press.",
    "endnotes": "Endnotes\n1. Shop Example, Refund Policy (2024), https://shop.example/refunds.\n"
                "2. Lee, K. (2017), Journal of Commerce 12(3): 45-60.",
    "footnotes, markdown": "## Footnotes\n\n[^1]: Shop Example, Refund policy,"
                           " https://shop.example/refunds\n[^2]: Shop Example, Warranty terms,"
                           " https://shop.example/warranty",
    "see also, links": "See also\n- [Refund policy](https://shop.example/refunds)\n"
                       "- [Warranty terms](https://shop.example/warranty)",
    "learn more, domains": "Learn more\n1. shop.example\n2. help.shop.example\n3. news.example",
    "recommended reading": "Recommended reading\n- Lee, K. (2017). Returns in retail. Journal of"
                           " Commerce, 12(3), 45-60.\n- Smith, J. (2019). Warranty law. Legal"
                           " Press.",
    "cited sources, dashes": "Cited sources\n[1] Refund policy — shop.example\n[2] Warranty"
                             " terms — shop.example",
    "source list, links": "Source list:\n* [Refund policy](https://shop.example/refunds)\n"
                          "* [Warranty terms](https://shop.example/warranty)",
    "underscores, APA": "__References__\n\n1. Lee, K. (2017). Returns in retail. Journal of"
                        " Commerce, 12(3), 45-60.\n2. Smith, J. (2019). Warranty law. Legal Press.",
    # Ids of other shapes, no heading:
    "footnote definitions": "[^1]: Shop Example. Refund policy. https://shop.example/refunds\n"
                            "[^2]: Shop Example. Warranty terms. https://shop.example/warranty",
    "lettered ids": "[S1] Lee, K. (2017). Returns in retail. Journal of Commerce, 12(3), 45-60.\n"
                    "[S2] Smith, J. (2019). Warranty law. Legal Press.",
    "learn more, run into one line": "Learn more: 1. shop.example 2. help.shop.example"
                                     " 3. news.example",
}


@pytest.mark.parametrize("name", LISTS)
def test_a_reference_list_is_no_citation_and_no_claim(name: str) -> None:
    answer = f"{BODY}\n\n{LISTS[name]}\n"
    blocks = reference_blocks(answer)
    assert blocks, "recognised"
    assert all(start > len(BODY) for start, _ in blocks), "the answer's own lines are not in it"
    report = citeaudit.audit(answer, PASSAGES)
    assert report.findings == (), [f.message for f in report.findings]
    assert report.passed
    assert report.metrics.citations == 2  # [1] and [2] of the body, not the list's
    block_units = [u for u in report.exempt if u.span[0] > len(BODY)]
    assert block_units, "its lines are exempt"
    assert {u.kind for u in block_units} <= {"reference", "heading", "announcement"}
    # Strict still reads no marker in it: its ids never cite.
    strict = citeaudit.audit(answer, PASSAGES, config=citeaudit.Config(claims="strict"))
    assert not {"CA201", "CA202", "CA102"} & {f.code for f in strict.findings}
    assert strict.metrics.citations == 2


@pytest.mark.parametrize("answer", [
    "- [1] Refunds are paid within 14 days.\n- [2] The warranty covers defects.\n",
    "Refunds are paid within 14 days [1].\nThe warranty covers defects [2].\n",
    "1. Refunds are paid within 14 days [1].\n2. The warranty lasts two years [2].\n",
    "Sources of delay include:\n- weekends [3]\n- holidays [3]\n",
    # claims that open with their marker and name what an entry names (found by a helper)
    "[1] Lee, K. reports that refunds are paid within 14 days.\n[2] Smith, J. et al. report"
    " that defects are covered for two years.\n",
    "[1] According to Lee et al. (2017), refunds are paid within 14 days.\n[2] Smith (2019)"
    " found that the warranty covers defects for two years.\n",
    "[1] Refunds are paid within 14 days (pp. 3-4 of the policy).\n[2] The warranty lasts two"
    " years (see doi:10.1000/xyz).\n",

    # what only a longer heading names, and a note (a note may be a cited claim):
    "Intro [1].\n\nNotes:\nRefunds are paid within 14 days [1].\nThe warranty lasts [2].\n",
    "Intro [1].\n\n## Sources of error\nScales drift [1].\nClocks skew [2].\n",
    "Intro [1].\n\nLinks between diet and sleep:\n- Caffeine delays sleep [2].\n- Late meals"
    " fragment it [3].\n",
    "Intro [1].\n\nReading more than an hour a day helps [2]. Learn more by doing [3].\n",
    # a heading that names a list over lines that cite in prose: content (found by a reviewer)
    "Aspirin reduces fever [1].\n\nSee also\nIbuprofen lowers fever within two hours [2]."
    " Paracetamol is gentler [3].\n",
    "Exercise helps [1].\n\n## Learn more\nThe CDC recommends 150 minutes a week [2].\n",
    "Vitamin D helps [1].\n\nSources:\n- Fatty fish provide 570 IU [2].\n- Egg yolks hold 40"
    " IU [3].\n- Sunlight suffices for many.\n",
    "Courses vary [1].\n\nLinks\nA links course is built on coastal land [2]. St Andrews is"
    " one [3].\n",
    # markers on a line of their own, or a cited claim after a list's name
    "The tower is 330 m tall and weighs 10,000 tonnes.\nSources: [1], [2]\n",
    "The tower is tall.\nSources: [1] and [2] both report that it is 330 m tall.\n",
    "The tower is tall [3].\nRead more: 1. It was almost demolished in 1909. 2. It weighs"
    " 10,000 tonnes [1].\n",
    # a cell of a table that lost its pipes
    "Needs differ [1].\n\nNutrient\nDaily amount\nSources\nVitamin C\n90 mg\nCitrus [2]\n"
    "Iron\n18 mg\nRed meat [3]\n",
])
def test_cited_claims_that_look_like_a_list_are_read(answer: str) -> None:
    assert reference_blocks(answer) == []
    report = citeaudit.audit(answer, PASSAGES)
    assert report.metrics.citations >= 2


def test_a_reference_list_streams_as_it_audits() -> None:
    answer = f"{BODY}\n\n{LISTS['no heading, numbered entries']}\n"
    auditor = citeaudit.stream(PASSAGES)
    for at in range(0, len(answer), 5):
        auditor.feed(answer[at:at + 5])
    assert auditor.finish() == citeaudit.audit(answer, PASSAGES)


def test_one_line_answers_are_not_searched() -> None:
    assert reference_blocks("References: Lee (2017) [1].") == []


# The look for a reference list's head, compiled and as Python, against the pattern it stands for.
LAYOUT_SOURCE = _speedups.as_python("citeaudit.core._layout")
HEAD_PIECES = ["\n", "\n\n", " ", "\t", "\u2003", "\x1c", "#", "## ", ">", "**", "_", "1.", "12)",
               "\u0663", "- ", "(", "[", "[3]", "[12] ", "[S1]", "References", "references:",
               "SOURCES", "\u017fources", "Bibliography", "b\u0131bl", "B\u0130BLIOGRAPHY",
               "Works cited", "Citations", "citation", "Further reading", "Key sources",
               "\u212aey sources", "key  sources", "Refunds", "Receipts", "Sour", "refe",
               "Lee, K. (2017).", "https://x.org", " take 30 days.", "x" * 31, "\u00e9",
               "Endnotes", "FOOTNOTES", "See also", "se", "Read more", "Learn more", "lin",
               "Links", "use\u017ful links", "Related links", "Recommended reading", "reco",
               "Suggested reading", "Cited sources", "cite", "Sources: ", ": [4] x", ":[4]",
               "[\u017f1] ", "[\u212a2] ", "[\u01301] ", "[S1] ", "[^3]: ", "[doc_1] "]


@settings(max_examples=examples(600), deadline=None)
@given(st.lists(st.sampled_from(HEAD_PIECES), max_size=14).map("".join))
def test_the_look_for_a_reference_head_is_its_pattern(text: str) -> None:
    expected = _layout.REFERENCES_HINT.search("\n" + text) is not None and "\n" in text
    assert _layout._may_hold_references(text) == expected
    assert LAYOUT_SOURCE._may_hold_references(text) == expected
    assert _layout._may_hold_references(type("Text", (str,), {})(text)) == expected


def test_the_look_for_a_reference_head_reads_every_case_the_pattern_folds() -> None:
    """Every character the regex engine matches, case-blind, to a word's first four letters
    is one the look tries (the Kelvin sign for "k", the long s for "s", dotted and dotless i;
    the compiled build runs the same source).
    """
    every = "".join(map(chr, range(0x110000)))
    for word in ("refe", "sour", "bibl", "work", "cita", "furt", "key ", "cite", "endn", "foot",
                 "see ", "read", "lear", "reco", "sugg", "link", "usef", "rela"):
        for at, letter in enumerate(word):
            for char in re.findall(re.escape(letter), every, re.IGNORECASE):
                opening = word[:at] + char + word[at + 1:]
                assert LAYOUT_SOURCE._opens_reference_word(opening, 0, 4), (word, hex(ord(char)))


def test_the_look_for_a_reference_head_changes_nothing_on_real_answers() -> None:
    """The claims set's real answers (reports with references, links, headings)."""
    path = Path(__file__).parent.parent / "benchmarks/claims/answers.jsonl"
    texts = [json.loads(record)["text"] for record in path.read_text().splitlines()]
    assert len(texts) > 300
    held = 0
    for text in texts:
        expected = _layout.REFERENCES_HINT.search("\n" + text) is not None and "\n" in text
        assert _layout._may_hold_references(text) == expected
        held += expected
    assert 0 < held < len(texts)
