"""The claim policy: which sentences need a citation, rule by rule, and CA301/CA302 precision
and recall on the citable-sentence tables in ``tests/data`` (the figures docs/claims.md gives).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import citeaudit
from citeaudit import _speedups
from citeaudit.core import _policy
from citeaudit.core._policy import NOT_CITABLE
from citeaudit.core._segment import Span

DATA = Path(__file__).parent / "data"
PAGE = Path(__file__).parent.parent / "docs" / "claims.md"
TABLES = {"citable.jsonl": "development", "citable_heldout.jsonl": "held out"}
SOURCES = [f"passage {n}" for n in range(1, 20)]
# The rules alone (the ``strict`` preset): the content judge is tested in test_citable.py.
STRICT = citeaudit.Config(claims="strict")
NONE = citeaudit.Config(not_citable=frozenset(), claims="strict")


# The policy run from its source as Python: its private tables are C values where the module
# is compiled, so the tests read them here.
PYTHON = _speedups.as_python("citeaudit.core._policy")


def records(name: str) -> list[dict[str, Any]]:
    with (DATA / name).open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def flagged(answer: str, config: citeaudit.Config = STRICT) -> list[tuple[int, int]]:
    report = citeaudit.audit(answer, SOURCES, config=config)
    return [f.span for f in report.findings if f.code in ("CA301", "CA302") and f.span]


def figures(name: str, config: citeaudit.Config = STRICT) -> tuple[float, float, int]:
    """CA301/CA302 precision and recall over the table's labelled sentences, and their count."""
    hits = false_alarms = misses = count = 0
    for record in records(name):
        answer = record["answer"]
        spans = flagged(answer, config)
        for sentence in record["sentences"]:
            count += 1
            start = answer.index(sentence["text"])
            end = start + len(sentence["text"])
            hit = any(a < end and start < b for a, b in spans)
            if sentence["needs_citation"]:
                hits += hit
                misses += not hit
            else:
                false_alarms += hit
    return hits / (hits + false_alarms), hits / (hits + misses), count


def test_the_tables_are_large_and_labelled() -> None:
    total = 0
    for name in TABLES:
        for record in records(name):
            for sentence in record["sentences"]:
                assert sentence["text"] in record["answer"], sentence
                assert sentence["needs_citation"] == ("rule" not in sentence)
                assert sentence.get("rule", "listed") in NOT_CITABLE
                total += 1
    assert total >= 150
    rules = {s.get("rule") for name in TABLES for r in records(name) for s in r["sentences"]}
    assert rules >= {*NOT_CITABLE, None}, "every rule has sentences in the tables"


@pytest.mark.parametrize("name", TABLES)
def test_figures_in_the_docs(name: str) -> None:
    """The page's figures are what the tables give today, with the policy and without."""
    precision, recall, count = figures(name)
    before, before_recall, _ = figures(name, NONE)
    row = (f"| {TABLES[name]} (`tests/data/{name}`) | {count} | {precision:.1%} |"
           f" {recall:.1%} | {before:.1%} | {before_recall:.1%} |")
    assert row in PAGE.read_text(encoding="utf-8"), row
    assert precision >= 0.9
    assert recall >= 0.94
    assert precision > before + 0.3


def test_every_rule_can_be_switched_off() -> None:
    """Each rule exempts its sentences only while it is in force."""
    for name in TABLES:
        for record in records(name):
            answer = record["answer"]
            for rule in NOT_CITABLE:
                sentences = [s for s in record["sentences"] if s.get("rule") == rule]
                if not sentences:
                    continue
                without = citeaudit.Config(not_citable=frozenset(NOT_CITABLE) - {rule},
                                           claims="strict")
                spans = flagged(answer, without)
                for sentence in sentences:
                    start = answer.index(sentence["text"])
                    assert any(a <= start < b for a, b in spans), (rule, sentence["text"])


