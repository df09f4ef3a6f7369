"""Citation-aware claim segmentation: a table of shapes."""

from __future__ import annotations

import itertools

import pytest

from citeaudit import get_grammar, segment
from citeaudit.core._answer import Reading
from citeaudit.core._refusal import Refusal
from citeaudit.formats import TEXT

_READING = Reading(get_grammar(["numeric", "S"]), Refusal.of("Not covered."))


def claims(text: str) -> list[str]:
    """The claims of ``text``: its sentences that need a citation under the default policy."""
    return [claim.text for claim in TEXT.parse(text, _READING).claims]


CASES: list[tuple[str, str, list[str]]] = [
    # plain sentences
    ("one sentence", "Refunds take 30 days.", ["Refunds take 30 days."]),
    ("two sentences", "One fact. Another fact.", ["One fact.", "Another fact."]),
    ("no final stop", "One fact. Another fact", ["One fact.", "Another fact"]),
    ("question and exclamation", "Is it [1]? Yes! Fine.", ["Is it [1]?", "Yes!", "Fine."]),
    ("uncited question is no claim", "Is it? Yes [1].", ["Yes [1]."]),
    ("follow-up question is no claim", "Refunds take 30 days [1]. Would you like more?",
     ["Refunds take 30 days [1]."]),
    ("leading and trailing space", "  One fact.  ", ["One fact."]),
    ("empty", "", []),
    ("only space", "   \n\n ", []),
    # markers and punctuation
    ("marker before stop", "Refunds take 30 days [1]. Fees apply [2].",
     ["Refunds take 30 days [1].", "Fees apply [2]."]),
    ("marker after stop", "Returns take 7 days. [S1] Delivery is free. [S2]",
     ["Returns take 7 days. [S1]", "Delivery is free. [S2]"]),
    ("markers after stop glued", "Returns take 7 days.[1][2] Next.",
     ["Returns take 7 days.[1][2]", "Next."]),
    ("doubled punctuation after markers", "We stock pens, etc.[1] [3].. Next one.",
     ["We stock pens, etc.[1] [3]..", "Next one."]),
    ("doubled exclamation", "It works [1]!! Next fact [2].", ["It works [1]!!", "Next fact [2]."]),
    ("interrobang", "Really [1]?! Yes [2].", ["Really [1]?!", "Yes [2]."]),
    ("doubled stop", "Odd typo [1].. Next [2].", ["Odd typo [1]..", "Next [2]."]),
    ("marker after final stop", "Reimbursements settle within 30 days of approval. [2]",
     ["Reimbursements settle within 30 days of approval. [2]"]),
    ("marker after stop on its own line", "Fact one.\n[1]\nFact two [2].",
     ["Fact one.\n[1]", "Fact two [2]."]),
    ("marker-only paragraph joins the claim before",
     "Fact one.\n\n[1]",
     ["Fact one.\n\n[1]"]),
    ("malformed marker after stop stays", "Bad marker. [S01] Next.",
     ["Bad marker. [S01]", "Next."]),
    ("non-marker bracket starts next sentence", "Fact. [citation needed] says so.",
     ["Fact.", "[citation needed] says so."]),
    ("marker in middle", "Paris [1] is the capital.", ["Paris [1] is the capital."]),
    ("exclamation with marker", "It works! [1] Really.", ["It works! [1]", "Really."]),
    ("question after marker", "Is it covered [1]? Yes [2].",
     ["Is it covered [1]?", "Yes [2]."]),
    # abbreviations, decimals, initials
    ("decimal", "Growth was 3.5% last year [1]. It slowed.",
     ["Growth was 3.5% last year [1].", "It slowed."]),
    ("decimal at start", "0.5 ml is the dose [1].", ["0.5 ml is the dose [1]."]),
    ("version numbers", "Use v1.2.3 now [1]. Done.", ["Use v1.2.3 now [1].", "Done."]),
    ("e.g.", "Some fruit, e.g. apples, are red [1].", ["Some fruit, e.g. apples, are red [1]."]),
    ("marker between e.g and its stop", "Use a kit (e.g[4]. Transfer pack) at home [1].",
     ["Use a kit (e.g[4]. Transfer pack) at home [1]."]),
    ("marker between i.e and its stop", "One city (i.e[2]. Paris) is big [1]. Next [3].",
     ["One city (i.e[2]. Paris) is big [1].", "Next [3]."]),
    ("marker between cf and its stop", "See the rule, cf[2]. Section 4, first [1].",
     ["See the rule, cf[2]. Section 4, first [1]."]),
    ("marker after a word still ends", "It is big [2]. Transfer is slow [1].",
     ["It is big [2].", "Transfer is slow [1]."]),
    ("i.e. with capital", "One city, i.e. Paris, is big [1].",
     ["One city, i.e. Paris, is big [1]."]),
    ("etc. then lower", "Pens, pencils, etc. are stocked [1].",
     ["Pens, pencils, etc. are stocked [1]."]),
    ("etc. ends a sentence", "Pens, pencils, etc. Next fact [1].",
     ["Pens, pencils, etc.", "Next fact [1]."]),
    ("Dr.", "Dr. Smith approved it [1].", ["Dr. Smith approved it [1]."]),
    ("vs.", "Steel vs. Aluminium shafts differ [1]. More [2].",
     ["Steel vs. Aluminium shafts differ [1].", "More [2]."]),
    ("v.", "In Smith v. Jones the court ruled [1].", ["In Smith v. Jones the court ruled [1]."]),
    ("Mr. and Mrs.", "Mr. and Mrs. Lee agreed [1].", ["Mr. and Mrs. Lee agreed [1]."]),
    ("initials", "J. K. Rowling wrote it [1].", ["J. K. Rowling wrote it [1]."]),
    ("Fig. number", "See Fig. 3 for details [1].", ["See Fig. 3 for details [1]."]),
    ("No. number", "Form No. 5 applies [1].", ["Form No. 5 applies [1]."]),
    ("vs.", "Cats vs. dogs is old [1].", ["Cats vs. dogs is old [1]."]),
    ("U.S.", "The U.S. market grew [1]. Europe shrank [2].",
     ["The U.S. market grew [1].", "Europe shrank [2]."]),
    ("a.m.", "It opens at 9 a.m. daily [1].", ["It opens at 9 a.m. daily [1]."]),
    ("url", "See example.com/page for more [1].", ["See example.com/page for more [1]."]),
    ("ellipsis then lower", "It went on... and on [1].", ["It went on... and on [1]."]),
    ("ellipsis then capital", "It went on... Then it stopped [1].",
     ["It went on...", "Then it stopped [1]."]),
    ("unicode ellipsis", "Wait… Then go [1].", ["Wait…", "Then go [1]."]),
    # quotes
    ("quote ends sentence", 'He said "It works." Then it broke [1].',
     ['He said "It works."', "Then it broke [1]."]),
    ("question in quotes continues", '"Is it?" she asked [1].', ['"Is it?" she asked [1].']),
    ("curly quotes", "She wrote “Done.” Then left [1].", ["She wrote “Done.”", "Then left [1]."]),
    ("parenthesis", "It is cheap (about 5 dollars.) Next [1].",
     ["It is cheap (about 5 dollars.)", "Next [1]."]),
    # lists
    ("bullets", "- Refunds take 30 days [1].\n- Fees apply [2].",
     ["Refunds take 30 days [1].", "Fees apply [2]."]),
    ("star bullets", "* One [1]\n* Two [2]", ["One [1]", "Two [2]"]),
    ("plus bullets", "+ One [1]\n+ Two [2]", ["One [1]", "Two [2]"]),
    ("bullet with two sentences", "- One fact [1]. Another [2].",
     ["One fact [1].", "Another [2]."]),
    ("bullet continuation line", "- One fact that\n  wraps [1].\n- Two [2].",
     ["One fact that\n  wraps [1].", "Two [2]."]),
    ("numbered list", "1. Analyze the data [1].\n2. Report it [2].",
     ["Analyze the data [1].", "Report it [2]."]),
    ("numbered list with paren", "1) First [1]\n2) Second [2]", ["First [1]", "Second [2]"]),
    ("numbered list with marker before stop", "1[1]. Analyze the data.\n2[2]. Report it.",
     ["[1]. Analyze the data.", "[2]. Report it."]),
    ("task list", "- [ ] Ship it [1]\n- [x] Test it [2]", ["Ship it [1]", "Test it [2]"]),
    ("lead-in line is not a claim", "The passages say:\n- One [1]\n- Two [2]",
     ["One [1]", "Two [2]"]),
    ("bold lead-in", "**Refund timeline:**\n\n- Standard [1].", ["Standard [1]."]),
    ("bold line as heading", "**Note**\n\nFees apply [1].", ["Fees apply [1]."]),
    ("bold start is prose", "**Fees** apply [1].", ["**Fees** apply [1]."]),
    ("reference list after lead-in", "Fact [1].\n\nSources:\n[1] Policy\n[2] FAQ",
     ["Fact [1].", "[1] Policy\n[2] FAQ"]),
    ("time is not a lead-in", "It opens at 9:30 daily [1].", ["It opens at 9:30 daily [1]."]),
    ("year at line start is prose", "2024 was a good year [1].", ["2024 was a good year [1]."]),
    # headings, rules, quotes
    ("heading", "# Refunds\nRefunds take 30 days [1].", ["Refunds take 30 days [1]."]),
    ("subheading", "Intro fact [1].\n\n## Details\nMore [2].", ["Intro fact [1].", "More [2]."]),
    ("hashtag is not heading", "#1 seller in 2020 [1].", ["#1 seller in 2020 [1]."]),
    # a heading's number ends no sentence: the whole line is the heading
    ("numbered heading", "## 2. Demographic Foundations: Japan, 2020–2050\nIt ages [1].",
     ["It ages [1]."]),
    ("a sentence after a numbered heading's title", "## 2. Results. Sales rose 5% [1].",
     ["Sales rose 5% [1]."]),
    ("the same after a heading with no number", "## Results. Sales rose 5% [1].",
     ["Sales rose 5% [1]."]),
    ("a marker on a numbered heading's line", "## 2. Results [1]\nSales rose [2].",
     ["Sales rose [2]."]),
    ("a numbered heading in CJK", "## 2. 方法。销售额增长了[1]。", ["销售额增长了[1]。"]),
    ("numbered subheading", "Intro [1].\n\n  ### 2.1. Scope\n\nMore [2].",
     ["Intro [1].", "More [2]."]),
    ("number in a sentence after a heading", "# Data\nIn 2020. Then 5 more [1].",
     ["In 2020.", "Then 5 more [1]."]),
    ("a list number is no heading's", "Intro [1].\n2. Sales rose [2].",
     ["Intro [1].", "Sales rose [2]."]),
    ("hashes mid-line are no heading", "See item ## 2. Then more [1].",
     ["See item ## 2.", "Then more [1]."]),
    ("horizontal rule", "One [1].\n\n---\n\nTwo [2].", ["One [1].", "Two [2]."]),
    ("blockquote", "> Quoted fact [1].\n> Second line [2].",
     ["Quoted fact [1].", "Second line [2]."]),
    ("paragraphs", "First para [1].\n\nSecond para [2].", ["First para [1].", "Second para [2]."]),
    ("soft wrap joins", "A sentence that\nwraps lines [1].", ["A sentence that\nwraps lines [1]."]),
    # tables
    ("table rows",
     "| Plan | Price |\n|---|---|\n| Basic | 5 USD [1] |\n| Pro | 9 USD [2] |",
     ["Basic | 5 USD [1]", "Pro | 9 USD [2]"]),
    ("table with alignment", "| a | b |\n|:--|--:|\n| x [1] | y |", ["x [1] | y"]),
    ("a header cell ending in a stop", "| Sector | 2030 Est. | 2040 Est. |\n|---|---|---|\n"
     "| Health | 5 [1] | 6 |", ["Health | 5 [1] | 6"]),
    ("a body row with sentences in a cell", "| a | b |\n|---|---|\n| Rose [1]. Fell. | x |",
     ["Rose [1].", "Fell.", "x"]),
    ("a stop before a pipe in prose", "Sales rose [1]. | Costs fell [2].",
     ["Sales rose [1].", "Costs fell [2]."]),
    ("table cell after other white space", "|\x1f0 [1]", ["0 [1]"]),
    ("table without header separator", "| x [1] | y |\n| z [2] | w |",
     ["x [1] | y", "z [2] | w"]),
    # code
    ("fenced code", "Run this [1]:\n```\nx = a[2]. y = 1\n```\nDone [1].",
     ["Run this [1]:", "Done [1]."]),
    ("tilde fence", "~~~\ncode. More code.\n~~~\nText [1].", ["Text [1]."]),
    ("unclosed fence", "Text [1].\n```\ncode. code.", ["Text [1]."]),
    # CJK
    ("CJK", "東京は日本の首都です。[1]大阪は大きい。[2]",
     ["東京は日本の首都です。[1]", "大阪は大きい。[2]"]),
    ("CJK question", "本当ですか[1]？はい[1]。", ["本当ですか[1]？", "はい[1]。"]),
    ("CJK full-width marker", "東京は首都です［１］。次です。",
     ["東京は首都です［１］。", "次です。"]),
    ("mixed scripts", "Tokyo is big [1]. 東京は大きい。[2]",
     ["Tokyo is big [1].", "東京は大きい。[2]"]),
    # windows newlines
    ("crlf", "One [1].\r\n\r\nTwo [2].", ["One [1].", "Two [2]."]),
]


@pytest.mark.parametrize(("name", "text", "expected"), CASES, ids=[c[0] for c in CASES])
def test_segment(name: str, text: str, expected: list[str]) -> None:
    assert claims(text) == expected


def test_table_is_large() -> None:
    assert len(CASES) >= 60


def test_spans_are_ordered_and_disjoint() -> None:
    text = "\n".join(c[1] for c in CASES)
    spans = segment(text)
    assert all(a.end <= b.start for a, b in itertools.pairwise(spans))
    assert all(0 <= s.start < s.end <= len(text) for s in spans)
