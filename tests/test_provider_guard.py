"""Guarding and rendering provider responses: their citations point at ranges of the answer,
not at markers in it, so a verified citation's chip goes after the text it covers, the text is
never cut, and the policies act on the claims a broken citation leaves unverified.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import citeaudit
import test_anthropic as anthropic_cases
import test_bedrock as bedrock_cases
import test_cohere as cohere_cases
import test_gemini as gemini_cases
import test_marked_providers as marked_cases
import test_openai_assistants as assistants_cases
from citeaudit.request import Ref

BROKEN_COHERE = cohere_cases.response(cohere_cases.cite(cohere_cases.TALLEST, "doc:0"),
                                      cohere_cases.cite(cohere_cases.HOME, "doc:7"))


def shown(parts: tuple[Any, ...]) -> list[Any]:
    return [p if isinstance(p, str) else (p.ids, p.chips) for p in parts]


def test_a_chip_follows_the_text_each_citation_covers() -> None:
    guarded = citeaudit.guard(cohere_cases.CLEAN, cohere_cases.REQUEST)
    assert shown(guarded.parts) == [
        "The tallest penguins are the Emperor penguins.", (("doc:0",), (1,)),
        " They only live in Antarctica.", (("doc:1",), (2,))]
    assert [(c.number, c.label) for c in guarded.chips] == [(1, "Tall penguins"),
                                                            (2, "Penguin habitats")]
    assert all(isinstance(p, Ref) and p.raw == "" for p in guarded.parts[1::2])


@pytest.mark.parametrize(("answer", "request_", "text"), [
    (anthropic_cases.CLEAN, anthropic_cases.REQUEST,
     "According to the documents, the grass is green and refunds take 14 days. Cards cost 5"
     " dollars."),
    (gemini_cases.response(gemini_cases.support(gemini_cases.START, gemini_cases.END, 0, 1)),
     None, gemini_cases.TEXT),
    (bedrock_cases.CLEAN, None, bedrock_cases.TEXT),
    (assistants_cases.CLEAN, [assistants_cases.STEP],
     "Refunds are paid within 14 days. Cards abroad cost 2 euros."),
    (marked_cases.perplexity("Refunds take 14 days [1].", search_results=marked_cases.RESULTS),
     None, "Refunds take 14 days ."),  # markers in the text: the space before stays
])
def test_every_provider_keeps_its_text_whole_and_gets_its_chips(
        answer: Any, request_: Any, text: str) -> None:
    guarded = citeaudit.guard(answer, request_)
    assert guarded.report.passed
    assert "".join(p for p in guarded.parts if isinstance(p, str)) == text
    refs = [p for p in guarded.parts if isinstance(p, Ref)]
    assert refs
    assert {n for r in refs for n in r.chips} == {c.number for c in guarded.chips}


def test_the_policies_act_on_a_citation_that_names_nothing_sent() -> None:
    strip = citeaudit.guard(BROKEN_COHERE, cohere_cases.REQUEST, policy="strip")
    # Nothing is cut from the text: the broken citation only gets no chip.
    assert shown(strip.parts) == ["The tallest penguins are the Emperor penguins.",
                                  (("doc:0",), (1,)), " They only live in Antarctica."]
    drop = citeaudit.guard(BROKEN_COHERE, cohere_cases.REQUEST, policy="drop")
    assert (shown(drop.parts), drop.dropped) == (
        ["The tallest penguins are the Emperor penguins.", (("doc:0",), (1,))], (2,))
    withhold = citeaudit.guard(BROKEN_COHERE, cohere_cases.REQUEST, policy="withhold")
    assert withhold.withheld
    assert withhold.parts == (citeaudit.DEFAULT_FALLBACK,)


def test_render_shows_provider_sources_as_links_and_leaves_out_empty_quotes(
        tmp_path: Path, run: Any) -> None:
    html = citeaudit.render(gemini_cases.response(
        gemini_cases.support(gemini_cases.START, gemini_cases.END, 0)), None)
    assert 'Refunds take 14 days.<sup class="citeaudit-cite"><a class="citeaudit-ref"' \
        ' href="https://kb.example/refunds"' in html
    assert '<li value="1"><a href="https://kb.example/refunds" rel="noopener noreferrer' \
        ' nofollow" target="_blank">Refunds</a></li>' in html  # a web chunk has no text
    path = tmp_path / "response.json"
    path.write_text(cohere_cases.CLEAN.model_dump_json())
    request = tmp_path / "request.json"
    request.write_text(__import__("json").dumps(cohere_cases.REQUEST))
    result = run("render", str(request), str(path), "--to", "markdown")
    assert result.code == 0
    assert result.out.startswith("The tallest penguins are the Emperor penguins.\\[1\\] They"
                                 " only live in Antarctica.\\[2\\]\n")


@pytest.mark.parametrize("citation", [
    anthropic_cases.char(0, 20, "The sky is green."),  # CA204: not what is there
    anthropic_cases.char(0, 99, "The grass is green."),  # CA205: past the document's end
    anthropic_cases.char(9, 3, "The grass is green."),  # CA205: backwards
])
@pytest.mark.parametrize("policy", ["strip", "drop"])
def test_a_citation_that_quotes_or_points_wrongly_gets_no_chip(citation: Any,
                                                               policy: str) -> None:
    good = anthropic_cases.char(0, 20, "The grass is green.")
    response = anthropic_cases.message(anthropic_cases.text("The grass is green.", good),
                                       anthropic_cases.text(" The sky is blue.", citation))
    served = citeaudit.guard(response, anthropic_cases.REQUEST, policy=policy)  # type: ignore[arg-type]
    assert served.status == "unverified"
    assert [(c.number, c.label, c.claims) for c in served.chips] == [(1, "Facts", (1,))]
    refs = [p for p in served.parts if not isinstance(p, str)]
    assert [(r.ids, r.chips) for r in refs] == [(("document:0",), (1,))]
    kept = "The grass is green. The sky is blue." if policy == "strip" else "The grass is green."
    assert served.text == kept
    alone = citeaudit.guard(anthropic_cases.message_with(citation), anthropic_cases.REQUEST,
                            policy=policy)  # type: ignore[arg-type]
    assert alone.chips == ()
    assert (alone.withheld, alone.text) == ((False, "The grass is green.") if policy == "strip"
                                            else (True, citeaudit.DEFAULT_FALLBACK))