CASES = [
    # (rule, answer, the uncited sentence it exempts)
    ("about-sources", "Fees apply [1]. The passages also don't provide sufficient information"
     " to compare plans.", "The passages also don't provide"),
    ("about-sources", "Fees apply [1]. There is no mention of refunds in the documents.",
     "There is no mention"),
    ("about-sources", "Fees apply [1]. I could not find the deadline.", "I could not find"),
    ("pleasantry", "That's a very interesting question. Fees apply [1].", "That's a very"),
    ("pleasantry", "Fees apply [1]. Let me know if you have other questions.", "Let me know"),
    ("question", "Fees apply [1]. Would you like more details?", "Would you like"),
    ("hedge", "Fees apply [1]. Results may vary.", "Results may vary."),
    ("hedge", "Fees apply [1]. However, it is important to note that prices may change.",
     "However, it is important"),
    ("announcement", "Fees apply [1]. Here are the main steps.", "Here are the main"),
    ("announcement", "Fees apply [1]. Here's how: step by step.", "Here's how"),
    ("announcement", "Several methods can be undertaken by teachers.\n- Tutoring [1]\n"
     "- Coaching [2]", "Several methods"),
    ("heading", "Refund Rules for Members\n\nFees apply [1].", "Refund Rules"),
    ("heading", "**Note**\n\nFees apply [1].", "**Note**"),
    ("listed", "Causes include [12] [13]:\n- Gradual liberalization\n- Tariff cuts",
     "Gradual liberalization"),
    ("listed", "Causes include [12]:\n1. **Tariffs**: cuts on steel\n  - Quotas on wheat",
     "Quotas on wheat"),
]


@pytest.mark.parametrize(("rule", "answer", "sentence"), CASES, ids=[c[0] for c in CASES])
def test_rule(rule: str, answer: str, sentence: str) -> None:
    start = answer.index(sentence)
    assert not any(a <= start < b for a, b in flagged(answer)), "exempt by default"
    assert any(a <= start < b for a, b in flagged(answer, NONE)), "a claim without the policy"


CLAIMS = [
    ("a hedge that states a fact", "It is worth noting that the drug was withdrawn in 2004."),
    ("a greeting word that names something", "Hello Kitty was first sold in 1974."),
    ("what the sources say, with a fact", "According to the sources, the bridge opened in"
     " 1937."),
    ("a title line in sentence case with an amount", "Refunds take 30 days\n\nMore text."),
    ("a list item under an uncited lead-in", "Methods include:\n- Gradual liberalization"),
    ("a sentence after the list", "Causes include [1]:\n- Tariffs\n\nGrowth fell by half."),
    ("a vague announcement with no list after it", "There are several ways to reduce stress,"
     " including sleep."),
    ("a question mark inside quotes", '"Why?" remains the museum\'s motto.'),
    # Found on sentences the tables do not have, after the rules were written:
    ("thanks to a cause", "Thanks to subsidies, solar costs fell 80% in a decade."),
    ("the following as a time", "The following year, sales doubled."),
    ("a hedge that states an amount", "It depends on the dose: 5 mg is safe."),
    ("evidence about the world", "The evidence does not support a link between vaccines and"
     " autism."),
    # A lead-in run together with what it announces (scraped text without its line breaks):
    ("a lead-in run on past its colon", "Here's how:Friendship in Rehab: Mueller and Perry"
     " met while both were in rehab."),
    ("a summary run on past its colon", "In summary: rail, buses and bike lanes cut"
     " congestion."),
    ("the following, run on", "Here are the key differences:Chlorophyll captures light in"
     " plants."),
    # Only the sentence that opens an item completes its cited lead-in:
    ("a second sentence in an item under a cited lead-in", "Causes include [1]:\n- Tariffs."
     " Growth fell by half."),
    ("an indented paragraph in an item under a cited lead-in", "Causes include [1]:\n- Tariffs,"
     " which rose.\n\n  Growth fell by half.\n- Quotas"),
    # A heading between two lists: the second is not under the first one's lead-in.
    ("a list under a numbered heading after a cited list", "Causes include [1]:\n- Tariffs\n\n"
     "### 7. Costs\n\n- Growth fell by half"),
    ("a list under a heading after a cited list", "Causes include [1]:\n- Tariffs\n\n"
     "### Costs\n\n- Growth fell by half"),
]


@pytest.mark.parametrize(("name", "answer"), CLAIMS, ids=[c[0] for c in CLAIMS])
def test_still_a_claim(name: str, answer: str) -> None:
    last = {"a list item under an uncited lead-in": "Gradual", "a sentence after the list":
            "Growth", "a title line in sentence case with an amount": "Refunds",
            "a second sentence in an item under a cited lead-in": "Growth",
            "an indented paragraph in an item under a cited lead-in": "Growth",
            "a list under a numbered heading after a cited list": "Growth",
            "a list under a heading after a cited list": "Growth"}.get(name)
    start = answer.index(last) if last else 0
    assert any(a <= start < b for a, b in flagged(answer)), name


def test_a_cited_sentence_is_always_a_claim() -> None:
    report = citeaudit.audit("Thanks for asking [1]! Would you like more [2]?", ["a", "b"])
    assert report.metrics.claim_coverage == 1.0
    assert not report.findings


def test_configuration() -> None:
    # The policy's rules alone: under the balanced preset the judge reads "Results may vary."
    # as the disclaimer it is, whichever rules are on.
    config = citeaudit.Config(not_citable=frozenset({"question"}), claims="strict")
    assert flagged("Fees apply [1]. Results may vary.", config)
    assert not flagged("Fees apply [1]. Is that all?", config)
    with pytest.raises(citeaudit.ConfigError, match="'greeting' is no claim policy rule"):
        citeaudit.Config(not_citable=frozenset({"greeting"}))


def test_configuration_file(tmp_path: Path) -> None:
    path = tmp_path / "citeaudit.toml"
    path.write_text('not-citable = ["question", "heading"]\n', encoding="utf-8")
    assert citeaudit.load_config(path).not_citable == {"question", "heading"}
    path.write_text('not-citable = "question"\n', encoding="utf-8")
    with pytest.raises(citeaudit.ConfigError, match="not-citable must be a list"):
        citeaudit.load_config(path)


def test_segment_keeps_every_sentence() -> None:
    """Segmentation finds sentences; only the policy drops the ones that need no citation."""
    text = "Fees apply [1]. Would you like more?"
    assert [text[a:b] for a, b in citeaudit.segment(text, [Span(11, 14)])] == \
        ["Fees apply [1].", "Would you like more?"]


def test_policy_survives_hostile_openers() -> None:
    """Repeated openers and long unpunctuated runs are read (bench_hostile.py measures that
    their time grows linearly).
    """
    for text in ("however, " * 3000 + "the passages", "also " * 5000, "a" * 50_000,
                 "There is no " + "x " * 20_000 + "in the sources."):
        report = citeaudit.audit(text, SOURCES)
        assert report.status in ("ok", "unverified", "no_evidence")  # a run of "a" says nothing
        assert citeaudit.audit(text, SOURCES, config=STRICT).status in ("ok", "unverified")


def test_openings_of_patterns() -> None:
    """The openings worked out from a parsed pattern are every way a match can start."""
    from citeaudit.core._policy import _opening_set  # noqa: PLC0415 - private

    starts = _opening_set(re.compile(r"ab(?:c|de)|x[yz]*|(?:the )?passages?|h\w"))
    assert starts.heads == {"abc", "abd", "x", "xy", "xz", "xyy", "xyz", "xzy", "xzz", "the",
                            "pas", "h"}
    assert starts.shorter == (2, 1)
    longer = _opening_set(re.compile(r"ab(?:c|de)|x[yz]*|(?:the )?passages?|h\w"), size=5)
    assert longer.heads == {"abc", "abde", "x", "xy", "xz", "xyy", "xyz", "xzy", "xzz", "xyyy",
                            "xyyz", "xyzy", "xyzz", "xzyy", "xzyz", "xzzy", "xzzz", "the p",
                            "passa", "h"} | {f"x{a}{b}{c}{d}" for a in "yz" for b in "yz"
                                             for c in "yz" for d in "yz"}
    assert longer.shorter == (4, 3, 2, 1)


def test_families_look_up_every_opening() -> None:
    """The two-step lookup finds what looking a sentence up at every length finds."""
    lengths = range(1, 6)
    heads = list(PYTHON._FAMILIES)
    sentences = [*heads, *(head + " rest of it" for head in heads[::7]),
                 *(head[:-1] + "#" for head in heads[::5]), "", "a", "ok", "x" * 9]
    for sentence in sentences:
        expected = 0
        for size in lengths:
            expected |= PYTHON._FAMILIES.get(sentence[:size], 0)
        assert _policy._families(sentence) == PYTHON._families(sentence) == expected, sentence


def test_the_openings_never_skip_a_match() -> None:
    """Every table sentence a policy pattern matches opens as that pattern can."""
    pairs = ((PYTHON._OPENING, PYTHON._OPENS), (PYTHON._ANNOUNCES, PYTHON._ANNOUNCES_BIT),
             (PYTHON._PLAIN_HEDGE, PYTHON._HEDGES), (PYTHON._HEDGE_OPENER, PYTHON._HEDGES))
    matched = 0
    for name in TABLES:
        for record in records(name):
            for sentence in record["sentences"]:
                text = sentence["text"].lower()
                for pattern, family in pairs:
                    if pattern.match(text) and pattern.match(text).end():
                        matched += 1
                        assert _policy._families(text) & family, text
    assert matched > 50
